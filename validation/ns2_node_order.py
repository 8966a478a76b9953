"""Record the order in which ns-2.35's ``$ns run`` resets its nodes
(python/ccsim/experiments/_kit/ns2_node_orders.json).

    python -m validation.ns2_node_order [NODES ...]

``Simulator run`` resets every node's agents in Tcl's hash order of its
node table (``foreach nn [array names Node_]``), and each TCP agent's
reset draws the ``boot_time_`` tick phase it runs with from ns-2's
default random stream, so which agent gets which draw follows that order,
not the order the script created them in. The order depends only on how
many nodes the script made (ids 0..N-1, created in order); this prints it
from ``ns`` for each N (default: the counts the ``*-ns2`` experiments'
dumbbells make, 2 + 2 hosts) and writes them where
``ns2ref.node_order`` reads them (CI has no ns-2). Needs ``ns``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

from ccsim.experiments._kit import ns2ref

#: Nodes of the recorded dumbbells: 1, 10, 50 and 100 hosts.
DEFAULT_NODES = (4, 22, 102, 202)


def measure(n_nodes: int, ns: str) -> List[int]:
    """ns-2's node reset order for a script that makes ``n_nodes`` nodes."""
    tcl = (f"set ns [new Simulator]\nfor {{set i 0}} {{$i < {n_nodes}}} {{incr i}} {{ $ns node }}\n"
           "puts \"nodes [$ns array names Node_]\"\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "order.tcl"
        path.write_text(tcl)
        out = subprocess.run([ns, str(path)], capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("nodes "))
    order = [int(x) for x in line.split()[1:]]
    if sorted(order) != list(range(n_nodes)):
        raise RuntimeError(f"ns printed {order} for {n_nodes} nodes")
    return order


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nodes", nargs="*", type=int, default=list(DEFAULT_NODES))
    a = ap.parse_args(argv)
    ns = shutil.which("ns")
    if ns is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return 2
    bad = [n for n in a.nodes if n < 1]
    if bad:
        ap.error(f"nodes: {bad[0]}; allowed: 1 or more")
    path = ns2ref.NODE_ORDERS
    doc = json.loads(path.read_text()) if path.exists() else {"source": "ns-2", "ns2_version": "2.35", "orders": {}}
    doc["date"] = datetime.date.today().isoformat()
    for n in a.nodes:
        doc["orders"][str(n)] = measure(n, ns)
        print(f"{n} nodes: {' '.join(map(str, doc['orders'][str(n)][:12]))} ...")
    doc["orders"] = dict(sorted(doc["orders"].items(), key=lambda kv: int(kv[0])))
    path.write_text(json.dumps(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
