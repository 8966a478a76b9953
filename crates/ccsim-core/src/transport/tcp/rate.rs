//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation,
//! now draft-ietf-ccwg-bbr §4.1; Linux `net/ipv4/tcp_rate.c`; ns-3
//! `TcpRateLinux`): per-ACK samples of the rate at which the network
//! delivered data, for controllers with `cong_control` (BBR).
//!
//! Each transmission records the connection's delivery state (`delivered`,
//! `delivered_time`, `first_send_time`, app-limited) in a snapshot of its
//! segment. When a segment is delivered (newly SACKed, or cumulatively
//! acknowledged without having been SACKed) the connection's `delivered`
//! grows by one, and the most recently sent delivered segment of the ACK
//! (the largest snapshot `delivered`, Linux `tcp_rate_skb_delivered`)
//! becomes the sample's reference. The sample is the segments delivered
//! since that segment was sent over the longer of its send phase
//! (`send_time − first_send_time`) and its ACK phase (`now −
//! delivered_time`): the longer phase bounds the rate from above, so ACK
//! compression cannot inflate it. A sample whose interval is shorter than
//! the minimum RTT is discarded (`tcp_rate_gen`).
//!
//! App-limited marking (D6 §4.1.2.4, `tcp_rate_check_app_limited`): when
//! less than a segment of application data is unsent, the window is not
//! full and every lost segment has been retransmitted, what is sent until
//! the data now in flight is delivered is marked app-limited. The check
//! runs on each application write, at the start of each ACK and at each
//! retransmission timeout, as the draft says (Linux runs it on writes and
//! leaves the rest to its callers).
//!
//! Segments, not bytes, are counted, as Linux does (ns-3 counts bytes;
//! with full-sized segments the two agree). The snapshots live only for
//! the flows whose controller asks for samples.
use crate::sim::time::to_secs;
use crate::sim::Time;
use crate::transport::cc::{CaState, RateSample};
use std::collections::VecDeque;

/// The delivery state a transmission of one segment saw (Linux
/// `tcp_skb_cb::tx`, D6 §4.1.2.2).
#[derive(Clone, Copy, Debug, Default)]
struct TxSnapshot {
    /// The connection's `delivered` at the send.
    delivered: u64,
    /// Its `delivered_time`; `None` once the segment's delivery was
    /// counted (a later cumulative ACK of a SACKed segment is ignored).
    delivered_time: Option<Time>,
    first_send_time: Time,
    send_time: Time,
    is_app_limited: bool,
    /// Segments in flight after this send, itself included.
    tx_in_flight: u64,
    /// The connection's lost count at the send.
    lost: u64,
}

/// The per-ACK sample being assembled (Linux's `struct rate_sample` on
/// `tcp_ack`'s stack).
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    /// The reference snapshot: the most recently sent delivered segment.
    reference: Option<TxSnapshot>,
    acked_sacked: u64,
    delivered_ce: u64,
}

/// A sender's delivery-rate estimator (`tcp_rate.c`'s connection state).
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// Of which with ECE on the ACK that delivered them (`delivered_ce`).
    pub delivered_ce: u64,
    /// When `delivered` last grew.
    delivered_time: Time,
    /// The send time of the most recently delivered segment (the start of
    /// the next sample's send phase).
    first_send_time: Time,
    /// 0, or the `delivered` count after which samples stop being
    /// app-limited (the end of the app-limited "bubble").
    app_limited: u64,
    /// Snapshots of the segments `[una, high)`, indexed from `una`.
    tx: VecDeque<TxSnapshot>,
    una: u64,
    pending: Pending,
}

impl RateSampler {
    /// A sampler whose transmissions before the first ACK count as
    /// app-limited, as Linux starts every connection (`tp->app_limited =
    /// ~0U`, cleared by the first `tcp_rate_gen`): the initial window's
    /// samples cannot be trusted to fill the pipe.
    pub fn new() -> Self {
        RateSampler { app_limited: u64::MAX, ..Default::default() }
    }

