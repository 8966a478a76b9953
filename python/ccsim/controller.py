"""Congestion controllers written in Python.

A controller is a subclass of :class:`Controller` whose methods are the
hooks of Linux's ``struct tcp_congestion_ops``, under their Linux names.
The engine calls the hooks a class overrides, and only those, with the
flow's state ``s`` (a ``FlowState``): ``cwnd``, ``ssthresh`` and
``pacing_rate`` may be set, everything else is read-only (``now_s``,
``flight``, ``srtt_s``, ``min_rtt_s``, ``mss_bytes``, ``max_cwnd``, ...).
Windows are in segments, as floats.

======================  ==========================  ==========================================
hook                    Linux                       when
======================  ==========================  ==========================================
``init(s)``             ``init``                    before the flow's first other hook
``cong_avoid(s, n)``    ``cong_avoid``              an ACK of ``n`` new segments outside recovery
``ssthresh(s)``         ``ssthresh``                a congestion event: return the new ssthresh
``ssthresh_ecn(s)``     ``ssthresh`` in CWR         an ECN echo, once per window (default: ``ssthresh``)
``pkts_acked(s,n,rtt)`` ``pkts_acked``              every ACK of new data, with its RTT sample (s)
``on_ack(s, ack)``      ``in_ack_event``            every ACK (``ack.acked, ece, ce, una, snd_nxt``)
``cwnd_event(s, ev)``   ``cwnd_event``/``set_state`` ``"recovery_start"``, ``"recovery_end"``,
                        /``undo_cwnd``              ``"timeout"``, ``"loss_end"``, ``"ecn_echo"``,
                                                    ``"cwr_end"``, ``"tx_start"``, ``"undo"``
``cong_control(s, rs)`` ``cong_control``            every ACK with its delivery-rate sample; the
                                                    controller sets cwnd and ``pacing_rate`` itself
======================  ==========================  ==========================================

``ecn_alpha()`` (optional) reports an estimate of the marked fraction for
the flow series (DCTCP's alpha). Linux's ``undo_cwnd`` has no counterpart:
ccsim's TCP does not undo spurious recoveries.

A class declares what it needs, so the engine's defaults, validation,
``ccsim list`` and ``ccsim fuzz`` pick it up:

* ``params``: ``{name: (default, doc)}``; a flow's ``cc_params`` are
  checked against it (unknown keys, wrong types) and the instance gets
  every parameter as an attribute, given or default.
* ``ecn``: ``None``, or ``{"required": True, "ect": "ect1", "feedback":
  "dctcp" | "accecn", "feedback_required": True}`` (an ECN scheme: ``ecn``
  defaults to true and must be; the codepoint and the receiver's echo it
  reads).
* a class with ``cong_control`` is rate-paced: its flows default to
  ``pacing = "rate"`` and allow no other.

Register a class by name, or name it in a scenario as ``"module:Class"``
(imported on first use, with the working directory on ``sys.path``), which
is how sweep workers and Dask workers find it::

    class MyCC(ccsim.Controller):
        params = {"beta": (0.5, "fraction of the window kept on loss")}

        def cong_avoid(self, s, acked):
            n = ccsim.controller.slow_start(s, acked)
            if n:
                ccsim.controller.cong_avoid_ai(s, s.cwnd, n)

        def ssthresh(self, s):
            return max(s.flight * self.beta, 2.0)

    ccsim.register_controller("mycc", MyCC)

An exception in a hook stops the run with :class:`ControllerError`, whose
message names the controller, the flow, the simulated time and the hook,
and whose ``__cause__`` is the exception with its traceback.

The helpers below are the engine's own window arithmetic (``slow_start``,
``cong_avoid_ai``, ...), written so that their floating-point operations
are the engine's, in the same order: a controller written with them gives
results identical to the built-in it copies (examples/controllers/).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
from typing import Any, Dict, Optional, Tuple, Type

from ._native import UserError, core

__all__ = [
    "Controller",
    "ControllerError",
    "register_controller",
    "slow_start",
    "cong_avoid_ai",
    "ack_units",
    "slow_start_units",
    "cbrt",
    "HOOKS",
]

#: The methods the engine calls when a class overrides them.
HOOKS = ("init", "cong_avoid", "ssthresh", "ssthresh_ecn", "pkts_acked", "on_ack", "cwnd_event",
         "cong_control", "ecn_alpha")

_ECN_KEYS = {"required": bool, "ect": str, "feedback": str, "feedback_required": bool}
_ECN_VALUES = {"ect": ("ect0", "ect1"), "feedback": ("rfc3168", "dctcp", "accecn")}


def __getattr__(name: str) -> Any:
    # ControllerError lives in the compiled engine, imported on first use.
    if name == "ControllerError":
        return core().ControllerError
    raise AttributeError(name)


class Controller:
    """Base class of a Python congestion controller (see the module's doc).

    ``__init__`` receives the flow's parameters (every declared one, the
    flow's value or the default) as keywords and sets them as attributes.
    """

    #: ``{name: (default, doc)}``: the parameters a flow may set in ``cc_params``.
    params: Dict[str, Tuple[Any, str]] = {}
    #: What the controller needs of ECN (see the module's doc); ``None``: nothing.
    ecn: Optional[Dict[str, Any]] = None

    def __init__(self, **params: Any) -> None:
        for k, v in params.items():
            setattr(self, k, v)

    def init(self, s) -> None:
        """Before the flow's first other hook."""

    def cong_avoid(self, s, acked: int) -> None:
        """Grow ``s.cwnd`` for ``acked`` newly acknowledged segments."""

    def ssthresh(self, s) -> float:
        """The new ssthresh after a congestion event (fast retransmit, RTO)."""
        return s.ssthresh

    def ssthresh_ecn(self, s) -> float:
        """The new ssthresh at an ECN echo (default: :meth:`ssthresh`)."""
        return self.ssthresh(s)

    def pkts_acked(self, s, acked: int, rtt_s: Optional[float]) -> None:
        """Every ACK of new data, with its RTT sample in seconds."""

    def on_ack(self, s, ack) -> None:
        """Every ACK: ``ack.acked``, ``ack.ece``, ``ack.ce``, ``ack.una``, ``ack.snd_nxt``."""

    def cwnd_event(self, s, event: str) -> None:
        """A state change or event: ``"recovery_start"``, ``"recovery_end"``,
        ``"timeout"``, ``"loss_end"`` (the window of a timeout acknowledged),
        ``"ecn_echo"``, ``"cwr_end"``, ``"tx_start"`` (a send after idle;
        rate-paced controllers only), ``"undo"`` (a reduction proven
        spurious was taken back, ``tcp_model = "linux"`` with ``undo``; cwnd
        is already restored unless the controller has ``cong_control``)."""

    def cong_control(self, s, rs) -> Optional[bool]:
        """Every ACK with its rate sample ``rs``; set ``s.cwnd`` and
        ``s.pacing_rate``. Return True to mark what is sent from now
        app-limited until the data in flight is delivered (BBR's ProbeRTT)."""
        return None

    def ecn_alpha(self) -> Optional[float]:
        """The controller's estimate of the marked fraction, for the flow series."""
        return None


def _declare(cls: Any) -> str:
    """The declaration the engine registers ``cls`` with (JSON)."""
    where = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, Controller)):
        raise UserError(f"{where}: a controller must be a subclass of ccsim.Controller")
    hooks = [h for h in HOOKS if getattr(cls, h) is not getattr(Controller, h)]
    if "cong_control" not in hooks:
        missing = [h for h in ("cong_avoid", "ssthresh") if h not in hooks]
        if missing:
            raise UserError(f"{where}: a controller without cong_control must define {' and '.join(missing)}")
    params = []
    if not isinstance(cls.params, dict):
        raise UserError(f"{where}.params: must be a dict of name -> (default, doc), got {type(cls.params).__name__}")
    for name, spec in cls.params.items():
        default, doc = spec if isinstance(spec, tuple) and len(spec) == 2 else (spec, "")
        if not isinstance(name, str) or not name.isidentifier():
            raise UserError(f"{where}.params: {name!r} is not allowed as a name; must be an identifier")
        if not isinstance(default, (bool, int, float, str)) or (isinstance(default, float) and not math.isfinite(default)):
            raise UserError(f"{where}.params.{name}: default {default!r} is not allowed; must be a finite number, "
                            "a bool or a string")
        params.append([name, default, str(doc)])
    ecn = cls.ecn
    if ecn is not None:
        if not isinstance(ecn, dict):
            raise UserError(f"{where}.ecn: must be None or a dict, got {type(ecn).__name__}")
        for k, v in ecn.items():
            if k not in _ECN_KEYS:
                raise UserError(f"{where}.ecn: unknown key {k!r}; allowed: {', '.join(_ECN_KEYS)}")
            if not isinstance(v, _ECN_KEYS[k]):
                raise UserError(f"{where}.ecn.{k}: {v!r} is not allowed; must be a {_ECN_KEYS[k].__name__}")
            if k in _ECN_VALUES and v not in _ECN_VALUES[k]:
                raise UserError(f"{where}.ecn.{k}: {v!r} is not allowed; allowed: {', '.join(_ECN_VALUES[k])}")
    doc = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    return json.dumps({"doc": doc or f"Python controller {where}", "params": params,
                       "pacing_rate": "cong_control" in hooks, "ecn": ecn, "hooks": hooks})


