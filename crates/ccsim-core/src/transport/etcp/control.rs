//! E-TCP's controller: generalised AIMD that drives the loss rate to a
//! target p0 instead of avoiding loss.
//!
//! - Window (§III-A, eqs 8-9): per packet that arrived W <- W + 1/b, per
//!   packet lost W <- W - W/(b(2 + p0 W)); equilibrium W* = 2/(p - p0)
//!   (eq 5), since i(W)/d(W) = (2 + p0 W)/W must equal p.
//! - Rate (§VII-A): per arrival x <- x + 1/(b tau_r), per loss
//!   x <- x - x/((b tau_r)(2 + p0 x)); equilibrium x* = 2/(p - p0) with x
//!   in packets/s (eq 11), whatever the RTT.
//! - Slow start (§V-A): +1 per arrival (x: +1/tau_r, the same doubling per
//!   RTT); at the first loss halve, then hold until the packets sent after
//!   that loss are answered, then congestion avoidance. The losses of the
//!   slow-start overshoot are not responded to.

use super::Variant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Halved at the first loss; ignore everything up to `until` (the
    /// highest `cc_seq` sent when that loss was detected).
    Hold {
        until: u64,
    },
    Avoid,
}

#[derive(Clone, Debug)]
pub struct Control {
    pub variant: Variant,
    pub b: f64,
    pub p0: f64,
    /// Floor of the window (rate: of x * tau_r), in packets.
    pub min_w: f64,
    /// W in packets (window) or x in packets/s (rate; `NaN` until the
    /// first RTT sample gives tau_r, see [`Control::start_rate`]).
    pub value: f64,
    pub phase: Phase,
}

impl Control {
    pub fn new(variant: Variant, b: f64, p0: f64, init_w: f64, min_w: f64) -> Self {
        let value = match variant {
            Variant::Window => init_w,
            Variant::Rate => f64::NAN,
        };
        Control { variant, b, p0, min_w, value, phase: Phase::SlowStart }
    }

    /// The rate variant starts at `init_w` packets per first RTT sample.
    pub fn start_rate(&mut self, init_w: f64, tau: f64) {
        if self.value.is_nan() {
            self.value = init_w / tau;
        }
    }

    /// Leave the hold once a number sent after the first loss is answered.
    fn phase_for(&mut self, s: u64) -> Phase {
        if let Phase::Hold { until } = self.phase {
            if s > until {
                self.phase = Phase::Avoid;
            }
        }
        self.phase
    }

    fn floor(&self, tau: f64) -> f64 {
        match self.variant {
            Variant::Window => self.min_w,
            Variant::Rate => self.min_w / tau,
        }
    }

    /// `opencwnd()`: packet `s` arrived; `tau` is the RTT estimate (s).
    pub fn on_arrival(&mut self, s: u64, tau: f64) {
        let gain = match self.variant {
            Variant::Window => 1.0,
            Variant::Rate => 1.0 / tau,
        };
        match self.phase_for(s) {
            Phase::SlowStart => self.value += gain,
            Phase::Hold { .. } => {}
            Phase::Avoid => self.value += gain / self.b,
        }
    }

    /// `slowdown()`: packet `s` was lost; `high` is the highest `cc_seq`
    /// sent so far (where slow start's hold ends).
    pub fn on_loss(&mut self, s: u64, tau: f64, high: u64) {
        match self.phase_for(s) {
            Phase::SlowStart => {
                self.value /= 2.0;
                self.phase = Phase::Hold { until: high };
            }
            Phase::Hold { .. } => {}
            Phase::Avoid => {
                let v = self.value;
                let bt = match self.variant {
                    Variant::Window => self.b,
                    Variant::Rate => self.b * tau,
                };
                self.value = v - v / (bt * (2.0 + self.p0 * v));
            }
        }
        self.value = self.value.max(self.floor(tau));
    }

    /// Mean interval between packets (s): tau_r / W, or 1 / x.
    pub fn mean_interval_s(&self, tau: f64) -> f64 {
        match self.variant {
            Variant::Window => tau / self.value,
            Variant::Rate => 1.0 / self.value,
        }
    }

    /// Sending rate in packets/s.
    pub fn rate_pps(&self, tau: f64) -> f64 {
        1.0 / self.mean_interval_s(tau)
    }

