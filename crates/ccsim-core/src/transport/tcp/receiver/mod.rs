//! The TCP receiver: cumulative ACKs, SACK blocks (RFC 2018), delayed ACKs
//! (RFC 5681 §4.2), timestamp echo (RFC 7323) and ECN echo (RFC 3168
//! §6.1.3: ECE on every ACK from a CE mark until a CWR arrives).
//!
//! Out-of-order data is kept as an interval map, so a long run of segments
//! above a hole costs O(log n) per arrival. The first SACK block always holds
//! the segment that triggered the ACK; the others repeat the most recently
//! reported blocks (RFC 2018 §4). Out-of-order segments and segments that
//! fill a hole are ACKed at once even with delayed ACKs. When an in-order
//! segment is ACKed at once and how long its ACK may wait otherwise is the
//! flow's `delack_model`: a fixed timer, Linux's quick ACKs and adaptive
//! timeout ([`super::delack`]), or ns-3's fixed timer with the first data
//! segment ACKed at once.
//!
//! An ACK is `header_bytes` long, plus its SACK option's bytes as
//! `sack_option` counts them (none by default; ns-3's or Linux's layout).
//! With `recovery = "sack1"` the blocks are ns-2's `Agent/TCPSink/Sack1`
//! ones instead ([`sack1::Sacker`]), 8 bytes each on the wire.
pub mod reader;
pub mod sack1;

use super::accecn::AccEcnReceiver;
use super::delack::{DelackLimits, LinuxDelack};
use super::intervals::Intervals;
use super::rcv_window::LinuxRcvWindow;
use super::sack_compress::SackCompress;
use super::{EcnFeedback, TcpConfig};
use crate::net::packet::{
    CongestionHeader, Ecn, Kind, Packet, SackBlock, TcpHeader, XcpHeader, IP_OPT_NONE, L4, MAX_SACK_BLOCKS,
};
use crate::net::Net;
use crate::sim::time::to_secs;
use crate::sim::{BareTimer, Time};
use crate::transport::{receiver_timer, AppDelay, ReceiverAgent};
use reader::{Reader, Wake};
use sack1::{Sacker, SACK1_BLOCKS};
use std::collections::VecDeque;

/// The delayed ACK's timer ([`receiver_timer`] slot).
const DELACK_SLOT: u8 = 0;
/// Linux's SACK compression timer ([`receiver_timer`] slot).
const COMPRESS_SLOT: u8 = 1;
/// The application's next read ([`receiver_timer`] slot).
const READ_SLOT: u8 = 2;

pub struct TcpReceiver {
    pub flow: u32,
    cfg: TcpConfig,
    pub rcv_nxt: u64,
    /// The out-of-order data, only while there is some ([`RxHoles`]).
    holes: Option<Box<RxHoles>>,
    pending: u32,
    ts_pending: Time,
    /// ECN-Echo latched by a CE mark, cleared by the sender's CWR.
    ece: bool,
    /// The next ACK answers ns-2's ECN negotiation with ECE.
    negotiate: bool,
    /// GWA: the window to advertise, from the latest data packet's B_n
    /// (0: none, the sender keeps its configured window).
    wnd: u32,
    /// BA: the latest data packet's v, echoed in the ACK's option.
    ba_v: u32,
    delack_timer: BareTimer,
    /// `delack_model = "linux"` with delayed ACKs: quick ACKs, the ATO
    /// and the offered window ([`LinuxRx`]).
    linux: Option<Box<LinuxRx>>,
    /// `delack_model = "ns3"` with delayed ACKs, until the first ACK is
    /// sent: the next in-order segment is ACKed at once (ns-3's delayed-ACK
    /// count starts full after the handshake).
    ns3_first: bool,
    /// XCP: an XCP header arrived since the last ACK, whose feedback
    /// (`RxExtras::echo_fb`) the next ACK echoes.
    echo: bool,
    /// In-order payload bytes handed to the application.
    pub delivered_bytes: u64,
    /// Every data byte that arrived (headers and duplicates included).
    pub rx_bytes: u64,
    /// Whether the segment being acknowledged had arrived before (ns-2's
    /// Sack1 block generator, and the D-SACK of `dsack`).
    last_dup: bool,
    /// AccECN, Telnet's application delay, ns-2's Sack1 blocks, XCP's
    /// echo: what only some receivers use, in one box made only for them
    /// (a long-lived flow should cost little).
    extras: Option<Box<RxExtras>>,
}

/// What a receiver holds only while data above a hole has arrived: boxed,
/// made at the first such segment and dropped when the hole fills, so a
/// flow without holes keeps 8 bytes, not 64.
#[derive(Default)]
struct RxHoles {
    /// The out-of-order segments, as ranges (never empty).
    ooo: Intervals,
    /// Segments that opened or extended reported blocks, most recent first.
    recent: Vec<u64>,
    /// The segments in `ooo`, kept as they come and go (Linux's receiver
    /// reads it on every segment while a hole is open).
    held: u64,
}

impl RxHoles {
    /// Segment `seq` is held out of order (a field-level borrow, for use
    /// while the receiver's other parts are borrowed).
    fn holds(holes: Option<&RxHoles>, seq: u64) -> bool {
        holes.is_some_and(|h| h.ooo.containing(seq).is_some())
    }
}

/// A Linux receiver's ACK timing ([`LinuxDelack`], [`SackCompress`]) and
/// the window it offers ([`LinuxRcvWindow`]), whose growth quick-ACKs a
/// segment: boxed, made only for `delack_model = "linux"` with delayed
/// ACKs.
struct LinuxRx {
    delack: LinuxDelack,
    window: LinuxRcvWindow,
    /// SACKs held above a hole, with SACK recovery.
    compress: SackCompress,
    /// Expires when the held SACKs go (`compressed_ack_timer`).
    compress_timer: BareTimer,
    /// The held SACK's timestamp echo and triggering segment: the latest
    /// segment held, whose block leads the ACK.
    held: (Time, u64),
    /// `rcv_wup`: the cumulative ACK of the last ACK sent.
    acked_nxt: u64,
    /// `rcv_wnd`: the window the last ACK offered, bytes.
    rcv_wnd: u32,
    /// `ICSK_ACK_PUSHED`: an in-order segment with PSH arrived since the
    /// last ACK, which the read that empties the queue then sends.
    pushed: bool,
    /// The application's reads ([`Reader`]).
    reader: Reader,
    /// The flow's delayed-ACK limits, this receiver's own once its
    /// handshake measured an RTT ([`DelackLimits::after_handshake`]).
    limits: DelackLimits,
    /// `syn = "linux"`: when the latest SYN-ACK left, until the first data
    /// segment times it.
    synack_at: Option<Time>,
}

