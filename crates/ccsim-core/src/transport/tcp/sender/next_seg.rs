//! Which segment goes next: RFC 6675 §4's NextSeg() in recovery and after
//! a timeout (rule 1: the first lost hole not yet resent; rule 2: new
//! data; rule 3: a hole below the highest SACKed segment; rule 4: one
//! rescue retransmission per recovery), and new data under FlightSize in
//! the open state. The `linux` strategy keeps rules 1 and 2 only.
use super::*;

impl TcpSender {
    /// RFC 6675 NextSeg() in recovery and loss; FlightSize gating when
    /// open. `limit`: [`Self::send_limit`].
    pub(super) fn next_segment(&mut self, limit: u64) -> Option<Next> {
        if !self.within_limit(limit) {
            return None;
        }
        if self.state == State::Open {
            return Some(Next::New);
        }
        let hole = self.sb.next_unsent_hole();
        if let Some(s) = hole.filter(|&s| s < self.sb.lost_hi()) {
            return Some(Next::Retx(s)); // rule 1
        }
        if self.has_new_data() {
            return Some(Next::New); // rule 2
        }
        // Rules 3 and 4 are RFC 6675's: Linux retransmits only segments
        // marked lost (`tcp_xmit_retransmit_queue`), RACK's or the timer's.
        if self.cfg.recovery == Recovery::Sack && self.strategy.kind() != super::recovery::StrategyKind::Linux {
            if let Some(s) = hole.filter(|&s| s < self.sb.high_sacked()) {
                return Some(Next::Retx(s)); // rule 3
            }
            if self.state == State::Recovery && self.rescue_rxt.is_some_and(|r| self.sb.una() > r.get()) {
                // rule 4: one rescue retransmission per recovery
                self.rescue_rxt = Some(seq_opt(self.recover));
                return self.sb.highest_unsacked().map(Next::Retx);
            }
        }
        None
    }
}
