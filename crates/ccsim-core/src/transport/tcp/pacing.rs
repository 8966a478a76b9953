//! Pacing for window-based senders.
//!
//! - `Interval`: consecutive packets at least srtt/cwnd apart — the E-TCP
//!   paper's "TCP NewReno with packet pacing" (§VI-A).
//! - `TokenBucket`: tokens accrue at cwnd/srtt packets per second into a
//!   bucket of `size` packets (default 1); a packet needs one token — the
//!   paced-XCP paper's token-bucket pacer (§3.2).
//!
//! - `Rate`: Linux's earliest-departure-time pacing at `sk_pacing_rate`
//!   (`tcp_update_skb_after_send`): each segment moves the next
//!   departure `payload / rate` later, less up to half of that when the
//!   sender was behind its schedule (Linux's credit for a late send), and
//!   the first nine segments leave unpaced (`data_segs_out >= 10`, as
//!   `sch_fq` never paced the first ten). The rate is the controller's
//!   (BBR) or, for the others, Linux `tcp_update_pacing_rate`'s:
//!   `mss · max(cwnd, FlightSize) / srtt` times 200% while cwnd <
//!   ssthresh/2 and 120% after (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`,
//!   ns-3's `PacingSsRatio`/`PacingCaRatio`).
//!
//! Before the first RTT sample there is no rate to pace at, so the initial
//! window leaves unpaced (it is at most a few packets).
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;

/// A paced sender's pacer (an unpaced sender has none).
#[derive(Clone, Debug)]
pub enum Pacer {
    Interval {
        last_send: Option<Time>,
    },
    TokenBucket {
        size: f64,
        tokens: f64,
        last: Time,
    },
    /// Earliest departure time of the next transmission (Linux
    /// `tcp_wstamp_ns`), the data segments sent so far (`data_segs_out`)
    /// and the transmission in progress.
    Rate {
        next: Time,
        sent: u64,
        skb: Skb,
    },
}

/// The transmission (Linux's skb) `Pacer::Rate` is sending: one segment,
/// or with TSO autosizing ([`crate::transport::tso`]) up to that many
/// segments leaving together at one instant, paced as one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Skb {
    /// When it left (its segments join it only at this instant).
    at: Time,
    /// Segments that may still join it.
    left: u32,
    /// The departure time it began at, and the credit of a late start.
    base: Time,
    credit: Time,
    /// Its payload bytes so far.
    bytes: u64,
}

impl Skb {
    /// A segment sent at `now` joins this transmission.
    #[inline]
    fn joins(&self, now: Time) -> bool {
        self.left > 0 && self.at == now
    }
}

/// Segments `Pacer::Rate` lets out before it paces (Linux:
/// `tp->data_segs_out >= 10`, counted with the segment just sent).
const RATE_UNPACED_SEGS: u64 = 9;

/// Linux's default pacing rate for a controller without its own
/// (`tcp_update_pacing_rate`), in payload bytes per second: `None`
/// before an RTT sample (Linux keeps `~0U`, unpaced).
pub fn linux_pacing_rate(mss: u32, cwnd: f64, ssthresh: f64, flight: u64, srtt: Option<f64>) -> Option<f64> {
    let srtt = srtt.filter(|&s| s > 0.0)?;
    let ratio = if cwnd < ssthresh / 2.0 { 2.0 } else { 1.2 };
    Some(mss as f64 * ratio * cwnd.max(flight as f64) / srtt)
}

impl Pacer {
    pub fn token_bucket(size: f64) -> Self {
        Pacer::TokenBucket { size, tokens: size, last: 0 }
    }

    /// Packets per second the pacer allows, if pacing applies.
    fn rate(cwnd: f64, srtt: Option<f64>) -> Option<f64> {
        srtt.filter(|&s| s > 0.0).map(|s| cwnd.max(1.0) / s)
    }

