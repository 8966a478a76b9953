"""Run Linux's own TCP over an emulated dumbbell: the live half of the
kernel-as-validation-peer comparison.

    python -m validation.kernel_live --scenario '{"name": ..., ...}' [--out DIR] [--run-index I]
    python -m validation.kernel_live --selftest [--out DIR] [--rates 10,50,100]

Two network namespaces (``ccsimk-snd-<pid>``, ``ccsimk-rcv-<pid>``), no
link between them: ``ccsim-tunemu`` (crates/ccsim-tunemu) opens a TUN
device in each (``tsnd``, ``trcv``) and forwards between them through the
bottleneck model (DropTail of ``buffer_pkts`` waiting packets, serialised at
``rate_mbps``, base RTT split half per direction, a flow's ``extra_rtt_ms``
half per direction too). The bottleneck is a duplex link, as ccsim's and
ns-2's dumbbells have it: the ACKs have a serialiser and buffer of their
own at the same rate (``"duplex": false`` in the scenario: delays only). Flow i sends from 10.77.1.(i+2)
to 10.77.2.1; nothing leaves the two namespaces, which are deleted at the end.

A scenario runs a receiver (one process in the receiver namespace, counting
bytes per flow in 10 ms bins) and a sender (one process in the sender
namespace, one thread per flow sending from a large buffer between
``start_s`` and ``stop_s``, a sampler reading ``TCP_INFO`` every 10 ms, and
a BBR flow's ``TCP_CC_INFO`` too: its bandwidth estimate, min_rtt and gains). At
``stop_s`` a flow is aborted (``SO_LINGER`` 0: a RST, its unsent data
dropped), so nothing is sent after its stop time. ``run`` returns (and writes
to ``out_dir/run-<i>.json``) the scenario, the kernel's release and
sysctls, the emulator's report, per-flow goodput, receive series and
``tcp_info`` series, the sender namespace's SNMP counter deltas, and
each flow's reads by the receiving application (:class:`ReadTrace`: how
long after its data became readable each read came, as quantiles; every
read in ``out_dir/run-<i>.reads.csv``).

``--selftest`` measures the emulator against itself and against the
receiver's clock: UDP at 1.25 times the bottleneck rate keeps the queue
backlogged, so consecutive departures must be exactly one packet time apart
(the receiver timestamps them with ``SO_TIMESTAMPNS``); and the bottleneck's
arrival log is replayed through an independent DropTail here, every
drop/accept decision compared. A rate passes when the p99 timing error (the
emulator's own and the receiver's gap error) stays under a tenth of a
1500-byte packet time and the emulator's p99.9 under one packet time (no
stall), and the replay agrees on every decision.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import re
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parent.parent
EMULATOR = REPO / "target" / "release" / "ccsim-tunemu"
RCV_ADDR = "10.77.2.1"
TCP_PORT = 5201
UDP_PORT = 5301
BIN_S = 0.01
#: Python's socket module lacks it; 35 on x86 and arm64 (asm-generic/socket.h).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
#: Time from the sender's start to the common t0 (sockets, threads, imports).
START_MARGIN_S = 0.5
#: How long the receiver waits for data after the last flow's stop.
DRAIN_S = 2.0
#: How the live run uses the machine's CPUs. The emulator busy-polls on
#: CPU 1 (``busy_poll``; this VM's timer wake-ups run ~90 us late, so
#: sleeping costs accuracy; ``spin_us`` applies when it is off), the senders
#: and receivers run on the other CPUs. With ``apps_spin`` they poll their
#: sockets without sleeping: a data packet the emulator writes is then
#: processed inside its write() with nobody to wake, which cuts that call
#: from ~10 us (a cross-CPU wake-up, costly in this VM) to ~3 us, and so the
#: delay it adds to the writes queued behind it. Off by default: with both
#: CPUs busy, any other work on the machine lands on the emulator's CPU
#: (measured: 1 % of a run lost to it, p99.9 error in milliseconds; see
#: ``contention`` in the results). With ``trace_reads`` the receiving
#: application's reads are timed by the kernel's tracepoints
#: (:class:`ReadTrace`; skipped where tracefs is missing).
LIVE_OPTS = {"busy_poll": True, "spin_us": 200, "cpu": 1, "apps_spin": False, "trace_reads": True}

#: The emulator's timing budget in 1500-byte packet times at the
#: bottleneck. The 99th percentile of its lateness stays under a tenth of
#: one, so that the figures it reports are not moved by it; the 99.9th
#: under one, so that a run holds no stall: a stall of milliseconds holds
#: back hundreds of packets and releases them as a burst no sender made,
#: and a run with one can keep its 99th percentile within budget (measured:
#: a 50 Mb/s run with an 82 ms stall, p99 18 us, lost 9% of its packets).
P99_BUDGET = 0.1
P999_BUDGET = 1.0

#: Largest share of a run the emulator may wait for its CPU and the run
#: still count as quiet (other work on the machine, e.g. builds, costs
#: milliseconds at a time).
QUIET_SHARE = 0.002

SYSCTLS = [
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_recovery", "net.ipv4.tcp_early_retrans",
    "net.ipv4.tcp_frto", "net.ipv4.tcp_sack", "net.ipv4.tcp_dsack", "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem", "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_slow_start_after_idle", "net.core.default_qdisc", "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_reordering", "net.ipv4.tcp_pacing_ss_ratio", "net.ipv4.tcp_pacing_ca_ratio",
    "net.ipv4.tcp_limit_output_bytes", "net.ipv4.tcp_autocorking", "net.ipv4.tcp_notsent_lowat",
    "net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_tso_win_divisor", "net.ipv4.tcp_min_tso_segs",
    "net.ipv4.tcp_adv_win_scale", "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_rto_min_us",
    "net.ipv4.tcp_available_congestion_control",
]
#: TcpExt counters (``/proc/net/netstat``) whose deltas are reported by name.
TCPEXT = ["TCPTimeouts", "TCPLossProbes", "TCPLossProbeRecovery", "TCPSackRecovery", "TCPRenoRecovery",
          "TCPSpuriousRTOs", "TCPDSACKUndo", "TCPLossUndo", "TCPFullUndo", "TCPPartialUndo", "TCPSACKReorder",
          "TCPLostRetransmit", "TCPFastRetrans", "TCPSlowStartRetrans", "TCPDSACKRecv", "TCPSpuriousRtxHostQueues"]

# struct tcp_info as of Linux 6.7 (include/uapi/linux/tcp.h, through
# tcpi_total_rto_time; later kernels append AccECN fields, not read here).
# The two bitfield bytes are kept raw.
TCP_INFO_FIELDS = (
    "state ca_state retransmits probes backoff options wscale_bits app_limited_bits "
    "rto ato snd_mss rcv_mss unacked sacked lost retrans fackets last_data_sent last_ack_sent "
    "last_data_recv last_ack_recv pmtu rcv_ssthresh rtt rttvar snd_ssthresh snd_cwnd advmss "
    "reordering rcv_rtt rcv_space total_retrans "
    "pacing_rate max_pacing_rate bytes_acked bytes_received "
    "segs_out segs_in notsent_bytes min_rtt data_segs_in data_segs_out "
    "delivery_rate busy_time rwnd_limited sndbuf_limited "
    "delivered delivered_ce bytes_sent bytes_retrans "
    "dsack_dups reord_seen rcv_ooopack snd_wnd rcv_wnd rehash "
    "total_rto total_rto_recoveries total_rto_time"
).split()
TCP_INFO = struct.Struct("=8B24I4Q6I4Q2I2Q6I2HI")
assert TCP_INFO.size == 248 and len(TCP_INFO_FIELDS) == 59
#: The fields sampled every 10 ms (``tcpi_`` dropped). Units as the kernel's:
#: rtt, rttvar, rto, min_rtt in us; snd_cwnd, snd_ssthresh in packets
#: (2147483647 until the first reduction); rates in bytes/s; snd_wnd (the
#: peer's offered window) and notsent_bytes in bytes; busy_time and the
#: time limited by the peer's window or the send buffer in us.
SAMPLED = ["snd_cwnd", "snd_ssthresh", "rtt", "rttvar", "rto", "min_rtt", "total_retrans", "retransmits",
           "ca_state", "delivery_rate", "pacing_rate", "bytes_acked", "bytes_sent", "bytes_retrans", "lost",
           "unacked", "sacked", "retrans", "delivered", "total_rto", "total_rto_recoveries", "reord_seen",
           "dsack_dups", "snd_mss", "snd_wnd", "busy_time", "rwnd_limited", "sndbuf_limited", "notsent_bytes"]


def tcp_info(sock: socket.socket) -> Dict[str, int]:
    """The socket's ``struct tcp_info`` (fields a shorter kernel lacks are 0)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO.size)
    return dict(zip(TCP_INFO_FIELDS, TCP_INFO.unpack(raw.ljust(TCP_INFO.size, b"\0"))))


