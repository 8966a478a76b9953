//! An arriving ACK: what every TCP does with it (scoreboard, RTT sample,
//! timer, controller, completion), around the rules its recovery strategy
//! supplies ([`super::recovery`]).
use super::recovery::{linux::LinuxOps, ns2::Ns2Agents, rfc::Rfc, NewAck, RecoveryOps, StrategyKind};
use super::*;
use crate::transport::cc::AckInfo;

impl TcpSender {
    /// Process an ACK. `echo` is the congestion header the ACK carried
    /// back, handed to the controller on a new ACK after its window rule
    /// (as ns-2's `XcpRenoTcpAgent::recv_newack_helper` runs Reno's, then
    /// XCP's). The SACK blocks are read from `h` where they are used (RFC
    /// 6675's scoreboard, ns-2's Sack1), not copied out for every ACK.
    pub(super) fn on_ack(&mut self, net: &mut Net, h: &TcpHeader, ts_echo: Time, echo: Option<CongestionHeader>) {
        match self.strategy.kind() {
            StrategyKind::Rfc => self.ack_with::<Rfc>(net, h, ts_echo, echo),
            StrategyKind::Ns2Agents => self.ack_with::<Ns2Agents>(net, h, ts_echo, echo),
            StrategyKind::Linux => self.ack_with::<LinuxOps>(net, h, ts_echo, echo),
            StrategyKind::Sack1 => {
                let n = h.n_sack();
                let mut sack = [(0, 0); MAX_SACK_BLOCKS];
                for (i, b) in sack.iter_mut().enumerate().take(n) {
                    *b = h.sack_block(i);
                }
                self.sack1_on_ack(net, h.ack, &sack[..n], ts_echo, echo)
            }
        }
    }

    /// The segments an ACK of `ack` (SACK blocks marked, SND.UNA still
    /// `una`) newly delivered: newly SACKed, and newly acknowledged that
    /// no SACK had covered (Linux's `tp->delivered` growth, RFC 9937's
    /// DeliveredData).
    fn newly_delivered(&self, una: u64, ack: u64, sacked_before: u64) -> u64 {
        let covered = (una..ack).filter(|&s| self.sb.is_sacked(s)).count() as u64;
        (self.sb.n_sacked() - sacked_before) + (ack.saturating_sub(una) - covered)
    }

    /// The ACK under recovery strategy `R`.
    fn ack_with<R: RecoveryOps>(
        &mut self,
        net: &mut Net,
        h: &TcpHeader,
        ts_echo: Time,
        echo: Option<CongestionHeader>,
    ) {
        let now = net.now;
        let una = self.sb.una();
        let ack = h.ack.min(self.sb.high());
        // RFC 3168's (and DCTCP's) ECE flag; AccECN's comes as a count.
        let classic_ece = self.x().accecn.is_none() && h.ece;
        let rate_start = self.rate_ack_start();
        // No echo (a replayed ACK of retransmitted data only): no sample.
        let sample = (ts_echo != NO_ECHO).then(|| to_secs(now.saturating_sub(ts_echo)));
        let sacked_before = self.sb.n_sacked();
        let lost_before = self.sb.marked_lost();
        R::read_options(self, h, ts_echo);
        if self.cfg.recovery == Recovery::Sack {
            self.mark_sack_blocks(h, now, classic_ece);
        }
        if self.x().prr.is_some() {
            let delivered = self.newly_delivered(una, ack, sacked_before);
            let safe = ack > una && self.sb.marked_lost() == lost_before;
            if let Some(p) = self.extras.as_deref_mut().and_then(|x| x.prr.as_deref_mut()) {
                p.note_ack(delivered, safe, sacked_before);
            }
        }
        // The segments this ACK reports CE-marked, and whether it signals
        // congestion (ECE, or a grown AccECN count).
        let ce = if self.x().accecn.is_some() {
            let delivered = self.newly_delivered(una, ack, sacked_before);
            let d =
                self.extras.as_deref_mut().and_then(|x| x.accecn.as_mut()).map_or(0, |a| a.on_ack(h.ace(), delivered));
            if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.rate.as_deref_mut()) {
                r.add_ce(d);
            }
            d
        } else if h.ece {
            ack.saturating_sub(una)
        } else {
            0
        };
        let ece = classic_ece || ce > 0;
        R::ack_arrives(self, net, ack, ece);
        let info = AckInfo { acked: ack.saturating_sub(una), ece, ce, una: ack.max(una), snd_nxt: self.sb.high() };
        self.cc.on_ack(&mut self.st, info);
        if ack > una {
            let blocks = ece && R::ece_blocks(self, ack);
            let acked = ack - una;
            let partial = self.state == State::Recovery
                && ack < self.recover
                && matches!(self.cfg.recovery, Recovery::NewReno | Recovery::Sack);
            let keep_backoff = R::keeps_backoff(self, ece);
            let backoff = self.rtt.backoff;
            if self.rtt.is_linux() {
                self.rtt.on_linux_ack(sample, ack, self.cfg.rto.min_rto);
            } else if let Some(r) = sample {
                self.rtt.on_new_ack(ack, r, partial, now);
            } else {
                self.rtt.reset_backoff();
            }
            if keep_backoff {
                self.rtt.backoff = backoff;
            }
            self.timer_resent = false;
            self.rate_cumulative(una, ack, now, classic_ece);
            self.sb.advance(ack);
            self.dupacks = 0;
            self.lt_sent = 0;
            self.sync(now);
            self.cc.pkts_acked(&mut self.st, acked, sample);
            if self.cwr && ack > self.recover {
                self.end_cwr();
            }
            let restart_rto = R::new_ack(self, net, NewAck { ack, acked, blocks, partial });
            self.syn_acked(ack);
            R::after_new_ack(self, ece);
            if let Some(h) = echo {
                self.clamp_cwnd();
                self.cc.on_feedback(&mut self.st, NetFeedback::Echo(h));
            }
            self.clamp_cwnd();
            // RFC 6298 §5.2: the timer stops when everything sent is
            // acknowledged, and restarts with each new ACK otherwise.
            if self.sb.outstanding() == 0 && self.st.cwnd >= 1.0 && R::stops_idle_timer(self) {
                self.rto_timer.disarm();
            } else if restart_rto {
                self.arm_rto(net);
            }
            if self.total_segs.is_some_and(|t| t.get() == self.sb.una()) && self.stats.completed_at.is_none() {
                self.stats.completed_at = Some(crate::sim::time::nonmax(now));
                self.stop_timers();
            }
        } else if ack == una && (self.sb.outstanding() > 0 || R::counts_idle_duplicates(self)) {
            self.dupacks += 1;
            self.sync(now);
            if self.sb.n_sacked() > sacked_before {
                R::sack_sample(self, sample);
            }
            // With nothing outstanding there is nothing to repair.
            if self.sb.outstanding() > 0 {
                R::dup_ack(self, net, una);
            }
        }
        R::ece(self, net, ece);
        if rate_start.is_some() || self.rate_paced() {
            self.rate_ack_end(rate_start, now, sample);
        }
        R::send(self, net);
    }
}
