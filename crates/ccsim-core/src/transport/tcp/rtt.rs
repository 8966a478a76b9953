//! RTT estimation and retransmission timeout (RFC 6298 §2, §5).
//!
//! SRTT/RTTVAR with alpha = 1/8, beta = 1/4; RTO = SRTT + max(G, 4·RTTVAR),
//! floored at `min_rto` (ns-2 and Linux use 0.2 s, RFC 6298 says 1 s), then
//! doubled per consecutive timeout (§5.5) and capped at `max_rto`. The
//! backoff is cleared when new data is acknowledged (with timestamps every
//! such ACK carries a valid sample, §5.7).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<f64>,
    pub rttvar: f64,
    pub min_rtt: Option<f64>,
    pub backoff: u32,
    min_rto: f64,
    max_rto: f64,
    init_rto: f64,
    granularity: f64,
}

impl RttEstimator {
    pub fn new(min_rto: f64, max_rto: f64, init_rto: f64, granularity: f64) -> Self {
        RttEstimator { srtt: None, rttvar: 0.0, min_rtt: None, backoff: 0, min_rto, max_rto, init_rto, granularity }
    }

    /// Feed one RTT sample `r` (seconds).
    pub fn sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                // RTTVAR first, with the old SRTT (RFC 6298 §2.3).
                self.rttvar = 0.75 * self.rttvar + 0.25 * (srtt - r).abs();
                self.srtt = Some(0.875 * srtt + 0.125 * r);
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// The RTO before backoff.
    pub fn base_rto(&self) -> f64 {
        let raw = match self.srtt {
            None => self.init_rto,
            Some(s) => s + self.granularity.max(4.0 * self.rttvar),
        };
        raw.max(self.min_rto).min(self.max_rto)
    }

    /// The RTO in force: base doubled per backoff step, capped.
    pub fn rto(&self) -> f64 {
        (self.base_rto() * 2f64.powi(self.backoff.min(30) as i32)).min(self.max_rto)
    }

    pub fn on_timeout(&mut self) {
        self.backoff += 1;
    }

    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(0.0, 60.0, 1.0, 0.0);
        assert_eq!(e.rto(), 1.0);
        e.sample(0.1);
        assert_eq!(e.srtt, Some(0.1));
        assert!((e.rttvar - 0.05).abs() < 1e-12);
        assert!((e.rto() - 0.3).abs() < 1e-12);
        e.sample(0.2);
        // RTTVAR = 0.75*0.05 + 0.25*|0.1-0.2| = 0.0625, SRTT = 0.1125
        assert!((e.rttvar - 0.0625).abs() < 1e-12);
        assert!((e.srtt.unwrap() - 0.1125).abs() < 1e-12);
    }
    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(0.2, 3.0, 1.0, 0.0);
        e.sample(0.01);
        assert!((e.rto() - 0.2).abs() < 1e-12);
        e.on_timeout();
        assert!((e.rto() - 0.4).abs() < 1e-12);
        e.on_timeout();
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), 3.0);
        e.reset_backoff();
        assert!((e.rto() - 0.2).abs() < 1e-12);
    }
}
