//! Linux's TSO autosizing (`tcp_tso_autosize`, `net/ipv4/tcp_output.c`):
//! how many segments one transmission (one TSO/GSO packet, an skb) holds.
//!
//! The kernel hands the device super-packets of several segments, which
//! leave back to back at the interface's rate. Since Linux 3.12 their size
//! follows the pacing rate, so that a flow sends about one millisecond of
//! data per transmission (`sk_pacing_rate >> sk_pacing_shift`, shift 10:
//! 1/1024 s), at least `min_tso_segs` (`net.ipv4.tcp_min_tso_segs` = 2, or
//! the controller's `min_tso_segs`, BBR's 1 below 1.2 Mb/s) and at most
//! the device's GSO limit (64 KB, `GSO_LEGACY_MAX_SIZE`). Since 5.18 a
//! flow whose minimum RTT is short gets more: the GSO limit shifted right
//! by the minimum RTT in units of 2^`tcp_tso_rtt_log` µs (`tcp_tso_rtt_log`
//! = 9: 64 KB below 512 µs, halving per 512 µs, nothing from 16 ms on).
//!
//! A paced sender (`pacing = "rate"`, Linux's EDT) paces transmissions,
//! not segments: the skb's segments leave together and the next skb waits
//! for the whole skb's time at the pacing rate
//! ([`super::tcp::pacing::Pacer::Rate`]). An unpaced sender sizes its
//! skbs the same way, at the rate `tcp_update_pacing_rate` computes for
//! every flow. Paced or not, a sender holds back an skb its window cannot
//! yet fill while an ACK is due within a millisecond and its last write
//! is recent ([`should_defer`], Linux's `tcp_tso_should_defer`, which
//! `tcp_write_xmit` asks once the pacer lets the skb go): an unpaced
//! sender's ACK clock then releases segments in bursts of about a
//! millisecond of data, not one or two per ACK, and a paced one sends
//! whole skbs where each ACK would open one segment. The "last write" is
//! `tcp_wstamp_ns`, which pacing moves on by each skb's time at the rate:
//! a paced sender's last write is recent until its next departure is a
//! millisecond past. Each skb is also
//! at most half of cwnd (`tcp_cwnd_test`: "ensure we have at least 2 GSO
//! packets in flight").

/// The device's largest GSO packet (bytes; `GSO_LEGACY_MAX_SIZE`, the
/// default `gso_max_size` of Ethernet devices, veth and loopback).
pub const GSO_MAX_BYTES: u64 = 65_536;

/// `sk_pacing_shift`'s default: one transmission carries 2^-10 s of data
/// at the pacing rate.
pub const PACING_SHIFT: u32 = 10;

/// `net.ipv4.tcp_tso_rtt_log`'s default: the minimum RTT in units of
/// 2^9 µs shifts the short-RTT allowance.
pub const TSO_RTT_LOG: u32 = 9;

/// `net.ipv4.tcp_min_tso_segs`'s default.
pub const MIN_TSO_SEGS: u32 = 2;

/// `tcp_tso_autosize`: segments per transmission for a flow pacing at
/// `rate` payload bytes per second (`None`: no rate yet, Linux's
/// unlimited `~0UL`) with `mss` bytes of payload per segment and minimum
/// RTT `min_rtt_s` (`None` before a sample: Linux's `tcp_min_rtt` is then
/// `~0U`, no allowance).
pub fn autosize(rate: Option<f64>, mss: u32, min_rtt_s: Option<f64>, min_tso_segs: u32) -> u32 {
    let mut bytes = match rate {
        None => GSO_MAX_BYTES,
        Some(r) => (r.max(0.0) as u64) >> PACING_SHIFT,
    };
    if let Some(rtt) = min_rtt_s {
        let r = ((rtt * 1e6) as u64) >> TSO_RTT_LOG;
        if r < 32 {
            bytes += GSO_MAX_BYTES >> r;
        }
    }
    let bytes = bytes.min(GSO_MAX_BYTES);
    ((bytes / mss.max(1) as u64) as u32).max(min_tso_segs)
}

