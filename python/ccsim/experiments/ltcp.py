"""LTCP paper (Bhandarkar, Jain, Reddy, "LTCP: a layered congestion control
protocol for highspeed networks") experiments.

Common setting of the ns-2 section (§V-A, Fig 4): a dumbbell whose
bottleneck is 1 Gb/s unless stated, access links 2.4 Gb/s, end-to-end RTT
70 ms, DropTail routers with "the default queuesize of 6000 packets unless
specified otherwise", TCP = ns-2 ``TCP/Sack1`` (here Reno window rules with
RFC 6675 SACK recovery), LTCP = the same agent with the §IV-B layering,
W_T = 50, beta = 0.15, FTP (infinite) sources, a large receiver window.
Packets: 1000-byte payloads in 1040-byte packets (ns-2 default); the
paper's utilisation figures are payload goodput (its LTCP figures are exactly
capacity x 1000/1040, e.g. 96.15 of 100 Mb/s).

Access-link queues are not described; ns-2 gives every link a queue, and we
read "routers have the default queuesize" as applying to them too only
where it matters: with a 2.4 Gb/s bottleneck the access link is as slow as
the bottleneck and a single sender's queue forms there, so at 2.4 Gb/s the
access queue gets the bottleneck's buffer (Fig 6: the BDP; Fig 8: 6000).
Elsewhere the access links are faster than the bottleneck, their queues
hold a few packets, and they are left at 100,000 (never the limit).

Experiments (ids):

* ``ltcp-table2``: the Fig 2 table of layer windows and speedups (analysis).
* ``ltcp-fig5``: cwnd of one LTCP flow and of one TCP flow (separate runs, as
  "the network consists of only one flow"), 1 Gb/s, 6000-packet buffer.
* ``ltcp-fig6``: the Fig 6 table, TCP and LTCP, 10 Mb/s to 2.4 Gb/s with
  buffer = BDP; throughput "calculated over a period of 2000 seconds after
  the flow reaches steady state", read as a 300 s warm-up then 2000 s.
* ``ltcp-fig7``: four LTCP flows starting at 0, 150, 350, 550 s; the 2nd
  lasts 1250 s, the 3rd 850 s, the 4th 450 s (so they stop at 1400, 1200,
  1000 s); the first runs throughout. The run lasts 1600 s (the figure's
  length is not stated in the text; 1600 s leaves 200 s with the first flow
  alone after the second stops).
* ``ltcp-fig8``: one LTCP flow with a 300 s head start, then ten TCP flows;
  "the throughput is calculated for the flows after another 300 seconds",
  read as the average over [300 s, 600 s]. The paper does not run ten TCP
  flows alone; we do, as context only (no check).
* ``ltcp-testbed``: the Linux testbed tables (Fig 9 single flow, Fig 10 2 to
  10 flows) re-run in simulation; see :func:`testbed` for the modelling.
* ``ltcp-response``: throughput against random loss rate vs eq. 18.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Dict, List, Optional

from ..models.aimd import bdp_packets, mathis_throughput_bps, sawtooth_utilization
from ..models.ltcp import (climb_time_s, layer_of, layer_window, mixed_equilibrium,
                           random_loss_window, response_pkts_per_s, response_window)
from ..plots import pyplot, save_figure
from ..sweep import load_run, sweep, write_table
from . import Check, register

PKT_BYTES = 1040
MSS = 1000
PAYLOAD = MSS / PKT_BYTES
RTT = 0.07
W_T, BETA = 50.0, 0.15
DEFAULT_BUFFER = 6000
PROTOS = ("TCP", "LTCP")
EDGE_RATE = 2.4e9              # access links (§V-A)


def _flow(proto: str, **kw) -> dict:
    """One ns-2-like FTP flow: TCP/Sack1 (Reno + SACK) or LTCP on the same agent."""
    f = {"cc": "reno", "recovery": "sack", "mss_bytes": MSS, "header_bytes": PKT_BYTES - MSS,
         "rtt_s": RTT, "rwnd_pkts": 10_000_000}
    if proto == "LTCP":
        f.update(cc="ltcp", cc_params={"w_t": W_T, "beta": BETA})
    f.update(kw)
    return f


def _dumbbell(rate_bps: float, buffer_pkts: int, edge_rate_bps: float = EDGE_RATE) -> dict:
    return {
        "kind": "dumbbell",
        "bottleneck_rate_bps": rate_bps,
        "bottleneck_delay_s": 0.001,
        "bottleneck_queue": {"kind": "droptail", "limit_pkts": int(buffer_pkts)},
        "edge_rate_bps": edge_rate_bps,
        "edge_queue": {"kind": "droptail", "limit_pkts": 100000},
    }


def _scenario(name: str, duration: float, topology: dict, flows: List[dict], warmup: float = 0.0,
              sample: float = 0.0) -> dict:
    return {"name": name, "duration_s": duration, "warmup_s": warmup, "sample_interval_s": sample,
            "topology": topology, "flows": flows}


def _bdp_buffer(rate_bps: float) -> int:
    return max(1, round(bdp_packets(rate_bps, RTT, PKT_BYTES)))


def _log2_check(quantity: str, paper: float, ccsim: float) -> Check:
    """Loss rates: within a factor of 2 (deviation = |log2(ccsim/paper)| <= 1).
    A loss rate is set by a handful of drops per congestion cycle, so a factor
    of 2 is the resolution at which two simulators' DropTail overflows (how
    many packets a window overshoots by before the loss is detected) can be
    compared; it still separates a 1e-4 from a 1e-6 regime."""
    dev = abs(math.log2(ccsim / paper)) if ccsim > 0 else math.inf
    return Check(f"{quantity} (deviation = |log2 ratio|, within 2x)", paper=paper, ccsim=ccsim,
                 deviation=dev, relative=False, tolerance=1.0)


# ---------------------------------------------------------------------------
# Fig 5: cwnd of LTCP vs TCP, one flow each
# ---------------------------------------------------------------------------

def _cut_events(g, settle_s: float = 5.0) -> List[int]:
    """Sample indices at which a congestion-avoidance loss cut the window:
    cwnd fell by over 5% (growth never lowers it) after growing above an
    unchanged ssthresh for at least ``settle_s``. Losses that end slow
    start, the recovery and timeout after an overshoot, and a slow start
    running into the buffer again are not cuts of the sawtooth. (A change
    of ssthresh is no marker: TCP's second cut sets the same value.)"""
    t, c, s = g["time_s"].to_numpy(), g["cwnd"].to_numpy(), g["ssthresh"].to_numpy()
    out = []
    for i in range(1, len(g)):
        if c[i] >= 0.95 * c[i - 1] or s[i - 1] > 1e8:
            continue
        j = i - 1
        while j > 0 and t[i - 1] - t[j] < settle_s and s[j - 1] == s[i - 1] and c[j - 1] > s[j - 1]:
            j -= 1
        if t[i - 1] - t[j] >= settle_s and c[i - 1] > s[i - 1]:
            out.append(i)
    return out


def _climb_rates(g, events: List[int], ltcp: bool) -> Dict[int, List[float]]:
    """Window growth per measured RTT between consecutive samples in
    congestion avoidance, grouped by the layer the window is in (TCP: 1):
    (cwnd[i+1] - cwnd[i]) / dt * srtt."""
    t, c, s, r = (g[k].to_numpy() for k in ("time_s", "cwnd", "ssthresh", "srtt_s"))
    near = set()
    for e in events:  # the recovery around a cut is not the climb
        near.update(range(e - 1, e + 3))
    out: Dict[int, List[float]] = {}
    for i in range(len(g) - 1):
        if i in near or i + 1 in near or s[i] != s[i + 1] or s[i] > 1e8 or c[i] < s[i] or c[i + 1] <= c[i]:
            continue
        k = layer_of(c[i], W_T) if ltcp else 1
        if ltcp and layer_of(c[i + 1], W_T) != k:
            continue
        out.setdefault(k, []).append((c[i + 1] - c[i]) / (t[i + 1] - t[i]) * 0.5 * (r[i] + r[i + 1]))
    return out


def _recoveries(g, events: List[int]) -> List[float]:
    """Seconds from each cut until cwnd first regains its value before the
    cut. Successive losses come at windows a few packets apart (the overshoot
    in the RTT before a loss is detected), so "regains" means to within 0.1%
    (14 packets at 14,400: about one RTT of LTCP growth); otherwise a cycle
    whose peak is 5 packets under the previous one would count as not
    recovered until a later cycle."""
    t, c = g["time_s"].to_numpy(), g["cwnd"].to_numpy()
    out = []
    for e in events:
        peak = 0.999 * c[e - 1]
        j = next((j for j in range(e, len(c)) if c[j] >= peak), None)
        out.append(t[j] - t[e] if j is not None else math.nan)
    return out


def _median(xs) -> float:
    """Median ignoring NaN; NaN when nothing is left."""
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan


@register("ltcp-fig5", paper="LTCP (layered TCP), Fig 5",
          description="cwnd of one LTCP flow vs one TCP flow, 1 Gb/s, RTT 70 ms, 6000-packet buffer")
def fig5(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """Fig 5 is a plot; the text states that after a loss TCP "takes over
    600 seconds more than an LTCP flow to recover", because TCP halves and
    climbs one packet per RTT while LTCP cuts by beta = 0.15 and climbs K per
    RTT. Checked: LTCP's climb of K packets per RTT in each layer visited,
    the cuts (x0.85 for LTCP, x0.5 for TCP), the window at each loss (= pipe
    + buffer), recovery times against the layer model with the queue-stretched
    RTT (:func:`ccsim.models.ltcp.climb_time_s`), and the 600 s statement.
    Full: 1500 s (TCP's one-per-RTT climb from 7,200 to 14,400 packets takes
    about 650 s, so two of its cuts fit); quick: 500 Mb/s, buffer 3000, 70 s
    (a few LTCP cycles; no TCP cut, so the TCP recovery checks show NaN)."""
    rate, buf = (500e6, 3000) if quick else (1e9, DEFAULT_BUFFER)
    duration = 70.0 if quick else 1500.0
    base = _scenario("ltcp-fig5", duration, _dumbbell(rate, buf), [_flow("TCP")], sample=0.1)
    points = [{"flows": [_flow(p)]} for p in PROTOS]
    df = sweep(base, points, out_dir, workers=workers)
    bdp = bdp_packets(rate, RTT, PKT_BYTES)
    w_max = bdp + buf  # the window at which the DropTail buffer overflows

    rows, series, checks = [], {}, []
    for proto, key in zip(PROTOS, df["key"]):
        g = load_run(out_dir, key).flow_series
        g = g[g["flow"] == 0].reset_index(drop=True)
        series[proto] = g
        ltcp = proto == "LTCP"
        ev = _cut_events(g)
        cut = [g["ssthresh"][e] / g["cwnd"][e - 1] for e in ev]
        peaks = [g["cwnd"][e - 1] for e in ev]
        rec = _recoveries(g, ev)
        rates = _climb_rates(g, ev, ltcp)
        beta = BETA if ltcp else 0.5
        model_rec = climb_time_s((1 - beta) * w_max, w_max, bdp, RTT,
                                 (lambda w: layer_of(w, W_T)) if ltcp else (lambda w: 1.0))
        rows.append({"protocol": proto, "cuts": len(ev), "median_cut_ratio": _median(cut),
                     "median_peak_cwnd": _median(peaks), "model_peak_cwnd": w_max,
                     "median_recovery_s": _median(rec), "model_recovery_s": model_rec,
                     **{f"climb_per_rtt_K{k}": _median(v) for k, v in sorted(rates.items())}})
        # Climb: per ACK +K/cwnd is exactly K per window of ACKs, and a window
        # of ACKs takes one RTT (the ACK clock); srtt lags a growing RTT by
        # well under 1%. 3% covers that and the floating-point sample steps.
        for k, v in sorted(rates.items()):
            if len(v) >= 5:
                checks.append(Check(f"{proto}: window growth per RTT in layer K={k} (model: K)",
                                    paper=k, ccsim=round(_median(v), 3), tolerance=0.03))
        # Cut: ssthresh / cwnd sampled <= 0.1 s (about one RTT, +K packets of
        # ~14,000) before the loss; 1% covers that.
        checks.append(Check(f"{proto}: cwnd after a loss / before (1 - beta)", paper=1 - beta,
                            ccsim=round(_median(cut), 4), tolerance=0.01))
        # Peak: the buffer overflows at pipe + buffer; the window overshoots by
        # the packets added in the RTT before the loss is detected (<= 2K).
        checks.append(Check(f"{proto}: cwnd at a loss vs pipe + buffer = {w_max:.0f} pkts", paper=round(w_max),
                            ccsim=round(_median(peaks), 1), tolerance=0.01))
        # Recovery: the model integrates K(w) per RTT with RTT = 70 ms x
        # max(1, w/BDP); it ignores the ~1 RTT of fast recovery itself.
        checks.append(Check(f"{proto}: recovery time after a loss, s (layer model, queue-stretched RTT)",
                            paper=round(model_rec, 1), ccsim=round(_median(rec), 1), tolerance=0.10))
    by = {r["protocol"]: r for r in rows}
    diff = by["TCP"]["median_recovery_s"] - by["LTCP"]["median_recovery_s"]
    checks.append(Check("TCP needs over 600 s more than LTCP to recover from a loss (s)", paper="> 600",
                        ccsim=round(diff, 1) if not math.isnan(diff) else diff,
                        ok=bool(not math.isnan(diff) and diff > 600)))
    import pandas as pd

    write_table(pd.DataFrame(rows), out_dir, "ltcp-fig5")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for proto, g in series.items():
        ax.plot(g["time_s"], g["cwnd"], lw=0.8, label=f"{proto} (ccsim)")
    for k in range(2, 14):
        if layer_window(k, W_T) <= w_max:
            ax.axhline(layer_window(k, W_T), color="grey", lw=0.4, ls=":")
    ax.axhline(w_max, color="k", lw=0.6, ls="--", label="pipe + buffer")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.set_title(f"LTCP paper Fig 5: {rate / 1e6:g} Mb/s, RTT 70 ms, buffer {buf} (dotted: layers W_K)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, out_dir / "ltcp-fig5.png")
    return checks


# ---------------------------------------------------------------------------
# Fig 6: utilisation and loss rate, TCP and LTCP, buffer = BDP
# ---------------------------------------------------------------------------

# Fig 6 table: Mb/s and loss rate in percent (None: not given).
FIG6 = {
    "TCP": {10e6: (9.34, 1.41e-2), 100e6: (96.15, 2.08e-5), 1e9: (866.75, 2.33e-6), 2.4e9: (1864.80, None)},
    "LTCP": {10e6: (9.62, 1.33e-1), 100e6: (96.15, 1.12e-3), 1e9: (961.54, 4.49e-4), 2.4e9: (2307.69, 2.01e-4)},
}


@register("ltcp-fig6", paper="LTCP (layered TCP), Fig 6 table",
          description="TCP and LTCP utilisation and loss rate at 10 Mb/s to 2.4 Gb/s, buffer = BDP, RTT 70 ms")
def fig6(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """Both columns of Fig 6. Goodput within 5% of the paper, loss rates
    within a factor of 2; plus the text's claims that LTCP's loss rate is
    higher than TCP's (it runs near the optimum) and its utilisation at least
    as high. `--quick`: 10 and 100 Mb/s, 100 s warm-up, 300 s measured."""
    rates = [10e6, 100e6] if quick else [10e6, 100e6, 1e9, 2.4e9]
    warmup, measure = (100.0, 300.0) if quick else (300.0, 2000.0)
    base = _scenario("ltcp-fig6", warmup + measure, _dumbbell(1e9, 6000), [_flow("TCP")], warmup=warmup,
                     sample=0.1)
    points = []
    for r in rates:
        for p in PROTOS:
            pt = {"topology.bottleneck_rate_bps": r, "topology.bottleneck_queue.limit_pkts": _bdp_buffer(r),
                  "flows": [_flow(p)]}
            if r >= EDGE_RATE:
                # The access link is no faster than the bottleneck, so the
                # queue forms at the sender's access link: it gets the same
                # BDP buffer (ns-2 gives every link a queue; the paper sets
                # "the buffersize at the router" to the BDP).
                pt["topology.edge_queue.limit_pkts"] = _bdp_buffer(r)
            points.append(pt)
    df = sweep(base, points, out_dir, workers=workers)
    df["protocol"] = [p for _ in rates for p in PROTOS]
    df["rate_bps"] = df["topology.bottleneck_rate_bps"]
    df["buffer_pkts"] = df["topology.bottleneck_queue.limit_pkts"]
    df["goodput_mbps"] = df["goodput_total_bps"] / 1e6
    df["paper_mbps"] = [FIG6[p][r][0] for p, r in zip(df["protocol"], df["rate_bps"])]
    df["paper_loss_rate"] = [FIG6[p][r][1] / 100 if FIG6[p][r][1] is not None else math.nan
                             for p, r in zip(df["protocol"], df["rate_bps"])]
    bdp = bdp_packets(df["rate_bps"], RTT, PKT_BYTES)
    df["tcp_sawtooth_model_mbps"] = [sawtooth_utilization(w, w) * r / 1e6 * PAYLOAD if p == "TCP" else math.nan
                                     for w, r, p in zip(bdp, df["rate_bps"], df["protocol"])]
    # Drops per congestion event, and what the paper's loss rate implies:
    # with buffer = BDP the link never idles (the window stays above the
    # pipe after a cut), so a cycle carries C x (cycle time) packets, the
    # cycle time being the climb back from (1 - beta) W to W = 2 BDP at K(w)
    # (TCP: 1) per queue-stretched RTT.
    drops, per_cycle, path_loss = [], [], []
    for key, p, r, w in zip(df["key"], df["protocol"], df["rate_bps"], bdp):
        res = load_run(out_dir, key)
        g = res.flow_series
        c = g[g["time_s"] > warmup]["cwnd"].to_numpy()
        events = int(((c[1:] < 0.95 * c[:-1])).sum())  # cuts after warm-up (sampled every 0.1 s)
        lost = sum(l["drops"] + l["random_losses"] for l in res.raw["links"])
        sent = next(l["arrivals"] for l in res.raw["links"] if l["name"] == "s0->r0")
        path_loss.append(lost / sent if sent else math.nan)
        drops.append(lost / events if events else math.nan)
        b = BETA if p == "LTCP" and layer_of(2 * w, W_T) >= 2 else 0.5
        k = (lambda x: layer_of(x, W_T)) if p == "LTCP" else (lambda x: 1.0)
        per_cycle.append(r / (8 * PKT_BYTES) * climb_time_s((1 - b) * 2 * w, 2 * w, w, RTT, k))
    # loss rate of the path (drops on every link / packets sent): at 2.4 Gb/s
    # the drops happen at the access link, not at the monitored bottleneck
    df["bottleneck_loss_rate"] = df["loss_rate"]
    df["loss_rate"] = path_loss
    df["ccsim_drops_per_event"] = drops
    df["model_pkts_per_cycle"] = per_cycle
    df["paper_implied_drops_per_event"] = df["paper_loss_rate"] * df["model_pkts_per_cycle"]
    table = df[["rate_bps", "protocol", "buffer_pkts", "goodput_mbps", "paper_mbps", "tcp_sawtooth_model_mbps",
                "loss_rate", "paper_loss_rate", "utilization", "ccsim_drops_per_event", "model_pkts_per_cycle",
                "paper_implied_drops_per_event"]]
    write_table(table, out_dir, "ltcp-fig6")

    checks: List[Check] = []
    for _, r in table.sort_values(["rate_bps", "protocol"], ascending=[True, False]).iterrows():
        tag = f"{r.protocol} at {r.rate_bps / 1e6:g} Mb/s"
        # 5%: the paper averages one 2000 s run; at low rates the goodput of a
        # sawtooth through a BDP buffer is full, at high rates it is set by
        # where slow start and recovery leave the window (see docs).
        checks.append(Check(f"{tag}: steady-state goodput (Mb/s)", paper=r.paper_mbps,
                            ccsim=round(float(r.goodput_mbps), 2), tolerance=0.05))
        if not math.isnan(r.paper_loss_rate):
            checks.append(_log2_check(f"{tag}: loss rate", r.paper_loss_rate, float(r.loss_rate)))
    piv = table.pivot(index="rate_bps", columns="protocol")
    more_loss = all(piv["loss_rate"]["LTCP"] > piv["loss_rate"]["TCP"])
    checks.append(Check("LTCP loss rate > TCP loss rate at every bandwidth (§V-A)", paper=True,
                        ccsim=more_loss, ok=bool(more_loss)))
    # "at least as high" with 0.5% slack: both flows fill the link at low rates
    ge = all(piv["goodput_mbps"]["LTCP"] >= 0.995 * piv["goodput_mbps"]["TCP"])
    checks.append(Check("LTCP goodput >= TCP goodput at every bandwidth", paper=True, ccsim=ge, ok=bool(ge)))

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for i, p in enumerate(PROTOS):
        d = table[table["protocol"] == p].sort_values("rate_bps")
        x = d["rate_bps"] / 1e6
        a1.plot(x, d["goodput_mbps"] / x, "o-", color=f"C{i}", label=f"ccsim {p}")
        a1.plot(x, d["paper_mbps"] / x, "^", color=f"C{i}", mfc="none", ms=9, label=f"paper {p}")
        a2.plot(x, d["loss_rate"], "o-", color=f"C{i}", label=f"ccsim {p}")
        a2.plot(x, d["paper_loss_rate"], "^", color=f"C{i}", mfc="none", ms=9, label=f"paper {p}")
    for a in (a1, a2):
        a.set_xscale("log")
        a.set_xlabel("bottleneck (Mb/s)")
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    a1.set_ylim(0, 1.05)
    a1.set_ylabel("goodput / capacity")
    a2.set_yscale("log")
    a2.set_ylabel("loss rate")
    fig.suptitle("LTCP paper Fig 6 (RTT 70 ms, buffer = BDP)")
    save_figure(fig, out_dir / "ltcp-fig6.png")
    return checks


# ---------------------------------------------------------------------------
# Fig 7: dynamic link sharing among four LTCP flows
# ---------------------------------------------------------------------------

def _jain(xs) -> float:
    xs = list(xs)
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else math.nan


# Lowest Jain index the paper reports for LTCP anywhere (Fig 10, 6 flows,
# RTT 150 ms): Fig 7 gives no number, so "all flows reach the fair
# utilization level" is held to the paper's own worst LTCP fairness.
PAPER_LTCP_MIN_JAIN = 0.983


@register("ltcp-fig7", paper="LTCP (layered TCP), Fig 7",
          description="dynamic link sharing: four LTCP flows arriving at 0/150/350/550 s and leaving, 1 Gb/s")
def fig7(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """Per-flow goodput over time; in every phase (between two arrivals or
    departures) the mean goodput of each active flow over the phase's second
    half (the first half is left to convergence), Jain's index over those,
    and the aggregate. Checks: Jain >= 0.983 in every phase with several
    flows, aggregate >= 95% of the payload capacity ("the link is fully
    utilized"). `--quick`: 100 Mb/s with the buffer scaled to 600 packets and
    all times halved (a layer-5 LTCP cycle at 100 Mb/s lasts ~4 s, so the
    phases still hold many cycles)."""
    rate, buf, scale = (100e6, 600, 0.5) if quick else (1e9, DEFAULT_BUFFER, 1.0)
    starts, lasts = [0.0, 150.0, 350.0, 550.0], [None, 1250.0, 850.0, 450.0]
    duration = 1600.0 * scale
    flows = []
    for s, d in zip(starts, lasts):
        f = _flow("LTCP", start_s=s * scale)
        if d is not None:
            f["stop_s"] = (s + d) * scale
        flows.append(f)
    base = _scenario("ltcp-fig7", duration, _dumbbell(rate, buf), flows, sample=1.0 * scale)
    df = sweep(base, [{}], out_dir, workers=workers)
    res = load_run(out_dir, df["key"][0])
    fs = res.flow_series
    gp = fs.pivot(index="time_s", columns="flow", values="goodput_bps") / 1e6
    bounds = sorted({0.0, duration, *(s * scale for s in starts),
                     *((s + d) * scale for s, d in zip(starts, lasts) if d is not None)})
    cap = rate * PAYLOAD / 1e6

    rows, checks = [], []
    for a, b in zip(bounds, bounds[1:]):
        active = [i for i, (s, d) in enumerate(zip(starts, lasts))
                  if s * scale <= a and (d is None or (s + d) * scale >= b)]
        win = gp[(gp.index > a + 0.5 * (b - a)) & (gp.index <= b)]
        means = [float(win[i].mean()) for i in active]
        agg = float(win[active].sum(axis=1).mean())
        j = _jain(means)
        # convergence: from when on Jain's index of 10 s mean goodputs stays
        # at or above the threshold until the phase ends (NaN: never)
        conv = math.nan
        if len(active) > 1:
            sm = gp[active].rolling(max(1, round(10 / scale)), min_periods=1).mean()
            sm = sm[(sm.index > a + 10 * scale) & (sm.index <= b)]
            jt = [_jain(v) for v in sm.to_numpy()]
            bad = [t for t, x in zip(sm.index, jt) if not x >= PAPER_LTCP_MIN_JAIN]
            conv = (bad[-1] - a if bad else 10 * scale) if not bad or bad[-1] < sm.index[-1] else math.nan
        rows.append({"phase_start_s": a, "phase_end_s": b, "flows": len(active),
                     "fair_share_mbps": cap / len(active), "aggregate_mbps": agg, "jain": j,
                     "converged_after_s": conv,
                     **{f"flow{i}_mbps": m for i, m in zip(active, means)}})
        tag = f"{a:g}-{b:g} s, {len(active)} flow{'s' if len(active) > 1 else ''}"
        if len(active) > 1:
            checks.append(Check(f"{tag}: Jain index over the phase's 2nd half (>= paper's min LTCP 0.983)",
                                paper=PAPER_LTCP_MIN_JAIN, ccsim=round(j, 4), ok=bool(j >= PAPER_LTCP_MIN_JAIN)))
        # 95%: with buffer 6000 < BDP 8413 the link idles only if the sum of
        # windows falls below the BDP; LTCP's x0.85 cut from 14,400 never does,
        # so anything under 95% means flows failed to take freed capacity.
        checks.append(Check(f"{tag}: aggregate goodput, fraction of payload capacity (>= 0.95)",
                            paper=">= 0.95", ccsim=round(agg / cap, 4), ok=bool(agg / cap >= 0.95)))
    import pandas as pd

    write_table(pd.DataFrame(rows), out_dir, "ltcp-fig7")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    smooth = gp.rolling(max(1, round(10 / scale)), min_periods=1).mean()
    for i in gp.columns:
        ax.plot(smooth.index, smooth[i], lw=0.9, label=f"LTCP flow {i + 1}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mb/s, 10-sample mean)")
    ax.set_title(f"LTCP paper Fig 7: dynamic link sharing ({rate / 1e6:g} Mb/s, buffer {buf})")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, out_dir / "ltcp-fig7.png")
    return checks


# ---------------------------------------------------------------------------
# Fig 8: one established LTCP flow against ten TCP flows
# ---------------------------------------------------------------------------

FIG8_PAPER = {500e6: 101.25, 1e9: 185.64}  # aggregate TCP goodput, Mb/s
N_TCP = 10


@register("ltcp-fig8", paper="LTCP (layered TCP), Fig 8",
          description="one LTCP flow (300 s head start) vs ten TCP flows at several link rates")
def fig8(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """Aggregate goodput of the ten TCP flows over [300, 600] s next to the
    LTCP flow's. Model: synchronised-loss AIMD equilibrium
    (:func:`ccsim.models.ltcp.mixed_equilibrium`: every overflow cuts every
    flow, TCP x0.5, +1/RTT, LTCP x0.85, +K'/RTT). Checks: the paper's two
    numbers (20%, see below), the paper's two trends (TCP aggregate grows,
    TCP's share falls with the link rate). Ten TCP flows alone over the same
    period are run for context. `--quick`: 100 and 500 Mb/s, 60 s head
    start and 60 s measured, no TCP-alone runs."""
    rates = [100e6, 500e6] if quick else [100e6, 500e6, 1e9, 2.4e9]
    head = 60.0 if quick else 300.0
    base = _scenario("ltcp-fig8", 2 * head, _dumbbell(1e9, DEFAULT_BUFFER), [_flow("LTCP")], warmup=head)
    mixes = {"LTCP+10TCP": [_flow("LTCP"), _flow("TCP", count=N_TCP, start_s=head)]}
    if not quick:
        mixes["10TCP alone"] = [_flow("TCP", count=N_TCP, start_s=head)]
    points, labels = [], []
    for r in rates:
        for m, flows in mixes.items():
            pt = {"topology.bottleneck_rate_bps": r, "flows": flows}
            if r >= EDGE_RATE:
                # access link as slow as the bottleneck: the LTCP flow's
                # queue forms there (alone for 300 s), so it gets the
                # routers' default 6000 packets, not an unlimited queue
                pt["topology.edge_queue.limit_pkts"] = DEFAULT_BUFFER
            points.append(pt)
            labels.append((r, m))
    df = sweep(base, points, out_dir, workers=workers)
    rows = []
    for (r, m), key in zip(labels, df["key"]):
        fl = load_run(out_dir, key).flows
        tcp = fl[fl["cc"] == "reno"]["goodput_bps"].sum() / 1e6
        lt = fl[fl["cc"] == "ltcp"]["goodput_bps"].sum() / 1e6
        cap = r * PAYLOAD / 1e6
        _, k, share = mixed_equilibrium(N_TCP, bdp_packets(r, RTT, PKT_BYTES) + DEFAULT_BUFFER, W_T, BETA)
        rows.append({"rate_bps": r, "mix": m, "tcp_aggregate_mbps": tcp, "ltcp_mbps": lt,
                     "tcp_share": tcp / cap,
                     "paper_tcp_aggregate_mbps": FIG8_PAPER.get(r, math.nan) if m != "10TCP alone" else math.nan,
                     "model_tcp_aggregate_mbps": share * cap if m != "10TCP alone" else math.nan,
                     "model_ltcp_layer_after_cut": k if m != "10TCP alone" else math.nan})
    import pandas as pd

    t = pd.DataFrame(rows)
    write_table(t, out_dir, "ltcp-fig8")
    mix = t[t["mix"] == "LTCP+10TCP"].sort_values("rate_bps")
    checks: List[Check] = []
    for _, r in mix.iterrows():
        if r.rate_bps in FIG8_PAPER:
            # 20%: the paper reports one run, averaged over 300 s that start
            # with ten simultaneous slow starts into a 6000-packet buffer; how
            # deep that first overflow cuts the TCP flows (and whether ns-2's
            # Sack1 times out) moves the 300 s average by tens of percent.
            checks.append(Check(f"{r.rate_bps / 1e6:g} Mb/s: aggregate TCP goodput (Mb/s)",
                                paper=r.paper_tcp_aggregate_mbps, ccsim=round(r.tcp_aggregate_mbps, 2),
                                tolerance=0.20))
            # the model against the paper: same tolerance, same reasons
            checks.append(Check(f"{r.rate_bps / 1e6:g} Mb/s: synchronised-AIMD model vs paper (Mb/s)",
                                paper=r.paper_tcp_aggregate_mbps, ccsim=round(r.model_tcp_aggregate_mbps, 2),
                                tolerance=0.20))
    grows = bool((mix["tcp_aggregate_mbps"].diff().dropna() > 0).all())
    falls = bool((mix["tcp_share"].diff().dropna() < 0).all())
    checks.append(Check("aggregate TCP goodput grows with the link rate", paper=True, ccsim=grows, ok=grows))
    checks.append(Check("TCP share of the link falls as the link rate grows", paper=True, ccsim=falls, ok=falls))

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    x = mix["rate_bps"] / 1e6
    ax.plot(x, mix["tcp_aggregate_mbps"], "o-", label="10 TCP (with LTCP), ccsim")
    ax.plot(x, mix["ltcp_mbps"], "s-", label="1 LTCP, ccsim")
    ax.plot(x, mix["model_tcp_aggregate_mbps"], ":", color="C0", label="10 TCP, sync. AIMD model")
    alone = t[t["mix"] == "10TCP alone"].sort_values("rate_bps")
    if len(alone):
        ax.plot(alone["rate_bps"] / 1e6, alone["tcp_aggregate_mbps"], "x--", color="grey", label="10 TCP alone")
    ax.plot([k / 1e6 for k in FIG8_PAPER], list(FIG8_PAPER.values()), "k^",
            label="paper, 10 TCP")
    ax.set_xlabel("bottleneck (Mb/s)")
    ax.set_ylabel("goodput over [head, 2 head] s (Mb/s)")
    ax.set_title("LTCP paper Fig 8: one LTCP vs ten TCP")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, out_dir / "ltcp-fig8.png")
    return checks


# ---------------------------------------------------------------------------
# Figs 9-10: the Linux testbed, re-run in simulation
# ---------------------------------------------------------------------------

TB_RATE = 750e6
TB_MSS, TB_HDR = 1448, 52      # Linux with timestamps: 1448-byte segments in 1500-byte packets
TB_BUFFER = 1000               # txqueuelen = backlog = 1000 packets
TB_RTTS = {"Low RTT": 0.025, "Moderate RTT": 0.070, "High RTT": 0.150}
# Fig 9 (paper's table label; the text calls it Fig 10): GBytes (2^30) and Mb/s.
FIG9 = {  # rtt label -> proto -> (GBytes, rate Mb/s)
    "Low RTT": {"TCP": (75.40, 719.25), "LTCP": (77.85, 742.75)},
    "Moderate RTT": {"TCP": (50.33, 480.25), "LTCP": (71.38, 681.50)},
    "High RTT": {"TCP": (17.20, 164.00), "LTCP": (48.85, 466.00)},
}
# Fig 10 (labelled Fig 10; the text says Fig 11): per-flow goodput Mb/s, std, Jain.
FIG10 = {
    "Low RTT": {2: ((373.50, 50.20, 0.991), (373.00, 12.73, 0.999)),
                4: ((186.25, 24.98, 0.987), (186.50, 8.81, 0.998)),
                6: ((124.00, 12.63, 0.991), (124.17, 2.32, 1.000)),
                8: ((92.93, 3.26, 0.999), (92.96, 2.05, 1.000)),
                10: ((74.26, 4.13, 0.997), (74.28, 2.69, 0.999))},
    "Moderate RTT": {2: ((299.50, 64.35, 0.977), (353.50, 9.19, 1.000)),
                     4: ((175.50, 12.01, 0.996), (181.75, 4.86, 0.999)),
                     6: ((116.77, 20.40, 0.975), (121.50, 6.53, 0.998)),
                     8: ((89.35, 23.03, 0.945), (91.31, 1.90, 1.000)),
                     10: ((70.53, 10.33, 0.981), (73.04, 4.66, 0.996))},
    "High RTT": {2: ((128.50, 37.48, 0.959), (286.50, 26.16, 0.996)),
                 4: ((123.73, 30.21, 0.957), (166.00, 7.53, 0.998)),
                 6: ((103.85, 17.98, 0.976), (113.62, 16.58, 0.983)),
                 8: ((78.06, 39.80, 0.815), (86.68, 8.72, 0.991)),
                 10: ((66.06, 21.02, 0.916), (69.61, 6.76, 0.992))},
}


def _tb_flow(proto: str, rtt: float, n: int) -> dict:
    f = _flow(proto, mss_bytes=TB_MSS, header_bytes=TB_HDR, rtt_s=rtt, delayed_ack=True,
              rwnd_pkts=32 * 2**20 // TB_MSS, count=n)
    if n > 1:
        f["start_spread_s"] = 0.1
    return f


@register("ltcp-testbed", paper="LTCP (layered TCP), Figs 9-10 (Linux testbed)",
          description="testbed tables re-run in simulation: 750 Mb/s, RTT 25/70/150 ms, 1 to 10 flows, 900 s")
def testbed(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """The testbed: two PCs, the PCI bus limiting throughput to "around 750
    Mb/s", a packet-delay qdisc setting the RTT, txqueuelen and backlog 1000,
    iperf with 32 MB socket buffers, Linux 2.4 TCP-SACK (LTCP patched in),
    900 s runs repeated four times. Modelled as a 750 Mb/s dumbbell
    bottleneck (wire rate; 1448-byte payloads in 1500-byte packets, so a
    payload capacity of 724 Mb/s) with a 1000-packet DropTail buffer, SACK
    recovery, delayed ACKs (Linux receivers ACK every second segment and
    Linux 2.4 counts ACKs, not bytes), receiver window 32 MB. The "Total
    Bytes (GBytes)" column is iperf's, in units of 2^30 bytes (75.40 GB in
    900 s is 719.6 Mb/s, the table's 719.25). Several flows start within
    0.1 s of each other (real hosts never start them in the same
    picosecond, and identical synchronised flows phase-lock in a
    deterministic simulator). One run per point, not four; the standard
    deviation reported is across the flows of that run. `--quick`: RTT 25
    and 150 ms, 1 and 4 flows, 30 s."""
    rtts = {k: v for k, v in TB_RTTS.items() if k != "Moderate RTT"} if quick else TB_RTTS
    ns = [1, 4] if quick else [1, 2, 4, 6, 8, 10]
    duration = 30.0 if quick else 900.0
    base = _scenario("ltcp-testbed", duration, _dumbbell(TB_RATE, TB_BUFFER, edge_rate_bps=1e9),
                     [_tb_flow("TCP", 0.07, 1)])
    points, labels = [], []
    for lab, rtt in rtts.items():
        for n in ns:
            for p in PROTOS:
                points.append({"flows": [_tb_flow(p, rtt, n)]})
                labels.append((lab, rtt, n, p))
    df = sweep(base, points, out_dir, workers=workers)
    rows = []
    for (lab, rtt, n, p), key in zip(labels, df["key"]):
        g = load_run(out_dir, key).flows["goodput_bps"] / 1e6
        mean = float(g.mean())
        std = float(g.std(ddof=1)) if n > 1 else 0.0
        paper_f9 = FIG9[lab][p] if n == 1 else (math.nan, math.nan)
        paper_f10 = FIG10[lab][n][PROTOS.index(p)] if n > 1 and n in FIG10[lab] else (math.nan,) * 3
        rows.append({"rtt": lab, "rtt_s": rtt, "flows": n, "protocol": p, "per_flow_mbps": mean,
                     "std_mbps": std, "jain": _jain(g), "gbytes": mean * 1e6 * duration / 8 / 2**30,
                     "paper_gbytes": paper_f9[0], "paper_per_flow_mbps": paper_f9[1] if n == 1 else paper_f10[0],
                     "paper_std_mbps": paper_f10[1], "paper_jain": paper_f10[2]})
    import pandas as pd

    t = pd.DataFrame(rows)
    write_table(t, out_dir, "ltcp-testbed")

    checks: List[Check] = []
    for _, r in t.iterrows():
        tag = f"{r.rtt} ({r.rtt_s * 1e3:g} ms), {r.flows} flow{'s' if r.flows > 1 else ''}, {r.protocol}"
        # 10%: the testbed's capacity is only "around 750 Mb/s" (ccsim's
        # payload capacity is 724 Mb/s, 2.5% under the paper's best 742.75),
        # and the paper's own run-to-run deviation reaches 11% (TCP, 70 ms).
        if not math.isnan(r.paper_per_flow_mbps):
            checks.append(Check(f"{tag}: {'rate' if r.flows == 1 else 'per-flow goodput'} (Mb/s)",
                                paper=r.paper_per_flow_mbps, ccsim=round(r.per_flow_mbps, 2), tolerance=0.10))
        # Jain, absolute 0.03: the spread of the paper's own LTCP values
        # (0.983-1.000) across rows that should be alike.
        if not math.isnan(r.paper_jain):
            checks.append(Check(f"{tag}: Jain index (absolute)", paper=r.paper_jain, ccsim=round(r.jain, 4),
                                relative=False, tolerance=0.03))
    one = t[t["flows"] == 1].set_index(["rtt", "protocol"])["per_flow_mbps"]
    for lab in rtts:
        ok = bool(one[(lab, "LTCP")] >= one[(lab, "TCP")])
        checks.append(Check(f"{lab}: one LTCP flow at least as fast as one TCP flow", paper=True, ccsim=ok, ok=ok))
    lo, hi = "Low RTT", "High RTT"
    if lo in rtts and hi in rtts:
        ok = bool(one[(hi, "LTCP")] / one[(lo, "LTCP")] > one[(hi, "TCP")] / one[(lo, "TCP")])
        checks.append(Check("LTCP's rate degrades more gracefully than TCP's from 25 to 150 ms",
                            paper=True, ccsim=ok, ok=ok))
        # 15%: from the paper's run-to-run deviations (TCP 17.20 +- 1.47 GB,
        # LTCP 48.85 +- 1.24 GB: about 9% on the ratio).
        checks.append(Check("High RTT: LTCP/TCP bytes in 900 s ('almost a factor of 3')",
                            paper=round(48.85 / 17.20, 3), ccsim=round(one[(hi, "LTCP")] / one[(hi, "TCP")], 3),
                            tolerance=0.15))
    multi = t[t["flows"] > 1]
    if len(multi):
        lt = multi[multi["protocol"] == "LTCP"]
        ok = bool((lt["jain"] >= PAPER_LTCP_MIN_JAIN).all())
        checks.append(Check("LTCP Jain index high for every RTT and flow count (>= paper's min 0.983)",
                            paper=PAPER_LTCP_MIN_JAIN, ccsim=round(float(lt["jain"].min()), 4), ok=ok))

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, lab in enumerate(rtts):
        for p, mk in zip(PROTOS, ("o", "s")):
            d = t[(t["rtt"] == lab) & (t["protocol"] == p)].sort_values("flows")
            axes[0].plot(d["flows"], d["per_flow_mbps"] * d["flows"], mk + ("-" if p == "LTCP" else "--"),
                         color=f"C{i}", label=f"{p} {lab}")
            dm = d[d["flows"] > 1]
            axes[1].plot(dm["flows"], dm["jain"], mk + ("-" if p == "LTCP" else "--"), color=f"C{i}",
                         label=f"{p} {lab}")
            axes[1].plot(dm["flows"], dm["paper_jain"], mk, color=f"C{i}", mfc="none", ms=9)
    axes[0].set_ylabel("aggregate goodput (Mb/s)")
    axes[1].set_ylabel("Jain index (open: paper)")
    for a in axes:
        a.set_xlabel("flows")
        a.grid(True, alpha=0.3)
    axes[0].legend(fontsize=6)
    fig.suptitle("LTCP paper testbed (Figs 9-10) in ccsim: 750 Mb/s, buffer 1000")
    save_figure(fig, out_dir / "ltcp-testbed.png")
    return checks


# ---------------------------------------------------------------------------
# Response function: throughput vs random loss rate, eq. 18
# ---------------------------------------------------------------------------

@register("ltcp-response", paper="LTCP (layered TCP), eq. 15-18",
          description="LTCP and TCP throughput vs Bernoulli loss rate against eq. 18 and Mathis")
def response(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """One flow on a 10 Gb/s bottleneck with a 100,000-packet buffer (never
    the limit: the throughputs here stay under 1.1 Gb/s) and Bernoulli loss
    p on data packets, RTT 70 ms. Prediction: eq. 17 with K' solved
    self-consistently (K' = the layer of (1 - beta) W'',
    :func:`ccsim.models.ltcp.response_window`) then eq. 16; TCP: Mathis,
    1.22/sqrt(p) packets per RTT. Eq. 18 assumes periodic losses, while here
    they are random; the per-RTT fluid model with Bernoulli losses
    (:func:`ccsim.models.ltcp.random_loss_window`) quantifies that gap
    (+2 to +8%). Each run lasts long enough for ~200 losses after ~20 loss
    intervals of warm-up (at most 1.5e8 packets); the initial ssthresh is the
    predicted W'' only to avoid a multi-second slow-start overshoot, which
    the warm-up excludes anyway. `--quick`: p = 1e-3 and 1e-4, ~60 losses."""
    ps = [1e-3, 1e-4] if quick else [1e-3, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6]
    n_loss = 60 if quick else 200
    topo = _dumbbell(10e9, 100000, edge_rate_bps=100e9)
    base = _scenario("ltcp-response", 10.0, topo, [_flow("TCP")])
    points, labels = [], []
    for p in ps:
        for proto in PROTOS:
            if proto == "LTCP":
                w, k, _ = response_window(p, W_T, BETA)
                pps = response_pkts_per_s(p, RTT, W_T, BETA)
            else:
                w, k = math.sqrt(1.5 / p), 1
                pps = mathis_throughput_bps(MSS, RTT, p) / (MSS * 8)
            n = min(n_loss / p, 1.5e8)
            warm = 20 / p / pps
            points.append({"topology.bottleneck_loss": p, "warmup_s": round(warm, 3),
                           "duration_s": round(warm + n / pps, 3),
                           "flows": [_flow(proto, init_ssthresh_pkts=max(2.0, round(w)))]})
            labels.append((p, proto, w, k, pps))
    df = sweep(base, points, out_dir, workers=workers)
    rows = []
    for (p, proto, w, k, pps), key, row in zip(labels, df["key"], df.itertuples()):
        res = load_run(out_dir, key)
        link = res.bottleneck()
        fluid = random_loss_window(p, ltcp=proto == "LTCP", w_t=W_T, beta=BETA) / RTT
        rows.append({"p": p, "protocol": proto, "model_w_peak": w, "model_k_after_cut": k,
                     "model_mbps": pps * MSS * 8 / 1e6, "fluid_random_loss_mbps": fluid * MSS * 8 / 1e6,
                     "goodput_mbps": row.goodput_total_bps / 1e6, "measured_loss_rate": row.loss_rate,
                     "queue_drops": link["drops"], "random_losses": link["random_losses"],
                     "timeouts": int(res.flows["timeouts"].sum()),
                     "measured_s": res.raw["duration_s"] - res.raw["warmup_s"]})
    import pandas as pd

    t = pd.DataFrame(rows)
    write_table(t, out_dir, "ltcp-response")
    checks: List[Check] = []
    for _, r in t.iterrows():
        tag = f"{r.protocol} at p = {r.p:g}"
        model = "eq. 18" if r.protocol == "LTCP" else "Mathis 1.22/sqrt(p)"
        # 15%: eq. 18 / Mathis assume periodic losses; with Bernoulli losses
        # the fluid model puts the mean 2-8% higher, and K' is a step function
        # of W'' (one layer more or less moves eq. 18 by up to 20% at small K,
        # which the self-consistent K' avoids but cannot make exact).
        checks.append(Check(f"{tag}: goodput vs {model} (Mb/s)", paper=round(r.model_mbps, 3),
                            ccsim=round(r.goodput_mbps, 3), tolerance=0.15))
        # 10%: same losses as the packet model; what remains is per-RTT
        # granularity, ~1 RTT of recovery without growth per loss event (up
        # to 5% of a 20-RTT TCP cycle at p = 1e-3) and the fluid model's own
        # sampling error (~2% over 2000 cycles).
        checks.append(Check(f"{tag}: goodput vs per-RTT fluid model with Bernoulli losses (Mb/s)",
                            paper=round(r.fluid_random_loss_mbps, 3), ccsim=round(r.goodput_mbps, 3),
                            tolerance=0.10))
    clean = bool((t["queue_drops"] == 0).all())
    checks.append(Check("only random losses (no queue drops) in every run", paper=True, ccsim=clean, ok=clean))
    # §IV-A: at K = 15 (2.4 Gb/s, 150 ms, 1500 B) eq. 18 gives "an improvement
    # of a factor of about 8" over TCP: sqrt(K/beta (1 - beta/2)) / sqrt(3/2).
    ratio = math.sqrt(15 / BETA * (1 - BETA / 2)) / math.sqrt(1.5)
    checks.append(Check("eq. 18 at K = 15 vs TCP: throughput factor ('about 8'; 0.5 = rounding)",
                        paper=8, ccsim=round(ratio, 3), relative=False, tolerance=0.5))

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, proto in enumerate(PROTOS):
        d = t[t["protocol"] == proto].sort_values("p")
        ax.plot(d["p"], d["goodput_mbps"], "o", color=f"C{i}", label=f"{proto} ccsim")
        ax.plot(d["p"], d["model_mbps"], "-", color=f"C{i}",
                label="eq. 18 (self-consistent K')" if proto == "LTCP" else "Mathis 1.22/sqrt(p)")
        ax.plot(d["p"], d["fluid_random_loss_mbps"], ":", color=f"C{i}", label=f"{proto} fluid, random loss")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss rate p")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("LTCP response function (RTT 70 ms)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, out_dir / "ltcp-response.png")
    return checks


# ---------------------------------------------------------------------------
# Fig 2 table (analysis)
# ---------------------------------------------------------------------------

# Fig 2 of the LTCP paper (W_T = 50, beta = 0.15): K, W_K, speedup in claiming
# bandwidth, speedup in packet-loss recovery time.
FIG2 = [
    (2, 50, 1.00, 1.00), (3, 200, 2.00, 6.67), (4, 500, 2.57, 10.00), (5, 1000, 3.17, 13.33),
    (6, 1750, 3.78, 16.67), (7, 2800, 4.40, 20.00), (8, 4200, 5.03, 23.33), (9, 6000, 5.67, 26.67),
    (10, 8250, 6.31, 30.00), (11, 11000, 6.95, 33.33), (12, 14300, 7.60, 36.67), (13, 18200, 8.25, 40.00),
    (14, 22750, 8.90, 43.33), (15, 28000, 9.56, 46.67), (16, 34000, 10.21, 50.00), (17, 40800, 10.87, 53.33),
    (18, 48450, 11.52, 56.67), (19, 57000, 12.18, 60.00), (20, 66500, 12.84, 63.33), (21, 77000, 13.50, 66.67),
    (22, 88550, 14.16, 70.00), (23, 101200, 14.82, 73.33), (24, 115000, 15.48, 76.67), (25, 130000, 16.14, 80.00),
]


@register("ltcp-table2", paper="LTCP (layered TCP), Fig 2 table",
          description="layer windows W_K and speedups in claiming bandwidth and loss recovery (W_T=50, beta=0.15)")
def table2(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    """Computed from the layer model (eq. 10, 11, 14; recovery beta*W/(K-1));
    the table is pure analysis, so --quick changes nothing."""
    import pandas as pd

    from ..models.ltcp import claim_speedup, recovery_speedup

    rows, checks = [], []
    for k, wk, claim, recov in FIG2:
        m_wk, m_claim, m_recov = layer_window(k), claim_speedup(k), recovery_speedup(k)
        rows.append({"K": k, "W_K": m_wk, "paper_W_K": wk, "claim_speedup": m_claim,
                     "paper_claim_speedup": claim, "recovery_speedup": m_recov, "paper_recovery_speedup": recov})
        checks.append(Check(f"K={k}: W_K (packets)", paper=wk, ccsim=m_wk, tolerance=0.0))
        # the paper prints two decimals: agreement to rounding is 0.005 absolute
        checks.append(Check(f"K={k}: speedup in claiming bandwidth", paper=claim, ccsim=round(m_claim, 4),
                            relative=False, tolerance=0.0051))
        checks.append(Check(f"K={k}: speedup in loss recovery", paper=recov, ccsim=round(m_recov, 4),
                            relative=False, tolerance=0.0051))
    out_dir.mkdir(parents=True, exist_ok=True)
    write_table(pd.DataFrame(rows), out_dir, "ltcp-table2")
    return checks
