//! Closed-loop web users: the finite-flow workload of the E-TCP paper's
//! §VI-H (Fig 16/17), after the UNC model of Smith et al. (SIGMETRICS 2001)
//! as used by Le et al. (SIGCOMM 2003).
//!
//! A `[[flows]]` entry with `app = "web"` and `count = N` places N users,
//! each on its own host pair and route (on a dumbbell, its own edge links,
//! so `rtt_range_s` with `rtt_step_s` gives each user its own round-trip
//! time). Each user runs its own [`WebUser`]; the entry's transport fields
//! (`transport`, `cc`, `recovery`, `pacing`, ...) apply to every transfer,
//! which is a finite transfer of `bytes` (so any transport that takes
//! `bytes` works, none is named here).
//!
//! A user, from its start time:
//!
//! 1. thinks for an exponential time (mean `think_mean_s`);
//! 2. requests a page of `N` objects, each of `size_factor ×` a
//!    heavy-tailed size; the page goes on
//!    - a **persistent connection** (HTTP/1.1) if one is open, or if a new
//!      connection is persistent (probability `persistent`; it then carries
//!      this and the next `P - 1` page requests): the page's objects are
//!      sent back to back on that connection, i.e. as **one transfer** of
//!      their summed size, with no new-connection slow start between them;
//!    - otherwise **one connection per object** (HTTP/1.0): the top-level
//!      object first, then the embedded objects, at most `parallel` at a
//!      time, each a transfer of its own (own connection, own slow start);
//! 3. when the page's last transfer has finished (acknowledged, and none of
//!    its packets left in the network), goes back to 1.
//!
//! Between two pages of a persistent connection the user thinks, so the
//! connection is idle; the next page is then a new transfer on the same
//! host pair. This is RFC 5681 §4.1's restart after an idle period longer
//! than the RTO (Linux's default `tcp_slow_start_after_idle`): the window
//! starts again from the initial window, which is what a new transfer does.
//! (The transport's RTT estimate is not carried over; think times are
//! seconds, far above any RTO, so the window part is what matters.)
//!
//! Distributions (every parameter is in `app_params`, defaults below). The
//! UNC model's published empirical CDFs are not available offline, so
//! documented parametric stand-ins are used:
//!
//! - **think time**: exponential, mean `think_mean_s` = 20 s. The paper
//!   states that its size distribution with 1500 users loads a 10 Mb/s
//!   link to about 98%; with the object and page laws below (E[page] =
//!   1.66 objects × 10,000 B = 16.6 kB) that needs a cycle of
//!   1500 · 16.6 kB · 8 / 9.8 Mb/s ≈ 20.3 s, i.e. a 20 s mean think time
//!   (the response time is a few RTTs).
//! - **object size** (`object_dist = "pareto2"`): ns-2's
//!   `RandomVariable/ParetoII` (Lomax), `X = s·(U^(-1/α) - 1)`, `s =
//!   mean·(α - 1)`, with ns-2's `web-traffic.tcl` example values: shape α =
//!   `object_shape` = 1.2 (infinite variance) and mean 10 packets, here
//!   `object_mean_bytes` = 10,000 B (1000-byte segments). `"pareto"` is
//!   ns-2's `RandomVariable/Pareto` (type I, support from `mean·(α-1)/α`).
//!   Optionally capped at `object_max_bytes` (before the factor). A
//!   transfer's bytes are `max(1, ceil(size_factor · X))`.
//! - **objects per page**: PackMime-HTTP's form (ns-2 `packmime_ranvar.cc`,
//!   `PackMimeHTTPSingleObj` and `PackMimeHTTPObjsPerPage`): 1 with
//!   probability `objects_p1` = 0.69, else `1 + ceil(W)` (at least 2), W
//!   Weibull with shape `objects_shape` = 1 and scale `objects_scale` =
//!   1.578. Mean 1.66. With PackMime's shape 1 the tail beyond one object
//!   is geometric; `objects_shape < 1` makes it heavy (stretched
//!   exponential).
//! - **pages per persistent connection**: PackMime's
//!   `PackMimeHTTPNumPages`, the same form with `pages_p1` = 0.82,
//!   `pages_shape` = 1, `pages_scale` = 0.417.
//! - **persistent share**: `persistent` = 0.15, the paper's "fifteen
//!   percent of all new connections" (counted over the connections that
//!   start a page; PackMime's own fit is 0.09).
//!
//! Every user draws from its own random stream (`Stream::App`, keyed by
//! entry and user), so one seed gives the same transfers, and adding users
//! or entries does not change another user's draws.
pub use super::transfer::SizeLaw;
use super::transfer::{self, above_one, at_least_one, unit_open0, Endpoint};
use super::{AppCtx, AppKind, Application, Factory, Placement};
use crate::flow::TransferTag;
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::validate::positive;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::math;
use crate::sim::rng::Rng;
use crate::sim::time::from_secs;
use crate::sim::Time;
use rand::Rng as _;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The registry entry (`app = "web"`).
pub const KIND: AppKind = AppKind {
    name: "web",
    doc: "closed-loop web users (count = users, one host pair each): exponential think time, then a page of \
          heavy-tailed objects, one transfer per object or per page on a persistent connection (E-TCP Fig 17)",
    needs: "bytes",
    params: params_doc,
    validate: |spec, path| {
        transfer::no_bytes(spec, path, "web", "object sizes (object_mean_bytes, size_factor, ...)")?;
        WebConfig::from_spec(spec, path).map(|_| ())
    },
    fill_defaults: |spec| {
        if let Ok(c) = WebConfig::from_spec(spec, "flow") {
            spec.app_params = Some(c.to_params());
        }
    },
    workload: Some(factory),
};

