"""ccsim's ``linux`` TCP against the Linux kernel's TCP on whole flows: the
recorded kernel runs (validation/results/linux/, ``python -m
validation.linux_kernel --record``) against ccsim on the same dumbbell.
Every metric pair agrees (within 5% of the kernel's mean or inside the
range of its runs) or has a traced cause; every recording is honest about
the emulator (its timing error under a tenth of a packet time, its drop
decisions those of an independent queue on the same arrivals)."""
import json
import math

import pytest

from validation import linux_kernel as lk

RECORDED = [sc for sc in lk.SCENARIOS if lk.recorded(sc) is not None]


def test_the_scenarios_cover_what_the_comparison_promises():
    assert len(RECORDED) == len(lk.SCENARIOS) >= 12
    got = {(sc.cc, sc.n_flows, sc.rate_mbps, sc.rtts_ms[0], sc.buffer_bdp) for sc in RECORDED}
    assert {c for c, *_ in got} == {"cubic", "reno", "bbr"}
    assert {n for _, n, *_ in got} >= {1, 4}
    assert {r for _, _, r, *_ in got} == {10, 50}
    assert {t for *_, t, _ in got} >= {20, 80}
    assert {b for *_, b in got} == {0.5, 1, 2}
    staggered = [sc for sc in RECORDED if len(set(sc.starts_s)) > 1 and len(set(sc.rtts_ms)) > 1]
    assert staggered, "one scenario with staggered starts and different RTTs"


@pytest.mark.parametrize("sc", RECORDED, ids=lambda s: s.id)
def test_the_recording_is_within_the_emulators_error(sc):
    rec = lk.recorded(sc)
    assert len(rec["runs"]) == lk.RUNS
    assert rec["kernel"] and rec["sysctls"]["net.ipv4.tcp_congestion_control"]
    for r in rec["runs"]:
        assert r["emulator"]["p99_error_us"] < lk.tenth_packet_us(sc)
        assert r["emulator"]["drop_decisions_differing"] == 0
        # the recorder's whole check: the tail budget, the replay, a quiet CPU
        assert lk.run_problems(sc, r) == []
    # one emulator model per recording: every run's ACK path the same
    assert lk.ack_path(rec) in ("duplex", "delay")


def test_a_recordings_ack_path_is_its_runs_and_delay_only_before_it_was_kept():
    run = {"metrics": {}}
    assert lk.ack_path({"params": {}, "runs": [run, run]}) == "delay"
    duplex = {**run, "ack_path": "duplex"}
    assert lk.ack_path({"params": {}, "runs": [duplex, duplex]}) == "duplex"
    with pytest.raises(ValueError, match="different ACK paths"):
        lk.ack_path({"params": {}, "runs": [duplex, run]})
    # the live scenario asks the emulator for the duplex link ccsim models
    assert all(sc.live()["duplex"] is True for sc in lk.SCENARIOS)


#: a recorded run within every budget at 50 Mb/s (240 us a packet)
FIT_RUN = {"emulator": {"p99_error_us": 18.0, "p999_error_us": 88.0, "reverse_p99_error_us": 9.0,
                        "drop_decisions_differing": 0},
           "contention": {"quiet": True, "runqueue_wait_share": 0.0003}}


