"""``gwa-wan``: the GWA paper's WAN experiment, §6.2, Figs 7-9 (setup:
:mod:`ccsim.experiments.gwa`, :data:`~ccsim.experiments.gwa.WAN`).

155 Mb/s bottleneck, 100 Mb/s access links, tau_B = tau_r = 5 ms, tau_i
uniform on [1, 10] ms, 512-kbyte windows, 10 FTP + 10 Telnet sources.
Against the buffer: goodput min/avg/max (Fig 7), drop probability and
Telnet delays (Fig 9); window and queue over the first 3 s at 2 Mbytes
(Fig 8; the span is not stated, Fig 6's 3 s is used).

Which schemes: the text says Fig 7 shows "the 5 TCP implementations" and
compares Fig 7(e) with Fig 10(e) (GWA-FCFS), yet it discusses all six in
this section (BA-FCFS's fairness and small buffers in Fig 7, its queue in
Fig 8, DropTail and RED drop rates in Fig 9). All six are run.

Checks (the text's statements): zero loss for GWA and ECN, perfect
fairness for GWA-RR and BA-FCFS, BA-FCFS's full utilisation with 64-128
kbytes, GWA-RR's need for a large buffer (utilisation grows with it, full
only with large buffers), GWA-FCFS's fairness improving with the buffer,
DropTail/RED drop rates never above 1e-3, BA-FCFS's near-empty buffer,
GWA/ECN Telnet delays below DropTail/RED ones, GWA's loss-free start.
``--quick``: 64, 512 and 2048 kbytes (full: six buffers), full-length runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import sequence
from . import (FULL_UTILISATION_TOL, GWA_SCHEMES, LOSS_FREE, SCHEMES, WAN, analyse_with_transients,
               fairness_checks, loss_free_checks, near_empty_check, plot_six_schemes, scenarios_with_transients,
               transient_loss_free_checks)

ID = "gwa-wan"
SOURCE = "GWA (generalized window advertising), §6.2 Figs 7-9"
DESCRIPTION = ("WAN, 155 Mb/s bottleneck, 10 FTP + 10 Telnet, tau_i 1-10 ms: goodput min/avg/max, drop probability, "
               "Telnet delays vs buffer for the six schemes; 3 s transients at 2 MB")

PAPER = {
    "max_droptail_red_drop_rate": 1e-3,   # §6.2: "never exceeding 10^-3"
    "ba_small_buffers_kB": (64, 128),     # §6.2: BA-FCFS's performance "with buffers as small as 64 or 128 kbytes"
    "gwa_min_buffer_kB": 500,             # §6.2: "minimum buffer space ... around 500 kbytes"
    "outstanding_pkts": 450,              # §6.2: "about 450" MSS packets or ACKs outstanding
    "transient_buffer_kB": 2048,          # Fig 8: 2 Mbyte buffer
}


def buffers(quick: bool) -> List[float]:
    """Buffer sizes (kbytes): 64 to 2048 (the text's 64, 128, ~500 and 2 MB)."""
    return [64, 512, 2048] if quick else [64, 128, 256, 512, 1024, 2048]


def scenarios(quick: bool) -> List[Sweep]:
    return scenarios_with_transients(ID, WAN, buffers(quick), PAPER["transient_buffer_kB"])


def analyse(runs: Runs, quick: bool) -> Analysis:
    return analyse_with_transients(runs, ID, WAN)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    by = {s: t[t["scheme"] == s].sort_values("buffer_kb") for s in SCHEMES}
    out = loss_free_checks(t, LOSS_FREE, "WAN")
    out += fairness_checks(t, ("GWA-RR", "BA-FCFS"), "WAN")
    ba = by["BA-FCFS"]
    small = ba[ba["buffer_kb"] <= max(PAPER["ba_small_buffers_kB"])]
    out.append(Check("BA-FCFS: lowest utilisation at buffers <= 128 kB (full with small buffers)", paper=1.0,
                     ccsim=round(float(small["utilization"].min()), 4), tolerance=FULL_UTILISATION_TOL,
                     source="paper"))
    rr = by["GWA-RR"]
    u = rr["utilization"].tolist()
    out.append(Check("GWA-RR: utilisation grows with the buffer (needs a large buffer)", paper=True,
                     ccsim=sequence(u), ok=all(b >= a_ for a_, b in zip(u, u[1:])) and u[-1] > u[0],
                     source="paper"))
    out.append(Check(f"GWA-RR: utilisation at the largest buffer ({int(rr['buffer_kb'].iloc[-1])} kB; full)",
                     paper=1.0, ccsim=round(float(u[-1]), 4), tolerance=FULL_UTILISATION_TOL, source="paper"))
    fc = by["GWA-FCFS"]["ftp_jain"].tolist()
    out.append(Check("GWA-FCFS: Jain index of FTP goodputs higher at the largest buffer than at the smallest",
                     paper=True, ccsim=sequence(fc, ".4f"), ok=fc[-1] > fc[0], source="paper"))
    for s in ("DropTail", "RED"):
        m = float(by[s]["drop_prob"].max())
        out.append(Check(f"{s}: largest drop probability over buffers <= 1e-3", paper="<= 1e-3", ccsim=m,
                         ok=m <= PAPER["max_droptail_red_drop_rate"], source="paper"))
    out += near_empty_check(t, "WAN")
    good = max(float(by[s]["telnet_delay_max_s"].max()) for s in ("ECN",) + GWA_SCHEMES)
    bad = max(float(by[s]["telnet_delay_max_s"].max()) for s in ("DropTail", "RED"))
    out.append(Check("largest maximum Telnet delay: GWA and ECN below DropTail and RED (s)", paper="GWA/ECN < DT/RED",
                     ccsim=f"{good:.4f} < {bad:.4f}", ok=good < bad, source="paper"))
    b0 = PAPER["transient_buffer_kB"]
    out += transient_loss_free_checks(a.trans, b0)
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    return plot_six_schemes(a, out_dir, ID, "GWA paper §6.2 (WAN): Fig 7 (rows 1-2), Fig 9 (row 3), Fig 8 at "
                            f"{PAPER['transient_buffer_kB']} kB (rows 4-5)" + (" [quick]" if quick else ""),
                            insert_s=0.5, log_x=True)
