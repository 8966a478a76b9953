//! The `linux` personality (RACK-TLP, PRR with Linux's RecoverFS, its RTO)
//! in whole runs: what a correct TCP keeps whatever its rules.
mod common;
use ccsim_core::Scenario;
use common::*;

/// A RACK-timer entry into recovery (`tcp_rack_reo_timeout`) with PRR:
/// Linux's RecoverFS is cwnd at the reduction's start (`prior_cwnd`). One
/// taken from the last ACK's SACK count instead, stale once a cumulative
/// ACK has moved una past the SACKed data, fell to one segment, PRR's
/// proportional share then grew without bound and the sender sent at its
/// pacer's rate into a 100 Mb/s link (fuzz seed 1, case 2327: 10 million
/// segments in 3.5 s, 5.6 million retransmitted). Every retransmission here
/// repairs a drop, and no more goes out than the link carries.
#[test]
fn prr_after_a_rack_timer_entry_is_bounded() {
    for cc in ["reno", "ltcp", "cubic"] {
        let doc = format!(
            "name = \"rack-timer-prr\"\nseed = 382914921\nduration_s = 3.5\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e8\nbottleneck_delay_s = 0.018\n\
             bottleneck_queue = {{ kind = \"dualpi2\", limit_pkts = 1575 }}\n\
             [[flows]]\ntcp_model = \"linux\"\ncc = \"{cc}\"\ndelayed_ack = false\ninit_cwnd_pkts = 2\n\
             pacing = \"token_bucket\"\nbucket_pkts = 2\nrtt_s = 0.131\n"
        );
        let r = run(&Scenario::from_toml(&doc).unwrap());
        assert_conserved(&r);
        let f = &r.flows[0];
        let drops: u64 = r.links.iter().map(|l| l.drops).sum();
        assert!(f.retransmits <= drops + f.timeouts, "{cc}: {} retransmissions, {drops} drops", f.retransmits);
        // 100 Mb/s of 1040-byte packets for 3.5 s: 42,067 at most
        let capacity = 1e8 * 3.5 / (8.0 * 1040.0);
        assert!((f.data_pkts_sent as f64) < 1.1 * capacity + 2000.0, "{cc}: {} segments sent", f.data_pkts_sent);
    }
}
