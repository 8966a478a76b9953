//! Cutting through idle hops (`Net::transmit`) must change nothing but the
//! event count: every golden scenario gives the same results, series
//! included, when a tap on every link forces the event-by-event path (a
//! tap must see each packet arrive at the far end of its link, so no hop
//! is cut through a tapped link), and the cut-through run needs fewer
//! events wherever a route has an uncongested hop after its first.
mod common;

use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::net::Packet;
use ccsim_core::sim::Time;
use ccsim_core::{Scenario, Simulation};
use std::any::Any;
use std::path::{Path, PathBuf};

/// Sees everything, records nothing.
struct Watch;
impl Tap for Watch {
    fn on_event(&mut self, _: TapEvent, _: Time, _: u32, _: &Packet) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn goldens() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/golden exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// Results JSON without the event count and the wall time.
fn comparable(sim: &mut Simulation) -> (serde_json::Value, u64) {
    let r = sim.run();
    common::assert_conserved(&r);
    let mut v = serde_json::to_value(&r).unwrap();
    let o = v.as_object_mut().unwrap();
    let events = o.remove("events").and_then(|e| e.as_u64()).expect("events");
    o.remove("wall_s");
    (v, events)
}

#[test]
fn cut_through_changes_only_the_event_count() {
    let mut fewer = 0;
    for path in goldens() {
        let sc = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut plain = Simulation::new(&sc).unwrap();
        let mut watched = Simulation::new(&sc).unwrap();
        for l in 0..watched.net.links.len() {
            watched.add_tap(l, Box::new(Watch));
        }
        let (a, ea) = comparable(&mut plain);
        let (b, eb) = comparable(&mut watched);
        assert!(a == b, "{}: results differ with every hop taken by an event", path.display());
        assert!(ea <= eb, "{}: cut-through added events ({ea} > {eb})", path.display());
        fewer += (ea < eb) as usize;
    }
    assert!(fewer >= 10, "cut-through saved events in only {fewer} golden scenarios");
}
