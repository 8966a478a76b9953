//! `sack_option`: an ACK is `header_bytes` plus its SACK option's bytes
//! as ns-3 or Linux lay them out (8n, 4 + 8n for n blocks), none by default.
use crate::common;
use ccsim_core::net::packet::Packet;
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::scenario::kinds::SackOption;
use ccsim_core::sim::Time;
use common::*;
use std::any::Any;

/// (ACK size, SACK blocks) of every ACK the reverse bottleneck receives.
#[derive(Default)]
struct Acks(Vec<(u32, usize)>);

impl Tap for Acks {
    fn on_event(&mut self, ev: TapEvent, _now: Time, _link: u32, p: &Packet) {
        if ev.ns2_char() == '+' && p.is_ack() {
            self.0.push((p.size, p.tcp().map_or(0, |h| h.n_sack())));
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn acks(option: &str) -> Vec<(u32, usize)> {
    let flow = format!("recovery = \"sack\"\nheader_bytes = 54\nrtt_s = 0.05\nsack_option = \"{option}\"");
    let mut sim = Dumbbell::new(10e6, 15, 10.0).flow(&flow).flow(&flow).sim();
    sim.add_tap(REV_BNECK, Box::new(Acks::default()));
    sim.run();
    sim.net.links[REV_BNECK].tap::<Acks>().expect("tap attached").0.clone()
}

#[test]
fn an_acks_size_is_the_header_plus_its_sack_option() {
    for (name, opt) in [("none", SackOption::None), ("ns3", SackOption::Ns3), ("linux", SackOption::Linux)] {
        let a = acks(name);
        assert!(a.iter().any(|&(_, n)| n >= 2), "{name}: a 15-packet buffer makes holes: {}", a.len());
        for &(size, n) in &a {
            assert_eq!(size, 54 + opt.bytes(n), "{name}: {n} blocks");
        }
    }
    // ns-3: 10-byte timestamps + 2 + 8n, padded to 4 bytes, in place of 12;
    // Linux: NOP, NOP, kind, length + 8n
    assert_eq!([1, 2, 3].map(|n| SackOption::Ns3.bytes(n)), [8, 16, 24]);
    assert_eq!([0, 1, 3].map(|n| SackOption::Linux.bytes(n)), [0, 12, 28]);
    assert_eq!(SackOption::None.bytes(3), 0);
}

#[test]
fn sack_option_needs_the_rfc_sack_receiver() {
    for rec in ["newreno", "sack1"] {
        let d = Dumbbell::new(10e6, 15, 1.0).flow(&format!("recovery = \"{rec}\"\nsack_option = \"ns3\""));
        let e = ccsim_core::Scenario::from_toml(&d.toml()).and_then(|s| ccsim_core::Simulation::new(&s).map(|_| ()));
        let msg = format!("{:?}", e.expect_err(rec));
        assert!(msg.contains("sack_option"), "{rec}: {msg}");
    }
}

/// The timestamps option (`timestamps`, RFC 7323; the `linux` personality's
/// default) puts its 12 bytes on every ACK, before the SACK option, and on
/// every data segment: `header_bytes` stays the headers without options.
#[test]
fn the_timestamps_option_adds_twelve_bytes_to_every_packet() {
    for ts in [true, false] {
        let flow =
            format!("recovery = \"sack\"\nheader_bytes = 40\nrtt_s = 0.05\nsack_option = \"linux\"\ntimestamps = {ts}");
        let mut sim = Dumbbell::new(10e6, 15, 10.0).flow(&flow).flow(&flow).sim();
        sim.add_tap(REV_BNECK, Box::new(Acks::default()));
        sim.enable_send_trace(0);
        sim.run();
        let opt = if ts { 12 } else { 0 };
        let a = sim.net.links[REV_BNECK].tap::<Acks>().expect("tap attached").0.clone();
        assert!(a.iter().any(|&(_, n)| n >= 2), "holes in a 15-packet buffer");
        for &(size, n) in &a {
            assert_eq!(size, 40 + opt + SackOption::Linux.bytes(n), "timestamps {ts}: {n} blocks");
        }
        assert!(sim.send_trace(0).iter().all(|r| r.size == 1000 + 40 + opt), "timestamps {ts}: data");
    }
}
