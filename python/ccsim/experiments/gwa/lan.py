"""``gwa-lan``: the GWA paper's LAN experiment, §6.1, Figs 4-6 (setup:
:mod:`ccsim.experiments.gwa`, :data:`~ccsim.experiments.gwa.LAN`).

Against the router buffer: FTP goodput normalised to the link rate
(min/avg/max, Fig 4), drop probability and Telnet mean and maximum delay
(Fig 5); window and queue transients over the first 3 s at 120 kbytes
(Fig 6: queue averaged over 0.01 s, here the mean of 1 ms samples per
0.01 s; window sampled every 1 ms rather than at every send).

Checks are the text's statements (the figures are not available as
numbers): zero loss at steady state for GWA and ECN, perfect fairness and
full utilisation for every GWA scheme "even with small router buffer
size", near-empty buffers for BA-FCFS, GWA queues below half the buffer,
the Fig 5 caption's ~12 s DropTail maximum Telnet delay at 30 kbytes,
GWA/ECN maximum Telnet delays in the millisecond range and DropTail/RED
ones in seconds, DropTail/RED losses falling with the buffer and of order
1e-2 (§6.2's recollection of this experiment), RED's 8 timeouts of the
FTP under study in 3 s, ECN's early timeout and GWA's loss-free start.
``--quick``: 30, 120 and 240 kbytes (full: six buffers), full-length runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import falls_pairwise, nanmedian, sequence
from . import (FULL_UTILISATION_TOL, GWA_SCHEMES, LAN, LOSS_FREE, PKT_BYTES, SCHEMES, analyse_with_transients,
               decade_check, fairness_checks, loss_free_checks, near_empty_check, plot_six_schemes,
               scenarios_with_transients, transient_loss_free_checks)

ID = "gwa-lan"
SOURCE = "GWA (generalized window advertising), §6.1 Figs 4-6"
DESCRIPTION = ("LAN, 10 FTP + 10 Telnet, 100 Mb/s: goodput min/avg/max, drop probability, Telnet delays vs buffer "
               "for DropTail, RED, ECN, GWA-RR, GWA-FCFS, BA-FCFS; 3 s transients at 120 kB")

#: What §6.1 (and §6.2 about this experiment) states.
PAPER = {
    "droptail_max_telnet_delay_30kB_s": 12.0,   # Fig 5 caption: "about 12 s when buffer size is 30 kbytes"
    "droptail_red_drop_rate": 1e-2,             # §6.2: "while it was 10^-2 in the LAN experiment"
    "red_timeouts_first_3s": 8,                 # §6.1: "8 timeouts in the first 3 seconds ... FTP under study"
    "gwa_settle_s": 0.5,                        # §6.1: "Steady state is achieved within 0.5 s"
    "transient_buffer_kB": 120,                 # Fig 6 (its first 3 s, queue averaged over 0.01 s)
}
#: "maximum delays are in the millisecond range" (GWA, ECN) read as below
#: 0.1 s; "in the range of seconds" (DropTail, RED) as at least 1 s.
MS_RANGE_S, SECONDS_RANGE_S = 0.1, 1.0


def buffers(quick: bool) -> List[float]:
    """Buffer sizes (kbytes): 30 (Fig 5 caption) to 240, with Fig 6's 120."""
    return [30, 120, 240] if quick else [30, 60, 90, 120, 180, 240]


def scenarios(quick: bool) -> List[Sweep]:
    return scenarios_with_transients(ID, LAN, buffers(quick), PAPER["transient_buffer_kB"])