def test_a_stalled_or_busy_run_is_unfit():
    """The recorder's check catches what a 99th percentile alone misses:
    a stall (the 99.9th percentile over a packet time), as well as a
    differing drop decision and a busy machine; 50 Mb/s: 240 us a packet."""
    sc = lk.by_id("reno-1-50m-80ms-0.5bdp")
    fit = FIT_RUN
    assert lk.run_problems(sc, fit) == []
    stalled = {**fit, "emulator": {**fit["emulator"], "p999_error_us": 58656.0}}
    assert ["99.9th" in p for p in lk.run_problems(sc, stalled)] == [True]
    late = {**fit, "emulator": {**fit["emulator"], "p99_error_us": 24.0}}
    assert ["99th" in p for p in lk.run_problems(sc, late)] == [True]
    assert len(lk.run_problems(sc, {**fit, "emulator": {**fit["emulator"], "drop_decisions_differing": 1}})) == 1
    assert len(lk.run_problems(sc, {**fit, "contention": {"quiet": False, "runqueue_wait_share": 0.01}})) == 1
    # the ACKs' path has the same budget: its 99th percentile always, its
    # 99.9th where the recording kept it
    late_acks = {**fit, "emulator": {**fit["emulator"], "reverse_p99_error_us": 87.0}}
    assert ["99th percentile of the emulator's timing error on the ACKs' path" in p
            for p in lk.run_problems(sc, late_acks)] == [True]
    stalled_acks = {**fit, "emulator": {**fit["emulator"], "reverse_p999_error_us": 633.0}}
    assert ["99.9th" in p and "ACKs" in p for p in lk.run_problems(sc, stalled_acks)] == [True]
    assert lk.run_problems(sc, {**fit, "emulator": {**fit["emulator"], "reverse_p999_error_us": 200.0}}) == []
    assert lk.run_problems(lk.by_id("reno-1-10m-20ms-1bdp"), {**fit, "emulator": {**fit["emulator"],
                                                                                   "p999_error_us": 1100.0}}) == []


def test_a_bbr_run_on_a_machine_the_hypervisor_took_from_is_unfit():
    """BBR's runs are held to the hypervisor's share of the machine
    (0.2%): its bandwidth filter keeps the noise's bursts. Loss-based
    controllers are not; runs recorded before the steal was go unchecked."""
    def run(steal=None):
        c = FIT_RUN["contention"]
        return {**FIT_RUN, "contention": c if steal is None else {**c, "steal_share": steal}}

    bbr, cubic = lk.by_id("bbr-1-50m-80ms-2bdp"), lk.by_id("cubic-1-50m-80ms-1bdp")
    assert lk.run_problems(bbr, run(0.0012)) == [] and lk.run_problems(bbr, run()) == []
    assert ["hypervisor took 0.38%" in p for p in lk.run_problems(bbr, run(0.0038))] == [True]
    assert lk.run_problems(cubic, run(0.05)) == []


@pytest.mark.parametrize("sc", RECORDED, ids=lambda s: s.id)
def test_ccsim_agrees_with_the_kernel(sc):
    """Every pair agrees or is listed (traced, or open with what is known),
    and the lists hold no pair that agrees now."""
    runs = lk.recorded(sc)["runs"]
    rows = lk.compare(sc, runs, lk.ccsim_runs(sc, runs))
    model = all("bw_est_mbps" in r["metrics"] for r in runs)
    assert sc.cc == "bbr" or not model
    # goodput per flow; BBR's model where the kernel's runs sampled it
    assert len(rows) == len(lk.METRICS) + sc.n_flows - 1 + model * len(lk.BBR_METRICS)
    bad = [f"{r['metric']}: kernel {r['kernel_mean']:.4g} [{r['kernel_lo']:.4g}, {r['kernel_hi']:.4g}], "
           f"ccsim {r['ccsim']:.4g}" for r in rows if r["verdict"] == "differs"]
    assert not bad, "; ".join(bad)
    listed = {m for (sid, m) in list(lk.TRACED) + list(lk.OPEN) if sid == sc.id}
    assert listed == {r["metric"] for r in rows if r["verdict"] in ("traced", "open")}, "a listed pair agrees now"


def test_a_pair_outside_the_kernels_range_and_tolerance_differs():
    sc = lk.by_id("cubic-1-50m-20ms-2bdp")  # nothing listed for it
    runs = [{"metrics": lk.summarise(sc, [10.0], [[20.0, 30.0]], 10 + i, 0, [5.0], 10 + i)} for i in range(3)]
    ours = lk.summarise(sc, [10.3], [[20.0, 30.0]], 20, 0, [5.0], 11)
    rows = {r["metric"]: r for r in lk.compare(sc, runs, [ours])}
    assert rows["goodput_mbps"]["verdict"] == "ok"  # 3% off
    assert rows["drops"]["verdict"] == "ok"  # inside 10-12
    assert rows["retransmits"]["verdict"] == "differs"  # 20 against 10-12
    # ccsim's runs: their mean is compared, their range reported
    two = [ours, lk.summarise(sc, [10.3], [[20.0, 30.0]], 4, 0, [5.0], 11)]
    rows = {r["metric"]: r for r in lk.compare(sc, runs, two)}
    assert (rows["retransmits"]["ccsim"], rows["retransmits"]["ccsim_lo"], rows["retransmits"]["ccsim_hi"]) == (12, 4, 20)
    assert rows["retransmits"]["verdict"] == "ok"


