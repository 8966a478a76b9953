//! Bulk transfer: opens its flow at `start_s` and closes it at `stop_s`.
//! The flow is infinite (ns-2's `Application/FTP`) or, with `bytes`, a
//! finite transfer that ends when its last byte is acknowledged.
use super::{AppCtx, AppKind, Application};
use crate::sim::Time;
use nonmax::{NonMaxU32, NonMaxU64};

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

/// 24 bytes, kept in place in the simulation's applications
/// ([`super::AppSlot`]): a many-flow run has one per flow.
pub struct Bulk {
    /// A `NonMaxU32`, so that [`super::AppSlot`] can tell its variants
    /// apart by this field's one invalid value, with no tag of its own.
    flow: NonMaxU32,
    start: Time,
    stop: Option<NonMaxU64>,
}

impl Bulk {
    pub fn new(flow: u32, start: Time, stop: Option<Time>) -> Self {
        let flow = NonMaxU32::new(flow).expect("flow ids are below u32::MAX");
        let stop = stop.map(crate::sim::time::nonmax);
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
            ctx.schedule(s.get(), STOP);
        }
    }

    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8) {
        let Some(sender) = ctx.flows.sender_mut(self.flow.get()) else { return };
        match slot {
            START => sender.open(ctx.net),
            STOP => sender.close(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::AppSlot;

    /// A flow's bulk transfer costs 24 bytes in place, with no tag.
    #[test]
    fn a_bulk_transfer_stays_in_place_and_small() {
        assert_eq!(std::mem::size_of::<super::Bulk>(), 24);
        assert_eq!(std::mem::size_of::<AppSlot>(), 24, "AppSlot tells its variants apart by the flow's niche");
    }
}