    /// The equilibrium of the fluid model at loss `p` (eq 5 / eq 11):
    /// 2 / (p - p0), infinite at or below p0.
    pub fn equilibrium(p: f64, p0: f64) -> f64 {
        if p > p0 {
            2.0 / (p - p0)
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Feed the controller Bernoulli(p) fates in avoidance and return the
    /// long-run mean of W (or x).
    fn mean_window(variant: Variant, p: f64, p0: f64, b: f64, n: usize) -> f64 {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut c = Control::new(variant, b, p0, 2.0, 1.0);
        c.start_rate(2.0, 1.0);
        c.phase = Phase::Avoid;
        c.value = 2.0 / (p - p0); // start near equilibrium
        let (mut sum, mut k) = (0.0, 0usize);
        for i in 0..n {
            if rng.gen::<f64>() < p {
                c.on_loss(i as u64, 1.0, i as u64);
            } else {
                c.on_arrival(i as u64, 1.0);
            }
            if i > n / 10 {
                sum += c.value;
                k += 1;
            }
        }
        sum / k as f64
    }

    /// The per-packet balance: (1 - p) i(W) = p d(W), i.e. the fluid model
    /// with increases only on the packets that arrived.
    fn per_packet_equilibrium(p: f64, p0: f64) -> f64 {
        2.0 * (1.0 - p) / (p - p0 * (1.0 - p))
    }

    /// Against the paper's fluid equilibrium 2/(p - p0) (eq 5): that model
    /// increases on every packet sent (dW/dt = i W/tau - d W p/tau), so it
    /// sits above the per-packet balance by a known margin; the simulated
    /// mean must match the per-packet balance within 3% and the paper's
    /// value within that margin plus 3%.
    fn check(variant: Variant, p: f64, p0: f64, b: f64) {
        let w = mean_window(variant, p, p0, b, 4_000_000);
        let fluid = Control::equilibrium(p, p0);
        let exact = per_packet_equilibrium(p, p0);
        assert!((w / exact - 1.0).abs() < 0.03, "p={p} p0={p0} b={b}: {w} vs per-packet {exact}");
        let margin = (exact / fluid - 1.0).abs();
        assert!((w / fluid - 1.0).abs() < margin + 0.03, "p={p} p0={p0} b={b}: {w} vs fluid {fluid}");
    }

    #[test]
    fn window_equilibrium_is_two_over_p_minus_p0() {
        for (p, p0, b) in [(0.02, 0.01, 25.0), (0.05, 0.01, 25.0), (0.03, 0.02, 50.0), (0.01, 0.001, 10.0)] {
            check(Variant::Window, p, p0, b);
        }
    }

    #[test]
    fn rate_equilibrium_is_two_over_p_minus_p0() {
        for (p, p0, b) in [(0.03, 0.01, 25.0), (0.02, 0.005, 40.0)] {
            check(Variant::Rate, p, p0, b);
        }
    }

    #[test]
    fn slow_start_halves_once_and_holds() {
        let mut c = Control::new(Variant::Window, 25.0, 0.01, 2.0, 1.0);
        for s in 0..98 {
            c.on_arrival(s, 0.1);
        }
        assert_eq!(c.value, 100.0);
        c.on_loss(98, 0.1, 150);
        assert_eq!((c.value, c.phase), (50.0, Phase::Hold { until: 150 }));
        // Further losses and arrivals up to 150 change nothing.
        c.on_loss(99, 0.1, 151);
        c.on_arrival(150, 0.1);
        assert_eq!(c.value, 50.0);
        // 151 was sent after the loss: avoidance from here.
        c.on_arrival(151, 0.1);
        assert_eq!(c.phase, Phase::Avoid);
        assert!((c.value - 50.04).abs() < 1e-12);
        c.on_loss(152, 0.1, 160);
        let want = 50.04 - 50.04 / (25.0 * (2.0 + 0.01 * 50.04));
        assert!((c.value - want).abs() < 1e-12);
    }

    #[test]
    fn rate_pacing_interval_ignores_the_rtt() {
        let mut c = Control::new(Variant::Rate, 25.0, 0.01, 2.0, 1.0);
        c.start_rate(2.0, 0.1);
        assert!((c.rate_pps(0.1) - 20.0).abs() < 1e-12);
        assert!((c.rate_pps(0.3) - 20.0).abs() < 1e-12);
        let w = Control::new(Variant::Window, 25.0, 0.01, 2.0, 1.0);
        assert!((w.rate_pps(0.1) - 20.0).abs() < 1e-12);
        assert!((w.rate_pps(0.2) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn the_window_never_falls_below_its_floor() {
        let mut c = Control::new(Variant::Window, 25.0, 0.01, 2.0, 1.0);
        c.phase = Phase::Avoid;
        for s in 0..10_000 {
            c.on_loss(s, 0.1, s);
        }
        assert_eq!(c.value, 1.0);
    }
}
