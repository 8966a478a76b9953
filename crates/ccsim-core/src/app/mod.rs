//! Applications: what opens transfers on a transport and decides when data
//! is offered. An application owns its flows' timing (start, stop, send
//! slots) and may create flows during the run (`AppCtx::open_flow`); the
//! flow table frees a transfer once it has finished.
//!
//! - [`bulk::Bulk`]: one transfer from `start_s` to `stop_s`, infinite (FTP)
//!   or of `bytes` payload bytes (a finite transfer).
//! - [`onoff::OnOff`]: a constant-rate datagram source with optional on/off
//!   periods.
//! - [`web::WebUser`]: a closed-loop web user (think, request a page of
//!   objects, repeat) opening a finite transfer per object, or per page on
//!   a persistent connection, on any transport with finite transfers; one
//!   per host pair of its `[[flows]]` entry (`app = "web"`, `count` users).
//! - [`shortflow::ShortFlowNode`]: a node sending files of Pareto size one
//!   at a time, each followed by an exponential off time (the paced-XCP
//!   paper's §4.3 short flows, after Katabi et al. 2002); one per host
//!   pair of its entry (`app = "shortflow"`, `count` nodes).
//! - [`transfer`]: what the workloads (`web`, `shortflow`) share: their
//!   transfers' transport settings and host pair, random stream, laws.
//! - [`telnet::Telnet`]: one MSS segment per exponential interval over TCP
//!   (ns-2 `Application/Telnet`), timing each segment's delivery.
//!
//! Adding an application is one file implementing [`Application`] plus one
//! line in [`for_flow`] (for scenario files) or a `Simulation::add_app` call;
//! a scenario-selectable one (`app = "..."`) also gets an [`AppKind`] line in
//! [`registry`].
pub mod bulk;
pub mod onoff;
pub mod shortflow;
pub mod telnet;
pub mod transfer;
pub mod web;

use crate::flow::{FlowLabels, FlowMeta, FlowTable, NewFlow, TransferTag};
use crate::net::Net;
use crate::scenario::params::ParamDoc;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::{EventKind, Owner, Time};
use std::sync::Arc;

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

    /// Schedule event `slot` at `at`, `delay_s` seconds from now; with
    /// ns-2's clock (`ns2_clock = true`) at ns-2's `clock_ + delay`
    /// (`TimerHandler::resched`) instead (`Ns2Clock::arm_timer`).
    pub fn schedule_after(&mut self, at: Time, delay_s: f64, slot: u8) {
        let owner = Owner::new(EventKind::AppTimer, self.app, slot);
        let at = match self.net.ns2_clock.as_deref_mut() {
            Some(clock) => clock.arm_timer(owner, delay_s),
            None => at,
        };
        self.net.events.schedule(at, owner, 0);
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
        self.flows.create(self.net, NewFlow { spec, src, dst, route, meta, transfer: None })
    }

    /// [`open_flow`](Self::open_flow) for a transfer of a workload: the
    /// flow carries `tag` and is reported in results' `transfers` table.
    pub fn open_transfer(
        &mut self,
        spec: &FlowSpec,
        entry: usize,
        (src, dst): (usize, usize),
        route: u32,
        tag: TransferTag,
    ) -> Result<u32, ConfigError> {
        let meta = describe(spec, self.new_meta(&spec.transport, entry, route));
        self.flows.create(self.net, NewFlow { spec, src, dst, route, meta, transfer: Some(tag) })
    }

    /// Facts of a flow this application creates now on `route`.
    pub fn new_meta(&self, transport: &str, entry: usize, route: u32) -> FlowMeta {
        let labels = Arc::new(FlowLabels::of(transport));
        FlowMeta::new(entry as u32, self.app, labels, self.net.route_rtt_s(route), self.net.now, None)
    }
}

/// An application as the simulation holds it: a flow's bulk transfer in
/// place, any other boxed.
///
/// Why: a run of many long-lived flows has a bulk transfer per flow, and
/// as a `Box<dyn Application>` each cost 16 bytes and a 48-byte heap
/// block; in place it is 24 bytes.
pub enum AppSlot {
    Bulk(bulk::Bulk),
    Boxed(Box<dyn Application>),
}

impl AppSlot {
    #[inline]
    pub fn get(&mut self) -> &mut dyn Application {
        match self {
            AppSlot::Bulk(b) => b,
            AppSlot::Boxed(a) => a.as_mut(),
        }
    }
}

