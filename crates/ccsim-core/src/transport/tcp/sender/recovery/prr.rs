//! Proportional Rate Reduction (RFC 9937, which obsoletes RFC 6937), the
//! window of a SACK fast recovery in Linux (`tcp_cwnd_reduction`) and
//! ns-3 (`TcpPrrRecovery`, its default recovery).
//!
//! RFC 6675 sets cwnd = ssthresh at the fast retransmit, so after a loss
//! in a full window the sender falls silent until pipe drains below
//! ssthresh (half a round with Reno's halving) and then sends a burst.
//! PRR instead spreads the reduction over the round: while pipe is above
//! ssthresh it sends `ssthresh / RecoverFS` segments per segment
//! delivered (§4, "proportional"), and once pipe has fallen to ssthresh
//! it lets pipe grow back towards ssthresh by at most what was delivered
//! (PRR-CRB), plus one segment on an ACK that advances SND.UNA and
//! reports no further loss (PRR-SSRB on a `safeACK`). The state lives
//! only on flows with `prr = true` (boxed beside the sender).
//!
//! Units are segments: ccsim's scoreboard, pipe and ssthresh count
//! segments, so RFC 9937's byte quantities are segment counts and its
//! SMSS is 1. ssthresh may be fractional (CUBIC's β = 0.7); the
//! proportional share is rounded up as RFC 9937 writes `DIV_ROUND_UP`, and
//! the sending gate takes the integer part of cwnd.
use crate::transport::tcp::sender::*;

/// One PRR episode's counters (RFC 9937 §4) and what the current ACK
/// delivered.
#[derive(Clone, Debug, Default)]
pub struct Prr {
    /// `prr_delivered`: segments delivered to the receiver since the
    /// episode began.
    delivered: u64,
    /// `prr_out`: segments sent (new or retransmitted) since it began.
    pub(in crate::transport::tcp::sender) out: u64,
    /// `RecoverFS`: the data in flight when the episode began.
    recover_fs: u64,
    /// `DeliveredData` of the ACK being processed: the change in SND.UNA
    /// plus the segments it newly SACKed (§6.1), less what an earlier SACK
    /// had already covered.
    ack_delivered: u64,
    /// The ACK advances SND.UNA and marks no further segment lost (§4,
    /// `safeACK`).
    ack_safe: bool,
    /// Segments SACKed before this ACK (for `RecoverFS`).
    ack_sacked_before: u64,
    /// The next episode's `RecoverFS` as Linux takes it: cwnd when the
    /// reduction starts (`tcp_init_cwnd_reduction`'s `prior_cwnd`).
    prior_cwnd: Option<u64>,
}

impl Prr {
    /// What the ACK being processed delivered, before the recovery rules
    /// read it.
    pub(in crate::transport::tcp::sender) fn note_ack(&mut self, delivered: u64, safe: bool, sacked_before: u64) {
        self.ack_delivered = delivered;
        self.ack_safe = safe;
        self.ack_sacked_before = sacked_before;
    }

    /// The next episode starts as Linux's (`tcp_init_cwnd_reduction`,
    /// `tcp_cwnd_reduction`): `RecoverFS` is `prior_cwnd`; started by a
    /// timer (`tcp_rack_reo_timeout`), no ACK is being processed and its
    /// step counts one segment delivered.
    pub(in crate::transport::tcp::sender) fn linux_entry(&mut self, prior_cwnd: u64, by_timer: bool) {
        self.prior_cwnd = Some(prior_cwnd.max(1));
        if by_timer {
            self.note_ack(1, false, self.ack_sacked_before);
        }
    }
}

impl TcpSender {
    /// A fast recovery begins (RFC 9937 §4 "At the beginning of
    /// recovery", after ssthresh is set): reset the counters and take
    /// `RecoverFS` = SND.NXT − SND.UNA − the segments SACKed before this
    /// ACK (§6.1: data SACKed earlier already left the network and is not
    /// part of the flight to be reduced; the ACK's own delivery is counted
    /// by the step that follows). Then the entry ACK's own step.
    pub(in crate::transport::tcp::sender) fn prr_enter(&mut self) {
        let outstanding = self.sb.outstanding();
        let Some(p) = self.extras.as_deref_mut().and_then(|x| x.prr.as_deref_mut()) else { return };
        p.delivered = 0;
        p.out = 0;
        p.recover_fs = p.prior_cwnd.take().unwrap_or_else(|| outstanding.saturating_sub(p.ack_sacked_before).max(1));
        self.prr_ack();
    }

