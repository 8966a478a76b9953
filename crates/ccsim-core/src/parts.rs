//! The engine's registries as the scenario's [`Parts`]: the layer that
//! joins the scenario vocabulary (at the bottom) to the queue disciplines,
//! stages, transports and applications that give it meaning. Parsing and
//! validating a scenario goes through here, so the scenario types never
//! call up into the layers built on them (docs/architecture.md,
//! "Dependencies"; `tests/integration/layers.rs` keeps it so).
use crate::scenario::{ConfigError, FlowSpec, Parts, QueueSpec, Scenario};

/// The registries of this build.
pub struct Engine;

impl Parts for Engine {
    /// A queue table: its discipline (from the queue registry) validates
    /// it, then its stages (GWA, XCP) their options.
    fn queue(&self, field: &str, q: &QueueSpec) -> Result<(), ConfigError> {
        let queue = crate::net::queue::build(q, field)?;
        let (_, gwa) = crate::net::stage::gwa::from_queue_table(q, field)?;
        let rr = q.extra.get("gwa").and_then(|v| v.as_str()) == Some("rr");
        if gwa.is_some() && rr && queue.flow_len_bytes(0).is_none() {
            return Err(ConfigError::new(
                format!("{field}.gwa"),
                format!(
                    "\"rr\" needs a discipline with per-flow queues; kind \"{}\" has one shared queue (use gwa = \
                     \"fcfs\")",
                    q.kind
                ),
            ));
        }
        if let Some(v) = &q.xcp {
            crate::net::stage::xcp::XcpParams::from_value(v, &format!("{field}.xcp"))?;
        }
        Ok(())
    }

    /// The transport checks its own fields and rejects the others'; the
    /// application checks its own.
    fn flow(&self, f: &FlowSpec, path: &str) -> Result<(), ConfigError> {
        crate::transport::validate(f, path)?;
        crate::app::validate(f, path)
    }

    fn fill_defaults(&self, f: &mut FlowSpec) {
        crate::transport::fill_defaults(f);
        crate::app::fill_defaults(f);
    }
}

/// Check every field of `sc` against this build's registries.
pub fn validate(sc: &Scenario) -> Result<(), ConfigError> {
    crate::scenario::validate::validate(sc, &Engine)
}

impl Scenario {
    /// Parse JSON, then validate.
    pub fn from_json(s: &str) -> Result<Scenario, ConfigError> {
        Scenario::from_json_with(s, &Engine)
    }

    /// Parse TOML (from its own value type, so `nan` and `inf` reach
    /// validation and are named in the error), then validate.
    pub fn from_toml(s: &str) -> Result<Scenario, ConfigError> {
        Scenario::from_toml_with(s, &Engine)
    }
}