/// What `tcp_tso_should_defer` weighs for an skb of new data that could
/// hold `goal` segments (`tcp_tso_autosize`), in whole segments and
/// simulator time.
#[derive(Clone, Copy, Debug)]
pub struct DeferCheck {
    /// The window's room: min(cwnd - in flight, the offered window's).
    pub room: u64,
    /// Segments a transmission may hold (`max_segs`, the TSO goal).
    pub goal: u32,
    /// Segments in the skb at the head of the unsent queue.
    pub skb: u64,
    /// min(cwnd, offered window), in segments.
    pub window: u64,
    /// Since the last write (`tcp_clock_cache - tcp_wstamp_ns`, 0 while
    /// a paced sender's next departure is still ahead); `None` before any
    /// transmission.
    pub since_last_send: Option<crate::sim::Time>,
    /// The oldest outstanding segment's latest transmission
    /// (`tcp_rtx_queue_head`'s `tstamp`) and the smoothed RTT, as time
    /// before now and as a duration: `None` with nothing outstanding.
    pub head_age_and_srtt: Option<(crate::sim::Time, crate::sim::Time)>,
}

/// `NSEC_PER_MSEC` in simulator time.
const MS: crate::sim::Time = 1_000_000_000;

/// `tcp_tso_win_divisor`'s default: a third of the window is worth sending.
pub const TSO_WIN_DIVISOR: u64 = 3;

/// `tcp_tso_should_defer` (Linux 6.18, `net/ipv4/tcp_output.c`, with
/// "tcp: fix tcp_tso_should_defer() vs large RTT", 6.18-rc2): whether an
/// skb in the open state waits for more room. It goes now if the last
/// transmission was more than 1 ms ago, if a full skb fits, if a third of
/// the window fits, if the whole head skb fits (one in the middle of the
/// write queue gets no more data), or if nothing is outstanding or the
/// head's ACK is due in more than min(srtt/2, 1 ms); otherwise it waits
/// (for the next ACK: no timer is set). The caller checks the state
/// (`TCP_CA_Recovery` and `TCP_CA_Loss` send at once) and the skb (one
/// segment goes at once; a transfer's last skb, with FIN, goes now).
/// `mss` converts the third of the window to bytes as the kernel rounds
/// it.
pub fn should_defer(c: &DeferCheck, mss: u32) -> bool {
    if c.since_last_send.is_none_or(|d| d > MS) {
        return false;
    }
    // a full-sized transmission fits, or the whole head skb (one in the
    // middle of the queue gets no more data)
    if c.room >= c.goal as u64 || c.room >= c.skb {
        return false;
    }
    let mss = mss as u64;
    if c.room * mss >= c.window * mss / TSO_WIN_DIVISOR {
        return false;
    }
    let Some((age, srtt)) = c.head_age_and_srtt else { return false };
    // the head's ACK is expected at its send + srtt: in srtt - age
    let how_far = srtt as i128 - age as i128;
    let threshold = (srtt / 2).min(MS) as i128;
    how_far <= threshold
}