    /// Segment `seq` leaves at `now` (new data or a retransmission);
    /// `outstanding` segments were sent and not cumulatively acknowledged
    /// before it, `in_flight` (pipe) counts it, and `lost` segments have
    /// been marked lost so far. `tcp_rate_skb_sent`: with
    /// nothing outstanding the sampling interval restarts now (Linux tests
    /// `packets_out`, not its in-flight estimate, so spurious loss marks
    /// cannot shorten the interval).
    pub fn on_send(&mut self, seq: u64, now: Time, outstanding: u64, in_flight: u64, lost: u64) {
        if outstanding == 0 {
            self.first_send_time = now;
            self.delivered_time = now;
        }
        let snap = TxSnapshot {
            delivered: self.delivered,
            delivered_time: Some(self.delivered_time),
            first_send_time: self.first_send_time,
            send_time: now,
            is_app_limited: self.app_limited != 0,
            tx_in_flight: in_flight,
            lost,
        };
        if self.tx.is_empty() && seq > self.una {
            // nothing outstanding was sent through here: the segments
            // below `seq` are not data (the handshake's SYN is segment 0)
            self.una = seq;
        }
        let i = (seq - self.una) as usize;
        if i < self.tx.len() {
            self.tx[i] = snap; // a retransmission is re-stamped
        } else {
            debug_assert_eq!(i, self.tx.len(), "new data is sent in order");
            self.tx.push_back(snap);
        }
    }

    /// This ACK's AccECN count reports `n` more CE-marked packets.
    pub fn add_ce(&mut self, n: u64) {
        self.delivered_ce += n;
        self.pending.delivered_ce += n;
    }

    /// Segments `[s, e)` are delivered by this ACK (newly SACKed, or
    /// cumulatively acknowledged without a SACK before); `ece`: the ACK
    /// carried ECE. `tcp_rate_skb_delivered` for each.
    pub fn on_delivered(&mut self, s: u64, e: u64, now: Time, ece: bool) {
        for seq in s.max(self.una)..e {
            let Some(p) = self.tx.get_mut((seq - self.una) as usize) else { break };
            let Some(_) = p.delivered_time else { continue };
            let snap = *p;
            p.delivered_time = None;
            self.delivered += 1;
            self.delivered_time = now;
            self.pending.acked_sacked += 1;
            if ece {
                self.delivered_ce += 1;
                self.pending.delivered_ce += 1;
            }
            // the most recently sent: the largest delivered-at-send; ties
            // (a flight sent before any delivery) go to the later send
            let newer = match self.pending.reference {
                None => true,
                Some(r) => {
                    snap.delivered > r.delivered || (snap.delivered == r.delivered && snap.send_time >= r.send_time)
                }
            };
            if newer {
                self.pending.reference = Some(snap);
                self.first_send_time = snap.send_time;
            }
        }
    }

    /// The cumulative ACK moved una to `una`: drop the snapshots below it
    /// (deliver them first with [`Self::on_delivered`]).
    pub fn advance(&mut self, una: u64) {
        while self.una < una && self.tx.pop_front().is_some() {
            self.una += 1;
        }
        self.una = self.una.max(una);
    }

    /// Whether what is sent now is marked app-limited.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// `tcp_rate_check_app_limited`: less than a segment of application
    /// data unsent (`no_data`), the window not full and no lost segment
    /// waiting for its retransmission: mark the bubble.
    pub fn check_app_limited(&mut self, no_data: bool, in_flight: u64, cwnd: u64, lost_unrepaired: bool) {
        if no_data && in_flight < cwnd && !lost_unrepaired {
            self.mark_app_limited(in_flight);
        }
    }

