//! RED (Floyd & Jacobson 1993) with gentle mode, byte mode and ECN marking
//! (RFC 3168 §5), following ns-2.35's `Queue/RED` (`queue/red.cc`).
//!
//! Per arrival (`REDQueue::enque`): the average `avg` is updated from the
//! queue the packet finds (waiting packets, or bytes in byte mode, not
//! counting the one in service, as ns-2's `q_`); after an idle period it is
//! first decayed as if `m = ⌊C·idle⌋` packets had arrived to an empty queue
//! (`estimator`, C = rate/(8·mean_pktsize) packets/s). With `avg ≥ min_th`
//! and more than one waiting packet (in packet mode; more than one byte in
//! byte mode, as ns-2 compares `qlen > 1` in the queue's unit), the drop
//! probability `p_b` (`calculate_p_new`: linear from 0 to max_p between the
//! thresholds; gentle: on to 1 at 2·max_th; else 1 above max_th) is spread
//! by the count of arrivals since the last drop (`modify_p`, see [`p_a`]),
//! and the arrival is dropped, or CE-marked if it is ECN-capable and
//! `p_b < mark_p` (ns-2 `setbit_`, `use_mark_p_`). The first arrival after
//! avg crosses min_th only restarts the count (ns-2's `old` flag). The
//! physical buffer then drops the arrival if full (a forced drop,
//! `drop_tail_`), resetting the count. Parameters that ns-2 derives
//! (thresholds, `q_weight_ = -1`) are resolved on the first packet, from the
//! link rate; the queue does not see its link's propagation delay, so the
//! automatic w_q takes the RTT as max(0.1 s, 3/C) (ns-2: max(0.1 s,
//! 3·(delay + 1/C)), the same for delays up to ~33 ms minus 1/C).
//!
//! Two details differ from ns-2 on purpose: the physical limit is
//! droptail's (`limit_bytes` admits a packet only if it fits; ns-2 in
//! `queue_in_bytes_` mode drops when the bytes already waiting reach
//! `limit_ × mean_pktsize_`), and the draw is `u < p` with u uniform on
//! [0, 1) from the queue's own stream (ns-2 `u <= p`, the same
//! probability). With `rng = "ns2"` the draw is ns-2's own: `u <= p` with
//! u from ns-2.35's default generator (`sim::ns2rng`), shared with every
//! other consumer of it in event order, as `Random::uniform()` is.
//!
//! With ns-2's clock (`ns2_clock = true`, `LinkCtx::ns2_now`) the idle
//! period is ns-2's too: `idletime_` is the `double` time of the resume
//! that found the queue empty, `m = int(ptc * (now - idletime_))` on
//! `double`s (an idle of exactly one packet time is then 0.99999… or
//! 1.00000…1 as ns-2's sums round, where integer picoseconds give exactly
//! 1), and the decay is `estimator`'s m + 1 successive multiplications by
//! 1 − w_q rather than one power (they differ in the last bits).
//!
//! Not modelled: Adaptive RED (`adaptive_`), `cautious_` (the only user of
//! `idle_pktsize_`), drop-front/random victims, `use_mark_p_ false`.
use super::droptail::{Fifo, Limit};
use super::{QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{Ecn, PacketPool, PktId};
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::math;
use crate::sim::ns2clock;
use crate::sim::time::{to_secs, tx_time};
use crate::sim::Time;
use rand::Rng as _;
use serde_json::json;

pub const KIND: QueueKind = QueueKind {
    name: "red",
    doc: "RED (Floyd & Jacobson 1993) as ns-2.35 Queue/RED: EWMA average, gentle, byte mode, ECN marking",
    params: || {
        vec![
            ParamDoc {
                name: "limit_pkts",
                default: serde_json::Value::Null,
                doc: "physical buffer in packets waiting (one of limit_pkts/limit_bytes, as droptail)",
            },
            ParamDoc { name: "limit_bytes", default: serde_json::Value::Null, doc: "physical buffer in bytes waiting" },
            ParamDoc {
                name: "min_th_pkts",
                default: serde_json::Value::Null,
                doc: "lower threshold of the average in packets (packet mode); absent or 0: ns-2 automatic \
                      max(5, 5 ms x C/2) packets",
            },
            ParamDoc {
                name: "max_th_pkts",
                default: serde_json::Value::Null,
                doc: "upper threshold in packets; absent or 0: 3 x min_th; needs min_th_pkts when set",
            },
            ParamDoc {
                name: "min_th_bytes",
                default: serde_json::Value::Null,
                doc: "lower threshold in bytes (byte mode, ns-2 bytes_ and queue_in_bytes_); absent or 0: the \
                      automatic one x mean_pktsize",
            },
            ParamDoc {
                name: "max_th_bytes",
                default: serde_json::Value::Null,
                doc: "upper threshold in bytes; absent or 0: 3 x min_th; needs min_th_bytes when set",
            },
            ParamDoc {
                name: "w_q",
                default: serde_json::Value::Null,
                doc: "EWMA weight in (0, 1]; absent: ns-2 q_weight_ -1, 1 - exp(-1/(10 RTT C)), RTT = max(0.1 s, 3/C)",
            },
            ParamDoc {
                name: "max_p",
                default: json!(0.1),
                doc: "drop probability at max_th, in (0, 1] (ns-2 1/linterm_)",
            },
            ParamDoc {
                name: "gentle",
                default: json!(true),
                doc: "p rises from max_p to 1 between max_th and 2 max_th (else 1 above max_th)",
            },
            ParamDoc {
                name: "wait",
                default: json!(true),
                doc: "ns-2 wait_: at least 1/p_b arrivals between drops (gaps ~ uniform on [1/p_b, 2/p_b])",
            },
            ParamDoc {
                name: "bytes",
                default: serde_json::Value::Null,
                doc: "byte mode (ns-2 bytes_ and queue_in_bytes_): average in bytes, p scaled by size/mean_pktsize, \
                      count in mean_pktsize units; absent: the thresholds' unit, or without thresholds the \
                      buffer's (limit_bytes: byte mode)",
            },
            ParamDoc {
                name: "mean_pktsize",
                default: json!(500),
                doc: "bytes; C = rate/(8 mean_pktsize) packets/s for the idle decay and automatic settings",
            },
            ParamDoc {
                name: "ecn",
                default: json!(false),
                doc: "mark CE on ECN-capable packets instead of early-dropping them (ns-2 setbit_)",
            },
            ParamDoc {
                name: "mark_p",
                default: json!(0.1),
                doc: "mark only while p_b < mark_p, drop ECN-capable packets above it (ns-2 mark_p_, use_mark_p_)",
            },
            ParamDoc {
                name: "ecn_mark_above_max",
                default: json!(false),
                doc: "GWA paper's ECN routers: mark ECN-capable packets whatever p_b (above max_th too, mark_p \
                      ignored); only the physical buffer drops them; needs ecn = true",
            },
            ParamDoc {
                name: "rng",
                default: json!("ccsim"),
                doc: "where drop_early's draw comes from: \"ccsim\" (this queue's own stream, u < p) or \"ns2\" \
                      (ns-2.35's defaultRNG seeded with the scenario's seed, shared with every other ns2 draw, \
                      u <= p as red.cc: the draws of an ns-2 run, for event-by-event comparison)",
            },
        ]
    },
    build: |q, path| Ok(Red::from_spec(q, path)?.into()),
};

/// The configured parameters (thresholds in the queue's unit; 0 = auto).
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    pub limit: Limit,
    pub min_th: f64,
    pub max_th: f64,
    pub w_q: Option<f64>,
    pub max_p: f64,
    pub gentle: bool,
    pub wait: bool,
    pub bytes: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
    pub mark_p: f64,
    pub ecn_mark_above_max: bool,
    /// Draw from ns-2's shared default stream (`rng = "ns2"`).
    pub ns2_rng: bool,
}

