"""Reno in Python: the built-in ``reno`` (RFC 5681 §3.1) hook for hook.

Slow start, then +1 segment per RTT; on a congestion event ssthresh is
half the flight, at least 2 segments (RFC 5681 eq. 4). Counting is one
unit per ACK (ns-2's ``opencwnd``) unless ``abc`` (RFC 3465, as Linux).
Run beside the built-in it gives identical results, event for event
(tests/test_py_controllers.py). Use it as ``cc = "reno:Reno"`` with this
directory as the working directory, or ``cc = "examples/controllers/reno.py:Reno"``.
"""

from ccsim import Controller
from ccsim.controller import cong_avoid_ai, slow_start_units


class Reno(Controller):
    """Reno window rules (RFC 5681), written in Python."""

    params = {"abc": (False, "count segments acked (RFC 3465) instead of ACKs (ns-2)")}

    def cong_avoid(self, s, acked):
        n = slow_start_units(self.abc, s, acked)
        if n > 0:
            cong_avoid_ai(s, s.cwnd, n)

    def ssthresh(self, s):
        return max(s.flight / 2.0, 2.0)
