//! Linux's delayed ACKs (`delack_model = "linux"`): when a receiver that
//! delays ACKs answers at once, and how long it waits otherwise.
//!
//! RFC 5681 §4.2 (and RFC 1122 §4.2.3.2) only bound a delayed ACK: one at
//! least every second full-sized segment, none later than 500 ms. Linux
//! (net/ipv4/tcp_input.c `tcp_event_data_recv`, `__tcp_ack_snd_check`,
//! `tcp_incr_quickack`; tcp_output.c `tcp_send_delayed_ack`; tcp_timer.c
//! `tcp_delack_timer_handler`) adds what a researcher comparing with real
//! hosts sees:
//!
//! - **Quick ACKs.** The first data segment puts the receiver in quick-ACK
//!   mode for min(16, rwnd / 2) ACKs (`TCP_MAX_QUICKACKS`), each segment
//!   ACKed at once, so slow start is not slowed by delayed ACKs; so do a
//!   gap in the data longer than the receiver's RTO and a segment received
//!   twice (the sender may have timed out), and, for two ACKs, the first
//!   CE mark of an ECN episode, since the sender may have a small window
//!   (`tcp_ecn_check_ce`). Every ACK sent uses up one; the last one
//!   resets the ACK timeout to its minimum.
//! - **An adaptive ACK timeout (ATO).** It starts at 40 ms (`TCP_ATO_MIN`)
//!   and follows the segments' inter-arrival time m: m <= 20 ms gives
//!   ato/2 + 20 ms, m < ato gives ato/2 + m (at most the RTO). A delayed
//!   ACK waits min(ato, `delack_timeout_s`), the latter Linux's 200 ms
//!   `TCP_DELACK_MAX`; an expiry with an ACK owed doubles the ATO (at most
//!   the RTO), the "missed" delayed ACK of `tcp_delack_timer_handler`.
//!
//! - **Quick ACKs while the window grows.** Each segment that raises the
//!   offered window gets its ACK at once ([`super::rcv_window`]), which
//!   through slow start is most of them.
//!
//! - **The handshake's RTT.** A receiver that sends no data has one RTT
//!   sample, its SYN-ACK's (`tcp_synack_rtt_meas`), which sets its RTO
//!   (srtt + max(2·srtt, 200 ms)) and bounds a delayed ACK by
//!   max(srtt, 40 ms) (`tcp_send_delayed_ack`). With `syn = "linux"` the
//!   receiver times its SYN-ACK to the first data segment
//!   ([`DelackLimits::after_handshake`]); without a handshake its RTO is
//!   the initial one (`init_rto_s`, Linux's 1 s `TCP_TIMEOUT_INIT`) and no
//!   RTT bounds the wait, as in Linux before any sample.
//!
//! - **SACK compression.** Above a hole, SACKs after the third at one
//!   `rcv_nxt` wait up to 1 ms ([`super::sack_compress`]).
//!
//! What is not modelled, and why: interactive ping-pong mode (ccsim's
//! receivers send no data).
use crate::sim::Time;
use nonmax::NonMaxU64;

/// `TCP_ATO_MIN` (HZ/25), also `TCP_DELACK_MIN`.
pub const ATO_MIN: Time = 40_000_000_000;
/// `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u32 = 16;
/// Quick ACKs after the first CE mark of an episode (`tcp_ecn_check_ce`).
pub const CE_QUICKACKS: u32 = 2;

/// What bounds a receiver's delayed ACKs, the same for every flow of a
/// `[[flows]]` entry: kept with its shared parameters
/// (`TcpParams::delack_limits`), not by each flow's [`LinuxDelack`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelackLimits {
    /// The receiver's RTO (bounds the ATO; a longer gap restarts quick ACKs).
    rto: Time,
    /// The longest a delayed ACK waits by the receiver's RTT: max(srtt,
    /// `TCP_DELACK_MIN`); `Time::MAX` before a sample.
    rtt_bound: Time,
    /// `rwnd / 2`, the most quick ACKs the window allows (at least 2).
    window_quickacks: u32,
    /// The handshake's RTT sample as `srtt_us` keeps it (1/8 µs; 0: none),
    /// for SACK compression's wait ([`super::sack_compress`]).
    srtt_us8: u64,
}

impl DelackLimits {
    pub fn new(rwnd_pkts: u64, rto: Time) -> Self {
        let q = u32::try_from(rwnd_pkts / 2).unwrap_or(u32::MAX);
        DelackLimits { rto, rtt_bound: Time::MAX, window_quickacks: if q == 0 { 2 } else { q }, srtt_us8: 0 }
    }

