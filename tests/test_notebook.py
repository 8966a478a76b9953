"""examples/tour.ipynb runs top to bottom in a real Jupyter kernel.

The notebook is what a new user copies from, so it is executed as they
would execute it (nbclient, an IPython kernel of this interpreter),
and its own asserts (RTT bias, buffer vs utilisation, the sweep cache)
must hold. It is small on purpose: a few seconds here, < 60 s anywhere.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "tour.ipynb"


def test_tour_notebook_executes(tmp_path, monkeypatch):
    # A kernel of exactly this interpreter (the one ccsim is installed in),
    # whatever other "python3" kernels the machine has registered.
    spec = tmp_path / "jupyter" / "kernels" / "ccsim-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "ccsim test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    # Runs in tmp_path: the notebook writes only into its own temp dir, but a
    # stray relative path would land here rather than in the repository.
    NotebookClient(nb, timeout=120, kernel_name="ccsim-test",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code)
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    # The sweep table and the plots were produced, not just run past.
    texts = "".join(o.get("data", {}).get("text/plain", "") for c in code for o in c.outputs)
    assert "utilization" in texts and "hstcp" in texts
    images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2