/// What only some receivers use ([`TcpReceiver`]'s `extras`).
#[derive(Default)]
struct RxExtras {
    /// `ecn_feedback = "accecn"`: the CE packet counter the ACE field
    /// feeds back (RFC 9768), instead of `ece`.
    accecn: Option<AccEcnReceiver>,
    /// Application delay (Telnet), once a write was noted.
    app: Option<AppTiming>,
    /// ns-2's Sack1 block generator (`recovery = "sack1"` only).
    sacker: Option<Box<Sacker>>,
    /// XCP: feedback of the data received since the last ACK, summed
    /// (ns-2 `XcpTcpSink`'s `xcp_rev_fb_`).
    echo_fb: f64,
}

/// A Telnet flow's application delay at the receiver (in the receiver's
/// extras: a bulk transfer notes no writes).
#[derive(Default)]
struct AppTiming {
    /// The write times of the segments from `rcv_nxt` on (one segment per
    /// write, from segment 0), and whether each is measured.
    sent: VecDeque<(Time, bool)>,
    delay: AppDelay,
}

impl TcpReceiver {
    /// `seed`: the scenario's, for the reading application's draws.
    pub fn new(flow: u32, cfg: TcpConfig, seed: u64) -> Self {
        TcpReceiver {
            flow,
            rcv_nxt: 0,
            holes: None,
            pending: 0,
            ts_pending: 0,
            ece: false,
            negotiate: false,
            wnd: 0,
            ba_v: IP_OPT_NONE,
            delack_timer: BareTimer::new(),
            linux: cfg.linux_receiver().then(|| {
                Box::new(LinuxRx {
                    delack: LinuxDelack::default(),
                    window: LinuxRcvWindow::new(cfg.mss, cfg.ts_clock_phase),
                    limits: cfg.delack_limits,
                    synack_at: None,
                    compress: SackCompress::default(),
                    compress_timer: BareTimer::new(),
                    held: (0, 0),
                    acked_nxt: 0,
                    rcv_wnd: super::rcv_window::initial_window(cfg.mss),
                    pushed: false,
                    reader: Reader::new(cfg.read_delay.is_some(), seed, flow),
                })
            }),
            ns3_first: cfg.delayed_ack && cfg.delack_model == super::DelackModel::Ns3,
            echo: false,
            delivered_bytes: 0,
            rx_bytes: 0,
            last_dup: false,
            extras: {
                let accecn = (cfg.ecn_feedback == EcnFeedback::Accecn).then(AccEcnReceiver::default);
                let sacker = (cfg.recovery == super::Recovery::Sack1).then(Box::default);
                (accecn.is_some() || sacker.is_some())
                    .then(|| Box::new(RxExtras { accecn, sacker, ..RxExtras::default() }))
            },
            cfg,
        }
    }

    #[inline]
    fn x_mut(&mut self) -> Option<&mut RxExtras> {
        self.extras.as_deref_mut()
    }

    /// Whether this receiver has made its box of extras ([`RxExtras`]).
    #[cfg(test)]
    pub(crate) fn has_extras(&self) -> bool {
        self.extras.is_some()
    }