    /// An ACK that starts or continues the recovery and does not end it
    /// (RFC 9937 §4): cwnd = pipe + sndcnt, so the sending rules (pipe <
    /// cwnd) let out exactly `sndcnt` segments. An ACK that delivered
    /// nothing leaves cwnd as it was.
    pub(in crate::transport::tcp::sender) fn prr_ack(&mut self) {
        let pipe = self.sb.pipe() as f64;
        let ssthresh = self.st.ssthresh;
        let Some(p) = self.extras.as_deref_mut().and_then(|x| x.prr.as_deref_mut()) else { return };
        let d = p.ack_delivered;
        if d == 0 {
            return;
        }
        p.delivered += d;
        let mut sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction, rounded up (DIV_ROUND_UP).
            (p.delivered as f64 * ssthresh / p.recover_fs as f64).ceil() - p.out as f64
        } else {
            // PRR-CRB; PRR-SSRB on a safeACK; catch up to ssthresh.
            let mut limit = (p.delivered as f64 - p.out as f64).max(d as f64);
            if p.ack_safe {
                limit += 1.0;
            }
            (ssthresh - pipe).min(limit)
        };
        // Force the fast retransmit on entering recovery.
        if p.out == 0 && sndcnt < 1.0 {
            sndcnt = 1.0;
        }
        self.st.cwnd = pipe + sndcnt;
        self.clamp_cwnd();
    }
}

