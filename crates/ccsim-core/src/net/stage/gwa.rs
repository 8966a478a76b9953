//! GWA router stamping (Gerla, Lo Cigno, Mascolo and Weng, "Generalized
//! Window Advertising for TCP Congestion Control", §2 and §5).
//!
//! A GWA sender puts B_n = B_max in an IP option of every data packet; a
//! router lowers it to the buffer space it can give the packet's flow, and
//! never raises it, so the receiver sees the path's minimum and advertises
//! W_a = min(B_r, B_n) (`transport::tcp`, `gwa = true`). The space a router
//! gives a flow (§5):
//!
//! * per-flow queueing with round robin (`gwa = "rr"`, needs a per-flow
//!   discipline such as `drr`): `ceil(B_t / n_f - q_i)`, q_i the flow's own
//!   queue;
//! * FCFS (`gwa = "fcfs"`, any discipline): `ceil((B_t - q) / n_f)`, q the
//!   whole queue;
//!
//! * bandwidth aware (`gwa = "ba"`, BA-TCP; also `ba = true`): the
//!   available bandwidth per flow v = C / n_f, stamped (kb/s) in the same
//!   option when lower, so the path's minimum reaches the sender, which
//!   bounds its window by delta_i * min_j v_ij (delta_i its round-trip
//!   propagation delay; the paper's "very simple implementation" of §5,
//!   used for its BA-FCFS results). The paper measures v as in its ref.
//!   [19], which it does not restate; the fair share of the link's rate is
//!   the reading taken here;
//!
//! with B_t the buffer and n_f the number of active flows, estimated by
//! eq. 9 as a geometrically decaying average over intervals of tau:
//! `n_f(t) = alpha n_f(t - tau) + (1 - alpha) n_f^o(t)`, n_f^o the flows seen
//! in the last interval (the paper's conservative alpha = 0.9, tau = 0.1 s).
//!
//! Choices where the paper is silent (each a parameter or documented):
//! everything is in bytes on the wire (a packet-limited queue counts
//! `limit_pkts x gwa_pkt_bytes`); a flow is active when a *data* packet of
//! it arrives in the interval (ACKs hold no buffer share in the paper's
//! one-way traffic; non-GWA flows count, as they use the buffer);
//! `gwa_nf_init = "observed"` (default) starts eq. 9 from the first
//! interval's count and, before that interval ends, divides by the number
//! of distinct flows seen so far: the router knows them, and starting the
//! average from 0 (`"zero"`, the formula taken literally) advertises
//! several times the fair share for the first second, which the paper's
//! loss-free start (§6.1, Fig 6) rules out. A router stamps on arrival,
//! before its discipline admits the packet.
use super::{Stage, StageKind, Verdict};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{Kind, Packet, IP_OPT_NONE};
use crate::net::span::SpanVec;
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::math::ceil_nonneg;
use crate::sim::time::from_secs;
use crate::sim::Time;
use serde_json::{Map, Value};
use std::any::Any;

pub const KIND: StageKind = StageKind {
    name: "gwa",
    doc: "GWA router (Gerla et al. §5): lowers the B_n option to the flow's buffer share, RR or FCFS",
    params,
    build: |m, path| build(m, path, None),
};

/// The queue-table keys that set up a GWA stage on the queue's link
/// (`gwa = "rr" | "fcfs" | "ba"`, `ba = true`, and the options).
pub const QUEUE_KEYS: &[&str] =
    &["gwa", "ba", "gwa_alpha", "gwa_tau_s", "gwa_nf_init", "gwa_pkt_bytes", "gwa_buffer_bytes"];

fn params() -> Vec<ParamDoc> {
    vec![
        ParamDoc {
            name: "gwa",
            default: Value::Null,
            doc: "rr (per-flow queues: B_t/n_f - q_i) | fcfs ((B_t - q)/n_f) | ba (v = C/n_f, BA-TCP)",
        },
        ParamDoc { name: "ba", default: false.into(), doc: "BA-TCP router: the same as gwa = \"ba\"" },
        ParamDoc { name: "gwa_alpha", default: 0.9.into(), doc: "eq. 9 decay alpha, in [0, 1)" },
        ParamDoc { name: "gwa_tau_s", default: 0.1.into(), doc: "eq. 9 interval tau (s)" },
        ParamDoc { name: "gwa_nf_init", default: "observed".into(), doc: "observed | zero: where eq. 9 starts" },
        ParamDoc {
            name: "gwa_pkt_bytes",
            default: 1040.into(),
            doc: "bytes per packet of a packet-limited queue's buffer (B_t = limit_pkts x this)",
        },
        ParamDoc {
            name: "gwa_buffer_bytes",
            default: Value::Null,
            doc: "B_t in bytes (default: the queue's limit); required outside a queue table",
        },
    ]
}

