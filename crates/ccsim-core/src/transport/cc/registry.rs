//! The controllers a flow may name (`cc = ...`), each with what it needs of
//! its flow, declared once beside its registration.
//!
//! Two kinds of entry answer a name:
//!
//! - the **built-ins**, one line each in [`BUILTINS`]: the controller's
//!   name, its needs, its `doc()` and its `from_params()`;
//! - **external** controllers, registered at run time by the embedding
//!   program ([`register_external`]): the Python binding registers the
//!   classes a researcher writes (`ccsim.register_controller`), and names
//!   of the form `"module:Class"` are resolved on first use by the
//!   [`set_resolver`] hook, so a scenario file can name a controller that
//!   no process registered beforehand (sweep workers, Dask workers).
//!
//! What a controller needs ([`Needs`]) plays the part of Linux's
//! `tcp_congestion_ops.flags` (`TCP_CONG_NEEDS_ECN`) and of BBR's
//! `SK_PACING_NEEDED`: the flow's defaults, its validation and the fuzz's
//! draw read it, so no list of controller names is kept anywhere else.
use super::{bbr, bbr3, bic, cubic, dctcp, fast, hstcp, htcp, ltcp, prague, reno, stcp, vegas, xcp};
use super::{CongestionControl, ControllerDoc};
use crate::scenario::kinds::{EcnFeedback, Ect};
use crate::scenario::ConfigError;
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock, RwLock};

/// What a controller needs of its flow and path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Needs {
    /// It sets the pacing rate itself from rate samples (`cong_control`,
    /// Linux `SK_PACING_NEEDED`): the flow defaults to `pacing = "rate"`
    /// and allows no other, and PRR does not apply.
    pub pacing_rate: bool,
    /// How it uses ECN; `None`: as the flow sets it.
    pub ecn: Option<EcnNeeds>,
    /// A router stage that must be on the flow's forward path (XCP's
    /// routers, `"xcp"`): the controller cannot run on a plain path, so
    /// the scenario is refused without one and the fuzz leaves it out.
    pub path_stage: Option<&'static str>,
}

impl Needs {
    /// Nothing beyond TCP: a window-based controller.
    pub const NONE: Needs = Needs { pacing_rate: false, ecn: None, path_stage: None };
}

/// How a controller uses ECN (RFC 3168 §6.1, RFC 8257 §3, RFC 9331 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnNeeds {
    /// An ECN scheme: `ecn` defaults to true and `ecn = false` is refused
    /// (DCTCP, an L4S sender).
    #[serde(default)]
    pub required: bool,
    /// The codepoint its data carry when ECN is on (`ect`'s default).
    #[serde(default)]
    pub ect: Option<Ect>,
    /// The receiver's feedback it reads when ECN is on (`ecn_feedback`'s
    /// default): the CE state per segment (`dctcp`) or a counter
    /// (`accecn`) gives the marked share that RFC 3168's latched ECE
    /// cannot.
    #[serde(default)]
    pub feedback: Option<EcnFeedback>,
    /// That feedback and no other (an L4S sender needs accurate ECN
    /// feedback, RFC 9331 §4.2).
    #[serde(default)]
    pub feedback_required: bool,
}

/// A controller as `ccsim list` shows it: its parameters, what it needs,
/// and where it comes from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ControllerEntry {
    #[serde(flatten)]
    pub doc: ControllerDoc,
    #[serde(flatten)]
    pub needs: Needs,
    /// `"built-in"`, or the embedding program's name for it (`"python"`).
    pub origin: &'static str,
}

type BuildFn = fn(&Map<String, Value>, &str) -> Result<Box<dyn CongestionControl>, ConfigError>;

/// One built-in controller.
pub struct Builtin {
    pub name: &'static str,
    pub needs: Needs,
    pub doc: fn() -> ControllerDoc,
    pub build: BuildFn,
}

macro_rules! builtin {
    ($name:literal, $needs:expr, $ty:path) => {
        Builtin {
            name: $name,
            needs: $needs,
            doc: <$ty>::doc,
            build: |p, path| Ok(Box::new(<$ty>::from_params(p, path)?)),
        }
    };
}