/// The web workload's parameters and their defaults (see the module doc
/// for their sources).
pub mod defaults {
    pub const THINK_MEAN_S: f64 = 20.0;
    pub const OBJECT_DIST: &str = "pareto2";
    pub const OBJECT_MEAN_BYTES: f64 = 10_000.0;
    pub const OBJECT_SHAPE: f64 = 1.2;
    pub const SIZE_FACTOR: f64 = 1.0;
    pub const OBJECTS_P1: f64 = 0.69;
    pub const OBJECTS_SHAPE: f64 = 1.0;
    pub const OBJECTS_SCALE: f64 = 1.578;
    pub const PERSISTENT: f64 = 0.15;
    pub const PAGES_P1: f64 = 0.82;
    pub const PAGES_SHAPE: f64 = 1.0;
    pub const PAGES_SCALE: f64 = 0.417;
    pub const PARALLEL: u64 = 1;
}

/// Largest object or page in bytes (1 PB): a heavy tail's rare huge draw
/// stays a finite transfer.
const MAX_BYTES: f64 = 1e15;

fn params_doc() -> Vec<ParamDoc> {
    use defaults as d;
    let p = |name, default: Value, doc| ParamDoc { name, default, doc };
    vec![
        p("think_mean_s", d::THINK_MEAN_S.into(), "mean of the exponential think time between pages"),
        p("object_dist", d::OBJECT_DIST.into(), "object size law: pareto2 (ns-2 ParetoII, Lomax) | pareto (type I)"),
        p("object_mean_bytes", d::OBJECT_MEAN_BYTES.into(), "mean object size before size_factor"),
        p("object_shape", d::OBJECT_SHAPE.into(), "Pareto shape (> 1; < 2: infinite variance)"),
        p("object_max_bytes", Value::Null, "cap on an object's size before size_factor (none: uncapped)"),
        p("size_factor", d::SIZE_FACTOR.into(), "multiplies every object size (paper: 15, 60, 120)"),
        p("objects_p1", d::OBJECTS_P1.into(), "probability of a one-object page (PackMime 0.69)"),
        p("objects_shape", d::OBJECTS_SHAPE.into(), "Weibull shape of the objects beyond the first (PackMime 1)"),
        p("objects_scale", d::OBJECTS_SCALE.into(), "Weibull scale of the objects beyond the first (PackMime 1.578)"),
        p("persistent", d::PERSISTENT.into(), "share of new connections that are persistent (paper 0.15)"),
        p("pages_p1", d::PAGES_P1.into(), "probability a persistent connection carries one page (PackMime 0.82)"),
        p("pages_shape", d::PAGES_SHAPE.into(), "Weibull shape of its further pages (PackMime 1)"),
        p("pages_scale", d::PAGES_SCALE.into(), "Weibull scale of its further pages (PackMime 0.417)"),
        p("parallel", d::PARALLEL.into(), "connections at once for a non-persistent page's embedded objects"),
    ]
}