#: ``TCP_CC_INFO`` (include/uapi/linux/tcp.h): the controller's own state;
#: BBR's is ``struct tcp_bbr_info`` (bandwidth in bytes/s as two 32-bit
#: halves, min_rtt in us, pacing and cwnd gain in 1/256).
TCP_CC_INFO = 26
BBR_INFO = struct.Struct("=5I")


def bbr_info(sock: socket.socket) -> Dict[str, int]:
    """A BBR socket's ``tcp_bbr_info`` (``bbr_get_info``): its bandwidth
    estimate, min_rtt and gains."""
    lo, hi, min_rtt, pacing_gain, cwnd_gain = BBR_INFO.unpack(
        sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, BBR_INFO.size).ljust(BBR_INFO.size, b"\0"))
    return {"bw": lo | hi << 32, "min_rtt": min_rtt, "pacing_gain": pacing_gain, "cwnd_gain": cwnd_gain}


def flow_addr(i: int) -> str:
    return f"10.77.1.{i + 2}"


def serialisation_ns(length: int, rate_bps: int) -> int:
    """The emulator's rounding: whole ns, rounded up, per packet."""
    return -(-length * 8 * 10**9 // rate_bps)


# --------------------------------------------------------------------------
# Reference bottleneck (independent of the emulator's code)


class SplitMix64:
    """SplitMix64, the emulator's loss generator, so a replay can redraw
    its losses from the seed."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = seed & self.MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def next_f64(self) -> float:
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))


def reference_verdicts(arrivals: Sequence[tuple], rate_bps: int, limit: int, loss: float, seed: int) -> List[int]:
    """Replays ``(t_ns, len)`` arrivals through a DropTail of ``limit``
    waiting packets (the one in service not counted) serialising at
    ``rate_bps``, after Bernoulli loss. Returns 0 accepted, 1 buffer drop,
    2 random loss per arrival. Written from the definition, not from the
    emulator: a packet waits iff its service starts after now."""
    rng = SplitMix64(seed)
    starts: deque = deque()  # service start times still in the future
    busy_until = 0
    out = []
    for t, length in arrivals:
        if loss > 0 and rng.next_f64() < loss:
            out.append(2)
            continue
        while starts and starts[0] <= t:
            starts.popleft()
        if busy_until > t and len(starts) >= limit:
            out.append(1)
            continue
        start = max(t, busy_until)
        busy_until = start + serialisation_ns(length, rate_bps)
        if start > t:
            starts.append(start)
        out.append(0)
    return out


def read_arrivals(path: Path) -> List[dict]:
    with open(path) as f:
        return [{"t_ns": int(r["t_ns"]), "len": int(r["len"]), "src": r["src"], "verdict": int(r["verdict"])}
                for r in csv.DictReader(f)]


def replay_check(arrivals: List[dict], rate_bps: int, limit: int, loss: float, seed: int) -> dict:
    mine = reference_verdicts([(a["t_ns"], a["len"]) for a in arrivals], rate_bps, limit, loss, seed)
    differ = [i for i, (a, m) in enumerate(zip(arrivals, mine)) if a["verdict"] != m]
    return {"arrivals": len(arrivals), "differ": len(differ), "first_differences": differ[:10],
            "buffer_drops": sum(a["verdict"] == 1 for a in arrivals),
            "loss_drops": sum(a["verdict"] == 2 for a in arrivals)}


# --------------------------------------------------------------------------
# Namespaces, emulator, processes


def _sh(*cmd: str, ns: Optional[str] = None, check: bool = True) -> str:
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    r = subprocess.run(full, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(full)}: {r.stderr.strip()}")
    return r.stdout


def _sysctl(ns: str, **kv: str) -> None:
    _sh("sysctl", "-qw", *[f"{k}={v}" for k, v in kv.items()], ns=ns)


def remove_stale_namespaces() -> List[str]:
    """Deletes ``ccsimk-*-PID`` namespaces whose runner (PID) is gone, left
    by a run that was killed before it could clean up."""
    removed = []
    for line in _sh("ip", "netns", "list").splitlines():
        name = line.split()[0] if line.strip() else ""
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "ccsimk" and parts[2].isdigit() and not Path(f"/proc/{parts[2]}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            removed.append(name)
    return removed


def ensure_emulator() -> Path:
    """The emulator, built from the tree's sources (cargo's check is a
    no-op when the binary is current; a stale one would run another model)."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ccsim-tunemu"], cwd=REPO, check=True)
    return EMULATOR


def _snmp(ns: str) -> Dict[str, int]:
    """TcpExt (``/proc/net/netstat``) and Tcp/Udp/Ip (``/proc/net/snmp``)
    counters of the namespace, as ``Group.Name``."""
    out: Dict[str, int] = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        lines = _sh("cat", path, ns=ns).splitlines()
        for head, vals in zip(lines[::2], lines[1::2]):
            group, names = head.split(":", 1)
            for k, v in zip(names.split(), vals.split(":", 1)[1].split()):
                out[f"{group}.{k}"] = int(v)
    return out