    /// A data segment with header `h`, `size` bytes on the wire, sent at
    /// `ts`, CE-marked or not.
    fn on_data(&mut self, net: &mut Net, h: &TcpHeader, size: u32, ts: Time, ce: bool) {
        let (seq, tsecr, cwr) = (h.seq, h.tsecr(), h.cwr);
        let old = self.rcv_nxt;
        let had_hole = self.holes.is_some();
        let dup = seq < old || RxHoles::holds(self.holes.as_deref(), seq);
        let held_before = self.linux.as_deref().map(|l| (self.held(), l.reader.unread()));
        self.rx_bytes += size as u64;
        let dctcp_echo = self.cfg.ecn_feedback == EcnFeedback::Dctcp;
        if dctcp_echo && ce != self.ece && self.pending > 0 {
            // RFC 8257 §3.2: the CE state changed with ACKs owed; they go
            // now, with the old state, so no ACK mixes the two.
            self.send_ack(net, self.ts_pending, old.saturating_sub(1));
        }
        if let Some(LinuxRx { delack: l, limits, synack_at, .. }) = self.linux.as_deref_mut() {
            if let Some(t) = synack_at.take() {
                // the handshake's RTT: the SYN-ACK to the first data
                *limits = limits.after_handshake(to_secs(net.now.saturating_sub(t)), &self.cfg.rto);
            }
            // Linux enters quick ACKs at a CE mark only when not already
            // echoing one (`TCP_ECN_DEMAND_CWR` not set).
            let first_ce = ce && (cwr || !self.ece);
            if dup {
                l.on_duplicate(limits);
            } else if seq == old {
                l.on_data(net.now, first_ce, limits);
            } else {
                l.on_out_of_order(first_ce, limits);
            }
        }
        // RFC 3168 §6.1.3: latched until CWR; DCTCP: the last segment's CE.
        self.ece = if dctcp_echo { ce } else { (self.ece && !cwr) || ce };
        // AccECN: an ACK at once at the first of a run of marks and after
        // every second mark (RFC 9768 §3.2.2.5.1).
        let accecn_now = self.x_mut().and_then(|x| x.accecn.as_mut()).is_some_and(|a| a.on_data(ce));
        let sacker = self.extras.as_deref_mut().and_then(|x| x.sacker.as_deref_mut());
        if sacker.is_some() || self.cfg.dsack {
            self.last_dup = seq < old || RxHoles::holds(self.holes.as_deref(), seq);
        }
        if let Some(sk) = sacker {
            sk.on_data(seq);
        }
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some(h) = self.holes.as_deref_mut() {
                if let Some((s, e)) = h.ooo.first() {
                    if s == self.rcv_nxt {
                        self.rcv_nxt = e;
                        h.ooo.remove(s);
                        h.held -= e - s;
                    }
                }
                if h.ooo.is_empty() {
                    // the hole filled: every block-opening segment is
                    // below `rcv_nxt` now
                    self.holes = None;
                } else {
                    h.recent.retain(|&r| r >= self.rcv_nxt);
                }
            }
        } else if seq > self.rcv_nxt {
            self.insert_ooo(seq);
        }
        self.delivered_bytes += self.cfg.payload_between(old, self.rcv_nxt);
        if let Some((held, unread)) = held_before {
            self.rwin_on_data(net.now, seq, old, dup, tsecr, held, unread);
            if let Some(l) = self.linux.as_deref_mut() {
                // queued until the application reads them
                l.reader.queue(self.rcv_nxt - old);
            }
        }
        if let Some(a) = self.extras.as_deref_mut().and_then(|x| x.app.as_mut()) {
            // Segments old..rcv_nxt reach the application now: each
            // message's delay runs from its write, retransmissions and
            // waits behind a hole included.
            // (a SYN, segment 0 with `syn`, is no message)
            for _ in old.max(self.cfg.first_data_seg())..self.rcv_nxt {
                match a.sent.pop_front() {
                    Some((t, true)) => a.delay.record(net.now.saturating_sub(t)),
                    Some((_, false)) => {}
                    None => break,
                }
            }
        }
        let in_order_no_hole = seq == old && !had_hole;
        if !self.cfg.delayed_ack || !in_order_no_hole {
            if self.sack_may_wait(dup) {
                self.hold_sack(net, ts, seq);
            } else {
                self.send_ack(net, ts, seq);
            }
        } else {
            if self.pending == 0 {
                self.ts_pending = ts;
            }
            self.pending += 1;
            let quick = self.linux.as_ref().is_some_and(|l| l.delack.quick());
            // Linux: a full-sized segment with PSH sets `ICSK_ACK_PUSHED`
            // (`tcp_measure_rcv_mss`), and the application's read that
            // empties the receive queue then sends the ACK owed
            // (`tcp_cleanup_rbuf`; "tcp: fix delayed ACKs for MSS boundary
            // condition", 2023, in 6.7 and the stable kernels): see
            // `read`.
            if let Some(l) = self.linux.as_deref_mut() {
                l.pushed |= h.psh();
            }
            // (an application that reads at once sends an ACK the read
            // owes now, below: no timer for it)
            let read_acks_now =
                self.cfg.read_delay.is_none() && self.linux.as_deref().is_some_and(|l| l.pushed || self.pending >= 2);
            if (self.pending >= 2 && self.window_advances()) || quick || accecn_now || self.ns3_first {
                self.send_ack(net, self.ts_pending, seq);
            } else if !read_acks_now {
                let wait = match self.linux.as_ref() {
                    Some(l) => l.delack.delay(l.limits.max_wait(self.cfg.delack_timeout)),
                    None => self.cfg.delack_timeout,
                };
                self.delack_timer.arm(
                    &mut net.events,
                    receiver_timer(self.flow, DELACK_SLOT),
                    net.now.saturating_add(wait),
                );
            }
        }
        if self.rcv_nxt > old {
            self.readable(net);
        } else if self.linux.is_some() && self.cfg.read_delay.is_none() {
            // Without a read delay the buffer is measured at every
            // arrival, as the model had it before reads were timed; Linux
            // measures only in reads, which data above a hole does not
            // wake (docs/decisions/2026-12-01-the-receiving-application.md)
            let span = self.ooo_span();
            if let Some(l) = self.linux.as_deref_mut() {
                l.window.on_read(net.now, self.delivered_bytes, 0, span);
            }
        }
    }

    /// Linux: in-order data became readable (`sk_data_ready`): the
    /// application reads now, at its due read, or wakes after a delay
    /// ([`Reader`]).
    fn readable(&mut self, net: &mut Net) {
        let Some(l) = self.linux.as_deref_mut() else { return };
        match l.reader.wake() {
            Wake::Now => self.read(net),
            Wake::Due => {}
            Wake::After(r) => {
                let delay = self.cfg.read_delay.as_ref().map_or(0, |d| d.draw(r));
                let at = net.now.saturating_add(delay);
                l.reader.timer.arm(&mut net.events, receiver_timer(self.flow, READ_SLOT), at);
            }
        }
    }

    /// Linux: the application reads everything readable
    /// (`tcp_recvmsg_locked`): the buffer's once-per-RTT measurement
    /// (`tcp_rcv_space_adjust`), then the ACK the arrivals left to the
    /// read (`tcp_cleanup_rbuf`): one is owed, and two segments or more
    /// wait for it, or a segment with PSH does and nothing is left queued
    /// (`sk_rmem_alloc` holds the data above a hole too).
    fn read(&mut self, net: &mut Net) {
        let span = self.ooo_span();
        let Some(l) = self.linux.as_deref_mut() else { return };
        // Linux measures after each skb the read copies, the first one
        // deciding: through the read's first segment (one skb per
        // segment, as a TUN device's are), the rest still queued
        let behind_first = l.reader.unread().saturating_sub(1);
        let inq = self.cfg.payload_between(self.rcv_nxt - behind_first, self.rcv_nxt);
        l.reader.on_read();
        l.window.on_read(net.now, self.delivered_bytes - inq, inq, span);
        let two = self.rcv_nxt.saturating_sub(l.acked_nxt) > 1;
        if self.pending > 0 && (two || (l.pushed && self.holes.is_none())) {
            self.send_ack(net, self.ts_pending, self.rcv_nxt.saturating_sub(1));
        }
    }

    /// Linux's second condition for ACKing two segments at once
    /// (`__tcp_ack_snd_check`): the window an ACK would offer now is no
    /// smaller than the last one offered (`__tcp_select_window() >=
    /// rcv_wnd`); unread data shrinks it, and the read then sends the ACK.
    /// (Its alternative, less than `SO_RCVLOWAT` unread, never holds at an
    /// arrival: the arriving segment is unread.) Other receivers: true.
    fn window_advances(&self) -> bool {
        self.linux.as_deref().is_none_or(|l| l.window.select(l.reader.unread() + self.held()) >= l.rcv_wnd)
    }

    /// Bytes from the next expected byte to the highest held above a hole.
    fn ooo_span(&self) -> u64 {
        self.holes.as_deref().and_then(|h| h.ooo.last()).map_or(0, |(_, e)| self.cfg.payload_between(self.rcv_nxt, e))
    }

    fn on_delack(&mut self, net: &mut Net) {
        if self.pending > 0 {
            if let Some(l) = self.linux.as_deref_mut() {
                l.delack.on_timeout(&l.limits);
            }
            self.send_ack(net, self.ts_pending, self.rcv_nxt.saturating_sub(1));
        }
    }

    /// Linux (`__tcp_ack_snd_check`, with `sack_compression`): an ACK for a
    /// segment that leaves data above a hole goes at once for a segment
    /// received before (quick ACKs), in quick-ACK mode, or with more than
    /// one segment in order since the last ACK; otherwise [`SackCompress`]
    /// decides.
    /// A hole filled leaves no data above one (`ICSK_ACK_NOW`). The
    /// offered window's part of the second test (`__tcp_select_window >=
    /// rcv_wnd`, [`Self::window_advances`]) is taken as met here: with it
    /// the data above the hole shrinks the window, which moved the kernel
    /// comparison's four-flow runs (docs/decisions/2026-12-01-the-receiving-application.md).
    fn sack_may_wait(&mut self, dup: bool) -> bool {
        if dup || self.holes.is_none() || !self.cfg.sack_compression {
            return false;
        }
        let Some(l) = self.linux.as_deref_mut() else { return false };
        if l.delack.quick() || self.rcv_nxt.saturating_sub(l.acked_nxt) > 1 {
            return false;
        }
        l.compress.hold(self.rcv_nxt)
    }

    /// Holds the SACK for segment `seq` (sent at `ts`), arming the
    /// compression timer if it is the first held.
    fn hold_sack(&mut self, net: &mut Net, ts: Time, seq: u64) {
        let Some(l) = self.linux.as_deref_mut() else { return };
        l.held = (ts, seq);
        if !l.compress_timer.is_armed() {
            let wait = SackCompress::wait(l.window.rtt_us8(), l.limits.srtt_us8());
            l.compress_timer.arm(
                &mut net.events,
                receiver_timer(self.flow, COMPRESS_SLOT),
                net.now.saturating_add(wait),
            );
        }
    }

    fn insert_ooo(&mut self, seq: u64) {
        let h = self.holes.get_or_insert_with(Default::default);
        if h.ooo.containing(seq).is_some() {
            return; // duplicate
        }
        let mut start = seq;
        let mut end = seq + 1;
        if let Some((s, e)) = h.ooo.before(seq) {
            if e == seq {
                start = s;
                h.ooo.remove(s);
            }
        }
        if let Some(e) = h.ooo.end_of(seq + 1) {
            end = e;
            h.ooo.remove(seq + 1);
        }
        h.ooo.insert(start, end);
        h.held += 1;
        h.recent.retain(|&r| r != seq);
        h.recent.insert(0, seq);
        h.recent.truncate(2 * MAX_SACK_BLOCKS);
    }

    /// Linux's offered window and buffer on a data segment (`seq`, with
    /// `old` expected, `held` segments above a hole before it): the RTT
    /// sample, the window's growth as the segment is queued (a quick ACK),
    /// with `unread` in-order segments the application has not read.
    #[allow(clippy::too_many_arguments)]
    fn rwin_on_data(&mut self, now: Time, seq: u64, old: u64, dup: bool, tsecr: Time, held: u64, unread: u64) {
        let len = self.cfg.payload(seq);
        let span = self.ooo_span();
        let Some(LinuxRx { delack: l, window: w, .. }) = self.linux.as_deref_mut() else { return };
        w.on_segment(now, tsecr, len, unread == 0);
        let grew = if seq == old {
            w.on_in_order(now, len, 1 + held + unread, self.delivered_bytes)
        } else {
            !dup && w.on_out_of_order(len, held + unread, span)
        };
        if grew {
            l.on_window_grew();
        }
    }

    /// The segments held above a hole.
    fn held(&self) -> u64 {
        self.holes.as_deref().map_or(0, |h| h.held)
    }

    fn block_of(&self, seq: u64) -> Option<SackBlock> {
        self.holes.as_deref().and_then(|h| h.ooo.containing(seq))
    }

    /// `syn = "linux"`: a SYN (segment 0) is answered at once with a
    /// SYN-ACK, a header with the SYN's options that echoes its send time. The listener
    /// answers from a request socket (`tcp_v4_send_synack`): the
    /// connection's ACK timing, window and ECN state start with the data,
    /// its delayed ACKs bounded by the RTT from this SYN-ACK to them.
    fn syn_ack(&mut self, net: &mut Net, ts_echo: Time) {
        self.rcv_nxt = self.rcv_nxt.max(1);
        if let Some(l) = self.linux.as_deref_mut() {
            // a resent SYN-ACK's is the sample (its TSval is echoed)
            l.synack_at = Some(net.now);
        }
        let h = TcpHeader { seq: net.now, ack: self.rcv_nxt, wnd: self.wnd, ..Default::default() };
        let size = self.cfg.syn_bytes();
        net.send(Packet { flow: self.flow, kind: Kind::Ack, size, ts: ts_echo, l4: L4::Tcp(h), ..Default::default() });
    }

    fn send_ack(&mut self, net: &mut Net, ts_echo: Time, trigger: u64) {
        self.pending = 0;
        self.ns3_first = false;
        self.delack_timer.disarm();
        let held = self.held();
        if let Some(l) = self.linux.as_mut() {
            l.delack.on_ack_sent();
            l.compress.on_ack_sent();
            l.compress_timer.disarm();
            // `tcp_select_window`: never less than what is left of the
            // last offer
            let used = self.cfg.payload_between(l.acked_nxt, self.rcv_nxt);
            l.rcv_wnd = l.window.offer(l.reader.unread() + held, l.rcv_wnd.saturating_sub(used as u32));
            l.pushed = false;
            l.acked_nxt = self.rcv_nxt;
        }
        let ece = self.ece || std::mem::take(&mut self.negotiate);
        // (`seq`: the ACK's TSval, its send time)
        let mut h = TcpHeader { seq: net.now, ack: self.rcv_nxt, ece, wnd: self.wnd, ..Default::default() };
        if let Some(a) = self.x_mut().and_then(|x| x.accecn.as_mut()) {
            h.set_ace(a.ack_sent());
        }
        if let Some(sk) = self.extras.as_deref_mut().and_then(|x| x.sacker.as_deref_mut()) {
            let mut out = [(0, 0); SACK1_BLOCKS];
            let holes = self.holes.as_deref();
            let block_of = |seq: u64| holes.and_then(|h| h.ooo.containing(seq));
            let n = sk.blocks(trigger, self.last_dup, self.rcv_nxt, block_of, &mut out);
            // (a block never lies below the cumulative ACK: covered stack
            // entries are dropped when the ACK passes them)
            for &b in out[..n].iter().filter(|b| b.0 >= self.rcv_nxt) {
                h.push_sack(b);
            }
        } else if self.cfg.recovery == super::Recovery::Sack {
            // RFC 2883 §4: a duplicate is reported first, as a D-SACK (Linux
            // `tcp_dsack_set`); the block holding it, if any, comes second.
            if self.cfg.dsack && std::mem::take(&mut self.last_dup) {
                h.push_dsack((trigger, trigger + 1));
            }
            let recent = self.holes.as_deref().map_or(&[][..], |holes| &holes.recent[..]);
            for &seq in std::iter::once(&trigger).chain(recent) {
                if h.n_sack() == MAX_SACK_BLOCKS {
                    break;
                }
                if let Some(b) = self.block_of(seq) {
                    if !h.sack_blocks_no_dsack().any(|x| x == b) {
                        h.push_sack(b);
                    }
                }
            }
        }
        // ns-2's Sacker adds 8 bytes per block (`ch->size() += sack_index * 8`);
        // the RFC receiver's option as `sack_option` has it.
        let sack_bytes = if self.extras.as_ref().is_some_and(|x| x.sacker.is_some()) {
            8 * h.n_sack() as u32
        } else {
            self.cfg.sack_option.bytes(h.n_sack())
        };
        let size = self.cfg.header.max(1) + sack_bytes;
        // BA-TCP: v goes back to the sender in the ACK's option.
        let ip_opt = if self.cfg.ba { self.ba_v } else { IP_OPT_NONE };
        let cong = std::mem::take(&mut self.echo).then(|| {
            let f = self.x_mut().map_or(0.0, |x| std::mem::take(&mut x.echo_fb));
            CongestionHeader::Xcp(XcpHeader { feedback_bytes_per_s: f as f32, ..Default::default() })
        });
        net.send(Packet {
            flow: self.flow,
            kind: Kind::Ack,
            size,
            ts: ts_echo,
            ip_opt,
            l4: L4::Tcp(h),
            cong,
            ..Default::default()
        });
    }
}

