//! Linux's undo of spurious reductions and F-RTO (`tcp_model = "linux"`,
//! `undo`, `frto`, `dsack`, `timestamps`), part of the `linux` strategy
//! ([`super::linux`]); its state is [`Undo`], in the strategy's box.
//!
//! Why: with RACK's small reordering window, a reordered segment or a
//! delay spike starts a recovery or an RTO that the network did not ask
//! for; Linux takes the reduction back once the evidence arrives, and
//! results in small buffers depend on whether a TCP does.
//!
//! - A reduction records what to return to (`tcp_init_undo`,
//!   `tcp_enter_recovery`, `tcp_enter_loss`): una (`undo_marker`), the
//!   retransmissions still out (`undo_retrans`, -1 for none; every later
//!   retransmission but a loss probe adds one), ssthresh as
//!   `tcp_current_ssthresh` had it (`prior_ssthresh`, 0 when an ECE caused
//!   or joined the reduction: congestion was proven) and cwnd.
//! - Evidence (`tcp_may_undo`): D-SACKs for every retransmission since the
//!   marker (`tcp_check_dsack`, `tcp_sacktag_one`: `undo_retrans` reaches
//!   0), or with timestamps an ACK echoing a time before the first
//!   retransmission (`tcp_packet_delayed`, in Linux's 1 ms ticks).
//! - Undo (`tcp_undo_cwnd_reduction`): cwnd = max(cwnd, cwnd before the
//!   reduction) (`tcp_reno_undo_cwnd`; a controller that sets cwnd itself
//!   keeps its own), ssthresh back if higher (and a pending CWR
//!   withdrawn); after an RTO or a partial undo the loss marks are cleared
//!   and RACK looks again.
//! - Where: at the end of a recovery (`tcp_try_undo_recovery`), on a
//!   partial ACK with timestamp evidence and no retransmission out
//!   (`tcp_try_undo_partial`), on a D-SACK in recovery or after it
//!   (`tcp_try_undo_dsack`), and after an RTO on an ACK that advances
//!   (`tcp_try_undo_loss`).
//! - F-RTO (RFC 5682 §3.1, SACK-enhanced, `tcp_process_loss` with
//!   `tcp_frto = 2`), armed by an RTO outside recovery or a repeated one:
//!   an ACK or SACK of data never retransmitted and sent before the RTO
//!   undoes it; the first ACK that advances una sends new data (if any
//!   fits the window) before anything else is retransmitted, and a SACK
//!   or duplicate ACK after that proves the loss real.
//! - D-SACKs widen RACK's reordering window (`tcp_rack_update_reo_wnd`):
//!   one step of min_rtt/4 per round with a D-SACK once reordering was
//!   seen, kept for 16 recoveries, back to one step after them. A round
//!   here is an ACK beyond what was sent at the last widening (Linux
//!   compares delivered counts).
use crate::transport::tcp::sender::*;

/// `TCP_RACK_RECOVERY_THRESH`: recoveries a widened window is kept for.
const RECOVERY_THRESH: u32 = 16;