/// Build from a parameter table; `limit` is the queue's (limit_pkts,
/// limit_bytes) when the table is a queue table.
fn build(
    m: &Map<String, Value>,
    path: &str,
    limit: Option<(Option<u64>, Option<u64>)>,
) -> Result<Box<dyn Stage>, ConfigError> {
    let mut p = Params::new(m, path);
    let ba = p.bool("ba", false)?;
    if ba && m.contains_key("gwa") {
        return Err(ConfigError::new(format!("{path}.ba"), "not allowed beside gwa (ba = true is gwa = \"ba\")"));
    }
    let mode = match p.choice("gwa", "fcfs", &["rr", "fcfs", "ba"])? {
        _ if ba => Mode::Ba,
        "rr" => Mode::Rr,
        "ba" => Mode::Ba,
        _ => Mode::Fcfs,
    };
    let alpha = p.f64_in("gwa_alpha", 0.9, 0.0, 1.0 - f64::EPSILON)?;
    let tau_s = p.f64_in("gwa_tau_s", 0.1, 1e-6, 3600.0)?;
    let nf_init = match p.choice("gwa_nf_init", "observed", &["observed", "zero"])? {
        "zero" => NfInit::Zero,
        _ => NfInit::Observed,
    };
    let pkt_bytes = p.u64_in("gwa_pkt_bytes", 1040, 1, 1 << 20)?;
    let given = p.u64_in("gwa_buffer_bytes", 0, 1, u32::MAX as u64)?;
    p.finish()?;
    let buffer = match (given, limit) {
        (b, _) if b > 0 => b,
        (_, Some((_, Some(bytes)))) => bytes,
        (_, Some((Some(n), None))) => n.saturating_mul(pkt_bytes),
        _ => {
            return Err(ConfigError::new(
                format!("{path}.gwa_buffer_bytes"),
                "required: the buffer B_t in bytes (a queue table's limit gives it there)",
            ))
        }
    };
    Ok(Box::new(Gwa::new(mode, buffer as f64, alpha, tau_s, nf_init)))
}

/// The GWA stage a queue table asks for (`None` without a `gwa` key), and
/// the table without the GWA keys (for its discipline). GWA-RR needs a
/// discipline with per-flow queues.
pub fn from_queue_table(q: &QueueSpec, path: &str) -> Result<(QueueSpec, Option<Box<dyn Stage>>), ConfigError> {
    let mut rest = q.clone();
    let mut own = Map::new();
    for k in QUEUE_KEYS {
        if let Some(v) = rest.extra.remove(*k) {
            own.insert(k.to_string(), v);
        }
    }
    if own.is_empty() {
        return Ok((rest, None));
    }
    if own.get("ba") == Some(&Value::Bool(false)) && !own.contains_key("gwa") {
        own.remove("ba");
        if own.is_empty() {
            return Ok((rest, None));
        }
    }
    if !own.contains_key("gwa") && !own.contains_key("ba") {
        let k = own.keys().next().expect("non-empty");
        return Err(ConfigError::new(
            crate::scenario::key_path(path, k),
            "only allowed with gwa = \"rr\", \"fcfs\" or \"ba\"",
        ));
    }
    let stage = build(&own, path, Some((rest.limit_pkts, rest.limit_bytes)))?;
    Ok((rest, Some(stage)))
}

/// How the router shares its buffer among flows (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Per-flow queues served round robin: B_t / n_f - q_i.
    Rr,
    /// One FCFS queue: (B_t - q) / n_f.
    Fcfs,
    /// Bandwidth aware (BA-TCP): the option carries v = C / n_f in kb/s.
    Ba,
}

/// Where eq. 9's average starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NfInit {
    /// From the first interval's count; before it, the flows seen so far.
    Observed,
    /// From 0, as the formula reads (nothing is stamped while n_f is 0).
    Zero,
}

