//! The kernel's window arithmetic shared by its controllers (`net/ipv4/
//! tcp_cong.c`): `tcp_slow_start` and `tcp_cong_avoid_ai`, in whole
//! segments, with the acked-segment credit `snd_cwnd_cnt`.
//!
//! Why it matters: the kernel's window is an integer that grows by one
//! segment once `w` segments were acked, so an increment lands at a
//! definite ACK; RFC 5681's `acked/cwnd` per ACK in real numbers reaches
//! the next whole segment at a different moment. In a small buffer that
//! moment decides whether a second packet overflows it before the first
//! loss is seen (validation/linux_kernel.py's Reno at 10 Mb/s: 131
//! retransmissions in 30 s in the kernel and here, 85 with real numbers).
use super::CcState;

/// `tp->snd_cwnd_cnt`: the segments acked toward the next increment. The
/// kernel zeroes it where a reduction begins (`tcp_init_cwnd_reduction`)
/// and at an RTO (`tcp_enter_loss`): [`SndCwndCnt::reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SndCwndCnt(u32);

impl SndCwndCnt {
    /// `tcp_slow_start`: cwnd grows by the segments acked, up to ssthresh;
    /// returns the acked segments left for congestion avoidance.
    pub fn slow_start(s: &mut CcState, acked: u32) -> u32 {
        let cwnd = s.cwnd as u32;
        let grown = cwnd.saturating_add(acked).min(s.ssthresh as u32).max(cwnd);
        s.cwnd = (grown as f64).min(s.max_cwnd);
        acked - (grown - cwnd)
    }

    /// A controller's `cong_avoid` opening (`tcp_reno_cong_avoid`,
    /// `cubictcp_cong_avoid`): slow start first when in it; the acked
    /// segments left for congestion avoidance, `None` if none are.
    pub fn after_slow_start(s: &mut CcState, acked: u64) -> Option<u32> {
        let acked = acked.min(u32::MAX as u64) as u32;
        let left = if s.in_slow_start() { Self::slow_start(s, acked) } else { acked };
        (left > 0).then_some(left)
    }

    /// `tcp_cong_avoid_ai`: one segment per `w` acked, the credit kept
    /// (and credit from a larger `w` spent first).
    pub fn cong_avoid_ai(&mut self, s: &mut CcState, w: u32, acked: u32) {
        let w = w.max(1);
        let mut cwnd = s.cwnd as u32;
        if self.0 >= w {
            self.0 = 0;
            cwnd += 1;
        }
        self.0 += acked;
        if self.0 >= w {
            let delta = self.0 / w;
            self.0 -= delta * w;
            cwnd += delta;
        }
        s.cwnd = (cwnd as f64).min(s.max_cwnd);
    }

    pub fn reset(&mut self) {
        self.0 = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn slow_start_stops_at_ssthresh_and_hands_back_the_rest() {
        let mut s = st(10.0, 12.0);
        assert_eq!(SndCwndCnt::slow_start(&mut s, 5), 3);
        assert_eq!(s.cwnd, 12.0);
    }

    /// One increment per `w` segments acked, at the ACK that completes
    /// them, and the credit carried over.
    #[test]
    fn an_increment_lands_on_the_wth_segment() {
        let mut c = SndCwndCnt::default();
        let mut s = st(10.0, 5.0);
        for _ in 0..4 {
            c.cong_avoid_ai(&mut s, 10, 2);
        }
        assert_eq!(s.cwnd, 10.0, "8 of 10 acked");
        c.cong_avoid_ai(&mut s, 10, 3);
        assert_eq!((s.cwnd, c), (11.0, SndCwndCnt(1)));
        c.reset();
        assert_eq!(c, SndCwndCnt(0));
    }
}