/// The undo state (`tcp_sock`'s `undo_marker`, `undo_retrans`,
/// `prior_ssthresh`, `prior_cwnd`, `retrans_stamp`, `frto`, `dsack_dups`
/// and `rack.reo_wnd_*`), and what the ACK being processed showed.
#[derive(Clone, Debug)]
pub struct Undo {
    /// una when the reduction began (`undo_marker`; `None`: nothing to undo).
    marker: Option<u64>,
    /// Retransmissions not yet D-SACKed (`undo_retrans`; -1: none were out).
    retrans: i64,
    /// ssthresh to return to (0: the reduction stands).
    prior_ssthresh: f64,
    prior_cwnd: f64,
    /// The episode's first retransmission (`retrans_stamp`).
    retrans_stamp: Option<Time>,
    /// F-RTO is running (`tp->frto`).
    frto: bool,
    /// Segments D-SACKed in all (`dsack_dups`).
    dsack_dups: u64,
    /// The reordering window in min_rtt/4 steps (`rack.reo_wnd_steps`).
    pub(super) reo_wnd_steps: u32,
    reo_wnd_persist: u32,
    dsack_seen: bool,
    /// SND.NXT at the last widening.
    last_widened: u64,
    /// This ACK: a valid D-SACK (`FLAG_DSACKING_ACK`), its timestamp echo,
    /// data never retransmitted (S)ACKed below `recover`
    /// (`FLAG_ORIG_SACK_ACKED`), newly SACKed data (`FLAG_DATA_SACKED`),
    /// its D-SACK covers the loss probe (`FLAG_DSACK_TLP`), and F-RTO's
    /// new data is to go out (`REXMIT_NEW`).
    pub(super) ack_dsack: bool,
    ack_ecr: Time,
    pub(super) orig_acked: bool,
    pub(super) data_sacked: bool,
    pub(super) dsack_tlp: bool,
    frto_new: bool,
    /// The lowest segment never retransmitted that this ACK newly SACKed.
    pub(super) orig_sacked: Option<u64>,
    /// This ACK carried ECE.
    pub(super) ack_ece: bool,
    /// A loss probe is being sent.
    probing: bool,
}

impl Default for Undo {
    fn default() -> Self {
        Undo {
            marker: None,
            retrans: -1,
            prior_ssthresh: 0.0,
            prior_cwnd: 0.0,
            retrans_stamp: None,
            frto: false,
            dsack_dups: 0,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_widened: 0,
            ack_dsack: false,
            ack_ecr: NO_ECHO,
            orig_acked: false,
            data_sacked: false,
            dsack_tlp: false,
            frto_new: false,
            orig_sacked: None,
            ack_ece: false,
            probing: false,
        }
    }
}

/// Linux's timestamp clock: 1 ms ticks (`TCP_TS_HZ`).
fn ts_ticks(t: Time) -> u64 {
    t / 1_000_000_000
}

impl TcpSender {
    fn ud(&self) -> &Undo {
        &self.lx().undo
    }

    fn ud_mut(&mut self) -> &mut Undo {
        &mut self.lx_mut().undo
    }

    /// Before the ACK's SACK blocks are marked: its timestamp echo and its
    /// D-SACK (`tcp_check_dsack`, `tcp_dsack_seen`, the D-SACK part of
    /// `tcp_sacktag_one`).
    pub(in crate::transport::tcp::sender) fn undo_read_options(&mut self, h: &TcpHeader, ts_echo: Time) {
        let total_retrans = self.stats.retransmits;
        let una = self.sb.una();
        let tlp_high = self.lx_tlp_high();
        let u = self.ud_mut();
        u.ack_dsack = false;
        u.orig_acked = false;
        u.data_sacked = false;
        u.dsack_tlp = false;
        u.frto_new = false;
        u.orig_sacked = None;
        u.ack_ecr = ts_echo;
        let Some((s, e)) = h.dsack() else { return };
        if s >= e {
            return;
        }
        let dups = e - s;
        u.dsack_dups += dups;
        // dubious: more duplicates than retransmissions
        if u.dsack_dups > total_retrans {
            return;
        }
        u.ack_dsack = true;
        u.dsack_tlp = dups == 1 && tlp_high == Some(e);
        // a spurious retransmission was delivered (`tcp_dsack_seen`)
        self.lx_add_delivered(dups);
        let retransmitted: u64 = if e <= una {
            // below una: the segments are gone; "dumb counting"
            dups
        } else {
            (s.max(una)..e).filter(|&q| self.lx_ever_retx(q)).count() as u64
        };
        let reord_seen = self.tcpi_reordering().is_some_and(|r| r.1 > 0);
        let u = self.ud_mut();
        if reord_seen && !u.dsack_tlp {
            u.dsack_seen = true;
        }
        if let Some(m) = u.marker {
            if u.retrans > 0 && e > m && (e <= una || s >= una) {
                u.retrans = (u.retrans - retransmitted as i64).max(0);
            }
        }
    }

