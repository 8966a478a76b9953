"""HighSpeed and CUBIC as a new user runs them: ccsim's RFC personality
against ns-3 3.44, each from its own defaults, then mapped, then with
ns-3's own TCP behaviours on both sides (docs/validation.md, "HighSpeed and
CUBIC as a new user runs them").

Two cases on the ns3 suite's dumbbell (``ns3_suite.Scenario``: access
links 10x the bottleneck, 5 ms bottleneck delay, flows 1/N s apart, the
metrics over the last two thirds):

* ``H``: HighSpeed, 2 flows, 1 Gb/s, RTT 100 ms (the suite's HighSpeed
  rows' RTT), 200-packet drop-tail buffer, 30 s;
* ``C``: CUBIC, 10 flows, 100 Mb/s, RTT 50 ms, 100-packet buffer, 30 s.

Three configurations of each:

* ``defaults``: each simulator as shipped. ns-3: only the TCP type (and
  SACK, on by default) is set: 536-byte segments, 128 KiB socket buffers,
  BulkSend's 512-byte writes, IW 10, PRR, HyStart (CUBIC), the Appendix B
  table (HighSpeed), delayed ACKs (2 segments, 200 ms), a 1 s minimum RTO,
  1 ms clock granularity, 6 data retries. ccsim: only ``cc``: 1000-byte
  segments, 40-byte headers, IW 10, RFC 6675 without PRR, the RFC 3649
  formula, RFC 9438 CUBIC without HyStart, Linux-style delayed ACKs, a
  0.2 s minimum RTO, unlimited windows. The network is the same (ns-3's
  device DropTail of B packets without a queue disc; ccsim's
  ``ties = "arrival_first"``).
* ``mapped``: the suite's row (``ns3_suite.DEFAULTS``: ns-3 moved to
  ccsim's behaviour wherever it can be set) with ccsim's ACKs at
  ``header_bytes`` (``sack_option = "none"``, the mapping these cases were
  recorded with).
* ``ns3-tcp``: ns-3 with its own TCP defaults (PRR, HyStart, table, delayed
  ACKs, IW 10, 1 s minimum RTO, 1 ms granularity) but the suite's 1448-byte
  segments and unlimiting buffers; ccsim switched to the same where it has
  the option (``prr``, ``a_b = "table"``, ns-3's CUBIC rules
  ``NS3_CUBIC``, ``delack_model = "ns3"``, ``sack_option = "ns3"``,
  ``min_rto_s``, ...), and ``TWEAKS``: one rule changed at a time (on
  ccsim alone, against the same ns-3 run, or on both sides), to name what
  moves the difference. The ``mapped`` row is also run with ccsim's ACKs
  carrying ns-3's SACK-block bytes (``sack_option = "ns3"``: the suite's
  row as it stands), ccsim alone.

Flow 0's cwnd is compared side by side (ns-3 ``dumbbell --cwndTrace=1``,
every change; ccsim's series at 1 ms): its first reduction on each side
and the first time the two windows differ by more than 10 % and 2 segments.

    python -m validation.ns3_newuser               # ns-3 and ccsim (~25 min of ns-3)
    python -m validation.ns3_newuser --ccsim-only  # ccsim against the recorded ns-3 runs

Results: ``results/ns3/newuser.json``; ns-3's cwnd traces stay in
``validation/ns3/build/traces/`` (large, not kept).
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import pathlib
import sys
from typing import Dict, List, Optional, Tuple

from validation import ns3_suite as suite
from validation.ns3_suite import G1, M100, Scenario

OUT = suite.HERE / "results" / "ns3"
TRACES = suite.BUILD_DIR / "traces"
SAMPLE_S = 0.001

CASES: Dict[str, Scenario] = {
    "H": Scenario("newuser-highspeed-2-1g", "HighSpeed, 2 flows, 1 Gb/s, RTT 100 ms, B 200", "highspeed", True, 2,
                  (0.1, 0.1), 200, G1, 30),
    "C": Scenario("newuser-cubic-10-50ms", "CUBIC, 10 flows, 100 Mb/s, RTT 50 ms, B 100", "cubic", True, 10,
                  (0.05, 0.05), 100, M100, 30),
}
CONFIGS = ["defaults", "mapped", "ns3-tcp"]

#: ns-3 settings the suite's mapping changes that ``ns3-tcp`` leaves at ns-3's default.
NS3_OWN = ["ns3::TcpSocket::InitialCwnd", "ns3::TcpSocketBase::MinRto", "ns3::TcpSocketBase::ClockGranularity",
           "ns3::TcpSocket::DelAckCount", "ns3::TcpL4Protocol::RecoveryType"]
#: ccsim's fields for ns-3's TCP defaults (``ns3-tcp``).
NS3_TCP_FIELDS = {"init_cwnd_pkts": 10, "min_rto_s": 1.0, "clock_granularity_s": 0.001, "delayed_ack": True,
                  "delack_model": "ns3", "prr": True, "sack_option": "ns3"}
#: ns-3's ACKs carry their SACK blocks' bytes (8 per block after the
#: timestamps; ``ns3_suite.DEFAULTS``, "SACK blocks on an ACK"): ``mapped``
#: leaves them out, this row of it counts them (the suite's row), ccsim alone.
SACK_NS3 = "ccsim sack_option = ns3"
#: With ``NS3_TCP_FIELDS``, ccsim set to ns-3's defaults (``defaults``'
#: ccsim-only row): 536-byte segments, ns-3's 54 header bytes, and the
#: 128 KiB receive buffer as a window of 131072 / 536 segments.
NS3_DEFAULT_FIELDS = {"mss_bytes": 536, "header_bytes": suite.HEADER_BYTES, "rwnd_pkts": 131072 // 536}
NS3_AS_DEFAULTS = "ccsim set to ns-3's defaults"
#: ns-3 3.44's TcpCubic as shipped in ccsim's terms (docs/controllers.md's
#: CUBIC example): HyStart, CntClamp 20, segments counted, W_est's α_cubic
#: throughout; TcpFriendliness is on by default (tcp-validation.cc, and
#: tcp_validation_cubic.rs after it, turn it off).
NS3_CUBIC = {"hystart": True, "cnt_clamp": 20, "abc": True, "tcp_friendly": True, "alpha_switch": False}
#: ns-3 3.44's TcpHighSpeed: Appendix B's table, a(w) per segment acked
#: (``m_ackCnt += segmentsAcked * coeffA``; Linux's ``hstcp_cong_avoid`` adds
#: it per ACK, ccsim's ``abc = false``).
NS3_CC_PARAMS = {"highspeed": {"a_b": "table", "abc": True}, "cubic": NS3_CUBIC}

#: One-at-a-time changes of ``ns3-tcp``: (ns-3 attributes, ccsim flow
#: fields, ccsim cc_params). With no ns-3 attribute only ccsim is re-run,
#: against the ``ns3-tcp`` ns-3 run; otherwise both sides.
TWEAKS: Dict[str, Dict[str, Tuple[dict, dict, dict]]] = {
    "H": {
        "ccsim per ACK (abc = false)": ({}, {}, {"abc": False}),
        "ccsim formula": ({}, {}, {"a_b": "formula"}),
        "ccsim no PRR": ({}, {"prr": False}, {}),
        "ccsim sack_option = none": ({}, {"sack_option": "none"}, {}),
    },
    "C": {
        "ccsim no HyStart": ({}, {}, {"hystart": False}),
        "ccsim sack_option = none": ({}, {"sack_option": "none"}, {}),
        "ccsim RFC 9438": ({}, {}, {"cnt_clamp": 0, "alpha_switch": True}),
        "no delayed ACKs": ({"ns3::TcpSocket::DelAckCount": "1"}, {"delayed_ack": False}, {}),
        "classic recovery": ({"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}, {"prr": False}, {}),
        "no HyStart": ({"ns3::TcpCubic::HyStart": "false"}, {}, {"hystart": False}),
        "IW 2": ({"ns3::TcpSocket::InitialCwnd": "2"}, {"init_cwnd_pkts": 2}, {}),
        "classic recovery, no delayed ACKs": (
            {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery", "ns3::TcpSocket::DelAckCount": "1"},
            {"prr": False, "delayed_ack": False}, {}),
    },
}

#: Changes of ``defaults`` on both sides, ccsim set to ns-3's defaults.
#: ``cwnd_limited = "ns3"`` is ns-3 ``TcpCubic``'s ``m_isCwndLimited`` gate.
DEFAULTS_TWEAKS: Dict[str, Dict[str, Tuple[dict, dict, dict]]] = {
    "C": {
        "classic recovery": ({"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}, {"prr": False}, {}),
        "ccsim cwnd_limited = ns3": ({}, {"cwnd_limited": "ns3"}, {}),
        "classic recovery, ccsim cwnd_limited = ns3": (
            {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}, {"prr": False, "cwnd_limited": "ns3"}, {}),
    },
}

#: Around one configuration of a case, in both simulators: other start
#: phases (``Scenario.seed``) and one packet more or less of buffer.
SENSITIVITY = {"H": {"config": "mapped", "seeds": [1, 2, 3], "buffers": [199, 201]}}


@dataclasses.dataclass(frozen=True)
class Run(Scenario):
    """A case in one configuration (``tweak``: a change of ``ns3-tcp``, ``TWEAKS``)."""

    config: str = "mapped"
    tweak: str = ""

    def mss(self) -> int:
        return 536 if self.config == "defaults" else suite.MSS

    def ns3_args(self) -> List[str]:
        if self.config == "mapped":
            return Scenario.ns3_args(self)
        ctl = suite.CONTROLLERS[self.controller]
        if self.config == "defaults":
            attrs = {"ns3::TcpL4Protocol::SocketType": ctl["ns3"]}
            extra = ["--sendSize=512"]  # BulkSend's own SendSize (given after the suite's)
            if self.tweak in DEFAULTS_TWEAKS.get(self.case(), {}):
                attrs.update(DEFAULTS_TWEAKS[self.case()][self.tweak][0])
        else:
            buf = suite.socket_buffer_bytes(self.rate_bps, max(self.rtts()), self.buffer_pkts)
            attrs = {k: v for k, v in suite.COMMON_NS3_ARGS.items() if k not in NS3_OWN}
            attrs.update({"ns3::TcpL4Protocol::SocketType": ctl["ns3"], "ns3::TcpSocketBase::Sack": "true",
                          "ns3::TcpSocket::SndBufSize": str(buf), "ns3::TcpSocket::RcvBufSize": str(buf)})
            extra = []
            if self.tweak:
                attrs.update(TWEAKS[self.case()][self.tweak][0])
        return suite.dumbbell_ns3_args(self.rate_bps, 10 * self.rate_bps, suite.BNECK_DELAY_S, self.buffer_pkts,
                                       self.rtts(), self.starts(), self.duration_s, self.warmup_s, attrs, extra)

    def ccsim_scenario(self) -> dict:
        ctl = suite.CONTROLLERS[self.controller]
        if self.config == "mapped":
            sc = Scenario.ccsim_scenario(self)
            for f in sc["flows"]:
                f["sack_option"] = "ns3" if self.tweak == SACK_NS3 else "none"
        else:
            if self.config == "defaults" and self.tweak:  # ccsim set to ns-3's defaults
                common = dict(NS3_TCP_FIELDS, **NS3_DEFAULT_FIELDS)
                params = dict(NS3_CC_PARAMS[self.controller])
                if self.tweak in DEFAULTS_TWEAKS.get(self.case(), {}):
                    _, more, p = DEFAULTS_TWEAKS[self.case()][self.tweak]
                    common.update(more)
                    params.update(p)
            elif self.config == "defaults":
                common = {}
                params = {}
            else:
                common = dict(suite.COMMON_CCSIM_FIELDS, recovery="sack", **NS3_TCP_FIELDS)
                params = dict(NS3_CC_PARAMS[self.controller])
                if self.tweak:
                    _, more, p = TWEAKS[self.case()][self.tweak]
                    common.update(more)
                    params.update(p)
            flows = [suite.ccsim_flow(common, ctl["cc"], params, rtt, start)
                     for rtt, start in zip(self.rtts(), self.starts())]
            sc = suite.dumbbell_ccsim(f"ns3-{self.id}-{self.config}", self.duration_s, self.warmup_s, self.rate_bps,
                                      10 * self.rate_bps, suite.BNECK_DELAY_S,
                                      {"kind": "droptail", "limit_pkts": self.buffer_pkts}, flows)
        sc["sample_interval_s"] = SAMPLE_S
        return sc

    def case(self) -> str:
        return next(k for k, c in CASES.items() if c.id == self.id)


def ns3_trace(path: pathlib.Path, mss: int, shift: float) -> Tuple[List[float], List[float], list]:
    """Flow 0's cwnd changes (times, segments) and its reductions (t, cwnd
    before, after) from ``--cwndTrace``, at ns-3's time less ``shift`` (the
    handshake's round trip: ns-3's data starts one RTT after ccsim's)."""
    ts: List[float] = []
    ws: List[float] = []
    cuts = []
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "cwnd" and f[2] == "0":
            t, w = float(f[1]) - shift, int(f[3]) / mss
            if ws and w < ws[-1]:
                cuts.append((t, ws[-1], w))
            ts.append(t)
            ws.append(w)
    return ts, ws, cuts


