"""Replay packetdrill scripts against ccsim's ``linux`` TCP, or run them
against this machine's kernel (``--kernel``).

    python -m validation.packetdrill SCRIPT.pkt ...
    python -m validation.packetdrill --dir PACKETDRILL/gtests/net/tcp fast_retransmit/fr-4pkt-sack.pkt ...
    python -m validation.packetdrill --kernel --packetdrill PACKETDRILL/gtests/net/packetdrill/packetdrill SCRIPT...

A packetdrill script (Google's ``packetdrill``, the way Linux's own TCP
is tested) is a conversation with a TCP socket: inbound packets at their
times, the packets the socket must send in answer, system calls and
``%{ assert tcpi_... }%`` checks of its ``tcp_info``. This module plays the
socket's peer against one ccsim sender (``ccsim._core.TcpReplay``, a
``tcp_model = "linux"`` flow):

- the handshake fixes the flow: the segment size (the peer's MSS, 1460 at
  most, less 12 bytes when both SYNs carry timestamps), SACK (``sackOK``,
  else NewReno recovery), the peer's window scale, and the handshake's
  RTT sample, which Linux's estimator starts from;
- ``write(fd, ..., n)`` writes n bytes (whole segments; a partial last
  segment rounds up); the first write opens the flow;
- an inbound ACK arrives at its time with its SACK blocks, ECE and window,
  in segments;
- an outbound data packet (a TSO aggregate may cover several segments)
  must be ccsim's next departures, segment by segment, each within the
  script's time (packetdrill's tolerance: 4 ms or 12.5% of the time since
  the previous event, whichever is larger). As packetdrill reads the next
  packet the socket sent at each outbound line, a segment the script does
  not list is a difference at its next outbound line (a FIN or pure ACK
  line included), and what is sent after its last one is not checked;
- ``tcpi_snd_cwnd``, ``tcpi_snd_ssthresh``, ``tcpi_ca_state``,
  ``tcpi_total_retrans``, ``tcpi_retransmits``, ``tcpi_rto``, ``tcpi_rtt``,
  ``tcpi_unacked``, ``tcpi_sacked``, ``tcpi_lost``, ``tcpi_retrans``,
  ``tcpi_reordering`` and ``tcpi_reord_seen``
  come from the sender's state; an assert naming another field is skipped.

The sysctls a shell command sets before the flow starts, directly or
through a script it runs (``../common/defaults.sh``), become the flow's
fields where ccsim has the rule (``SYSCTLS``: idle restart, controller,
reordering degree, RACK, TLP); a listening socket's ``TCP_CONGESTION``
wins over the sysctl.

What ccsim does not model is skipped and listed on the script's line:
socket calls other than ``write``, FIN and pure ACKs the socket sends,
data the peer sends, shell commands (sysctls, qdiscs). Relative times
follow packetdrill (``run.c``: consecutive inbound packets anchor on each
other's script times, anything else on the previous event's actual time).

Prints one line per script (``ok`` or ``FAIL`` with the first difference)
and ``N/M scripts pass``; exit status 1 if any fails. ``--json FILE``
writes the per-script results; ``--record FILE`` keeps them in a record
(JSON) under the run's side (``ccsim`` or ``kernel``) with the date, the
engine's commit, the kernel's release and the packetdrill checkout's
commit, the other side's results kept: docs/validation.md's table of
Google's scripts is generated from ``validation/results/packetdrill/
google.json`` (``python tools/docs_tables.py``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

#: packetdrill's defaults (config.c): tolerance_usecs, tolerance_percent.
TOLERANCE_S = 0.004
TOLERANCE_PCT = 12.5
#: The kernel's own MSS on the TUN device (MTU 1500 less 40 bytes).
LOCAL_MSS = 1460
#: TCP_CA_* names an assert may use.
CA_STATES = {"TCP_CA_Open": 0, "TCP_CA_Disorder": 1, "TCP_CA_CWR": 2, "TCP_CA_Recovery": 3, "TCP_CA_Loss": 4}


def _linux_recovery(v: str) -> Dict:
    return {"rack": bool(int(v) & 1)}


#: The kernel's sysctls that are flow fields here (``net.ipv4.X``), read
#: from a script's shell commands before the flow starts.
SYSCTLS = {
    "tcp_slow_start_after_idle": lambda v: {"slow_start_after_idle": v != "0"},
    "tcp_congestion_control": lambda v: {"cc": v},
    "tcp_reordering": lambda v: {"dupthresh": int(v)},
    "tcp_recovery": _linux_recovery,
    # 3 and 4 enable TLP (`tcp_early_retrans`)
    "tcp_early_retrans": lambda v: {"tlp": int(v) in (3, 4)},
    # D-SACKs from the receiver are the script's; F-RTO on for 1 and 2
    "tcp_dsack": lambda v: {},
    "tcp_frto": lambda v: {"frto": v != "0"},
    # HyStart's exit signals: 1 the ACK train, 2 the delay, 3 both
    "tcp_cubic.hystart_detect": lambda v: {"cc_params": {"hystart_detect": {"1": "ack_train", "2": "delay"}.get(
        v, "both")}},
    # what ccsim does as the kernel does: timestamps follow the SYNs' options,
    # SACK the SYN's sackOK, and these change nothing modelled here
    **{k: (lambda v: {}) for k in ("tcp_timestamps", "tcp_sack", "tcp_fack", "tcp_rmem", "tcp_wmem",
                                   "tcp_syn_retries", "tcp_synack_retries", "tcp_tso_win_divisor")},
}


class ScriptError(Exception):
    """A script line this module cannot read."""


@dataclass
class Event:
    line: int
    kind: str  # "in", "out", "call", "assert", "shell"
    #: ("abs" | "rel" | "any", lo, hi)
    when: Tuple[str, float, float]
    text: str
    #: packets: flags, start, end, ack, win, options
    pkt: Dict = field(default_factory=dict)


_TIME = re.compile(r"^\s*(\*|[+]?\d*\.?\d+(?:\s*~\s*[+]?\d*\.?\d+)?)(?:\s+|(?=\.\.\.))(.*)$", re.S)
_PKT = re.compile(
    r"^([<>])\s+(?:\[(\w+)\]\s+)?([SFRPEWU.]+)\s+(\d+):(\d+)\((\d+)\)"
    r"(?:\s+ack\s+(\d+))?(?:\s+win\s+(\d+))?(?:\s+<(.*)>)?\s*$"
)


def _parse_time(tok: str) -> Tuple[str, float, float]:
    if tok == "*":
        return ("any", 0.0, 0.0)
    parts = [p.strip() for p in tok.split("~")]
    rel = parts[0].startswith("+")
    lo = float(parts[0].lstrip("+"))
    hi = float(parts[1].lstrip("+")) if len(parts) > 1 else lo
    return ("rel" if rel else "abs", lo, hi)


def parse(path: str) -> List[Event]:
    """The script's events in order (comments dropped)."""
    text = open(path).read()
    # strip // comments (outside of python blocks) and /* */ comments
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    events: List[Event] = []
    lines = text.split("\n")
    n = 0
    while n < len(lines):
        raw = lines[n]
        lineno = n + 1
        stripped = raw.split("//")[0] if "%{" not in raw and "`" not in raw else raw
        if not stripped.strip():
            n += 1
            continue
        # a shell command, possibly over several lines, possibly timed
        m = _TIME.match(stripped)
        body = m.group(2) if m else stripped.strip()
        when = _parse_time(m.group(1).strip()) if m else ("rel", 0.0, 0.0)
        if body.lstrip().startswith("`"):
            chunk = body.lstrip()[1:]
            while "`" not in chunk:
                n += 1
                chunk += "\n" + lines[n]
            events.append(Event(lineno, "shell", when, chunk.split("`")[0].strip()))
            n += 1
            continue
        if body.lstrip().startswith("%{"):
            chunk = body.lstrip()[2:]
            while "}%" not in chunk:
                n += 1
                chunk += "\n" + lines[n]
            events.append(Event(lineno, "assert", when, chunk.split("}%")[0]))
            n += 1
            continue
        if not m:
            raise ScriptError(f"line {lineno}: no time: {raw.strip()!r}")
        body = body.split("//")[0].strip()
        # blocking calls: "+.002 ... 0.004 connect(...)"
        body = re.sub(r"^\.\.\.\s*[\d.]+\s+", "", body)
        pm = _PKT.match(body)
        if pm:
            d, ecn, flags, start, end, length, ack, win, opts = pm.groups()
            events.append(Event(lineno, "in" if d == "<" else "out", when, body, {
                "flags": flags, "ecn": ecn, "start": int(start), "end": int(end), "len": int(length),
                "ack": int(ack) if ack else None, "win": int(win) if win else None, "opts": opts or "",
            }))
        else:
            events.append(Event(lineno, "call", when, body))
        n += 1
    return events


