//! Telnet-like interactive source over TCP: one MSS-sized segment written
//! at exponentially distributed intervals, and the delay of every segment
//! from that write to its in-order delivery at the receiver.
//!
//! ns-2.35's `Application/Telnet` (apps/telnet.cc) calls
//! `agent_->sendmsg(agent_->size())`, one TCP packet, at intervals drawn as
//! `Random::exponential() * interval_` when `interval_` is non-zero (the
//! tcplib telnet distribution only when it is 0); ns-default.tcl sets
//! `interval_ 1.0`. The GWA paper (Gerla et al. §6) has "Telnet applications
//! generate MSS packets with average interarrival time equal to 0.1 s",
//! i.e. `interval_ 0.1`: exponential with mean 0.1 s, this application's
//! default (`app_params.interval_s`). As in ns-2 the first write is one
//! interval after `start_s`, and the timer is rescheduled from each write.
//! With `app_params.rng = "ns2"` the intervals are ns-2's own draws, from
//! its default stream shared with RED (`sim::ns2rng`).
//!
//! Delay (the paper's Telnet delay, which "includes retransmissions"):
//! the receiver notes each write's time and, when the segment is
//! delivered in order to the application, records now − write time (so a
//! segment held behind a hole, or waiting in the sender for the window,
//! counts its whole wait). Segments written at or after the warm-up are
//! counted; results report `app_delay_count`, `app_delay_mean_s` and
//! `app_delay_max_s` for the flow.
use super::{AppCtx, AppKind, Application};
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::validate::positive;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::rng::{self, Rng, Stream};
use crate::sim::time::from_secs;
use crate::sim::Time;
use serde_json::{Map, Value};

/// ns-2's `interval_` as the GWA paper set it (s).
pub const DEFAULT_INTERVAL_S: f64 = 0.1;

pub const KIND: AppKind = AppKind {
    name: "telnet",
    doc: "one MSS segment at exponential intervals (ns-2 Application/Telnet, GWA paper: mean 0.1 s), \
          reporting each segment's write-to-delivery delay",
    needs: "bytes",
    params: || {
        vec![
            ParamDoc {
                name: "interval_s",
                default: DEFAULT_INTERVAL_S.into(),
                doc: "mean of the exponential interval between writes (ns-2 interval_)",
            },
            ParamDoc {
                name: "rng",
                default: "ccsim".into(),
                doc: "where the intervals come from: \"ccsim\" (this flow's own stream) or \"ns2\" (ns-2.35's \
                      defaultRNG seeded with the scenario's seed, shared with every other ns2 draw: \
                      Random::exponential() as apps/telnet.cc draws it)",
            },
        ]
    },
    validate: |spec, path| {
        if spec.transport != "tcp" {
            return Err(ConfigError::new(
                format!("{path}.app"),
                format!("\"telnet\" writes segments on a TCP sender; transport \"{}\" is not tcp", spec.transport),
            ));
        }
        if spec.bytes.is_some() {
            return Err(ConfigError::new(
                format!("{path}.bytes"),
                "not allowed with app = \"telnet\"; it writes one MSS segment per interval",
            ));
        }
        settings(spec, path).map(|_| ())
    },
    fill_defaults: |spec| {
        if let Ok((x, ns2)) = settings(spec, "flow") {
            let mut m = Map::new();
            m.insert("interval_s".into(), Value::from(x));
            if ns2 {
                m.insert("rng".into(), Value::from("ns2"));
            }
            spec.app_params = Some(m);
        }
    },
    workload: None,
};

/// The mean interval of a telnet entry's `app_params` (`path` names it)
/// and whether its draws are ns-2's (`rng = "ns2"`).
pub fn settings(spec: &FlowSpec, path: &str) -> Result<(f64, bool), ConfigError> {
    let empty = Map::new();
    let mut p = Params::new(spec.app_params.as_ref().unwrap_or(&empty), &format!("{path}.app_params"));
    let x = p.f64_with("interval_s", DEFAULT_INTERVAL_S, positive)?;
    let ns2 = p.choice("rng", "ccsim", &["ccsim", "ns2"])? == "ns2";
    p.finish_with("app = \"telnet\"", &[])?;
    Ok((x, ns2))
}

const START: u8 = 0;
const STOP: u8 = 1;
const SEND: u8 = 2;

pub struct Telnet {
    flow: u32,
    start: Time,
    stop: Option<Time>,
    warmup: Time,
    mean_s: f64,
    rng: Rng,
    /// Draw from ns-2's shared default stream instead of `rng`.
    ns2_rng: bool,
    active: bool,
    opened: bool,
}