def ccsim_trace(res) -> Tuple[List[float], List[float], List[Tuple[float, float, float]]]:
    """Flow 0's cwnd at each sample (segments) and its reductions from the series."""
    fs = res.flow_series
    f0 = fs[fs["flow"] == fs["flow"].min()].dropna(subset=["cwnd"])
    ts, ws = list(f0["time_s"]), list(f0["cwnd"])
    cuts = [(ts[i], ws[i - 1], ws[i]) for i in range(1, len(ws)) if ws[i] < ws[i - 1]]
    return ts, ws, cuts


def first_divergence(ns3: tuple, cc: tuple, hold_s: float, rel: float = 0.10, abs_segs: float = 2.0) -> Optional[dict]:
    """The first ccsim sample time from which ns-3's cwnd (its last change
    at or before it) differs from ccsim's by more than ``rel`` and
    ``abs_segs`` at every sample for ``hold_s`` (half an RTT: the handshake
    leaves sub-millisecond offsets that are not divergences)."""
    nt, nw, _ = ns3
    since = None
    for t, w in zip(cc[0], cc[1]):
        i = bisect.bisect_right(nt, t) - 1
        d = abs(w - nw[i]) if i >= 0 else 0.0
        if i >= 0 and d > abs_segs and d > rel * max(w, nw[i]):
            if since is None:
                since = {"t": t, "ns3": nw[i], "ccsim": w}
            if t - since["t"] >= hold_s:
                return since
        else:
            since = None
    return None


