//! Bulk transfer: opens its flow at `start_s` and closes it at `stop_s`.
//! The flow is infinite (ns-2's `Application/FTP`) or, with `bytes`, a
//! finite transfer that ends when its last byte is acknowledged.
use super::{AppCtx, Application};
use crate::sim::Time;

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
