"""Per-link taps read back with independent tools.

One short run (a SACK flow, an ECN flow and a plain NewReno flow through a
RED/ECN queue, plus a UDP flow) writes pcaps of both directions of the
bottleneck and an ns-2 trace of the forward one. dpkt (and tcpdump, when
installed) read the pcaps; a small parser written here reads the trace.
Everything is matched to the run's own counters in the summary: packets
transmitted, arrivals, drops and marks of the link, and each flow's data
packets sent and retransmissions.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections import Counter, defaultdict

import pytest

import ccsim
from ccsim import UserError
from ccsim.cli import main as cli_main

dpkt = pytest.importorskip("dpkt")

MSS, HDR = 1000, 40
SCENARIO = {
    "name": "taps",
    "seed": 3,
    "duration_s": 3.0,
    "warmup_s": 0.0,  # the summary's counters then cover every traced event
    "sample_interval_s": 0.1,
    "topology": {
        "kind": "custom",
        "nodes": ["a", "b", "c"],
        "links": [
            {"from": "a", "to": "b", "rate_bps": 10e6, "delay_s": 0.01,
             "queue": {"kind": "red", "limit_pkts": 30, "min_th_pkts": 5, "max_th_pkts": 15, "ecn": True, "bytes": False}},
            {"from": "b", "to": "c", "rate_bps": 100e6, "delay_s": 0.005,
             "queue": {"kind": "droptail", "limit_pkts": 1000}},
        ],
    },
    "flows": [
        {"cc": "reno", "recovery": "sack", "route": ["a", "b", "c"]},
        {"cc": "reno", "ecn": True, "route": ["a", "b", "c"]},
        {"cc": "reno", "route": ["a", "b", "c"], "start_s": 0.5},
        {"transport": "udp", "rate_bps": 2e6, "route": ["a", "b", "c"]},
    ],
}
SACK_FLOW, ECN_FLOW, UDP_FLOW = 0, 1, 3


def isn(f: int) -> int:
    """The documented per-flow ISN (docs/cli.md)."""
    return ((f + 1) * 0x9E3779B1) & 0xFFFFFFFF


def inet_checksum(b: bytes) -> int:
    """RFC 1071, written here independently of the engine."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def read_pcap(path):
    with open(path, "rb") as fh:
        r = dpkt.pcap.Reader(fh)
        assert r.datalink() == dpkt.pcap.DLT_RAW or r.datalink() == 101
        return [(float(ts), bytes(buf)) for ts, buf in r]  # nanosecond files: Decimal


def parse_ns2(path):
    """ns-2 trace lines: event time from to type size flags fid src dst seq pktid."""
    rows = []
    with open(path) as fh:
        for line in fh:
            f = line.split()
            assert len(f) == 12, line
            rows.append({
                "ev": f[0], "t": float(f[1]), "from": int(f[2]), "to": int(f[3]), "type": f[4],
                "size": int(f[5]), "flags": f[6], "fid": int(f[7]), "src": f[8], "dst": f[9],
                "seq": int(f[10]), "id": int(f[11]),
            })
    return rows


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("taps")
    paths = {"fwd": d / "fwd.pcap", "rev": d / "rev.pcap", "tr": d / "fwd.tr"}
    res = ccsim.run(SCENARIO, pcap={"a->b": paths["fwd"], "b->a": paths["rev"]}, trace={"a->b": paths["tr"]})
    plain = ccsim.run(SCENARIO)
    return res, plain, paths


def link(res, name):
    return next(l for l in res.raw["links"] if l["name"] == name)


def test_taps_do_not_change_results(run):
    res, plain, _ = run
    strip = lambda r: {k: v for k, v in r.raw.items() if k not in ("wall_s", "cpu_s")}  # noqa: E731
    assert strip(res) == strip(plain)