impl RedConfig {
    /// ns-2.35 defaults (`tcl/lib/ns-default.tcl`) with the given buffer.
    pub fn ns2(limit: Limit) -> Self {
        RedConfig {
            limit,
            min_th: 0.0,
            max_th: 0.0,
            w_q: None,
            max_p: 0.1,
            gentle: true,
            wait: true,
            bytes: true,
            mean_pktsize: 500,
            ecn: false,
            mark_p: 0.1,
            ecn_mark_above_max: false,
            ns2_rng: false,
        }
    }
}

fn in_unit(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && x > 0.0 && x <= 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be in (0, 1], got {x}")))
    }
}

fn threshold(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be a finite number >= 0 (0: automatic), got {x}")))
    }
}

/// RED's unit, from the fields that name it. Thresholds carry their unit
/// in their name (`min_th_pkts`/`max_th_pkts` or `min_th_bytes`/
/// `max_th_bytes`), and that unit is the average's: byte mode (ns-2's
/// `bytes_` and `queue_in_bytes_`) with `_bytes`, packet mode with `_pkts`.
/// Without thresholds (automatic ones), `bytes` chooses, and without it the
/// buffer's unit does (`limit_bytes`: byte mode). A bare number is never
/// read in a unit the user did not write. Returns (byte mode, (min_th,
/// max_th) with 0 for automatic, the unit's field suffix).
fn resolve_unit(
    path: &str,
    pkts: (Option<f64>, Option<f64>),
    bytes: (Option<f64>, Option<f64>),
    bytes_given: Option<bool>,
    limit: &Limit,
) -> Result<(bool, (f64, f64), &'static str), ConfigError> {
    let any = |t: (Option<f64>, Option<f64>)| t.0.is_some() || t.1.is_some();
    let pair = |t: (Option<f64>, Option<f64>)| (t.0.unwrap_or(0.0), t.1.unwrap_or(0.0));
    let conflict = |field: &str, unit: &str| {
        ConfigError::new(
            format!("{path}.bytes"),
            format!("{} contradicts {field} (thresholds in {unit}); leave bytes out", bytes_given.unwrap_or(false)),
        )
    };
    match (any(pkts), any(bytes)) {
        (true, true) => Err(ConfigError::new(
            format!("{path}.min_th_bytes"),
            "give the thresholds in one unit: min_th_pkts/max_th_pkts or min_th_bytes/max_th_bytes",
        )),
        (true, false) if bytes_given == Some(true) => Err(conflict("min_th_pkts/max_th_pkts", "packets")),
        (false, true) if bytes_given == Some(false) => Err(conflict("min_th_bytes/max_th_bytes", "bytes")),
        (true, false) => Ok((false, pair(pkts), "pkts")),
        (false, true) => Ok((true, pair(bytes), "bytes")),
        (false, false) => {
            let b = bytes_given.unwrap_or(matches!(limit, Limit::Bytes(_)));
            Ok((b, (0.0, 0.0), if b { "bytes" } else { "pkts" }))
        }
    }
}

