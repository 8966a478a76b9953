"""DCTCP in Python: the built-in ``dctcp`` (RFC 8257) hook for hook.

The sender keeps alpha, an EWMA (gain g) of the fraction of its data the
network CE-marked, updated once per window of data (§3.3), and answers an
ECN echo with ssthresh = cwnd (1 - alpha/2) (``ssthresh_ecn``); a loss
halves the flight as Reno does (§3.4). It declares ECN as required with
the receiver's per-segment echo (§3.2), so its flows get ``ecn = true``
and ``ecn_feedback = "dctcp"`` without naming them.
"""

from ccsim import Controller
from ccsim.controller import cong_avoid_ai, slow_start_units


class Dctcp(Controller):
    """DCTCP (RFC 8257), written in Python."""

    params = {
        "g": (1.0 / 16.0, "EWMA gain of alpha (RFC 8257 §4.2: 1/16)"),
        "init_alpha": (1.0, "alpha before its first update (Linux: 1)"),
        "abc": (True, "count segments acked (RFC 3465), as Linux does"),
    }
    ecn = {"required": True, "feedback": "dctcp"}

    def __init__(self, **params):
        super().__init__(**params)
        if not 0.0 < self.g <= 1.0:
            raise ValueError(f"g = {self.g} is not allowed; must be in (0, 1]")
        # alpha exists from the start: the flow series reads it before any ACK
        self.alpha = float(self.init_alpha)
        self.acked = 0
        self.marked = 0
        self.window_end = None

    def cong_avoid(self, s, acked):
        n = slow_start_units(self.abc, s, acked)
        if n > 0:
            cong_avoid_ai(s, s.cwnd, n)

    def ssthresh(self, s):
        return max(s.flight / 2.0, 2.0)

    def ssthresh_ecn(self, s):
        return max(s.cwnd * (1.0 - self.alpha / 2.0), 2.0)

    def on_ack(self, s, ack):
        self.acked += ack.acked
        self.marked += ack.ce
        if self.window_end is None:
            self.window_end = ack.snd_nxt
        elif ack.una > self.window_end:
            f = self.marked / self.acked if self.acked > 0 else 0.0
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f
            self.acked = 0
            self.marked = 0
            self.window_end = ack.snd_nxt

    def ecn_alpha(self):
        return self.alpha