/// A count law of PackMime's form: 1 with probability `p1`, else
/// `1 + ceil(W)` (at least 2) with W ~ Weibull(`shape`, `scale`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountLaw {
    pub p1: f64,
    pub shape: f64,
    pub scale: f64,
}

impl CountLaw {
    pub fn sample(&self, r: &mut Rng) -> u32 {
        if r.gen::<f64>() < self.p1 {
            return 1;
        }
        let w = self.scale * math::powf(-math::ln(unit_open0(r)), 1.0 / self.shape);
        (1.0 + w.ceil().max(1.0)).min(u32::MAX as f64) as u32
    }

    /// P(count <= n).
    pub fn cdf(&self, n: f64) -> f64 {
        if n < 1.0 {
            0.0
        } else if n < 2.0 {
            self.p1
        } else {
            let w = (n.floor() - 1.0) / self.scale;
            self.p1 + (1.0 - self.p1) * (1.0 - math::exp(-math::powf(w, self.shape)))
        }
    }

    /// E[count] (the series `1 + Σ_{j>=0} exp(-(j/scale)^shape)`, summed
    /// until its terms vanish).
    pub fn mean(&self) -> f64 {
        let mut tail = 0.0;
        for j in 0..1_000_000 {
            let t = math::exp(-math::powf(j as f64 / self.scale, self.shape));
            tail += t;
            if t < 1e-15 {
                break;
            }
        }
        self.p1 + (1.0 - self.p1) * (1.0 + tail)
    }
}

/// The web workload's parameters, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct WebConfig {
    pub think_mean_s: f64,
    pub object_dist: SizeLaw,
    pub object_mean_bytes: f64,
    pub object_shape: f64,
    pub object_max_bytes: Option<f64>,
    pub size_factor: f64,
    pub objects: CountLaw,
    pub persistent: f64,
    pub pages: CountLaw,
    pub parallel: u32,
}

impl WebConfig {
    /// Parse and check `spec.app_params` (`path` names the flow entry).
    pub fn from_spec(spec: &FlowSpec, path: &str) -> Result<Self, ConfigError> {
        use defaults as d;
        let empty = Map::new();
        let mut p = Params::new(spec.app_params.as_ref().unwrap_or(&empty), &format!("{path}.app_params"));
        let think_mean_s = p.f64_with("think_mean_s", d::THINK_MEAN_S, positive)?;
        let object_dist = SizeLaw::from_name(p.choice("object_dist", d::OBJECT_DIST, &SizeLaw::NAMES)?);
        let object_mean_bytes = p.f64_with("object_mean_bytes", d::OBJECT_MEAN_BYTES, at_least_one)?;
        let object_shape = p.f64_with("object_shape", d::OBJECT_SHAPE, above_one)?;
        let object_max_bytes = p.opt_f64_with("object_max_bytes", at_least_one)?;
        let size_factor = p.f64_with("size_factor", d::SIZE_FACTOR, positive)?;
        let objects = CountLaw {
            p1: p.f64_in("objects_p1", d::OBJECTS_P1, 0.0, 1.0)?,
            shape: p.f64_with("objects_shape", d::OBJECTS_SHAPE, positive)?,
            scale: p.f64_with("objects_scale", d::OBJECTS_SCALE, positive)?,
        };
        let persistent = p.f64_in("persistent", d::PERSISTENT, 0.0, 1.0)?;
        let pages = CountLaw {
            p1: p.f64_in("pages_p1", d::PAGES_P1, 0.0, 1.0)?,
            shape: p.f64_with("pages_shape", d::PAGES_SHAPE, positive)?,
            scale: p.f64_with("pages_scale", d::PAGES_SCALE, positive)?,
        };
        let parallel = p.u64_in("parallel", d::PARALLEL, 1, 1000)? as u32;
        p.finish_with("app = \"web\"", &[])?;
        Ok(WebConfig {
            think_mean_s,
            object_dist,
            object_mean_bytes,
            object_shape,
            object_max_bytes,
            size_factor,
            objects,
            persistent,
            pages,
            parallel,
        })
    }