def test_pcap_matches_link_and_flow_counters(run):
    res, _, paths = run
    fwd = link(res, "a->b")
    pkts = read_pcap(paths["fwd"])
    assert len(pkts) == fwd["tx_pkts"] > 1000
    flows = {f["id"]: f for f in res.raw["flows"]}
    times = [ts for ts, _ in pkts]
    assert times == sorted(times) and times[-1] <= SCENARIO["duration_s"]
    segs = defaultdict(list)
    ecn = defaultdict(Counter)
    cwr = Counter()
    udp = 0
    for _, buf in pkts:
        ip = dpkt.ip.IP(buf)
        hl = ip.hl * 4
        assert inet_checksum(buf[:hl]) == 0, "IP header checksum"
        assert ip.src == bytes([10, 0, 0, 1]) and ip.dst == bytes([10, 0, 0, 3])  # nodes a and c
        if ip.p == dpkt.ip.IP_PROTO_UDP:
            u = ip.data
            assert u.sport - 10000 == UDP_FLOW and u.ulen == 8 + MSS
            assert ip.len == hl + 8 + MSS
            udp += 1
            continue
        t = ip.data
        assert isinstance(t, dpkt.tcp.TCP)
        f = t.sport - 10000
        # Lengths: IP total = IP header + TCP header (with options) + payload.
        assert ip.len - hl - t.off * 4 == MSS
        opts = dict(dpkt.tcp.parse_opts(t.opts))
        assert dpkt.tcp.TCP_OPT_TIMESTAMP in opts
        rel = (t.seq - isn(f)) % 2**32
        assert rel % MSS == 0
        segs[f].append(rel // MSS)
        ecn[f][ip.tos & 3] += 1
        cwr[f] += bool(t.flags & dpkt.tcp.TH_CWR)
    trace = parse_ns2(paths["tr"])
    # Every packet on the wire is a '-' line, in the same order and at the same time.
    deq = [r for r in trace if r["ev"] == "-"]
    assert len(deq) == len(pkts)
    for (ts, _), r in zip(pkts, deq):
        assert abs(ts - r["t"]) < 1e-9
    # Per flow: what the sender sent is on the wire or dropped here (or
    # still queued at the end), and the distinct segments are the sent
    # packets less the retransmissions.
    for f, fl in flows.items():
        plus = [r for r in trace if r["ev"] == "+" and r["fid"] == f]
        assert len(plus) == fl["data_pkts_sent"], f
        if f == UDP_FLOW:
            assert udp == len([r for r in deq if r["fid"] == f])
            continue
        assert len(segs[f]) == len([r for r in deq if r["fid"] == f])
        dropped = [r["seq"] for r in trace if r["ev"] == "d" and r["fid"] == f]
        queued = {r["id"] for r in plus} - {r["id"] for r in trace if r["ev"] in "-d" and r["fid"] == f}
        assert len(segs[f]) + len(dropped) + len(queued) == fl["data_pkts_sent"]
        sent = set(segs[f]) | set(dropped) | {r["seq"] for r in plus if r["id"] in queued}
        assert len(sent) == fl["data_pkts_sent"] - fl["retransmits"], f
        assert sent == set(range(len(sent))), "segments 0..n-1, in bytes from the ISN"
    # ECN: only the ECN flow is ECT/CE; its CE marks are this link's marks
    # (less those dropped or queued after marking); CWR answers ECE.
    assert fwd["marks"] > 0
    for f in (0, 2):
        assert set(ecn[f]) == {0}
    assert ecn[ECN_FLOW][2] > 0 and 0 < ecn[ECN_FLOW][3] <= fwd["marks"]
    assert cwr[ECN_FLOW] > 0 and cwr[0] == cwr[2] == 0


def test_reverse_pcap_acks_sack_and_ece(run):
    res, _, paths = run
    rev = link(res, "b->a")
    pkts = read_pcap(paths["rev"])
    assert len(pkts) == rev["tx_pkts"]
    flows = {f["id"]: f for f in res.raw["flows"]}
    sacks, ece, last_ack = Counter(), Counter(), {}
    for _, buf in pkts:
        ip = dpkt.ip.IP(buf)
        assert inet_checksum(buf[: ip.hl * 4]) == 0
        t = ip.data
        assert t.sport == 5001 and ip.len == ip.hl * 4 + t.off * 4, "pure ACKs"
        f = t.dport - 10000
        rel = (t.ack - isn(f)) % 2**32
        assert rel % MSS == 0
        last_ack[f] = rel
        ece[f] += bool(t.flags & dpkt.tcp.TH_ECE)
        opts = dict(dpkt.tcp.parse_opts(t.opts))
        if dpkt.tcp.TCP_OPT_SACK in opts:
            raw = opts[dpkt.tcp.TCP_OPT_SACK]
            edges = [(x - isn(f)) % 2**32 for x in struct.unpack(f"!{len(raw) // 4}I", raw)]
            for s, e in zip(edges[::2], edges[1::2]):
                assert rel < s < e and s % MSS == 0 and e % MSS == 0
            sacks[f] += 1
    assert sacks[SACK_FLOW] > 0
    assert ece[ECN_FLOW] > 0 and ece[0] == ece[2] == 0
    for f in (0, 1, 2):
        # The last ACK on the wire acknowledges at most what was delivered in order.
        assert 0 < last_ack[f] <= flows[f]["delivered_bytes"] + MSS


def test_ns2_trace_counts_match_link_counters(run):
    res, _, paths = run
    fwd = link(res, "a->b")
    rows = parse_ns2(paths["tr"])
    n = Counter(r["ev"] for r in rows)
    assert n["+"] == fwd["arrivals"] - fwd["random_losses"]
    assert n["-"] == fwd["tx_pkts"]
    assert n["d"] == fwd["drops"] + fwd["random_losses"] > 0
    # Received at b: all transmitted but those still on the wire at the end
    # (at most a bandwidth-delay product plus one).
    bdp = 0.01 * 10e6 / 8 / (MSS + HDR)
    assert 0 <= n["-"] - n["r"] <= bdp + 1
    assert all((r["from"], r["to"]) == (0, 1) for r in rows)
    # Each packet id goes + then - then r, or + then d.
    life = defaultdict(str)
    for r in rows:
        life[r["id"]] += r["ev"]
    assert set(life.values()) <= {"+-r", "+d", "+-", "+"}
    types = Counter(r["type"] for r in rows)
    assert set(types) == {"tcp", "cbr"}
    marked = [r for r in rows if "E" in r["flags"]]
    assert marked and all(r["fid"] == ECN_FLOW and r["flags"][6] == "N" for r in marked)
    assert len({r["id"] for r in marked}) <= fwd["marks"]
    times = [r["t"] for r in rows]
    assert times == sorted(times)


def test_tcpdump_reads_the_pcaps(run):
    if shutil.which("tcpdump") is None:
        pytest.skip("tcpdump not installed (.ci/run installs it)")
    res, _, paths = run
    for name, key in (("a->b", "fwd"), ("b->a", "rev")):
        out = subprocess.run(["tcpdump", "-nn", "-vv", "-r", str(paths[key])], capture_output=True, text=True,
                             check=True)
        lines = [l for l in out.stdout.splitlines() if l.startswith(("0", "1", "2", "3"))]
        assert len(lines) == link(res, name)["tx_pkts"]
        assert "bad cksum" not in out.stdout and "[|tcp]" not in out.stdout
    out = subprocess.run(["tcpdump", "-nn", "-r", str(paths["rev"])], capture_output=True, text=True, check=True)
    assert "sack" in out.stdout
    out = subprocess.run(["tcpdump", "-nn", "-v", "-r", str(paths["fwd"])], capture_output=True, text=True,
                         check=True)
    assert "CE" in out.stdout and "ECT(0)" in out.stdout


def ip_id_base(f: int, ack: bool) -> int:
    """The documented first IP identification of flow f's data or ACKs
    (docs/cli.md): the top 16 bits of the sender's or receiver's ISN."""
    return ((~isn(f) & 0xFFFFFFFF) if ack else isn(f)) >> 16


def test_ip_ids_count_each_flow_direction_and_timestamps_echo(run):
    _, _, paths = run
    for key, ack in (("fwd", False), ("rev", True)):
        ids = defaultdict(list)
        for _, buf in read_pcap(paths[key]):
            ip = dpkt.ip.IP(buf)
            f = (ip.data.dport if ack else ip.data.sport) - 10000
            ids[f].append(ip.id)
            if ip.p == dpkt.ip.IP_PROTO_TCP:
                opts = dict(dpkt.tcp.parse_opts(ip.data.opts))
                tsval, tsecr = struct.unpack("!II", opts[dpkt.tcp.TCP_OPT_TIMESTAMP])
                # data: TSecr 0 (the sender keeps no TS.Recent, docs/cli.md);
                # ACKs echo the data's send time, at most their own TSval
                assert tsecr == 0 if not ack else tsecr <= tsval
        assert sorted(ids) == ([0, 1, 2] if ack else [0, 1, 2, 3])
        for f, got in ids.items():
            # +1 per packet of the flow direction (retransmissions included), mod 2^16
            assert got == [(ip_id_base(f, ack) + k) % 65536 for k in range(len(got))], f
            assert len(got) > 100
        assert len({ip_id_base(f, ack) for f in ids}) == len(ids), "distinct per flow"


def test_unknown_link_is_a_named_error(tmp_path, capsys):
    with pytest.raises(UserError, match=r'pcap: unknown link "x->y"; allowed: a->b, b->a, b->c, c->b'):
        ccsim.run(SCENARIO, pcap={"x->y": tmp_path / "x.pcap"})
    sc = tmp_path / "sc.json"
    import json

    sc.write_text(json.dumps(SCENARIO))
    assert cli_main(["run", str(sc), "--out", str(tmp_path / "o"), "--no-plots", "--trace", "bottleneck"]) == 2
    err = capsys.readouterr().err
    assert err.startswith('error: --trace: unknown link "bottleneck"; allowed: a->b') and "Traceback" not in err


def test_cli_writes_taps_and_bottleneck_alias(tmp_path, capsys):
    sc = tmp_path / "sc.json"
    import json

    d = {
        "name": "db", "duration_s": 1.0,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 10e6, "bottleneck_delay_s": 0.01,
                     "bottleneck_queue": {"kind": "droptail", "limit_pkts": 20}},
        "flows": [{"cc": "reno", "rtt_s": 0.05}],
    }
    sc.write_text(json.dumps(d))
    out = tmp_path / "o"
    assert cli_main(["run", str(sc), "--out", str(out), "--no-plots", "--pcap", "bottleneck",
                     "--trace", "r1->r0"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    # A tap takes DropTail off its fast path; the results must not notice.
    plain = ccsim.run(d).raw
    assert summary == {k: plain[k] for k in summary}
    assert len(read_pcap(out / "bottleneck.pcap")) == link(ccsim.Results(summary), "r0->r1")["tx_pkts"]
    rows = parse_ns2(out / "r1-r0.tr")
    assert {r["type"] for r in rows} == {"ack"} and rows[0]["seq"] >= 0
    assert "bottleneck.pcap" in capsys.readouterr().out