impl Telnet {
    /// The telnet source of flow `flow` (its spec validated); writes at or
    /// after `warmup` are measured.
    pub fn new(flow: u32, spec: &FlowSpec, start: Time, stop: Option<Time>, seed: u64, warmup: Time) -> Self {
        let (mean_s, ns2_rng) = settings(spec, "flow").unwrap_or((DEFAULT_INTERVAL_S, false));
        Telnet {
            flow,
            start,
            stop,
            warmup,
            mean_s,
            rng: rng::stream(seed, Stream::FlowApp, flow as u64),
            ns2_rng,
            active: false,
            opened: false,
        }
    }

    /// An interval in seconds: exponential with mean `interval_s`.
    pub fn next_interval(mean_s: f64, r: &mut Rng) -> f64 {
        rng::exponential(mean_s, r)
    }

    fn schedule_next(&mut self, ctx: &mut AppCtx) {
        let dt = if self.ns2_rng {
            // apps/telnet.cc `next`: Random::exponential() * interval_.
            ctx.net.ns2_rng.exponential() * self.mean_s
        } else {
            Self::next_interval(self.mean_s, &mut self.rng)
        };
        let at = ctx.now().saturating_add(from_secs(dt));
        if self.stop.is_none_or(|s| at < s) {
            ctx.schedule_after(at, dt, SEND); // `timer_.resched(t)`
        }
    }

    fn send(&mut self, ctx: &mut AppCtx) {
        if !self.active {
            return;
        }
        let now = ctx.now();
        if let Some(r) = ctx.flows.receiver_mut(self.flow) {
            r.app_sent(now, now >= self.warmup);
        }
        if let Some(s) = ctx.flows.sender_mut(self.flow) {
            s.write(ctx.net);
            if !self.opened {
                self.opened = true;
                s.open(ctx.net);
            }
        }
        self.schedule_next(ctx);
    }
}

impl Application for Telnet {
    fn name(&self) -> &'static str {
        "telnet"
    }

    fn init(&mut self, ctx: &mut AppCtx) {
        ctx.schedule(self.start, START);
        if let Some(s) = self.stop {
            ctx.schedule(s, STOP);
        }
    }

    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8) {
        match slot {
            START => {
                self.active = true;
                self.schedule_next(ctx);
            }
            STOP => {
                self.active = false;
                if let Some(s) = ctx.flows.sender_mut(self.flow) {
                    s.close();
                }
            }
            SEND => self.send(ctx),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::math;
    use crate::stats::{ks_crit_001, ks_distance};
    use serde_json::json;

    fn exp_cdf(mean: f64) -> impl Fn(f64) -> f64 {
        move |t| if t <= 0.0 { 0.0 } else { 1.0 - math::exp(-t / mean) }
    }

    #[test]
    fn intervals_are_exponential_with_the_configured_mean() {
        let mut r = rng::stream(3, Stream::FlowApp, 0);
        let mut x: Vec<f64> = (0..20_000).map(|_| Telnet::next_interval(0.1, &mut r)).collect();
        let d = ks_distance(&mut x, exp_cdf(0.1));
        assert!(d < ks_crit_001(x.len()), "KS distance {d}");
        // the test has power: a 10% wrong mean is rejected
        assert!(ks_distance(&mut x, exp_cdf(0.11)) > ks_crit_001(x.len()));
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let spec = |v| serde_json::from_value::<FlowSpec>(v).unwrap();
        let check = |v| (KIND.validate)(&spec(v), "flows[0]").err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(check(json!({"app": "telnet", "transport": "tcp"})), "");
        assert_eq!(check(json!({"app": "telnet", "transport": "tcp", "app_params": {"interval_s": 1.0}})), "");
        let e = check(json!({"app": "telnet", "transport": "tcp", "app_params": {"interval_s": 0.0}}));
        assert!(e.contains("flows[0].app_params.interval_s"), "{e}");
        let e = check(json!({"app": "telnet", "transport": "tcp", "app_params": {"interval": 1.0}}));
        assert!(e.contains("flows[0].app_params.interval") && e.contains("interval_s"), "{e}");
        let e = check(json!({"app": "telnet", "transport": "tcp", "bytes": 1000}));
        assert!(e.contains("flows[0].bytes"), "{e}");
        let e = check(json!({"app": "telnet", "transport": "etcp"}));
        assert!(e.contains("flows[0].app") && e.contains("etcp"), "{e}");
    }
}
