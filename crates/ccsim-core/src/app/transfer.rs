//! The transfer machinery workloads share (web users, short-flow nodes):
//! the transport settings every transfer of a `[[flows]]` entry gets, the
//! host pair a workload instance opens its transfers on, its random
//! stream, and the size and time laws it draws from.
//!
//! A transfer is a finite flow of the entry's transport created during the
//! run with a [`TransferTag`]; it is reported in results' `transfers` table
//! (with its completion time `fct_s`) and freed once it has finished and
//! none of its packets is left in the network, at which point the
//! application's `on_transfer_done` runs.
use super::{AppCtx, Placement};
use crate::flow::TransferTag;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::math;
use crate::sim::rng::{self, Rng, Stream};
use std::sync::Arc;

/// The transport settings every transfer of the workload entry `spec`
/// gets (its `bytes` are set per transfer).
pub fn template(spec: &FlowSpec) -> Arc<FlowSpec> {
    let mut t = spec.clone();
    t.app = None;
    t.app_params = None;
    t.count = 1;
    Arc::new(t)
}

/// A workload draws its transfers' sizes, so its entry takes no `bytes`
/// (`sizes` names the `app_params` keys that set them).
pub fn no_bytes(spec: &FlowSpec, path: &str, app: &str, sizes: &str) -> Result<(), ConfigError> {
    match spec.bytes {
        Some(_) => Err(ConfigError::new(
            format!("{path}.bytes"),
            format!("not allowed with app = \"{app}\"; {sizes} come from app_params"),
        )),
        None => Ok(()),
    }
}

/// Where one workload instance (a user, a node) opens its transfers.
pub struct Endpoint {
    /// Transport settings of every transfer (see [`template`]).
    pub spec: Arc<FlowSpec>,
    pub entry: usize,
    /// Index among the entry's `count` (the transfers' `user`).
    pub user: u32,
    pub hosts: (usize, usize),
    pub route: u32,
}

impl Endpoint {
    pub fn new(spec: Arc<FlowSpec>, p: &Placement) -> Self {
        Endpoint { spec, entry: p.entry, user: p.index, hosts: p.hosts, route: p.route }
    }

    /// Open and start a transfer of `tag.bytes` payload bytes; its id.
    pub fn open(&self, ctx: &mut AppCtx, tag: TransferTag) -> u32 {
        let mut spec = (*self.spec).clone();
        spec.bytes = Some(tag.bytes);
        let id = ctx.open_transfer(&spec, self.entry, self.hosts, self.route, tag).expect("validated transfer spec");
        if let Some(s) = ctx.flows.sender_mut(id) {
            s.open(ctx.net);
        }
        id
    }
}

/// The random stream of a workload instance: its own (`Stream::App`, keyed
/// by entry and index), so one seed gives the same draws and adding
/// instances or entries does not change another instance's draws.
pub fn stream(p: &Placement) -> Rng {
    rng::stream(p.seed, Stream::App, ((p.entry as u64) << 32) | p.index as u64)
}

/// A Pareto shape: finite and above 1 (a finite mean).
pub fn above_one(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && x > 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("{x} is not allowed; must be a finite number > 1 (a finite mean)")))
    }
}

/// A mean size: at least 1 (byte or packet).
pub fn at_least_one(field: &str, x: f64) -> Result<(), ConfigError> {
    crate::scenario::validate::at_least(field, x, 1.0)
}

pub use crate::sim::rng::{exponential, unit_open0};

/// P(exponential of mean `mean` <= t).
pub fn exponential_cdf(mean: f64, t: f64) -> f64 {
    if t <= 0.0 {
        0.0
    } else {
        1.0 - math::exp(-t / mean)
    }
}

/// A heavy-tailed size law, as ns-2 draws it, given by its mean and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeLaw {
    /// ns-2 `RandomVariable/ParetoII` (Lomax): `s·(U^(-1/α) - 1)`,
    /// `s = mean·(α-1)`.
    Pareto2,
    /// ns-2 `RandomVariable/Pareto` (type I): `x_m·U^(-1/α)`,
    /// `x_m = mean·(α-1)/α`.
    Pareto,
}

impl SizeLaw {
    /// The scenario names (`"pareto2"`, `"pareto"`).
    pub const NAMES: [&'static str; 2] = ["pareto2", "pareto"];

    pub fn name(self) -> &'static str {
        match self {
            SizeLaw::Pareto2 => "pareto2",
            SizeLaw::Pareto => "pareto",
        }
    }

    /// The law called `name` (one of [`NAMES`](Self::NAMES), validated).
    pub fn from_name(name: &str) -> Self {
        if name == "pareto" {
            SizeLaw::Pareto
        } else {
            SizeLaw::Pareto2
        }
    }

    /// A draw with mean `mean` and shape `a` (> 1).
    pub fn sample(self, mean: f64, a: f64, r: &mut Rng) -> f64 {
        let u = unit_open0(r);
        match self {
            SizeLaw::Pareto2 => mean * (a - 1.0) * (math::powf(u, -1.0 / a) - 1.0),
            SizeLaw::Pareto => mean * (a - 1.0) / a * math::powf(u, -1.0 / a),
        }
    }

    /// P(X <= x) for mean `mean` and shape `a`.
    pub fn cdf(self, mean: f64, a: f64, x: f64) -> f64 {
        match self {
            SizeLaw::Pareto2 if x > 0.0 => 1.0 - math::powf(1.0 + x / (mean * (a - 1.0)), -a),
            SizeLaw::Pareto if x > mean * (a - 1.0) / a => 1.0 - math::powf(mean * (a - 1.0) / a / x, a),
            _ => 0.0,
        }
    }
}
