"""A Gymnasium environment for learned congestion controllers.

One flow of a dumbbell (flow 0, "the agent's flow") takes its congestion
window or its pacing rate from the agent, once per *monitor interval* (MI:
the flow's smoothed RTT, or a set time). Between two steps ccsim simulates
the MI at full speed in-process (no sockets, no second process: the
agent's flow runs a Python controller, ``ccsim.Controller``, that applies
the agent's last action on every ACK and counts what the ACKs report).
Other flows, the *cross traffic*, run built-in controllers.

Observation (``history`` MIs, newest last, ``N_FEATURES`` each; the
features of Aurora, Jay et al., ICML 2019, §4, plus loss and ECN):

====  ====================  ===================================================
 #    feature               definition over one MI
====  ====================  ===================================================
 0    latency gradient      slope of the RTT samples against time (s/s), in [-1, 1]
 1    latency ratio         mean RTT / smallest RTT of the episode, in [1, 10]
 2    sending ratio         segments sent / segments delivered, in [0, 10]
 3    loss fraction         segments marked lost / (delivered + lost)
 4    ECN fraction          CE-marked segments / delivered (with ECN flows)
 5    delivery rate         delivery rate / the largest of the episode, in [0, 1]
====  ====================  ===================================================

An MI without an ACK repeats the sending ratio of 10 when something was
sent (the path is stalled), else 1, and zeros.

Action (``Box(-1, 1)``): with ``action_scale = "multiplicative"`` (the
default) the window (``action = "cwnd"``) or rate (``"rate"``) is
multiplied by ``max_change ** a`` (``max_change`` 2: at most doubled or
halved per MI, Aurora's rate update in symmetric form); with
``"absolute"`` the action maps linearly onto ``[min, max]`` of
``cwnd_range_pkts`` or ``rate_range_bps``. A window-controlled flow is not
paced; a rate-controlled flow paces at its rate with a window of twice its
rate times the RTT (at least 4 segments).

Reward (per MI; ``reward_weights = (throughput, delay, loss)``):
``w_t * delivery_rate / bottleneck_rate - w_d * (mean RTT / base RTT - 1)
- w_l * loss fraction``, or ``reward = callable(info)``.

Episodes: ``reset`` draws a scenario from ``ScenarioRanges`` (bottleneck
rate log-uniform, base RTT and buffer in BDPs uniform, the number of cross
flows and their controllers, Bernoulli loss), from the environment's seeded
generator: ``reset(seed=s)`` followed by the same actions gives the same
episode, observation for observation. An episode ends (``terminated``) at
``ScenarioRanges.duration_s`` of simulated time.

``make_vec(n)`` runs ``n`` environments in worker processes
(``gymnasium.vector.AsyncVectorEnv``), one per core by default.
"""

from __future__ import annotations

import json
import math
import os
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError("ccsim.gym needs the gymnasium package: pip install gymnasium") from exc
import numpy as np

from ._native import UserError, core
from .controller import Controller, register_controller

__all__ = ["CcEnv", "ScenarioRanges", "make_vec", "N_FEATURES", "FEATURES"]

FEATURES = ("latency_gradient", "latency_ratio", "sending_ratio", "loss_fraction", "ecn_fraction",
            "delivery_rate")
