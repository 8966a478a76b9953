//! Bulk transfer: opens its flow at `start_s` and closes it at `stop_s`.
//! The flow is infinite (ns-2's `Application/FTP`) or, with `bytes`, a
//! finite transfer that ends when its last byte is acknowledged.
use super::{AppCtx, AppKind, Application};
use crate::sim::Time;

/// The registry entry (`app = "bulk"`, the default of byte-stream transports).
pub const KIND: AppKind = AppKind {
    name: "bulk",
    doc: "one transfer per flow from start_s to stop_s: infinite (ns-2 FTP), or of bytes payload bytes",
    needs: "bytes",
    params: super::no_params,
    validate: super::no_check,
    fill_defaults: super::no_fill,
    workload: None,
};

const START: u8 = 0;
const STOP: u8 = 1;

pub struct Bulk {
    flow: u32,
    start: Time,
    stop: Option<Time>,
}

impl Bulk {
    pub fn new(flow: u32, start: Time, stop: Option<Time>) -> Self {
        Bulk { flow, start, stop }
    }
}

impl Application for Bulk {
    fn name(&self) -> &'static str {
        "bulk"
    }

    fn init(&mut self, ctx: &mut AppCtx) {
        ctx.schedule(self.start, START);
        if let Some(s) = self.stop {
            ctx.schedule(s, STOP);
        }
    }

    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8) {
        let Some(sender) = ctx.flows.sender_mut(self.flow) else { return };
        match slot {
            START => sender.open(ctx.net),
            STOP => sender.close(),
            _ => {}
        }
    }
}
