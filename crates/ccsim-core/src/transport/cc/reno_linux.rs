//! Reno as Linux runs it (`net/ipv4/tcp_cong.c`: `tcp_reno_cong_avoid`,
//! `tcp_reno_ssthresh`; `cc = "reno"` with `variant = "linux"`, what the
//! `linux` personality gives a Reno flow).
//!
//! It differs from RFC 5681's rule in `reno.rs` in two ways:
//! - the window is whole segments, grown by `tcp_slow_start` and
//!   `tcp_cong_avoid_ai` ([`SndCwndCnt`]), so an increment lands on the
//!   ACK that completes cwnd acked segments;
//! - ssthresh is half the window, max(cwnd >> 1, 2), not half the data in
//!   flight.
use super::linux_ai::SndCwndCnt;
use super::{CcEvent, CcState, CongestionControl};

/// One flow's kernel Reno: its `snd_cwnd_cnt`.
#[derive(Default)]
pub struct LinuxReno {
    cnt: SndCwndCnt,
}

impl CongestionControl for LinuxReno {
    fn name(&self) -> &'static str {
        "reno"
    }

    /// `tcp_reno_cong_avoid` (the sender calls it only while cwnd-limited).
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let Some(acked) = SndCwndCnt::after_slow_start(s, acked) else { return };
        let w = s.cwnd as u32;
        self.cnt.cong_avoid_ai(s, w, acked);
    }

    /// `tcp_reno_ssthresh`, with `tcp_init_cwnd_reduction`'s zeroing of
    /// `snd_cwnd_cnt`.
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.cnt.reset();
        ((s.cwnd as u32) >> 1).max(2) as f64
    }

    /// `tcp_enter_loss` zeroes `snd_cwnd_cnt`.
    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        if ev == CcEvent::Timeout {
            self.cnt.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    /// At cwnd 35, the 35th segment acked adds one; RFC 5681's rule has
    /// added 34/35 of one by then (`reno.rs`).
    #[test]
    fn the_window_grows_by_whole_segments() {
        let mut r = LinuxReno::default();
        let mut s = st(35.0, 18.0);
        for _ in 0..17 {
            r.cong_avoid(&mut s, 2);
        }
        assert_eq!(s.cwnd, 35.0, "34 of 35 acked");
        r.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 36.0);
    }

    #[test]
    fn ssthresh_is_half_the_window() {
        let mut r = LinuxReno::default();
        let s = CcState { flight: 10, ..st(35.0, 1e9) };
        assert_eq!(r.ssthresh(&s), 17.0, "cwnd >> 1, not flight / 2");
        assert_eq!(r.ssthresh(&st(3.0, 1e9)), 2.0);
    }
}