/// ns-2 `calculate_p_new`: the drop probability p_b at average `avg`.
pub fn p_b(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> f64 {
    let p = if avg >= max_th {
        if gentle {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            1.0
        }
    } else {
        max_p * (avg - min_th) / (max_th - min_th)
    };
    p.min(1.0)
}

/// ns-2 `modify_p`: the probability for an arrival `count` arrivals after
/// the last drop (counting itself). Without `wait`, Floyd & Jacobson's
/// p_b/(1 − count·p_b) (gaps uniform on [1, 1/p_b]); with `wait`, 0 below
/// count·p_b = 1, then p_b/(2 − count·p_b) (gaps uniform on [1/p_b,
/// 2/p_b]). Byte mode scales a result below 1 by `size_ratio` =
/// size/mean_pktsize (and the caller passes the count in mean_pktsize units).
pub fn p_a(p_b: f64, count: f64, wait: bool, size_ratio: f64) -> f64 {
    let cp = count * p_b;
    let mut p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    if p < 1.0 {
        p *= size_ratio;
    }
    p.min(1.0)
}

pub struct Red {
    cfg: RedConfig,
    fifo: Fifo,
    /// Resolved on the first packet (they need the link rate): C in
    /// packets/s, weight, thresholds in the queue's unit.
    ptc: f64,
    w_q: f64,
    min_th: f64,
    max_th: f64,
    avg: f64,
    /// Arrivals (and bytes) since the last drop or mark.
    count: u64,
    count_bytes: u64,
    /// avg was above min_th (with a nonempty queue) at the last arrival.
    old: bool,
    /// When the link last went idle (end of the last transmission).
    idle_since: Time,
    /// The same as ns-2's `double` (`idletime_`), with ns-2's clock.
    idle_since_ns2: f64,
    /// (1 − w_q)^k for k below [`DECAY_MEMO`] (`Red::decay`), each computed by
    /// `math::powf` the first time an idle period needs it (NaN until
    /// then; reset with w_q): the same bits as the call, without its
    /// cost at every arrival after an idle period (about 250
    /// instructions, 5% of a lightly loaded RED link's per packet, R1).
    decay_memo: Vec<f64>,
}

/// Idle decays remembered per queue (`Red::decay_memo`): idle periods of up
/// to this many packet times, the usual ones at a link that idles
/// between packets.
const DECAY_MEMO: usize = 256;

/// What the RED test decided for an arrival.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Verdict {
    Admit,
    Mark,
    Drop,
}

impl Red {
    pub fn new(cfg: RedConfig) -> Self {
        Red {
            cfg,
            fifo: Fifo::default(),
            ptc: 0.0,
            w_q: 0.0,
            min_th: 0.0,
            max_th: 0.0,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: 0,
            idle_since_ns2: 0.0,
            decay_memo: Vec::new(),
        }
    }

    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Red, ConfigError> {
        let mut p = Params::new(&q.extra, path);
        p.renamed("min_th", "min_th_pkts (packets) or min_th_bytes (bytes)")?;
        p.renamed("max_th", "max_th_pkts (packets) or max_th_bytes (bytes)")?;
        let th_pkts = (p.opt_f64_with("min_th_pkts", threshold)?, p.opt_f64_with("max_th_pkts", threshold)?);
        let th_bytes = (p.opt_f64_with("min_th_bytes", threshold)?, p.opt_f64_with("max_th_bytes", threshold)?);
        let w_q = p.opt_f64_with("w_q", in_unit)?;
        let max_p = p.f64_with("max_p", 0.1, in_unit)?;
        let gentle = p.bool("gentle", true)?;
        let wait = p.bool("wait", true)?;
        let bytes_given = p.opt_bool("bytes")?;
        let mean_pktsize = p.u64_in("mean_pktsize", 500, 1, 1_000_000)? as u32;
        let ecn = p.bool("ecn", false)?;
        let mark_p = p.f64_with("mark_p", 0.1, in_unit)?;
        let ecn_mark_above_max = p.bool("ecn_mark_above_max", false)?;
        let ns2_rng = p.choice("rng", "ccsim", &["ccsim", "ns2"])? == "ns2";
        p.finish_with("queue kind \"red\"", &["kind", "limit_pkts", "limit_bytes"])?;
        let limit = Limit::from_fields(q, path)?;
        let (bytes, (min_th, max_th), unit) = resolve_unit(path, th_pkts, th_bytes, bytes_given, &limit)?;
        if max_th > 0.0 && min_th == 0.0 {
            return Err(ConfigError::new(
                format!("{path}.max_th_{unit}"),
                format!("set min_th_{unit} too (an automatic min_th could exceed a given max_th)"),
            ));
        }
        if max_th > 0.0 && max_th <= min_th {
            return Err(ConfigError::new(
                format!("{path}.max_th_{unit}"),
                format!("must be greater than min_th_{unit} ({min_th}), got {max_th}"),
            ));
        }
        if ecn_mark_above_max && !ecn {
            return Err(ConfigError::new(format!("{path}.ecn_mark_above_max"), "needs ecn = true"));
        }
        Ok(Red::new(RedConfig {
            limit,
            min_th,
            max_th,
            w_q,
            max_p,
            gentle,
            wait,
            bytes,
            mean_pktsize,
            ecn,
            mark_p,
            ecn_mark_above_max,
            ns2_rng,
        }))
    }

