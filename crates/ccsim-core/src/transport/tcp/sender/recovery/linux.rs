//! Linux 6.x's loss recovery (`tcp_model = "linux"`), each rule a flow
//! field that can be switched off:
//!
//! - `rack` (RFC 8985 as `net/ipv4/tcp_recovery.c` runs it): a segment is
//!   lost once a segment sent after it is delivered and more than the
//!   delivered segment's RTT plus a reordering window has passed since it
//!   was sent (`tcp_rack_detect_loss`); the window is min_rtt/4 (capped
//!   by SRTT), zero in recovery or once DupThresh segments are SACKed
//!   while no reordering was seen (`tcp_rack_reo_wnd`); what is not yet
//!   lost arms the reordering timer (`tcp_rack_mark_lost`,
//!   `tcp_rack_reo_timeout`). Recovery starts when a segment is marked
//!   lost (`tcp_time_to_recover`: with RACK, no duplicate-ACK count).
//! - `tlp` (RFC 8985 §7, `tcp_schedule_loss_probe`, `tcp_send_loss_probe`):
//!   in the open state a probe timer of 2·SRTT (+ 200 ms with one segment
//!   out, else + 2 ms), never later than the RTO, sends new data or
//!   retransmits the last segment, once per tail; an ACK beyond the
//!   probed retransmission (no DSACK) cuts the window as a CWR
//!   (`tcp_process_tlp_ack`).
//! - `reno_sack` (without SACK, `tcp_add_reno_sack`,
//!   `tcp_remove_reno_sacks`): duplicate ACKs count as segments delivered,
//!   so the cumulative ACK after k of them grows cwnd by max(acked − k, 1);
//!   without RACK the RFCs' duplicate-ACK recovery runs.
//! - zero-window probes (RFC 9293 §3.8.6.1; `tcp_check_probe_timer`,
//!   `tcp_probe_timer`, `tcp_send_probe0`, `tcp_ack_probe`): with data
//!   waiting behind a zero window and nothing out, the one timer probes
//!   after max(RTO, 200 ms), doubling up to 120 s; an ACK that opens the
//!   window stops it. Not modelled: the abort after `tcp_retries2`
//!   probes. Only replayed ACKs close the window.
//! - `rto_rack_mark` (`tcp_timeout_mark_lost`): an RTO marks lost the
//!   head and the segments whose RACK time has passed, not every
//!   un-SACKed one; cwnd = in flight + 1 (`tcp_enter_loss`).
//!
//! The state (per-segment transmission times, RACK's, TLP's and which
//! use the one retransmission timer is armed for, as Linux's
//! `icsk_pending`) lives in [`Linux`], boxed beside the sender only for
//! flows that run this strategy. PRR (RFC 9937, `tcp_cwnd_reduction`)
//! and Linux's RTO estimator are the sender's (`prr`, `rtt_estimator =
//! "linux"`), on by the personality.
use super::linux_undo::Undo;
use super::rfc::Rfc;
use super::{NewAck, RecoveryOps};
use crate::transport::tcp::sender::*;
use std::collections::VecDeque;

/// `TCP_TIMEOUT_MIN_US` (2 ms): added to the RACK and probe timers before
/// they are rounded up to jiffies.
const TIMEOUT_MIN_S: f64 = 0.002;

/// `TCP_RTO_MAX`: the persist timer's longest interval, seconds.
const TCP_RTO_MAX_S: f64 = 120.0;

/// `tcp_retries2`: the persist timer's backoff stops growing there.
const TCP_RETRIES2: u32 = 15;

/// `tcp_max_reordering`: the largest reordering degree.
const MAX_REORDERING: u64 = 300;

/// What the one retransmission timer is armed for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pending {
    #[default]
    Rto,
    /// RACK's reordering timer (`ICSK_TIME_REO_TIMEOUT`).
    Reo,
    /// The tail loss probe (`ICSK_TIME_LOSS_PROBE`).
    Tlp,
    /// The zero-window probe (`ICSK_TIME_PROBE0`).
    Probe0,
}

/// RFC 8985's RACK state (`tp->rack`).
#[derive(Clone, Debug, Default)]
struct Rack {
    /// Transmission time and end (one past) of the most recently sent
    /// segment delivered (`rack.mstamp`, `rack.end_seq`).
    mstamp: Time,
    end_seq: u64,
    /// That segment's RTT (`rack.rtt_us`).
    rtt: Time,
    /// A delivery moved it since the last loss detection
    /// (`rack.advanced`).
    advanced: bool,
}