    /// Earliest time a packet may leave (`<= now` means now).
    pub fn release_time(&mut self, now: Time, cwnd: f64, srtt: Option<f64>) -> Time {
        // (checked first: no window rate to compute for the EDT pacer)
        if let Pacer::Rate { next, skb, .. } = self {
            // a segment that joins the transmission in progress leaves with it
            return if skb.joins(now) { now } else { (*next).max(now) };
        }
        let Some(rate) = Self::rate(cwnd, srtt) else { return now };
        match self {
            Pacer::Rate { .. } => now,
            Pacer::Interval { last_send } => match last_send {
                None => now,
                Some(t) => *t + from_secs(1.0 / rate),
            },
            Pacer::TokenBucket { size, tokens, last } => {
                *tokens = (*tokens + to_secs(now.saturating_sub(*last)) * rate).min(*size);
                *last = now;
                if *tokens >= 1.0 - 1e-9 {
                    now
                } else {
                    now.saturating_add(from_secs((1.0 - *tokens) / rate).max(1))
                }
            }
        }
    }

    /// Record a departure at `now` (after `release_time` allowed it) of
    /// `payload` bytes, with the pacing rate in force (`Rate` only: payload
    /// bytes per second, 0 for none) and, if it begins a transmission, the
    /// segments that transmission may hold (`Rate` only; 1 without TSO).
    pub fn on_send(&mut self, now: Time, payload: u32, rate: f64, skb_segs: u32) {
        match self {
            Pacer::Rate { next, sent, skb } => {
                *sent += 1;
                if skb.joins(now) {
                    skb.left -= 1;
                    skb.bytes += payload as u64;
                } else {
                    let base = (*next).max(now);
                    let credit = base - *next;
                    let left = skb_segs.max(1) - 1;
                    *skb = Skb { at: now, left, base, credit, bytes: payload as u64 };
                }
                *next = skb.base;
                if rate > 0.0 && *sent > RATE_UNPACED_SEGS {
                    // the whole transmission's time at the rate; a late
                    // start (the sender idle, or held by the window) may
                    // catch up by half of it
                    let len = from_secs(skb.bytes as f64 / rate);
                    *next += len - skb.credit.min(len / 2);
                }
            }
            Pacer::Interval { last_send } => *last_send = Some(now),
            Pacer::TokenBucket { tokens, .. } => *tokens = (*tokens - 1.0).max(0.0),
        }
    }

    /// The sender has sent what it can for now (the end of Linux's
    /// `tcp_write_xmit`): a later send, even at this instant, begins a
    /// new transmission.
    pub fn end_transmission(&mut self) {
        if let Pacer::Rate { skb, .. } = self {
            skb.left = 0;
        }
    }

    /// The earliest departure time of the next transmission (Linux
    /// `tcp_wstamp_ns`; `Rate` only).
    pub fn wstamp(&self) -> Option<Time> {
        match self {
            Pacer::Rate { next, .. } => Some(*next),
            _ => None,
        }
    }

    /// Current tokens (token bucket only), for tests and traces.
    pub fn tokens(&self) -> Option<f64> {
        match self {
            Pacer::TokenBucket { tokens, .. } => Some(*tokens),
            _ => None,
        }
    }
}

