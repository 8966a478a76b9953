//! The LTCP testbed's delayed-ACK anomaly, pinned in place: one LTCP flow on the
//! simulated LTCP testbed (750 Mb/s, RTT 70 ms, 1000-packet DropTail,
//! RFC 6675 SACK, 1448 + 52 B packets) times out in about half its
//! recoveries with delayed ACKs (6 in 13 in 300 s) and never without (0 in
//! 36). Each timeout has the same cause, traced in docs/controllers.md ("A
//! lost fast retransmission"): the fast retransmission of the first lost
//! segment is tail-dropped at the still-full bottleneck queue, and RFC 6675
//! repairs a lost retransmission only by the RTO
//! (`recovery.rs::sack_lost_fast_retransmission_is_repaired_only_by_the_rto`).
//! It is dropped because, with delayed ACKs, the out-of-order segment that
//! reveals the loss flushes the receiver's pending ACK (a cumulative ACK of
//! one segment, plus SACK), on which LTCP's cwnd crosses an integer, so it
//! releases two segments; the next two ACKs are duplicates (one each per
//! segment now), the first sends a Limited Transmit segment and the second
//! (three segments SACKed: IsLost) the fast retransmission. Four segments
//! leave within two ACK intervals and reach the bottleneck back to back
//! (12 µs apart at the 1 Gb/s access rate), where the delayed-ACK pairs had
//! kept the queue exactly full: the fourth, the retransmission, overflows.
//!
//! The first 36 s hold two recoveries (the slow-start exit and the first
//! congestion-avoidance loss at 34.5 s) and the first timeout (34.73 s).
//! This test checks the whole chain on that timeout, and that the same
//! 36 s without delayed ACKs has none. A change of the engine's timing may
//! move the phase so that another packet of the train is dropped (no RTO
//! in this window): then re-trace with a tap as here before touching the
//! numbers.
use ccsim_core::net::packet::Packet;
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::sim::time::{from_secs, to_secs};
use ccsim_core::sim::Time;
use ccsim_core::{Scenario, Simulation};
use std::any::Any;

fn testbed(delayed_ack: bool) -> Simulation {
    let toml = format!(
        r#"
name = "ltcp-testbed-70ms-delack-{delayed_ack}"
seed = 1
duration_s = 36.0
sample_interval_s = 0.0
[topology]
kind = "dumbbell"
bottleneck_rate_bps = 750e6
bottleneck_delay_s = 0.001
bottleneck_queue = {{ kind = "droptail", limit_pkts = 1000 }}
edge_rate_bps = 1e9
edge_queue = {{ kind = "droptail", limit_pkts = 100000 }}
[[flows]]
cc = "ltcp"
cc_params = {{ w_t = 50.0, beta = 0.15 }}
recovery = "sack"
mss_bytes = 1448
header_bytes = 52
rtt_s = 0.07
delayed_ack = {delayed_ack}
delack_model = "fixed"
init_cwnd_pkts = 2
rwnd_pkts = 23172
"#
    );
    Simulation::new(&Scenario::from_toml(&toml).expect("valid scenario")).expect("builds")
}

/// One data arrival at the bottleneck: (time, segment, retransmission).
type Arrival = (Time, u64, bool);

/// Every dropped data packet, with the three data arrivals before it.
#[derive(Default)]
struct Drops {
    last: Vec<Arrival>,
    drops: Vec<(Arrival, Vec<Arrival>)>,
}

impl Tap for Drops {
    fn on_event(&mut self, ev: TapEvent, now: Time, _link: u32, p: &Packet) {
        let Some(h) = p.tcp().filter(|_| !p.is_ack()) else { return };
        match ev {
            TapEvent::Enqueue => {
                // (a drop is reported as + then d, so the dropped packet's own
                // arrival is the last one when its d comes)
                self.last.push((now, h.seq, h.retx));
                if self.last.len() > 4 {
                    self.last.remove(0);
                }
            }
            TapEvent::Drop => {
                let before = self.last[..self.last.len() - 1].to_vec();
                self.drops.push(((now, h.seq, h.retx), before));
            }
            _ => {}
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[test]
fn delayed_ack_ltcp_times_out_when_its_fast_retransmission_overflows_the_queue() {
    let mut sim = testbed(true);
    let bneck = sim.link_index("bottleneck", "test").unwrap();
    sim.add_tap(bneck, Box::new(Drops::default()));
    // Step in 1 ms through the first congestion-avoidance recovery to catch
    // the segment the RTO resends (una when it fires).
    sim.run_until(34.5);
    let mut rto = None;
    while sim.now_s() < 36.0 && rto.is_none() {
        sim.run_until(sim.now_s() + 0.001);
        let s = sim.tcp_sender(0).unwrap();
        if s.stats.timeouts > 0 {
            rto = Some((sim.now_s(), s.sb.una()));
        }
    }
    let (rto_s, una) = rto.expect("an RTO in the first 36 s with delayed ACKs");
    sim.run_until(36.0);
    let r = sim.results();
    let f = &r.flows[0];
    assert_eq!((f.timeouts, f.fast_recoveries), (1, 2), "one RTO in the first two recoveries");
    assert_eq!(r.links[bneck].random_losses, 0, "every drop is a DropTail overflow");
    let tap = sim.net.links[bneck].tap::<Drops>().unwrap();
    let lost_rtx: Vec<_> = tap.drops.iter().filter(|d| d.0 .2).collect();
    assert_eq!(lost_rtx.len(), 1, "exactly one retransmission lost at the bottleneck: {lost_rtx:?}");
    let &((t_drop, seg, _), ref before) = lost_rtx[0];
    assert_eq!(seg, una, "the RTO resends the segment whose retransmission was dropped");
    let orig = tap.drops.iter().find(|d| d.0 .1 == seg && !d.0 .2).expect("its original was dropped too");
    assert!(orig.0 .0 < t_drop, "the original was lost first");
    // The retransmission was the fourth packet of a back-to-back train:
    // three new segments, consecutive, 12 µs apart (1500 B at 1 Gb/s).
    let gap = from_secs(1500.0 * 8.0 / 1e9);
    assert_eq!(before.len(), 3);
    let times: Vec<Time> = before.iter().map(|a| a.0).chain([t_drop]).collect();
    assert!(times.windows(2).all(|w| w[1] - w[0] == gap), "a back-to-back train: {before:?} then {t_drop}");
    assert!(before.iter().all(|a| !a.2), "new data ahead of the retransmission: {before:?}");
    assert!(before.windows(2).all(|w| w[1].1 == w[0].1 + 1), "consecutive segments: {before:?}");
    // Nothing repaired the hole before the timer: the RTO fired about one
    // minimum RTO (0.2 s) after the fast retransmission left the sender.
    let waited = rto_s - to_secs(t_drop);
    assert!(waited > 0.15 && waited < 0.2, "RTO {waited:.3} s after the retransmission reached the bottleneck");

    // Without delayed ACKs the same 36 s hold no timeout.
    let mut sim = testbed(false);
    let r = sim.run();
    assert_eq!(r.flows[0].timeouts, 0, "no RTO without delayed ACKs");
    assert!(r.flows[0].fast_recoveries >= 2);
}
