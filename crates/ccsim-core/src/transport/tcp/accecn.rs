//! Accurate ECN feedback (AccECN, RFC 9768): the receiver counts the
//! CE-marked packets it receives and feeds the count back, modulo 8, in
//! the three-bit ACE field of every ACK (the header flags ECE, CWR and AE);
//! the sender turns the change of that counter into the number of newly
//! CE-marked packets, so it learns of every mark rather than of at most
//! one per round trip (RFC 3168). L4S senders need it (RFC 9331 §4.2);
//! `cc = "prague"` requires it (`ecn_feedback = "accecn"`).
//!
//! Choices, each the RFC's or Linux's (net/ipv4/tcp_input.c,
//! include/net/tcp_ecn.h):
//!
//! - Both counters start at 5 (RFC 9768 §3.2.1, `TCP_ACCECN_CEP_INIT_OFFSET`),
//!   so an ACE of 0 on the first data ACK would mean a middlebox zeroed it.
//! - The receiver counts every arriving data packet marked CE, duplicates
//!   included (§3.2: "for every Acceptable packet ... with the CE code
//!   point ..., including ... retransmissions"). It sends an ACK at once
//!   when a CE packet arrives after one that was not (the change-triggered
//!   ACK of §3.2.2.5.1) and when two CE marks have arrived since the last
//!   ACK (the increment-triggered ACK, n = 2 with data to acknowledge), so
//!   delayed ACKs never let the 3-bit field wrap.
//! - The sender: delta = (ACE − s.cep) mod 8 on an ACK that delivers data
//!   (newly acknowledged or SACKed, Linux's `FLAG_FORWARD_PROGRESS`); an
//!   ACK that delivers none changes nothing (a reordered or duplicate ACK
//!   may carry an old count). When the ACK delivered more than 7 packets
//!   the field may have wrapped; without the AccECN TCP Option the sender
//!   assumes the most marks the field allows (Linux's `safe_delta`:
//!   delivered − ((delivered − delta) mod 8), RFC 9768 Appendix A.2's
//!   conservative choice; the sender's safety procedures are §3.2.2.5.2).
//! - The AccECN TCP Option (§3.2.3, byte counters) is not modelled: ccsim's
//!   ACKs carry the ACE field only (Linux's `tcp_ecn_option = 0`). It would
//!   matter only to resolve a wrap, which the change- and increment-triggered
//!   ACKs make rare (a lost run of ACKs, or one cumulative ACK of more than 7
//!   segments not SACKed before, as after a NewReno recovery).
//! - No CWR is sent: a host in AccECN mode "MUST NOT set CWR" (RFC 9768
//!   §3.1; the flag is a bit of ACE; Linux `tcp_ecn_queue_cwr` does nothing
//!   for AccECN).

use nonmax::NonMaxU64;

/// The ACE field is 3 bits.
const ACE_MASK: u64 = 7;
/// Both ends' CE packet counters start at 5 (RFC 9768 §3.2.1).
pub const CEP_INIT: u64 = 5;
/// The receiver ACKs at once after this many CE marks (§3.2.2.5.1, the
/// increment-triggered ACK with newly delivered data: n = 2).
const INCREMENT_TRIGGER: u32 = 2;

/// The receiver's AccECN state: `r.cep` and what the next ACK owes.
#[derive(Clone, Debug)]
pub struct AccEcnReceiver {
    /// CE-marked packets received, plus [`CEP_INIT`] (RFC 9768 `r.cep`).
    cep: u64,
    /// CE marks since the last ACK was sent.
    ce_since_ack: u32,
    /// The previous data packet was CE-marked.
    last_ce: bool,
}

impl Default for AccEcnReceiver {
    fn default() -> Self {
        AccEcnReceiver { cep: CEP_INIT, ce_since_ack: 0, last_ce: false }
    }
}

impl AccEcnReceiver {
    /// A data packet arrived, CE-marked or not. Returns whether an ACK must
    /// go at once (change- or increment-triggered, §3.2.2.5.1).
    pub fn on_data(&mut self, ce: bool) -> bool {
        let change = ce && !self.last_ce;
        self.last_ce = ce;
        if ce {
            self.cep += 1;
            self.ce_since_ack += 1;
        }
        change || self.ce_since_ack >= INCREMENT_TRIGGER
    }

