//! Congestion controllers written in Python (`ccsim.Controller`).
//!
//! A Python class becomes an entry of the engine's controller registry
//! ([`ccsim_core::transport::cc::registry`]): registered by name
//! (`ccsim.register_controller`) or resolved from a `"module:Class"` name
//! on first use, so sweep workers and Dask workers find it by importing
//! the module. Each flow gets an instance (`Class(**cc_params)`), and the
//! engine calls the hooks the class overrides, on the thread that runs the
//! simulation, taking the GIL for each call: the run itself releases it
//! (`Simulation.run_until`), so other Python threads keep going.
//!
//! The hooks see the flow's state through one [`FlowState`] object per
//! flow, refreshed before each call; what a hook writes to `cwnd`,
//! `ssthresh` or `pacing_rate` is read back into the engine afterwards.
//! Hooks the class does not override are never called, so a controller
//! pays only for what it uses.
//!
//! An exception in a hook stops the run: the first one is kept with the
//! flow, the simulated time and the hook ([`take_failure`]); every later
//! hook call of the run returns at once, leaving the state as it is, and
//! `Simulation.run_until` raises `ccsim.ControllerError` from it when the
//! call returns.
use ccsim_core::scenario::ConfigError;
use ccsim_core::transport::cc::registry::{self, External, Needs};
use ccsim_core::transport::cc::{
    AckInfo, CaState, CcEvent, CcState, CongControlOut, CongestionControl, ControllerDoc, FlowInfo, ParamDoc,
    RateSample,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// pyo3 0.22's `create_exception!` tests a `gil-refs` feature this crate
/// does not declare, hence the allowance.
mod errors {
    #![allow(unexpected_cfgs)]
    pyo3::create_exception!(
        ccsim,
        ControllerError,
        pyo3::exceptions::PyRuntimeError,
        "A Python controller raised: the run stopped (its cause holds the traceback)."
    );
}
pub use errors::ControllerError;

/// The flow's state as a hook sees it (Linux's `struct tcp_sock` in
/// miniature): `cwnd`, `ssthresh` and `pacing_rate` may be set; the rest
/// is read-only.
#[pyclass(module = "ccsim._core", name = "FlowState")]
pub struct FlowState {
    /// Congestion window, segments.
    #[pyo3(get, set)]
    cwnd: f64,
    /// Slow-start threshold, segments.
    #[pyo3(get, set)]
    ssthresh: f64,
    /// Pacing rate, payload bytes per second (0: none).
    #[pyo3(get, set)]
    pacing_rate: f64,
    /// The largest cwnd the transport allows.
    #[pyo3(get)]
    max_cwnd: f64,
    /// Simulated time, integer picoseconds.
    #[pyo3(get)]
    now: u64,
    /// Simulated time, seconds (the engine's own conversion of `now`).
    #[pyo3(get)]
    now_s: f64,
    /// Segments sent and not cumulatively acknowledged (FlightSize).
    #[pyo3(get)]
    flight: u64,
    /// Smoothed RTT, seconds (None before the first sample).
    #[pyo3(get)]
    srtt_s: Option<f64>,
    /// Smallest RTT seen, seconds.
    #[pyo3(get)]
    min_rtt_s: Option<f64>,
    /// Payload bytes per segment.
    #[pyo3(get)]
    mss_bytes: u32,
    /// Header bytes per segment on the wire.
    #[pyo3(get)]
    header_bytes: u32,
    /// The flow's id (None while a scenario is only validated).
    #[pyo3(get)]
    flow: Option<u32>,
    /// The receiver feeds back the CE state per segment or a CE count
    /// (DCTCP's or AccECN's), not RFC 3168's latched ECE.
    #[pyo3(get)]
    ecn_precise: bool,
    /// The flow recovers with SACK.
    #[pyo3(get)]
    sack: bool,
    /// A seed from the scenario's seed and the flow, for a controller's own
    /// `random.Random` (rate-paced controllers; None for the others).
    #[pyo3(get)]
    random_seed: Option<u64>,
}

#[pymethods]
impl FlowState {
    /// cwnd < ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn __repr__(&self) -> String {
        format!(
            "FlowState(flow={:?}, now_s={}, cwnd={}, ssthresh={}, flight={}, srtt_s={:?}, pacing_rate={})",
            self.flow, self.now_s, self.cwnd, self.ssthresh, self.flight, self.srtt_s, self.pacing_rate
        )
    }
}