/// The `linux` strategy's state.
#[derive(Clone, Debug, Default)]
pub struct Linux {
    /// Latest transmission time of each outstanding segment `[base, ..)`
    /// and whether it was retransmitted (`tcp_skb_timestamp_us`,
    /// `TCPCB_RETRANS`).
    xmit: VecDeque<(Time, bool)>,
    base: u64,
    rack: Rack,
    /// Retransmissions in the order they were sent, with their times:
    /// RACK looks for lost ones from the oldest (Linux's time-sorted
    /// `tsorted_sent_queue`). An entry whose segment was delivered or
    /// sent again is dropped when reached.
    retx_q: VecDeque<(u64, Time)>,
    /// Times reordering was seen (`tp->reord_seen`): once it was, the
    /// reordering window stays min_rtt/4.
    reord_seen: u32,
    /// The reordering degree in segments (`tp->reordering`, from
    /// `dupthresh`): past `dupthresh`, cwnd grows on any delivery.
    reordering: u64,
    /// One past the highest SACKed segment before this ACK (`prior_fack`).
    fack_before: u64,
    /// The lowest segment this ACK delivered that was never
    /// retransmitted and lies below `fack_before`: reordering.
    reord_low: Option<u64>,
    /// `tlp_high_seq` (one past): a probe is outstanding.
    tlp_high: Option<u64>,
    /// The probe was a retransmission (`tlp_retrans`).
    tlp_retrans: bool,
    pub(in crate::transport::tcp) pending: Pending,
    /// The reordering timer was armed by this ACK's loss detection
    /// (clears `FLAG_SET_XMIT_TIMER`).
    reo_armed_now: bool,
    /// Linux's `TCP_CA_Disorder`: set by an ACK in the open state that
    /// leaves SACKed, lost or retransmitted data out (`tcp_try_to_open`),
    /// kept until the next ACK (a probe sent meanwhile does not set it).
    disorder: bool,
    /// una when the ACK being processed arrived.
    una_before: u64,
    /// Duplicate ACKs counted before the ACK being processed (without
    /// SACK Linux's `sacked_out`, `tcp_add_reno_sack`).
    dupacks_before: u32,
    /// Zero-window probes since the window closed, the persist timer's
    /// backoff (`icsk_backoff` while `ICSK_TIME_PROBE0` is pending).
    probe_backoff: u32,
    /// Segments the ACK being processed delivers (newly SACKed, and
    /// acknowledged without an earlier SACK): Linux grows cwnd by these
    /// (`tcp_cong_control`'s `acked_sacked`), not by the cumulative
    /// ACK's advance.
    delivered: u64,
    /// Undo and F-RTO (`linux_undo.rs`).
    pub(super) undo: Undo,
}

impl Linux {
    /// The state of a flow whose reordering degree starts at `dupthresh`
    /// (`tcp_reordering`).
    pub(in crate::transport::tcp::sender) fn new(dupthresh: u32) -> Self {
        Linux { reordering: dupthresh as u64, ..Linux::default() }
    }

    /// Segment `seq` leaves at `now`.
    fn on_send(&mut self, seq: u64, now: Time) {
        if self.xmit.is_empty() && seq >= self.base {
            self.base = seq;
        }
        let i = (seq - self.base) as usize;
        if i < self.xmit.len() {
            self.xmit[i] = (now, true);
        } else {
            self.xmit.push_back((now, false));
        }
    }

    /// Before the ACK's SACK blocks are marked: the highest SACKed so far.
    pub(in crate::transport::tcp::sender) fn note_fack(&mut self, fack: u64) {
        self.fack_before = fack;
        self.reord_low = None;
    }

    /// Segment `seq`, never retransmitted, delivered below the highest
    /// SACKed one: it was reordered (`tcp_sacktag_one`, `tcp_clean_rtx_queue`).
    fn note_delivered(&mut self, seq: u64) {
        if !self.sent(seq).1 && seq < self.fack_before {
            self.reord_low = Some(self.reord_low.map_or(seq, |l| l.min(seq)));
        }
    }

    /// `tcp_check_sack_reordering`: the degree grows to the distance from
    /// the reordered segment to the highest SACKed one (`fack`).
    fn check_reordering(&mut self, fack: u64) {
        let Some(low) = self.reord_low.take() else { return };
        if low >= fack {
            return;
        }
        self.reordering = self.reordering.max((fack - low).min(MAX_REORDERING));
        self.reord_seen += 1;
    }

    /// The latest transmission of outstanding segment `seq`, if it is
    /// outstanding (`tcp_rtx_queue_head`'s `tstamp` for una).
    pub(in crate::transport::tcp::sender) fn sent_at(&self, seq: u64) -> Option<Time> {
        let i = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        self.xmit.get(i).map(|x| x.0)
    }

    fn sent(&self, seq: u64) -> (Time, bool) {
        self.xmit[(seq - self.base) as usize]
    }

    /// `tcp_rack_advance`: segment `seq` was delivered at `now`.
    fn advance(&mut self, seq: u64, now: Time, min_rtt: Option<f64>) {
        let (t, retx) = self.sent(seq);
        let rtt = now.saturating_sub(t);
        // A retransmission delivered sooner than min_rtt was the original's
        // delivery: its RTT would be spurious.
        if retx && min_rtt.is_some_and(|m| to_secs(rtt) < m) {
            return;
        }
        self.rack.advanced = true;
        self.rack.rtt = rtt;
        if sent_after(t, seq + 1, self.rack.mstamp, self.rack.end_seq) {
            self.rack.mstamp = t;
            self.rack.end_seq = seq + 1;
        }
    }