def test_the_hypervisors_share_is_read_from_proc_stat():
    """``steal_share``: the eighth column's share of the first eight
    (user to steal; guest time is inside user already) between two
    readings; the machine's own ``/proc/stat`` gives a share in [0, 1]."""
    from validation import kernel_live

    before = [100, 0, 50, 800, 0, 0, 10, 40, 0, 0]
    after = [200, 0, 100, 1600, 0, 0, 20, 80, 7, 0]
    assert kernel_live.steal_share(before, after) == pytest.approx(40 / 1000)
    assert kernel_live.steal_share(before, before) == 0.0
    now = kernel_live.cpu_times()
    assert len(now) >= 8 and 0.0 <= kernel_live.steal_share(now, kernel_live.cpu_times()) <= 1.0
    emu = {"cpu": {"runqueue_wait_ns": 1_000_000, "involuntary_switches": 3}, "elapsed_s": 10.0}
    c = kernel_live.contention(emu, 0.02)
    assert c["steal_share"] == 0.02 and c["quiet"], "the hypervisor's share is recorded, not judged"


def test_bbrs_model_is_averaged_over_each_flows_window_and_summed():
    """``bbr_model``: each flow's bandwidth estimate averaged over its
    window samples (from its first RTT of data), summed over the flows;
    RTprop averaged per flow then over flows; samples without an estimate
    (NaN) left out, and the kernel's "no sample yet" (``~0U``) read as
    none."""
    sc = lk.by_id("bbr-4-10m-80ms-1bdp")  # windows from 0.16 s
    nan = math.nan
    flows = [((0.0, 0.2, 0.3), (9e9, 250_000.0, 350_000.0), (nan, 0.080, 0.082))] * 2 + [
        ((0.1, 0.5), (nan, 125_000.0), (nan, 0.090)), ((1.0,), (0.0,), (0.1,))]
    m = lk.bbr_model(sc, flows)
    assert m["bw_est_mbps"] == pytest.approx((2 * 300_000 + 125_000 + 0) * 8 / 1e6)
    assert m["min_rtt_ms"] == pytest.approx((81 + 81 + 90 + 100) / 4)
    # the kernel's samples: bytes/s and us, ~0U before RTprop's first sample
    f = {"t": [0.2, 0.3], "bbr_info": {"bw": [250_000, 350_000], "min_rtt": [lk.NO_MIN_RTT_US, 82_000]}}
    t, bw, rtt = lk.kernel_bbr_samples(f)
    assert (t, bw) == ([0.2, 0.3], [250_000, 350_000])
    assert math.isnan(rtt[0]) and rtt[1] == pytest.approx(0.082)


def test_start_offsets_keep_the_kernels_order_within_flows_started_together():
    """Flows a scenario starts together get the kernel run's spacing of
    their first data at the bottleneck; a flow started on its own, none."""
    from validation.kernel_live import flow_addr

    sc = lk.by_id("cubic-4-50m-80ms-0.5bdp")
    us = 1_000
    arrivals = [{"t_ns": t, "len": n, "src": flow_addr(i)} for t, n, i in [
        (0, 60, 0), (10 * us, 60, 1), (500 * us, 1500, 2), (520 * us, 1500, 0), (521 * us, 1500, 2),
        (600 * us, 1500, 1), (650 * us, 1500, 3)]]
    assert lk.start_offsets(sc, arrivals) == pytest.approx([20e-6, 100e-6, 0.0, 150e-6])
    staggered = lk.by_id("cubic-4-staggered")
    assert lk.start_offsets(staggered, arrivals) == [0.0] * 4