impl FlowState {
    fn load(&mut self, s: &CcState) {
        self.cwnd = s.cwnd;
        self.ssthresh = s.ssthresh;
        self.pacing_rate = s.pacing_rate;
        self.max_cwnd = s.max_cwnd;
        self.now = s.now;
        self.now_s = s.now_s();
        self.flight = s.flight;
        self.srtt_s = s.srtt_s;
        self.min_rtt_s = s.min_rtt_s;
        self.mss_bytes = s.mss_bytes;
        self.header_bytes = s.header_bytes;
    }

    fn store(&self, s: &mut CcState) {
        s.cwnd = self.cwnd;
        s.ssthresh = self.ssthresh;
        s.pacing_rate = self.pacing_rate;
    }
}

/// What one ACK told the sender (`on_ack`; Linux `in_ack_event`).
#[pyclass(module = "ccsim._core", name = "Ack", get_all)]
#[derive(Default)]
pub struct PyAck {
    /// Segments newly acknowledged by the cumulative ACK (0: a duplicate).
    acked: u64,
    /// It signalled congestion (ECE, or a grown AccECN count).
    ece: bool,
    /// Segments it reports CE-marked.
    ce: u64,
    /// SND.UNA after it.
    una: u64,
    /// SND.NXT.
    snd_nxt: u64,
}

/// One ACK's delivery-rate sample (`cong_control`; Linux `struct
/// rate_sample`), in segments and seconds.
#[pyclass(module = "ccsim._core", name = "RateSample", get_all)]
#[derive(Default)]
pub struct PyRateSample {
    /// Segments delivered over `interval_s`; None: no valid sample.
    delivered: Option<u64>,
    interval_s: f64,
    prior_delivered: u64,
    is_app_limited: bool,
    acked_sacked: u64,
    losses: u64,
    prior_in_flight: u64,
    in_flight: u64,
    total_delivered: u64,
    total_delivered_ce: u64,
    ece_delta: u64,
    tx_in_flight: u64,
    lost: u64,
    rtt_s: Option<f64>,
    /// "open", "recovery" or "loss" (Linux `tcp_ca_state`).
    ca_state: &'static str,
    conn_app_limited: bool,
}

#[pymethods]
impl PyRateSample {
    /// The sample's delivery rate in segments per second, or None.
    fn rate_pkts_per_s(&self) -> Option<f64> {
        self.delivered.filter(|_| self.interval_s > 0.0).map(|d| d as f64 / self.interval_s)
    }
}

/// The hooks a class overrides (its declaration's `hooks`).
#[derive(Clone, Copy, Debug, Default)]
struct Hooks {
    init: bool,
    cong_avoid: bool,
    ssthresh: bool,
    ssthresh_ecn: bool,
    pkts_acked: bool,
    on_ack: bool,
    cwnd_event: bool,
    cong_control: bool,
    ecn_alpha: bool,
}

impl Hooks {
    fn from_names(names: &[String]) -> Result<Hooks, String> {
        let mut h = Hooks::default();
        for n in names {
            match n.as_str() {
                "init" => h.init = true,
                "cong_avoid" => h.cong_avoid = true,
                "ssthresh" => h.ssthresh = true,
                "ssthresh_ecn" => h.ssthresh_ecn = true,
                "pkts_acked" => h.pkts_acked = true,
                "on_ack" => h.on_ack = true,
                "cwnd_event" => h.cwnd_event = true,
                "cong_control" => h.cong_control = true,
                "ecn_alpha" => h.ecn_alpha = true,
                other => return Err(format!("unknown hook {other:?}")),
            }
        }
        Ok(h)
    }
}