    /// Segments `[s, e)` newly SACKed at `now` (`tcp_sacktag_one`).
    pub(in crate::transport::tcp::sender) fn on_sacked(&mut self, s: u64, e: u64, now: Time, min_rtt: Option<f64>) {
        for seq in s..e {
            self.advance(seq, now, min_rtt);
            self.note_delivered(seq);
            if !self.sent(seq).1 && self.undo.orig_sacked.is_none_or(|o| seq < o) {
                self.undo.orig_sacked = Some(seq);
            }
        }
        self.undo.data_sacked = true;
        self.delivered += e - s;
    }

    /// The cumulative ACK moved una to `ack`.
    fn acked_to(&mut self, ack: u64) {
        while self.base < ack && !self.xmit.is_empty() {
            self.xmit.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(ack);
    }
}

/// `tcp_skb_sent_after`: sent at `t1` (ending `e1`) after `t2` (`e2`).
fn sent_after(t1: Time, e1: u64, t2: Time, e2: u64) -> bool {
    t1 > t2 || (t1 == t2 && e1 > e2)
}

pub struct LinuxOps;

impl TcpSender {
    pub(super) fn lx(&self) -> &Linux {
        self.strategy.linux_ref().expect("the linux strategy's state")
    }

    pub(super) fn lx_mut(&mut self) -> &mut Linux {
        self.strategy.linux().expect("the linux strategy's state")
    }

    /// Segment `seq` (outstanding) was ever retransmitted (`TCPCB_RETRANS`).
    pub(in crate::transport::tcp::sender) fn lx_ever_retx(&self, seq: u64) -> bool {
        let l = self.lx();
        seq >= l.base && ((seq - l.base) as usize) < l.xmit.len() && l.sent(seq).1
    }

    /// `usecs_to_jiffies` with the flow's jiffy (`clock_granularity_s`,
    /// [`crate::transport::tcp::rtt::jiffies_ceil`]). The timers then fire
    /// on time: the kernel's timer wheel adds up to a jiffy more, at a
    /// phase a run cannot know.
    fn jiffies_ceil(&self, s: f64) -> f64 {
        crate::transport::tcp::rtt::jiffies_ceil(s, self.cfg.rto.granularity)
    }

    /// One past the outstanding loss probe (`tlp_high_seq`).
    pub(in crate::transport::tcp::sender) fn lx_tlp_high(&self) -> Option<u64> {
        self.lx().tlp_high
    }

    /// The outstanding loss probe was a retransmission (`tlp_retrans`).
    pub(in crate::transport::tcp::sender) fn lx_tlp_retrans(&self) -> bool {
        self.lx().tlp_retrans
    }

    /// `n` more segments delivered by the ACK being processed.
    pub(in crate::transport::tcp::sender) fn lx_add_delivered(&mut self, n: u64) {
        self.lx_mut().delivered += n;
    }

    /// RACK looks at every segment again on the next ACK (`rack.advanced`).
    pub(in crate::transport::tcp::sender) fn lx_force_rack(&mut self) {
        self.lx_mut().rack.advanced = true;
    }

    /// The transmission of `seq` at `now` (`retx`: a retransmission);
    /// `prior`: segments outstanding before it. Linux rearms the RTO for
    /// new data sent with nothing out or a probe pending
    /// (`tcp_event_new_data_sent`), and for a retransmission of the head
    /// unless the reordering timer is pending (`tcp_xmit_retransmit_queue`).
    /// Whether it set the timer: without RACK (no SACK) the RFCs' recovery
    /// keeps the core's timer rule (RFC 6582's "Impatient" restart).
    pub(in crate::transport::tcp::sender) fn linux_on_send(
        &mut self,
        net: &mut Net,
        seq: u64,
        retx: bool,
        prior: u64,
    ) -> bool {
        let now = net.now;
        let una = self.sb.una();
        let rack = self.cfg.rack;
        let l = self.lx_mut();
        l.on_send(seq, now);
        if !rack {
            return false;
        }
        if retx {
            l.retx_q.push_back((seq, now));
        }
        let rearm =
            if retx { seq == una && l.pending != Pending::Reo } else { prior == 0 || l.pending == Pending::Tlp };
        if retx && self.cfg.undo {
            self.undo_on_retransmit(now);
        }
        if rearm {
            self.linux_rearm_rto(net);
        }
        // tcp_write_xmit: new data sent, one loss probe per tail episode.
        if !retx {
            self.schedule_loss_probe(net, false);
        }
        true
    }

    /// The reordering window (`tcp_rack_reo_wnd`).
    fn reo_wnd(&self) -> Time {
        let l = self.lx();
        if l.reord_seen == 0 && (self.state != State::Open || self.sb.n_sacked() >= l.reordering) {
            return 0;
        }
        let (Some(min), Some(srtt)) = (self.rtt.min_rtt(), self.rtt.srtt()) else { return 0 };
        // D-SACKs widen it by steps of min_rtt/4 (`reo_wnd_steps`)
        from_secs((min / 4.0 * l.undo.reo_wnd_steps as f64).min(srtt))
    }