def _episodes(cuts: list, until_s: float = 3.0, gap_s: float = 0.05) -> int:
    """Reduction episodes before ``until_s``: cuts more than ``gap_s`` apart
    (PRR lowers cwnd over many ACKs of one episode)."""
    n, last = 0, None
    for t, _, _ in cuts:
        if t >= until_s:
            break
        if last is None or t - last > gap_s:
            n += 1
        last = t
    return n


def summary(ns3: Optional[tuple], cc: tuple, hold_s: float) -> dict:
    s = {"ccsim_first_cut": cc[2][0] if cc[2] else None,
         "ccsim_peak": max(cc[1]) if cc[1] else None,
         "ccsim_cuts_3s": _episodes(cc[2])}
    if ns3 is not None:
        s.update(ns3_first_cut=ns3[2][0] if ns3[2] else None, ns3_peak=max(ns3[1]) if ns3[1] else None,
                 ns3_cuts_3s=_episodes(ns3[2]),
                 first_divergence=first_divergence(ns3, cc, hold_s))
    return s


def run(ccsim_only: bool = False, cases: Optional[List[str]] = None, configs: Optional[List[str]] = None) -> dict:
    import ccsim

    path = OUT / "newuser.json"
    res = json.loads(path.read_text()) if path.exists() else {"runs": []}
    res.update(peer=suite.NAME, ccsim_version=ccsim.__version__)
    if not ccsim_only:
        res["peer_version"] = suite._peer_version()
    exe = None if ccsim_only else suite.build()
    for key in cases or list(CASES):
        for config in configs or CONFIGS:
            r = Run(**dataclasses.asdict(CASES[key]), config=config)
            rec = next((x for x in res["runs"] if x["case"] == key and x["config"] == config), None)
            row = _side_by_side(r, exe, rec, ccsim_only, "")
            if config == "defaults":
                base = {"metrics": {m: v["ns3"] for m, v in row["metrics"].items()}, "wall_s": row["wall_s"]["ns3"]}
                rt = dataclasses.replace(r, tweak=NS3_AS_DEFAULTS)
                row["tweaks"] = {NS3_AS_DEFAULTS: _side_by_side(rt, exe, None, True, "", ns3=base,
                                                                trace=TRACES / f"{key}-{config}.txt")}
                for name in DEFAULTS_TWEAKS.get(key, {}):
                    trec = ((rec or {}).get("tweaks") or {}).get(name)
                    row["tweaks"][name] = _side_by_side(dataclasses.replace(r, tweak=name), exe, trec, ccsim_only,
                                                        name)
            if config == "mapped":
                base = {"metrics": {m: v["ns3"] for m, v in row["metrics"].items()}, "wall_s": row["wall_s"]["ns3"]}
                rt = dataclasses.replace(r, tweak=SACK_NS3)
                row["tweaks"] = {SACK_NS3: _side_by_side(rt, exe, None, True, "", ns3=base,
                                                         trace=TRACES / f"{key}-{config}.txt")}
            if config == "ns3-tcp":
                row["tweaks"] = {}
                for name, (attrs, _, _) in TWEAKS[key].items():
                    rt = dataclasses.replace(r, tweak=name)
                    if attrs:
                        trec = ((rec or {}).get("tweaks") or {}).get(name)
                        row["tweaks"][name] = _side_by_side(rt, exe, trec, ccsim_only, name)
                    else:  # ccsim alone, against the same ns-3 run
                        base = {"metrics": {m: v["ns3"] for m, v in row["metrics"].items()},
                                "wall_s": row["wall_s"]["ns3"]}
                        row["tweaks"][name] = _side_by_side(rt, exe, None, True, "", ns3=base,
                                                            trace=TRACES / f"{key}-{config}.txt")
            # Re-read before writing: two invocations may run different cases at once.
            if path.exists():
                res["runs"] = json.loads(path.read_text())["runs"]
            res["runs"] = [x for x in res["runs"] if not (x["case"] == key and x["config"] == config)] + [row]
            suite._write(OUT, res, path.name)
    return res


