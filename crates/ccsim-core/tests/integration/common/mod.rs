//! Shared helpers for the integration tests: dumbbell scenario builder,
//! conservation check, event-by-event stepping.
#![allow(dead_code)]

pub mod bbr_dumbbell;
pub mod sojourn;

use ccsim_core::net::stage::loss::RandomLoss;
use ccsim_core::sim::time::{from_secs, to_secs};
use ccsim_core::{Results, Scenario, Simulation};

/// Packet conservation: every packet created is delivered, dropped or still
/// in the network, and the network walk agrees with the packet slab.
pub fn assert_conserved(r: &Results) {
    let c = &r.conservation;
    assert_eq!(
        c.created,
        c.delivered + c.dropped + c.in_flight,
        "conservation: created {} != delivered {} + dropped {} + in_flight {} ({})",
        c.created,
        c.delivered,
        c.dropped,
        c.in_flight,
        r.name
    );
    assert_eq!(c.in_flight, c.live_in_pool, "in_flight (network walk) != live packets in the pool ({})", r.name);
    assert!(c.holds());
    // every drop is some flow's packet (transfers' flows are in their own
    // table, not `flows`)
    if r.transfers.is_empty() {
        let flows: u64 = r.flows.iter().map(|f| f.data_pkts_dropped + f.acks_dropped).sum();
        let links: u64 = r.links.iter().map(|l| l.drops + l.random_losses).sum();
        assert_eq!(flows, links, "the flows' drops != the links' drops and random losses ({})", r.name);
    }
}

/// A dumbbell scenario described by a few parameters; `toml()` renders it.
#[derive(Clone, Debug)]
pub struct Dumbbell {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub sample_interval_s: f64,
    pub rate_bps: f64,
    /// One-way delay of the bottleneck.
    pub delay_s: f64,
    pub buf_pkts: u64,
    pub loss: f64,
    pub reverse_loss: f64,
    /// Each entry is the body of one `[[flows]]` table (TOML lines).
    pub flows: Vec<String>,
}

impl Dumbbell {
    pub fn new(rate_bps: f64, buf_pkts: u64, duration_s: f64) -> Self {
        Dumbbell {
            name: "test".into(),
            seed: 1,
            duration_s,
            warmup_s: 0.0,
            sample_interval_s: 0.0,
            rate_bps,
            delay_s: 0.01,
            buf_pkts,
            loss: 0.0,
            reverse_loss: 0.0,
            flows: Vec::new(),
        }
    }
    pub fn name(mut self, n: &str) -> Self {
        self.name = n.into();
        self
    }
    pub fn seed(mut self, s: u64) -> Self {
        self.seed = s;
        self
    }
    pub fn warmup(mut self, w: f64) -> Self {
        self.warmup_s = w;
        self
    }
    pub fn sample(mut self, iv: f64) -> Self {
        self.sample_interval_s = iv;
        self
    }
    pub fn delay(mut self, d: f64) -> Self {
        self.delay_s = d;
        self
    }
    pub fn loss(mut self, p: f64) -> Self {
        self.loss = p;
        self
    }
    pub fn reverse_loss(mut self, p: f64) -> Self {
        self.reverse_loss = p;
        self
    }
    /// Add a `[[flows]]` entry with the given TOML body.
    pub fn flow(mut self, body: &str) -> Self {
        self.flows.push(body.to_string());
        self
    }

    pub fn toml(&self) -> String {
        let mut s = format!(
            "name = {:?}\nseed = {}\nduration_s = {:?}\nwarmup_s = {:?}\nsample_interval_s = {:?}\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {:?}\nbottleneck_delay_s = {:?}\n\
             bottleneck_queue = {{ limit_pkts = {} }}\nbottleneck_loss = {:?}\nbottleneck_reverse_loss = {:?}\n",
            self.name,
            self.seed,
            self.duration_s,
            self.warmup_s,
            self.sample_interval_s,
            self.rate_bps,
            self.delay_s,
            self.buf_pkts,
            self.loss,
            self.reverse_loss
        );
        for f in &self.flows {
            s.push_str("[[flows]]\n");
            s.push_str(f);
            s.push('\n');
        }
        classic_toml(&s)
    }

    pub fn scenario(&self) -> Scenario {
        let t = self.toml();
        Scenario::from_toml(&t).unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{t}"))
    }

