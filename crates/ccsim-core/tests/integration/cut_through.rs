//! Cutting through idle hops (`Net::transmit`) must change nothing but the
//! event count. Every golden scenario is run three ways:
//!
//! - plain (hops cut through wherever `Link::can_cut` allows);
//! - with a do-nothing stage on every link, which forbids cutting into any
//!   link, so every hop is taken by its own arrival event: the results,
//!   series included, must be the same, with more events;
//! - with a recording tap on every link: results *and* event count must be
//!   those of the plain run (a tap sees cut-through hops through deferred
//!   events, `Link::defer`, and never changes what runs), and what each tap
//!   records must be what it records in the event-by-event run.
//!
//! With arrival-first ties the three runs share wires between sibling
//! links (`Net::share_wires`) as a scenario built that way does.
use crate::common;

use ccsim_core::net::stage::{Stage, Verdict};
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::net::{LinkCtx, Packet};
use ccsim_core::scenario::Ties;
use ccsim_core::sim::Time;
use ccsim_core::{Scenario, Simulation};
use std::any::Any;
use std::path::{Path, PathBuf};

/// Passes everything; its presence alone makes every hop an event.
struct Pass;
impl Stage for Pass {
    fn name(&self) -> &'static str {
        "pass"
    }
    fn on_enqueue(&mut self, _: &mut LinkCtx, _: &mut Packet) -> Verdict {
        Verdict::Pass
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// One tap event: time, letter, flow, hop, size, whether an ACK.
type Seen = (Time, char, u32, u16, u32, bool);

/// Records what it sees.
#[derive(Default)]
struct Rec(Vec<Seen>);
impl Tap for Rec {
    fn on_event(&mut self, ev: TapEvent, now: Time, _: u32, p: &Packet) {
        self.0.push((now, ev.ns2_char(), p.flow, p.hop, p.size, p.is_ack()));
    }
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

/// Results JSON without the event count and the wall time, and the count.
fn comparable(sim: &mut Simulation) -> (serde_json::Value, u64) {
    let r = sim.run();
    common::assert_conserved(&r);
    sim.finish_taps().expect("taps flush");
    let mut v = serde_json::to_value(&r).unwrap();
    let o = v.as_object_mut().unwrap();
    let events = o.remove("events").and_then(|e| e.as_u64()).expect("events");
    o.remove("wall_s");
    (v, events)
}

/// Each link's recorded tap events, in time order (the order of events
/// at one instant may differ between the two paths).
fn recorded(sim: &Simulation) -> Vec<Vec<Seen>> {
    (0..sim.net.links.len())
        .map(|l| {
            let mut v = sim.net.links[l].tap::<Rec>().expect("tap attached").0.clone();
            v.sort();
            v
        })
        .collect()
}

/// Runs every golden scenario plain, event by event and tapped (see the
/// module doc), with every queue's tie order replaced by `ties` if given;
/// returns in how many the plain run had fewer events.
fn plain_stepped_tapped(ties: Option<Ties>) -> usize {
    let mut fewer = 0;
    let mut lined = 0;
    for path in goldens() {
        let name = path.display();
        let mut sc = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // Every link records queueing delays, so they are compared too: a
        // virtual FIFO's (recorded from its log) and the waits no path
        // records (idle links, cut-through: zeros) against every packet's
        // own events.
        sc.qdelay = true;
        let mut plain = Simulation::new(&sc).unwrap();
        let mut stepped = Simulation::new(&sc).unwrap();
        let mut tapped = Simulation::new(&sc).unwrap();
        for l in 0..plain.net.links.len() {
            if let Some(t) = ties {
                for sim in [&mut plain, &mut stepped, &mut tapped] {
                    sim.net.links[l].set_ties(t);
                }
            }
            stepped.net.add_stage(l, Box::new(Pass));
            stepped.add_tap(l, Box::new(Rec::default()));
            tapped.add_tap(l, Box::new(Rec::default()));
        }
        if ties.is_some() {
            // with arrival-first ties, sibling edges share wires (`net::line`)
            for sim in [&mut plain, &mut stepped, &mut tapped] {
                sim.net.share_wires();
            }
        }
        if ties == Some(Ties::ArrivalFirst) {
            let virt = |sim: &Simulation| sim.net.links.iter().filter(|l| l.is_virtual_fifo()).count();
            assert!(virt(&plain) > 0 && virt(&tapped) == virt(&plain), "{name}: no virtual FIFO");
            assert_eq!(virt(&stepped), 0, "{name}: a stage keeps a link's events");
        }
        lined += (plain.net.shared_wires() > 0) as usize;
        let (a, ea) = comparable(&mut plain);
        let (b, eb) = comparable(&mut stepped);
        let (c, ec) = comparable(&mut tapped);
        if a != b {
            let (ra, rb) = (serde_json::to_string_pretty(&a).unwrap(), serde_json::to_string_pretty(&b).unwrap());
            let first = ra.lines().zip(rb.lines()).position(|(x, y)| x != y).unwrap_or(0);
            let show = |r: &str| r.lines().skip(first.saturating_sub(3)).take(8).collect::<Vec<_>>().join("\n");
            eprintln!("{name}: plain\n{}\nevent by event\n{}", show(&ra), show(&rb));
        }
        assert!(a == b, "{name}: results differ with every hop taken by an event");
        assert!(ea <= eb, "{name}: cut-through added events ({ea} > {eb})");
        assert!(a == c && ea == ec, "{name}: taps changed the run ({ea} vs {ec} events)");
        let (rt, rs) = (recorded(&tapped), recorded(&stepped));
        for l in 0..rt.len() {
            if rt[l] != rs[l] {
                let i = rt[l].iter().zip(&rs[l]).position(|(x, y)| x != y).unwrap_or(rt[l].len().min(rs[l].len()));
                eprintln!(
                    "link {l}: lens {} {}; first diff at {i}: {:?} vs {:?}",
                    rt[l].len(),
                    rs[l].len(),
                    rt[l].get(i),
                    rs[l].get(i)
                );
            }
        }
        assert!(rt == rs, "{name}: taps saw other events than event by event");
        fewer += (ea < eb) as usize;
    }
    if ties == Some(Ties::ArrivalFirst) {
        assert!(lined >= 5, "shared wires in only {lined} golden scenarios");
    }
    fewer
}

#[test]
fn cut_through_changes_only_the_event_count_and_taps_change_nothing() {
    let fewer = plain_stepped_tapped(None);
    assert!(fewer >= 10, "cut-through saved events in only {fewer} golden scenarios");
}

/// With ns-2's tie order every DropTail link without stages computes its
/// departures at arrival (`net::vfifo`): the same results as the
/// event-by-event run with that order, series and queue maxima included.
#[test]
fn virtual_fifos_change_only_the_event_count_and_taps_change_nothing() {
    let fewer = plain_stepped_tapped(Some(Ties::ArrivalFirst));
    assert!(fewer >= 10, "virtual FIFOs saved events in only {fewer} golden scenarios");
}