    /// `tcp_rack_detect_loss`: mark lost what RACK deems lost; the longest
    /// remaining time of the rest (0: none waits).
    fn rack_detect_loss(&mut self, now: Time) -> Time {
        let reo = self.reo_wnd();
        let mut wait: Time = 0;
        let (mstamp, end_seq, rtt) = {
            let r = &self.lx().rack;
            (r.mstamp, r.end_seq, r.rtt)
        };
        let deadline = |sent: Time| (sent + rtt + reo).saturating_sub(now);
        // Lost retransmissions, oldest first: sent before the delivered
        // segment and past their RACK time (later ones are later in both).
        while let Some(&(seq, t)) = self.lx().retx_q.front() {
            if !self.sb.is_retx(seq) || self.lx().sent(seq).0 != t {
                self.lx_mut().retx_q.pop_front();
                continue;
            }
            if !sent_after(mstamp, end_seq, t, seq + 1) {
                break;
            }
            match deadline(t) {
                0 => {
                    self.sb.retx_lost(seq);
                    self.lx_mut().retx_q.pop_front();
                }
                d => {
                    wait = wait.max(d);
                    break;
                }
            }
        }
        // First transmissions, in order: the un-SACKed ones above the
        // boundary sent before the delivered segment.
        let mut seq = self.sb.lost_hi();
        while seq < self.sb.high() {
            if self.sb.is_sacked(seq) {
                seq += 1;
                continue;
            }
            let (t, _) = self.lx().sent(seq);
            if !sent_after(mstamp, end_seq, t, seq + 1) {
                break;
            }
            match deadline(t) {
                0 => self.sb.mark_lost_below(seq + 1),
                d => {
                    wait = wait.max(d);
                    break;
                }
            }
            seq += 1;
        }
        wait
    }

    /// `tcp_rack_mark_lost` on an ACK: detect if a delivery advanced RACK,
    /// and arm the reordering timer for what waits.
    fn rack_mark_lost(&mut self, net: &mut Net) {
        if !self.cfg.rack || !self.lx().rack.advanced {
            return;
        }
        self.lx_mut().rack.advanced = false;
        let wait = self.rack_detect_loss(net.now);
        if wait > 0 {
            let t = self.jiffies_ceil(to_secs(wait) + TIMEOUT_MIN_S);
            self.linux_arm(net, Pending::Reo, t);
            self.lx_mut().reo_armed_now = true;
        }
    }

    /// Arm the one timer for `kind`, `delay_s` from now.
    fn linux_arm(&mut self, net: &mut Net, kind: Pending, delay_s: f64) {
        self.lx_mut().pending = kind;
        let at = net.now.saturating_add(from_secs(delay_s));
        self.rto_timer.arm(&mut net.events, crate::transport::sender_timer(self.flow, RTO), at);
    }

    /// How far in the future the RTO of the head is (`tcp_rto_delta_us`).
    fn rto_delta(&self, now: Time) -> f64 {
        let head = if self.sb.outstanding() > 0 { self.lx().sent(self.sb.una()).0 } else { now };
        self.rto() - to_secs(now.saturating_sub(head))
    }

    /// `tcp_rearm_rto`: the RTO from the head's transmission when a probe
    /// or the reordering timer held the timer, else a whole RTO from now;
    /// nothing outstanding: stop.
    pub(in crate::transport::tcp::sender) fn linux_rearm_rto(&mut self, net: &mut Net) {
        if self.sb.outstanding() == 0 {
            self.rto_timer.disarm();
            self.lx_mut().pending = Pending::Rto;
            return;
        }
        let delay = match self.lx().pending {
            Pending::Reo | Pending::Tlp => self.jiffies_ceil(self.rto_delta(net.now).max(1e-6)),
            Pending::Rto | Pending::Probe0 => self.rto(),
        };
        self.linux_arm(net, Pending::Rto, delay);
    }

    /// The persist timer's interval: `tcp_probe0_base` = max(RTO,
    /// `tcp_rto_min`), doubled per probe sent, at most 120 s
    /// (`tcp_probe0_when(sk, TCP_RTO_MAX)`).
    fn probe0_when(&self) -> f64 {
        let base = self.rto().max(self.cfg.rto.min_rto);
        (base * (1u64 << self.lx().probe_backoff) as f64).min(TCP_RTO_MAX_S)
    }

    /// `tcp_check_probe_timer`: data waits behind a zero window with
    /// nothing out and no timer pending: the persist timer, from the base.
    pub(in crate::transport::tcp::sender) fn linux_check_probe_timer(&mut self, net: &mut Net) {
        if self.awnd == 0 && self.sb.outstanding() == 0 && self.has_unsent_data() && !self.rto_timer.is_armed() {
            let base = self.rto().max(self.cfg.rto.min_rto);
            self.linux_arm(net, Pending::Probe0, base);
        }
    }