def _counter_deltas(before: Dict[str, int], after: Dict[str, int]) -> dict:
    delta = {k: after[k] - before.get(k, 0) for k in after}
    named = {k: delta.get(f"TcpExt.{k}", 0) for k in TCPEXT}
    named["RetransSegs"] = delta.get("Tcp.RetransSegs", 0)
    named["OutSegs"] = delta.get("Tcp.OutSegs", 0)
    return {"named": named, "all_nonzero": {k: v for k, v in sorted(delta.items()) if v and "Max" not in k}}


def _link_stats(ns: str, dev: str) -> dict:
    link = json.loads(_sh("ip", "-s", "-j", "link", "show", dev, ns=ns))[0]
    qdisc = json.loads(_sh("tc", "-s", "-j", "qdisc", "show", "dev", dev, ns=ns) or "[]")
    return {"mtu": link.get("mtu"), "txqlen": link.get("txqlen"), "stats64": link.get("stats64"),
            "qdisc": [{k: q.get(k) for k in ("kind", "drops", "packets", "overlimits", "backlog")} for q in qdisc]}


class Dumbbell:
    """Two namespaces and the emulator between them; a context manager that
    always removes what it made.

    ``emu`` holds the emulator's flags beyond the path (``busy_poll``,
    ``spin_us``, ``cpu``); its report lands in ``STEM.emu.json``, its
    arrival and departure logs in ``STEM.arrivals.csv`` and
    ``STEM.departures.csv``."""

    def __init__(self, rate_mbps: float, buffer_pkts: int, rtt_ms: float, n_flows: int, mtu: int,
                 extra_rtt_ms: Sequence[float], loss: float, seed: int, stem: Path, emu: dict,
                 max_duration_s: float, duplex: bool = True):
        tag = os.getpid()
        self.snd, self.rcv = f"ccsimk-snd-{tag}", f"ccsimk-rcv-{tag}"
        self.emu_json, self.arrivals = Path(f"{stem}.emu.json"), Path(f"{stem}.arrivals.csv")
        self.procs: List[subprocess.Popen] = []
        self.emu_proc: Optional[subprocess.Popen] = None
        self.n_flows, self.mtu = n_flows, mtu
        cmd = [str(ensure_emulator()), "--snd-ns", self.snd, "--rcv-ns", self.rcv,
               "--rate-bps", str(int(round(rate_mbps * 1e6))), "--buffer-pkts", str(buffer_pkts),
               "--delay-fwd-ms", repr(rtt_ms / 2), "--delay-rev-ms", repr(rtt_ms / 2),
               "--loss", repr(loss), "--seed", str(seed), "--duration", repr(max_duration_s),
               "--json", str(self.emu_json), "--arrivals", str(self.arrivals),
               "--departures", f"{stem}.departures.csv"]
        for i, extra in enumerate(extra_rtt_ms):
            if extra:
                cmd += ["--flow-delay", f"{flow_addr(i)}={extra / 2!r}"]
        if emu.get("cpu") is not None:
            cmd += ["--cpu", str(emu["cpu"])]
        cmd += ["--busy-poll"] if emu.get("busy_poll") else ["--spin-us", str(emu.get("spin_us", 200))]
        if duplex:
            cmd += ["--duplex"]
        self.emu_cmd = cmd

    def __enter__(self) -> "Dumbbell":
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _setup(self) -> None:
        remove_stale_namespaces()
        for ns in (self.snd, self.rcv):
            _sh("ip", "netns", "add", ns)
            # Before the TUNs exist, so they get no IPv6 (no router
            # solicitations) and no reverse-path filter on /32 addresses.
            _sysctl(ns, **{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1",
                           "net.ipv4.conf.all.rp_filter": "0", "net.ipv4.conf.default.rp_filter": "0"})
            _sh("ip", "link", "set", "lo", "up", ns=ns)
        self.emu_proc = subprocess.Popen(self.emu_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.emu_proc.stdout.readline().strip()
        if line != "ready":
            self.emu_proc.wait(5)
            raise RuntimeError(f"emulator did not start: {line} {self.emu_proc.stderr.read()}")
        for ns, dev in ((self.snd, "tsnd"), (self.rcv, "trcv")):
            # txqueuelen is the pfifo_fast limit in front of the TUN; the
            # emulator drains it at once, so 1000 only absorbs its hiccups
            # (drops there are reported in links.*.qdisc).
            _sh("ip", "link", "set", dev, "mtu", str(self.mtu), "txqueuelen", "1000", "up", ns=ns)
        for i in range(self.n_flows):
            _sh("ip", "addr", "add", f"{flow_addr(i)}/32", "dev", "tsnd", ns=self.snd)
        _sh("ip", "route", "add", f"{RCV_ADDR}/32", "dev", "tsnd", "src", flow_addr(0), ns=self.snd)
        _sh("ip", "addr", "add", f"{RCV_ADDR}/32", "dev", "trcv", ns=self.rcv)
        _sh("ip", "route", "add", "10.77.1.0/24", "dev", "trcv", "src", RCV_ADDR, ns=self.rcv)

    def spawn(self, ns: str, role: str, cfg: dict, cfg_path: Path) -> subprocess.Popen:
        """Starts ``role`` of this module inside ``ns`` with ``cfg``."""
        cfg_path.write_text(json.dumps(cfg))
        p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-m", "validation.kernel_live",
                              "--role", role, "--config", str(cfg_path)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
        self.procs.append(p)
        return p

    def stop_emulator(self) -> dict:
        """Stops the emulator (SIGTERM) and returns its report."""
        assert self.emu_proc is not None
        self.emu_proc.send_signal(signal.SIGTERM)
        _, err = self.emu_proc.communicate(timeout=30)
        if self.emu_proc.returncode != 0:
            raise RuntimeError(f"emulator failed: {err}")
        return json.loads(self.emu_json.read_text())

    def close(self) -> None:
        for p in self.procs + ([self.emu_proc] if self.emu_proc else []):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for ns in (self.snd, self.rcv):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _wait_line(p: subprocess.Popen, want: str, timeout: float) -> None:
    """Waits for ``want`` on the child's stdout (its readiness signal)."""
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        raise RuntimeError(f"no {want!r} from {p.args} in {timeout} s")
    line = p.stdout.readline().strip()
    if line != want:
        raise RuntimeError(f"{p.args}: expected {want!r}, got {line!r}: {p.stderr.read()}")


def _finish(p: subprocess.Popen, out: Path, timeout: float) -> dict:
    _, err = p.communicate(timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{p.args} failed ({p.returncode}): {err}")
    return json.loads(out.read_text())


# --------------------------------------------------------------------------
# Roles (run inside a namespace as `--role NAME --config PATH`)


def _pin(cpus: Optional[List[int]]) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)


def _cpu_seconds() -> float:
    ru = os.times()
    return ru.user + ru.system


def role_tcp_receiver(cfg: dict) -> dict:
    """Accepts the flows and counts the bytes each delivers per 10 ms bin.
    With ``spin`` it polls its sockets without sleeping (see LIVE_OPTS)."""
    _pin(cfg.get("cpus"))
    t0, n_bins, spin = cfg["t0_ns"], int(math.ceil(cfg["duration_s"] / BIN_S)), cfg.get("spin", False)
    index = {flow_addr(i): i for i in range(cfg["n_flows"])}
    bins = [[0] * n_bins for _ in range(cfg["n_flows"])]
    total = [0] * cfg["n_flows"]
    late = [0] * cfg["n_flows"]  # bytes after the last bin
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((RCV_ADDR, TCP_PORT))
    lsock.listen(64)
    lsock.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    print("listening", flush=True)
    view = memoryview(bytearray(1 << 20))
    closed = 0
    deadline = t0 + int((cfg["duration_s"] + DRAIN_S) * 1e9)
    while closed < cfg["n_flows"]:
        left = (deadline - time.monotonic_ns()) / 1e9
        if left <= 0:
            break
        ready = sel.get_map().values() if spin else [k for k, _ in sel.select(min(left, 0.1))]
        for key in list(ready):
            if key.data is None:
                try:
                    conn, (addr, _) = lsock.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(False)
                sel.register(conn, selectors.EVENT_READ, index[addr])
                continue
            try:
                n = key.fileobj.recv_into(view)
            except BlockingIOError:
                continue
            except ConnectionResetError:  # the sender's abort at stop_s
                n = 0
            if n == 0:
                sel.unregister(key.fileobj)
                key.fileobj.close()
                closed += 1
                continue
            i = key.data
            b = (time.monotonic_ns() - t0) // int(BIN_S * 1e9)
            total[i] += n
            if 0 <= b < n_bins:
                bins[i][b] += n
            else:
                late[i] += n
    return {"rx_bytes": bins, "bytes_received": total, "bytes_outside_bins": late, "cpu_s": _cpu_seconds()}


TCP_ESTABLISHED, TCP_CLOSE = 1, 7


class _Flow:
    """A sender flow's socket and its record."""

    def __init__(self, i: int, spec: dict):
        self.i, self.spec = i, spec
        self.sock: Optional[socket.socket] = None
        self.established = False
        self.done = False
        self.rec: dict = {"t": [], "tcp_info": {f: [] for f in SAMPLED}, "bytes_written": 0}
        if spec["cc"] == "bbr":
            # sampled with tcp_info: the estimate behind BBR's pacing rate
            self.rec["bbr_info"] = {k: [] for k in ("bw", "min_rtt", "pacing_gain", "cwnd_gain")}

    def start(self, now_s: float) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.spec["cc"].encode())
        s.bind((flow_addr(self.i), 0))
        s.setblocking(False)
        s.connect_ex((RCV_ADDR, TCP_PORT))
        self.sock = s
        self.rec["connect_s"] = now_s

    def is_established(self, now_s: float) -> bool:
        if not self.established:
            assert self.sock is not None
            state = tcp_info(self.sock)["state"]
            if state == TCP_CLOSE:
                raise RuntimeError(f"flow {self.i}: connection failed")
            if state == TCP_ESTABLISHED:
                self.established = True
                self.rec["established_s"] = now_s
        return self.established

    def stop(self, now_s: float) -> None:
        """Aborts (RST, unsent data dropped): nothing is sent after stop_s."""
        assert self.sock is not None
        self.rec["final_tcp_info"] = {k: v for k, v in tcp_info(self.sock).items() if not k.endswith("_bits")}
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()
        self.rec["stopped_s"] = now_s
        self.done = True


