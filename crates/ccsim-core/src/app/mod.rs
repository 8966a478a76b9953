//! Applications: what opens transfers on a transport and decides when data
//! is offered. An application owns its flows' timing (start, stop, send
//! slots) and may create flows during the run (`AppCtx::open_flow`); the
//! flow table frees a transfer once it has finished.
//!
//! - [`bulk::Bulk`]: one transfer from `start_s` to `stop_s`, infinite (FTP)
//!   or of `bytes` payload bytes (a finite transfer).
//! - [`onoff::OnOff`]: a constant-rate datagram source with optional on/off
//!   periods.
//!
//! Adding an application is one file implementing [`Application`] plus one
//! line in [`for_flow`] (for scenario files) or a `Simulation::add_app` call.
pub mod bulk;
pub mod onoff;

use crate::flow::{FlowMeta, FlowTable, NewFlow};
use crate::net::Net;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::{EventKind, Owner, Time};

/// What an application can do when one of its events fires.
pub struct AppCtx<'a> {
    pub net: &'a mut Net,
    pub flows: &'a mut FlowTable,
    /// This application's index (the owner of its timers).
    pub app: u32,
}

impl AppCtx<'_> {
    pub fn now(&self) -> Time {
        self.net.now
    }

    /// Schedule this application's event `slot` at `at` (it always fires).
    pub fn schedule(&mut self, at: Time, slot: u8) {
        self.net.events.schedule(at, Owner::new(EventKind::AppTimer, self.app, slot), 0);
    }

    /// Create a flow now, on an existing route (a host pair's), with the
    /// transport settings of `spec` (from `[[flows]]` entry `entry`);
    /// returns its id. Open its sender to start it.
    pub fn open_flow(
        &mut self,
        spec: &FlowSpec,
        entry: usize,
        (src, dst): (usize, usize),
        route: u32,
    ) -> Result<u32, ConfigError> {
        let meta = describe(spec, self.new_meta(&spec.transport, entry, route));
        self.flows.create(self.net, NewFlow { spec, src, dst, route, meta })
    }

    /// Facts of a flow this application creates now on `route`.
    pub fn new_meta(&self, transport: &str, entry: usize, route: u32) -> FlowMeta {
        FlowMeta {
            entry,
            transport: transport.to_string(),
            cc: "none".into(),
            recovery: "none".into(),
            pacing: "none".into(),
            rtt_prop_s: self.net.route_rtt_s(route),
            start: self.net.now,
            stop: None,
            app: self.app,
        }
    }
}

pub trait Application: Send {
    fn name(&self) -> &'static str;
    /// Schedule the first events (called once, when the simulation is
    /// built, in application order).
    fn init(&mut self, ctx: &mut AppCtx);
    /// Event `slot` of this application fired.
    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8);
    /// A transfer this application opened finished and was freed.
    fn on_transfer_done(&mut self, _ctx: &mut AppCtx, _flow: u32) {}
}

/// Fill a flow's transport description (cc, recovery, pacing) from its spec.
pub(crate) fn describe(spec: &FlowSpec, mut meta: FlowMeta) -> FlowMeta {
    let [cc, recovery, pacing] = crate::transport::describe(spec);
    (meta.cc, meta.recovery, meta.pacing) = (cc, recovery, pacing);
    meta
}

/// The application a scenario's `[[flows]]` entry describes for its flow
/// `flow`: UDP flows are driven by an on/off source, TCP flows by a bulk
/// transfer.
pub fn for_flow(spec: &FlowSpec, flow: u32, start: Time, stop: Option<Time>) -> Box<dyn Application> {
    match spec.transport.as_str() {
        "udp" => Box::new(onoff::OnOff::new(flow, spec, start, stop)),
        _ => Box::new(bulk::Bulk::new(flow, start, stop)),
    }
}