    /// `tcp_ack_probe`, at an ACK with nothing out and data waiting: an
    /// open window stops the persist timer and its backoff, a closed one
    /// rearms it.
    fn ack_probe(&mut self, net: &mut Net) {
        if self.awnd > 0 {
            self.lx_mut().probe_backoff = 0;
            if self.lx().pending == Pending::Probe0 {
                self.rto_timer.disarm();
                self.lx_mut().pending = Pending::Rto;
            }
        } else {
            let when = self.probe0_when();
            self.linux_arm(net, Pending::Probe0, when);
        }
    }

    /// `tcp_probe_timer` and `tcp_send_probe0`: a probe while the window
    /// stays shut, the next one twice as late.
    fn send_probe0(&mut self, net: &mut Net) {
        if self.sb.outstanding() > 0 || !self.has_unsent_data() || self.awnd > 0 {
            self.lx_mut().probe_backoff = 0;
            self.lx_mut().pending = Pending::Rto;
            return self.try_send(net);
        }
        self.send_window_probe(net);
        let l = self.lx_mut();
        l.probe_backoff = (l.probe_backoff + 1).min(TCP_RETRIES2);
        let when = self.probe0_when();
        self.linux_arm(net, Pending::Probe0, when);
    }

    /// `tcp_schedule_loss_probe`: arm the probe timer in the open state
    /// (or CWR) with data out; whether it was armed. `advancing`: an ACK
    /// just advanced una (the whole RTO counts), else the RTO's remaining
    /// time caps the probe.
    fn schedule_loss_probe(&mut self, net: &mut Net, advancing: bool) -> bool {
        if !self.cfg.tlp || self.sb.outstanding() == 0 || self.state != State::Open {
            return false;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => self.jiffies_ceil(
                2.0 * srtt + if self.sb.outstanding() == 1 { self.cfg.rto.min_rto } else { TIMEOUT_MIN_S },
            ),
            None => self.cfg.rto.init_rto,
        };
        let rto_left = if advancing { self.rto() } else { self.jiffies_ceil(self.rto_delta(net.now)) };
        let t = if rto_left > 0.0 { pto.min(rto_left) } else { pto };
        self.linux_arm(net, Pending::Tlp, t);
        true
    }

    /// `tcp_send_loss_probe`: new data if the window allows it (a probe
    /// ignores cwnd), else the last segment again; one probe per tail.
    fn send_loss_probe(&mut self, net: &mut Net) {
        if self.lx().tlp_high.is_none() {
            let sent0 = self.stats.data_sent;
            let mut probed = false;
            let mut retx = false;
            if self.has_new_data() {
                let s = self.sb.high();
                probed = self.transmit(net, s, true);
            } else if self.sb.outstanding() > 0 {
                let last = self.sb.high() - 1;
                self.undo_probing(true);
                probed = self.transmit(net, last, true);
                self.undo_probing(false);
                retx = true;
            }
            if probed && self.stats.data_sent > sent0 {
                let high = self.sb.high();
                let l = self.lx_mut();
                l.tlp_high = Some(high);
                l.tlp_retrans = retx;
                l.pending = Pending::Rto;
                // the RTO counts from the probe
                self.linux_arm(net, Pending::Rto, self.rto());
                return;
            }
        }
        self.linux_rearm_rto(net);
    }

    /// `tcp_process_tlp_ack` (before the loss detection): an ACK beyond
    /// a retransmitted probe, without a D-SACK of the probe, says a segment
    /// was lost: a CWR reduction; the probe of new data, a D-SACK of the
    /// probe, or a duplicate that reports nothing, ends the episode.
    fn process_tlp_ack(&mut self, ack: u64, advanced: bool) {
        let Some(high) = self.lx().tlp_high else { return };
        if ack < high {
            return;
        }
        if !self.lx().tlp_retrans || self.lx().undo.dsack_tlp {
            // the probe of new data was acknowledged, or a D-SACK says the
            // original and the probe both arrived: no loss
            self.lx_mut().tlp_high = None;
        } else if ack > high {
            self.lx_mut().tlp_high = None;
            if !self.cc_owns_cwnd {
                // tcp_init_cwnd_reduction, CA_CWR, tcp_end_cwnd_reduction
                self.st.ssthresh = self.linux_ssthresh(false);
                self.st.cwnd = self.st.ssthresh;
            }
        } else if !advanced {
            self.lx_mut().tlp_high = None;
        }
    }

    /// The controller's ssthresh as Linux computes it: its `ssthresh`
    /// hook reads `snd_cwnd`, not FlightSize, and keeps whole segments
    /// (`rto`: the timeout's decrease).
    fn linux_ssthresh(&mut self, rto: bool) -> f64 {
        self.st.flight = self.st.cwnd.ceil() as u64;
        if rto { self.cc_ssthresh_rto() } else { self.cc_ssthresh() }.floor()
    }