/// Every controller ccsim ships, in the order `ccsim list` shows them and
/// the fuzz draws them.
pub const BUILTINS: &[Builtin] = &[
    // RFC 5681's or the kernel's, by its `variant`
    Builtin { name: "reno", needs: Needs::NONE, doc: reno::Reno::doc, build: reno::build },
    builtin!("hstcp", Needs::NONE, hstcp::HighSpeed),
    builtin!("stcp", Needs::NONE, stcp::Scalable),
    builtin!("htcp", Needs::NONE, htcp::Htcp),
    builtin!("ltcp", Needs::NONE, ltcp::Ltcp),
    builtin!("bic", Needs::NONE, bic::Bic),
    // RFC 9438's or the kernel's, by its `variant`
    Builtin { name: "cubic", needs: Needs::NONE, doc: cubic::Cubic::doc, build: cubic::build },
    builtin!("dctcp", dctcp::NEEDS, dctcp::Dctcp),
    builtin!("fast", Needs::NONE, fast::Fast),
    builtin!("vegas", Needs::NONE, vegas::Vegas),
    builtin!("bbr", bbr::NEEDS, bbr::Bbr),
    builtin!("prague", prague::NEEDS, prague::Prague),
    builtin!("bbr3", bbr3::NEEDS, bbr3::Bbr3),
    builtin!("xcp", xcp::NEEDS, xcp::Xcp),
];

/// A controller from outside the engine (a Python class), as the
/// embedding program registers it.
pub trait External: Send + Sync {
    /// Its parameters and docs (`ccsim list`).
    fn doc(&self) -> ControllerDoc;
    fn needs(&self) -> Needs;
    /// The embedding program's name for where it comes from (`"python"`).
    fn origin(&self) -> &'static str;
    /// One flow's controller from the flow's `cc_params` (`path` names the
    /// flow in errors).
    fn build(&self, params: &Map<String, Value>, path: &str) -> Result<Box<dyn CongestionControl>, ConfigError>;
}

/// Resolves a name the registry does not hold (`"module:Class"`) into a
/// controller: `None` if the name is not of the resolver's form, else the
/// controller or why it could not be made.
pub type Resolver = fn(&str) -> Option<Result<Arc<dyn External>, String>>;

static EXTERNAL: RwLock<Vec<(String, Arc<dyn External>)>> = RwLock::new(Vec::new());
static RESOLVER: OnceLock<Resolver> = OnceLock::new();

/// Register `c` under `name`, replacing an earlier registration of that
/// name (a class edited and registered again in a notebook). A built-in's
/// name is refused: results must not depend on what was registered.
pub fn register_external(name: &str, c: Arc<dyn External>) -> Result<(), String> {
    if BUILTINS.iter().any(|b| b.name == name) {
        return Err(format!("\"{name}\" is a built-in controller's name; choose another"));
    }
    if name.is_empty() || name.chars().any(|ch| ch.is_whitespace() || ch.is_control()) {
        return Err(format!("{name:?} is not allowed as a name: it must be non-empty, without whitespace"));
    }
    let mut ext = EXTERNAL.write().unwrap_or_else(|e| e.into_inner());
    match ext.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = c,
        None => ext.push((name.to_string(), c)),
    }
    Ok(())
}

/// Install the hook that resolves names no one registered (once per
/// process; a second call is ignored).
pub fn set_resolver(r: Resolver) {
    let _ = RESOLVER.set(r);
}

