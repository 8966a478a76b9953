//! Short-flow nodes: the dynamic short flows of the paced-XCP paper's §4.3
//! ("Dumbbell Topology Simulations with Web-like Traffic", Fig 3), after
//! Katabi et al. (SIGCOMM 2002) §4.3.
//!
//! The paper: "File size of short flows is Pareto distributed with shape
//! 1.35 and average 30 packets as used in [9]. After sending a file, a
//! node stays OFF for an exponential distribution with average 0.2s. A
//! node reserved for short flows carries only one flow at a time." and
//! "All sources start at random times between [0-10] s".
//!
//! A `[[flows]]` entry with `app = "shortflow"` and `count = N` places N
//! nodes, each on its own host pair and route (on a dumbbell, its own edge
//! links, so `rtt_range_s` gives each node its own RTT). A node, from its
//! start time:
//!
//! 1. sends a file: one finite transfer (the entry's transport settings)
//!    of `⌈X⌉ · mss_bytes` payload bytes, X drawn from the size law in
//!    packets;
//! 2. when that transfer has finished (last byte acknowledged and none of
//!    its packets left in the network), stays off for an exponential time
//!    (mean `off_mean_s`), then goes back to 1.
//!
//! Reading of the paper (documented in docs/scenario.md):
//!
//! - **Off time from completion**: "after sending a file, a node stays
//!   OFF" with "only one flow at a time" is a closed loop, so the off time
//!   is counted from the file's completion, not from its start.
//! - **First file at the start time**: a source "starts" at its random
//!   start time by sending, so the first file opens at `start_s` (plus the
//!   entry's `start_spread_s` draw), with no off time before it.
//! - **Size law**: [9] gives "a Pareto distribution with an average of 30
//!   packets (ns-implementation with shape = 1.35)", ns-2's
//!   `RandomVariable/Pareto` (type I, `x_m = mean·(α-1)/α` = 7.78 packets):
//!   `size_dist = "pareto"`, the default. A file of X packets' worth of
//!   data needs `⌈X⌉` packets (ns-2's FTP sends whole packets; the
//!   scripts' rounding is not published, rounding up is the choice here, as
//!   the web workload rounds bytes up).
//! - **Packets**: a packet carries `mss_bytes` of payload (the paper's
//!   1000-byte packets "including the headers" are the entry's `mss_bytes +
//!   header_bytes`).
//!
//! The transfers are reported in results' `transfers` table (`user` = the
//! node, `page` = its file number from 0, `objects` = `page_objects` = 1,
//! `fct_s` the completion time), and freed when finished; every node
//! draws from its own random stream.
use super::transfer::{self, above_one, at_least_one, Endpoint, SizeLaw};
use super::{AppCtx, AppKind, Application, Factory, Placement};
use crate::flow::TransferTag;
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::validate::positive;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::rng::Rng;
use crate::sim::time::from_secs;
use crate::sim::Time;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The registry entry (`app = "shortflow"`).
pub const KIND: AppKind = AppKind {
    name: "shortflow",
    doc: "short-flow nodes (count = nodes, one host pair each): files of Pareto size (shape 1.35, mean 30 \
          packets), one at a time, each followed by an exponential off time (mean 0.2 s) (paced-XCP Fig 3)",
    needs: "bytes",
    params: params_doc,
    validate: |spec, path| {
        transfer::no_bytes(spec, path, "shortflow", "file sizes (size_mean_pkts, size_shape, size_dist)")?;
        ShortFlowConfig::from_spec(spec, path).map(|_| ())
    },
    fill_defaults: |spec| {
        if let Ok(c) = ShortFlowConfig::from_spec(spec, "flow") {
            spec.app_params = Some(c.to_params());
        }
    },
    workload: Some(factory),
};

/// The paper's values (§4.3, after Katabi et al. 2002 §4.3).
pub mod defaults {
    pub const SIZE_DIST: &str = "pareto";
    pub const SIZE_SHAPE: f64 = 1.35;
    pub const SIZE_MEAN_PKTS: f64 = 30.0;
    pub const OFF_MEAN_S: f64 = 0.2;
}

/// Largest file in packets (a heavy tail's rare huge draw stays finite).
const MAX_PKTS: f64 = 1e12;

fn params_doc() -> Vec<ParamDoc> {
    use defaults as d;
    let p = |name, default: Value, doc| ParamDoc { name, default, doc };
    vec![
        p("size_dist", d::SIZE_DIST.into(), "file size law: pareto (ns-2 Pareto, type I) | pareto2 (ParetoII, Lomax)"),
        p("size_shape", d::SIZE_SHAPE.into(), "Pareto shape of the file size (> 1; paper 1.35)"),
        p(
            "size_mean_pkts",
            d::SIZE_MEAN_PKTS.into(),
            "mean file size in packets (paper 30); a file is ceil(X) packets",
        ),
        p("off_mean_s", d::OFF_MEAN_S.into(), "mean of the exponential off time after each file completes (paper 0.2)"),
    ]
}