    /// The limits of a receiver whose handshake measured `rtt_s`
    /// (`tcp_synack_rtt_meas` -> `tcp_rtt_estimator`'s first sample:
    /// srtt = m, rttvar = max(2m, `rto.min_rto`); `tcp_set_rto` in whole
    /// jiffies), kept for the connection's life: a receiver that sends no
    /// data measures nothing more.
    pub fn after_handshake(self, rtt_s: f64, rto: &super::rtt::RtoLimits) -> Self {
        use super::rtt::jiffies_ceil;
        use crate::sim::time::from_secs;
        let r = jiffies_ceil(rtt_s + (2.0 * rtt_s).max(rto.min_rto), rto.granularity).min(rto.max_rto);
        let srtt = from_secs(jiffies_ceil(rtt_s, rto.granularity));
        // tcp_rtt_estimator's first sample: srtt_us = m << 3, m in whole µs
        let srtt_us8 = 8 * (rtt_s * 1e6) as u64;
        DelackLimits { rto: from_secs(r), rtt_bound: srtt.max(ATO_MIN), srtt_us8, ..self }
    }

    /// The handshake's RTT in 1/8 µs (0: no handshake).
    pub fn srtt_us8(&self) -> u64 {
        self.srtt_us8
    }

    /// The longest a delayed ACK may wait, given the flow's
    /// `delack_timeout_s` (`tcp_send_delayed_ack`'s `max_ato`).
    pub fn max_wait(&self, delack_timeout: Time) -> Time {
        delack_timeout.min(self.rtt_bound)
    }
}

/// One receiver's quick-ACK count and ACK timeout: 24 bytes, boxed per
/// flow with its offered window (the receiver's `LinuxRx`).
#[derive(Clone, Debug, Default)]
pub struct LinuxDelack {
    quick: u32,
    ato: Time,
    last_rcv: Option<NonMaxU64>,
}

impl LinuxDelack {
    fn incr_quickack(&mut self, max: u32, lim: &DelackLimits) {
        self.quick = self.quick.max(lim.window_quickacks.min(max));
    }

    fn enter_quickack(&mut self, max: u32, lim: &DelackLimits) {
        self.incr_quickack(max, lim);
        self.ato = ATO_MIN;
    }

    /// An in-order data segment arrived at `now` (`tcp_event_data_recv`);
    /// `first_ce`: it carries the first CE mark since the last CWR.
    pub fn on_data(&mut self, now: Time, first_ce: bool, lim: &DelackLimits) {
        match self.last_rcv {
            None => {
                self.incr_quickack(MAX_QUICKACKS, lim);
                self.ato = ATO_MIN;
            }
            Some(t) => {
                let m = now.saturating_sub(t.get());
                if m <= ATO_MIN / 2 {
                    self.ato = self.ato / 2 + ATO_MIN / 2;
                } else if m < self.ato {
                    self.ato = (self.ato / 2 + m).min(lim.rto);
                } else if m > lim.rto {
                    self.incr_quickack(MAX_QUICKACKS, lim);
                }
            }
        }
        self.last_rcv = Some(crate::sim::time::nonmax(now));
        if first_ce {
            self.enter_quickack(CE_QUICKACKS, lim);
        }
    }

    /// A segment above a hole (`tcp_data_queue_ofo`): only its CE mark
    /// counts; the ACK goes at once anyway.
    pub fn on_out_of_order(&mut self, first_ce: bool, lim: &DelackLimits) {
        if first_ce {
            self.enter_quickack(CE_QUICKACKS, lim);
        }
    }

    /// A segment received before (`tcp_data_queue`: a retransmission the
    /// receiver did not need): the sender may have timed out, so quick ACKs
    /// again.
    pub fn on_duplicate(&mut self, lim: &DelackLimits) {
        self.enter_quickack(MAX_QUICKACKS, lim);
    }

    /// The offered window grew with this segment (`tcp_grow_window`:
    /// `icsk_ack.quick |= 1`, [`super::rcv_window`]): it is ACKed at once,
    /// and an even count of quick ACKs left gains one.
    pub fn on_window_grew(&mut self) {
        self.quick |= 1;
    }

    /// In quick-ACK mode: ACK this segment at once.
    pub fn quick(&self) -> bool {
        self.quick > 0
    }

    /// How long a delayed ACK may wait, at most `max` (`tcp_send_delayed_ack`).
    pub fn delay(&self, max: Time) -> Time {
        self.ato.min(max)
    }