def sensitivity(ccsim_only: bool = False) -> dict:
    """``SENSITIVITY``'s runs (utilisation, loss, flow 0's cuts), kept in
    ``newuser.json`` under ``sensitivity``."""
    path = OUT / "newuser.json"
    res = json.loads(path.read_text())
    old = {(x["case"], x["seed"], x["buffer_pkts"]): x for x in res.get("sensitivity", [])}
    exe = None if ccsim_only else suite.build()
    out = []
    for key, spec in SENSITIVITY.items():
        base = CASES[key]
        runs = [(k, base.buffer_pkts) for k in spec["seeds"]] + [(0, b) for b in spec["buffers"]]
        for seed, buf in runs:
            r = Run(**dict(dataclasses.asdict(base), seed=seed, buffer_pkts=buf), config=spec["config"])
            tag = f"seed {seed}, B {buf}"
            row = _side_by_side(r, exe, old.get((key, seed, buf)), ccsim_only, tag)
            n3 = {"metrics": {m: v["ns3"] for m, v in row["metrics"].items()}, "wall_s": row["wall_s"]["ns3"]}
            slug = tag.replace(" ", "-")
            tw = _side_by_side(dataclasses.replace(r, tweak=SACK_NS3), exe, None, True, "", ns3=n3,
                               trace=TRACES / f"{key}-{spec['config']}-{slug}.txt")
            out.append({"case": key, "config": spec["config"], "seed": seed, "buffer_pkts": buf,
                        "metrics": row["metrics"], "wall_s": row["wall_s"], "cwnd": row["cwnd"],
                        SACK_NS3: {"metrics": tw["metrics"], "cwnd": tw["cwnd"]}})
    res = json.loads(path.read_text())
    res["sensitivity"] = out
    suite._write(OUT, res, path.name)
    return res