impl ReceiverAgent for TcpReceiver {
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        if let Some(h) = pkt.tcp() {
            if self.cfg.gwa && pkt.ip_opt != IP_OPT_NONE {
                // GWA eq. 2: W_a = min(B_r, B_n), B_n as the path left it.
                self.wnd = self.cfg.gwa_window(pkt.ip_opt);
            }
            if self.cfg.ba {
                self.ba_v = pkt.ip_opt;
            }
            if let Some(CongestionHeader::Xcp(x)) = pkt.cong {
                self.extras.get_or_insert_with(Box::default).echo_fb += x.feedback_bytes_per_s as f64;
                self.echo = true;
            }
            if h.seq == 0 && self.cfg.syn == super::Syn::Linux {
                return self.syn_ack(net, pkt.ts);
            }
            // ns-2's ECN negotiation (tcp-sink.cc `ack`): a segment sent
            // Not-ECT with ECE (an ns-2 agent's segment 0) is answered
            // with ECE, once, whatever the marks.
            self.negotiate = h.ece && pkt.ecn == Ecn::NotEct;
            self.on_data(net, h, pkt.size, pkt.ts, pkt.ecn == Ecn::Ce);
        }
    }

    fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        if slot == COMPRESS_SLOT {
            // `tcp_compressed_ack_kick`: the held SACKs go as one ACK
            let Some(l) = self.linux.as_deref_mut() else { return };
            if l.compress_timer.fire(&mut net.events, receiver_timer(self.flow, COMPRESS_SLOT), net.now, gen)
                && l.compress.holding()
            {
                let (ts, seq) = l.held;
                self.send_ack(net, ts, seq);
            }
        } else if slot == READ_SLOT {
            let Some(l) = self.linux.as_deref_mut() else { return };
            if l.reader.timer.fire(&mut net.events, receiver_timer(self.flow, READ_SLOT), net.now, gen) {
                self.read(net);
            }
        } else if self.delack_timer.fire(&mut net.events, receiver_timer(self.flow, DELACK_SLOT), net.now, gen) {
            self.on_delack(net);
        }
    }

    fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }

    fn rx_bytes(&self) -> u64 {
        self.rx_bytes
    }

    fn app_sent(&mut self, now: Time, measured: bool) {
        self.extras
            .get_or_insert_with(Box::default)
            .app
            .get_or_insert_with(AppTiming::default)
            .sent
            .push_back((now, measured));
    }

    fn app_delay(&self) -> Option<AppDelay> {
        self.extras.as_ref().and_then(|x| x.app.as_ref()).map(|a| a.delay)
    }
}

