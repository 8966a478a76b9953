//! The retransmission timer's expiry (RFC 6298 §5, RFC 5681 §3.1) and the
//! controller's tick.
use super::*;

impl TcpSender {
    /// Retransmission timer expired (RFC 6298 §5.4–5.6, RFC 5681 eq. 4).
    pub fn on_rto(&mut self, net: &mut Net) {
        if self.sack1.is_some() {
            return self.sack1_on_rto(net);
        }
        // ns-2 `timeout`: every expiry sets `last_cwnd_action_` to TIMEOUT,
        // after which `ecn` reacts to the next ECE whatever `recover_`, and
        // calls `slowdown(CLOSE_CWND_*)`.
        self.ns2_after_timeout = self.cfg.ecn_response == EcnResponse::Ns2;
        // ns-2 `RenoTcpAgent::timeout`: dupwnd_ = 0 (cwnd_, the window
        // without it, is what `slowdown` halves below).
        let ns2_cwnd = (self.st.cwnd - self.dupwnd).min(self.awnd as f64);
        self.dupwnd = 0.0;
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.ns2_cong_action();
        }
        if self.sb.outstanding() == 0 {
            if self.cfg.ecn_response == EcnResponse::Ns2 {
                // ns-2 `timeout` sets `recover_ = maxseq_` and, on every
                // expiry, `last_cwnd_action_ = CWND_ACTION_TIMEOUT`: an
                // ECN reduction before it no longer spares a later
                // timeout's ssthresh cut.
                self.ecn_cut = false;
                self.recover = self.sb.high();
            }
            if self.st.cwnd < 1.0 || self.cfg.ns2_idle_restart {
                // ns-2 `timeout` with no outstanding data (after an ECN cut
                // to 0, or idle with `ns2_idle_restart`): the window is one
                // segment, no retransmission and no ssthresh cut
                // (`slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)`), and,
                // as `restart_bugfix_` (true by default) has it, no backoff
                // either (`reset_rtx_timer(0, 0)`, which rearms the timer).
                self.st.cwnd = 1.0;
                self.rtt.forget_timed();
                if self.cfg.ns2_idle_restart {
                    self.recover = self.sb.high();
                    self.arm_rto(net);
                }
                self.try_send(net);
            } else if self.held {
                // Linux's probe timer (`tcp_probe_timer`): nothing is
                // outstanding to clock a retry of the held segment.
                self.try_send(net);
            }
            return;
        }
        self.stats.timeouts += 1;
        self.note_timeout_before_any_ack();
        // Backoff is cleared when new data is ACKed, so a nonzero backoff
        // means this segment was already resent by the timer.
        let repeated = self.timer_resent;
        self.timer_resent = true;
        self.rtt.on_timeout();
        self.sync(net.now);
        // RFC 5681 §3.1 eq. (4) sets ssthresh to *no more than*
        // max(FlightSize/2, 2): the flight is capped by the window here, as
        // ns-2 (`window()`) and Linux (`snd_cwnd`) do. In Reno/NewReno fast
        // recovery that is the window without the dupack inflation: ns-2
        // keeps the inflation apart (`dupwnd_`), its `cwnd_` stays at the
        // halved window, and `slowdown` halves `window()` = `cwnd_` again
        // (an RTO in recovery after a slow-start overshoot: ns-2 52 -> 26,
        // where the inflated cwnd gave 80; docs/validation.md, "E-TCP and
        // LTCP baselines"). (Linux does not reduce ssthresh a second time
        // inside the recovery's window at all: `tcp_enter_loss`.) Without the cap, an RTO
        // that ends a failed SACK recovery counts everything sent during it
        // (SACKed data included) and sets ssthresh far above what the path
        // holds; with a gentle decrease (CUBIC's beta 0.7) the next slow
        // start then overshoots into the same failed recovery forever.
        // The same rule applies only "if the given segment has not yet been
        // resent by way of the retransmission timer": a backed-off repeat
        // keeps ssthresh (as Linux `tcp_enter_loss`), instead of collapsing
        // it to 2 from the one-segment window the first RTO left; ns-2's
        // `TcpAgent::timeout` does collapse it (`slowdown` with
        // CLOSE_SSTHRESH_HALF on every timeout): `halve_on_repeated_rto`.
        // RFC 3168 §6.1.2: nor is ssthresh lowered again if an ECE
        // reduction already lowered it in this window (ns-2 `timeout`:
        // `CLOSE_CWND_ONE` only, after `CWND_ACTION_ECN`).
        if self.cfg.ns2_bugfix && self.cfg.ecn_response == EcnResponse::Ns2 {
            // ns-2 `RenoTcpAgent::timeout` (tcp-reno.cc, NewReno's too):
            // `if (bug_fix_) recover_ = maxseq_` before `TcpAgent::timeout`
            // tests `highest_ack_ < recover_`, so with data outstanding the
            // timeout after an ECN reduction is the ECN one (`slowdown(
            // CLOSE_CWND_ONE)`, no ssthresh cut, no `++nrexmit_`) however
            // much of that reduction's window has been acknowledged.
            self.recover = self.sb.high();
        }
        let after_ecn = self.ecn_cut && self.sb.una() < self.recover;
        if (!repeated || self.cfg.halve_on_repeated_rto) && !after_ecn {
            if self.cfg.ns2_dupwnd {
                // ns-2's `slowdown(CLOSE_SSTHRESH_HALF | ...)`: ssthresh_
                // is an int, (int)(windowd() / 2) of the window cwnd_,
                // not of the flight (floor(w / 2) = floor(floor(w) / 2)).
                self.st.flight = ns2_cwnd.max(0.0).floor() as u64;
                self.st.ssthresh = self.cc_ssthresh().floor().max(2.0);
            } else {
                let window =
                    if self.state == State::Recovery { self.st.cwnd.min(self.st.ssthresh) } else { self.st.cwnd };
                self.st.flight = self.st.flight.min(window.ceil() as u64);
                self.st.ssthresh = self.cc_ssthresh();
            }
        }
        self.st.cwnd = 1.0;
        self.cc.on_event(&mut self.st, CcEvent::Timeout);
        self.clamp_cwnd();
        if self.cfg.ecn_response != EcnResponse::Ns2 {
            self.queue_cwr();
        }
        self.state = State::Loss;
        self.recover = self.sb.high();
        self.ecn_cut = false;
        self.cwr = false;
        self.local_cwr = false;
        self.dupacks = 0;
        self.sb.on_rto();
        if self.cfg.send_jitter_s == 0.0 {
            // With send_jitter_s, ns-2's `timeout` resends through the
            // delayed `send_much` (below), not at once.
            self.retransmit_first_lost(net, true);
        }
        self.arm_rto(net);
        self.try_send(net);
    }

    pub fn on_tick(&mut self, net: &mut Net) {
        if !self.app_active && self.sb.outstanding() == 0 {
            return;
        }
        self.sync(net.now);
        self.cc.on_tick(&mut self.st);
        self.clamp_cwnd();
        if let Some(p) = self.cc.tick_interval_s(&self.st) {
            self.tick_timer.arm(&mut net.events, net.now.saturating_add(from_secs(p)));
        }
        self.try_send(net);
    }
}
