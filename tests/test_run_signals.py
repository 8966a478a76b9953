"""``ccsim run`` on a terminal and in a pipeline, and the small traps a
researcher meets: each gives a named message or a warning.

* progress: a bar of simulated time, events/s and ETA on a terminal
  (checked through a pseudo-terminal), silent off one unless asked;
* a closed stdout (``| head -1``) ends quietly with status 0;
* an unwritable ``--out``, a run beyond the address-space limit, a
  ``MemoryError``, a flow that starts after the end, a byte limit below one
  packet, seeds that change nothing, stale plots in a reused directory.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import ccsim
from ccsim import ScenarioWarning, UserError, runner
from ccsim.cli import main as cli_main
from ccsim.plots import PLOT_FILES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dumbbell.toml"


def dumbbell(duration_s: float = 3.0, **queue) -> dict:
    return {
        "name": "signals", "duration_s": duration_s, "sample_interval_s": 0.1,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 10e6, "bottleneck_delay_s": 0.005,
                     "bottleneck_queue": queue or {"limit_pkts": 20}},
        "flows": [{"count": 2, "cc": "reno", "rtt_s": 0.04}],
    }


def write(tmp_path: Path, d: dict, name: str = "sc.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(d))
    return path


def ccsim_argv(*args) -> list:
    return [sys.executable, "-m", "ccsim", *map(str, args)]


# --------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------


def run_in_pty(argv, timeout_s: float = 120.0):
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal of
    120 columns; return its exit status and everything it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        try:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    out = b""
    deadline = time.monotonic() + timeout_s
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(f"no end after {timeout_s} s; wrote {out[-2000:]!r}")
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_progress_on_a_terminal_shows_sim_time_events_per_s_and_eta(tmp_path):
    sc = write(tmp_path, dumbbell(duration_s=20.0))
    code, text = run_in_pty(ccsim_argv("run", sc, "--out", tmp_path / "o", "--no-plots", "--progress"))
    assert code == 0, text
    updates = [u for u in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if "simulating" in u]
    assert updates, text
    last = updates[-1]
    # simulated seconds done/total, the time taken and left, events per second
    assert "20/20 sim-s" in last and "events/s" in last and "<00:00" in last, last
    assert "Traceback" not in text and "flow cc" in text


def test_default_bar_only_on_a_terminal_and_only_for_long_runs(monkeypatch):
    sc = dumbbell()

    def bar_text(stderr_is_tty: bool, delay_s: float) -> str:
        monkeypatch.setattr(runner, "PROGRESS_DELAY_S", delay_s)
        if not stderr_is_tty:
            err = io.StringIO()
            monkeypatch.setattr(sys, "stderr", err)
            ccsim.run(sc, progress=None)
            return err.getvalue()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        with open(slave, "w", closefd=True) as tty:
            monkeypatch.setattr(sys, "stderr", tty)
            ccsim.run(sc, progress=None)
            tty.flush()
        text = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            text += chunk
        os.close(master)
        return text.decode("utf-8", "replace")

    # a run that has lasted past the delay shows the bar on a terminal ...
    assert "3/3 sim-s" in bar_text(True, 0.0)
    # ... not off one, and not for a run shorter than the delay (2 s)
    assert bar_text(False, 0.0) == ""
    assert runner.PROGRESS_DELAY_S == 0.0
    assert "sim-s" not in bar_text(True, 2.0)


def test_pipe_into_head_exits_0_without_an_error_line(tmp_path):
    cmd = " ".join(f"'{a}'" for a in ccsim_argv("run", EXAMPLE, "--out", tmp_path / "x"))
    proc = subprocess.run(["bash", "-c", f'{cmd} | head -1; echo "status=${{PIPESTATUS[0]}}"'],
                          capture_output=True, text=True, timeout=300)
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:2] == ["flow", "cc"], proc.stdout
    assert lines[-1] == "status=0", (proc.stdout, proc.stderr)
    assert proc.stderr == ""


def test_stdout_closed_before_the_output_ends_quietly(tmp_path):
    # The reader has gone before ccsim writes a byte: every write to stdout
    # fails with EPIPE (``| head -1`` only sometimes gets there first).
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run(ccsim_argv("run", EXAMPLE, "--out", tmp_path / "x", "--no-plots"),
                              stdout=w, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(w)
    assert proc.returncode == 0 and proc.stderr == b""
    assert (tmp_path / "x" / "summary.json").is_file()


# --------------------------------------------------------------------------
# traps
# --------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_unwritable_out_names_the_directory_and_the_reason(tmp_path, capsys):
    sc = write(tmp_path, dumbbell())
    assert cli_main(["run", str(sc), "--out", "/proc/ccsim-out"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --out '/proc/ccsim-out': cannot create or write the output directory: "), err
    assert "No such file or directory" in err and "disk" not in err and "flows" not in err
    (tmp_path / "f").write_text("")
    assert cli_main(["run", str(sc), "--out", str(tmp_path / "f" / "sub")]) == 2
    assert "cannot create or write the output directory: Not a directory" in capsys.readouterr().err
    assert cli_main(["run", str(sc), "--out", str(tmp_path / "f")]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


def _mem_available() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return float(line.split()[1]) * 1024
    return 0.0


@pytest.mark.skipif(not Path("/proc/self/limits").is_file(), reason="needs /proc")
def test_address_space_limit_refuses_before_running(tmp_path):
    # 200,000 flows need about 4.8 GB (24 kB each): more than a 3 GB
    # ulimit -v leaves, less than the machine has available.
    if _mem_available() < 6e9:
        pytest.skip("the machine's own MemAvailable check would refuse first")
    d = dumbbell(duration_s=1.0)
    d["sample_interval_s"] = 0
    d["flows"][0]["count"] = 200_000
    sc = write(tmp_path, d)
    cmd = " ".join(f"'{a}'" for a in ccsim_argv("run", sc, "--out", tmp_path / "o", "--no-plots"))
    t0 = time.monotonic()
    proc = subprocess.run(["bash", "-c", f"ulimit -v 3000000 && exec {cmd}"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: scenario.flows[0].count: 200000 is too many: "), proc.stderr
    assert "4.800 GB" in proc.stderr and "address-space limit (ulimit -v: 3.072 GB" in proc.stderr
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    assert time.monotonic() - t0 < 60, "refused before building the run"


def test_memory_error_is_an_error_line(tmp_path, capsys, monkeypatch):
    def boom(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(runner, "run", boom)
    assert cli_main(["run", str(write(tmp_path, dumbbell())), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: out of memory: ") and "ulimit -v" in err and "Traceback" not in err


def test_flow_starting_after_the_end_is_warned(tmp_path, capsys):
    d = dumbbell()
    d["flows"].append({"cc": "reno", "rtt_s": 0.04, "start_s": 3.0, "count": 2})
    assert cli_main(["run", str(write(tmp_path, d)), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    err = capsys.readouterr().err
    assert err == ("warning: scenario.flows[1].start_s: 3 s is not before duration_s (3 s): its 2 flows start "
                   "after the run ends and send nothing (0 goodput); start_s must be < 3 for the flow to run\n")
    with pytest.warns(ScenarioWarning, match=r"scenario\.flows\[1\]\.start_s: 3 s is not before duration_s"):
        res = ccsim.run(d)
    assert [f["goodput_bps"] for f in res.raw["flows"][2:]] == [0, 0]
    # a flow that starts before the end is no trap
    d["flows"][1]["start_s"] = 2.9
    assert cli_main(["run", str(write(tmp_path, d)), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_byte_limit_below_one_packet_is_refused(tmp_path, capsys):
    d = dumbbell(limit_bytes=100)
    assert cli_main(["run", str(write(tmp_path, d)), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: scenario.topology.bottleneck_queue.limit_bytes: 100 is not allowed: "), err
    assert "1040 bytes" in err and "mss_bytes 1000 + header_bytes 40" in err and ">= 1040" in err
    with pytest.raises(UserError, match="limit_bytes: 1039 is not allowed"):
        ccsim.run(dumbbell(limit_bytes=1039))
    ccsim.run(dumbbell(limit_bytes=1040))


@pytest.mark.parametrize("loss, warned", [(0.0, True), (0.01, False)])
def test_seeds_that_change_nothing_are_warned_once(tmp_path, capsys, loss, warned):
    d = dumbbell(duration_s=1.0)
    d["topology"]["bottleneck_loss"] = loss
    argv = ["sweep", str(write(tmp_path, d)), "--grid", "flows.0.count=1,2", "--seeds", "2", "--workers", "1",
            "--out", str(tmp_path / "sw"), "--quiet"]
    assert cli_main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == int(warned), err
    if warned:
        assert err.startswith("warning: --seeds 2: the runs of every point are identical for every seed: the "
                              "scenario has no random component"), err


def test_no_plots_removes_the_plots_of_an_earlier_run(tmp_path, capsys):
    sc = write(tmp_path, dumbbell())
    out = tmp_path / "o"
    assert cli_main(["run", str(sc), "--out", str(out)]) == 0
    made = {p.name for p in out.glob("*.png")}
    assert made and made <= set(PLOT_FILES), "every plot ccsim run writes is in PLOT_FILES"
    (out / "mine.png").write_bytes(b"not ccsim's")
    assert cli_main(["run", str(sc), "--out", str(out), "--no-plots"]) == 0
    assert {p.name for p in out.glob("*.png")} == {"mine.png"}
    # a plot a run skips (no series to draw) goes as well
    assert cli_main(["run", str(sc), "--out", str(out)]) == 0
    capsys.readouterr()
    d = dumbbell()
    d["sample_interval_s"] = 0
    assert cli_main(["run", str(write(tmp_path, d, "nosamples.json")), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    listed = set(stdout.strip().splitlines()[-1].split(", "))  # the "wrote ..." line
    written = {name for name in PLOT_FILES if name in listed}
    # without series only the bar charts of the run totals remain
    assert written == {"flow_loss.png", "link_drops.png"} and written < made
    assert {p.name for p in out.glob("*.png")} == {"mine.png", *written}