    pub fn sim(&self) -> Simulation {
        Simulation::new(&self.scenario()).unwrap_or_else(|e| panic!("test scenario rejected: {e}"))
    }

    pub fn run(&self) -> Results {
        run(&self.scenario())
    }
}

/// A scenario document with the TCP these tests' closed forms and
/// expectations were written for, in every TCP `[[flows]]` table that says
/// nothing else: one ACK per segment, NewReno recovery, an initial window
/// of 2, and `delack_model = "fixed"` where a table asks for delayed ACKs
/// (the defaults before the `rfc` personality took SACK, an initial window
/// of 10 and Linux's delayed ACKs). Other transports are left as they are.
pub fn classic_toml(doc: &str) -> String {
    let mut out = String::new();
    let mut table: Vec<&str> = Vec::new();
    let mut in_flow = false;
    let flush = |out: &mut String, table: &mut Vec<&str>, in_flow: bool| {
        for l in table.iter() {
            out.push_str(l);
            out.push('\n');
        }
        if in_flow {
            out.push_str(&classic_pins(table));
        }
        table.clear();
    };
    for line in doc.lines() {
        let t = line.trim_start();
        if t.starts_with('[') {
            flush(&mut out, &mut table, in_flow);
            in_flow = t.starts_with("[[flows]]");
        }
        table.push(line);
    }
    flush(&mut out, &mut table, in_flow);
    out
}

/// The lines [`classic_toml`] adds to one `[[flows]]` table.
fn classic_pins(table: &[&str]) -> String {
    let value = |k: &str| {
        table.iter().find_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix(k)?.trim_start();
            rest.strip_prefix('=').map(|v| v.trim().to_string())
        })
    };
    if value("transport").is_some_and(|v| v != "\"tcp\"") {
        return String::new();
    }
    let mut out = String::new();
    for (k, v) in [("recovery", "\"newreno\""), ("init_cwnd_pkts", "2"), ("delayed_ack", "false")] {
        if value(k).is_none() {
            out.push_str(&format!("{k} = {v}\n"));
        }
    }
    if value("delayed_ack").as_deref() == Some("true") && value("delack_model").is_none() {
        out.push_str("delack_model = \"fixed\"\n");
    }
    out
}

/// Link indices of a dumbbell: 0 forward bottleneck, 1 reverse bottleneck,
/// then per flow `f` four edge links starting at `2 + 4 f`:
/// source->r0, r0->source, r1->sink, sink->r1.
pub const FWD_BNECK: usize = 0;
pub const REV_BNECK: usize = 1;
pub fn src_edge(flow: usize) -> usize {
    2 + 4 * flow
}

/// Build, run to the end, end the run (`Simulation::end`, as the Python
/// front end does before building the results, so the goldens hold for
/// results read from the flows' records), check conservation.
pub fn run(sc: &Scenario) -> Results {
    let mut sim = Simulation::new(sc).unwrap_or_else(|e| panic!("scenario rejected: {e}"));
    sim.run_until(sim.duration_s());
    sim.end();
    let r = sim.results();
    assert_conserved(&r);
    r
}

/// Results of a stepped simulation, with the conservation check.
pub fn finish(sim: &Simulation) -> Results {
    let r = sim.results();
    assert_conserved(&r);
    r
}

/// Seconds that `run_until` maps to a time at or after `t` (exact below
/// ~2000 s of simulated time; beyond, the smallest f64 that reaches `t`).
pub fn secs_reaching(t: u64) -> f64 {
    let mut s = to_secs(t);
    while from_secs(s) < t {
        s = s.next_up();
    }
    s
}

/// Time of the next pending event, in seconds.
pub fn next_event_s(sim: &Simulation) -> Option<f64> {
    sim.net.events.peek_time().map(secs_reaching)
}

/// Process every event at the next pending instant; false when none is left
/// before the end of the run.
pub fn step(sim: &mut Simulation) -> bool {
    match sim.net.events.peek_time() {
        Some(t) if to_secs(t) <= sim.duration_s() => {
            sim.run_until(secs_reaching(t));
            true
        }
        _ => false,
    }
}

/// Mean of a slice.
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Set the loss probability of link `l`'s random-loss stage during a run
/// (the scenario must give the link a nonzero loss so the stage exists).
pub fn set_loss(sim: &mut Simulation, l: usize, p: f64) {
    sim.net.links[l].stage_mut::<RandomLoss>().expect("the link has a random-loss stage").p = p;
}