/// The segments of one transmission under `cwnd` (`tcp_cwnd_test`'s half
/// window), for a flow whose transmissions hold `tso_segs`.
pub fn skb_segs(tso_segs: u32, cwnd: f64) -> u32 {
    let half = ((cwnd.max(0.0) as u64) >> 1).max(1);
    (tso_segs as u64).min(half) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_a_millisecond_at_the_pacing_rate() {
        // 1 Gb/s of payload: 125e6 >> 10 = 122,070 bytes, capped at 64 KB
        assert_eq!(autosize(Some(125e6), 1448, Some(0.1), 2), 65_536 / 1448);
        // 100 Mb/s: 12,207 bytes = 8 segments of 1448
        assert_eq!(autosize(Some(12.5e6), 1448, Some(0.1), 2), 8);
        // 10 Mb/s: 1,220 bytes, less than a segment: the floor of 2
        assert_eq!(autosize(Some(1.25e6), 1448, Some(0.1), 2), 2);
        assert_eq!(autosize(Some(1.25e6), 1448, Some(0.1), 1), 1);
        // no rate yet: unlimited, the GSO limit
        assert_eq!(autosize(None, 1448, None, 2), 65_536 / 1448);
        assert_eq!(autosize(Some(0.0), 1448, None, 2), 2);
    }

    #[test]
    fn a_short_minimum_rtt_adds_up_to_the_gso_limit() {
        // below 512 µs: the whole 64 KB
        assert_eq!(autosize(Some(1.25e6), 1000, Some(300e-6), 2), 65);
        // 1 ms: r = 1000 >> 9 = 1, 32 KB more
        assert_eq!(autosize(Some(1.25e6), 1000, Some(0.001), 2), (1_220 + 32_768) / 1000);
        // 16.4 ms: r = 16400 >> 9 = 32, nothing
        assert_eq!(autosize(Some(1.25e6), 1000, Some(0.0164), 2), 2);
    }

    /// Each rule of `tcp_tso_should_defer` on its own: a deferral of 3
    /// segments of room against a goal of 4, the head's ACK due now, the
    /// last send 0.5 ms ago; then each condition that sends at once.
    #[test]
    fn an_skb_waits_only_while_an_ack_is_due_and_the_last_send_was_recent() {
        const US: crate::sim::Time = 1_000_000;
        let srtt = 100_000 * US;
        let c = DeferCheck {
            room: 3,
            goal: 4,
            skb: 4,
            window: 400,
            since_last_send: Some(500 * US),
            head_age_and_srtt: Some((srtt, srtt)),
        };
        assert!(should_defer(&c, 1448));
        // the last send more than 1 ms ago, or none yet
        assert!(!should_defer(&DeferCheck { since_last_send: Some(1_001 * US), ..c }, 1448));
        assert!(should_defer(&DeferCheck { since_last_send: Some(1_000 * US), ..c }, 1448));
        assert!(!should_defer(&DeferCheck { since_last_send: None, ..c }, 1448));
        // a full-sized transmission fits, or the whole head skb
        assert!(!should_defer(&DeferCheck { room: 4, ..c }, 1448));
        assert!(!should_defer(&DeferCheck { skb: 3, ..c }, 1448));
        assert!(should_defer(&DeferCheck { skb: 5, room: 4, goal: 5, ..c }, 1448));
        // a third of the window fits: 3 segments of a 9-segment window
        assert!(!should_defer(&DeferCheck { window: 9, ..c }, 1448));
        assert!(should_defer(&DeferCheck { window: 10, ..c }, 1448));
        // nothing outstanding
        assert!(!should_defer(&DeferCheck { head_age_and_srtt: None, ..c }, 1448));
        // the head's ACK due in more than min(srtt/2, 1 ms): 1 ms here
        let due_in = |us: u64| Some((srtt - us * US, srtt));
        assert!(should_defer(&DeferCheck { head_age_and_srtt: due_in(1_000), ..c }, 1448));
        assert!(!should_defer(&DeferCheck { head_age_and_srtt: due_in(1_001), ..c }, 1448));
        // a 1 ms srtt: half of it, 0.5 ms
        let short = Some((1_000 * US - 501 * US, 1_000 * US));
        assert!(!should_defer(&DeferCheck { head_age_and_srtt: short, ..c }, 1448));
        // an ACK overdue (the head older than srtt) still defers
        assert!(should_defer(&DeferCheck { head_age_and_srtt: Some((2 * srtt, srtt)), ..c }, 1448));
    }

    #[test]
    fn a_transmission_is_at_most_half_the_window() {
        assert_eq!(skb_segs(45, 100.0), 45);
        assert_eq!(skb_segs(45, 20.0), 10);
        assert_eq!(skb_segs(45, 1.0), 1);
        assert_eq!(skb_segs(2, 3.0), 1);
    }
}