def role_tcp_sender(cfg: dict) -> dict:
    """All flows in one loop: each connects at its start_s, keeps its socket's
    send buffer full from a 1 MB buffer until its stop_s, then aborts; the
    live ones' TCP_INFO is read every 10 ms. With ``spin`` the loop never
    sleeps (see LIVE_OPTS), else it waits for writable sockets."""
    _pin(cfg.get("cpus"))
    t0, spin = cfg["t0_ns"], cfg.get("spin", False)
    flows = [_Flow(i, f) for i, f in enumerate(cfg["flows"])]
    buf = memoryview(bytes(1 << 20))
    step = int(BIN_S * 1e9)
    next_sample = t0
    sel = selectors.DefaultSelector()
    while not all(f.done for f in flows):
        now_ns = time.monotonic_ns()
        now = (now_ns - t0) / 1e9
        for f in flows:
            if f.sock is None and now >= f.spec["start_s"]:
                f.start(now)
                sel.register(f.sock, selectors.EVENT_WRITE, f)
            elif f.sock is not None and not f.done and now >= f.spec["stop_s"]:
                sel.unregister(f.sock)
                f.stop(now)
        if now_ns >= next_sample:
            for f in flows:
                if f.sock is not None and not f.done:
                    info = tcp_info(f.sock)
                    f.rec["t"].append(round(now, 6))
                    for k in SAMPLED:
                        f.rec["tcp_info"][k].append(info[k])
                    if "bbr_info" in f.rec:
                        for k, v in bbr_info(f.sock).items():
                            f.rec["bbr_info"][k].append(v)
            next_sample += step * max(1, (now_ns - next_sample) // step + 1)
        if spin:
            writable = [f for f in flows if f.sock is not None and not f.done]
        else:
            events = [f.spec[k] for f in flows for k in ("start_s", "stop_s") if f.spec[k] > now]
            wait = max(0.0, min([(next_sample - time.monotonic_ns()) / 1e9] + [e - now for e in events]))
            if not sel.get_map():
                time.sleep(wait)
                continue
            writable = [k.data for k, _ in sel.select(wait)]
        for f in writable:
            if not f.is_established((time.monotonic_ns() - t0) / 1e9):
                continue
            try:
                f.rec["bytes_written"] += f.sock.send(buf)
            except BlockingIOError:
                pass
    return {"flows": [f.rec for f in flows], "cpu_s": _cpu_seconds()}


def role_udp_sink(cfg: dict) -> dict:
    """Receives numbered datagrams, keeping each one's kernel receive time."""
    _pin(cfg.get("cpus"))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((RCV_ADDR, UDP_PORT))
    s.settimeout(0.0 if cfg.get("spin") else 0.2)
    print("listening", flush=True)
    deadline = cfg["t0_ns"] + int((cfg["duration_s"] + DRAIN_S) * 1e9)
    seqs, stamps = [], []
    while time.monotonic_ns() < deadline:
        try:
            data, anc, _, _ = s.recvmsg(2048, 64)
        except (socket.timeout, BlockingIOError):
            continue
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                seqs.append(struct.unpack("!Q", data[:8])[0])
                stamps.append(sec * 10**9 + nsec)
    return {"seq": seqs, "rx_ns": stamps, "cpu_s": _cpu_seconds()}


def role_udp_source(cfg: dict) -> dict:
    """Sends numbered 1500-byte (IP) datagrams at ``rate_bps`` in 1 ms steps."""
    _pin(cfg.get("cpus"))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((flow_addr(0), 0))
    payload = bytearray(cfg["ip_len"] - 28)
    t0, rate_pps = cfg["t0_ns"], cfg["rate_bps"] / (8 * cfg["ip_len"])
    time.sleep(max(0.0, (t0 - time.monotonic_ns()) / 1e9))
    sent = errors = 0
    while True:
        t = (time.monotonic_ns() - t0) / 1e9
        if t >= cfg["duration_s"]:
            break
        while sent < rate_pps * t:
            struct.pack_into("!Q", payload, 0, sent)
            try:
                s.sendto(payload, (RCV_ADDR, UDP_PORT))
            except OSError:
                errors += 1
            sent += 1
        time.sleep(0.001)
    return {"sent": sent, "send_errors": errors, "cpu_s": _cpu_seconds()}


ROLES = {"tcp-receiver": role_tcp_receiver, "tcp-sender": role_tcp_sender,
         "udp-sink": role_udp_sink, "udp-source": role_udp_source}


# --------------------------------------------------------------------------
# Scenario runs


def _read_sysctls(ns: str) -> Dict[str, str]:
    """SYSCTLS as the sender's namespace sees them; the few that exist only
    in the initial namespace (``net.core.default_qdisc``) are read there,
    under ``init_ns:KEY``."""
    out = {}
    for key in SYSCTLS:
        path = Path("/proc/sys") / key.replace(".", "/")
        r = subprocess.run(["ip", "netns", "exec", ns, "cat", str(path)], capture_output=True, text=True)
        if r.returncode == 0:
            out[key] = " ".join(r.stdout.split())
        elif path.exists():
            out[f"init_ns:{key}"] = " ".join(path.read_text().split())
    return out


def _goodput(rx: List[int], start_s: float, stop_s: float) -> float:
    """Mean receive rate (Mb/s) over the 10 ms bins inside ``[start_s, stop_s)``."""
    lo, hi = int(round(start_s / BIN_S)), int(round(stop_s / BIN_S))
    span = (hi - lo) * BIN_S
    return sum(rx[lo:hi]) * 8 / span / 1e6 if span > 0 else 0.0


def cpu_times() -> List[int]:
    """The machine's CPU time by kind, in clock ticks since boot (the
    ``cpu`` line of ``/proc/stat``: user, nice, system, idle, iowait, irq,
    softirq, steal, ...)."""
    with open("/proc/stat", encoding="ascii") as f:
        return [int(x) for x in f.readline().split()[1:]]


def steal_share(before: Sequence[int], after: Sequence[int]) -> float:
    """The share of the machine's CPU time between two :func:`cpu_times`
    the hypervisor gave to other guests (``steal``, the eighth column): a
    virtual CPU taken away stalls whatever ran on it, emulator or kernel
    TCP, without the guest's scheduler seeing a wait."""
    d = [b - a for a, b in zip(before, after)]
    return d[7] / sum(d[:8]) if len(d) > 7 and sum(d[:8]) > 0 else 0.0


def contention(emu_report: dict, steal: Optional[float] = None) -> dict:
    """How much the emulator was kept off its CPU by other tasks (its
    runqueue wait over the run): a busy-polling loop waiting for the CPU
    serves no packet, so a run with a noticeable share is suspect. With
    ``steal``, the hypervisor's share of the machine over the run
    (:func:`steal_share`), recorded to say how quiet the machine was: it
    does not decide ``quiet``."""
    cpu = emu_report["cpu"]
    share = cpu["runqueue_wait_ns"] / 1e9 / max(emu_report["elapsed_s"], 1e-9)
    out = {"runqueue_wait_share": share, "involuntary_switches": cpu["involuntary_switches"],
           "quiet": share < QUIET_SHARE}
    if steal is not None:
        out["steal_share"] = steal
    return out


def timing_problems(error_ns: Dict[str, float], packet_ns: float, path: str = "",
                    checked: Sequence[str] = ("p99", "p99_9")) -> List[str]:
    """What in the emulator's timing error (``timing_error_ns`` of its
    report: percentiles of its lateness, ns) is over budget
    (:data:`P99_BUDGET`, :data:`P999_BUDGET`); empty when within it.
    ``path`` names the direction in the message (``""``: the data's);
    ``checked``: the percentiles to check (a missing one is over)."""
    out = []
    for key, budget, name in (("p99", P99_BUDGET, "99th"), ("p99_9", P999_BUDGET, "99.9th")):
        if key not in checked:
            continue
        got, limit = error_ns.get(key, math.inf), budget * packet_ns
        if not got < limit:
            out.append(f"the {name} percentile of the emulator's timing error{path} is {got / 1e3:.1f} us, "
                       f"over its budget of {limit / 1e3:.1f} us")
    return out


#: tracefs, for :class:`ReadTrace`
TRACEFS = Path("/sys/kernel/tracing")
#: Per-CPU trace buffer while reads are traced: a 10 Mb/s run of 30 s
#: holds some 60,000 events, a 50 Mb/s one five times as many.
TRACE_BUFFER_KB = 65536
#: Quantiles a flow's read delays are kept by (0 to 1 in equal steps): the
#: tail matters (a rare millisecond read holds the ACKs of every segment
#: behind it), and with 101 the last 1% would spread evenly to the longest.
READ_QUANTILES = 1001


class ReadTrace:
    """The receiving application's reads, from the kernel's own tracepoints.

    Linux sends many of a receiver's ACKs from the application's read
    (``tcp_cleanup_rbuf``) and measures the receive buffer there
    (``tcp_rcv_space_adjust``), so when the receiving application wakes
    is part of the ACK clock; ccsim takes it as ``read_delay_s``. Each
    read's delay is the time from the first data made readable after the
    previous read (``sock:sk_data_ready``, from ``sock_def_readable``) to
    the read's return (``sock:sock_recv_length`` with bytes), per socket,
    on the ``mono`` trace clock. Sockets are matched to flows by the bytes
    the receiver counted on each. Tracefs is the machine's, so a run
    owns it while it runs and restores the settings it changed.
    """

    EVENTS = {"sk_data_ready": "family == 2 && protocol == 6",
              "sock_recv_length": "family == 2 && protocol == 6 && ret > 0"}
    SETTINGS = {"trace_clock": "mono", "options/fields": "1", "buffer_size_kb": str(TRACE_BUFFER_KB)}

    def __init__(self) -> None:
        self.saved: Dict[str, str] = {}
        #: events the kernel dropped for want of buffer (set by ``stop``)
        self.overrun = 0

    @staticmethod
    def available() -> bool:
        if not (TRACEFS / "events").exists():
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], capture_output=True)
        return all((TRACEFS / "events" / "sock" / e).exists() for e in ReadTrace.EVENTS)

    def _write(self, rel: str, value: str) -> None:
        (TRACEFS / rel).write_text(value)

    def __enter__(self) -> "ReadTrace":
        for rel, value in self.SETTINGS.items():
            cur = (TRACEFS / rel).read_text().strip()
            # trace_clock lists every clock, the current one in brackets;
            # an unexpanded buffer reads "7 (expanded: 1408)"
            self.saved[rel] = cur[cur.index("[") + 1:cur.index("]")] if "[" in cur else cur.split()[0]
            self._write(rel, value)
        self._write("trace", "")
        for e, flt in self.EVENTS.items():
            self._write(f"events/sock/{e}/filter", flt)
            self._write(f"events/sock/{e}/enable", "1")
        return self

    def _disable(self) -> None:
        for e in self.EVENTS:
            self._write(f"events/sock/{e}/enable", "0")

    def stop(self) -> str:
        """Stops tracing; the trace's text."""
        self._disable()
        text = (TRACEFS / "trace").read_text(errors="replace")  # task names need not be UTF-8
        self.overrun = sum(int(line.split(":")[1]) for cpu in (TRACEFS / "per_cpu").iterdir()
                           for line in (cpu / "stats").read_text().splitlines() if line.startswith("overrun:"))
        return text

    def __exit__(self, *exc) -> None:
        self._disable()
        for e in self.EVENTS:
            self._write(f"events/sock/{e}/filter", "0")
        self._write("trace", "")
        for rel, value in self.saved.items():
            self._write(rel, value)