/// The receiver's SACK option bytes, D-SACKs and SACK compression: all
/// need the RFC receiver's SACK blocks, the last Linux's receiver too.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.sack_option != SackOption::None && cfg.recovery != Recovery::Sack {
        return Err(ConfigError::new(
            p("sack_option"),
            format!(
                "\"{}\" needs recovery = \"sack\" (the RFC receiver's SACK blocks; ns-2's Sack1 sink adds its \
                 own 8 bytes per block), got \"{}\"",
                kind_name(&cfg.sack_option),
                kind_name(&cfg.recovery)
            ),
        ));
    }
    if cfg.sack_compression && (cfg.recovery != Recovery::Sack || !cfg.linux_receiver()) {
        return Err(ConfigError::new(
            p("sack_compression"),
            format!(
                "true needs recovery = \"sack\" and Linux's receiver (delayed_ack = true, delack_model = \"linux\"), \
                 got recovery = \"{}\", delayed_ack = {}, delack_model = \"{}\"",
                kind_name(&cfg.recovery),
                cfg.delayed_ack,
                kind_name(&cfg.delack_model)
            ),
        ));
    }
    if let Some(phase) = f.ts_clock_phase_s {
        if !(0.0..0.001).contains(&phase) {
            return Err(ConfigError::new(
                p("ts_clock_phase_s"),
                format!("{phase} is outside [0, 0.001): the phase of a millisecond clock"),
            ));
        }
        if !cfg.linux_receiver() {
            return Err(ConfigError::new(
                p("ts_clock_phase_s"),
                format!(
                    "needs Linux's receiver, whose RTT samples it times (delayed_ack = true, delack_model = \"linux\"), \
                     got delayed_ack = {}, delack_model = \"{}\"",
                    cfg.delayed_ack,
                    kind_name(&cfg.delack_model)
                ),
            ));
        }
    }
    if f.read_delay_s.is_some() && !cfg.linux_receiver() {
        return Err(ConfigError::new(
            p("read_delay_s"),
            format!(
                "needs Linux's receiver, whose reads it times (delayed_ack = true, delack_model = \"linux\"), got \
                 delayed_ack = {}, delack_model = \"{}\"",
                cfg.delayed_ack,
                kind_name(&cfg.delack_model)
            ),
        ));
    }
    if cfg.dsack && cfg.recovery != Recovery::Sack {
        return Err(ConfigError::new(
            p("dsack"),
            format!(
                "true needs recovery = \"sack\" (a D-SACK is a SACK block, RFC 2883), got \"{}\"",
                kind_name(&cfg.recovery)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::FlowSpec;
    use crate::transport::tcp::sack_compress::COMP_SACK_SLACK;

    const US: Time = 1_000_000;

    /// A receiver of `spec` (JSON fields) on a one-link network whose
    /// events are never run: what it sends stays in the network, counted
    /// by `flow_in_network`.
    fn on_test_link(spec: serde_json::Value) -> (TcpReceiver, Net) {
        let mut spec: FlowSpec = serde_json::from_value(spec).unwrap();
        crate::transport::tcp::fill_defaults(&mut spec);
        let cfg = TcpConfig::from_spec(&spec, "flow").unwrap();
        (TcpReceiver::new(0, cfg, 1), crate::transport::tcp::one_link_net())
    }

    fn segment(r: &mut TcpReceiver, net: &mut Net, at: Time, seq: u64) -> u32 {
        deliver(r, net, at, TcpHeader { seq, ..Default::default() })
    }

    /// Segment `h` arrives at `at`: the ACKs it sent at once.
    fn deliver(r: &mut TcpReceiver, net: &mut Net, at: Time, h: TcpHeader) -> u32 {
        net.now = at;
        let before = net.flow_in_network(0);
        r.on_packet(net, &Packet { flow: 0, size: 1500, ts: at, l4: L4::Tcp(h), ..Default::default() });
        net.flow_in_network(0) - before
    }

    /// The same with PSH set.
    fn pushed_segment(r: &mut TcpReceiver, net: &mut Net, at: Time, seq: u64) -> u32 {
        let mut h = TcpHeader { seq, ..Default::default() };
        h.set_psh();
        deliver(r, net, at, h)
    }

    /// Linux's receiver ACKs a segment with PSH at once when nothing
    /// waits above a hole (`ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf`): the
    /// segment that ends a sender's transmission is answered even when it
    /// is the first of a pair. Without PSH it waits for the second; above
    /// a hole PSH changes nothing (the SACK rules decide); the RFC
    /// receiver ignores it.
    #[test]
    fn a_pushed_segment_in_order_is_acked_at_once() {
        let (mut r, mut net, t) = steady(serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02}));
        assert_eq!(segment(&mut r, &mut net, t, 4001), 0, "first of a pair: delayed");
        assert_eq!(segment(&mut r, &mut net, t + 240 * US, 4002), 1, "second: at once");
        assert_eq!(pushed_segment(&mut r, &mut net, t + 480 * US, 4003), 1, "PSH, first of a pair: at once");
        assert_eq!(segment(&mut r, &mut net, t + 720 * US, 4004), 0, "a new pair begins");
        assert_eq!(pushed_segment(&mut r, &mut net, t + 960 * US, 4005), 1);
        // above a hole (4006 lost) SACK compression decides, PSH or not:
        // a quick ACK (the window grew) and three SACKs, then one held
        let mut u = t + 1200 * US;
        for seq in 4007..=4010 {
            assert_eq!(pushed_segment(&mut r, &mut net, u, seq), 1, "segment {seq}: at once");
            u += 240 * US;
        }
        assert_eq!(pushed_segment(&mut r, &mut net, u, 4011), 0, "held by SACK compression");
        // ns-2's sink ACKs every second segment, PSH or not
        let (mut ns2, mut net2) = on_test_link(serde_json::json!({"tcp_model": "ns2", "delayed_ack": true}));
        let acks: u32 = (0..10).map(|i| pushed_segment(&mut ns2, &mut net2, i * 240 * US, i)).sum();
        assert_eq!(acks, 5, "ns-2's sink ignores PSH");
    }

    /// A Linux receiver past its quick ACKs: the handshake, then 4000
    /// segments in order, one every 240 us (50 Mb/s), RTT 20 ms (an even
    /// count: no ACK owed), each read before the next arrives. The next
    /// is 4001.
    fn steady(spec: serde_json::Value) -> (TcpReceiver, Net, Time) {
        let (mut r, mut net) = on_test_link(spec);
        segment(&mut r, &mut net, 0, 0);
        let mut t = 20_000 * US;
        for seq in 1..=4000 {
            segment(&mut r, &mut net, t, seq);
            if r.linux.as_deref().is_some_and(|l| l.reader.timer.is_armed()) {
                due_read(&mut r, &mut net);
            }
            t += 240 * US;
        }
        let l = r.linux.as_deref().unwrap();
        assert!(!l.delack.quick(), "quick ACKs over");
        (r, net, t)
    }

    /// Segment 4001 lost. 4002 takes the offered window to its clamp
    /// (`tcp_grow_window`: a quick ACK); 4003-4005 get their SACKs at once
    /// (the three at one cumulative ACK), 4006-4008 are held, and one ACK
    /// goes when the timer expires (5% of the RTT, at most 1 ms, plus its
    /// 100 us slack), led by 4008's block; the hole filled (4001
    /// retransmitted) is ACKed at once and cancels the timer.
    #[test]
    fn sacks_after_the_third_at_one_cumulative_ack_wait_for_the_timer() {
        let (mut r, mut net, mut t) = steady(serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02}));
        let grown = |r: &TcpReceiver| r.linux.as_deref().map(|l| l.window.rcv_ssthresh()).unwrap();
        let before = grown(&r);
        assert_eq!(segment(&mut r, &mut net, t, 4002), 1, "4002: at once, the window grew");
        assert!(grown(&r) > before);
        assert_eq!(grown(&r), r.linux.as_deref().unwrap().window.window_clamp());
        t += 240 * US;
        for seq in 4003..=4005 {
            assert_eq!(segment(&mut r, &mut net, t, seq), 1, "segment {seq}: at once");
            t += 240 * US;
        }
        let held_from = t;
        for seq in 4006..=4008 {
            assert_eq!(segment(&mut r, &mut net, t, seq), 0, "segment {seq}: held");
            t += 240 * US;
        }
        let l = r.linux.as_deref().unwrap();
        let wait = SackCompress::wait(l.window.rtt_us8(), l.limits.srtt_us8());
        // the handshake's 20 ms and the receiver's own estimate: 5% of the
        // smaller, plus the slack
        assert_eq!(l.limits.srtt_us8(), 8 * 20_000);
        assert!(l.window.rtt_us8() > 0 && wait > COMP_SACK_SLACK && wait <= 1000 * US + COMP_SACK_SLACK, "{wait}");
        assert_eq!(l.compress_timer.deadline(), Some(held_from + wait));
        assert_eq!(l.held.1, 4008);
        // the timer: one ACK, then nothing is held
        net.now = held_from + wait;
        let before = net.flow_in_network(0);
        let gen = loop {
            let ev = net.events.pop().expect("the compression timer's event");
            if ev.time == held_from + wait && ev.to.slot == crate::transport::slot::RECEIVER + COMPRESS_SLOT {
                break ev.gen;
            }
        };
        r.on_timer(&mut net, COMPRESS_SLOT, gen);
        assert_eq!(net.flow_in_network(0) - before, 1);
        assert!(!r.linux.as_deref().unwrap().compress.holding());
        // 4009: past the three at rcv_nxt 4001, held again
        t = net.now + 240 * US;
        assert_eq!(segment(&mut r, &mut net, t, 4009), 0);
        // the retransmission of 4001 fills the hole: at once, timer cancelled
        assert_eq!(segment(&mut r, &mut net, t + 240 * US, 4001), 1);
        assert!(r.linux.as_deref().unwrap().compress_timer.deadline().is_none());
        assert_eq!(r.rcv_nxt, 4010);
    }

    /// Runs the receiver's due read: when it ran and the ACKs it sent.
    fn due_read(r: &mut TcpReceiver, net: &mut Net) -> (Time, u32) {
        let at = r.linux.as_deref().unwrap().reader.timer.deadline().expect("a read due");
        net.now = at;
        let before = net.flow_in_network(0);
        let gen = loop {
            let ev = net.events.pop().expect("the read's event");
            if ev.time == at && ev.to.slot == crate::transport::slot::RECEIVER + READ_SLOT {
                break ev.gen;
            }
        };
        r.on_timer(net, READ_SLOT, gen);
        (at, net.flow_in_network(0) - before)
    }

    /// With `read_delay_s` the ACK a segment with PSH is owed goes when
    /// the application has read it (`tcp_cleanup_rbuf`), the delay after
    /// its arrival; a lone segment without PSH still waits for its pair or
    /// the timer, the read sends nothing for it.
    #[test]
    fn a_pushed_segment_is_acked_by_the_read() {
        let (mut r, mut net, t) =
            steady(serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02, "read_delay_s": 100e-6}));
        assert_eq!(pushed_segment(&mut r, &mut net, t, 4001), 0, "not at the arrival");
        assert_eq!(due_read(&mut r, &mut net), (t + 100 * US, 1), "at the read");
        assert_eq!(segment(&mut r, &mut net, t + 240 * US, 4002), 0);
        assert_eq!(due_read(&mut r, &mut net), (t + 340 * US, 0), "one segment without PSH: the read owes nothing");
        assert_eq!(r.linux.as_deref().unwrap().reader.unread(), 0);
    }

    /// Two segments are ACKed at the second's arrival only if the window
    /// an ACK offers has not shrunk since the last (`__tcp_ack_snd_check`):
    /// the first still unread holds buffer space, so the ACK waits for
    /// the read, which sends it (`rcv_nxt - rcv_wup > rcv_mss` in
    /// `tcp_cleanup_rbuf`). Read before the second arrives, the first
    /// frees its space and the pair is ACKed at once.
    #[test]
    fn a_pair_waits_for_the_read_while_unread_data_shrinks_the_window() {
        let spec = |d: f64| serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02, "read_delay_s": d});
        let (mut slow, mut net, t) = steady(spec(1e-3));
        assert_eq!(segment(&mut slow, &mut net, t, 4001), 0);
        assert_eq!(segment(&mut slow, &mut net, t + 240 * US, 4002), 0, "the first is unread: no ACK yet");
        let l = slow.linux.as_deref().unwrap();
        assert!(l.window.select(2) < l.rcv_wnd, "two unread segments shrink the offer");
        assert_eq!(due_read(&mut slow, &mut net), (t + 1000 * US, 1), "the read sends it");
        let (mut quick, mut net, t) = steady(spec(100e-6));
        assert_eq!(segment(&mut quick, &mut net, t, 4001), 0);
        assert_eq!(due_read(&mut quick, &mut net).1, 0);
        assert_eq!(segment(&mut quick, &mut net, t + 240 * US, 4002), 1, "the first was read: at once");
    }

    /// Each flow's reads draw from their own stream of the seed: the same
    /// seed gives the same reads, another seed other ones.
    #[test]
    fn reads_are_drawn_from_the_seed() {
        let reads = |seed: u64| {
            let mut spec: FlowSpec = serde_json::from_value(
                serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02, "read_delay_s": [50e-6, 1e-3]}),
            )
            .unwrap();
            crate::transport::tcp::fill_defaults(&mut spec);
            let mut r = TcpReceiver::new(0, TcpConfig::from_spec(&spec, "flow").unwrap(), seed);
            let mut net = crate::transport::tcp::one_link_net();
            segment(&mut r, &mut net, 0, 0); // the SYN
            (1..20)
                .map(|i| {
                    segment(&mut r, &mut net, i * 5000 * US, i);
                    let (at, _) = due_read(&mut r, &mut net);
                    at - i * 5000 * US
                })
                .collect::<Vec<Time>>()
        };
        assert_eq!(reads(1), reads(1));
        assert_ne!(reads(1), reads(2));
        assert!(reads(3).iter().all(|&d| (50 * US..=1000 * US).contains(&d)));
    }

    /// A flow's TCP configuration from JSON fields, or its error.
    fn config_of(j: serde_json::Value) -> Result<TcpConfig, String> {
        let mut spec: FlowSpec = serde_json::from_value(j).unwrap();
        crate::transport::tcp::fill_defaults(&mut spec);
        TcpConfig::from_spec(&spec, "flows[0]").map_err(|e| e.to_string())
    }

    #[test]
    fn a_read_delay_needs_linux_receiver_and_valid_quantiles() {
        let at = |p: &[f64], q: &[f64]| serde_json::json!({"tcp_model": "linux", "read_delay_s": {"probabilities": p, "quantiles_s": q}});
        assert!(config_of(serde_json::json!({"tcp_model": "linux", "read_delay_s": [0.0, 1e-4]})).is_ok());
        assert!(config_of(at(&[0.0, 0.999, 1.0], &[0.0, 1e-4, 4e-2])).is_ok());
        for (j, named) in [
            (serde_json::json!({"delack_model": "fixed", "read_delay_s": 1e-4}), "flows[0].read_delay_s"),
            (serde_json::json!({"tcp_model": "linux", "read_delay_s": []}), "an empty list is not allowed"),
            (serde_json::json!({"tcp_model": "linux", "read_delay_s": [2e-4, 1e-4]}), "flows[0].read_delay_s[1]"),
            (serde_json::json!({"tcp_model": "linux", "read_delay_s": -1.0}), "must be a finite number ≥ 0"),
            (at(&[0.0, 1.0], &[2e-4, 1e-4]), "flows[0].read_delay_s.quantiles_s[1]"),
            (
                at(&[0.0, 0.5], &[1e-4, 2e-4]),
                "flows[0].read_delay_s.probabilities[1]: 0.5 is not allowed; the last must be 1",
            ),
            (at(&[0.1, 1.0], &[1e-4, 2e-4]), "probabilities[0]: 0.1 is not allowed; the first must be 0"),
            (
                at(&[0.0, 0.5, 0.5, 1.0], &[1e-4; 4]),
                "probabilities[2]: 0.5 is not allowed; must be above the one before it",
            ),
            (at(&[0.0, 1.0], &[1e-4, 2e-4, 3e-4]), "probabilities: 2 values is not allowed; give one per quantile (3)"),
        ] {
            let e = config_of(j.clone()).expect_err(&j.to_string());
            assert!(e.contains(named), "{j}: {e}");
        }
    }

    /// Without `sack_compression` (the RFC receiver's rule, RFC 5681 §4.2)
    /// every segment above a hole is ACKed at once.
    #[test]
    fn without_sack_compression_every_segment_above_a_hole_is_acked_at_once() {
        let (mut r, mut net, t) =
            steady(serde_json::json!({"tcp_model": "linux", "rtt_s": 0.02, "sack_compression": false}));
        for (i, seq) in (4002..=4010).enumerate() {
            assert_eq!(segment(&mut r, &mut net, t + i as Time * 240 * US, seq), 1, "segment {seq}");
        }
    }

    #[test]
    fn the_timestamp_clock_phase_is_a_linux_receivers_and_under_a_millisecond() {
        let ok = config_of(serde_json::json!({"tcp_model": "linux", "ts_clock_phase_s": 0.0004})).unwrap();
        assert_eq!(ok.ts_clock_phase, 400 * US);
        for (j, named) in [
            (serde_json::json!({"tcp_model": "linux", "ts_clock_phase_s": 0.001}), "0.001 is outside [0, 0.001)"),
            (serde_json::json!({"tcp_model": "linux", "ts_clock_phase_s": -1e-6}), "outside [0, 0.001)"),
            (serde_json::json!({"delack_model": "fixed", "ts_clock_phase_s": 0.0004}), "delack_model = \"fixed\""),
            (
                serde_json::json!({"tcp_model": "linux", "delayed_ack": false, "ts_clock_phase_s": 0.0}),
                "delayed_ack = false",
            ),
        ] {
            let e = config_of(j.clone()).expect_err("refused");
            assert!(e.contains("flows[0].ts_clock_phase_s") && e.contains(named), "{j}: {e}");
        }
    }

    #[test]
    fn sack_compression_needs_sack_and_linuxs_receiver() {
        for (extra, named) in [
            (serde_json::json!({"recovery": "newreno"}), "recovery = \"newreno\""),
            (serde_json::json!({"delayed_ack": false}), "delayed_ack = false"),
            (serde_json::json!({"delack_model": "fixed"}), "delack_model = \"fixed\""),
        ] {
            let mut j = serde_json::json!({"tcp_model": "linux", "sack_compression": true});
            j.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            let mut spec: FlowSpec = serde_json::from_value(j).unwrap();
            crate::transport::tcp::fill_defaults(&mut spec);
            let e = TcpConfig::from_spec(&spec, "flows[0]").expect_err("refused").to_string();
            assert!(e.contains("flows[0].sack_compression") && e.contains(named), "{e}");
        }
        // the personality turns it on only where it applies
        for (j, on) in [
            (serde_json::json!({"tcp_model": "linux"}), true),
            (serde_json::json!({"tcp_model": "linux", "delayed_ack": false}), false),
            (serde_json::json!({"tcp_model": "linux", "recovery": "newreno"}), false),
            (serde_json::json!({}), false),
        ] {
            let mut spec: FlowSpec = serde_json::from_value(j.clone()).unwrap();
            crate::transport::tcp::fill_defaults(&mut spec);
            assert_eq!(TcpConfig::from_spec(&spec, "f").unwrap().sack_compression, on, "{j}");
        }
    }
}