    /// The parameter table with every value (normalisation).
    pub fn to_params(&self) -> Map<String, Value> {
        let mut m = json!({
            "think_mean_s": self.think_mean_s,
            "object_dist": self.object_dist.name(),
            "object_mean_bytes": self.object_mean_bytes,
            "object_shape": self.object_shape,
            "size_factor": self.size_factor,
            "objects_p1": self.objects.p1,
            "objects_shape": self.objects.shape,
            "objects_scale": self.objects.scale,
            "persistent": self.persistent,
            "pages_p1": self.pages.p1,
            "pages_shape": self.pages.shape,
            "pages_scale": self.pages.scale,
            "parallel": self.parallel,
        });
        if let (Some(x), Some(o)) = (self.object_max_bytes, m.as_object_mut()) {
            o.insert("object_max_bytes".into(), x.into());
        }
        match m {
            Value::Object(o) => o,
            _ => unreachable!("a JSON object"),
        }
    }

    /// A think time in seconds.
    pub fn think(&self, r: &mut Rng) -> f64 {
        transfer::exponential(self.think_mean_s, r)
    }

    /// P(think time <= t).
    pub fn think_cdf(&self, t: f64) -> f64 {
        transfer::exponential_cdf(self.think_mean_s, t)
    }

    /// An object's size before the factor and the cap.
    fn object_base(&self, r: &mut Rng) -> f64 {
        self.object_dist.sample(self.object_mean_bytes, self.object_shape, r)
    }

    /// P(object size before the factor and the cap <= x).
    fn object_base_cdf(&self, x: f64) -> f64 {
        self.object_dist.cdf(self.object_mean_bytes, self.object_shape, x)
    }

    /// An object's payload bytes: `max(1, ceil(size_factor · min(X, cap)))`.
    pub fn object_bytes(&self, r: &mut Rng) -> u64 {
        let x = self.object_base(r).min(self.object_max_bytes.unwrap_or(f64::INFINITY));
        (self.size_factor * x).ceil().clamp(1.0, MAX_BYTES) as u64
    }

    /// P(object bytes <= b) (exact at whole bytes).
    pub fn object_bytes_cdf(&self, b: f64) -> f64 {
        if b < 1.0 {
            return 0.0;
        }
        let x = b / self.size_factor;
        if self.object_max_bytes.is_some_and(|c| x >= c) || b >= MAX_BYTES {
            1.0
        } else {
            self.object_base_cdf(x)
        }
    }

    /// Mean bytes of a page (objects per page × object size, capless and
    /// with the factor; ignores the rounding up to whole bytes).
    pub fn mean_page_bytes(&self) -> f64 {
        self.objects.mean() * self.object_mean_bytes * self.size_factor
    }
}

/// Builds the users of one `[[flows]]` entry, sharing its configuration.
fn factory(spec: &FlowSpec) -> Factory {
    let cfg = Arc::new(WebConfig::from_spec(spec, "flow").expect("validated web parameters"));
    let template = transfer::template(spec);
    let stop = spec.stop_s.map(from_secs);
    Box::new(move |p: &Placement| {
        Box::new(WebUser {
            cfg: cfg.clone(),
            at: Endpoint::new(template.clone(), p),
            start: p.start,
            stop,
            rng: transfer::stream(p),
            pages: 0,
            conn_pages_left: 0,
            page: Page::default(),
        }) as Box<dyn Application>
    })
}

const START: u8 = 0;
const REQUEST: u8 = 1;

/// The page a user is fetching.
#[derive(Default)]
struct Page {
    index: u32,
    objects: u32,
    /// Objects of a non-persistent page not yet requested (last first).
    waiting: Vec<u64>,
    /// Transfers of the page under way.
    open: u32,
}

/// One web user on its host pair (see the module doc).
pub struct WebUser {
    cfg: Arc<WebConfig>,
    /// The entry's transport settings and this user's host pair.
    at: Endpoint,
    start: Time,
    /// No page is requested at or after this time.
    stop: Option<Time>,
    rng: Rng,
    /// Pages requested so far.
    pages: u32,
    /// Pages still to go on the open persistent connection (0: none open).
    conn_pages_left: u32,
    page: Page,
}

impl WebUser {
    fn stopped(&self, t: Time) -> bool {
        self.stop.is_some_and(|s| t >= s)
    }