def _side_by_side(r: Run, exe, rec: Optional[dict], ccsim_only: bool, tweak: str, ns3: Optional[dict] = None,
                  trace: Optional[pathlib.Path] = None) -> dict:
    """One configuration in both simulators (ns-3's side from ``ns3``, or
    ``rec``, the recorded run, with ``ccsim_only``)."""
    key = r.case()
    slug = tweak.replace(" ", "-")
    tpath = trace or TRACES / f"{key}-{r.config}{'-' + slug if slug else ''}.txt"
    what = f"{key} {r.config}{' ' + tweak if tweak else ''}"
    if ns3 is not None:
        n = ns3
    elif ccsim_only:
        if rec is None:
            raise ValueError(f"--ccsim-only: no recorded ns-3 run of {what}")
        n = {"metrics": {m: v["ns3"] for m, v in rec["metrics"].items()},
             "wall_s": rec.get("wall_s", {}).get("ns3")}
    else:
        print(f"[newuser] {what}: ns-3 ...", file=sys.stderr, flush=True)
        TRACES.mkdir(parents=True, exist_ok=True)
        n = suite.run_ns3(r, exe, cwnd_trace=tpath)
    ntr = ns3_trace(tpath, r.mss(), r.rtts()[0]) if tpath.exists() else None
    print(f"[newuser] {what}: ccsim ...", file=sys.stderr, flush=True)
    c = suite.run_ccsim(r, keep=True)
    row = {"case": key, "config": r.config, "id": r.id, "description": r.description, "params": r.params(),
           "ns3_args": r.ns3_args(), "ccsim_flow0": r.ccsim_scenario()["flows"][0],
           "metrics": {m: {"ns3": n["metrics"][m], "ccsim": c["metrics"][m]} for m in suite.METRICS},
           "wall_s": {"ns3": n["wall_s"], "ccsim": c["wall_s"]}}
    row["cwnd"] = summary(ntr, ccsim_trace(c["result"]), r.rtts()[0] / 2) if ntr else (rec or {}).get("cwnd")
    return row