/// A registered Python class: its declaration and the class to instantiate.
struct PyExternal {
    name: &'static str,
    class: Py<PyAny>,
    doc: &'static str,
    params: Vec<(&'static str, Value, &'static str)>,
    needs: Needs,
    hooks: Hooks,
}

/// The declaration `ccsim.controller._declare` makes of a class (JSON).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Declaration {
    doc: String,
    params: Vec<(String, Value, String)>,
    pacing_rate: bool,
    ecn: Option<registry::EcnNeeds>,
    hooks: Vec<String>,
}

/// A string kept for the life of the process: a controller's name, doc and
/// parameter names, which the registry hands out as `&'static str`. One
/// copy per registration, and registrations are few.
fn keep(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl PyExternal {
    fn new(name: &str, class: Py<PyAny>, decl_json: &str) -> Result<PyExternal, String> {
        let d: Declaration = serde_json::from_str(decl_json).map_err(|e| format!("declaration of {name:?}: {e}"))?;
        let hooks = Hooks::from_names(&d.hooks)?;
        Ok(PyExternal {
            name: keep(name.to_string()),
            class,
            doc: keep(d.doc),
            params: d.params.into_iter().map(|(n, v, doc)| (keep(n), v, keep(doc))).collect(),
            needs: Needs { pacing_rate: d.pacing_rate, ecn: d.ecn, path_stage: None },
            hooks,
        })
    }

    /// `cc_params` checked against the declared parameters: every key
    /// declared, each value of its default's JSON type (numbers for
    /// numbers); the defaults fill the rest.
    fn params(&self, given: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, ConfigError> {
        let at = |k: &str| format!("{path}.cc_params.{k}");
        let names: Vec<&str> = self.params.iter().map(|p| p.0).collect();
        for (k, v) in given {
            let Some((_, default, _)) = self.params.iter().find(|p| p.0 == k) else {
                let allowed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(ConfigError::new(
                    at(k),
                    format!("unknown parameter of \"{}\"; allowed: {allowed}", self.name),
                ));
            };
            let same_kind = match default {
                Value::Number(_) => v.is_number(),
                Value::Bool(_) => v.is_boolean(),
                Value::String(_) => v.is_string(),
                Value::Null => true,
                _ => v.is_array() == default.is_array() && v.is_object() == default.is_object(),
            };
            if !same_kind {
                return Err(ConfigError::new(
                    at(k),
                    format!("{v} is not allowed; must be of the default's type (default {default})"),
                ));
            }
        }
        let mut all = Map::new();
        for (k, default, _) in &self.params {
            all.insert(k.to_string(), given.get(*k).unwrap_or(default).clone());
        }
        Ok(all)
    }
}

impl External for PyExternal {
    fn doc(&self) -> ControllerDoc {
        ControllerDoc {
            name: self.name,
            doc: self.doc,
            params: self.params.iter().map(|(n, v, d)| ParamDoc { name: n, default: v.clone(), doc: d }).collect(),
        }
    }

    fn needs(&self) -> Needs {
        self.needs
    }

    fn origin(&self) -> &'static str {
        "python"
    }

    fn build(&self, params: &Map<String, Value>, path: &str) -> Result<Box<dyn CongestionControl>, ConfigError> {
        let params = self.params(params, path)?;
        Python::with_gil(|py| {
            let kwargs = PyDict::new_bound(py);
            for (k, v) in &params {
                kwargs
                    .set_item(k, json_to_py(py, v))
                    .map_err(|e| ConfigError::new(format!("{path}.cc"), e.to_string()))?;
            }
            let obj = self.class.call_bound(py, (), Some(&kwargs)).map_err(|e| {
                ConfigError::new(
                    format!("{path}.cc"),
                    format!("\"{}\": the class raised {}", self.name, describe(py, &e)),
                )
            })?;
            let state =
                Py::new(py, FlowState::blank()).map_err(|e| ConfigError::new(format!("{path}.cc"), e.to_string()))?;
            let ack =
                Py::new(py, PyAck::default()).map_err(|e| ConfigError::new(format!("{path}.cc"), e.to_string()))?;
            let rs = match self.hooks.cong_control {
                true => Some(
                    Py::new(py, PyRateSample::default())
                        .map_err(|e| ConfigError::new(format!("{path}.cc"), e.to_string()))?,
                ),
                false => None,
            };
            Ok(Box::new(PyCc { name: self.name, obj, state, ack, rs, hooks: self.hooks, started: false })
                as Box<dyn CongestionControl>)
        })
    }
}

impl FlowState {
    fn blank() -> FlowState {
        FlowState {
            cwnd: 0.0,
            ssthresh: 0.0,
            pacing_rate: 0.0,
            max_cwnd: 0.0,
            now: 0,
            now_s: 0.0,
            flight: 0,
            srtt_s: None,
            min_rtt_s: None,
            mss_bytes: 0,
            header_bytes: 0,
            flow: None,
            ecn_precise: false,
            sack: false,
            random_seed: None,
        }
    }
}

fn json_to_py(py: Python<'_>, v: &Value) -> PyObject {
    match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py(py),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into_py(py),
            (None, Some(f)) => f.into_py(py),
            _ => py.None(),
        },
        Value::String(s) => s.into_py(py),
        Value::Array(a) => a.iter().map(|x| json_to_py(py, x)).collect::<Vec<_>>().into_py(py),
        Value::Object(o) => {
            let d = PyDict::new_bound(py);
            for (k, x) in o {
                let _ = d.set_item(k, json_to_py(py, x));
            }
            d.into_any().unbind()
        }
    }
}