def test_a_later_group_reaches_the_bottleneck_as_late_as_the_kernels():
    """A flow started after the others starts in ccsim so that its SYN
    reaches the bottleneck as long after flow 0's as the kernel's did:
    the kernel's connect was late, and the emulator puts a flow's extra
    delay before the bottleneck where ccsim puts a quarter of its RTT.
    Flows started together keep their offsets; a recording without SYN
    times keeps offsets alone."""
    from validation.kernel_live import flow_addr

    sc = lk.by_id("cubic-4-staggered")  # RTTs 20-80 ms: 5-20 ms before ccsim's bottleneck
    us = 1_000
    # the emulator's clock runs 2 s behind the run's here
    arrivals = [{"t_ns": t - 2 * 10**9, "len": n, "src": flow_addr(i)} for t, n, i in [
        (100 * us, 60, 0), (120 * us, 1500, 0), (5_010_400 * us, 60, 1), (10_020_150 * us, 60, 2),
        (15_031_100 * us, 60, 3), (15_031_200 * us, 1500, 3)]]
    syns = lk.syn_arrivals(sc, arrivals, 2 * 10**9)
    assert syns == pytest.approx([0.0001, 5.0104, 10.02015, 15.0311])
    offsets = lk.ccsim_offsets(sc, {"start_offsets_s": [0.0] * 4, "syn_arrival_s": syns})
    assert offsets == pytest.approx([0.0, 0.0053, 0.01005, 0.016])
    # ccsim's SYNs at its bottleneck, start + RTT/4, as far apart as the kernel's
    at = [s + o + r / 4e3 for s, o, r in zip(sc.starts_s, offsets, sc.rtts_ms)]
    assert [a - at[0] for a in at] == pytest.approx([s - syns[0] for s in syns])
    assert lk.ccsim_offsets(sc, {"start_offsets_s": [0.0] * 4}) == (0.0,) * 4
    assert lk.ccsim_offsets(sc, {}) is None
    # flows started together: only their offsets count
    together = lk.by_id("cubic-4-50m-80ms-0.5bdp")
    entry = {"start_offsets_s": [0.0, 2e-5, 5e-5, 9e-5], "syn_arrival_s": [0.0003, 0.00031, 0.00035, 0.0004]}
    assert lk.ccsim_offsets(together, entry) == pytest.approx([0.0, 2e-5, 5e-5, 9e-5])
    assert lk.syn_arrivals(together, arrivals[:2], 0) == [pytest.approx(0.0001 - 2), None, None, None]


def test_the_timestamp_clock_phase_puts_the_kernels_millisecond_ticks_on_ccsims_clock():
    """Flow 0's first data packet reached the emulator's bottleneck at a
    monotonic time; ccsim's reaches its bottleneck 1.25 RTTs after the
    flow's start (the handshake, then a quarter RTT on the sender's edge).
    The kernel's millisecond clock then ticks where that difference,
    modulo a millisecond, puts it; ccsim's flows get it as
    ``ts_clock_phase_s``."""
    sc = lk.by_id("cubic-4-50m-80ms-0.5bdp")  # RTT 80 ms: first data at 100 ms + flow 0's offset
    entry = {"start_offsets_s": [0.0, 2e-5, 5e-5, 9e-5], "syn_arrival_s": [0.0003] * 4}
    at = {"first_data_monotonic_ns": 5_123_456_789}
    assert lk.ts_clock_phase(sc, {**entry, **at}) == pytest.approx(0.000456789)
    # flow 0 started 0.3 ms after another: its packet is 0.3 ms later in ccsim too
    later = {"start_offsets_s": [3e-4, 0.0, 5e-5, 9e-5], "syn_arrival_s": [0.0003] * 4}
    assert lk.ts_clock_phase(sc, {**later, **at}) == pytest.approx(0.000156789)
    assert lk.ts_clock_phase(sc, entry) is None
    assert lk.ts_clock_phase(sc, at) is None
    flows = sc.ccsim_scenario(entry["start_offsets_s"], 0.000456789)["flows"]
    assert [f["ts_clock_phase_s"] for f in flows] == [0.000456789] * 4
    assert "ts_clock_phase_s" not in sc.ccsim_scenario()["flows"][0]