    /// An ACK went out (`tcp_dec_quickack_mode`).
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
    }

    /// The delayed-ACK timer fired with an ACK owed: the ATO was too short.
    pub fn on_timeout(&mut self, lim: &DelackLimits) {
        self.ato = (self.ato * 2).min(lim.rto);
    }

    pub fn ato(&self) -> Time {
        self.ato
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Time = 1_000_000_000;

    /// 24 bytes, beside the offered window's 72 in one box per flow.
    #[test]
    fn the_state_stays_small() {
        assert!(
            std::mem::size_of::<LinuxDelack>() <= 24,
            "LinuxDelack is {} bytes",
            std::mem::size_of::<LinuxDelack>()
        );
    }

    #[test]
    fn the_first_segment_starts_sixteen_quick_acks_or_half_the_window() {
        let (mut d, d_lim) = (LinuxDelack::default(), DelackLimits::new(10_000, 1000 * MS));
        d.on_data(0, false, &d_lim);
        assert_eq!((d.quick, d.ato), (16, ATO_MIN));
        for _ in 0..16 {
            assert!(d.quick());
            d.on_ack_sent();
        }
        assert!(!d.quick());
        let (mut small, small_lim) = (LinuxDelack::default(), DelackLimits::new(6, 1000 * MS));
        small.on_data(0, false, &small_lim);
        assert_eq!(small.quick, 3);
        let (mut tiny, tiny_lim) = (LinuxDelack::default(), DelackLimits::new(1, 1000 * MS));
        tiny.on_data(0, false, &tiny_lim);
        assert_eq!(tiny.quick, 2, "a window below two segments still gets two (Linux: 0 -> 2)");
    }

    /// The handshake's sample m: RTO m + max(2m, 200 ms) in whole
    /// jiffies (4 ms), the wait bounded by max(m, 40 ms); before it, by
    /// `delack_timeout_s` alone and the RTO is the initial one.
    #[test]
    fn the_handshake_rtt_sets_the_rto_and_bounds_the_wait() {
        let rto =
            crate::transport::tcp::rtt::RtoLimits { min_rto: 0.2, max_rto: 120.0, init_rto: 1.0, granularity: 0.004 };
        let lim = DelackLimits::new(10_000, 1000 * MS);
        assert_eq!(lim.max_wait(200 * MS), 200 * MS);
        let h = lim.after_handshake(0.0201, &rto);
        assert_eq!((h.rto, h.max_wait(200 * MS)), (224 * MS, 40 * MS), "20.1 ms: 220.1 ms up to the jiffy");
        let h = lim.after_handshake(0.08, &rto);
        assert_eq!((h.rto, h.max_wait(200 * MS)), (280 * MS, 80 * MS));
        let h = lim.after_handshake(0.15, &rto);
        assert_eq!((h.rto, h.max_wait(200 * MS)), (452 * MS, 152 * MS), "3m from m = 100 ms on");
        assert_eq!(h.window_quickacks, lim.window_quickacks);
        // an ATO doubled by expiries stays below the handshake's RTO
        let mut d = LinuxDelack::default();
        let h = lim.after_handshake(0.02, &rto);
        d.on_data(0, false, &h);
        for _ in 0..5 {
            d.on_timeout(&h);
        }
        assert_eq!(d.ato, 220 * MS);
    }

    #[test]
    fn the_ato_follows_the_inter_arrival_time() {
        let (mut d, d_lim) = (LinuxDelack::default(), DelackLimits::new(10_000, 1000 * MS));
        d.on_data(0, false, &d_lim);
        // back-to-back segments: ato/2 + 20 ms, a fixed point at 40 ms
        d.on_data(MS, false, &d_lim);
        assert_eq!(d.ato(), 40 * MS);
        // 30 ms apart (> 20 ms, < ato = 40 ms): ato/2 + m = 50 ms
        d.on_data(31 * MS, false, &d_lim);
        assert_eq!(d.ato(), 50 * MS);
        // a gap as long as the ATO or longer, but within the RTO: unchanged
        d.on_data(131 * MS, false, &d_lim);
        assert_eq!(d.ato(), 50 * MS);
        // bounded by the RTO
        let (mut r, r_lim) = (LinuxDelack::default(), DelackLimits::new(10_000, 45 * MS));
        r.on_data(0, false, &r_lim);
        r.ato = 80 * MS;
        r.on_data(30 * MS, false, &r_lim);
        assert_eq!(r.ato(), 45 * MS);
    }

    #[test]
    fn a_gap_longer_than_the_rto_and_a_first_ce_restart_quick_acks() {
        let (mut d, d_lim) = (LinuxDelack::default(), DelackLimits::new(10_000, 1000 * MS));
        d.on_data(0, false, &d_lim);
        d.quick = 0;
        d.on_data(500 * MS, false, &d_lim);
        assert!(!d.quick());
        d.on_data(1600 * MS, false, &d_lim);
        assert_eq!(d.quick, 16);
        d.quick = 0;
        d.ato = 100 * MS;
        d.on_data(1601 * MS, true, &d_lim);
        assert_eq!((d.quick, d.ato), (2, ATO_MIN));
    }

    #[test]
    fn a_missed_delayed_ack_doubles_the_ato_and_the_delay_is_capped() {
        let (mut d, d_lim) = (LinuxDelack::default(), DelackLimits::new(10_000, 300 * MS));
        d.on_data(0, false, &d_lim);
        d.on_timeout(&d_lim);
        assert_eq!(d.ato(), 80 * MS);
        d.on_timeout(&d_lim);
        d.on_timeout(&d_lim);
        assert_eq!(d.ato(), 300 * MS, "at most the RTO");
        assert_eq!(d.delay(200 * MS), 200 * MS, "at most TCP_DELACK_MAX");
        // leaving quick-ACK mode resets the ATO to its minimum
        d.quick = 1;
        d.on_ack_sent();
        assert_eq!(d.ato(), ATO_MIN);
    }
}