def parse_read_trace(text: str) -> Dict[int, List[tuple]]:
    """Per socket (its address), its events in order: ("ready", t_ns) and
    ("read", t_ns, bytes)."""
    pat = re.compile(r"\s(\d+)\.(\d{6}): (sk_data_ready|sock_recv_length): (?:skaddr|sk)=0x([0-9a-f]+)"
                     r"(?:.*? ret=0x[0-9a-f]+ \((\d+)\))?")
    out: Dict[int, List[tuple]] = {}
    for line in text.splitlines():
        m = pat.search(line)
        if not m:
            continue
        t = int(m.group(1)) * 1_000_000_000 + int(m.group(2)) * 1000
        ev = ("ready", t) if m.group(3) == "sk_data_ready" else ("read", t, int(m.group(5)))
        out.setdefault(int(m.group(4), 16), []).append(ev)
    return out


def read_records(events: Sequence[tuple]) -> List[Tuple[int, int, int]]:
    """One socket's reads as (readable_ns, read_ns, bytes): when the first
    data made readable after the previous read arrived, and when the read
    that took it returned."""
    out, since = [], None
    for ev in events:
        if ev[0] == "ready":
            if since is None:
                since = ev[1]
        elif since is not None:
            out.append((since, ev[1], ev[2]))
            since = None
    return out