def test_a_run_recorded_without_its_clock_phase_gets_one_part_of_the_millisecond():
    """A recording that predates ``first_data_monotonic_ns`` leaves each
    run's phase unknown, and uniform over the millisecond: ccsim's run
    ``k`` of ``n`` takes the midpoint of the ``k``-th of ``n`` equal parts,
    so its runs sample the phase evenly (not all at 0). A run with its
    phase keeps it; the offsets come through either way."""
    sc = lk.by_id("cubic-4-50m-80ms-0.5bdp")
    old = {"start_offsets_s": [0.0, 2e-5, 5e-5, 9e-5], "syn_arrival_s": [0.0003] * 4}
    new = {**old, "first_data_monotonic_ns": 5_123_456_789}
    runs = [old, new, old, old]
    got = [lk.run_conditions(sc, runs, k) for k in range(4)]
    assert [ph for _, ph in got] == pytest.approx([0.000125, 0.000456789, 0.000625, 0.000875])
    assert all(o == pytest.approx(old["start_offsets_s"]) for o, _ in got)
    # no offsets (single-flow recordings before them): none, and still a phase
    assert lk.run_conditions(sc, [{}, {}], 1) == (None, pytest.approx(0.00075))


def test_the_reference_droptail_that_checks_the_emulator():
    """kernel_live's independent DropTail (the replay that checks the
    emulator's drop decisions) on a hand-worked case: 1500-byte packets at
    12 Mb/s take 1 ms; a buffer of 2 waiting packets (the one in service
    not counted)."""
    from validation import kernel_live

    ms = 1_000_000
    # four at once: one in service, two wait, the fourth is dropped; at
    # 1 ms the first has left and one more fits, at 1.5 ms the queue is
    # full again (in service: #2, waiting #3 and #5)
    arrivals = [(0, 1500)] * 4 + [(1 * ms, 1500), (int(1.5 * ms), 1500), (3 * ms, 1500)]
    assert kernel_live.reference_verdicts(arrivals, 12_000_000, 2, 0.0, 1) == [0, 0, 0, 1, 0, 1, 0]
    # Bernoulli loss is drawn before the buffer, from the seed
    lossy = kernel_live.reference_verdicts([(i * 2 * ms, 1500) for i in range(1000)], 12_000_000, 2, 0.1, 7)
    assert lossy == kernel_live.reference_verdicts([(i * 2 * ms, 1500) for i in range(1000)], 12_000_000, 2, 0.1, 7)
    assert 60 < lossy.count(2) < 140 and lossy.count(1) == 0


def test_bbr_info_reads_the_kernels_bbr_state_over_loopback():
    """``kernel_live.bbr_info`` decodes ``TCP_CC_INFO`` as the running
    kernel's ``struct tcp_bbr_info``: a BBR connection in Startup over
    loopback (inside this process's own namespace) reports Startup's high
    gain (2.885 in 1/256: 739) for pacing and cwnd, a measured min_rtt
    and a positive bandwidth."""
    import socket

    from validation import kernel_live

    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        if "bbr" not in f.read().split():
            pytest.skip("the kernel has no tcp_bbr")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.socket()
    try:
        cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"bbr")
        cli.connect(srv.getsockname())
        peer, _ = srv.accept()
        with peer:
            for _ in range(20):
                cli.sendall(b"x" * 4096)
                peer.recv(1 << 16)
            info = kernel_live.bbr_info(cli)
    finally:
        cli.close()
        srv.close()
    assert info["pacing_gain"] == 739 and info["cwnd_gain"] == 739, info
    assert 0 < info["min_rtt"] < 1_000_000, info
    assert info["bw"] > 0, info


