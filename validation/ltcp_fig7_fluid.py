"""Synchronised-loss fluid model of LTCP, the paper's own rules (§III-IV):
per RTT each flow in congestion avoidance adds K(W) packets (K = layer of W,
eq. 10, W_T = 50), a flow in slow start doubles; whenever the windows'
sum exceeds BDP + buffer every flow is cut, by beta = 0.15 (x0.5 in slow
start or at K = 1). RTT = 70 ms + queue/rate. Fig 7's arrivals at 0, 150,
350, 550 s on 1 Gb/s with 6000 packets. Throughput of each flow ~ W_i/RTT
(one RTT for all), so its share of the full link is W_i / sum W.

    python -m validation.ltcp_fig7_fluid [OFFSET_S ...]   # shift the 2nd-4th arrivals by OFFSET_S
"""
import argparse

from ccsim.models.ltcp import layer_of
from ccsim.experiments._kit.analysis import jain

RATE, PKT, BASE = 1e9, 1040, 0.07
BDP = RATE * BASE / (PKT * 8)
WMAX = BDP + 6000


def run(starts, t_end):
    t, w, ss = 0.0, [0.0] * len(starts), [True] * len(starts)
    hist = []
    while t < t_end:
        act = [i for i, s in enumerate(starts) if s <= t]
        for i in act:
            if w[i] == 0.0:
                w[i] = 2.0
        tot = sum(w)
        rtt = BASE + max(0.0, tot - BDP) * PKT * 8 / RATE
        if tot > WMAX:
            for i in act:
                w[i] = w[i] / 2 if (ss[i] or layer_of(w[i]) < 2) else w[i] * 0.85
                ss[i] = False
        else:
            for i in act:
                w[i] = w[i] * 2 if ss[i] else w[i] + layer_of(w[i])
        hist.append((t, list(w), rtt))
        t += rtt
    return hist


def phase_jain(hist, a, b, n):
    sel = [(x, r) for t, x, r in hist if a + (b - a) / 2 < t <= b]
    shares = [sum(x[i] / sum(x[:n]) * r for x, r in sel) / sum(r for _, r in sel) for i in range(n)]
    return jain(shares), shares


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("offsets", type=float, nargs="*", default=[0.0], metavar="OFFSET_S",
                    help="shift the 2nd-4th arrivals by this many seconds (default 0)")
    for off in ap.parse_args().offsets:
        starts = [0.0, 150.0 + off, 350.0 + off, 550.0 + off]
        h = run(starts, 600.0 + off)
        j2, s2 = phase_jain(h, starts[1], starts[2], 2)
        j3, s3 = phase_jain(h, starts[2], starts[3], 3)
        print(f"arrivals +{off:4.1f} s: 2 flows Jain {j2:.4f} shares {' '.join(f'{s:.3f}' for s in s2)}; "
              f"3 flows Jain {j3:.4f} shares {' '.join(f'{s:.3f}' for s in s3)}")