impl From<Box<dyn Application>> for AppSlot {
    fn from(a: Box<dyn Application>) -> Self {
        AppSlot::Boxed(a)
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
    let transport = meta.labels.transport.clone();
    meta.labels = Arc::new(FlowLabels { transport, cc: cc.into(), recovery: recovery.into(), pacing: pacing.into() });
    meta
}

/// The application a scenario's `[[flows]]` entry describes for its flow
/// `flow`: `app` if given, else UDP flows are driven by an on/off source,
/// TCP flows by a bulk transfer.
/// `seed` and `warmup` are the scenario's (Telnet's own random stream and
/// measured writes).
pub fn for_flow(spec: &FlowSpec, flow: u32, (start, stop): (Time, Option<Time>), seed: u64, warmup: Time) -> AppSlot {
    match spec.app.as_deref() {
        Some("onoff") => AppSlot::Boxed(Box::new(onoff::OnOff::new(flow, spec, start, stop))),
        Some("telnet") => AppSlot::Boxed(Box::new(telnet::Telnet::new(flow, spec, start, stop, seed, warmup))),
        Some(_) => AppSlot::Bulk(bulk::Bulk::new(flow, start, stop)),
        None => match spec.transport.as_str() {
            "udp" => AppSlot::Boxed(Box::new(onoff::OnOff::new(flow, spec, start, stop))),
            _ => AppSlot::Bulk(bulk::Bulk::new(flow, start, stop)),
        },
    }
}

/// One placed flow of a `[[flows]]` entry whose application opens its own
/// transfers (a workload): its host pair, route and start.
pub struct Placement {
    /// Index of the `[[flows]]` entry.
    pub entry: usize,
    /// Index among the entry's `count`.
    pub index: u32,
    pub hosts: (usize, usize),
    pub route: u32,
    pub start: Time,
    pub seed: u64,
}

/// A scenario-selectable application (`app = "name"`), as `ccsim list
/// applications` shows it.
pub struct AppKind {
    pub name: &'static str,
    pub doc: &'static str,
    /// The flow field a transport must take for this application (checked
    /// against the transport registry, so no transport is named here):
    /// `bytes` for byte streams with finite transfers, `rate_bps` for
    /// datagram sources.
    pub needs: &'static str,
    /// Its `app_params` keys with defaults.
    pub params: fn() -> Vec<ParamDoc>,
    /// Check the entry's application fields (`app_params`, conflicts).
    pub validate: fn(&FlowSpec, &str) -> Result<(), ConfigError>,
    /// Fill `app_params` with every default (normalisation).
    pub fill_defaults: fn(&mut FlowSpec),
    /// For a workload (an application that opens its own transfers instead
    /// of driving one flow per placement): the builder of its instances,
    /// one per placement of the entry.
    pub workload: Option<fn(&FlowSpec) -> Factory>,
}

/// Builds a workload's application for each placement of its entry.
pub type Factory = Box<dyn Fn(&Placement) -> Box<dyn Application>>;

/// Every application a scenario can name: one line each.
pub fn registry() -> Vec<AppKind> {
    vec![bulk::KIND, onoff::KIND, web::KIND, shortflow::KIND, telnet::KIND]
}

fn kind_of(spec: &FlowSpec) -> Option<AppKind> {
    let name = spec.app.as_deref()?;
    registry().into_iter().find(|k| k.name == name)
}

/// Validate a flow entry's `app` and `app_params` (the transport was
/// validated first).
pub fn validate(spec: &FlowSpec, path: &str) -> Result<(), ConfigError> {
    let Some(name) = spec.app.as_deref() else {
        return match spec.app_params {
            Some(_) => Err(ConfigError::new(format!("{path}.app_params"), "given without app; set app first")),
            None => Ok(()),
        };
    };
    let kinds = registry();
    let Some(k) = kinds.iter().find(|k| k.name == name) else {
        let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
        return Err(ConfigError::new(
            format!("{path}.app"),
            format!("unknown value \"{name}\"; allowed: {}", names.join(", ")),
        ));
    };
    let transport = crate::transport::registry().into_iter().find(|t| t.name == spec.transport);
    if let Some(t) = transport {
        if !crate::scenario::fields::of(t.name).any(|f| f.name == k.needs) {
            return Err(ConfigError::new(
                format!("{path}.app"),
                format!(
                    "\"{name}\" needs a transport that takes {}; transport \"{}\" does not",
                    k.needs, spec.transport
                ),
            ));
        }
    }
    if spec.app_params.is_some() && (k.params)().is_empty() {
        return Err(ConfigError::new(
            format!("{path}.app_params"),
            format!("app \"{name}\" takes no parameters (its settings are flow fields)"),
        ));
    }
    (k.validate)(spec, path)
}

/// Normalise: fill the application's parameters with their defaults.
pub fn fill_defaults(spec: &mut FlowSpec) {
    if let Some(k) = kind_of(spec) {
        (k.fill_defaults)(spec);
    }
}

/// The builder of the applications of a workload entry (one per
/// placement, which gets no flow of its own); `None` for an entry whose
/// application drives one flow per placement.
pub fn workload(spec: &FlowSpec) -> Option<Factory> {
    kind_of(spec)?.workload.map(|f| f(spec))
}

/// `ccsim list applications`.
pub fn catalog() -> serde_json::Value {
    registry().iter().map(|k| serde_json::json!({"name": k.name, "doc": k.doc, "params": (k.params)()})).collect()
}

/// Helpers for applications without parameters of their own.
pub(crate) fn no_params() -> Vec<ParamDoc> {
    Vec::new()
}
pub(crate) fn no_check(_: &FlowSpec, _: &str) -> Result<(), ConfigError> {
    Ok(())
}
pub(crate) fn no_fill(_: &mut FlowSpec) {}