pub struct Gwa {
    pub mode: Mode,
    /// B_t: the buffer, bytes.
    pub buffer_bytes: f64,
    pub alpha: f64,
    pub tau: Time,
    pub nf_init: NfInit,
    /// eq. 9's n_f (valid once `intervals > 0`).
    nf: f64,
    /// Completed intervals.
    intervals: u64,
    /// Flows seen in the current interval (n_f^o so far).
    seen: u32,
    /// Distinct flows seen before the first interval ended.
    seen_ever: u32,
    /// Per flow id: 1 + the interval in which it was last seen (0: never),
    /// over the flow ids this link has seen only ([`SpanVec`]).
    last_seen: SpanVec<u64>,
    armed: bool,
    /// Stamps that lowered B_n (for tests and traces).
    pub lowered: u64,
}

impl Gwa {
    pub fn new(mode: Mode, buffer_bytes: f64, alpha: f64, tau_s: f64, nf_init: NfInit) -> Self {
        Gwa {
            mode,
            buffer_bytes,
            alpha,
            tau: from_secs(tau_s).max(1),
            nf_init,
            nf: 0.0,
            intervals: 0,
            seen: 0,
            seen_ever: 0,
            last_seen: SpanVec::default(),
            armed: false,
            lowered: 0,
        }
    }

    /// The n_f the router divides by now (`None`: no estimate yet).
    pub fn n_f(&self) -> Option<f64> {
        let n = match (self.intervals, self.nf_init) {
            (0, NfInit::Observed) => self.seen_ever as f64,
            _ => self.nf,
        };
        (n > 0.0).then_some(n)
    }

    fn count(&mut self, flow: u32) {
        let mark = self.intervals + 1;
        let last = self.last_seen.entry(flow as usize);
        if *last != mark {
            if self.intervals == 0 && *last == 0 {
                self.seen_ever += 1;
            }
            *last = mark;
            self.seen += 1;
        }
    }

    /// What this router stamps for the flow now: the buffer space (bytes)
    /// of §5's formulas, rounded up and floored at 0; BA: v = C / n_f in
    /// kb/s, rounded down (at least 1).
    fn space(&self, n_f: f64, rate_bps: f64, queue_bytes: u64, flow_bytes: Option<u64>) -> f64 {
        match self.mode {
            Mode::Rr => ceil_nonneg((self.buffer_bytes / n_f - flow_bytes.unwrap_or(0) as f64).max(0.0)),
            Mode::Fcfs => ceil_nonneg(((self.buffer_bytes - queue_bytes as f64) / n_f).max(0.0)),
            Mode::Ba => (rate_bps / n_f / 1e3).floor().max(1.0),
        }
    }
}

