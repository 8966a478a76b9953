"""Two simulators' runs of one scenario over several seeds, compared per
metric: the means, seed standard deviations, Welch's t of the difference
(ccsim - ns-2) and, where seed k of one pairs with seed k of the other
(both draw from the same stream), the paired t of the seed-by-seed
differences. Shared by ``validation.ns2_baselines --stats`` and
``validation.gwa_compare --spread``."""
from __future__ import annotations

import math
import statistics
from typing import Dict, List


def compare(a: List[float], b: List[float]) -> Dict[str, float]:
    """``a``: ns-2's value per seed, ``b``: ccsim's (same seeds, same
    order). A t is 0 where its standard error is (identical runs)."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    sa = statistics.stdev(a) if len(a) > 1 else 0.0
    sb = statistics.stdev(b) if len(b) > 1 else 0.0
    se = math.sqrt(sa ** 2 / len(a) + sb ** 2 / len(b))
    out = {"ns2_mean": ma, "ns2_sd": sa, "ccsim_mean": mb, "ccsim_sd": sb,
           "welch_t": (mb - ma) / se if se > 0 else 0.0}
    if len(a) == len(b) and len(a) > 1:
        d = [y - x for x, y in zip(a, b)]
        sd_d = statistics.stdev(d)
        out["paired_t"] = statistics.fmean(d) / (sd_d / math.sqrt(len(d))) if sd_d > 0 else 0.0
    return out