TRACE = """# tracer: nop
#
          python-1  [000] b..1.  10.000100: sk_data_ready: skaddr=0xffff0001 (-1) family=0x2 (2) protocol=0x6 (6) ip=sock_def_readable+0x7f/0xb0 (-1)
          python-1  [000] b..1.  10.000150: sk_data_ready: skaddr=0xffff0001 (-1) family=0x2 (2) protocol=0x6 (6) ip=sock_def_readable+0x7f/0xb0 (-1)
          python-1  [000] .....  10.000190: sock_recv_length: sk=0xffff0001 (-1) family=0x2 (2) protocol=0x6 (6) ret=0xb50 (2896) flags=0x40 (64)
          python-1  [000] b..1.  10.000200: sk_data_ready: skaddr=0xffff0002 (-1) family=0x2 (2) protocol=0x6 (6) ip=sock_def_readable+0x7f/0xb0 (-1)
          python-1  [000] .....  10.001700: sock_recv_length: sk=0xffff0002 (-1) family=0x2 (2) protocol=0x6 (6) ret=0x5a8 (1448) flags=0x40 (64)
          python-1  [000] b..1.  10.002000: sk_data_ready: skaddr=0xffff0001 (-1) family=0x2 (2) protocol=0x6 (6) ip=sock_def_readable+0x7f/0xb0 (-1)
          python-1  [000] .....  10.002070: sock_recv_length: sk=0xffff0001 (-1) family=0x2 (2) protocol=0x6 (6) ret=0x5a8 (1448) flags=0x40 (64)
          python-1  [000] b..1.  10.003000: sk_data_ready: skaddr=0xffff0003 (-1) family=0x2 (2) protocol=0x6 (6) ip=sock_def_readable+0x7f/0xb0 (-1)
"""


def test_a_traced_read_is_timed_from_the_first_data_it_found_readable(tmp_path):
    """``kernel_live.ReadTrace``'s reading of the kernel's tracepoints: a
    read's delay runs from the first ``sk_data_ready`` after the previous
    read (a second one before the read does not restart it) to the read's
    ``sock_recv_length``; sockets become flows by the bytes each delivered,
    and a socket with no read (the listener) is left out."""
    from validation import kernel_live

    per = kernel_live.parse_read_trace(TRACE)
    assert [e[0] for e in per[0xFFFF0001]] == ["ready", "ready", "read", "ready", "read"]
    assert per[0xFFFF0001][2] == ("read", 10_000_190_000, 2896)
    assert kernel_live.read_delays(per[0xFFFF0001]) == [90_000, 70_000]
    flows = kernel_live.flow_reads(per, [1448, 4344])  # flow 0 is the second socket
    assert [f["reads"] for f in flows] == [1, 2]
    assert flows[0]["quantiles_s"][0] == flows[0]["quantiles_s"][-1] == pytest.approx(1.5e-3)
    assert len(flows[1]["quantiles_s"]) == kernel_live.READ_QUANTILES
    assert flows[1]["quantiles_s"][0] == pytest.approx(70e-6) and flows[1]["quantiles_s"][-1] == pytest.approx(90e-6)
    assert flows[1]["quantiles_s"][500] == pytest.approx(80e-6) and flows[1]["max_us"] == pytest.approx(90)
    # every read kept per flow, in the flows' order
    kernel_live.write_reads_csv(tmp_path / "reads.csv", per, kernel_live.flow_sockets(per, [1448, 4344]))
    assert (tmp_path / "reads.csv").read_text().splitlines() == [
        "flow,readable_ns,read_ns,bytes", "0,10000200000,10001700000,1448",
        "1,10000100000,10000190000,2896", "1,10002000000,10002070000,1448"]
    # flows not told apart by their bytes: no reads rather than wrong ones
    assert kernel_live.flow_reads(per, [1448, 1448]) is None
    assert kernel_live.flow_reads(per, [1448, 999]) is None


def test_a_measured_tail_is_kept_value_by_value():
    """``kernel_live.tail_quantiles``: equal steps up to the 99.9th
    percentile, then every order statistic above it, all on the
    measurement's piecewise-linear quantile function; a single stall is
    the last point alone, at probability 1, with the second largest
    value one read below it (at equal steps it would end a step holding
    a thousandth of the draws)."""
    import numpy as np

    from validation import kernel_live

    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.uniform(20e3, 1.4e6, 23_599), [41.39e6]])
    p, q = kernel_live.tail_quantiles(xs)
    m = len(xs)
    assert len(p) == len(q) == 1000 + sum(k / (m - 1) > 0.999 for k in range(m))
    assert p[0] == 0.0 and p[-1] == 1.0 and all(b > a for a, b in zip(p, p[1:]))
    assert q == pytest.approx(np.quantile(xs, p).tolist())
    top = np.sort(xs)
    assert q[-1] == top[-1] and q[-2] == top[-2] < 1.4e6 and p[-2] == pytest.approx(1 - 1 / (m - 1))
    assert p[999] == pytest.approx(0.999) and q[999] == pytest.approx(np.quantile(xs, 0.999))