def read_delays(events: Sequence[tuple]) -> List[int]:
    """One socket's read delays, ns: from the first data made readable
    after the previous read to the read that follows."""
    return [max(0, r - s) for s, r, _ in read_records(events)]


def quantiles(xs: Sequence[float], n: int = READ_QUANTILES) -> List[float]:
    """``n`` quantiles of ``xs`` at equal steps from 0 to 1 (linear
    interpolation between order statistics)."""
    import numpy as np

    return np.quantile(np.asarray(xs, dtype=float), np.linspace(0.0, 1.0, n)).tolist()


def tail_quantiles(xs: Sequence[float], n: int = READ_QUANTILES) -> Tuple[List[float], List[float]]:
    """(probabilities, quantiles) of ``xs``: at equal steps up to the last
    step's start, ``(n-2)/(n-1)``, then every order statistic above it
    (the k-th of m sorted values at k/(m-1)). All lie on the one
    piecewise-linear quantile function :func:`quantiles` samples, but
    the tail keeps each of its values: at equal steps the last step runs
    from the 99.9th percentile to the maximum, and ccsim, drawing evenly
    between the two, would turn one stall of 41 ms among 23,600 reads
    into some 23 draws spread up to it."""
    import numpy as np

    x = np.sort(np.asarray(xs, dtype=float))
    m = len(x)
    if m < 2:
        return [0.0, 1.0], [float(x[0])] * 2
    cut = (n - 2) / (n - 1)
    body = np.linspace(0.0, 1.0, n)[:-1]
    k = np.arange(int(np.floor(cut * (m - 1))) + 1, m)
    p = np.concatenate([body, k / (m - 1)])
    return p.tolist(), np.concatenate([np.quantile(x, body), x[k]]).tolist()


def flow_sockets(per_socket: Dict[int, List[tuple]], bytes_received: Sequence[int]) -> Optional[List[int]]:
    """Each flow's traced socket: the one whose reads sum to the flow's
    received bytes. None when the sockets cannot be told apart that way
    (two flows with equal totals, or a lost event)."""
    totals = {sk: sum(e[2] for e in evs if e[0] == "read") for sk, evs in per_socket.items()}
    if len(set(bytes_received)) != len(bytes_received):
        return None
    out = []
    for n in bytes_received:
        match = [sk for sk, tot in totals.items() if tot == n]
        if len(match) != 1 or n == 0:
            return None
        out.append(match[0])
    return out