    /// Fast recovery on a RACK loss (`tcp_enter_recovery`): ssthresh from
    /// the controller on cwnd (Linux's `ssthresh` reads `snd_cwnd`, not
    /// FlightSize), whole segments; `recover` = snd_nxt; PRR sends, with
    /// cwnd at the start as its `RecoverFS` (`by_timer`: the reordering
    /// timer's entry, no ACK being processed).
    fn linux_enter_recovery(&mut self, net: &mut Net, by_timer: bool) {
        if self.cfg.undo {
            let ece = !by_timer && self.lx().undo.ack_ece;
            self.init_undo(ece);
        }
        let prior_cwnd = self.st.cwnd.ceil() as u64;
        if let Some(p) = self.extras.as_deref_mut().and_then(|x| x.prr.as_deref_mut()) {
            p.linux_entry(prior_cwnd, by_timer);
        }
        self.queue_cwr();
        self.st.ssthresh = self.linux_ssthresh(false);
        if self.x().prr.is_none() && !self.cc_owns_cwnd {
            // PRR switched off: RFC 6675 §5 step 4's cwnd = ssthresh
            self.st.cwnd = self.st.ssthresh;
        }
        self.ecn_cut = false;
        self.cwr = false;
        self.local_cwr = false;
        self.recover = self.sb.high();
        self.lx_mut().tlp_high = None;
        self.start_recovery(net);
    }

    /// `tcpi_reordering` and `tcpi_reord_seen` (`None` without the linux
    /// strategy's state).
    pub fn tcpi_reordering(&self) -> Option<(u64, u32)> {
        self.strategy.linux_ref().map(|l| (l.reordering, l.reord_seen))
    }

    /// Linux's `tcp_ca_state` as `tcp_info` reports it: 0 Open, 1 Disorder
    /// (SACKed, lost or retransmitted data outstanding), 2 CWR, 3
    /// Recovery, 4 Loss.
    pub fn tcpi_ca_state(&self) -> u8 {
        match self.state {
            State::Loss => 4,
            State::Recovery => 3,
            State::Open if self.cwr || self.local_cwr => 2,
            State::Open
                if self.strategy.linux_ref().map_or(
                    self.sb.n_sacked() + self.sb.n_lost() + self.sb.n_retx() > 0 || self.dupacks > 0,
                    |l| l.disorder,
                ) =>
            {
                1
            }
            State::Open => 0,
        }
    }
}

impl RecoveryOps for LinuxOps {
    fn read_options(s: &mut TcpSender, h: &TcpHeader, ts_echo: Time) {
        if s.cfg.undo {
            s.undo_read_options(h, ts_echo);
        }
    }

    fn ack_arrives(s: &mut TcpSender, net: &mut Net, ack: u64, ece: bool) {
        let (una, outstanding, dupacks) = (s.sb.una(), s.sb.outstanding(), s.dupacks);
        if outstanding == 0 && s.has_unsent_data() {
            s.ack_probe(net);
        }
        let l = s.lx_mut();
        l.reo_armed_now = false;
        l.una_before = una;
        l.dupacks_before = dupacks;
        if ack > una {
            // tcp_clean_rtx_queue: RACK learns of every segment the ACK
            // delivers that no SACK had.
            let min_rtt = s.rtt.min_rtt();
            let now = net.now;
            for seq in una..ack {
                if !s.sb.is_sacked(seq) {
                    let l = s.lx_mut();
                    l.advance(seq, now, min_rtt);
                    l.note_delivered(seq);
                    l.delivered += 1;
                }
            }
        }
        let fack = s.sb.high_sacked().max(s.lx().fack_before);
        s.lx_mut().check_reordering(fack);
        if s.cfg.undo {
            // FLAG_ORIG_SACK_ACKED: data sent once, before `recover`,
            // newly (S)ACKed (read only in the loss state, F-RTO's proof)
            let recover = s.recover;
            let orig = s.state == State::Loss
                && (s.lx().undo.orig_sacked.is_some_and(|o| o < recover)
                    || (una..ack.min(recover)).any(|q| !s.lx().sent(q).1 && !s.sb.is_sacked(q)));
            let u = &mut s.lx_mut().undo;
            u.orig_acked = orig;
            u.ack_ece = ece;
            if ece {
                s.undo_on_ece();
            }
            if outstanding > 0 {
                s.undo_update_reo_wnd(ack);
            }
            // a late D-SACK in the open state (`tcp_try_undo_dsack` for
            // CA_Open and CA_Disorder)
            if s.state == State::Open {
                s.try_undo_dsack();
            }
        }
    }

    fn ece_blocks(s: &TcpSender, ack: u64) -> bool {
        Rfc::ece_blocks(s, ack)
    }