    /// The average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// (w_q, min_th, max_th) as resolved (zeros before the first packet).
    pub fn resolved(&self) -> (f64, f64, f64) {
        (self.w_q, self.min_th, self.max_th)
    }

    /// ns-2 `REDQueue::reset` + `initialize_params` for a link of `rate_bps`.
    fn resolve(&mut self, rate_bps: f64) {
        let c = &self.cfg;
        self.ptc = rate_bps / (8.0 * c.mean_pktsize as f64);
        self.w_q = c.w_q.unwrap_or_else(|| {
            let rtt = (3.0 / self.ptc).max(0.1);
            1.0 - math::exp(-1.0 / (10.0 * rtt * self.ptc))
        });
        let unit = if c.bytes { c.mean_pktsize as f64 } else { 1.0 };
        self.min_th = if c.min_th > 0.0 { c.min_th } else { 5f64.max(0.005 * self.ptc / 2.0) * unit };
        self.max_th = if c.max_th > 0.0 { c.max_th } else { 3.0 * self.min_th };
        self.decay_memo = vec![f64::NAN; DECAY_MEMO];
    }

    /// (1 − w_q)^k for an integral k ≥ 0, as `math::powf` gives it
    /// (remembered below [`DECAY_MEMO`]).
    fn decay(&mut self, k: f64) -> f64 {
        let w = self.w_q;
        match self.decay_memo.get_mut(k as usize) {
            Some(d) => {
                if d.is_nan() {
                    *d = math::powf(1.0 - w, k);
                }
                *d
            }
            None => math::powf(1.0 - w, k),
        }
    }

