//! The sender's side of rate-based congestion control: feeding the
//! delivery-rate sampler ([`super::super::rate`]) at each transmission and
//! ACK, handing each ACK's sample to a controller with `cong_control`
//! (Linux `tcp_cong_control`), and the pacing rate of `pacing = "rate"`
//! for the controllers that set none (Linux `tcp_update_pacing_rate`).
use super::*;
use crate::transport::cc::CaState;

/// What the sampler needs from before an ACK's rules ran.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckStart {
    prior_in_flight: u64,
    marked_lost: u64,
}

impl TcpSender {
    /// The loss state as controllers see it.
    fn ca_state(&self) -> CaState {
        match self.state {
            State::Open => CaState::Open,
            State::Recovery => CaState::Recovery,
            State::Loss => CaState::Loss,
        }
    }

    /// `tcp_rate_check_app_limited` (draft-ietf-ccwg-bbr §4.1.2.4): less
    /// than a segment of application data unsent, the window not full and
    /// every segment deemed lost retransmitted.
    pub(super) fn check_app_limited(&mut self) {
        if self.x().rate.is_none() {
            return;
        }
        let no_data = !self.app_active
            || self.total_segs.is_some_and(|t| self.sb.high() >= t.get())
            || self.x().offered.is_some_and(|o| self.sb.high() >= o.get() + self.cfg.first_data_seg());
        let in_flight = self.sb.pipe();
        let unrepaired = self.sb.n_lost() > self.sb.n_retx();
        let cwnd = self.window();
        if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()) {
            r.check_app_limited(no_data, in_flight, cwnd, unrepaired);
        }
    }

    /// Before a segment leaves: a start
    /// from nothing in flight while app-limited is a restart from idle
    /// (Linux `CA_EVENT_TX_START` in `tcp_event_data_sent`).
    pub(super) fn rate_before_send(&mut self, now: Time) {
        let idle = self.sb.pipe() == 0;
        if idle && self.x().rate.as_deref().is_some_and(|r| r.is_app_limited()) {
            self.sync(now);
            self.cc.on_event(&mut self.st, CcEvent::TxStart);
        }
    }

    /// After segment `seq` was recorded on the scoreboard at `now`;
    /// `outstanding` segments were out before it.
    pub(super) fn rate_on_send(&mut self, seq: u64, now: Time, outstanding: u64) {
        let (in_flight, lost) = (self.sb.pipe(), self.sb.marked_lost());
        if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()) {
            r.on_send(seq, now, outstanding, in_flight, lost);
        }
    }

    /// At an ACK's arrival, before its rules.
    pub(super) fn rate_ack_start(&mut self) -> Option<AckStart> {
        self.x().rate.as_ref()?;
        self.check_app_limited();
        Some(AckStart { prior_in_flight: self.sb.pipe(), marked_lost: self.sb.marked_lost() })
    }

    /// Mark the SACK blocks of `h` on the scoreboard, telling the sampler
    /// of each newly SACKed range.
    /// (`ece`: the ACK carried RFC 3168's ECE.)
    pub(super) fn mark_sack_blocks(&mut self, h: &TcpHeader, now: Time, ece: bool) {
        let min_rtt = self.rtt.min_rtt();
        let mut rate = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut());
        let mut rack = self.strategy.linux();
        if rate.is_none() && rack.is_none() {
            for (s, e) in h.sack_blocks_no_dsack() {
                self.sb.mark_sacked(s, e);
            }
            return;
        }
        if let Some(l) = rack.as_deref_mut() {
            l.note_fack(self.sb.high_sacked());
        }
        // The sampler and RACK (the transmission time of each newly SACKed
        // segment) learn of every range SACKed for the first time.
        for (s, e) in h.sack_blocks_no_dsack() {
            self.sb.mark_sacked_with(s, e, |a, b| {
                if let Some(l) = rack.as_deref_mut() {
                    l.on_sacked(a, b, now, min_rtt);
                }
                if let Some(r) = rate.as_deref_mut() {
                    r.on_delivered(a, b, now, ece);
                }
            });
        }
    }

    /// The cumulative ACK of `ack` (from una): deliver what was not SACKed.
    pub(super) fn rate_cumulative(&mut self, una: u64, ack: u64, now: Time, ece: bool) {
        if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()) {
            r.on_delivered(una, ack, now, ece);
            r.advance(ack);
        }
    }

    /// After the ACK's rules: the controller's `cong_control` with the
    /// ACK's rate sample (Linux `tcp_rate_gen`, `tcp_cong_control`), or,
    /// for a controller without one on a rate-paced flow, Linux's pacing
    /// rate from cwnd and srtt.
    pub(super) fn rate_ack_end(&mut self, start: Option<AckStart>, now: Time, rtt_s: Option<f64>) {
        if let Some(start) = start {
            let lost = self.sb.marked_lost();
            let losses = lost - start.marked_lost;
            let in_flight = self.sb.pipe();
            let ca_state = self.ca_state();
            let min_rtt = self.rtt.min_rtt();
            let r = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()).expect("a sampler with a start");
            let mut rs = r.generate(now, lost, losses, start.prior_in_flight, in_flight, min_rtt, rtt_s, ca_state);
            rs.wstamp = self.x().paced.as_ref().and_then(|p| p.pacer.wstamp()).unwrap_or(0);
            self.sync(now);
            let out = self.cc.cong_control(&mut self.st, &rs);
            self.clamp_cwnd();
            if out.mark_app_limited {
                if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()) {
                    r.mark_app_limited(in_flight);
                }
            }
        } else if self.rate_paced() {
            let rate = super::super::pacing::linux_pacing_rate(
                self.cfg.mss,
                self.st.cwnd,
                self.st.ssthresh,
                self.sb.outstanding(),
                self.rtt.srtt(),
            );
            if let Some(rate) = rate {
                self.st.pacing_rate = rate;
            }
        }
    }
}