    fn new_ack(s: &mut TcpSender, net: &mut Net, a: NewAck) -> bool {
        s.lx_mut().acked_to(a.ack);
        s.process_tlp_ack(a.ack, true);
        if !s.cfg.rack {
            // Without RACK (no SACK), the RFCs' recovery, its window and its
            // timer (RFC 6582's "Impatient" restart; Linux would run PRR
            // here, which ccsim's recovery has only with SACK); the open
            // state's growth counts what `reno_sack` says was delivered.
            let acked = if s.state == State::Open && s.cfg.reno_sack {
                a.acked.saturating_sub(s.lx().dupacks_before as u64).max(1)
            } else {
                a.acked
            };
            return Rfc::new_ack(s, net, NewAck { acked, ..a });
        }
        match s.state {
            State::Open => return Self::reopened(s, net, a),
            State::Recovery if a.ack >= s.recover => {
                if s.cfg.undo && s.try_undo_recovery() {
                    // tcp_try_undo_recovery: the window as it was, and no
                    // deflation to ssthresh (`tcp_end_cwnd_reduction`)
                    s.undo_reopen();
                } else {
                    Rfc::new_ack(s, net, a);
                }
                // the next episode's loss detection, and `tcp_cong_control`
                // in the open state: the exit ACK's deliveries grow cwnd
                return Self::reopened(s, net, a);
            }
            State::Recovery => {
                if s.cfg.undo {
                    match s.try_undo_partial() {
                        Some(true) => {
                            // evidence, but retransmissions out: clock out
                            // new data, mark and retransmit nothing more
                            s.prr_ack();
                            return false;
                        }
                        Some(false) => return Self::reopened(s, net, a),
                        None => {}
                    }
                    if s.try_undo_dsack() {
                        s.undo_reopen();
                        return Self::reopened(s, net, a);
                    }
                }
                s.rack_mark_lost(net);
                s.prr_ack();
            }
            State::Loss => {
                if s.cfg.undo && s.undo_process_loss(true, false) {
                    return Self::reopened(s, net, a);
                }
                Rfc::new_ack(s, net, a);
                s.rack_mark_lost(net);
            }
        }
        false
    }

    /// `tcp_clean_rtx_queue` ends every ACK with the controller's
    /// `pkts_acked`, its RTT sample the last newly SACKed segment's
    /// (`ca_rtt_us` from `last_sackt`): CUBIC's HyStart and `delay_min`
    /// see the queue grow while SND.UNA waits at a hole.
    fn sack_sample(s: &mut TcpSender, rtt_s: Option<f64>) {
        s.cc.pkts_acked(&mut s.st, 0, rtt_s);
    }

    fn dup_ack(s: &mut TcpSender, net: &mut Net, una: u64) {
        s.process_tlp_ack(una, false);
        if !s.cfg.rack {
            return Rfc::dup_ack(s, net, una);
        }
        if s.cfg.undo {
            let dsack = s.lx().undo.ack_dsack;
            if dsack {
                // a D-SACK is no duplicate ACK (`FLAG_DSACKING_ACK`)
                s.dupacks -= 1;
            }
            match s.state {
                State::Recovery => {
                    if s.try_undo_dsack() {
                        s.undo_reopen();
                    }
                }
                State::Loss => {
                    s.undo_process_loss(false, !dsack);
                }
                State::Open => {}
            }
        }
        s.rack_mark_lost(net);
        match s.state {
            State::Open if s.sb.n_lost() > 0 => s.linux_enter_recovery(net, false),
            // tcp_may_raise_cwnd: past the default reordering degree, any
            // delivery (here the ACK's SACKs) grows cwnd, as in the open
            // state's rule for a new ACK.
            State::Open if s.lx().reordering > s.cfg.dupthresh as u64 && s.lx().delivered > 0 => {
                let acked = s.lx().delivered;
                Rfc::new_ack(s, net, NewAck { ack: una, acked, blocks: false, partial: false });
            }
            State::Recovery => s.prr_ack(),
            _ => {}
        }
    }

    fn ece(s: &mut TcpSender, net: &mut Net, ece: bool) {
        Rfc::ece(s, net, ece)
    }

    /// After the ACK: the timer (`tcp_set_xmit_timer` when una advanced
    /// and RACK did not arm its own), then what the ACK lets out (new data
    /// in the open state schedules a loss probe, `tcp_write_xmit`).
    fn send(s: &mut TcpSender, net: &mut Net) {
        if s.cfg.undo && s.state == State::Open {
            s.undo_on_open();
        }
        let left_out = s.sb.n_sacked() + s.sb.n_lost() + s.sb.n_retx() > 0;
        let l = s.lx_mut();
        l.delivered = 0;
        l.disorder = left_out;
        let advanced = s.sb.una() > s.lx().una_before;
        // (without RACK the RFCs' recovery restarts the timer itself)
        if s.cfg.rack && advanced && !s.lx().reo_armed_now && !s.schedule_loss_probe(net, true) {
            s.linux_rearm_rto(net);
        }
        // F-RTO's step 2.b sends new data instead of retransmitting
        if !(s.cfg.undo && s.undo_frto_send(net)) {
            s.try_send(net);
        }
        s.linux_check_probe_timer(net);
    }