/// PRR counts what each ACK delivers from SACK blocks, and stands aside
/// for a controller that sets cwnd itself and under ns-2's agents.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.prr && cfg.recovery != Recovery::Sack {
        return Err(ConfigError::new(
            p("prr"),
            format!(
                "true needs recovery = \"sack\" (PRR counts the data each ACK delivers from SACK blocks), \
                 got \"{}\"",
                kind_name(&cfg.recovery)
            ),
        ));
    }
    if cfg.prr && StrategyKind::of(cfg).is_ns2() {
        return Err(ConfigError::new(
            p("prr"),
            "true needs the RFCs' recovery (tcp_model = \"rfc\", no ns2_* rule, no ns2 ecn_response, no \
             send_jitter_s): ns-2.35's agents have no PRR",
        ));
    }
    let cc_name = f.cc.as_deref().unwrap_or_default();
    let needs = crate::transport::cc::registry::needs(cc_name);
    if cfg.prr && needs.pacing_rate {
        return Err(ConfigError::new(
            p("prr"),
            format!(
                "true is not allowed with cc = \"{cc_name}\" (it sets cwnd itself from rate samples, as Linux's \
                 cong_control bypasses PRR)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::transport::tcp::sender::*;

    /// An rfc-personality Reno/SACK sender with PRR (1000-byte segments)
    /// and a window of `w` segments sent, on a one-link network whose
    /// events never run: the test plays the receiver.
    fn sender(w: u64, extra: serde_json::Value) -> (TcpSender, Net) {
        let mut j = serde_json::json!({
            "cc": "reno", "recovery": "sack", "prr": true, "delayed_ack": false,
            "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": w
        });
        j.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        TcpSender::on_test_link(j, None, 1)
    }

    /// An ACK of `ack` with SACK blocks `sack` at `t` s; the segments it let out.
    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, sack: &[(u64, u64)]) -> Vec<u64> {
        s.test_ack(net, t, ack, false, sack)
    }

    /// RFC 9937's example (RFC 6937 §6, Figure 1) with Limited Transmit:
    /// a window of 20, segment 0 lost, Reno's ssthresh 10. Duplicate ACKs
    /// 1-2 send a new segment each (RFC 3042); the third enters recovery
    /// with RecoverFS = 22 outstanding − 2 SACKed before = 20, and each
    /// duplicate delivers one segment. PRR sends the fast retransmit, then
    /// one segment per two ACKs (ssthresh / RecoverFS = 1/2) until pipe is
    /// down to ssthresh; RFC 6675 (cwnd = ssthresh at once) is silent
    /// until pipe drains below 10 and then sends one per ACK. Both end the
    /// round with pipe = ssthresh, and the ACK of the retransmission ends
    /// the episode with cwnd = ssthresh.
    #[test]
    fn one_loss_in_a_window_of_twenty_sends_one_per_two_acks() {
        for (prr, want) in [
            (true, [1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]),
            (false, [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]),
        ] {
            let (mut s, mut net) = sender(20, serde_json::json!({"prr": prr}));
            assert_eq!(s.sb.high(), 20);
            let mut sent = Vec::new();
            for k in 1..20u64 {
                sent.push(ack(&mut s, &mut net, 0.1 + k as f64 * 1e-4, 0, &[(1, k + 1)]));
            }
            assert_eq!(s.state, State::Recovery);
            assert_eq!(s.st.ssthresh, 10.0);
            assert_eq!(sent[2][0], 0, "the fast retransmit");
            let counts: Vec<usize> = sent.iter().map(Vec::len).collect();
            assert_eq!(counts, want, "prr = {prr}");
            if prr {
                // while pipe was above ssthresh: ceil(prr_delivered * 10 / 20) sent in all
                let p = s.x().prr.as_ref().unwrap();
                assert_eq!((p.delivered, p.out), (17, 8));
            }
            assert_eq!(s.sb.pipe(), 10, "prr = {prr}: pipe down to ssthresh");
            let hi = s.sb.high();
            ack(&mut s, &mut net, 0.3, hi, &[]);
            assert_eq!(s.state, State::Open);
            assert_eq!(s.st.cwnd, 10.0, "cwnd = ssthresh at the end");
        }
    }

    /// RecoverFS leaves out what was SACKed before the entry ACK (RFC 9937
    /// §6.1), and an ACK that delivers nothing keeps cwnd.
    #[test]
    fn recover_fs_excludes_earlier_sacks_and_a_null_ack_keeps_cwnd() {
        let (mut s, mut net) = sender(20, serde_json::json!({}));
        ack(&mut s, &mut net, 0.1, 0, &[(1, 2)]);
        ack(&mut s, &mut net, 0.1001, 0, &[(1, 3)]);
        ack(&mut s, &mut net, 0.1002, 0, &[(1, 4)]);
        assert_eq!(s.state, State::Recovery);
        // 22 outstanding (20 + 2 by Limited Transmit), 2 SACKed before the entry ACK.
        assert_eq!(s.x().prr.as_ref().unwrap().recover_fs, 20);
        let c = s.st.cwnd;
        assert!(ack(&mut s, &mut net, 0.1003, 0, &[(1, 4)]).is_empty());
        assert_eq!(s.st.cwnd, c, "nothing delivered: cwnd unchanged");
    }

    /// Below ssthresh (twelve segments lost: pipe falls under ssthresh at
    /// once), PRR-CRB sends what each ACK delivered and no more (packet
    /// conservation), and a safeACK (SND.UNA advances, no new loss) adds
    /// one segment (PRR-SSRB) to catch up towards ssthresh.
    #[test]
    fn below_ssthresh_the_reduction_bound_and_the_safe_ack() {
        let (mut s, mut net) = sender(20, serde_json::json!({}));
        let mut t = 0.1;
        let mut step = |s: &mut TcpSender, net: &mut Net, a: u64, sack: (u64, u64)| {
            t += 1e-4;
            ack(s, net, t, a, &[sack])
        };
        assert_eq!(step(&mut s, &mut net, 0, (12, 13)), vec![20], "Limited Transmit");
        assert_eq!(step(&mut s, &mut net, 0, (12, 14)), vec![21], "Limited Transmit");
        // Entry: 0-11 lost, pipe = 22 - 3 SACKed - 12 lost = 7 < ssthresh 10;
        // CRB: max(1 - 0, 1) = 1: the fast retransmit alone.
        assert_eq!(step(&mut s, &mut net, 0, (12, 15)), vec![0]);
        assert_eq!((s.st.ssthresh, s.sb.pipe()), (10.0, 8));
        // One more SACKed: CRB max(2 - 1, 1) = 1.
        assert_eq!(step(&mut s, &mut net, 0, (12, 16)), vec![1]);
        let p = s.x().prr.as_ref().unwrap();
        assert_eq!((p.delivered, p.out, p.ack_safe), (2, 2, false));
        // The retransmission of 0 acknowledged: safeACK, CRB 1 + 1 = 2 of
        // the 10 - 7 = 3 pipe may grow by.
        assert_eq!(step(&mut s, &mut net, 1, (12, 16)), vec![2, 3]);
        let p = s.x().prr.as_ref().unwrap();
        assert_eq!((p.delivered, p.out, p.ack_safe), (3, 4, true));
        assert_eq!(s.sb.pipe(), 9);
    }

    /// `prr` is checked: it needs SACK recovery and a window-based
    /// controller, and names the field.
    #[test]
    fn prr_needs_sack_and_a_window_controller() {
        use crate::scenario::FlowSpec;
        use crate::transport::tcp::TcpConfig;
        for (j, want) in [
            (serde_json::json!({"prr": true, "recovery": "newreno"}), "recovery = \"sack\""),
            (serde_json::json!({"prr": true, "cc": "bbr"}), "cc = \"bbr\""),
            (serde_json::json!({"prr": true, "tcp_model": "ns2", "recovery": "sack", "ecn": true}), "ns-2"),
        ] {
            let spec: FlowSpec = serde_json::from_value(j).unwrap();
            let e = TcpConfig::from_spec(&spec, "flows[0]").expect_err("refused").to_string();
            assert!(e.contains("flows[0].prr") && e.contains(want), "{e}");
        }
    }
}
