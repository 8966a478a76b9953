//! Run one scenario and measure link 0 (a dumbbell's forward bottleneck)
//! from its `+ - d` events, as `validation/*.py` measure ns-2's trace-queue
//! file: `cargo run --release -p ccsim-core --example queue_trace -- s.toml FROM_S`.
//! Prints JSON: arrivals, drops and CE marks (counted at dequeue) from
//! FROM_S on, the time-average and maximum of the waiting queue (packets,
//! bytes) from FROM_S on, the maximum over the whole run, and each flow's
//! goodput from the summary (over the scenario's measurement window).
use ccsim_core::net::packet::{Ecn, Packet};
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::sim::time::to_secs;
use ccsim_core::sim::Time;
use ccsim_core::{Scenario, Simulation};
use std::any::Any;

#[derive(Default)]
struct Watch {
    from: f64,
    last: f64,
    q: i64,
    qb: i64,
    area: f64,
    area_b: f64,
    arrivals: u64,
    drops: u64,
    marks: u64,
    max_q: i64,
    max_qb: i64,
    max_q_all: i64,
}

impl Tap for Watch {
    fn on_event(&mut self, ev: TapEvent, now: Time, _link: u32, p: &Packet) {
        let t = to_secs(now);
        if t > self.from {
            let dt = t - self.last.max(self.from);
            self.area += dt * self.q as f64;
            self.area_b += dt * self.qb as f64;
        }
        self.last = t;
        let after = t >= self.from;
        match ev {
            TapEvent::Enqueue => {
                self.q += 1;
                self.qb += p.size as i64;
                self.arrivals += after as u64;
            }
            TapEvent::Dequeue | TapEvent::Drop => {
                self.q -= 1;
                self.qb -= p.size as i64;
                if ev == TapEvent::Drop {
                    self.drops += after as u64;
                } else if p.ecn == Ecn::Ce {
                    self.marks += after as u64;
                }
            }
            TapEvent::Deliver => {}
        }
        self.max_q_all = self.max_q_all.max(self.q);
        if after {
            self.max_q = self.max_q.max(self.q);
            self.max_qb = self.max_qb.max(self.qb);
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: queue_trace SCENARIO.toml FROM_S");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[1]).expect("read scenario");
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let from: f64 = args[2].parse().expect("FROM_S");
    let mut sim = Simulation::new(&sc).unwrap_or_else(|e| panic!("{e}"));
    sim.add_tap(0, Box::new(Watch { from, ..Default::default() }));
    let t0 = std::time::Instant::now();
    let r = sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let w = sim.net.links[0].tap::<Watch>().unwrap();
    let span = sim.duration_s() - from;
    let out = serde_json::json!({
        "arrivals": w.arrivals,
        "drops": w.drops,
        "marks": w.marks,
        "avg_queue_pkts": w.area / span,
        "avg_queue_bytes": w.area_b / span,
        "max_queue_pkts": w.max_q,
        "max_queue_bytes": w.max_qb,
        "max_queue_pkts_all": w.max_q_all,
        "goodput_bps": r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>(),
        "timeouts": r.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        "retransmits": r.flows.iter().map(|f| f.retransmits).sum::<u64>(),
        "wall_s": wall,
    });
    println!("{out}");
}