def test_a_run_with_traced_reads_gives_each_ccsim_flow_its_reads_and_seeds(monkeypatch):
    """A kernel run recorded with its reads runs ccsim ``READ_DRAWS`` times
    with each flow's read delays (``read_delay_s``), each draw with a seed
    no other draw has; a run without them reads at each arrival, and equal
    conditions run once."""
    sc = lk.by_id("cubic-4-10m-20ms-1bdp")
    q = [[1e-4 * (i + 1), 2e-4 * (i + 1)] for i in range(4)]
    entry = {"start_offsets_s": [0.0, 2e-5, 5e-5, 9e-5], "first_data_monotonic_ns": 5_123_456_789}
    with_reads = {**entry, "reads": [{"quantiles_s": x} for x in q]}
    assert lk.run_reads(with_reads) == q and lk.run_reads(entry) is None
    flows = sc.ccsim_scenario(entry["start_offsets_s"], 0.0004, lk.run_reads(with_reads))["flows"]
    assert [f["read_delay_s"] for f in flows] == q
    assert "read_delay_s" not in sc.ccsim_scenario(entry["start_offsets_s"], 0.0004)["flows"][0]
    calls = []
    monkeypatch.setattr(lk, "ccsim_run", lambda sc, seed=1, **kw: calls.append((seed, kw.get("read_delays_s")))
                        or {"metrics": {"seed": seed}})
    monkeypatch.setattr(lk, "READ_DRAWS", 3)
    got = lk.ccsim_runs(sc, [with_reads, entry, with_reads, entry])
    assert calls == [(1, q), (2, q), (3, q), (1, None), (7, q), (8, q), (9, q)]
    assert [m["seed"] for m in got] == [1, 2, 3, 1, 7, 8, 9, 1]


RECEIVER = """
import selectors, socket, time
lsock = socket.socket(); lsock.bind(("127.0.0.1", 5201)); lsock.listen(4)
print("listening", flush=True)
slow, quick = [lsock.accept()[0] for _ in range(2)]  # in the order they connected
sel = selectors.DefaultSelector()
for c in (slow, quick):
    sel.register(c, selectors.EVENT_READ)
left = 2
while left:
    for key, _ in sel.select():
        if key.fileobj is slow:
            time.sleep(0.004)  # the slow reader's application wakes 4 ms late
        if not key.fileobj.recv(1 << 16):
            sel.unregister(key.fileobj)
            left -= 1
"""
SENDER = """
import socket, time
a = socket.create_connection(("127.0.0.1", 5201)); time.sleep(0.05)
b = socket.create_connection(("127.0.0.1", 5201)); time.sleep(0.05)
for _ in range(40):
    b.send(b"b" * 3000); time.sleep(0.001)
    a.send(b"a" * 1000); time.sleep(0.009)
a.close(); b.close()
"""


def test_read_trace_times_a_real_applications_reads():
    """``kernel_live.ReadTrace`` on the running kernel: two TCP connections
    over loopback in a network namespace of the test's own; the receiver
    sleeps 4 ms before each read on one of them, and the trace gives that
    flow's reads 4 ms or more, the other's well under. Needs root and
    tracefs (the live comparison's own needs)."""
    import os
    import subprocess
    import sys

    from validation import kernel_live

    if os.geteuid() != 0 or not kernel_live.ReadTrace.available():
        pytest.skip("needs root and tracefs")
    ns = f"ccsimk-readtest-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"], check=True)
        with kernel_live.ReadTrace() as trace:
            rcv = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", RECEIVER],
                                   stdout=subprocess.PIPE, text=True)
            assert rcv.stdout.readline().strip() == "listening"
            subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", SENDER], check=True, timeout=30)
            assert rcv.wait(timeout=30) == 0
            text = trace.stop()
        assert trace.overrun == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns])
    flows = kernel_live.flow_reads(kernel_live.parse_read_trace(text), [40_000, 120_000])
    assert flows is not None
    slow, quick = flows
    assert slow["reads"] >= 20 and quick["reads"] >= 20
    assert slow["quantiles_s"][0] >= 0.004 - 1e-6, slow["quantiles_s"][:3]
    assert quick["median_us"] < 1000