def _opt(opts: str, name: str) -> Optional[str]:
    m = re.search(rf"\b{name}\s+([\d:\s]+?)(?:,|$)", opts)
    return m.group(1).strip() if m else None


@dataclass
class Result:
    script: str
    ok: bool
    message: str = ""
    skipped: List[str] = field(default_factory=list)


class _Fail(Exception):
    pass


class Player:
    """One script played against one ccsim sender."""

    def __init__(self, path: str, flow_extra: Optional[dict] = None):
        self.path = path
        self.events = parse(path)
        self.flow_extra = flow_extra or {}
        self.skipped: List[str] = []
        self.replay = None
        self.mss = LOCAL_MSS
        self.peer_wscale = 0
        self.ts = False
        self.sack = False
        self.cc: Optional[str] = None
        self.sysctl_fields: Dict = {}
        self.synack_out: Optional[float] = None
        self.syn_out: Optional[float] = None
        self.hs_rtt: Optional[float] = None
        self.pending: List[Tuple[float, int, bool, bool]] = []
        self.last_ack_byte = 1
        #: The names the script's Python blocks define (TCP_CA_* given).
        self.py_ns: Dict = dict(CA_STATES)
        self.now = 0.0
        self.last: Optional[Event] = None
        self.last_script_t = 0.0

    def skip(self, ev: Event, what: str) -> None:
        self.skipped.append(f"line {ev.line}: {what}")

    # --- time ---------------------------------------------------------
    def times(self, ev: Event) -> Tuple[float, float, float]:
        """(lo, hi, tolerance) of the event's script time."""
        kind, lo, hi = ev.when
        if kind == "any":
            return (self.now, math.inf, 0.0)
        if kind == "rel":
            anchored = (self.last is not None and self.last.kind == "in" and ev.kind == "in")
            base = self.last_script_t if anchored else self.now
            lo, hi = base + lo, base + hi
        delta = lo - self.last_script_t
        tol = max(TOLERANCE_S, TOLERANCE_PCT / 100.0 * max(delta, 0.0))
        return (lo, hi, tol)

    # --- the flow -----------------------------------------------------
    def flow(self) -> dict:
        # timestamps as the SYNs negotiated them; the replayed ACKs echo the
        # first transmission of what they acknowledge (Replay.ack)
        f = {"tcp_model": "linux", "mss_bytes": self.mss, "header_bytes": 40 + (12 if self.ts else 0),
             "recovery": "sack" if self.sack else "newreno", "timestamps": self.ts}
        f.update(self.sysctl_fields)
        f["cc"] = self.cc or self.sysctl_fields.get("cc", "cubic")
        if not self.sack:
            for k in ("rack", "tlp", "frto"):
                f.pop(k, None)  # Linux runs RACK-TLP with SACK only (and undo here)
        if f.get("rack") is False:
            f.pop("frto", None)  # F-RTO ends in the undo, which runs beside RACK
        f.update(self.flow_extra)
        return f

    def shell(self, ev: Event) -> None:
        """A shell command: the sysctls it (or a script it runs) sets
        become the flow's fields where ccsim has the rule (before the flow
        starts); the rest is listed as skipped."""
        # a script the command runs (``../common/defaults.sh``) counts
        # where it runs, before what follows it
        lines = []
        for line in ev.text.splitlines():
            for script in re.findall(r"(\S+\.sh)\b", line):
                path = os.path.join(os.path.dirname(self.path), script)
                if os.path.isfile(path):
                    lines.extend(open(path).read().splitlines())
            lines.append(line)
        text = "\n".join(lines)
        found = re.findall(r"(?:net\.ipv4\.|/proc/sys/net/ipv4/)(\w+)=\"?([\w ]+?)\"?(?=\s|$)", text)
        # tcp_cubic's module parameters: `echo V > /sys/module/tcp_cubic/parameters/NAME`
        found += [(f"tcp_cubic.{n}", v) for v, n in
                  re.findall(r"echo\s+(\w+)\s*>\s*/sys/module/tcp_cubic/parameters/(\w+)", text)]
        unknown = []
        for name, value in found:
            field = SYSCTLS.get(name)
            if field is None or self.replay is not None:
                unknown.append(f"{name}={value}")
                continue
            self.sysctl_fields.update(field(value.strip()))
        first = ev.text.splitlines()[0][:60] if ev.text else ""
        if unknown or not found:
            self.skip(ev, f"shell `{first}`" + (f" (sysctls not modelled: {', '.join(unknown)})" if unknown else ""))

    def start(self) -> None:
        if self.replay is None:
            from ccsim._core import TcpReplay
            self.replay = TcpReplay(json.dumps(self.flow()))
            if self.hs_rtt is not None:
                self.replay.handshake_rtt(self.hs_rtt)

    def seg(self, byte: int) -> int:
        """The segment a (relative) sequence number starts, bytes from 1."""
        return (byte - 1) // self.mss

    def wnd(self, win: Optional[int]) -> Optional[int]:
        """The advertised window in segments: None if the line has none, 0
        for a zero window; a window of less than one segment counts as one
        (ccsim sends whole segments)."""
        if win is None:
            return None
        if win == 0:
            return 0
        return max(1, (win << self.peer_wscale) // self.mss)

    def collect(self) -> None:
        if self.replay is not None:
            self.pending.extend(self.replay.take_sent())

    def check_quiet(self, ev: Event, until: float) -> None:
        """At an outbound packet ccsim does not model (FIN, a pure ACK):
        nothing sent by `until` that the script did not expect (packetdrill
        would read it first)."""
        if self.replay is None:
            return
        self.replay.advance(until)
        self.collect()
        extra = [p for p in self.pending if p[0] <= until + 1e-9]
        if extra:
            t, s, r, probe = extra[0]
            if probe:
                raise _Fail(f"line {ev.line}: ccsim sent a zero-window probe at {t:.6f} s, which the script "
                            "does not expect")
            raise _Fail(f"line {ev.line}: ccsim sent segment {s} ({self.mss * s + 1}:{self.mss * (s + 1) + 1}"
                        f"{', a retransmission' if r else ''}) at {t:.6f} s, which the script does not expect")

    # --- events -------------------------------------------------------
    def run(self) -> Result:
        name = self.path
        try:
            for ev in self.events:
                self.step(ev)
                self.last = ev
            return Result(name, True, "", self.skipped)
        except _Fail as e:
            return Result(name, False, str(e), self.skipped)

    def step(self, ev: Event) -> None:
        if ev.kind == "shell":
            self.shell(ev)
            return
        lo, hi, tol = self.times(ev)
        if ev.kind == "out":
            self.outbound(ev, lo, hi, tol)
            return
        if hi != math.inf:
            self.now = max(self.now, lo)
        self.last_script_t = lo if hi != math.inf else self.now
        if ev.kind == "in":
            self.inbound(ev)
        elif ev.kind == "call":
            self.call(ev)
        elif ev.kind == "assert":
            if self.replay is not None:
                self.replay.advance(self.now)
                self.collect()
            self.assertion(ev)

    def inbound(self, ev: Event) -> None:
        p = ev.pkt
        flags, opts = p["flags"], p["opts"]
        if "S" in flags:
            mss = _opt(opts, "mss")
            self.mss = min(int(mss), LOCAL_MSS) if mss else 536
            self.sack = "sackOK" in opts
            self.ts = "TS val" in opts
            ws = _opt(opts, "wscale")
            self.peer_wscale = int(ws) if ws else 0
            if self.ts:
                self.mss -= 12
            if "." in flags and self.syn_out is not None:  # SYN-ACK to our connect()
                self.hs_rtt = self.now - self.syn_out
            return
        if self.replay is None:
            if self.synack_out is not None and p["ack"] == 1 and self.hs_rtt is None:
                self.hs_rtt = self.now - self.synack_out
            return
        if p["len"] > 0:
            self.skip(ev, "data from the peer (the receiver side is not replayed)")
        if "F" in flags:
            self.skip(ev, "FIN from the peer")
        if "R" in flags:
            self.skip(ev, "RST from the peer")
            return
        if p["ack"] is None:
            return
        # (the ACK of a FIN counts one byte beyond the data: still segment `ack`)
        ack = self.seg(p["ack"])
        self.last_ack_byte = int(p["ack"])
        # Only whole segments are SACKed (tcp_match_skb_to_sack: a block
        # covering part of a segment marks nothing of it)
        sacks = [(-(-(int(a) - 1) // self.mss), (int(b) - 1) // self.mss)
                 for a, b in re.findall(r"(\d+):(\d+)", _opt(opts, "sack") or "")]
        sacks = [(a, b) for a, b in sacks if a < b]
        self.replay.ack(self.now, ack, sacks, "E" in flags, self.wnd(p["win"]))
        self.collect()

    def outbound(self, ev: Event, lo: float, hi: float, tol: float) -> None:
        p = ev.pkt
        flags = p["flags"]
        if "S" in flags:
            if "." in flags:
                self.synack_out = lo
            else:
                self.syn_out = lo
            self.now = max(self.now, lo)
            self.last_script_t = lo
            return
        if p["len"] == 0 and "F" not in flags and self.replay is not None and p["start"] == self.last_ack_byte - 1:
            self.window_probe(ev, lo, hi, tol)
            return
        if p["len"] == 0 or "F" in flags:
            what = "FIN" if "F" in flags else "pure ACK"
            self.skip(ev, f"{what} the socket sends (not modelled)")
            if self.replay is not None:
                self.check_quiet(ev, min(hi, self.now + 10.0) + tol)
            self.now = max(self.now, lo)
            self.last_script_t = lo
            return
        self.start()
        first, last = self.seg(p["start"]), self.seg(p["end"] - 1)
        want = list(range(first, last + 1))
        deadline = hi + tol
        got: List[Tuple[float, int, bool]] = []
        for s in want:
            t, seq, retx, probe = self.next_departure(ev, lo, hi, deadline)
            got.append((t, seq, retx))
            if probe:
                raise _Fail(f"line {ev.line}: expected {ev.text!r} at {lo:.6f} s; ccsim sent a zero-window "
                            f"probe at {t:.6f} s")
            if seq != s:
                raise _Fail(f"line {ev.line}: expected {ev.text!r}: segment {s} ({s * self.mss + 1}:"
                            f"{(s + 1) * self.mss + 1}) at {lo:.6f} s; ccsim sent segment {seq} "
                            f"({seq * self.mss + 1}:{(seq + 1) * self.mss + 1}) at {t:.6f} s")
            if not (lo - tol - 1e-9 <= t <= hi + tol + 1e-9):
                raise _Fail(f"line {ev.line}: expected {ev.text!r} at {lo:.6f}"
                            f"{'~' + format(hi, '.6f') if hi != lo else ''} s (tolerance {tol * 1e3:.1f} ms); "
                            f"ccsim sent segment {seq} at {t:.6f} s")
        t_end = got[-1][0]
        self.now = max(self.now, t_end)
        self.last_script_t = lo

    def next_departure(self, ev: Event, lo: float, hi: float, deadline: float) -> Tuple[float, int, bool, bool]:
        """ccsim's next departure (time, segment, retransmission, probe),
        running the sender's timers one at a time up to ``deadline``."""
        while not self.pending:
            if not self.replay.step(deadline):
                self.replay.advance(min(deadline, max(self.now, lo)))
                self.collect()
                if not self.pending:
                    raise _Fail(f"line {ev.line}: expected {ev.text!r} at {lo:.6f}"
                                f"{'~' + format(hi, '.6f') if hi != lo else ''} s; ccsim sent nothing by "
                                f"{deadline:.6f} s (cwnd {self.replay.info()['tcpi_snd_cwnd']})")
                break
            self.collect()
        return self.pending.pop(0)

    def window_probe(self, ev: Event, lo: float, hi: float, tol: float) -> None:
        """A zero-window probe (no payload, the byte below SND.UNA again):
        ccsim's next departure must be one, within the line's time."""
        t, seq, _, probe = self.next_departure(ev, lo, hi, hi + tol)
        if not probe:
            raise _Fail(f"line {ev.line}: expected the zero-window probe {ev.text!r} at {lo:.6f} s; ccsim sent "
                        f"segment {seq} ({seq * self.mss + 1}:{(seq + 1) * self.mss + 1}) at {t:.6f} s")
        if not (lo - tol - 1e-9 <= t <= hi + tol + 1e-9):
            raise _Fail(f"line {ev.line}: expected {ev.text!r} at {lo:.6f}"
                        f"{'~' + format(hi, '.6f') if hi != lo else ''} s (tolerance {tol * 1e3:.1f} ms); "
                        f"ccsim sent its zero-window probe at {t:.6f} s")
        self.now = max(self.now, t)
        self.last_script_t = lo

    def call(self, ev: Event) -> None:
        m = re.match(r"(\w+)\((.*)\)\s*=\s*(-?\d+)", ev.text, re.S)
        name = m.group(1) if m else ev.text.split("(")[0]
        if name == "write" and m:
            n = int(m.group(3))
            self.start()
            segs = -(-n // self.mss)
            if n % self.mss:
                self.skip(ev, f"write of {n} bytes: {segs} whole segments of {self.mss}")
            self.replay.write(self.now, segs)
            self.collect()
            return
        if name == "setsockopt" and m and "TCP_CONGESTION" in m.group(2):
            cc = re.search(r'"(\w+)"', m.group(2))
            if cc and self.replay is None:
                self.cc = cc.group(1)
                return
        if name in ("socket", "bind", "listen", "accept", "connect", "close", "setsockopt", "getsockopt",
                    "fcntl", "shutdown", "read", "ioctl"):
            self.skip(ev, f"{name}()")
            return
        self.skip(ev, f"call {ev.text[:50]!r}")

    def assertion(self, ev: Event) -> None:
        """A ``%{ }%`` block: its names persist to the next blocks, as in
        packetdrill's one Python process per script; the ``tcpi_*`` names
        are ccsim's state at the block's time."""
        self.start()
        ns = self.py_ns
        ns.update(self.replay.info())
        for stmt in [s.strip() for s in ev.text.strip().splitlines() if s.strip()]:
            try:
                exec(stmt, {}, ns)
            except NameError as e:
                self.skip(ev, f"assert on {str(e).split(chr(39))[1] if chr(39) in str(e) else e} (not modelled)")
            except AssertionError as e:
                cond = stmt.split("assert", 1)[1].split(",")[0].strip()
                raise _Fail(f"line {ev.line}: assert {cond} failed (ccsim: {e})")


def run_ccsim(path: str) -> Result:
    try:
        return Player(path).run()
    except ScriptError as e:
        return Result(path, False, f"cannot read the script: {e}")


def kernel_default_cc() -> str:
    """The default congestion control of a new network namespace."""
    try:
        out = subprocess.run(["unshare", "-n", "cat", "/proc/sys/net/ipv4/tcp_congestion_control"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() or "unknown"


def run_kernel(path: str, packetdrill: str) -> Result:
    """The script against this machine's kernel, in a new network namespace."""
    d, base = os.path.split(os.path.abspath(path))
    try:
        p = subprocess.run(["unshare", "-n", os.path.abspath(packetdrill), base], cwd=d,
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Result(path, False, f"packetdrill did not run: {e}")
    out = (p.stderr + p.stdout).strip().splitlines()
    return Result(path, p.returncode == 0, "" if p.returncode == 0 else (out[-1] if out else f"exit {p.returncode}"))


def _git(args: List[str], cwd: Optional[str]) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def record(path: str, side: str, rows: List[Dict], script_dir: Optional[str]) -> None:
    """Keep ``rows`` as ``side``'s results in the record at ``path``."""
    import datetime
    import platform

    rec = json.load(open(path)) if os.path.exists(path) else {}
    here = os.path.dirname(os.path.abspath(__file__))
    rec[side] = {
        "date": datetime.date.today().isoformat(),
        "engine": _git(["rev-parse", "--short=12", "HEAD"], here),
        "kernel": platform.release(),
        "results": rows,
    }
    if script_dir:
        rec["packetdrill_commit"] = _git(["rev-parse", "--short=12", "HEAD"], script_dir) or rec.get(
            "packetdrill_commit", "")
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.packetdrill", description=__doc__.split("\n\n")[0])
    ap.add_argument("scripts", nargs="+", help="packetdrill scripts (.pkt), relative to --dir if given")
    ap.add_argument("--dir", help="directory the scripts are named from (a checkout's gtests/net/tcp)")
    ap.add_argument("--kernel", action="store_true", help="run the scripts against this kernel (root, unshare -n)")
    ap.add_argument("--packetdrill", default=os.environ.get("PACKETDRILL", "packetdrill"),
                    help="the packetdrill binary, for --kernel (default $PACKETDRILL or packetdrill on PATH)")
    ap.add_argument("--json", help="write the per-script results to this file")
    ap.add_argument("--record", help="keep the results in this record (JSON), beside the other side's")
    ap.add_argument("-v", "--verbose", action="store_true", help="list what each script skipped")
    a = ap.parse_args(argv)
    paths = [os.path.join(a.dir, s) if a.dir else s for s in a.scripts]
    for p in paths:
        if not os.path.isfile(p):
            print(f"error: script {p!r} does not exist", file=sys.stderr)
            return 2
    if a.kernel:
        cc = kernel_default_cc()
        if cc != "cubic":
            print(f"note: a new network namespace's default congestion control is {cc!r}, not 'cubic': scripts that "
                  "do not set TCP_CONGESTION run with it (Google's expect cubic; a namespace takes init_net's "
                  "default and may set only the allowed ones)", file=sys.stderr)
    results = []
    for p in paths:
        r = run_kernel(p, a.packetdrill) if a.kernel else run_ccsim(p)
        r.script = os.path.relpath(p, a.dir) if a.dir else p
        results.append(r)
        line = f"ok    {r.script}" if r.ok else f"FAIL  {r.script}: {r.message}"
        if r.skipped:
            line += f"  [{len(r.skipped)} skipped]"
        print(line)
        if a.verbose:
            for s in r.skipped:
                print(f"        skipped {s}")
    n_ok = sum(r.ok for r in results)
    print(f"{n_ok}/{len(results)} scripts pass" + (" on the kernel" if a.kernel else " on ccsim's linux TCP"))
    rows = [{"script": r.script, "ok": r.ok, "message": r.message, "skipped": r.skipped} for r in results]
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.record:
        record(a.record, "kernel" if a.kernel else "ccsim", rows, a.dir)
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
