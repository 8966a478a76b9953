//! Per-link stages: router processing that runs on every packet a link
//! receives (before its queue discipline) and sends (after the discipline
//! picks it): the place for random loss, XCP's feedback computation, GWA's
//! window stamping. A stage gets the link context (time, rate, own RNG
//! stream, own timer) and the packet, and may drop it on enqueue.
//!
//! Adding a stage is one file plus one line in [`registry`].
pub mod drop_list;
pub mod gwa;
pub mod loss;
pub mod xcp;

use super::ctx::LinkCtx;
use super::packet::Packet;
use crate::scenario::params::ParamDoc;
use crate::scenario::ConfigError;
use crate::sim::rng::Stream;
use serde_json::{Map, Value};
use std::any::Any;

/// Why a stage dropped a packet: counted apart in the link's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Random (non-congestion) loss: `random_losses`.
    Random,
    /// A router's congestion decision: `drops`.
    Congestion,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Drop(DropReason),
}

pub trait Stage: Send + Any {
    fn name(&self) -> &'static str;
    /// The RNG stream of this stage's context (`ctx.rng`), keyed by link.
    fn stream(&self) -> Stream {
        Stream::Stage
    }
    /// A packet arrives at the link, before its queue discipline.
    fn on_enqueue(&mut self, ctx: &mut LinkCtx, pkt: &mut Packet) -> Verdict;
    /// A packet leaves the queue for the serialiser.
    fn on_dequeue(&mut self, _ctx: &mut LinkCtx, _pkt: &mut Packet) {}
    /// Whether `on_dequeue` does anything: a link whose stages all say no
    /// skips building their contexts for every departing packet. `true`
    /// unless a stage overrides it (a stage that forgets is only slower).
    fn acts_on_dequeue(&self) -> bool {
        true
    }
    /// The stage's timer (armed with `ctx.arm_timer`) expired.
    fn on_timer(&mut self, _ctx: &mut LinkCtx) {}
    /// For tests and tools that adjust a stage during a run.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Builds a stage from its parameter table (errors name the table's path).
pub type StageBuilder = fn(&Map<String, Value>, &str) -> Result<Box<dyn Stage>, ConfigError>;

/// A stage kind: its name, what it does, its parameters and its builder.
pub struct StageKind {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: fn() -> Vec<ParamDoc>,
    /// Build from a parameter table, validating it; `path` names the table.
    pub build: StageBuilder,
}

/// Every per-link stage ccsim ships: one line each.
pub fn registry() -> Vec<StageKind> {
    vec![loss::KIND, drop_list::KIND, xcp::KIND, gwa::KIND]
}

/// Build stage `name` from its parameters (errors name `path`).
pub fn build(name: &str, params: &Map<String, Value>, path: &str) -> Result<Box<dyn Stage>, ConfigError> {
    let kinds = registry();
    match kinds.iter().find(|k| k.name == name) {
        Some(k) => (k.build)(params, path),
        None => {
            let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
            Err(ConfigError::new(path, format!("unknown stage \"{name}\"; allowed: {}", names.join(", "))))
        }
    }
}

/// `ccsim list`'s stage table.
pub fn catalog() -> Value {
    registry().iter().map(|k| serde_json::json!({"name": k.name, "doc": k.doc, "params": (k.params)()})).collect()
}