    /// Think, then request the next page.
    fn think(&mut self, ctx: &mut AppCtx) {
        let at = ctx.now().saturating_add(from_secs(self.cfg.think(&mut self.rng)));
        if !self.stopped(at) {
            ctx.schedule(at, REQUEST);
        }
    }

    fn request_page(&mut self, ctx: &mut AppCtx) {
        let cfg = self.cfg.clone();
        let persistent = if self.conn_pages_left > 0 {
            true
        } else if self.rng.gen::<f64>() < cfg.persistent {
            self.conn_pages_left = cfg.pages.sample(&mut self.rng);
            true
        } else {
            false
        };
        let n = cfg.objects.sample(&mut self.rng);
        let sizes: Vec<u64> = (0..n).map(|_| cfg.object_bytes(&mut self.rng)).collect();
        self.page = Page { index: self.pages, objects: n, waiting: Vec::new(), open: 0 };
        self.pages += 1;
        if persistent {
            self.conn_pages_left -= 1;
            let bytes = sizes.iter().fold(0u64, |a, &b| a.saturating_add(b)).min(MAX_BYTES as u64);
            self.open(ctx, bytes, n, true);
        } else {
            // The top-level object alone; its embedded objects once it is in.
            self.page.waiting = sizes.into_iter().rev().collect();
            let first = self.page.waiting.pop().expect("a page has an object");
            self.open(ctx, first, 1, false);
        }
    }

    /// Open one transfer of the current page.
    fn open(&mut self, ctx: &mut AppCtx, bytes: u64, objects: u32, persistent: bool) {
        let tag = TransferTag {
            user: self.at.user,
            page: self.page.index,
            objects,
            page_objects: self.page.objects,
            persistent,
            bytes,
        };
        self.at.open(ctx, tag);
        self.page.open += 1;
    }
}