N_FEATURES = len(FEATURES)
_LOW = np.array([-1.0, 1.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
_HIGH = np.array([1.0, 10.0, 10.0, 1.0, 1.0, 1.0], dtype=np.float32)

#: The name the agent's controller is registered under in each process.
AGENT_CC = "ccsim-gym-agent"
_ENVS: "weakref.WeakValueDictionary[int, CcEnv]" = weakref.WeakValueDictionary()
_MSS, _HDR = 1460, 40


@dataclass(frozen=True)
class ScenarioRanges:
    """What ``reset`` draws an episode's dumbbell from (pairs are
    ``(low, high)``; equal ends fix a value)."""

    #: Bottleneck rate, bits per second (drawn log-uniformly).
    rate_bps: Tuple[float, float] = (10e6, 100e6)
    #: Base round-trip time of every flow, seconds.
    rtt_s: Tuple[float, float] = (0.02, 0.1)
    #: Bottleneck buffer in bandwidth-delay products (at least 2 packets).
    buffer_bdp: Tuple[float, float] = (0.5, 2.0)
    #: Number of cross-traffic flows (integers, inclusive).
    cross_flows: Tuple[int, int] = (0, 2)
    #: Their controllers, one drawn per flow.
    cross_cc: Tuple[str, ...] = ("cubic", "reno", "bbr")
    #: Bernoulli loss on the bottleneck.
    loss: Tuple[float, float] = (0.0, 0.0)
    #: Queue discipline of the bottleneck (``droptail``, ``fq_codel``, ...).
    queue: str = "droptail"
    #: Simulated seconds per episode.
    duration_s: float = 10.0

    def check(self) -> None:
        def pair(name: str, lo_min: float) -> None:
            v = getattr(self, name)
            if len(v) != 2 or not (lo_min <= v[0] <= v[1]):
                raise UserError(f"ScenarioRanges.{name}: {v!r} is not allowed; must be (low, high) with "
                                f"{lo_min} <= low <= high")
        pair("rate_bps", 1e3)
        pair("rtt_s", 1e-4)
        pair("buffer_bdp", 0.0)
        pair("cross_flows", 0)
        pair("loss", 0.0)
        if self.loss[1] >= 1.0:
            raise UserError(f"ScenarioRanges.loss: {self.loss!r} is not allowed; must be below 1")
        if self.cross_flows[1] > 0 and not self.cross_cc:
            raise UserError("ScenarioRanges.cross_cc: empty; cross flows need at least one controller")
        if not self.duration_s > 0:
            raise UserError(f"ScenarioRanges.duration_s: {self.duration_s!r} is not allowed; must be > 0")


@dataclass
class _Interval:
    """What one MI's ACKs reported (the agent controller adds to it)."""

    delivered: int = 0
    lost: int = 0
    ce: int = 0
    acks: int = 0
    in_flight_start: Optional[int] = None
    in_flight: int = 0
    rtt_n: int = 0
    rtt_sum: float = 0.0
    t_sum: float = 0.0
    tt_sum: float = 0.0
    trtt_sum: float = 0.0
    rtt_min: float = math.inf
    srtt_s: Optional[float] = None
    cwnd: float = 0.0
    extra: Dict[str, Any] = field(default_factory=dict)


class _Agent(Controller):
    """The agent's flow: the environment's last action on every ACK."""

    params = {"env": (0, "the id of the CcEnv that drives this flow")}

    def cong_control(self, s, rs):
        env = _ENVS.get(self.env)
        if env is None:
            return None
        mi = env._mi
        if mi.in_flight_start is None:
            mi.in_flight_start = rs.prior_in_flight
        mi.acks += 1
        mi.delivered += rs.acked_sacked
        mi.lost += rs.losses
        mi.ce += rs.ece_delta
        mi.in_flight = rs.in_flight
        if rs.rtt_s is not None:
            t, r = s.now_s, rs.rtt_s
            mi.rtt_n += 1
            mi.rtt_sum += r
            mi.t_sum += t
            mi.tt_sum += t * t
            mi.trtt_sum += t * r
            mi.rtt_min = min(mi.rtt_min, r)
        mi.srtt_s = s.srtt_s
        if env.action_kind == "cwnd":
            s.cwnd = env._cwnd
            s.pacing_rate = 0.0
        else:
            rtt = s.srtt_s if s.srtt_s is not None else env._base_rtt
            s.pacing_rate = env._rate / 8.0 * _MSS / (_MSS + _HDR)
            s.cwnd = max(4.0, 2.0 * env._rate / 8.0 * rtt / (_MSS + _HDR))
        mi.cwnd = s.cwnd
        return None


class CcEnv(gymnasium.Env):
    """One flow's congestion control as a Gymnasium environment (see the
    module's doc for the observation, action, reward and episodes)."""

    metadata = {"render_modes": []}

    def __init__(self, ranges: Optional[ScenarioRanges] = None, action: str = "cwnd",
                 action_scale: str = "multiplicative", max_change: float = 2.0,
                 cwnd_range_pkts: Tuple[float, float] = (2.0, 10000.0),
                 rate_range_bps: Tuple[float, float] = (1e5, 10e9),
                 monitor_interval: Any = "rtt", history: int = 10,
                 reward_weights: Tuple[float, float, float] = (1.0, 1.0, 10.0),
                 reward: Optional[Callable[[Dict[str, Any]], float]] = None,
                 render_mode: Optional[str] = None) -> None:
        self.ranges = ranges or ScenarioRanges()
        self.ranges.check()
        if action not in ("cwnd", "rate"):
            raise UserError(f"action: {action!r} is not allowed; allowed: cwnd, rate")
        if action_scale not in ("multiplicative", "absolute"):
            raise UserError(f"action_scale: {action_scale!r} is not allowed; allowed: multiplicative, absolute")
        if not max_change > 1.0:
            raise UserError(f"max_change: {max_change!r} is not allowed; must be > 1")
        if monitor_interval != "rtt" and not (isinstance(monitor_interval, (int, float)) and monitor_interval > 0):
            raise UserError(f"monitor_interval: {monitor_interval!r} is not allowed; must be \"rtt\" or seconds > 0")
        if not (isinstance(history, int) and history >= 1):
            raise UserError(f"history: {history!r} is not allowed; must be an integer >= 1")
        for name, (lo, hi) in (("cwnd_range_pkts", cwnd_range_pkts), ("rate_range_bps", rate_range_bps)):
            if not 0 < lo < hi:
                raise UserError(f"{name}: {(lo, hi)!r} is not allowed; must be (low, high) with 0 < low < high")
        if render_mode is not None:
            raise UserError(f"render_mode: {render_mode!r} is not allowed; this environment does not render")
        self.action_kind, self.action_scale, self.max_change = action, action_scale, float(max_change)
        self.cwnd_range, self.rate_range = cwnd_range_pkts, rate_range_bps
        self.monitor_interval, self.history = monitor_interval, history
        self.reward_weights, self.reward_fn = reward_weights, reward
        self.render_mode = None
        self.observation_space = spaces.Box(np.tile(_LOW, (history, 1)), np.tile(_HIGH, (history, 1)),
                                            dtype=np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
        _ensure_agent_registered()
        _ENVS[id(self)] = self
        self._sim = None
        self._mi = _Interval()

    # -- episodes -------------------------------------------------------------

    def _draw(self) -> Dict[str, Any]:
        r, g = self.ranges, self.np_random
        lo, hi = r.rate_bps
        rate = float(math.exp(g.uniform(math.log(lo), math.log(hi)))) if hi > lo else float(lo)
        rtt = float(g.uniform(*r.rtt_s))
        bdp_pkts = rate * rtt / (8 * (_MSS + _HDR))
        buffer = max(2, int(round(bdp_pkts * float(g.uniform(*r.buffer_bdp)))))
        n_cross = int(g.integers(r.cross_flows[0], r.cross_flows[1] + 1))
        loss = float(g.uniform(*r.loss))
        # the one-way delay of the bottleneck, the rest on the edges (rtt_s)
        flow = {"mss_bytes": _MSS, "header_bytes": _HDR, "rtt_s": round(rtt, 9)}
        flows = [dict(flow, cc=AGENT_CC, cc_params={"env": id(self)})]
        for _ in range(n_cross):
            flows.append(dict(flow, cc=str(r.cross_cc[int(g.integers(len(r.cross_cc)))]),
                              start_s=round(float(g.uniform(0, r.duration_s / 4)), 6)))
        self._rate_bps, self._base_rtt, self._buffer = rate, rtt, buffer
        return {
            "name": "ccsim-gym",
            "seed": int(g.integers(2**31)),
            "duration_s": r.duration_s,
            "sample_interval_s": 0,
            "topology": {"kind": "dumbbell", "bottleneck_rate_bps": rate, "bottleneck_delay_s": min(0.001, rtt / 4),
                         "bottleneck_loss": loss,
                         "bottleneck_queue": {"kind": r.queue, "limit_pkts": buffer}},
            "flows": flows,
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        self.scenario = self._draw()
        try:
            self._sim = core().Simulation(json.dumps(self.scenario))
        except ValueError as exc:
            raise UserError(str(exc)) from None
        self._cwnd = 10.0
        self._rate = self._rate_bps / 4
        self._rtt_min_ep = math.inf
        self._max_delivery = 0.0
        self._obs = np.tile(np.array([0.0, 1.0, 1.0, 0.0, 0.0, 0.0], dtype=np.float32), (self.history, 1))
        self._mi = _Interval()
        self._t = 0.0
        return self._obs.copy(), {"scenario": self.scenario}

    def step(self, action):
        if self._sim is None:
            raise RuntimeError("step() before reset()")
        a = float(np.clip(np.asarray(action, dtype=np.float64).reshape(-1)[0], -1.0, 1.0))
        self._apply(a)
        start = self._t
        mi = self.monitor_interval if self.monitor_interval != "rtt" else (self._mi.srtt_s or self._base_rtt)
        end = min(start + max(float(mi), 1e-4), self.ranges.duration_s)
        self._mi = _Interval(srtt_s=self._mi.srtt_s)
        self._sim.run_until(end)
        self._t = end
        features, info = self._features(end - start)
        self._obs = np.vstack([self._obs[1:], features[None, :]])
        reward = float(self.reward_fn(info) if self.reward_fn else self._reward(info))
        terminated = end >= self.ranges.duration_s - 1e-12
        return self._obs.copy(), reward, terminated, False, info

    def close(self) -> None:
        self._sim = None

    # -- actions, observations, rewards ----------------------------------------

    def _apply(self, a: float) -> None:
        if self.action_kind == "cwnd":
            lo, hi = self.cwnd_range
            if self.action_scale == "multiplicative":
                self._cwnd = min(max(self._cwnd * self.max_change ** a, lo), hi)
            else:
                self._cwnd = lo + (a + 1.0) / 2.0 * (hi - lo)
        else:
            lo, hi = self.rate_range
            if self.action_scale == "multiplicative":
                self._rate = min(max(self._rate * self.max_change ** a, lo), hi)
            else:
                self._rate = lo + (a + 1.0) / 2.0 * (hi - lo)

    def _features(self, dt: float) -> Tuple[np.ndarray, Dict[str, Any]]:
        mi = self._mi
        seg = _MSS + _HDR
        start = mi.in_flight_start if mi.in_flight_start is not None else mi.in_flight
        sent = max(mi.delivered + mi.lost + mi.in_flight - start, 0)
        if mi.rtt_n:
            self._rtt_min_ep = min(self._rtt_min_ep, mi.rtt_min)
        mean_rtt = mi.rtt_sum / mi.rtt_n if mi.rtt_n else None
        var_t = mi.tt_sum / mi.rtt_n - (mi.t_sum / mi.rtt_n) ** 2 if mi.rtt_n > 1 else 0.0
        grad = ((mi.trtt_sum / mi.rtt_n - (mi.t_sum / mi.rtt_n) * mean_rtt) / var_t
                if mi.rtt_n > 1 and var_t > 1e-18 else 0.0)
        delivery_bps = mi.delivered * seg * 8 / dt if dt > 0 else 0.0
        send_bps = sent * seg * 8 / dt if dt > 0 else 0.0
        self._max_delivery = max(self._max_delivery, delivery_bps)
        if mi.delivered:
            sending_ratio = sent / mi.delivered
        else:
            sending_ratio = 10.0 if sent else 1.0
        f = np.array([
            grad,
            mean_rtt / self._rtt_min_ep if mean_rtt else 1.0,
            sending_ratio,
            mi.lost / (mi.delivered + mi.lost) if mi.delivered + mi.lost else 0.0,
            mi.ce / mi.delivered if mi.delivered else 0.0,
            delivery_bps / self._max_delivery if self._max_delivery > 0 else 0.0,
        ])
        f = np.clip(f, _LOW, _HIGH).astype(np.float32)
        info = {
            "time_s": self._t, "interval_s": dt, "send_rate_bps": send_bps, "delivery_rate_bps": delivery_bps,
            "rtt_min_s": mi.rtt_min if mi.rtt_n else None, "rtt_mean_s": mean_rtt, "rtt_gradient": grad,
            "delivered_pkts": mi.delivered, "lost_pkts": mi.lost, "ce_pkts": mi.ce, "acks": mi.acks,
            "cwnd_pkts": self._cwnd if self.action_kind == "cwnd" else mi.cwnd,
            "rate_bps": self._rate if self.action_kind == "rate" else None,
            "bottleneck_rate_bps": self._rate_bps, "base_rtt_s": self._base_rtt, "buffer_pkts": self._buffer,
        }
        return f, info

    def _reward(self, info: Dict[str, Any]) -> float:
        wt, wd, wl = self.reward_weights
        thr = info["delivery_rate_bps"] / self._rate_bps
        delay = (info["rtt_mean_s"] / self._base_rtt - 1.0) if info["rtt_mean_s"] else 0.0
        lost, got = info["lost_pkts"], info["delivered_pkts"]
        loss = lost / (lost + got) if lost + got else 0.0
        return wt * thr - wd * delay - wl * loss


def _ensure_agent_registered() -> None:
    names = {e["name"] for e in json.loads(core().catalog())["controllers"]}
    if AGENT_CC not in names:
        register_controller(AGENT_CC, _Agent)


def make_vec(num_envs: Optional[int] = None, asynchronous: bool = True, **kwargs: Any):
    """``num_envs`` environments (default one per core) stepped together:
    in worker processes (``gymnasium.vector.AsyncVectorEnv``), or in this
    one with ``asynchronous = False``. ``kwargs`` go to :class:`CcEnv`."""
    n = num_envs or os.cpu_count() or 1
    if n < 1:
        raise UserError(f"num_envs: {num_envs!r} is not allowed; must be >= 1")
    fns = [lambda: CcEnv(**kwargs) for _ in range(n)]
    if asynchronous:
        return gymnasium.vector.AsyncVectorEnv(fns)
    return gymnasium.vector.SyncVectorEnv(fns)


gymnasium.register(id="ccsim/CongestionControl-v0", entry_point="ccsim.gym:CcEnv")