def write_reads_csv(path: Path, per_socket: Dict[int, List[tuple]], sockets: Sequence[int]) -> None:
    """Every read of each flow (:func:`read_records`) as
    ``flow,readable_ns,read_ns,bytes`` on the ``mono`` clock, for analyses
    the recorded quantiles cannot answer (a read's delay against the idle
    time before it, say)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["flow", "readable_ns", "read_ns", "bytes"])
        for i, sk in enumerate(sockets):
            out.writerows((i, *rec) for rec in read_records(per_socket[sk]))


def flow_reads(per_socket: Dict[int, List[tuple]], bytes_received: Sequence[int]) -> Optional[List[dict]]:
    """Each flow's read delays from the traced sockets
    (:func:`flow_sockets`): their count, median, 99th percentile, maximum
    and quantiles at probabilities (:func:`tail_quantiles`: equal steps,
    then the tail value by value). None when the sockets cannot be told
    apart."""
    sockets = flow_sockets(per_socket, bytes_received)
    return None if sockets is None else socket_reads(per_socket, sockets)


def socket_reads(per_socket: Dict[int, List[tuple]], sockets: Sequence[int]) -> Optional[List[dict]]:
    """:func:`flow_reads` of flows already matched to their sockets; None
    when one has no read."""
    out = []
    for sk in sockets:
        delays = read_delays(per_socket[sk])
        if not delays:
            return None
        probs, qs = tail_quantiles(delays)
        out.append({"reads": len(delays), "median_us": quantiles(delays, 3)[1] / 1e3,
                    "p99_us": quantiles(delays, 101)[99] / 1e3, "max_us": max(delays) / 1e3,
                    "probabilities": [round(p, 9) for p in probs],
                    "quantiles_s": [round(q / 1e9, 7) for q in qs]})
    return out


def _other_cpus(emu_cpu: Optional[int]) -> Optional[List[int]]:
    cpus = sorted(os.sched_getaffinity(0))
    rest = [c for c in cpus if c != emu_cpu]
    return rest if emu_cpu is not None and rest else None


def run(scenario: dict, out_dir: Path, run_index: int, options: Optional[dict] = None) -> dict:
    """Runs ``scenario`` once against the kernel; returns the record (also
    written to ``out_dir/run-<run_index>.json``; the emulator's arrival and
    departure logs to ``out_dir/run-<run_index>.{arrivals,departures}.csv``,
    each flow's reads to ``out_dir/run-<run_index>.reads.csv``).

    Per flow, ``goodput_mbps`` is the receive rate over the flow's
    ``[start_s, stop_s]``; ``goodput_mbps_steady`` leaves out the first
    fifth of that window (slow start); ``rx_bytes`` is the 10 ms receive
    series from the common t0 (``t`` of ``tcp_info`` in s from t0 too)."""
    opts = {**LIVE_OPTS, **(options or {})}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    flows = scenario["flows"]
    duration = float(scenario["duration_s"])
    stem = out_dir / f"run-{run_index}"
    cpus = _other_cpus(opts.get("cpu"))
    net = Dumbbell(scenario["rate_mbps"], scenario["buffer_pkts"], scenario["rtt_ms"], len(flows),
                   scenario.get("mtu", 1500), [f.get("extra_rtt_ms", 0) for f in flows], scenario.get("loss", 0.0),
                   scenario.get("seed", run_index + 1), stem, opts, duration + 60, scenario.get("duplex", True))
    trace = ReadTrace() if opts["trace_reads"] and ReadTrace.available() else None
    ticks = cpu_times()
    with net, (trace or contextlib.nullcontext()):
        sysctls = _read_sysctls(net.snd)
        rcv_out, snd_out = Path(f"{stem}.receiver.json"), Path(f"{stem}.sender.json")
        t0 = time.monotonic_ns() + int(START_MARGIN_S * 1e9) + 10**9  # receiver's start included
        receiver = net.spawn(net.rcv, "tcp-receiver",
                              {"t0_ns": t0, "duration_s": duration, "n_flows": len(flows), "cpus": cpus,
                               "spin": opts["apps_spin"], "out": str(rcv_out)}, Path(f"{stem}.receiver.cfg.json"))
        _wait_line(receiver, "listening", 10)
        before = _snmp(net.snd)
        sender_flows = [{"start_s": f["start_s"], "stop_s": f["stop_s"],
                         "cc": f.get("cc", scenario.get("cc", "cubic"))} for f in flows]
        sender = net.spawn(net.snd, "tcp-sender",
                           {"t0_ns": t0, "flows": sender_flows, "cpus": cpus, "spin": opts["apps_spin"],
                            "out": str(snd_out)}, Path(f"{stem}.sender.cfg.json"))
        sent = _finish(sender, snd_out, duration + 60)
        received = _finish(receiver, rcv_out, DRAIN_S + 60)
        reads = None
        if trace is not None:
            text = trace.stop()
            per_socket = parse_read_trace(text)
            sockets = None if trace.overrun else flow_sockets(per_socket, received["bytes_received"])
            reads = None if sockets is None else socket_reads(per_socket, sockets)
            if reads is not None:
                write_reads_csv(Path(f"{stem}.reads.csv"), per_socket, sockets)
        counters = _counter_deltas(before, _snmp(net.snd))
        links = {"tsnd": _link_stats(net.snd, "tsnd"), "trcv": _link_stats(net.rcv, "trcv")}
        emu_report = net.stop_emulator()
    arrivals = read_arrivals(net.arrivals)
    lens = [a["len"] for a in arrivals]
    out_flows = []
    for i, (f, s) in enumerate(zip(flows, sent["flows"])):
        rx = received["rx_bytes"][i]
        steady_from = f["start_s"] + (f["stop_s"] - f["start_s"]) / 5
        out_flows.append({
            "index": i, "src": flow_addr(i), "cc": sender_flows[i]["cc"], "start_s": f["start_s"],
            "stop_s": f["stop_s"], "extra_rtt_ms": f.get("extra_rtt_ms", 0),
            "goodput_mbps": _goodput(rx, f["start_s"], f["stop_s"]),
            "goodput_mbps_steady": _goodput(rx, steady_from, f["stop_s"]), "steady_from_s": steady_from,
            "bytes_received": received["bytes_received"][i],
            "bytes_outside_bins": received["bytes_outside_bins"][i],
            "rx_bin_s": BIN_S, "rx_bytes": rx, **s,
        })
    record = {
        "scenario": scenario, "run_index": run_index, "options": opts, "kernel": os.uname().release,
        "sysctls": sysctls,
        "t0_monotonic_ns": t0, "emulator_t0_monotonic_ns": emu_report["t0_monotonic_ns"],
        "emulator": emu_report, "flows": out_flows, "counters": counters, "links": links,
        "bottleneck_packets": {"count": len(lens), "max_len": max(lens, default=0),
                               "over_mtu": sum(n > scenario.get("mtu", 1500) for n in lens)},
        "replay": replay_check(arrivals, emu_report["config"]["rate_bps"], scenario["buffer_pkts"],
                               scenario.get("loss", 0.0), scenario.get("seed", run_index + 1)),
        "cpu_s": {"sender": sent["cpu_s"], "receiver": received["cpu_s"]},
        # the receiving application's reads per flow (ReadTrace); None
        # when not traced or not told apart
        "reads": reads,
        "contention": contention(emu_report, steal_share(ticks, cpu_times())),
    }
    (out_dir / f"run-{run_index}.json").write_text(json.dumps(record))
    return record


# --------------------------------------------------------------------------
# Self-test


def _pct(v: List[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(v)
    return s[max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))] if s else float("nan")


def selftest_rate(rate_mbps: float, out_dir: Path, options: Optional[dict] = None, seconds: float = 5.0,
                  loss: float = 0.01, buffer_pkts: int = 50) -> dict:
    """UDP at 1.25 times ``rate_mbps`` through the emulator (1 ms each way,
    ``loss`` random loss) for ``seconds``; the receiver's gaps against the
    packet time, the emulator's own errors, and the arrival-log replay."""
    opts = {**LIVE_OPTS, **(options or {})}
    ip_len, rate_bps = 1500, int(round(rate_mbps * 1e6))
    pkt_ns = serialisation_ns(ip_len, rate_bps)
    stem = out_dir / f"selftest-{rate_mbps:g}"
    cpus = _other_cpus(opts.get("cpu"))
    seed = 7
    net = Dumbbell(rate_mbps, buffer_pkts, 2.0, 1, 1500, [0], loss, seed, stem, opts, seconds + 60)
    ticks = cpu_times()
    with net:
        t0 = time.monotonic_ns() + int(START_MARGIN_S * 1e9) + 10**9
        sink_out, src_out = Path(f"{stem}.sink.json"), Path(f"{stem}.source.json")
        sink = net.spawn(net.rcv, "udp-sink", {"t0_ns": t0, "duration_s": seconds, "cpus": cpus,
                                               "spin": opts["apps_spin"],
                                                 "out": str(sink_out)}, Path(f"{stem}.sink.cfg.json"))
        _wait_line(sink, "listening", 10)
        source = net.spawn(net.snd, "udp-source", {"t0_ns": t0, "duration_s": seconds, "cpus": cpus,
                                                     "rate_bps": 1.25 * rate_bps, "ip_len": ip_len,
                                                     "out": str(src_out)}, Path(f"{stem}.source.cfg.json"))
        sent = _finish(source, src_out, seconds + 60)
        got = _finish(sink, sink_out, DRAIN_S + 60)
        links = {"tsnd": _link_stats(net.snd, "tsnd"), "trcv": _link_stats(net.rcv, "trcv")}
        emu_report = net.stop_emulator()
    # Gaps while the queue is surely backlogged: from 0.5 s after t0 (the
    # buffer has filled) to the source's stop.
    lo, hi = t0 + int(0.5e9), t0 + int(seconds * 1e9)
    rx = got["rx_ns"]
    mono_off = _realtime_minus_monotonic()
    gaps = [b - a for a, b in zip(rx, rx[1:]) if lo <= a - mono_off and b - mono_off <= hi]
    err = [abs(g - pkt_ns) for g in gaps]
    fwd = emu_report["forward"]
    replay = replay_check(read_arrivals(net.arrivals), rate_bps, buffer_pkts, loss, seed)
    p99_limit = pkt_ns / 10
    res = {
        "rate_mbps": rate_mbps, "packet_time_ns": pkt_ns, "buffer_pkts": buffer_pkts, "loss": loss,
        "sent": sent["sent"], "received": len(rx),
        "gap_abs_error_ns": {"count": len(err), "p50": _pct(err, 0.5), "p99": _pct(err, 0.99),
                             "p99_9": _pct(err, 0.999), "max": max(err, default=float("nan"))},
        "emulator_error_ns": fwd["timing_error_ns"], "emulator_write_ns": fwd["write_syscall_ns"],
        "emulator_loop": emu_report["loop"], "emulator_cpu": emu_report["cpu"],
        "counts": {k: fwd[k] for k in ("packets_in", "dropped_buffer", "dropped_loss", "packets_out")},
        "replay": replay, "links": links, "contention": contention(emu_report, steal_share(ticks, cpu_times())),
        "p99_limit_ns": p99_limit,
    }
    res["problems"] = timing_problems(fwd["timing_error_ns"], pkt_ns)
    res["pass"] = bool(err) and res["gap_abs_error_ns"]["p99"] < p99_limit and not res["problems"] and \
        replay["differ"] == 0
    return res


def _realtime_minus_monotonic() -> int:
    """CLOCK_REALTIME - CLOCK_MONOTONIC now (SO_TIMESTAMPNS stamps are
    realtime; the runs' t0 is monotonic)."""
    a = time.monotonic_ns()
    r = time.time_ns()
    b = time.monotonic_ns()
    return r - (a + b) // 2


def _check_splitmix() -> None:
    """The generator's published first outputs for seed 0 (as the crate's test)."""
    g = SplitMix64(0)
    assert (g.next_u64(), g.next_u64()) == (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4)


def selftest(out_dir: Path, rates: Sequence[float] = (10, 50, 100), options: Optional[dict] = None) -> dict:
    _check_splitmix()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [selftest_rate(r, out_dir, options) for r in rates]
    print(f"{'Mb/s':>6} {'pkt us':>7} {'gap p50':>8} {'gap p99':>8} {'gap max':>8} {'emu p99':>8} "
          f"{'p99.9':>8} {'emu max':>8} {'limit':>7} {'replay':>12} {'wait':>6} {'steal':>6}  verdict   (errors in "
          "us; wait: share of the run the emulator waited for its CPU; steal: the hypervisor's share of the machine)")
    for r in rows:
        g, e = r["gap_abs_error_ns"], r["emulator_error_ns"]
        rp = r["replay"]
        print(f"{r['rate_mbps']:>6g} {r['packet_time_ns'] / 1e3:>7.1f} {g['p50'] / 1e3:>8.2f} {g['p99'] / 1e3:>8.2f} "
              f"{g['max'] / 1e3:>8.1f} {e.get('p99', math.nan) / 1e3:>8.2f} "
              f"{e.get('p99_9', math.nan) / 1e3:>8.1f} {e.get('max', math.nan) / 1e3:>8.1f} "
              f"{r['p99_limit_ns'] / 1e3:>7.1f} {rp['differ']:>4}/{rp['arrivals']:<7} "
              f"{r['contention']['runqueue_wait_share']:>6.4f} {r['contention']['steal_share']:>6.4f}  "
              f"{'ok' if r['pass'] else 'FAIL'}"
              f"{'' if r['contention']['quiet'] else ' (machine busy)'}")
    result = {"kernel": os.uname().release, "options": {**LIVE_OPTS, **(options or {})}, "rates": rows}
    (out_dir / "selftest.json").write_text(json.dumps(result, indent=1))
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.kernel_live", description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", help="scenario as JSON text, or @FILE")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--rates", default="10,50,100", help="selftest rates, Mb/s")
    ap.add_argument("--out", default="/tmp/ccsim-kernel-live", help="output directory")
    ap.add_argument("--run-index", type=int, default=0)
    ap.add_argument("--spin-us", type=int, help="emulator sleeps when idle longer than this (default: busy-poll)")
    ap.add_argument("--emu-cpu", type=int, default=LIVE_OPTS["cpu"], help="CPU for the emulator (-1: unpinned)")
    ap.add_argument("--apps-spin", action="store_true", help="senders and receivers poll without sleeping")
    ap.add_argument("--role", choices=sorted(ROLES), help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the namespaces are still removed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if a.role:
        cfg = json.loads(Path(a.config).read_text())
        Path(cfg["out"]).write_text(json.dumps(ROLES[a.role](cfg)))
        return 0
    opts = {"cpu": None if a.emu_cpu < 0 else a.emu_cpu, "apps_spin": a.apps_spin}
    if a.spin_us is not None:
        opts.update(busy_poll=False, spin_us=a.spin_us)
    if a.selftest:
        res = selftest(Path(a.out), [float(r) for r in a.rates.split(",")], opts)
        return 0 if all(r["pass"] for r in res["rates"]) else 1
    if a.scenario:
        text = Path(a.scenario[1:]).read_text() if a.scenario.startswith("@") else a.scenario
        rec = run(json.loads(text), Path(a.out), a.run_index, opts)
        e = rec["emulator"]["forward"]
        print(f"{rec['scenario'].get('name', '')}: drops {e['dropped_buffer']} buffer, {e['dropped_loss']} loss; "
              f"emulator p99 error {e['timing_error_ns'].get('p99', 0) / 1e3:.1f} us; "
              f"replay differences {rec['replay']['differ']}")
        if not rec["contention"]["quiet"]:
            print(f"  warning: the emulator waited for its CPU {rec['contention']['runqueue_wait_share']:.2%} "
                  "of the run (other work on the machine); its timing is suspect")
        for f in rec["flows"]:
            print(f"  flow {f['index']} {f['cc']}: {f['goodput_mbps']:.2f} Mb/s "
                  f"(steady {f['goodput_mbps_steady']:.2f}), retrans {f['final_tcp_info']['total_retrans']}, "
                  f"RTOs {f['final_tcp_info']['total_rto']}")
        print(f"  counters: {rec['counters']['named']}")
        return 0
    ap.error("give --scenario or --selftest")
    return 2


if __name__ == "__main__":
    sys.exit(main())