/// `Type: message` of a Python exception.
fn describe(py: Python<'_>, e: &PyErr) -> String {
    let ty = e.get_type_bound(py).qualname().map(|q| q.to_string()).unwrap_or_else(|_| "Exception".into());
    format!("{ty}: {}", e.value_bound(py))
}

/// The first exception of a run on this thread.
struct Failure {
    err: PyErr,
    controller: &'static str,
    flow: Option<u32>,
    hook: &'static str,
    /// None where the hook has no state (`ecn_alpha`).
    now_s: Option<f64>,
}

thread_local! {
    static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

fn failed() -> bool {
    FAILURE.with(|f| f.borrow().is_some())
}

/// The exception a Python controller raised since the last call, as the
/// `ControllerError` to raise (its `__cause__` the controller's own).
pub fn take_failure(py: Python<'_>) -> Option<PyErr> {
    let f = FAILURE.with(|f| f.borrow_mut().take())?;
    let flow = f.flow.map_or_else(|| "?".to_string(), |x| x.to_string());
    let at = f.now_s.map_or_else(String::new, |t| format!(" at t = {t:.6} s"));
    let err = ControllerError::new_err(format!(
        "controller \"{}\" of flow {flow} raised in {}{at}: {}",
        f.controller,
        f.hook,
        describe(py, &f.err)
    ));
    err.set_cause(py, Some(f.err));
    Some(err)
}

/// One flow's Python controller.
struct PyCc {
    name: &'static str,
    obj: Py<PyAny>,
    state: Py<FlowState>,
    ack: Py<PyAck>,
    /// The rate sample `cong_control` sees (made only for a class with it).
    rs: Option<Py<PyRateSample>>,
    hooks: Hooks,
    /// `init` has run (before the first other hook, with the state then).
    started: bool,
}

impl PyCc {
    /// Call hook `hook` with the state refreshed from `s` and `args` after
    /// it; write the state back into `s`; `out` of the hook's return value.
    /// `None` once any controller of the run has failed (or this call
    /// fails). The arguments are made and the result read under the same
    /// hold of the GIL as the call.
    fn call<A, O, R>(&mut self, s: &mut CcState, hook: &'static str, args: A, out: O) -> Option<R>
    where
        A: FnOnce(&Self, Python<'_>) -> Vec<PyObject>,
        O: FnOnce(&Self, Python<'_>, Bound<'_, PyAny>) -> R,
    {
        if failed() {
            return None;
        }
        Python::with_gil(|py| {
            self.state.borrow_mut(py).load(s);
            if !self.started {
                self.started = true;
                if self.hooks.init {
                    if let Err(e) = self.obj.call_method1(py, pyo3::intern!(py, "init"), (self.state.clone_ref(py),)) {
                        self.fail(py, e, "init", Some(s));
                        return None;
                    }
                }
            }
            let mut all = vec![self.state.clone_ref(py).into_any()];
            all.extend(args(self, py));
            let args = PyTuple::new_bound(py, all);
            match self.obj.call_method1(py, pyo3::types::PyString::intern_bound(py, hook), args) {
                Ok(r) => {
                    self.state.borrow(py).store(s);
                    Some(out(self, py, r.into_bound(py)))
                }
                Err(e) => {
                    self.fail(py, e, hook, Some(s));
                    None
                }
            }
        })
    }

    fn fail(&self, py: Python<'_>, e: PyErr, hook: &'static str, s: Option<&CcState>) {
        let flow = self.state.borrow(py).flow;
        let now_s = s.map(CcState::now_s);
        FAILURE.with(|f| {
            f.borrow_mut().get_or_insert(Failure { err: e, controller: self.name, flow, hook, now_s });
        });
    }

    /// A hook's float result (ssthresh), or `fallback` if it failed or
    /// returned something else.
    fn float(&mut self, s: &CcState, hook: &'static str, fallback: f64) -> f64 {
        let mut st = s.clone();
        let read = |me: &Self, py: Python<'_>, r: Bound<'_, PyAny>| match r.extract::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                let e = PyValueError::new_err(format!(
                    "{hook} must return a finite number of segments, returned {}",
                    r.repr().map(|x| x.to_string()).unwrap_or_default()
                ));
                me.fail(py, e, hook, Some(s));
                fallback
            }
        };
        self.call(&mut st, hook, |_, _| Vec::new(), read).unwrap_or(fallback)
    }
}

fn event_name(ev: CcEvent) -> &'static str {
    match ev {
        CcEvent::RecoveryStart => "recovery_start",
        CcEvent::RecoveryEnd => "recovery_end",
        CcEvent::Timeout => "timeout",
        CcEvent::LossEnd => "loss_end",
        CcEvent::EcnEcho => "ecn_echo",
        CcEvent::CwrEnd => "cwr_end",
        CcEvent::TxStart => "tx_start",
        CcEvent::Undo => "undo",
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if self.hooks.cong_avoid {
            self.call(s, "cong_avoid", |_, py| vec![acked.into_py(py)], |_, _, _| ());
        }
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        if self.hooks.ssthresh {
            self.float(s, "ssthresh", s.ssthresh)
        } else {
            s.ssthresh
        }
    }

    fn ssthresh_ecn(&mut self, s: &CcState) -> f64 {
        if self.hooks.ssthresh_ecn {
            self.float(s, "ssthresh_ecn", s.ssthresh)
        } else {
            self.ssthresh(s)
        }
    }

    fn pkts_acked(&mut self, s: &mut CcState, acked: u64, rtt_s: Option<f64>) {
        if self.hooks.pkts_acked {
            self.call(s, "pkts_acked", |_, py| vec![acked.into_py(py), rtt_s.into_py(py)], |_, _, _| ());
        }
    }

    fn on_ack(&mut self, s: &mut CcState, a: AckInfo) {
        if self.hooks.on_ack {
            let ack = |me: &Self, py: Python<'_>| {
                *me.ack.borrow_mut(py) = PyAck { acked: a.acked, ece: a.ece, ce: a.ce, una: a.una, snd_nxt: a.snd_nxt };
                vec![me.ack.clone_ref(py).into_any()]
            };
            self.call(s, "on_ack", ack, |_, _, _| ());
        }
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        if self.hooks.cwnd_event {
            let event = |_: &Self, py: Python<'_>| {
                vec![pyo3::types::PyString::intern_bound(py, event_name(ev)).into_any().unbind()]
            };
            self.call(s, "cwnd_event", event, |_, _, _| ());
        }
    }

    fn ecn_alpha(&self) -> Option<f64> {
        if !self.hooks.ecn_alpha || failed() {
            return None;
        }
        Python::with_gil(|py| {
            let r =
                self.obj.call_method0(py, pyo3::intern!(py, "ecn_alpha")).and_then(|r| r.extract::<Option<f64>>(py));
            r.unwrap_or_else(|e| {
                self.fail(py, e, "ecn_alpha", None);
                None
            })
        })
    }

    fn has_cong_control(&self) -> bool {
        self.hooks.cong_control
    }

    fn cong_control(&mut self, s: &mut CcState, rs: &RateSample) -> CongControlOut {
        let sample = PyRateSample {
            delivered: rs.delivered,
            interval_s: rs.interval_s,
            prior_delivered: rs.prior_delivered,
            is_app_limited: rs.is_app_limited,
            acked_sacked: rs.acked_sacked,
            losses: rs.losses,
            prior_in_flight: rs.prior_in_flight,
            in_flight: rs.in_flight,
            total_delivered: rs.total_delivered,
            total_delivered_ce: rs.total_delivered_ce,
            ece_delta: rs.ece_delta,
            tx_in_flight: rs.tx_in_flight,
            lost: rs.lost,
            rtt_s: rs.rtt_s,
            ca_state: match rs.ca_state {
                CaState::Open => "open",
                CaState::Recovery => "recovery",
                CaState::Loss => "loss",
            },
            conn_app_limited: rs.conn_app_limited,
        };
        let args = |me: &Self, py: Python<'_>| {
            let obj = me.rs.as_ref().expect("made at build for a class with cong_control");
            *obj.borrow_mut(py) = sample;
            vec![obj.clone_ref(py).into_any()]
        };
        let mark = self.call(s, "cong_control", args, |_, _, r| r.is_truthy().unwrap_or(false));
        CongControlOut { mark_app_limited: mark.unwrap_or(false) }
    }

    fn set_flow_info(&mut self, f: FlowInfo) {
        Python::with_gil(|py| {
            let mut st = self.state.borrow_mut(py);
            st.flow = f.flow;
            st.ecn_precise = f.ecn_precise;
            st.sack = f.sack;
        });
    }

    fn seed_rng(&mut self, mut rng: ccsim_core::sim::rng::Rng) {
        use rand::RngCore;
        let seed = rng.next_u64();
        Python::with_gil(|py| self.state.borrow_mut(py).random_seed = Some(seed));
    }
}