#: Classes registered by name in this process ({name: class}).
_REGISTERED: Dict[str, type] = {}


def register_controller(name: str, cls: Type[Controller]) -> None:
    """Make ``cls`` the controller flows name with ``cc = name``.

    Registering a name again replaces the class (for a notebook's edits);
    a built-in's name is refused. The registration lives in this process
    and in the worker processes it forks; elsewhere (Dask workers, spawned
    processes) name the class as ``"module:Class"`` instead.
    """
    decl = _declare(cls)
    try:
        core().register_controller(name, cls, decl)
    except ValueError as exc:
        raise UserError(f"register_controller({name!r}): {exc}") from None
    _REGISTERED[name] = cls


def source_file(name: str) -> Optional[str]:
    """The file that defines the Python controller ``name`` (registered, or
    ``"module:Class"``, or ``"file.py:Class"``); None for a built-in, or a
    class defined where no file holds it (a notebook cell)."""
    if name in _REGISTERED:
        try:
            return inspect.getsourcefile(_REGISTERED[name])
        except TypeError:
            return None
    module, _, attr = name.rpartition(":")
    if not module or not attr:
        return None
    if module.endswith(".py"):
        return os.path.abspath(module)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.origin not in (None, "built-in", "frozen") else None


def fingerprint(name: str) -> Optional[str]:
    """sha256 of the source file of Python controller ``name`` (see
    :func:`source_file`), or None: a sweep's run key holds it, so an edited
    controller is run again rather than read from the cache."""
    import hashlib

    path = source_file(name)
    if path is None or not os.path.isfile(path):
        return None
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _resolve(name: str) -> Tuple[type, str]:
    """``"module:Class"`` or ``"path/to/file.py:Class"`` as (class,
    declaration): the engine's resolver for names nobody registered."""
    module, _, attr = name.rpartition(":")
    if not module or not attr:
        raise ValueError("a controller named by its class must be \"module:Class\" or \"file.py:Class\"")
    if module.endswith(".py") and not os.path.isfile(os.path.abspath(module)):
        # a Dask worker: the sweep uploaded the file, which made it a module
        # of its base name (``distributed.Client.upload_file``)
        base = os.path.splitext(os.path.basename(module))[0]
        try:
            mod = importlib.import_module(base)
        except ImportError:
            raise FileNotFoundError(f"no file {module} (from the working directory {os.getcwd()})") from None
    elif module.endswith(".py"):
        path = os.path.abspath(module)
        modname = "ccsim_controller_" + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.append(os.getcwd())
        mod = importlib.import_module(module)
    try:
        cls = getattr(mod, attr)
    except AttributeError:
        raise AttributeError(f"module {module} has no class {attr}") from None
    return cls, _declare(cls)