    /// `tcp_rack_update_reo_wnd`, once per ACK with data outstanding.
    pub(in crate::transport::tcp::sender) fn undo_update_reo_wnd(&mut self, ack: u64) {
        let high = self.sb.high();
        let u = self.ud_mut();
        if ack < u.last_widened {
            u.dsack_seen = false;
        }
        if u.dsack_seen {
            u.reo_wnd_steps = (u.reo_wnd_steps + 1).min(0xFF);
            u.dsack_seen = false;
            u.last_widened = high;
            u.reo_wnd_persist = RECOVERY_THRESH;
        } else if u.reo_wnd_persist == 0 {
            u.reo_wnd_steps = 1;
        }
    }

    /// A retransmission leaves at `now` (`tcp_retransmit_skb`):
    /// `retrans_stamp` keeps the first, `undo_retrans` counts it. A loss
    /// probe does not count (`tcp_send_loss_probe` calls
    /// `__tcp_retransmit_skb`).
    pub(in crate::transport::tcp::sender) fn undo_on_retransmit(&mut self, now: Time) {
        let u = self.ud_mut();
        if u.probing {
            return;
        }
        u.retrans_stamp.get_or_insert(now);
        u.retrans = u.retrans.max(0) + 1;
    }

    /// A loss probe is being sent (it is no retransmission for undo).
    pub(in crate::transport::tcp::sender) fn undo_probing(&mut self, on: bool) {
        if self.cfg.undo {
            self.ud_mut().probing = on;
        }
    }

    /// An ECE proves congestion: the reduction stands (`tcp_fastretrans_alert`
    /// step A).
    pub(in crate::transport::tcp::sender) fn undo_on_ece(&mut self) {
        self.ud_mut().prior_ssthresh = 0.0;
    }

    /// Back in the open state with nothing retransmitted outstanding: no
    /// first retransmission any more (`tcp_try_to_open`, state D).
    pub(in crate::transport::tcp::sender) fn undo_on_open(&mut self) {
        if self.sb.n_retx() == 0 {
            self.ud_mut().retrans_stamp = None;
        }
    }

    /// Retransmissions out, a retransmitted loss probe left aside
    /// (`retrans_out`: `tcp_send_loss_probe` does not count it).
    fn retrans_out(&self) -> u64 {
        let probe = self.lx_tlp_high().filter(|_| self.lx_tlp_retrans()).is_some_and(|h| self.sb.is_retx(h - 1));
        self.sb.n_retx() - probe as u64
    }

    /// `tcp_current_ssthresh`: ssthresh, or in the open state at least
    /// 3/4 of cwnd.
    fn current_ssthresh(&self) -> f64 {
        if self.state == State::Recovery || self.cwr || self.local_cwr {
            return self.st.ssthresh;
        }
        let c = self.st.cwnd as u64;
        self.st.ssthresh.max(((c >> 1) + (c >> 2)) as f64)
    }

    /// A reduction begins (`tcp_enter_recovery`, or an RTO's
    /// `tcp_enter_loss`, before ssthresh is cut): `tcp_init_undo` and what
    /// an undo returns to (`prior_ssthresh`, `prior_cwnd`), nothing when an
    /// ECE or a reduction already under way (CWR) proved congestion.
    pub(in crate::transport::tcp::sender) fn init_undo(&mut self, ece: bool) {
        let prior = if ece || self.cwr || self.local_cwr { 0.0 } else { self.current_ssthresh() };
        let (cwnd, una, retx) = (self.st.cwnd, self.sb.una(), self.retrans_out());
        let u = self.ud_mut();
        u.prior_ssthresh = prior;
        u.prior_cwnd = cwnd;
        u.marker = Some(una);
        u.retrans = if retx > 0 { retx as i64 } else { -1 };
    }

    /// An RTO (`tcp_enter_loss`): `reduces` when this timeout cuts
    /// ssthresh (what an undo returns to is recorded then); F-RTO runs
    /// after a timeout outside recovery, or a repeated one.
    pub(in crate::transport::tcp::sender) fn undo_on_rto(&mut self, reduces: bool, repeated: bool) {
        let new_recovery = self.state == State::Open;
        if reduces {
            self.init_undo(false);
        }
        let frto = self.cfg.frto && (new_recovery || repeated);
        self.ud_mut().frto = frto;
    }

