//! Linux's SACK compression (net/ipv4/tcp_input.c `__tcp_ack_snd_check`,
//! tcp_timer.c `tcp_compressed_ack_kick`; Linux 4.18 on): a receiver with
//! data above a hole does not ACK every segment.
//!
//! RFC 5681 §4.2 asks for an ACK at once for every segment out of order.
//! Linux sends the first three at once at each `rcv_nxt`
//! (`TCP_FASTRETRANS_THRESH`: the duplicate ACKs an older sender needs to
//! start a fast retransmit), then holds further SACKs on a timer of 5% of
//! the receiver's RTT, at most `tcp_comp_sack_delay_ns` (1 ms), and sends
//! one ACK with the blocks of all of them when it expires; any other ACK
//! (a hole filled, a segment in order, `tcp_comp_sack_nr` = 44 held)
//! cancels it. At 50 Mb/s a held SACK answers four or five segments, so a
//! sender clocked by SACKs in recovery (PRR) sends in bursts where an RFC
//! receiver's ACKs would release segments one by one; at 10 Mb/s every
//! SACK after the third comes 1 ms late.
//!
//! The timer is an hrtimer armed with `tcp_comp_sack_slack_ns` (100 µs) of
//! slack: the kernel may run it anywhere in [delay, delay + slack] and, on
//! an otherwise idle CPU, runs it at the end, when the clock event it
//! programs for its latest expiry fires. ccsim fires it there.
use crate::sim::Time;

/// `tcp_comp_sack_delay_ns`: the longest a SACK is held.
pub const COMP_SACK_DELAY: Time = 1_000_000_000;
/// `tcp_comp_sack_slack_ns`: the timer's slack.
pub const COMP_SACK_SLACK: Time = 100_000_000;
/// `tcp_comp_sack_nr`: at most this many SACKs held in a row.
pub const COMP_SACK_NR: u8 = 44;
/// `TCP_FASTRETRANS_THRESH`: SACKs sent at once at each `rcv_nxt`.
const DUPACK_THRESH: u8 = 3;

/// A receiver's SACK compression state: `tp->compressed_ack_rcv_nxt`,
/// `tp->dup_ack_counter` and `tp->compressed_ack`.
#[derive(Clone, Debug, Default)]
pub struct SackCompress {
    rcv_nxt: u64,
    dup_acks: u8,
    held: u8,
}

impl SackCompress {
    /// An ACK is owed for a segment that leaves data above a hole, and
    /// nothing else (quick ACKs, a hole filled, more than a segment in
    /// order since the last ACK) asks for it at once: whether it may wait
    /// for the compression timer. `rcv_nxt` is the cumulative ACK it
    /// would carry.
    pub fn hold(&mut self, rcv_nxt: u64) -> bool {
        if self.held >= COMP_SACK_NR {
            return false;
        }
        if self.rcv_nxt != rcv_nxt {
            self.rcv_nxt = rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < DUPACK_THRESH {
            self.dup_acks += 1;
            return false;
        }
        self.held += 1;
        true
    }

    /// Whether SACKs are held (the timer is armed).
    pub fn holding(&self) -> bool {
        self.held > 0
    }

    /// An ACK went out (`tcp_event_ack_sent`): nothing is held any more.
    pub fn on_ack_sent(&mut self) {
        self.held = 0;
    }

    /// How long the first held SACK waits: 5% of the receiver's RTT (its
    /// estimate from the data, `rcv_rtt_est`, or the handshake's `srtt`
    /// when that is smaller), at most [`COMP_SACK_DELAY`], plus the
    /// timer's slack. Both RTTs in 1/8 µs as the kernel keeps them; 0:
    /// none. Without a receiver estimate the kernel's rule gives no delay.
    pub fn wait(rcv_rtt_us8: u64, srtt_us8: u64) -> Time {
        let rtt = if srtt_us8 != 0 && srtt_us8 < rcv_rtt_us8 { srtt_us8 } else { rcv_rtt_us8 };
        // rtt * (NSEC_PER_USEC >> 3) / 20, in ns; ccsim's clock is ps
        let delay = (rtt * 125 / 20 * 1000).min(COMP_SACK_DELAY);
        delay + COMP_SACK_SLACK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const US: Time = 1_000_000;

    #[test]
    fn three_sacks_go_at_once_at_each_cumulative_ack_then_they_are_held() {
        let mut c = SackCompress::default();
        assert!(!c.hold(10) && !c.hold(10) && !c.hold(10));
        assert!(c.hold(10) && c.holding());
        assert!(c.hold(10));
        c.on_ack_sent();
        assert!(!c.holding());
        assert!(c.hold(10), "the count of immediate SACKs is per rcv_nxt, not per ACK sent");
        // the hole partly filled: three at once again
        assert!(!c.hold(12) && !c.hold(12) && !c.hold(12) && c.hold(12));
    }

    #[test]
    fn at_most_forty_four_are_held_in_a_row() {
        let mut c = SackCompress::default();
        for _ in 0..3 {
            assert!(!c.hold(5));
        }
        for _ in 0..COMP_SACK_NR {
            assert!(c.hold(5));
        }
        assert!(!c.hold(5), "the 45th goes at once");
        c.on_ack_sent();
        assert!(c.hold(5));
    }

    #[test]
    fn the_wait_is_five_percent_of_the_smaller_rtt_at_most_a_millisecond() {
        // 20 ms from the data, no handshake: 1 ms, plus the slack
        assert_eq!(SackCompress::wait(8 * 20_000, 0), 1000 * US + COMP_SACK_SLACK);
        // 10 ms from the data, 8 ms from the handshake: 400 us
        assert_eq!(SackCompress::wait(8 * 10_000, 8 * 8_000), 400 * US + COMP_SACK_SLACK);
        // the handshake's larger RTT does not count
        assert_eq!(SackCompress::wait(8 * 6_000, 8 * 8_000), 300 * US + COMP_SACK_SLACK);
        // 80 ms: capped
        assert_eq!(SackCompress::wait(8 * 80_000, 8 * 80_000), COMP_SACK_DELAY + COMP_SACK_SLACK);
        // no estimate from the data yet: the kernel's rule gives no delay
        assert_eq!(SackCompress::wait(0, 8 * 20_000), COMP_SACK_SLACK);
    }
}