enum Found {
    Builtin(&'static Builtin),
    External(Arc<dyn External>),
}

fn find(name: &str) -> Result<Found, String> {
    if let Some(b) = BUILTINS.iter().find(|b| b.name == name) {
        return Ok(Found::Builtin(b));
    }
    {
        let ext = EXTERNAL.read().unwrap_or_else(|e| e.into_inner());
        if let Some((_, c)) = ext.iter().find(|(n, _)| n == name) {
            return Ok(Found::External(Arc::clone(c)));
        }
    }
    match RESOLVER.get().and_then(|r| r(name)) {
        Some(Ok(c)) => {
            register_external(name, Arc::clone(&c))?;
            Ok(Found::External(c))
        }
        Some(Err(why)) => Err(why),
        None => Err(format!("unknown value \"{name}\"; allowed: {}", names().join(", "))),
    }
}

/// What the controller `name` needs; nothing for a name that resolves to
/// no controller (the flow's validation then names the error).
pub fn needs(name: &str) -> Needs {
    match find(name) {
        Ok(Found::Builtin(b)) => b.needs,
        Ok(Found::External(c)) => c.needs(),
        Err(_) => Needs::NONE,
    }
}

/// Build the controller `name` from its parameter table; `path` names the
/// flow (`flows[0]`) in errors.
pub fn build(name: &str, params: &Map<String, Value>, path: &str) -> Result<Box<dyn CongestionControl>, ConfigError> {
    match find(name).map_err(|why| ConfigError::new(format!("{path}.cc"), why))? {
        Found::Builtin(b) => (b.build)(params, path),
        Found::External(c) => c.build(params, path),
    }
}

/// Every controller a flow may name now: the built-ins, then the
/// registered ones in the order they were registered.
/// Whether built-in controller `name` takes parameter `param`.
pub fn has_param(name: &str, param: &str) -> bool {
    BUILTINS.iter().find(|b| b.name == name).is_some_and(|b| (b.doc)().params.iter().any(|p| p.name == param))
}

pub fn catalog() -> Vec<ControllerEntry> {
    let mut v: Vec<ControllerEntry> =
        BUILTINS.iter().map(|b| ControllerEntry { doc: (b.doc)(), needs: b.needs, origin: "built-in" }).collect();
    let ext = EXTERNAL.read().unwrap_or_else(|e| e.into_inner());
    v.extend(ext.iter().map(|(_, c)| ControllerEntry { doc: c.doc(), needs: c.needs(), origin: c.origin() }));
    v
}

/// The names [`catalog`] lists.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = BUILTINS.iter().map(|b| b.name.to_string()).collect();
    let ext = EXTERNAL.read().unwrap_or_else(|e| e.into_inner());
    v.extend(ext.iter().map(|(n, _)| n.clone()));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::{CcState, ParamDoc};

    #[test]
    fn each_builtin_is_named_as_it_names_itself_and_declares_its_pacing() {
        for b in BUILTINS {
            assert_eq!((b.doc)().name, b.name);
            let cc = (b.build)(&Map::new(), "flows[0]").unwrap();
            assert_eq!(cc.name(), b.name);
            assert_eq!(cc.has_cong_control(), b.needs.pacing_rate, "{}: pacing_rate vs cong_control", b.name);
        }
    }

    struct Fixed;
    struct FixedCc;
    impl CongestionControl for FixedCc {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}
        fn ssthresh(&mut self, _s: &CcState) -> f64 {
            2.0
        }
    }
    impl External for Fixed {
        fn doc(&self) -> ControllerDoc {
            ControllerDoc { name: "test-fixed", doc: "a fixed window", params: vec![] as Vec<ParamDoc> }
        }
        fn needs(&self) -> Needs {
            Needs { ecn: Some(EcnNeeds { required: true, ..Default::default() }), ..Needs::NONE }
        }
        fn origin(&self) -> &'static str {
            "test"
        }
        fn build(&self, _p: &Map<String, Value>, _path: &str) -> Result<Box<dyn CongestionControl>, ConfigError> {
            Ok(Box::new(FixedCc))
        }
    }

    #[test]
    fn an_external_controller_is_found_listed_and_cannot_take_a_builtin_name() {
        register_external("test-fixed", Arc::new(Fixed)).unwrap();
        assert!(names().iter().any(|n| n == "test-fixed"));
        assert!(needs("test-fixed").ecn.unwrap().required);
        assert_eq!(build("test-fixed", &Map::new(), "flows[0]").unwrap().name(), "fixed");
        assert!(catalog().iter().any(|e| e.origin == "test" && e.doc.name == "test-fixed"));
        assert!(register_external("cubic", Arc::new(Fixed)).unwrap_err().contains("built-in"));
        assert!(register_external("a b", Arc::new(Fixed)).is_err());
        let e = build("no-such", &Map::new(), "flows[3]").err().unwrap();
        assert_eq!(e.field, "flows[3].cc");
        assert!(e.msg.contains("unknown value \"no-such\"") && e.msg.contains("reno"), "{e}");
        assert_eq!(needs("no-such"), Needs::NONE);
    }
}