    /// What is sent until the `in_flight` segments now out are delivered
    /// is app-limited (`max(delivered + in_flight, 1)`).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// `tcp_rate_gen`: the ACK's sample, after its deliveries, with
    /// `losses` newly marked lost on it (`lost` so far), the pipe before
    /// and after it and the minimum RTT seen (samples over a shorter
    /// interval are refused).
    #[allow(clippy::too_many_arguments)]
    pub fn generate(
        &mut self,
        now: Time,
        lost: u64,
        losses: u64,
        prior_in_flight: u64,
        in_flight: u64,
        min_rtt_s: Option<f64>,
        rtt_s: Option<f64>,
        ca_state: CaState,
    ) -> RateSample {
        let p = std::mem::take(&mut self.pending);
        // the bubble is gone once its data is delivered (Linux's initial
        // ~0U compares "after" any count in 32-bit sequence arithmetic: it
        // ends at the first ACK's sample)
        if self.app_limited != 0 && (self.delivered > self.app_limited || self.app_limited == u64::MAX) {
            self.app_limited = 0;
        }
        let mut rs = RateSample {
            delivered: None,
            interval_s: 0.0,
            prior_delivered: 0,
            is_app_limited: false,
            acked_sacked: p.acked_sacked,
            losses,
            prior_in_flight,
            in_flight,
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            wstamp: 0,
            total_delivered_ce: self.delivered_ce,
            ece_delta: p.delivered_ce,
            tx_in_flight: 0,
            lost: 0,
            rtt_s,
            ca_state,
            conn_app_limited: self.app_limited != 0,
        };
        let Some(r) = p.reference else { return rs };
        let Some(prior_time) = r.delivered_time else { return rs };
        rs.prior_delivered = r.delivered;
        rs.is_app_limited = r.is_app_limited;
        rs.tx_in_flight = r.tx_in_flight;
        rs.lost = lost.saturating_sub(r.lost);
        let send_elapsed = to_secs(r.send_time.saturating_sub(r.first_send_time));
        let ack_elapsed = to_secs(now.saturating_sub(prior_time));
        let interval = send_elapsed.max(ack_elapsed);
        if interval <= 0.0 || min_rtt_s.is_some_and(|m| interval < m) {
            return rs;
        }
        rs.delivered = Some(self.delivered - r.delivered);
        rs.interval_s = interval;
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    fn gen(r: &mut RateSampler, now: Time) -> RateSample {
        r.generate(now, 0, 0, 0, 0, None, None, CaState::Open)
    }

    /// After a handshake the data start at segment 1 (the SYN was 0 and
    /// was never sent through the sampler): each ACK's reference is the
    /// segment it delivers. The ACK of the initial window's last segment
    /// refers to a send before any delivery, as in Linux, so BBR's next
    /// round starts with the first segment sent after the first ACK, not
    /// one segment early.
    #[test]
    fn data_after_a_syn_are_sampled_from_their_own_sends() {
        let mut r = RateSampler::new();
        for s in 1..=10 {
            r.on_send(s, 0, s - 1, s, 0);
        }
        let t1 = from_secs(0.1);
        r.on_delivered(1, 2, t1, false);
        r.advance(2);
        assert_eq!(gen(&mut r, t1).prior_delivered, 0);
        r.on_send(11, t1, 9, 10, 0);
        for k in 2..=10u64 {
            let now = from_secs(0.1 + (k - 1) as f64 * 1e-3);
            r.on_delivered(k, k + 1, now, false);
            r.advance(k + 1);
            let rs = gen(&mut r, now);
            assert_eq!((rs.prior_delivered, rs.total_delivered), (0, k), "segment {k}");
            assert!(rs.is_app_limited, "segment {k}: the initial window");
        }
        let t2 = from_secs(0.2);
        r.on_delivered(11, 12, t2, false);
        r.advance(12);
        let rs = gen(&mut r, t2);
        assert_eq!(rs.prior_delivered, 1, "sent after the first delivery");
        assert!(!rs.is_app_limited);
        assert_eq!(rs.interval_s, 0.1, "from its send at the first ACK");
    }

    /// A window of 10 sent back to back at t = 0 and ACKed one per ms from
    /// t = 100 ms: a bottleneck of 1000 segments/s. Every sample after the
    /// first round measures 1000/s, by the ACK phase (the send phase is
    /// zero); the first round's are app-limited (Linux starts so).
    #[test]
    fn ack_paced_flight_gives_the_bottleneck_rate() {
        let mut r = RateSampler::new();
        for s in 0..10 {
            r.on_send(s, 0, s, s + 1, 0);
        }
        for k in 0..30u64 {
            let next = 10 + k;
            let now = from_secs(0.1 + k as f64 * 0.001);
            r.on_delivered(k, k + 1, now, false);
            r.advance(k + 1);
            let rs = gen(&mut r, now);
            // ACK clocking: one new segment per ACK
            r.on_send(next, now, next - k - 1, 10, 0);
            let rate = rs.rate_pkts_per_s().unwrap();
            if k < 10 {
                assert!(rs.is_app_limited, "first round");
                assert_eq!(rs.delivered, Some(k + 1));
            } else if k < 20 {
                // the second round's send phase reaches back to the first
                // flight's burst at t = 0: conservative, below the rate
                assert!(!rs.is_app_limited && rate < 1000.0, "k {k}: {rate}");
            } else {
                // 10 delivered per 10 ms, by both phases
                assert!((rate - 1000.0).abs() < 1e-3, "k {k}: {rate}");
            }
        }
    }

    /// D6's bound: on a bottleneck of C with one ACK per segment, no
    /// sample exceeds C. Here a sender keeps 40 segments out over a path
    /// of 10 ms propagation served at 2000 segments/s (a BDP of 21): every
    /// sample is at most 2000/s, and once the queue stands, exactly that.
    #[test]
    fn no_sample_exceeds_the_bottleneck() {
        let c = 2000.0; // segments per second
        let prop = 0.010;
        let mut r = RateSampler::new();
        // departures from the bottleneck: the k-th at max(arrival, last + 1/c)
        let mut sent: Vec<f64> = Vec::new();
        let mut last_out = 0.0f64;
        let mut acks: Vec<(f64, u64)> = Vec::new();
        let send = |r: &mut RateSampler,
                    seq: u64,
                    t: f64,
                    out: u64,
                    sent: &mut Vec<f64>,
                    last_out: &mut f64,
                    acks: &mut Vec<(f64, u64)>| {
            r.on_send(seq, from_secs(t), out, out + 1, 0);
            sent.push(t);
            *last_out = last_out.max(t) + 1.0 / c;
            acks.push((*last_out + prop, seq));
        };
        for s in 0..40 {
            send(&mut r, s, 0.0, s, &mut sent, &mut last_out, &mut acks);
        }
        let mut i = 0;
        let mut next = 40;
        let mut full = 0;
        while i < acks.len() && i < 400 {
            let (t, seq) = acks[i];
            let now = from_secs(t);
            r.on_delivered(seq, seq + 1, now, false);
            r.advance(seq + 1);
            let rs = gen(&mut r, now);
            if let Some(rate) = rs.rate_pkts_per_s() {
                assert!(rate <= c * (1.0 + 1e-6), "ack {i}: {rate} > {c}");
                if !rs.is_app_limited && i > 100 {
                    assert!((rate - c).abs() < 1e-6 * c, "ack {i}: {rate}");
                    full += 1;
                }
            }
            send(&mut r, next, t, next - seq - 1, &mut sent, &mut last_out, &mut acks);
            next += 1;
            i += 1;
        }
        assert!(full > 200);
    }

    #[test]
    fn a_sacked_segment_counts_once_and_the_newest_is_the_reference() {
        let mut r = RateSampler::new();
        for s in 0..4 {
            r.on_send(s, from_secs(s as f64 * 0.01), s, s + 1, 0);
        }
        // segment 2 SACKed at 100 ms, then the cumulative ACK of all four
        r.on_delivered(2, 3, from_secs(0.1), false);
        let rs = gen(&mut r, from_secs(0.1));
        assert_eq!(rs.acked_sacked, 1);
        assert_eq!(r.delivered, 1);
        r.on_delivered(0, 4, from_secs(0.13), true);
        r.advance(4);
        let rs = gen(&mut r, from_secs(0.13));
        assert_eq!(rs.acked_sacked, 3, "segment 2 is not counted again");
        assert_eq!(r.delivered, 4);
        assert_eq!(r.delivered_ce, 3);
        // the reference is segment 3 (sent at 30 ms, delivered count 0 at
        // its send): 4 delivered over max(30 ms send phase, 130 ms ack phase)
        assert_eq!(rs.delivered, Some(4));
        assert!((rs.interval_s - 0.13).abs() < 1e-12);
    }

    #[test]
    fn short_intervals_are_refused_and_the_bubble_ends() {
        let mut r = RateSampler::new();
        r.on_send(0, 0, 0, 1, 0);
        r.on_delivered(0, 1, from_secs(0.01), false);
        r.advance(1);
        assert_eq!(r.generate(from_secs(0.01), 0, 0, 1, 0, Some(0.02), None, CaState::Open).delivered, None);
        assert_eq!(r.app_limited, 0, "the initial bubble is gone once anything is delivered");
        r.check_app_limited(true, 0, 10, false);
        assert_eq!(r.app_limited, 1);
        r.check_app_limited(true, 10, 10, false);
        r.app_limited = 0;
        r.check_app_limited(true, 10, 10, false);
        assert_eq!(r.app_limited, 0, "a full window is not app-limited");
        r.check_app_limited(true, 3, 10, true);
        assert_eq!(r.app_limited, 0, "an unrepaired loss is not app-limited");
    }
}
