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
//! ([`super::tcp::pacing::Pacer::Rate`]). An unpaced sender already sends
//! everything its window allows back to back, which is what the kernel's
//! skbs do on the wire. Each skb is also at most half of cwnd
//! (`tcp_cwnd_test`: "ensure we have at least 2 GSO packets in flight").

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

    #[test]
    fn a_transmission_is_at_most_half_the_window() {
        assert_eq!(skb_segs(45, 100.0), 45);
        assert_eq!(skb_segs(45, 20.0), 10);
        assert_eq!(skb_segs(45, 1.0), 1);
        assert_eq!(skb_segs(2, 3.0), 1);
    }
}