def markdown(res: dict) -> str:
    lines = ["| case | configuration | utilisation ns-3 / ccsim | loss rate ns-3 / ccsim | retransmissions | "
             "timeouts | flow 0's first cut (s, cwnd before → after) ns-3 / ccsim | first divergence (s: ns-3, ccsim) |",
             "|---|---|---|---|---|---|---|---|"]

    def cut(c):
        return "none" if not c else f"{c[0]:.3f}: {c[1]:.0f} → {c[2]:.0f}"

    order = {c: i for i, c in enumerate(CONFIGS)}
    for r in sorted(res["runs"], key=lambda x: (x["case"], order[x["config"]])):
        m = r["metrics"]
        w = r.get("cwnd") or {}
        d = w.get("first_divergence")
        rows = [(r["config"], m, w, d)]
        for v, x in (r.get("tweaks") or {}).items():
            xw = x.get("cwnd") or {}
            rows.append((f"{r['config']}, {v}", x["metrics"], xw, xw.get("first_divergence")))
        for name, mm, ww, dd in rows:
            lines.append(
                f"| {r['case']} | {name} | {mm['utilization']['ns3']:.3f} / {mm['utilization']['ccsim']:.3f} | "
                f"{mm['loss_rate']['ns3']:.5f} / {mm['loss_rate']['ccsim']:.5f} | "
                f"{mm['retransmits']['ns3']:,} / {mm['retransmits']['ccsim']:,} | "
                f"{mm['timeouts']['ns3']:,} / {mm['timeouts']['ccsim']:,} | "
                f"{cut(ww.get('ns3_first_cut'))} / {cut(ww.get('ccsim_first_cut'))} | "
                + ("none" if not dd else f"{dd['t']:.3f}: {dd['ns3']:.0f}, {dd['ccsim']:.0f}") + " |")
    return "\n".join(lines) + "\n"


def sensitivity_markdown(res: dict) -> str:
    lines = ["| case | configuration | seed | buffer | utilisation ns-3 / ccsim / ccsim with ns-3's SACK bytes | "
             "flow 0's reductions before 3 s, the same |", "|---|---|---|---|---|---|"]
    for x in res.get("sensitivity", []):
        m, t = x["metrics"]["utilization"], (x.get(SACK_NS3) or {})
        tu = t.get("metrics", {}).get("utilization", {}).get("ccsim")
        lines.append(f"| {x['case']} | {x['config']} | {x['seed']} | {x['buffer_pkts']} | "
                     f"{m['ns3']:.3f} / {m['ccsim']:.3f} / {tu if tu is None else round(tu, 3)} | "
                     f"{x['cwnd'].get('ns3_cuts_3s')} / {x['cwnd'].get('ccsim_cuts_3s')} / "
                     f"{(t.get('cwnd') or {}).get('ccsim_cuts_3s')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ccsim-only", action="store_true", help="re-run ccsim against the recorded ns-3 runs")
    ap.add_argument("--cases", nargs="+", choices=list(CASES))
    ap.add_argument("--configs", nargs="+", choices=CONFIGS)
    ap.add_argument("--sensitivity", action="store_true", help="only the start-phase and buffer runs (SENSITIVITY)")
    a = ap.parse_args()
    if a.sensitivity:
        sensitivity(a.ccsim_only)
        print(sensitivity_markdown(json.loads((OUT / "newuser.json").read_text())))
    else:
        print(markdown(run(a.ccsim_only, a.cases, a.configs)))