def test_a_recording_keeps_its_fitting_runs_and_resumes_after_them(tmp_path, monkeypatch):
    """`--record` on a noisy machine: a run that never fits stops the
    scenario, the runs before it are kept, and the next call runs only
    the rest; runs of another kernel or another sysctl set are not mixed
    in. The kernel side is stood in for (the live run needs root and
    TUN): each "run" reports the kernel and sysctls given, and its
    fitness is scripted."""
    import os

    from validation import kernel_live

    sc = lk.by_id("cubic-1-10m-20ms-1bdp")
    calls: list = []
    fits: list = []
    sysctls = {"net.ipv4.tcp_congestion_control": "cubic"}

    def fake_run(live, tmp, i):
        calls.append(i)
        return {"kernel": os.uname().release, "sysctls": dict(sysctls), "i": i}

    monkeypatch.setattr(kernel_live, "run", fake_run)
    monkeypatch.setattr(kernel_live, "read_arrivals", lambda path: [])
    monkeypatch.setattr(lk, "_run_entry", lambda sc, run, arrivals: {"i": run["i"], "n": len(calls)})
    monkeypatch.setattr(lk, "run_problems", lambda sc, entry: [] if fits.pop(0) else ["late"])

    # runs 0 and 1 fit, run 2 misses both tries: nothing recorded, two kept
    fits[:] = [True, True, False, False]
    with pytest.raises(RuntimeError, match="the 2 runs that fit are kept"):
        lk.record_scenario(sc, runs=4, tries=2, partial_dir=tmp_path)
    assert calls == [0, 1, 2, 2]
    held = json.loads((tmp_path / f"{sc.id}.json").read_text())
    assert [r["n"] for r in held["runs"]] == [1, 2] and held["sysctls"] == sysctls

    # resumed: only runs 2 and 3 run; the recording has all four, in order,
    # each with the time it ended, and the partial file is gone
    calls.clear()
    fits[:] = [True, True]
    rec = lk.record_scenario(sc, runs=4, tries=2, partial_dir=tmp_path)
    assert calls == [2, 3]
    assert [r["i"] for r in rec["runs"]] == [0, 1, 2, 3]
    assert all("recorded_utc" in r for r in rec["runs"])
    assert rec["kernel"] == os.uname().release and rec["params"] == sc.params()
    assert not (tmp_path / f"{sc.id}.json").exists()

    # kept runs of another sysctl set are dropped at the first new run
    calls.clear()
    fits[:] = [True, False]
    with pytest.raises(RuntimeError):
        lk.record_scenario(sc, runs=3, tries=1, partial_dir=tmp_path)
    sysctls["net.ipv4.tcp_congestion_control"] = "reno"
    calls.clear()
    fits[:] = [True, True, True]
    rec = lk.record_scenario(sc, runs=3, tries=1, partial_dir=tmp_path)
    # (the first new run fits and is kept as the new set's first)
    assert calls == [1, 1, 2] and len(rec["runs"]) == 3
    assert rec["sysctls"]["net.ipv4.tcp_congestion_control"] == "reno"

    # kept runs of another kernel are not resumed
    fits[:] = [True, False]
    with pytest.raises(RuntimeError):
        lk.record_scenario(sc, runs=2, tries=1, partial_dir=tmp_path)
    path = tmp_path / f"{sc.id}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "kernel": "2.6.32"}))
    calls.clear()
    fits[:] = [True, True]
    lk.record_scenario(sc, runs=2, tries=1, partial_dir=tmp_path)
    assert calls == [0, 1]
