"""The ``modern-*`` group (today's congestion control): the scenario pieces
of its experiments and the group's place in ``reproduce --all`` and the
report. Its models are test_modern_models.py's.

The quick runs themselves, their snapshots and replots are
test_experiments.py's (every registered experiment); their checks are
snapshotted there, never asked to pass here.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from ccsim.cli import build_parser, main
from ccsim.experiments import REGISTRY, first_stage, write_checks
from ccsim.experiments.modern import TODAY_TCP, bdp_packets
from ccsim.experiments.modern import bbr_buffer, dctcp_k, l4s
from ccsim.models import dctcp as D
from ccsim.reproduce import PAPERS, paper_of, select

MODERN = ["modern-bbr-buffer", "modern-dctcp-k", "modern-l4s"]


# -- the experiments' pieces ---------------------------------------------------------------


@pytest.mark.parametrize("exp_id", MODERN)
def test_flows_are_todays_tcp_and_quick_is_small(exp_id):
    """The driver's paper TCP (NewReno, IW 2, one ACK per segment) must not
    reach these flows: each states the rfc personality's defaults."""
    module = REGISTRY[exp_id].figure
    assert paper_of(REGISTRY[exp_id]) == "modern"
    for quick in (True, False):
        for s in first_stage(module, quick):
            for f in s.base["flows"]:
                want = dict(TODAY_TCP)
                if s.base["name"].endswith("ack-per-segment"):  # the analysis's ACK clock, on purpose
                    want["delayed_ack"] = False
                assert {k: f[k] for k in TODAY_TCP} == want, f
    n_quick = sum(len(s.points) for s in module.scenarios(True))
    n_full = sum(len(s.points) for s in module.scenarios(False))
    assert 0 < n_quick < n_full and n_quick <= 15


def test_dctcp_queue_is_a_step_at_k_with_the_papers_pipe():
    sweep, fast, ack = dctcp_k.scenarios(True)
    for s in (sweep, fast, ack):
        rate = s.base["topology"]["bottleneck_rate_bps"]
        rtt = s.base["flows"][0]["rtt_s"]
        assert D.pipe_packets(rate, rtt, 1500) == pytest.approx(250 / 3)
    assert fast.base["topology"]["bottleneck_rate_bps"] == 10e9 and fast.base["flows"][0]["rtt_s"] == 100e-6
    assert ack.base["flows"][0]["delayed_ack"] is False
    for p in sweep.points:
        q = p["topology.bottleneck_queue"]
        assert q["kind"] == "red" and q["max_th_pkts"] == q["min_th_pkts"] + 1 and q["w_q"] == 1.0
        assert q["ecn"] and q["ecn_mark_above_max"] and not q["gentle"] and q["max_p"] == 1.0


def test_l4s_runs_prague_and_cubic_over_dualpi2_with_qdelay():
    pair, alone = l4s.scenarios(True)
    for s in (pair, alone):
        assert s.base["topology"]["bottleneck_queue"] == {"kind": "dualpi2"}
        assert s.base["qdelay"] is True
        assert s.base["flows"][0]["cc"] == "prague"
    assert [f["cc"] for f in pair.base["flows"]] == ["prague", "cubic"]
    for p in pair.points:
        assert p["flows.0.rtt_s"] == p["flows.1.rtt_s"]  # equal base RTTs
    assert sorted({p["flows.0.rtt_s"] for p in pair.points}) == l4s.setting(True)["rtts"]


def test_sawtooth_cycles_of_a_noisy_triangle_wave():
    rng = np.random.default_rng(1)
    t = np.arange(4000)
    tri = 30 + 10 * (np.abs((t % 100) / 50.0 - 1.0))  # 30..40 packets, period 100 samples
    noisy = np.round(tri + rng.integers(-1, 2, size=len(t)))
    peak, trough, n = dctcp_k.sawtooth(noisy)
    assert n in (39, 40)
    assert peak == pytest.approx(41, abs=0.6) and trough == pytest.approx(29, abs=0.6)
    assert dctcp_k.sawtooth(np.array([]))[2] == 0


def test_probe_peaks_of_a_lone_flows_bumps():
    q = np.zeros(1000)
    for start, top in ((100, 80), (400, 90), (700, 85)):
        q[start:start + 20] = np.linspace(0, top, 20)
        q[start + 20:start + 40] = np.linspace(top, 0, 20)
    peaks = bbr_buffer.probe_peaks(q, 333.3)
    assert list(peaks) == [80, 90, 85]


def test_bbr_buffers_count_packets_of_the_bdp():
    assert bdp_packets(100e6, 0.04) == pytest.approx(333.33, abs=0.01)
    (vs, alone) = bbr_buffer.scenarios(True)
    limits = sorted({p["topology.bottleneck_queue.limit_pkts"] for p in vs.points})
    assert limits == [167, 333, 667, 1333, 2667, 5333]
    assert vs.base["flows"][0]["cc"] == "bbr" and vs.base["flows"][1]["cc"] == "cubic"
    assert [f["cc"] for f in alone.base["flows"]] == ["bbr"]


# -- the group in reproduce --all and in the report ----------------------------------------


def test_modern_is_a_group_of_reproduce_all():
    assert "modern" in PAPERS
    assert [e.id for e in select(["modern"])] == MODERN
    args = build_parser().parse_args(["reproduce", "--all", "--paper", "modern", "--quick"])
    assert args.paper == ["modern"]


def test_report_gives_the_group_its_own_section(quick_run, tmp_path):
    """Beside a paper's reproduction, the modern group is a section of the
    index of its own, named by the group."""
    root = tmp_path / "results"
    for exp_id in ("htcp-fig2", "modern-dctcp-k"):
        src, checks = quick_run(exp_id)
        shutil.copytree(src, root / exp_id)
        write_checks(root / exp_id, checks)
    assert main(["report", str(root), "--quiet"]) == 0
    index = (root / "report" / "index.html").read_text()
    sections = re.findall(r'<h3 id="[^"]+">([^<]+)</h3>', index)
    assert len(sections) == 2 and any(s.startswith("Today&#x27;s congestion control") or
                                       s.startswith("Today's congestion control") for s in sections), sections
    summary = re.search(r'<p class="paper-summary" data-paper="Today[^"]*">([^<]*)</p>', index)
    assert summary and summary.group(1).startswith("1 experiment;"), summary