/// TSO autosizing sizes the transmissions of Linux's rate pacing.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    _f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.tso_autosize && !matches!(cfg.pacing, PacingKind::Rate | PacingKind::None) {
        return Err(ConfigError::new(
            p("tso_autosize"),
            format!(
                "true needs pacing = \"rate\" or \"none\" (Linux's transmissions, paced at its rate or \
                 deferred to the ACK clock), got \"{}\"",
                kind_name(&cfg.pacing)
            ),
        ));
    }
    use crate::transport::tcp::sender::recovery::StrategyKind;
    let linux = StrategyKind::of(cfg) == StrategyKind::Linux;
    if cfg.tso_autosize && cfg.pacing == PacingKind::None && !linux {
        return Err(ConfigError::new(
            p("tso_autosize"),
            "true with pacing = \"none\" needs Linux's loss recovery (tcp_model = \"linux\", or rack, tlp, \
             rto_rack_mark or reno_sack true): the deferral of a transmission reads when the oldest outstanding \
             segment left, which that recovery keeps",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn interval_spaces_by_srtt_over_cwnd() {
        let mut p = Pacer::Interval { last_send: None };
        assert_eq!(p.release_time(0, 10.0, Some(0.1)), 0);
        p.on_send(0, 1000, 0.0, 1);
        assert_eq!(p.release_time(0, 10.0, Some(0.1)), from_secs(0.01));
    }
    #[test]
    fn token_bucket_refills_at_cwnd_over_srtt_and_caps() {
        let mut p = Pacer::token_bucket(1.0);
        let t0 = from_secs(1.0);
        assert_eq!(p.release_time(t0, 100.0, Some(0.1)), t0);
        p.on_send(t0, 1000, 0.0, 1);
        // 100 pkts per 0.1 s = one per ms
        assert_eq!(p.release_time(t0, 100.0, Some(0.1)), t0 + from_secs(0.001));
        // a long idle period cannot store more than one token
        p.release_time(t0 + from_secs(5.0), 100.0, Some(0.1));
        assert!(p.tokens().unwrap() <= 1.0);
    }

    #[test]
    fn rate_paces_after_nine_segments_and_credits_a_late_send() {
        let mut p = Pacer::Rate { next: 0, sent: 0, skb: Skb::default() };
        // 1e6 bytes/s, 1000-byte segments: 1 ms each
        for _ in 0..9 {
            assert_eq!(p.release_time(0, 10.0, None), 0);
            p.on_send(0, 1000, 1e6, 1);
        }
        assert_eq!(p.release_time(0, 10.0, None), 0);
        p.on_send(0, 1000, 1e6, 1);
        assert_eq!(p.release_time(0, 10.0, None), from_secs(0.001));
        p.on_send(from_secs(0.001), 1000, 1e6, 1);
        assert_eq!(p.release_time(0, 10.0, None), from_secs(0.002));
        // sent 5 ms late: the next gap is halved
        let late = from_secs(0.007);
        p.on_send(late, 1000, 1e6, 1);
        assert_eq!(p.release_time(late, 10.0, None), late + from_secs(0.0005));
    }

    #[test]
    fn rate_paces_a_transmission_of_several_segments_as_one() {
        let mut p = Pacer::Rate { next: 0, sent: 0, skb: Skb::default() };
        // past the unpaced start: the tenth segment is paced, 1 ms
        for _ in 0..10 {
            p.on_send(0, 1000, 1e6, 1);
        }
        let t = from_secs(0.001);
        assert_eq!(p.release_time(t, 10.0, None), t);
        // a transmission of 4 segments: all leave at t, the next waits 4 ms
        p.on_send(t, 1000, 1e6, 4);
        for _ in 0..3 {
            assert_eq!(p.release_time(t, 10.0, None), t);
            p.on_send(t, 1000, 1e6, 4);
        }
        assert_eq!(p.release_time(t, 10.0, None), t + from_secs(0.004));
        // a transmission cut short by the window ends with the send loop
        let t2 = t + from_secs(0.004);
        p.on_send(t2, 1000, 1e6, 4);
        p.end_transmission();
        assert_eq!(p.release_time(t2, 10.0, None), t2 + from_secs(0.001));
        // and one segment per transmission is the segment-by-segment pacer
        let mut q = Pacer::Rate { next: t, sent: 10, skb: Skb::default() };
        q.on_send(t, 1000, 1e6, 1);
        assert_eq!(q.release_time(t, 10.0, None), t + from_secs(0.001));
    }

    #[test]
    fn linux_default_rate() {
        // slow start (cwnd < ssthresh/2): 200% of cwnd/srtt
        assert_eq!(linux_pacing_rate(1000, 10.0, 100.0, 0, Some(0.1)), Some(200_000.0));
        // after: 120%, of FlightSize if larger
        assert_eq!(linux_pacing_rate(1000, 10.0, 10.0, 20, Some(0.1)), Some(240_000.0));
        assert_eq!(linux_pacing_rate(1000, 10.0, 10.0, 20, None), None);
    }
}