/// `ccsim.register_controller`'s engine half: `decl_json` is the class's
/// declaration (`ccsim.controller._declare`).
#[pyfunction]
pub fn register_controller(name: &str, class: Py<PyAny>, decl_json: &str) -> PyResult<()> {
    let ext = PyExternal::new(name, class, decl_json).map_err(PyValueError::new_err)?;
    registry::register_external(name, Arc::new(ext)).map_err(PyValueError::new_err)
}

/// Resolve `"module:Class"` names through `ccsim.controller._resolve`,
/// which imports the module and declares the class.
fn resolve(name: &str) -> Option<Result<Arc<dyn External>, String>> {
    if !name.contains(':') {
        return None;
    }
    Some(Python::with_gil(|py| {
        let found = py
            .import_bound("ccsim.controller")
            .and_then(|m| m.call_method1("_resolve", (name,)))
            .and_then(|r| r.extract::<(Py<PyAny>, String)>());
        match found {
            Ok((class, decl)) => PyExternal::new(name, class, &decl).map(|e| Arc::new(e) as Arc<dyn External>),
            Err(e) => Err(format!("\"{name}\": {}", describe(py, &e))),
        }
    }))
}

pub fn install(m: &Bound<'_, PyModule>) -> PyResult<()> {
    registry::set_resolver(resolve);
    m.add_class::<FlowState>()?;
    m.add_class::<PyAck>()?;
    m.add_class::<PyRateSample>()?;
    m.add("ControllerError", m.py().get_type_bound::<ControllerError>())?;
    m.add_function(wrap_pyfunction!(register_controller, m)?)?;
    Ok(())
}
