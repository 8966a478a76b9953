"""CUBIC in Python: the built-in ``cubic`` (RFC 9438 §4) hook for hook,
without HyStart (``hystart = false``, the built-in's default).

The window follows W_cubic(t) = C (t - K)^3 + W_max from the start of each
congestion-avoidance stage (§4.2), aiming one RTT ahead and clamped to
[cwnd, 1.5 cwnd] (§4.4-4.5), never below the Reno-friendly estimate W_est
(§4.3); a congestion event keeps beta of the flight and sets W_max with
fast convergence (§4.6-4.7); after an RTO the next stage starts with K = 0
(§4.8). The cube root is the engine's (``ccsim.controller.cbrt``) and the
cube is (t - K) * ((t - K) * (t - K)), the built-in's order of roundings.
"""

from ccsim import Controller
from ccsim.controller import cbrt, slow_start_units


def w_cubic(t, k, w_max, c):
    d = t - k
    return c * (d * (d * d)) + w_max


class Cubic(Controller):
    """CUBIC (RFC 9438) without HyStart, written in Python."""

    params = {
        "c": (0.4, "C in segments/s^3"),
        "beta": (0.7, "beta_cubic: fraction of the window retained"),
        "fast_convergence": (True, "W_max = cwnd(1+beta)/2 below W_max"),
        "tcp_friendly": (True, "Reno-friendly region (W_est)"),
        "alpha_switch": (True, "W_est's alpha becomes 1 at cwnd_prior (RFC 9438); false: RFC 8312, Linux, ns-3"),
        "abc": (False, "count segments acked (RFC 3465) instead of ACKs (ns-2)"),
        "cnt_clamp": (0.0, "before the first loss, >= 1/cnt_clamp segment per unit (Linux, ns-3: 20); 0 = off"),
    }

    def init(self, s):
        self.w_max = 0.0
        self.cwnd_prior = 0.0
        self.after_rto = False
        self.had_loss = False
        self.epoch = None  # (start_s, k, w_est)

    def _start_epoch(self, s):
        if self.after_rto or s.cwnd >= self.w_max:
            self.w_max = s.cwnd
            k = 0.0
        else:
            k = cbrt(max(self.w_max - s.cwnd, 0.0) / self.c)
        self.after_rto = False
        return [s.now_s, k, s.cwnd]

    def cong_avoid(self, s, acked):
        n = slow_start_units(self.abc, s, acked)
        if n == 0:
            return
        e = self.epoch if self.epoch is not None else self._start_epoch(s)
        before = s.cwnd
        start_s, k, w_est = e
        t = s.now_s - start_s
        rtt = s.srtt_s if s.srtt_s is not None else 0.0
        w = max(s.cwnd, 1.0)
        target = min(max(w_cubic(t + rtt, k, self.w_max, self.c), w), 1.5 * w)
        if self.alpha_switch and w_est >= self.cwnd_prior:
            a = 1.0
        else:
            a = 3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        w_est += a * n / w
        if self.tcp_friendly and w_cubic(t, k, self.w_max, self.c) < w_est:
            s.cwnd = max(s.cwnd, w_est)
        else:
            s.cwnd = min(s.cwnd + n * (target - w) / w, max(target, s.cwnd))
        if self.cnt_clamp > 0.0 and not self.had_loss:
            s.cwnd = max(s.cwnd, before + n / self.cnt_clamp)
        e[2] = w_est
        self.epoch = e

    def ssthresh(self, s):
        w = s.cwnd
        if self.fast_convergence and w < self.w_max:
            self.w_max = w * (1.0 + self.beta) / 2.0
        else:
            self.w_max = w
        self.cwnd_prior = w
        self.had_loss = True
        self.epoch = None
        return max(s.flight * self.beta, 2.0)

    def cwnd_event(self, s, event):
        if event == "timeout":
            self.after_rto = True
            self.epoch = None
