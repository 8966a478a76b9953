//! Deterministic loss of chosen data packets on a link direction: ns-2's
//! `ErrorModel/List` (`queue/errmodel.cc`, `ListErrorModel::corrupt`)
//! placed before the queue (`$ns lossmodel`), for constructed loss
//! patterns (validation traces, unit scenarios) where a random error model
//! cannot say which segment is lost.
//!
//! Set up in a queue table: `drop_list = { flow = 0, packets = [...],
//! segments = [...] }`.
//!
//! - `packets`: 0-based arrival numbers of the data packets counted here
//!   (every data packet of `flow`, retransmissions included), dropped on
//!   arrival: ns-2's `droplist` in `unit pkt`, which counts every packet
//!   reaching the model (on a link carrying only this flow's data the two
//!   counts agree).
//! - `segments`: TCP segment numbers of `flow`; a number listed k times
//!   drops the first k transmissions of that segment arriving here (so
//!   `[30, 30]` loses segment 30 and its first retransmission).
//!
//! `flow` absent: every flow's data counts. ACKs and other packets are
//! never dropped or counted. Drops count as the link's `random_losses`.
use super::{DropReason, Stage, StageKind, Verdict};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{Kind, Packet};
use crate::scenario::params::ParamDoc;
use crate::scenario::{ConfigError, QueueSpec};
use serde_json::{Map, Value};
use std::any::Any;
use std::collections::{BTreeSet, HashMap};

/// The queue-table key that sets up this stage.
pub const KEY: &str = "drop_list";

pub const KIND: StageKind = StageKind {
    name: "drop_list",
    doc: "drop chosen data packets on arrival (ns-2 ErrorModel/List); queue-table key drop_list = {flow, packets, segments}",
    params: || {
        vec![
            ParamDoc { name: "flow", default: Value::Null, doc: "flow id whose data is counted (absent: every flow)" },
            ParamDoc {
                name: "packets",
                default: Value::Array(vec![]),
                doc: "0-based arrival numbers of data packets to drop (retransmissions counted)",
            },
            ParamDoc {
                name: "segments",
                default: Value::Array(vec![]),
                doc: "segment numbers to drop; listed k times: the first k transmissions",
            },
        ]
    },
    build: |m, path| Ok(Box::new(DropList::from_table(m, path)?)),
};

pub struct DropList {
    flow: Option<u32>,
    /// Arrival numbers still to drop.
    packets: BTreeSet<u64>,
    /// Segment -> transmissions of it still to drop.
    segments: HashMap<u64, u32>,
    /// Data packets counted so far.
    count: u64,
}

impl DropList {
    /// Read `{flow, packets, segments}`; errors name `path` and the key.
    pub fn from_table(m: &Map<String, Value>, path: &str) -> Result<Self, ConfigError> {
        let field = |k: &str| format!("{path}.{k}");
        for k in m.keys() {
            if !["flow", "packets", "segments"].contains(&k.as_str()) {
                return Err(ConfigError::new(field(k), "unknown parameter; allowed: flow, packets, segments"));
            }
        }
        let flow = match m.get("flow") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().filter(|&f| f <= u32::MAX as u64).ok_or_else(|| {
                ConfigError::new(field("flow"), format!("{v} is not allowed; expected a flow id (an integer >= 0)"))
            })? as u32),
        };
        let list = |k: &str| -> Result<Vec<u64>, ConfigError> {
            match m.get(k) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_u64().ok_or_else(|| {
                            ConfigError::new(field(k), format!("{v} is not allowed; expected integers >= 0"))
                        })
                    })
                    .collect(),
                Some(v) => {
                    Err(ConfigError::new(field(k), format!("{v} is not allowed; expected a list of integers >= 0")))
                }
            }
        };
        let packets: BTreeSet<u64> = list("packets")?.into_iter().collect();
        let mut segments = HashMap::new();
        for s in list("segments")? {
            *segments.entry(s).or_insert(0) += 1;
        }
        if packets.is_empty() && segments.is_empty() {
            return Err(ConfigError::new(path, "needs a non-empty packets or segments list"));
        }
        Ok(DropList { flow, packets, segments, count: 0 })
    }
}

/// Split a queue table into the discipline's part and this stage, if the
/// table has a `drop_list` (errors name `path.drop_list`).
pub fn from_queue_table(q: &QueueSpec, path: &str) -> Result<(QueueSpec, Option<Box<dyn Stage>>), ConfigError> {
    let mut rest = q.clone();
    match rest.extra.remove(KEY) {
        None => Ok((rest, None)),
        Some(Value::Object(m)) => {
            let d = DropList::from_table(&m, &format!("{path}.{KEY}"))?;
            Ok((rest, Some(Box::new(d))))
        }
        Some(v) => Err(ConfigError::new(
            format!("{path}.{KEY}"),
            format!("{v} is not allowed; expected a table {{flow, packets, segments}}"),
        )),
    }
}

impl Stage for DropList {
    fn name(&self) -> &'static str {
        "drop_list"
    }

    fn acts_on_dequeue(&self) -> bool {
        false
    }

    fn on_enqueue(&mut self, _ctx: &mut LinkCtx, pkt: &mut Packet) -> Verdict {
        if pkt.kind != Kind::Data || self.flow.is_some_and(|f| f != pkt.flow) {
            return Verdict::Pass;
        }
        let n = self.count;
        self.count += 1;
        if self.packets.remove(&n) {
            return Verdict::Drop(DropReason::Random);
        }
        if let Some(seq) = pkt.tcp().map(|h| h.seq) {
            if let Some(left) = self.segments.get_mut(&seq) {
                *left -= 1;
                if *left == 0 {
                    self.segments.remove(&seq);
                }
                return Verdict::Drop(DropReason::Random);
            }
        }
        Verdict::Pass
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(v: Value) -> Result<DropList, ConfigError> {
        DropList::from_table(v.as_object().unwrap(), "q.drop_list")
    }

    #[test]
    fn bad_tables_name_the_field() {
        let e = table(json!({"packets": [1, -2]})).err().unwrap();
        assert!(e.to_string().contains("q.drop_list.packets"), "{e}");
        let e = table(json!({"segment": [1]})).err().unwrap();
        assert!(e.to_string().contains("allowed: flow, packets, segments"), "{e}");
        let e = table(json!({"flow": 0})).err().unwrap();
        assert!(e.to_string().contains("non-empty"), "{e}");
        assert!(table(json!({"flow": 1, "segments": [3, 3]})).is_ok());
    }
}