    /// The queue in RED's unit.
    fn qlen(&self) -> f64 {
        if self.cfg.bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// ns-2 `drop_early`: draw against the spread probability; on a hit,
    /// reset the count and mark (ECN-capable, p_b below mark_p) or drop.
    fn drop_early(&mut self, ctx: &mut LinkCtx, size: u32, ect: bool) -> Verdict {
        let c = &self.cfg;
        let pb = p_b(self.avg, self.min_th, self.max_th, c.max_p, c.gentle);
        let (count, ratio) = if c.bytes {
            ((self.count_bytes / c.mean_pktsize as u64) as f64, size as f64 / c.mean_pktsize as f64)
        } else {
            (self.count as f64, 1.0)
        };
        let pa = p_a(pb, count, c.wait, ratio);
        // red.cc draws `Random::uniform()` and hits on u <= p; ccsim's own
        // stream hits on u < p (the same probability).
        let hit = if c.ns2_rng { ctx.ns2_rng.uniform() <= pa } else { ctx.rng.gen::<f64>() < pa };
        if hit {
            self.count = 0;
            self.count_bytes = 0;
            if c.ecn && ect && (c.ecn_mark_above_max || pb < c.mark_p) {
                Verdict::Mark
            } else {
                Verdict::Drop
            }
        } else {
            Verdict::Admit
        }
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        if self.ptc == 0.0 {
            self.resolve(ctx.rate_bps);
        }
        let (size, ect) = {
            let p = pkts.get(id);
            (p.size, p.ecn.is_ect())
        };
        // ns-2 `enque` / `estimator`: an idle period counts as m arrivals
        // to an empty queue, then this arrival's sample.
        let q = self.qlen();
        match ctx.ns2_now {
            Some(now) => {
                // red.cc `enque` and `estimator`, on ns-2's clock.
                let m = if ctx.idle { (self.ptc * (now - self.idle_since_ns2)) as i64 } else { 0 };
                for _ in 0..m {
                    self.avg *= 1.0 - self.w_q;
                }
                self.avg *= 1.0 - self.w_q;
                self.avg += self.w_q * q;
            }
            None => {
                let idle_s = to_secs(ctx.now.saturating_sub(self.idle_since));
                let m = if ctx.idle { (self.ptc * idle_s).floor() } else { 0.0 };
                let decay = if m > 0.0 { self.decay(m + 1.0) } else { 1.0 - self.w_q };
                self.avg = self.avg * decay + self.w_q * q;
            }
        }
        self.count += 1;
        self.count_bytes += size as u64;
        let mut verdict = Verdict::Admit;
        if self.avg >= self.min_th && q > 1.0 {
            if !self.old {
                // avg just crossed min_th: restart the count, spare the packet
                self.count = 1;
                self.count_bytes = size as u64;
                self.old = true;
            } else {
                verdict = self.drop_early(ctx, size, ect);
            }
        } else {
            self.old = false;
        }
        let full = !ctx.idle
            && match self.cfg.limit {
                Limit::Packets(n) => self.fifo.len() as u64 >= n,
                Limit::Bytes(b) => self.fifo.bytes() + size as u64 > b,
            };
        if full || verdict == Verdict::Drop {
            if full {
                self.count = 0;
                self.count_bytes = 0;
            }
            return false;
        }
        if verdict == Verdict::Mark {
            pkts.get_mut(id).ecn = Ecn::Ce;
            ctx.count_mark(pkts.get(id));
        }
        self.fifo.push(id, size, pkts);
        true
    }

    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        let (id, size) = self.fifo.pop(pkts)?;
        if self.fifo.is_empty() {
            // ns-2 `deque` starts the idle clock when it finds the queue
            // empty, i.e. when this packet's transmission ends.
            self.idle_since = ctx.now + tx_time(size, ctx.rate_bps);
            if let Some(now) = ctx.ns2_now {
                // the resume's time: `clock_ + txt` (`LinkDelay::recv`)
                self.idle_since_ns2 = now + ns2clock::txtime(size, ctx.rate_bps);
            }
        }
        Some(id)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn waiting(&self, pkts: &PacketPool) -> Vec<PktId> {
        self.fifo.ids(pkts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::Packet;
    use crate::sim::time::from_secs;

    fn pkt(pool: &mut PacketPool, size: u32, ecn: Ecn) -> PktId {
        pool.alloc(Packet { size, ecn, ..Default::default() })
    }

    fn cfg(limit: Limit) -> RedConfig {
        RedConfig { bytes: false, ..RedConfig::ns2(limit) }
    }

    fn spec(toml_body: &str) -> QueueSpec {
        toml::from_str(&format!("kind = \"red\"\n{toml_body}")).unwrap()
    }

    fn build_err(body: &str) -> String {
        match Red::from_spec(&spec(body), "topology.bottleneck_queue") {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    }

    /// The remembered idle decays are `math::powf`'s bits, below the
    /// memo's length and beyond it, remembered or not, and follow a new
    /// w_q.
    #[test]
    fn remembered_decays_are_the_powers_bit_for_bit() {
        let mut r = Red::new(RedConfig { w_q: Some(0.002), ..cfg(Limit::Packets(100)) });
        r.resolve(1e9);
        for round in 0..2 {
            for k in (0..2 * DECAY_MEMO).chain([100_000, 1 << 40]) {
                let want = math::powf(1.0 - 0.002, k as f64);
                assert_eq!(r.decay(k as f64).to_bits(), want.to_bits(), "k {k}, round {round}");
            }
        }
        r.cfg.w_q = Some(0.25);
        r.resolve(1e9);
        assert_eq!(r.decay(3.0).to_bits(), math::powf(0.75, 3.0).to_bits());
    }

    /// On ns-2's clock (`ns2_now`) the idle period is ns-2's `double`
    /// difference: an idle of exactly one packet time (0.4 ms at 10 Mb/s,
    /// 500-byte mean) after a departure at 6.726868563 s reads as
    /// 0.99999999999989 packets, m = 0 (red.cc `int(ptc * (now -
    /// idletime_))`), where integer picoseconds give m = 1.
    #[test]
    fn idle_packets_on_ns2s_clock_are_counted_from_its_doubles() {
        for ns2 in [true, false] {
            test_ctx(false, |ctx, pool| {
                let w = 0.01;
                let mut r = Red::new(RedConfig { min_th: 1e9, max_th: 2e9, w_q: Some(w), ..cfg(Limit::Packets(100)) });
                let at = |ctx: &mut LinkCtx, t: f64, idle: bool| {
                    (ctx.now, ctx.ns2_now, ctx.idle) = (from_secs(t), ns2.then_some(t), idle);
                };
                let (t0, t1) = (6.726868563, 6.728068563); // t1 = t0 + 1.2 ms, as written
                at(ctx, t0 - 0.01, false);
                for _ in 0..3 {
                    assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                }
                at(ctx, t0, false);
                for _ in 0..3 {
                    r.dequeue(ctx, pool).unwrap(); // the last one leaves at t0 + 0.8 ms
                }
                let before = r.avg();
                at(ctx, t1, true);
                assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                let m = if ns2 { 0 } else { 1 };
                let mut expect = before;
                for _ in 0..=m {
                    expect *= 1.0 - w;
                }
                assert_eq!(r.avg(), expect, "ns2 clock {ns2}: m = {m}");
            });
        }
    }

    #[test]
    fn average_is_the_closed_form_ewma_with_idle_decay() {
        for bytes in [false, true] {
            test_ctx(false, |ctx, pool| {
                let w = 0.01;
                let limit = Limit::Packets(1000);
                let mut r = Red::new(RedConfig { min_th: 1e9, max_th: 2e9, w_q: Some(w), bytes, ..cfg(limit) });
                let unit = if bytes { 1000.0 } else { 1.0 };
                // build a queue of 10: arrival j finds j waiting
                let mut expect = 0.0;
                for j in 0..10 {
                    assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                    expect = (1.0 - w) * expect + w * j as f64 * unit;
                }
                assert!((r.avg() - expect).abs() <= 1e-12 * unit, "{} vs {expect}", r.avg());
                // 500 arrivals that each find 10 waiting (one leaves per arrival):
                // avg = Q + (a0 - Q)(1 - w)^n
                let a0 = r.avg();
                let q = 10.0 * unit;
                for _ in 0..500 {
                    assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                    r.dequeue(ctx, pool).unwrap();
                }
                let closed = q + (a0 - q) * math::powi(1.0 - w, 500);
                assert!((r.avg() - closed).abs() <= 1e-9 * unit, "{} vs {closed}", r.avg());
                // drain at t = 1 s: the last transmission ends 0.8 ms later
                ctx.now = from_secs(1.0);
                while r.dequeue(ctx, pool).is_some() {}
                let a1 = r.avg();
                // 0.1 s idle: C = 10 Mb/s / (8 x 500 B) = 2500 pkt/s, m = 250
                ctx.now = from_secs(1.0 + 0.0008 + 0.1);
                ctx.idle = true;
                assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                let decayed = a1 * math::powi(1.0 - w, 250 + 1);
                assert!((r.avg() - decayed).abs() <= 1e-9 * a1, "{} vs {decayed}", r.avg());
                assert!(r.avg() < 0.1 * a1);
            });
        }
    }

    #[test]
    fn probability_curve_gentle_and_not() {
        let (lo, hi, mp) = (10.0, 30.0, 0.1);
        for g in [false, true] {
            assert_eq!(p_b(10.0, lo, hi, mp, g), 0.0);
            assert!((p_b(20.0, lo, hi, mp, g) - 0.05).abs() < 1e-15);
        }
        assert_eq!(p_b(30.0, lo, hi, mp, false), 1.0);
        assert!((p_b(30.0, lo, hi, mp, true) - 0.1).abs() < 1e-15);
        assert!((p_b(45.0, lo, hi, mp, true) - 0.55).abs() < 1e-15);
        assert_eq!(p_b(60.0, lo, hi, mp, true), 1.0);
        assert_eq!(p_b(90.0, lo, hi, mp, true), 1.0);
        // modify_p
        assert_eq!(p_a(0.05, 19.0, true, 1.0), 0.0);
        assert!((p_a(0.05, 30.0, true, 1.0) - 0.1).abs() < 1e-15);
        assert_eq!(p_a(0.05, 40.0, true, 1.0), 1.0);
        assert!((p_a(0.05, 10.0, false, 1.0) - 0.1).abs() < 1e-15);
        assert!((p_a(0.05, 10.0, false, 2.0) - 0.2).abs() < 1e-15);
        assert_eq!(p_a(0.6, 1.0, false, 2.0), 1.0);
    }

    /// Mean and variance of the gap (arrivals per drop, the dropped one
    /// included) when the arrival with count c is dropped with p(c).
    fn gap_moments(p: impl Fn(u64) -> f64) -> (f64, f64) {
        let (mut surv, mut m1, mut m2) = (1.0, 0.0, 0.0);
        for c in 1..1_000_000u64 {
            let pc = p(c);
            let pr = surv * pc;
            m1 += c as f64 * pr;
            m2 += (c * c) as f64 * pr;
            surv *= 1.0 - pc;
            if surv < 1e-15 {
                break;
            }
        }
        (m1, m2 - m1 * m1)
    }

    /// Hold avg fixed (w_q forced to 0 after the thresholds are resolved)
    /// with 3 packets waiting; count the drops over `n` arrivals of `size`.
    fn empirical(c: RedConfig, avg: f64, size: u32, n: u64) -> (f64, Vec<u64>) {
        let mut out = (0.0, Vec::new());
        test_ctx(false, |ctx, pool| {
            let mut r = Red::new(c);
            for _ in 0..3 {
                r.enqueue(ctx, pkt(pool, size, Ecn::NotEct), pool);
            }
            r.w_q = 0.0;
            r.avg = avg;
            let (mut drops, mut gaps, mut since) = (0u64, Vec::new(), 0u64);
            for _ in 0..n {
                since += 1;
                let id = pkt(pool, size, Ecn::NotEct);
                if r.enqueue(ctx, id, pool) {
                    let out = r.dequeue(ctx, pool).unwrap();
                    pool.free(out);
                } else {
                    pool.free(id);
                    drops += 1;
                    gaps.push(since);
                    since = 0;
                }
            }
            out = (drops as f64 / n as f64, gaps);
        });
        out
    }

    /// `rng = "ns2"`: every drop_early call takes the next draw of ns-2's
    /// default stream and hits on u <= p_a, so the drops are exactly those
    /// of a replay of red.cc's decisions on that stream (here the stream
    /// of ns-2's default seed, the test context's).
    #[test]
    fn ns2_rng_takes_ns2s_draws_one_per_decision() {
        use crate::sim::ns2rng::Ns2Rng;
        let (avg, n) = (20.0, 20_000);
        let c = RedConfig { min_th: 10.0, max_th: 30.0, ns2_rng: true, ..cfg(Limit::Packets(1000)) };
        let pb = p_b(avg, 10.0, 30.0, 0.1, true);
        let (_, got) = empirical(c.clone(), avg, 1000, n);
        // The first arrival above min_th only restarts the count (1), then
        // each arrival counts, draws once and resets the count on a hit.
        let (mut r, mut want, mut count, mut since) = (Ns2Rng::default(), Vec::new(), 1u64, 1u64);
        for _ in 1..n {
            count += 1;
            since += 1;
            if r.uniform() <= p_a(pb, count as f64, true, 1.0) {
                want.push(since);
                count = 0;
                since = 0;
            }
        }
        assert!(want.len() > 100, "a test with drops");
        assert_eq!(got, want, "the drop gaps of red.cc on ns-2's stream");
        // ccsim's own stream decides otherwise.
        let (_, own) = empirical(RedConfig { ns2_rng: false, ..c }, avg, 1000, n);
        assert_ne!(own, want);
    }

    #[test]
    fn drop_rate_matches_the_count_spread_curve() {
        // Renewal argument: the gap G between drops has P(G >= c) =
        // prod_{j<c} (1 - p_a(j)), so the long-run drop fraction is 1/E[G]
        // with standard error sqrt(Var G / (E[G]^3 n)) (renewal CLT); the
        // binomial sqrt(f(1-f)/n) overstates it for these regular gaps. With
        // wait, gaps are ~uniform on [1/p_b, 2/p_b]: f ~ 2 p_b / 3; without,
        // ~uniform on [1, 1/p_b]: f ~ 2 p_b / (1 + p_b).
        let n = 200_000;
        let limit = Limit::Packets(1000);
        for (gentle, wait, avg) in
            [(false, true, 20.0), (true, true, 20.0), (false, false, 12.0), (true, true, 40.0), (true, false, 40.0)]
        {
            let c = RedConfig { min_th: 10.0, max_th: 30.0, gentle, wait, ..cfg(limit) };
            let pb = p_b(avg, 10.0, 30.0, 0.1, gentle);
            let (mu, var) = gap_moments(|k| p_a(pb, k as f64, wait, 1.0));
            let want = 1.0 / mu;
            let se = (var / (mu * mu * mu * n as f64)).sqrt();
            let (got, gaps) = empirical(c, avg, 1000, n);
            assert!(
                (got - want).abs() < 4.0 * se + 1e-9,
                "gentle {gentle} wait {wait} avg {avg}: rate {got} vs {want} +- {se} (p_b {pb})"
            );
            if wait && pb < 0.5 {
                let lo = (1.0 / pb).ceil() as u64;
                assert!(gaps[1..].iter().all(|&g| g >= lo && g <= 2 * lo), "wait: gaps within [1/p_b, 2/p_b]");
                assert!((want - 2.0 * pb / 3.0).abs() < 0.1 * want, "~2 p_b / 3");
            }
        }
        // non-gentle above max_th: every arrival dropped; gentle: not
        let c = RedConfig { min_th: 10.0, max_th: 30.0, gentle: false, ..cfg(limit) };
        // (the first arrival above min_th is spared)
        assert_eq!(empirical(c, 31.0, 1000, 1000).0, 0.999);
    }

    #[test]
    fn byte_mode_scales_by_size_and_counts_in_mean_packets() {
        // 1000-byte packets, mean_pktsize 500: the count advances 2 per
        // arrival and p_a doubles below 1.
        let n = 200_000;
        let c = RedConfig {
            min_th: 10_000.0,
            max_th: 30_000.0,
            bytes: true,
            mean_pktsize: 500,
            ..RedConfig::ns2(Limit::Bytes(1_000_000))
        };
        let pb = p_b(20_000.0, 10_000.0, 30_000.0, 0.1, true);
        let (mu, var) = gap_moments(|k| p_a(pb, (2 * k) as f64, true, 2.0));
        let want = 1.0 / mu;
        let se = (var / (mu * mu * mu * n as f64)).sqrt();
        let (got, _) = empirical(c, 20_000.0, 1000, n);
        assert!((got - want).abs() < 4.0 * se, "byte mode: {got} vs {want} +- {se}");
        // packet mode would give a visibly different rate
        let (mu_p, _) = gap_moments(|k| p_a(pb, k as f64, true, 1.0));
        assert!((got - 1.0 / mu_p).abs() > 10.0 * se);
    }

    #[test]
    fn first_arrival_above_min_th_and_a_short_queue_are_spared() {
        test_ctx(false, |ctx, pool| {
            let c = RedConfig { min_th: 1.0, max_th: 2.0, gentle: false, w_q: Some(1.0), ..cfg(Limit::Packets(100)) };
            let mut r = Red::new(c);
            // arrivals find 0, 1 waiting: qlen <= 1, never dropped
            assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
            assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
            // finds 2 (avg 2 >= max_th): first above min_th only sets `old`
            assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
            // then forced region: dropped
            assert!(!r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
            assert_eq!(r.len_pkts(), 3);
            // byte mode compares qlen > 1 in bytes: one waiting packet is
            // enough (the first above min_th is still spared)
            let c = RedConfig {
                min_th: 500.0,
                max_th: 1000.0,
                gentle: false,
                w_q: Some(1.0),
                bytes: true,
                ..cfg(Limit::Packets(100))
            };
            let mut r = Red::new(c);
            assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
            assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool), "finds 1000 B: sets old");
            assert!(!r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool), "finds 2000 B > max_th: dropped");
        });
    }

    #[test]
    fn a_full_buffer_drops_without_marking_and_resets_the_count() {
        test_ctx(false, |ctx, pool| {
            // marks everything above min_th; buffer of 3
            let c = RedConfig {
                min_th: 1.0,
                max_th: 2.0,
                gentle: false,
                w_q: Some(1.0),
                ecn: true,
                ecn_mark_above_max: true,
                ..cfg(Limit::Packets(3))
            };
            let mut r = Red::new(c);
            for _ in 0..3 {
                assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::Ect0), pool));
            }
            let marks = *ctx.marks;
            let a = pkt(pool, 1000, Ecn::Ect0);
            assert!(!r.enqueue(ctx, a, pool), "the physical limit drops even in mark-above-max mode");
            assert_eq!(*ctx.marks, marks, "a dropped packet is not counted as marked");
            assert_eq!(pool.get(a).ecn, Ecn::Ect0);
            assert_eq!((r.count, r.count_bytes), (0, 0), "ns-2 resets the count on a forced drop");
        });
    }

    #[test]
    fn ecn_marks_capable_packets_and_drops_above_mark_p() {
        test_ctx(false, |ctx, pool| {
            let base = RedConfig {
                min_th: 1.0,
                max_th: 2.0,
                gentle: false,
                w_q: Some(1.0),
                ecn: true,
                ..cfg(Limit::Packets(5))
            };
            for above in [false, true] {
                let mut r = Red::new(RedConfig { ecn_mark_above_max: above, ..base.clone() });
                for _ in 0..3 {
                    assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::Ect0), pool));
                }
                // p_b = 1 (>= mark_p): ns-2 drops even ECT; GWA variant marks
                let a = pkt(pool, 1000, Ecn::Ect0);
                assert_eq!(r.enqueue(ctx, a, pool), above);
                if above {
                    assert_eq!(pool.get(a).ecn, Ecn::Ce);
                    // non-ECT still dropped
                    assert!(!r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool));
                    // the physical buffer (5) still drops ECT packets
                    assert!(r.enqueue(ctx, pkt(pool, 1000, Ecn::Ect0), pool));
                    assert_eq!(r.len_pkts(), 5);
                    assert!(!r.enqueue(ctx, pkt(pool, 1000, Ecn::Ect0), pool));
                }
            }
            // between the thresholds with p_b < mark_p: marked, never dropped
            let c = RedConfig { min_th: 1.0, max_th: 10.0, max_p: 0.05, wait: false, ..base };
            let mut r = Red::new(c);
            let before = *ctx.marks;
            let mut marked = 0;
            for _ in 0..2000 {
                let a = pkt(pool, 1000, Ecn::Ect0);
                assert!(r.enqueue(ctx, a, pool), "an ECT packet below mark_p is never dropped");
                if r.len_pkts() > 4 {
                    r.dequeue(ctx, pool);
                }
                marked += (pool.get(a).ecn == Ecn::Ce) as u32;
            }
            assert!(marked > 0);
            assert_eq!(*ctx.marks - before, marked as u64);
        });
    }

    #[test]
    fn automatic_parameters_follow_ns2() {
        test_ctx(false, |ctx, pool| {
            ctx.rate_bps = 100e6;
            let mut r = Red::new(RedConfig::ns2(Limit::Packets(100)));
            r.enqueue(ctx, pkt(pool, 1000, Ecn::NotEct), pool);
            let (w, lo, hi) = r.resolved();
            // C = 25000 pkt/s: min_th = max(5, 0.005 C / 2) = 62.5 pkts x 500 B
            assert!((lo - 62.5 * 500.0).abs() < 1e-9 && (hi - 3.0 * lo).abs() < 1e-9);
            assert!((w - (1.0 - math::exp(-1.0 / (10.0 * 0.1 * 25000.0)))).abs() < 1e-15);
        });
    }

    #[test]
    fn parameter_errors_are_named() {
        let e = build_err("limit_pkts = 100\nmax_p = 2");
        assert!(e.contains("topology.bottleneck_queue.max_p") && e.contains("must be in (0, 1], got 2"), "{e}");
        let e = build_err("limit_pkts = 100\nmin_th_pkts = 30\nmax_th_pkts = 10");
        assert!(e.contains("bottleneck_queue.max_th") && e.contains("greater than min_th"), "{e}");
        let e = build_err("limit_pkts = 100\nmax_th_pkts = 10");
        assert!(e.contains("bottleneck_queue.max_th") && e.contains("min_th"), "{e}");
        let e = build_err("limit_pkts = 100\necn_mark_above_max = true");
        assert!(e.contains("bottleneck_queue.ecn_mark_above_max") && e.contains("ecn = true"), "{e}");
        let e = build_err("limit_pkts = 100\nw_q = 0");
        assert!(e.contains("bottleneck_queue.w_q") && e.contains("(0, 1]"), "{e}");
        let e = build_err("limit_pkts = 100\nmark_p = -1");
        assert!(e.contains("bottleneck_queue.mark_p"), "{e}");
        let e = build_err("limit_pkts = 100\nmin_th_pkts = -1");
        assert!(e.contains("bottleneck_queue.min_th"), "{e}");
        let e = build_err("limit_pkts = 100\nmean_pktsize = 0");
        assert!(e.contains("bottleneck_queue.mean_pktsize"), "{e}");
        let e = build_err("limit_pkts = 100\ngentle = 1");
        assert!(e.contains("bottleneck_queue.gentle"), "{e}");
        let e = build_err("limit_pkts = 100\nmaxp = 0.1");
        assert!(e.contains("bottleneck_queue.maxp") && e.contains("max_p"), "{e}");
        let e = build_err("min_th_pkts = 5");
        assert!(e.contains("no limit given"), "{e}");
        let e = build_err("limit_pkts = 0");
        assert!(e.contains("a red queue holds at least 1 packet"), "{e}");
        let r =
            Red::from_spec(&spec("limit_bytes = 60000\nmin_th_bytes = 5000\nmax_th_bytes = 15000\necn = true"), "q")
                .unwrap();
        assert_eq!(r.cfg.limit, Limit::Bytes(60000));
        assert!(r.cfg.bytes && r.cfg.ecn && r.cfg.gentle && r.cfg.wait);
    }
}