    /// `tcp_packet_delayed`: the ACK echoes a time before the first
    /// retransmission (timestamps only).
    fn packet_delayed(&self) -> bool {
        let u = self.ud();
        self.cfg.timestamps
            && u.ack_ecr != NO_ECHO
            && u.retrans_stamp.is_some_and(|r| ts_ticks(u.ack_ecr) < ts_ticks(r))
    }

    /// `tcp_may_undo`.
    fn may_undo(&self) -> bool {
        let u = self.ud();
        u.marker.is_some() && (u.retrans == 0 || self.packet_delayed())
    }

    /// `tcp_undo_cwnd_reduction`.
    fn undo_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            self.sb.unmark_lost();
        }
        let (prior_ssthresh, prior_cwnd) = (self.ud().prior_ssthresh, self.ud().prior_cwnd);
        if prior_ssthresh > 0.0 {
            if !self.cc_owns_cwnd {
                self.st.cwnd = self.st.cwnd.max(prior_cwnd);
            }
            self.cc.on_event(&mut self.st, CcEvent::Undo);
            self.clamp_cwnd();
            if prior_ssthresh > self.st.ssthresh {
                self.st.ssthresh = prior_ssthresh;
                // tcp_ecn_withdraw_cwr
                self.cwr_pending = false;
            }
        }
        self.ud_mut().marker = None;
        self.lx_force_rack();
    }

    /// The open state after an undo (`tcp_try_keep_open`); the controller
    /// hears the state's end.
    pub(in crate::transport::tcp::sender) fn undo_reopen(&mut self) {
        let ev = if self.state == State::Loss { CcEvent::LossEnd } else { CcEvent::RecoveryEnd };
        self.state = State::Open;
        self.cc.on_event(&mut self.st, ev);
    }

    /// `tcp_try_undo_dsack`: D-SACKs covered every retransmission.
    pub(in crate::transport::tcp::sender) fn try_undo_dsack(&mut self) -> bool {
        let u = self.ud();
        if !(u.ack_dsack && u.marker.is_some() && u.retrans == 0) {
            return false;
        }
        let u = self.ud_mut();
        u.reo_wnd_persist = (u.reo_wnd_persist + 1).min(RECOVERY_THRESH);
        self.undo_reduction(false);
        true
    }

    /// `tcp_try_undo_recovery`, at a recovery's (or F-RTO's) end: whether
    /// the reduction was undone.
    pub(in crate::transport::tcp::sender) fn try_undo_recovery(&mut self) -> bool {
        if self.may_undo() {
            self.undo_reduction(false);
            return true;
        }
        let u = self.ud_mut();
        u.reo_wnd_persist = u.reo_wnd_persist.saturating_sub(1);
        false
    }

    /// `tcp_try_undo_partial`, on a partial ACK in recovery: `Some(true)`
    /// when the ACK's other rules are to be skipped (evidence, but
    /// retransmissions still out), `Some(false)` when undone.
    pub(in crate::transport::tcp::sender) fn try_undo_partial(&mut self) -> Option<bool> {
        if !(self.ud().marker.is_some() && self.packet_delayed()) {
            return None;
        }
        if self.sb.n_retx() > 0 {
            return Some(true);
        }
        self.undo_reduction(true);
        self.undo_reopen();
        Some(false)
    }

    /// `tcp_try_undo_loss`: after an RTO, on evidence or F-RTO's proof.
    fn try_undo_loss(&mut self, frto_undo: bool) -> bool {
        if !(frto_undo || self.may_undo()) {
            return false;
        }
        self.undo_reduction(true);
        self.undo_reopen();
        true
    }

    /// `tcp_process_loss`: an ACK in the loss state. `advanced`: it moved
    /// una; `dup`: a duplicate ACK. Returns whether the loss state ended
    /// by an undo (the caller's usual rules then do not run).
    pub(in crate::transport::tcp::sender) fn undo_process_loss(&mut self, advanced: bool, dup: bool) -> bool {
        let recovered = self.sb.una() >= self.recover;
        if advanced && self.try_undo_loss(false) {
            return true;
        }
        if self.ud().frto {
            if self.ud().orig_acked && self.try_undo_loss(true) {
                return true;
            }
            if self.sb.high() > self.recover {
                if self.ud().data_sacked || dup {
                    self.ud_mut().frto = false; // step 3.a: the loss was real
                }
            } else if advanced && !recovered {
                self.recover = self.sb.high();
                // step 2.b: new data first, once cwnd has grown on this ACK
                if self.has_new_data() {
                    self.ud_mut().frto_new = true;
                    return false;
                }
                self.ud_mut().frto = false;
            }
        }
        if recovered && self.try_undo_recovery() {
            self.undo_reopen();
            return true;
        }
        false
    }

    /// What the ACK lets out when F-RTO's step 2.b sends new data
    /// (`tcp_xmit_recovery` with `REXMIT_NEW`): new data within the
    /// window; if none could go, F-RTO ends and the lost segments follow.
    /// Whether F-RTO took this ACK's sending.
    pub(in crate::transport::tcp::sender) fn undo_frto_send(&mut self, net: &mut Net) -> bool {
        if !std::mem::take(&mut self.ud_mut().frto_new) {
            return false;
        }
        let before = self.sb.high();
        while self.has_new_data() && self.sb.pipe() < self.window() {
            let seq = self.sb.high();
            if !self.transmit(net, seq, false) {
                break;
            }
        }
        if self.sb.high() > before {
            return true;
        }
        self.ud_mut().frto = false;
        false
    }
}