impl Application for WebUser {
    fn name(&self) -> &'static str {
        "web"
    }

    fn init(&mut self, ctx: &mut AppCtx) {
        ctx.schedule(self.start, START);
    }

    fn on_event(&mut self, ctx: &mut AppCtx, slot: u8) {
        match slot {
            START => self.think(ctx),
            REQUEST if !self.stopped(ctx.now()) => self.request_page(ctx),
            _ => {}
        }
    }

    fn on_transfer_done(&mut self, ctx: &mut AppCtx, _flow: u32) {
        self.page.open -= 1;
        while self.page.open < self.cfg.parallel {
            let Some(b) = self.page.waiting.pop() else { break };
            self.open(ctx, b, 1, false);
        }
        if self.page.open == 0 {
            self.think(ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{self, Stream};
    use crate::stats::{ks_crit_001, ks_distance};

    fn cfg(params: Value) -> WebConfig {
        let spec: FlowSpec = serde_json::from_value(json!({"app": "web", "app_params": params})).unwrap();
        WebConfig::from_spec(&spec, "flows[0]").unwrap()
    }

    fn draws(n: usize, mut f: impl FnMut(&mut Rng) -> f64) -> Vec<f64> {
        let mut r = rng::stream(7, Stream::App, 1);
        (0..n).map(|_| f(&mut r)).collect()
    }

    #[test]
    fn think_times_are_exponential_with_the_configured_mean() {
        let c = cfg(json!({"think_mean_s": 3.0}));
        let mut x = draws(20_000, |r| c.think(r));
        let d = ks_distance(&mut x, |t| c.think_cdf(t));
        assert!(d < ks_crit_001(x.len()), "KS distance {d}");
        // the test has power: a 10% wrong mean is rejected
        let wrong = cfg(json!({"think_mean_s": 3.3}));
        assert!(ks_distance(&mut x, |t| wrong.think_cdf(t)) > ks_crit_001(x.len()));
    }

    #[test]
    fn object_sizes_follow_their_pareto_law_with_factor_and_cap() {
        for params in [
            json!({}),
            json!({"size_factor": 60.0}),
            json!({"object_dist": "pareto", "object_shape": 1.35, "object_mean_bytes": 30000.0}),
        ] {
            let c = cfg(params.clone());
            let mut x = draws(20_000, |r| c.object_bytes(r) as f64);
            let d = ks_distance(&mut x, |b| c.object_bytes_cdf(b));
            assert!(d < ks_crit_001(x.len()), "{params}: KS distance {d}");
            // whole bytes, at least one
            assert!(x.iter().all(|&b| b >= 1.0 && b.fract() == 0.0));
        }
        // power: the other Pareto type with the same mean is rejected
        let c = cfg(json!({}));
        let other = cfg(json!({"object_dist": "pareto"}));
        let mut x = draws(20_000, |r| c.object_bytes(r) as f64);
        assert!(ks_distance(&mut x, |b| other.object_bytes_cdf(b)) > ks_crit_001(x.len()));
        // with a cap: an atom at size_factor·cap of the right weight, and
        // below it the law conditioned on staying below
        let capped = cfg(json!({"size_factor": 15.0, "object_max_bytes": 50000.0}));
        let x = draws(20_000, |r| capped.object_bytes(r) as f64);
        let top = 750_000.0;
        assert!(x.iter().all(|&b| b <= top));
        let p_top = 1.0 - capped.object_bytes_cdf(top - 1.0);
        let share = x.iter().filter(|&&b| b == top).count() as f64 / x.len() as f64;
        let sd = (p_top * (1.0 - p_top) / x.len() as f64).sqrt();
        assert!((share - p_top).abs() < 4.0 * sd, "share at the cap {share}, expected {p_top}");
        let mut below: Vec<f64> = x.into_iter().filter(|&b| b < top).collect();
        let d = ks_distance(&mut below, |b| capped.object_bytes_cdf(b) / (1.0 - p_top));
        assert!(d < ks_crit_001(below.len()), "capped: KS distance {d}");
    }

    #[test]
    fn counts_follow_packmime_forms() {
        let c = cfg(json!({}));
        for (law, mean) in [(c.objects, 1.6605), (c.pages, 0.82 + 0.18 * (1.0 + 1.0 / (1.0 - math::exp(-1.0 / 0.417))))]
        {
            assert!((law.mean() - mean).abs() < 1e-3, "{law:?}: mean {}", law.mean());
            let mut r = rng::stream(3, Stream::App, 9);
            let n = 20_000;
            let mut count = vec![0usize; 64];
            for _ in 0..n {
                let k = law.sample(&mut r) as usize;
                assert!(k >= 1);
                count[k.min(63)] += 1;
            }
            assert_eq!(count[0], 0);
            assert!(count[1] > 0 && count[2] > 0 && count[2..].iter().sum::<usize>() > 0);
            // discrete KS: sup over the support of |F_n(k) - F(k)|
            let mut cum = 0;
            let mut d: f64 = 0.0;
            for (k, c) in count.iter().enumerate().take(63).skip(1) {
                cum += c;
                d = d.max((cum as f64 / n as f64 - law.cdf(k as f64)).abs());
            }
            assert!(d < ks_crit_001(n), "{law:?}: KS distance {d}");
        }
    }

    #[test]
    fn parameters_are_checked_with_named_errors() {
        let bad = |params: Value| {
            let spec: FlowSpec = serde_json::from_value(json!({"app": "web", "app_params": params})).unwrap();
            WebConfig::from_spec(&spec, "flows[0]").unwrap_err().to_string()
        };
        assert!(bad(json!({"think_mean_s": 0.0})).starts_with("scenario.flows[0].app_params.think_mean_s: 0 is not"));
        assert!(bad(json!({"object_shape": 1.0})).contains("app_params.object_shape: 1 is not allowed; must be"));
        assert!(bad(json!({"object_dist": "lognormal"})).contains("allowed: pareto2, pareto"));
        assert!(bad(json!({"persistent": 1.5})).contains("app_params.persistent: 1.5 is out of range"));
        assert!(bad(json!({"parallel": 0})).contains("app_params.parallel"));
        assert!(bad(json!({"size_factor": -1.0})).contains("app_params.size_factor: -1 is not allowed"));
        assert!(bad(json!({"object_max_bytes": 0.5})).contains("app_params.object_max_bytes: 0.5 is not allowed"));
        assert!(bad(json!({"thinktime": 1.0})).contains("app_params.thinktime: unknown field for app = \"web\""));
        // defaults round-trip through the normalised table
        let c = cfg(json!({"object_max_bytes": 1e6}));
        assert_eq!(cfg(Value::Object(c.to_params())), c);
    }
}