/// The short-flow workload's parameters, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct ShortFlowConfig {
    pub size_dist: SizeLaw,
    pub size_shape: f64,
    pub size_mean_pkts: f64,
    pub off_mean_s: f64,
}

impl ShortFlowConfig {
    /// Parse and check `spec.app_params` (`path` names the flow entry).
    pub fn from_spec(spec: &FlowSpec, path: &str) -> Result<Self, ConfigError> {
        use defaults as d;
        let empty = Map::new();
        let mut p = Params::new(spec.app_params.as_ref().unwrap_or(&empty), &format!("{path}.app_params"));
        let size_dist = SizeLaw::from_name(p.choice("size_dist", d::SIZE_DIST, &SizeLaw::NAMES)?);
        let size_shape = p.f64_with("size_shape", d::SIZE_SHAPE, above_one)?;
        let size_mean_pkts = p.f64_with("size_mean_pkts", d::SIZE_MEAN_PKTS, at_least_one)?;
        let off_mean_s = p.f64_with("off_mean_s", d::OFF_MEAN_S, positive)?;
        p.finish_with("app = \"shortflow\"", &[])?;
        Ok(ShortFlowConfig { size_dist, size_shape, size_mean_pkts, off_mean_s })
    }

    /// The parameter table with every value (normalisation).
    pub fn to_params(&self) -> Map<String, Value> {
        [
            ("size_dist", Value::from(self.size_dist.name())),
            ("size_shape", self.size_shape.into()),
            ("size_mean_pkts", self.size_mean_pkts.into()),
            ("off_mean_s", self.off_mean_s.into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// A file's size in packets: `⌈X⌉`, at least 1.
    pub fn file_pkts(&self, r: &mut Rng) -> u64 {
        self.size_dist.sample(self.size_mean_pkts, self.size_shape, r).ceil().clamp(1.0, MAX_PKTS) as u64
    }

    /// P(file size in packets <= k) (a step function of whole packets).
    pub fn file_pkts_cdf(&self, k: f64) -> f64 {
        if k < 1.0 {
            0.0
        } else if k >= MAX_PKTS {
            1.0
        } else {
            self.size_dist.cdf(self.size_mean_pkts, self.size_shape, k.floor())
        }
    }

    /// An off time in seconds.
    pub fn off(&self, r: &mut Rng) -> f64 {
        transfer::exponential(self.off_mean_s, r)
    }

    /// P(off time <= t).
    pub fn off_cdf(&self, t: f64) -> f64 {
        transfer::exponential_cdf(self.off_mean_s, t)
    }
}

/// Builds the nodes of one `[[flows]]` entry, sharing its configuration.
fn factory(spec: &FlowSpec) -> Factory {
    let cfg = Arc::new(ShortFlowConfig::from_spec(spec, "flow").expect("validated shortflow parameters"));
    let template = transfer::template(spec);
    let stop = spec.stop_s.map(from_secs);
    Box::new(move |p: &Placement| {
        Box::new(ShortFlowNode {
            cfg: cfg.clone(),
            at: Endpoint::new(template.clone(), p),
            start: p.start,
            stop,
            rng: transfer::stream(p),
            files: 0,
            busy: false,
        }) as Box<dyn Application>
    })
}

/// Open the next file (the start, and the end of each off time).
const SEND: u8 = 0;

/// One short-flow node on its host pair (see the module doc).
pub struct ShortFlowNode {
    cfg: Arc<ShortFlowConfig>,
    /// The entry's transport settings and this node's host pair.
    at: Endpoint,
    start: Time,
    /// No file is opened at or after this time.
    stop: Option<Time>,
    rng: Rng,
    /// Files opened so far.
    files: u32,
    /// A file is under way (at most one at a time).
    busy: bool,
}

impl ShortFlowNode {
    fn stopped(&self, t: Time) -> bool {
        self.stop.is_some_and(|s| t >= s)
    }

    fn send_file(&mut self, ctx: &mut AppCtx) {
        debug_assert!(!self.busy, "one file at a time");
        let bytes = self.cfg.file_pkts(&mut self.rng).saturating_mul(self.at.spec.mss_bytes as u64);
        let tag =
            TransferTag { user: self.at.user, page: self.files, objects: 1, page_objects: 1, persistent: false, bytes };
        self.at.open(ctx, tag);
        self.files += 1;
        self.busy = true;
    }
}

impl Application for ShortFlowNode {
    fn name(&self) -> &'static str {
        "shortflow"
    }

    fn init(&mut self, ctx: &mut AppCtx) {
        if !self.stopped(self.start) {
            ctx.schedule(self.start, SEND);
        }
    }

    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8) {
        if slot == SEND && !self.busy && !self.stopped(ctx.now()) {
            self.send_file(ctx);
        }
    }

    /// The file is done: stay off, then send the next one.
    fn on_transfer_done(&mut self, ctx: &mut AppCtx, _flow: u32) {
        self.busy = false;
        let at = ctx.now().saturating_add(from_secs(self.cfg.off(&mut self.rng)));
        if !self.stopped(at) {
            ctx.schedule(at, SEND);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::math;
    use crate::sim::rng::{self, Stream};
    use crate::stats::{ks_crit_001, ks_distance, ks_distance_discrete};
    use serde_json::json;

    fn cfg(params: Value) -> ShortFlowConfig {
        let spec: FlowSpec = serde_json::from_value(json!({"app": "shortflow", "app_params": params})).unwrap();
        ShortFlowConfig::from_spec(&spec, "flows[0]").unwrap()
    }

    #[test]
    fn file_sizes_follow_the_papers_pareto_law_in_whole_packets() {
        let c = cfg(json!({}));
        assert_eq!((c.size_dist, c.size_shape, c.size_mean_pkts, c.off_mean_s), (SizeLaw::Pareto, 1.35, 30.0, 0.2));
        let mut r = rng::stream(5, Stream::App, 3);
        let x: Vec<u64> = (0..50_000).map(|_| c.file_pkts(&mut r)).collect();
        // type I Pareto of mean 30, shape 1.35: x_m = 30·0.35/1.35 = 7.78,
        // so every file is at least 8 packets
        assert_eq!(*x.iter().min().unwrap(), 8);
        let d = ks_distance_discrete(&x, |k| c.file_pkts_cdf(k));
        assert!(d < ks_crit_001(x.len()), "KS distance {d}");
        // closed form: P(X <= k) = 1 - (x_m/k)^α; the median x_m·2^(1/α)
        // is 12.997 packets, so about half the files are 13 packets or less,
        // and 10% are above x_m·10^(1/α) = 42.8 packets
        for (k, p) in [(13.0, 1.0 - math::powf(30.0 * 0.35 / 1.35 / 13.0, 1.35)), (42.0, 0.8974)] {
            assert!((c.file_pkts_cdf(k) - p).abs() < 1e-3, "F({k}) = {}", c.file_pkts_cdf(k));
            let share = x.iter().filter(|&&v| v as f64 <= k).count() as f64 / x.len() as f64;
            let sd = (p * (1.0 - p) / x.len() as f64).sqrt();
            assert!((share - p).abs() < 4.0 * sd, "share <= {k} packets {share}, expected {p}");
        }
        // power: ParetoII with the same mean and shape is rejected
        let other = cfg(json!({"size_dist": "pareto2"}));
        assert!(ks_distance_discrete(&x, |k| other.file_pkts_cdf(k)) > ks_crit_001(x.len()));
        // and so is a 10% larger mean
        let wrong = cfg(json!({"size_mean_pkts": 33.0}));
        assert!(ks_distance_discrete(&x, |k| wrong.file_pkts_cdf(k)) > ks_crit_001(x.len()));
    }

    #[test]
    fn off_times_are_exponential_with_the_configured_mean() {
        let c = cfg(json!({}));
        let mut r = rng::stream(9, Stream::App, 4);
        let mut x: Vec<f64> = (0..20_000).map(|_| c.off(&mut r)).collect();
        let d = ks_distance(&mut x, |t| c.off_cdf(t));
        assert!(d < ks_crit_001(x.len()), "KS distance {d}");
        let wrong = cfg(json!({"off_mean_s": 0.22}));
        assert!(ks_distance(&mut x, |t| wrong.off_cdf(t)) > ks_crit_001(x.len()));
    }

    #[test]
    fn parameters_are_checked_with_named_errors() {
        let bad = |params: Value| {
            let spec: FlowSpec = serde_json::from_value(json!({"app": "shortflow", "app_params": params})).unwrap();
            ShortFlowConfig::from_spec(&spec, "flows[0]").unwrap_err().to_string()
        };
        assert_eq!(
            bad(json!({"off_mean_s": 0.0})),
            "scenario.flows[0].app_params.off_mean_s: 0 is not allowed; must be a finite number > 0"
        );
        assert!(bad(json!({"size_shape": 1.0})).contains("app_params.size_shape: 1 is not allowed; must be"));
        assert!(bad(json!({"size_mean_pkts": 0.5})).contains("app_params.size_mean_pkts: 0.5 is not allowed"));
        assert!(bad(json!({"size_dist": "lognormal"})).contains("app_params.size_dist: unknown value \"lognormal\""));
        assert!(bad(json!({"size_dist": "lognormal"})).contains("allowed: pareto2, pareto"));
        assert!(bad(json!({"off_s": 1.0})).contains("app_params.off_s: unknown field for app = \"shortflow\""));
        // the normalised table round-trips
        let c = cfg(json!({"size_dist": "pareto2", "off_mean_s": 1.5}));
        assert_eq!(cfg(Value::Object(c.to_params())), c);
    }
}
