//! Pacing for window-based senders.
//!
//! - `Interval`: consecutive packets at least srtt/cwnd apart — the E-TCP
//!   paper's "TCP NewReno with packet pacing" (§VI-A).
//! - `TokenBucket`: tokens accrue at cwnd/srtt packets per second into a
//!   bucket of `size` packets (default 1); a packet needs one token — the
//!   paced-XCP paper's token-bucket pacer (§3.2).
//!
//! Before the first RTT sample there is no rate to pace at, so the initial
//! window leaves unpaced (it is at most a few packets).
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;

#[derive(Clone, Debug)]
pub enum Pacer {
    None,
    Interval { last_send: Option<Time> },
    TokenBucket { size: f64, tokens: f64, last: Time },
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
        // (checked first: no rate to compute for an unpaced sender)
        if let Pacer::None = self {
            return now;
        }
        let Some(rate) = Self::rate(cwnd, srtt) else { return now };
        match self {
            Pacer::None => now,
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

    /// Record a departure at `now` (after `release_time` allowed it).
    pub fn on_send(&mut self, now: Time) {
        match self {
            Pacer::None => {}
            Pacer::Interval { last_send } => *last_send = Some(now),
            Pacer::TokenBucket { tokens, .. } => *tokens = (*tokens - 1.0).max(0.0),
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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn interval_spaces_by_srtt_over_cwnd() {
        let mut p = Pacer::Interval { last_send: None };
        assert_eq!(p.release_time(0, 10.0, Some(0.1)), 0);
        p.on_send(0);
        assert_eq!(p.release_time(0, 10.0, Some(0.1)), from_secs(0.01));
    }
    #[test]
    fn token_bucket_refills_at_cwnd_over_srtt_and_caps() {
        let mut p = Pacer::token_bucket(1.0);
        let t0 = from_secs(1.0);
        assert_eq!(p.release_time(t0, 100.0, Some(0.1)), t0);
        p.on_send(t0);
        // 100 pkts per 0.1 s = one per ms
        assert_eq!(p.release_time(t0, 100.0, Some(0.1)), t0 + from_secs(0.001));
        // a long idle period cannot store more than one token
        p.release_time(t0 + from_secs(5.0), 100.0, Some(0.1));
        assert!(p.tokens().unwrap() <= 1.0);
    }
}
