//! Queue disciplines behind one interface, and their registry.
//!
//! Every packet a link receives goes through its discipline, idle link or
//! not: `enqueue` decides whether to admit it (and may mark it, or evict a
//! packet it holds), `dequeue` picks the next packet to serialise and may
//! touch it. Both get the link context (time, rate, own RNG stream, own
//! timer). One discipline per file; adding one is the file plus one line in
//! [`registry`].
pub mod droptail;

use super::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::scenario::{ConfigError, QueueSpec};
use crate::transport::cc::ParamDoc;
pub use droptail::{DropTail, Limit};

pub trait QueueDiscipline: Send {
    /// Offer an arriving packet; `false` means it was dropped (the link
    /// frees it). Packets dropped from inside go through `ctx.evict`.
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool;
    /// The next packet to serialise, if any.
    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId>;
    /// The discipline's timer (armed with `ctx.arm_timer`) expired.
    fn on_timer(&mut self, _ctx: &mut LinkCtx, _pkts: &mut PacketPool) {}
    /// Packets waiting (not counting the one being serialised).
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Every waiting packet, in any order (used to count in-flight packets).
    fn waiting(&self) -> Vec<PktId>;
}

/// Builds a discipline from its queue table (errors name the table's path).
pub type QueueBuilder = fn(&QueueSpec, &str) -> Result<Box<dyn QueueDiscipline>, ConfigError>;

/// A queue kind: its name, what it does, its parameters and its builder.
pub struct QueueKind {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: fn() -> Vec<ParamDoc>,
    /// Build from a spec, validating every field; `path` names the table.
    pub build: QueueBuilder,
}

/// Every queue discipline ccsim ships: one line each.
pub fn registry() -> Vec<QueueKind> {
    vec![droptail::KIND]
}

/// Build the discipline `spec.kind` (field errors name `path`).
pub fn build(spec: &QueueSpec, path: &str) -> Result<Box<dyn QueueDiscipline>, ConfigError> {
    let kinds = registry();
    match kinds.iter().find(|k| k.name == spec.kind) {
        Some(k) => (k.build)(spec, path),
        None => {
            let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
            Err(ConfigError::new(
                format!("{path}.kind"),
                format!("unknown value \"{}\"; allowed: {}", spec.kind, names.join(", ")),
            ))
        }
    }
}

/// `ccsim list`'s queue table.
pub fn catalog() -> serde_json::Value {
    registry().iter().map(|k| serde_json::json!({"name": k.name, "doc": k.doc, "params": (k.params)()})).collect()
}
