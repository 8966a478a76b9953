//! Constant-bit-rate source with optional on/off periods, over UDP.
//!
//! Non-responsive cross traffic: ns-2's `Application/Traffic/CBR` over
//! `Agent/UDP`, or `iperf -u -b RATE`. The LTCP paper's §V-B.3 (Fig 11/12)
//! runs "an iperf stream of UDP sending at 350Mbps ... at intervals of 5
//! minutes" against one LTCP flow; that is `rate_bps = 350e6`, `on_s = 300`,
//! `off_s = 300` here.
//!
//! Packets leave exactly every `size·8/rate` seconds while the source is on
//! (no jitter: iperf's UDP pacing is a fixed inter-packet gap too). Send times
//! are computed from the start of the current on-period (`t_k = t_on + k·gap`)
//! rather than accumulated, so the rate carries no rounding drift over long
//! runs. The first period after `start_s` is an on-period; a packet whose slot
//! falls at or after the end of an on-period is not sent.
use super::{AppCtx, AppKind, Application};
use crate::scenario::FlowSpec;
use crate::sim::time::from_secs;
use crate::sim::Time;

/// The registry entry (`app = "onoff"`, the default of UDP).
pub const KIND: AppKind = AppKind {
    name: "onoff",
    doc: "constant-rate datagrams at rate_bps, alternating on_s / off_s periods if given (iperf -u)",
    needs: "rate_bps",
    params: super::no_params,
    validate: super::no_check,
    fill_defaults: super::no_fill,
    workload: None,
};

const START: u8 = 0;
const STOP: u8 = 1;
const SEND: u8 = 2;

pub struct OnOff {
    flow: u32,
    start: Time,
    stop: Option<Time>,
    /// Inter-packet gap in seconds (`size·8/rate`, wire bytes as iperf's
    /// `-b` counts them).
    gap_s: f64,
    /// `(on, off)` period lengths; `None`: always on.
    on_off: Option<(Time, Time)>,
    /// Start of the current (or next) on-period.
    t_on: Time,
    /// Index of the next departure within the on-period: departure `k` is
    /// at `t_on + k·gap` (integer slots, so no drift and no double sends).
    slot: u64,
    active: bool,
}

impl OnOff {
    pub fn new(flow: u32, spec: &FlowSpec, start: Time, stop: Option<Time>) -> Self {
        let size = spec.mss_bytes + spec.header_bytes;
        let rate = spec.rate_bps.unwrap_or(f64::NAN);
        OnOff {
            flow,
            start,
            stop,
            gap_s: size as f64 * 8.0 / rate,
            on_off: spec.on_s.zip(spec.off_s).map(|(on, off)| (from_secs(on), from_secs(off))),
            t_on: 0,
            slot: 0,
            active: false,
        }
    }

    /// Send one datagram (always at a slot time of the current on-period),
    /// then schedule the next slot, or the start of the next on-period
    /// when this one is over.
    fn send(&mut self, ctx: &mut AppCtx) {
        if !self.active {
            return;
        }
        let Some(sender) = ctx.flows.sender_mut(self.flow) else { return };
        sender.write(ctx.net);
        let now = ctx.now();
        self.slot += 1;
        let mut next = self.t_on.saturating_add(from_secs(self.slot as f64 * self.gap_s)).max(now + 1);
        if let Some((on, off)) = self.on_off {
            if next >= self.t_on.saturating_add(on) {
                // At least 1 ps on: periods that round to 0 ps (a tiny
                // datagram at a rate near the 1 Pb/s bound) must still let
                // time advance.
                self.t_on = self.t_on.saturating_add(on).saturating_add(off).max(now + 1);
                self.slot = 0;
                next = self.t_on;
            }
        }
        ctx.schedule(next, SEND);
    }
}

impl Application for OnOff {
    fn name(&self) -> &'static str {
        "onoff"
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
                self.t_on = ctx.now();
                self.slot = 0;
                if let Some(s) = ctx.flows.sender_mut(self.flow) {
                    s.open(ctx.net);
                }
                self.send(ctx);
            }
            STOP => {
                // The pending send becomes a no-op.
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