# ---------------------------------------------------------------------------
# the engine's window arithmetic (transport/cc/mod.rs), operation for operation
# ---------------------------------------------------------------------------


def slow_start(s, acked: int) -> int:
    """Slow start (RFC 5681 §3.1): +1 segment per acked segment up to
    ssthresh; returns the acked segments left for congestion avoidance
    (Linux ``tcp_slow_start``)."""
    room = max(s.ssthresh - s.cwnd, 0.0)
    used = min(float(acked), float(math.ceil(room)))
    s.cwnd = min(s.cwnd + used, max(s.ssthresh, s.cwnd))
    return acked - int(used)


def cong_avoid_ai(s, w: float, acked: int) -> None:
    """Additive increase of ``acked / w`` segments (Linux
    ``tcp_cong_avoid_ai``, RFC 5681 eq. 3)."""
    s.cwnd += acked / max(w, 1.0)


def ack_units(abc: bool, s, acked: int) -> int:
    """Increase units of one ACK: one per ACK (ns-2's ``opencwnd``), or with
    ``abc`` the segments acknowledged, at most 2 in slow start (RFC 3465)."""
    if not abc:
        return 1
    if s.in_slow_start():
        return min(acked, 2)
    return acked


def slow_start_units(abc: bool, s, acked: int) -> int:
    """Count the ACK's units (:func:`ack_units`), spend them on slow start
    while cwnd < ssthresh, and return those left for congestion avoidance."""
    n = ack_units(abc, s, acked)
    if s.in_slow_start():
        return slow_start(s, n)
    return n


def cbrt(x: float) -> float:
    """The engine's cube root (libm's, as the built-in CUBIC rounds)."""
    return core().cbrt(x)