impl Stage for Gwa {
    fn name(&self) -> &'static str {
        "gwa"
    }

    fn acts_on_dequeue(&self) -> bool {
        false
    }

    fn on_enqueue(&mut self, ctx: &mut LinkCtx, pkt: &mut Packet) -> Verdict {
        if pkt.kind != Kind::Data {
            return Verdict::Pass;
        }
        if !self.armed {
            self.armed = true;
            ctx.arm_timer(ctx.now + self.tau);
        }
        self.count(pkt.flow);
        if pkt.ip_opt != IP_OPT_NONE {
            if let Some(n_f) = self.n_f() {
                let space = self.space(n_f, ctx.rate_bps, ctx.queue.bytes, ctx.queue.flow_bytes);
                if space < pkt.ip_opt as f64 {
                    // A router only ever lowers B_n.
                    pkt.ip_opt = space as u32;
                    self.lowered += 1;
                }
            }
        }
        Verdict::Pass
    }

    /// End of a measurement interval: eq. 9.
    fn on_timer(&mut self, ctx: &mut LinkCtx) {
        let observed = self.seen as f64;
        self.nf = match (self.intervals, self.nf_init) {
            (0, NfInit::Observed) => observed,
            _ => self.alpha * self.nf + (1.0 - self.alpha) * observed,
        };
        self.intervals += 1;
        self.seen = 0;
        ctx.arm_timer(ctx.now + self.tau);
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::{test_ctx, QueueView};
    use crate::sim::math;

    fn data(flow: u32, b_n: u32) -> Packet {
        Packet { flow, size: 1040, ip_opt: b_n, ..Default::default() }
    }

    #[test]
    fn flow_table_spans_only_the_flows_seen() {
        // A link carrying only flow 999,999 keeps one entry, not a million.
        let mut g = Gwa::new(Mode::Fcfs, 100_000.0, 0.9, 0.1, NfInit::Observed);
        test_ctx(false, |ctx, _| {
            g.on_enqueue(ctx, &mut data(999_999, 1_000_000));
            g.on_enqueue(ctx, &mut data(999_999, 1_000_000));
        });
        assert_eq!(g.last_seen.len(), 1);
        assert_eq!(g.n_f(), Some(1.0));
        // Ids below the first seen, repeats, gaps: counted once each.
        let mut g = Gwa::new(Mode::Fcfs, 100_000.0, 0.9, 0.1, NfInit::Observed);
        test_ctx(false, |ctx, _| {
            for f in [50, 40, 50, 7, 40, 60, 7] {
                g.on_enqueue(ctx, &mut data(f, 1_000_000));
            }
            assert_eq!(g.n_f(), Some(4.0));
            g.on_timer(ctx);
            for f in [60, 7, 60] {
                g.on_enqueue(ctx, &mut data(f, 1_000_000));
            }
            g.on_timer(ctx);
            assert!((g.n_f().unwrap() - (0.9 * 4.0 + 0.1 * 2.0)).abs() < 1e-12);
        });
        assert_eq!(g.last_seen.len(), 54, "ids 7..=60");
    }

    #[test]
    fn eq9_decays_towards_the_flows_seen() {
        let mut g = Gwa::new(Mode::Fcfs, 100_000.0, 0.9, 0.1, NfInit::Zero);
        test_ctx(false, |ctx, _| {
            for round in 0..50 {
                for f in 0..10 {
                    g.on_enqueue(ctx, &mut data(f, 1_000_000));
                }
                g.on_timer(ctx);
                // n_f(k) = 10 (1 - 0.9^k) from 0
                let k = round + 1;
                assert!((g.n_f().unwrap() - 10.0 * (1.0 - math::powi(0.9, k))).abs() < 1e-9);
            }
        });
        let mut g = Gwa::new(Mode::Fcfs, 100_000.0, 0.9, 0.1, NfInit::Observed);
        test_ctx(false, |ctx, _| {
            assert_eq!(g.n_f(), None);
            for f in [3, 4, 3] {
                g.on_enqueue(ctx, &mut data(f, 1_000_000));
            }
            assert_eq!(g.n_f(), Some(2.0), "distinct flows seen before the first interval ends");
            g.on_timer(ctx);
            assert_eq!(g.n_f(), Some(2.0));
            g.on_enqueue(ctx, &mut data(5, 1_000_000));
            g.on_timer(ctx);
            assert!((g.n_f().unwrap() - (0.9 * 2.0 + 0.1)).abs() < 1e-12);
        });
    }

    #[test]
    fn stamps_follow_section_5_and_never_raise_b_n() {
        // FCFS: (B_t - q) / n_f, rounded up
        let mut g = Gwa::new(Mode::Fcfs, 100_000.0, 0.9, 0.1, NfInit::Observed);
        test_ctx(false, |ctx, _| {
            for f in 0..3 {
                g.on_enqueue(ctx, &mut data(f, u32::MAX - 1));
            }
            ctx.queue = QueueView { pkts: 10, bytes: 10_400, flow_bytes: None };
            let mut p = data(0, 1_000_000);
            g.on_enqueue(ctx, &mut p);
            assert_eq!(p.ip_opt, ((100_000.0f64 - 10_400.0) / 3.0).ceil() as u32);
            // an upstream router's smaller value stays
            let mut p = data(1, 500);
            g.on_enqueue(ctx, &mut p);
            assert_eq!(p.ip_opt, 500);
            // no option, nothing stamped; ACKs are not stamped
            let mut p = data(2, IP_OPT_NONE);
            g.on_enqueue(ctx, &mut p);
            assert_eq!(p.ip_opt, IP_OPT_NONE);
            let mut a = Packet { kind: Kind::Ack, ip_opt: 7_000_000, ..Default::default() };
            g.on_enqueue(ctx, &mut a);
            assert_eq!(a.ip_opt, 7_000_000);
        });
        // RR: B_t / n_f - q_i, floored at 0
        let mut g = Gwa::new(Mode::Rr, 100_000.0, 0.9, 0.1, NfInit::Observed);
        test_ctx(false, |ctx, _| {
            for f in 0..4 {
                g.on_enqueue(ctx, &mut data(f, u32::MAX - 1));
            }
            ctx.queue = QueueView { pkts: 30, bytes: 31_200, flow_bytes: Some(5_200) };
            let mut p = data(0, 1_000_000);
            g.on_enqueue(ctx, &mut p);
            assert_eq!(p.ip_opt, 25_000 - 5_200);
            ctx.queue.flow_bytes = Some(40_000);
            let mut p = data(0, 1_000_000);
            g.on_enqueue(ctx, &mut p);
            assert_eq!(p.ip_opt, 0);
        });
    }
}