/// Undo runs beside RACK-TLP; F-RTO ends by undoing a timeout.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    _f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.undo && !cfg.rack {
        return Err(ConfigError::new(p("undo"), "true needs rack = true (Linux's undo runs beside RACK-TLP here)"));
    }
    if cfg.frto && !cfg.undo {
        return Err(ConfigError::new(p("frto"), "true needs undo = true (F-RTO ends by undoing the timeout)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::net::packet::{Kind, Packet, TcpHeader, L4};
    use crate::sim::time::from_secs;
    use crate::transport::cc::CcEvent;
    use crate::transport::tcp::sender::{EventRecorder, TcpSender};
    use crate::transport::SenderAgent;
    use std::sync::{Arc, Mutex};

    /// An ACK of `ack` at `t` seconds reporting the D-SACK `d`.
    fn dsack_ack(s: &mut TcpSender, net: &mut crate::net::Net, t: f64, ack: u64, d: (u64, u64)) {
        net.now = from_secs(t);
        let mut h = TcpHeader { ack, ..Default::default() };
        h.push_dsack(d);
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
        s.on_packet(net, &pkt);
    }

    /// tests/packetdrill/dsack-undo.pkt's exchange: three SACKs start a
    /// recovery, the late original ends it, and a D-SACK of the one
    /// retransmission undoes it; the controller hears `Undo` then, after
    /// `RecoveryEnd` (Linux `tcp_undo_cwnd_reduction` calls `undo_cwnd`).
    #[test]
    fn an_undone_recovery_is_told_to_the_controller() {
        use CcEvent::*;
        let log = Arc::new(Mutex::new(Vec::new()));
        let spec = serde_json::json!({"tcp_model": "linux", "syn": "none", "timestamps": false, "init_cwnd_pkts": 10});
        let (mut s, mut net) = TcpSender::on_test_link(spec, Some(Box::new(EventRecorder(log.clone()))), 1);
        for (k, t) in [0.11, 0.12, 0.13].into_iter().enumerate() {
            s.test_ack(&mut net, t, 0, false, &[(1, 2 + k as u64)]);
        }
        assert_eq!(*log.lock().unwrap(), vec![RecoveryStart]);
        s.test_ack(&mut net, 0.14, 10, false, &[]);
        assert_eq!(*log.lock().unwrap(), vec![RecoveryStart, RecoveryEnd]);
        dsack_ack(&mut s, &mut net, 0.15, 10, (0, 1));
        assert_eq!(*log.lock().unwrap(), vec![RecoveryStart, RecoveryEnd, Undo]);
        assert_eq!(s.st.cwnd, 10.0, "the cut is undone");
    }
}