    /// The ACE field for the next ACK (`r.cep` mod 8); the ACK is sent.
    pub fn ack_sent(&mut self) -> u8 {
        self.ce_since_ack = 0;
        (self.cep & ACE_MASK) as u8
    }

    /// CE-marked packets received so far.
    pub fn ce_packets(&self) -> u64 {
        self.cep - CEP_INIT
    }
}

/// The sender's AccECN state: `s.cep`, the CE marks it has accounted for.
#[derive(Clone, Debug)]
pub struct AccEcnSender {
    /// CE-marked packets the receiver reported, plus [`CEP_INIT`]
    /// (RFC 9768 `s.cep`; Linux `delivered_ce` + the offset). Never
    /// `u64::MAX` (it counts packets), so that the sender's
    /// `Option<AccEcnSender>` takes 8 bytes, not 16, in every flow.
    cep: NonMaxU64,
}

impl Default for AccEcnSender {
    fn default() -> Self {
        AccEcnSender { cep: NonMaxU64::new(CEP_INIT).expect("CEP_INIT is small") }
    }
}

impl AccEcnSender {
    /// An ACK with ACE field `ace` that delivered `delivered` packets
    /// (newly acknowledged or SACKed). Returns the packets it reports newly
    /// CE-marked (Linux `__tcp_accecn_process` without the option).
    pub fn on_ack(&mut self, ace: u8, delivered: u64) -> u64 {
        if delivered == 0 {
            return 0;
        }
        let cep = self.cep.get();
        let delta = (ace as u64).wrapping_sub(cep) & ACE_MASK;
        let d = if delivered <= ACE_MASK {
            delta
        } else {
            // The field may have wrapped: the most marks consistent with it.
            delivered - ((delivered - delta) & ACE_MASK)
        };
        self.cep = NonMaxU64::new(cep + d).unwrap_or(NonMaxU64::MAX);
        d
    }

    /// CE-marked packets reported so far.
    pub fn ce_packets(&self) -> u64 {
        self.cep.get() - CEP_INIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_starts_at_five_and_wraps_modulo_eight() {
        let mut r = AccEcnReceiver::default();
        assert_eq!(r.ack_sent(), 5);
        for _ in 0..4 {
            r.on_data(true);
        }
        // 5 + 4 = 9 ≡ 1
        assert_eq!(r.ack_sent(), 1);
        assert_eq!(r.ce_packets(), 4);
    }

    #[test]
    fn a_first_mark_and_every_second_mark_ask_for_an_ack_now() {
        let mut r = AccEcnReceiver::default();
        assert!(!r.on_data(false));
        assert!(r.on_data(true), "change-triggered: CE after not-CE");
        r.ack_sent();
        assert!(!r.on_data(true), "one mark since the ACK, no change");
        assert!(r.on_data(true), "increment-triggered: two marks since the ACK");
        r.ack_sent();
        assert!(!r.on_data(false));
        assert!(!r.on_data(false));
    }

    #[test]
    fn the_sender_recovers_every_mark_when_acks_come_often_enough() {
        // Random marks, an ACK after every 1-3 packets: the sender's count
        // equals the receiver's, whatever the wraps of the 3-bit field.
        let mut rng = 12345u64;
        let mut next = || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) as u32
        };
        let (mut r, mut s) = (AccEcnReceiver::default(), AccEcnSender::default());
        let mut since = 0;
        for _ in 0..10_000 {
            let now = r.on_data(next() % 3 == 0);
            since += 1;
            if now || since > next() as u64 % 3 {
                s.on_ack(r.ack_sent(), since);
                since = 0;
            }
        }
        s.on_ack(r.ack_sent(), since.max(1));
        assert_eq!(s.ce_packets(), r.ce_packets());
    }

    #[test]
    fn an_ack_delivering_nothing_changes_nothing() {
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(7, 0), 0);
        assert_eq!(s.on_ack(7, 1), 2);
    }

    #[test]
    fn a_possible_wrap_counts_the_most_marks_the_field_allows() {
        // 20 packets delivered, the field moved by 3: 3, 11 or 19 marks;
        // without the option the sender takes 19 (Linux safe_delta).
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(((CEP_INIT + 3) & 7) as u8, 20), 19);
        // 8 delivered, field unchanged: 0 or 8 marks; it takes 8.
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(CEP_INIT as u8, 8), 8);
    }
}
