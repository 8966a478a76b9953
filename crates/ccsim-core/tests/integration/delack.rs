//! Delayed ACKs as a whole transfer sees them: a finite transfer's
//! completion time is the same as with an ACK per segment, except for a
//! last odd segment, whose ACK waits the model's timeout: 100 ms with the
//! fixed timer, Linux's 40 ms ATO with `delack_model = "linux"`, and not
//! at all while Linux's 16 quick ACKs of the start last, nor while its
//! offered window grows; ns-3's (`delack_model = "ns3"`) ACKs only the
//! first segment at once.
use crate::common;
use common::*;

/// Completion time of one `segments`-segment transfer over an idle 10 Mb/s,
/// 100 ms path with an initial window of 10, for the given ACK fields.
fn fct(segments: u64, ack: &str) -> f64 {
    fct_mss(segments, 1000, ack)
}

fn fct_mss(segments: u64, mss: u64, ack: &str) -> f64 {
    let r = Dumbbell::new(10e6, 100, 3.0)
        .flow(&format!(
            "cc = \"reno\"\nrecovery = \"sack\"\ninit_cwnd_pkts = 10\nrtt_s = 0.1\nmss_bytes = {mss}\nbytes = {}\n{ack}",
            segments * mss
        ))
        .run();
    assert_conserved(&r);
    r.flows[0].fct_s.expect("the transfer completes")
}

const MS: f64 = 1e-3;

#[test]
fn the_sixteen_quick_acks_cover_the_start_and_the_seventeenth_segment_waits_the_ato() {
    let linux = "delayed_ack = true\ndelack_model = \"linux\"";
    for n in [1, 10, 16] {
        // every segment of the quick-ACK phase is ACKed at once
        assert_eq!(fct(n, linux), fct(n, "delayed_ack = false"), "{n} segments");
    }
    // the 17th segment is the first one delayed, alone: it waits TCP_ATO_MIN
    let d = fct(17, linux) - fct(17, "delayed_ack = false");
    assert!((d - 40.0 * MS).abs() < 1e-9, "{d}");
    // 18: ACKed with the 17th at once (every second segment)
    assert!(fct(18, linux) - fct(18, "delayed_ack = false") < 1e-9);
}

/// With 1448-byte segments Linux's receiver offers more than its initial
/// window once the first segment shows what a segment costs its buffer
/// (the clamp rises to 81920 bytes, `rcv_ssthresh` is 65160): the first
/// six segments each grow it by two segments, and each growth sets one
/// more quick ACK (`tcp_grow_window`: `icsk_ack.quick |= 1`), so 22
/// segments go without a delayed ACK and the 23rd waits the ATO. With
/// 1000-byte segments the clamp falls below the initial window: 16.
#[test]
fn the_window_growth_extends_the_quick_acks() {
    let linux = "delayed_ack = true\ndelack_model = \"linux\"";
    let none = |n| fct_mss(n, 1448, "delayed_ack = false");
    assert_eq!(fct_mss(22, 1448, linux), none(22));
    let d = fct_mss(23, 1448, linux) - none(23);
    assert!((d - 40.0 * MS).abs() < 1e-9, "{d}");
}

/// `syn = "linux"`: the data wait one round trip for the SYN-ACK (and the
/// two headers' serialisation); the receiver answers the SYN at once, and
/// its quick ACKs start with the data, so the 17th segment still waits the
/// ATO alone (the 100 ms handshake RTT bounds it above 40 ms).
#[test]
fn the_handshake_delays_the_data_by_one_round_trip() {
    let linux = "delayed_ack = true\ndelack_model = \"linux\"";
    let syn = format!("{linux}\nsyn = \"linux\"");
    for n in [1, 16, 17] {
        let d = fct(n, &syn) - fct(n, linux);
        assert!(d > 0.1 && d < 0.1 + 0.2 * MS, "{n} segments: {d}");
    }
}

#[test]
fn the_fixed_timer_delays_an_odd_last_segment_by_its_timeout() {
    let fixed = "delayed_ack = true\ndelack_model = \"fixed\"";
    // segment 1 alone in the first window: no quick ACKs, the full 100 ms
    let d = fct(1, fixed) - fct(1, "delayed_ack = false");
    assert!((d - 100.0 * MS).abs() < 1e-9, "{d}");
    let d = fct(1, &format!("{fixed}\ndelack_timeout_s = 0.05")) - fct(1, "delayed_ack = false");
    assert!((d - 50.0 * MS).abs() < 1e-9, "{d}");
    // Linux's cap on the delay (TCP_DELACK_MAX, here set below the ATO)
    let capped = "delayed_ack = true\ndelack_model = \"linux\"\ndelack_timeout_s = 0.03";
    let d = fct(17, capped) - fct(17, "delayed_ack = false");
    assert!((d - 30.0 * MS).abs() < 1e-9, "{d}");
}

#[test]
fn ns3_acks_the_first_segment_at_once_then_every_second_with_a_200_ms_timer() {
    let ns3 = "delayed_ack = true\ndelack_model = \"ns3\"";
    let none = |n| fct(n, "delayed_ack = false");
    // segment 1 is ACKed at once; 2 and 3 together, at once on the 3rd
    assert_eq!(fct(1, ns3), none(1));
    assert_eq!(fct(3, ns3), none(3));
    // segment 2 waits alone for the 200 ms timer (DelAckTimeout)
    let d = fct(2, ns3) - none(2);
    assert!((d - 200.0 * MS).abs() < 1e-9, "{d}");
    // the fixed timer has no such first ACK: segment 1 waits
    assert!(fct(1, "delayed_ack = true\ndelack_model = \"fixed\"\ndelack_timeout_s = 0.2") - none(1) > 0.199);
}