def analyse(runs: Runs, quick: bool) -> Analysis:
    return analyse_with_transients(runs, ID, LAN)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    by = {s: t[t["scheme"] == s].sort_values("buffer_kb") for s in SCHEMES}
    out = loss_free_checks(t, LOSS_FREE, "LAN")
    out += fairness_checks(t, GWA_SCHEMES, "LAN")
    for s in GWA_SCHEMES:
        out.append(Check(f"{s}: lowest bottleneck utilisation over buffers (LAN; full utilisation)", paper=1.0,
                         ccsim=round(float(by[s]["utilization"].min()), 4), tolerance=FULL_UTILISATION_TOL,
                         source="paper"))
    out += near_empty_check(t, "LAN")
    b0 = PAPER["transient_buffer_kB"]
    for s in ("GWA-RR", "GWA-FCFS"):
        r = by[s][by[s]["buffer_kb"] == b0]
        if len(r):
            frac = float(r["avg_queue_pkts"].iloc[0]) / b0
            out.append(Check(f"{s}: average queue / buffer at {b0} kB in (0, 1/2) (Fig 6: below the FTP-only 1/2)",
                             paper="0 < x < 0.5", ccsim=round(frac, 3), ok=0 < frac < 0.5, source="paper"))
    d30 = by["DropTail"][by["DropTail"]["buffer_kb"] == 30]
    if len(d30):
        out.append(Check("DropTail: maximum Telnet delay at 30 kB (s)", paper=PAPER["droptail_max_telnet_delay_30kB_s"],
                         ccsim=round(float(d30["telnet_delay_max_s"].iloc[0]), 3), tolerance=0.5, source="paper"))
    for s in ("ECN",) + GWA_SCHEMES:
        m = float(by[s]["telnet_delay_max_s"].max())
        out.append(Check(f"{s}: largest maximum Telnet delay over buffers < {MS_RANGE_S} s (ms range)",
                         paper=f"< {MS_RANGE_S}", ccsim=round(m, 5), ok=m < MS_RANGE_S, source="paper"))
    for s in ("DropTail", "RED"):
        m = float(by[s]["telnet_delay_max_s"].min())
        out.append(Check(f"{s}: smallest maximum Telnet delay over buffers >= {SECONDS_RANGE_S} s (seconds range)",
                         paper=f">= {SECONDS_RANGE_S}", ccsim=round(m, 4), ok=m >= SECONDS_RANGE_S, source="paper"))
        dp = by[s]["drop_prob"].tolist()
        out.append(Check(f"{s}: drop probability falls with every buffer step", paper=True, ccsim=sequence(dp, ".2e"),
                         ok=falls_pairwise(dp), source="paper"))
        out.append(decade_check(f"{s}: median drop probability over buffers (order 1e-2, within half a decade)",
                                PAPER["droptail_red_drop_rate"], float(nanmedian(dp))))
    # GWA-RR: "the delay experienced by Telnet packets is merely the
    # propagation delay": the idle path (three 1040-byte serialisations
    # and tau) plus at most one round-robin wait at the bottleneck: the
    # packet in service and one packet of each of the other n - 1 FTP queues.
    rate = LAN.bottleneck_bps
    idle = 3 * PKT_BYTES * 8 / rate + LAN.tau_i[0] + LAN.tau_b + LAN.tau_r
    rr_turn = LAN.n * PKT_BYTES * 8 / rate
    m = float(by["GWA-RR"]["telnet_delay_mean_s"].max())
    out.append(Check("GWA-RR: largest mean Telnet delay over buffers <= idle path + one RR turn (s)",
                     paper=round(idle + rr_turn, 6), ccsim=round(m, 6), ok=idle <= m <= idle + rr_turn,
                     source="model"))
    tr = a.trans
    out += transient_loss_free_checks(tr, b0)
    out.append(Check(f"RED: timeouts of FTP 0 in the first 3 s at {b0} kB", paper=PAPER["red_timeouts_first_3s"],
                     ccsim=tr["RED"]["timeouts"], tolerance=0.5, source="paper"))
    ecn = tr["ECN"]
    out.append(Check(f"ECN: drops and a timeout of FTP 0 at the start (first 3 s, {b0} kB)",
                     paper="drops > 0, timeouts >= 1",
                     ccsim=f"drops {ecn['drops']}, timeouts {ecn['timeouts']}",
                     ok=ecn["drops"] > 0 and ecn["timeouts"] >= 1, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    return plot_six_schemes(a, out_dir, ID, "GWA paper §6.1 (LAN): Fig 4 (rows 1-2), Fig 5 (row 3), Fig 6 at "
                            f"{PAPER['transient_buffer_kB']} kB (rows 4-5)" + (" [quick]" if quick else ""),
                            insert_s=0.1)