    /// The timer: the reordering timer (`tcp_rack_reo_timeout`), the loss
    /// probe, or the RTO (`tcp_retransmit_timer`, `tcp_enter_loss`).
    fn rto(s: &mut TcpSender, net: &mut Net) {
        match s.lx().pending {
            Pending::Reo => {
                let pipe = s.sb.pipe();
                s.rack_detect_loss(net.now);
                if s.sb.pipe() != pipe {
                    if s.state != State::Recovery {
                        s.linux_enter_recovery(net, true);
                    } else {
                        s.try_send(net);
                    }
                }
                if s.lx().pending != Pending::Rto {
                    s.linux_rearm_rto(net);
                }
            }
            Pending::Tlp => s.send_loss_probe(net),
            Pending::Probe0 => s.send_probe0(net),
            Pending::Rto => {
                if s.sb.outstanding() == 0 {
                    return;
                }
                let repeated = s.count_timeout(net);
                let after_ecn = s.ecn_cut && s.sb.una() < s.recover;
                let reduces = !repeated && !after_ecn && (s.state == State::Open || s.sb.una() >= s.recover);
                if s.cfg.undo {
                    s.undo_on_rto(reduces, repeated);
                }
                if reduces {
                    s.st.ssthresh = s.linux_ssthresh(true);
                }
                s.queue_cwr();
                s.lx_mut().tlp_high = None;
                s.linux_enter_loss(net);
            }
        }
    }
}

impl LinuxOps {
    /// A new ACK's rules in the open state, also after a recovery ended or
    /// an undo returned the sender to it (`tcp_fastretrans_alert` goes on
    /// to `tcp_identify_packet_loss`, and `tcp_cong_control` may grow cwnd
    /// in the open state): a loss RACK finds starts a recovery, else cwnd
    /// grows by what the ACK delivered.
    fn reopened(s: &mut TcpSender, net: &mut Net, a: NewAck) -> bool {
        s.rack_mark_lost(net);
        if s.sb.n_lost() > 0 {
            s.linux_enter_recovery(net, false);
        } else {
            let acked = s.lx().delivered;
            Rfc::new_ack(s, net, NewAck { acked, ..a });
        }
        false
    }
}

impl TcpSender {
    /// The RTO's loss state (`tcp_enter_loss` after `tcp_timeout_mark_lost`):
    /// with `rto_rack_mark` the head and every segment whose RACK time
    /// (its transmission plus RACK's RTT) has passed are lost, the rest
    /// stay in flight; cwnd = in flight + 1; the head goes out again at
    /// once and the backed-off RTO runs from it.
    fn linux_enter_loss(&mut self, net: &mut Net) {
        let now = net.now;
        if self.cfg.rto_rack_mark {
            let rtt = self.lx().rack.rtt;
            let mut b = self.sb.lost_hi().max(self.sb.una() + 1);
            while b < self.sb.high() && (self.sb.is_sacked(b) || self.lx().sent(b).0 + rtt <= now) {
                b += 1;
            }
            self.sb.on_rto_below(b);
        } else {
            self.sb.on_rto();
        }
        self.sync_lost();
        self.cc.on_event(&mut self.st, CcEvent::Timeout);
        self.st.cwnd = (self.sb.pipe() + 1) as f64;
        self.clamp_cwnd();
        self.begin_loss_state();
        let una = self.sb.una();
        if self.sb.next_unsent_hole() == Some(una) {
            self.transmit(net, una, true);
        }
        self.linux_arm(net, Pending::Rto, self.rto());
        self.try_send(net);
    }
}

/// The settings of Linux's loss detection (RACK-TLP, `tcp_add_reno_sack`):
/// RACK reads the SACK scoreboard, and none of it runs under ns-2's
/// agents.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    _f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.reno_sack && !matches!(cfg.recovery, Recovery::Reno | Recovery::NewReno) {
        return Err(ConfigError::new(
            p("reno_sack"),
            format!(
                "true needs recovery = \"reno\" or \"newreno\" (it counts duplicate ACKs where SACK would \
                 say what was delivered), got \"{}\"",
                kind_name(&cfg.recovery)
            ),
        ));
    }
    for (name, on) in [("rack", cfg.rack), ("tlp", cfg.tlp), ("rto_rack_mark", cfg.rto_rack_mark)] {
        if on && cfg.recovery != Recovery::Sack {
            return Err(ConfigError::new(
                p(name),
                format!(
                    "true needs recovery = \"sack\" (Linux's RACK-TLP reads the SACK scoreboard), got \"{}\"",
                    kind_name(&cfg.recovery)
                ),
            ));
        }
        if on && StrategyKind::of(cfg).is_ns2() {
            return Err(ConfigError::new(
                p(name),
                "true is not allowed with ns-2's agents' rules (ns2_*, ecn_response = \"ns2\", send_jitter_s): \
                 they set the window themselves",
            ));
        }
    }
    Ok(())
}
