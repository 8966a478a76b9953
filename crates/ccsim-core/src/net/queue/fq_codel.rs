//! FQ-CoDel (RFC 8290) as Linux runs it (`net/sched/sch_fq_codel.c`).
//!
//! * **Flow queues** (§4.1.1): a packet's flow id is hashed into one of
//!   `flows` queues (1024), as Linux hashes the 5-tuple: the hash is
//!   MurmurHash3's 32-bit finaliser of `flow id XOR perturbation`, reduced
//!   as Linux's `reciprocal_scale` (`(h · flows) >> 32`); deterministic, so
//!   colliding flows share a queue in every run. `exact_flows = true` gives
//!   each flow its own queue instead.
//! * **Scheduling** (§4.2, Linux `fq_codel_dequeue`): a queue that becomes
//!   active joins the tail of the *new* list with a deficit of one
//!   `quantum_bytes`. Dequeue serves the head of the new list, else of the
//!   old list; a queue whose deficit is ≤ 0 gets a quantum more and moves
//!   to the tail of the old list. The chosen queue runs its own CoDel
//!   (`codel.rs`'s [`CodelState`]); if that yields nothing (empty, or all
//!   dropped), a queue from the new list moves to the tail of the old list
//!   when the old list is non-empty (so a queue cannot stay new by
//!   emptying), any other leaves the lists; otherwise the packet's size is
//!   taken off the deficit. So a sparse flow's packets are sent before the
//!   backlogged flows' and a backlogged flow gets at most a quantum ahead.
//! * **Buffer** (§4.1.3): `limit_pkts` (10240) over all queues (or
//!   `limit_bytes`, standing in for Linux's `memory_limit`, which counts
//!   buffer memory); the arriving packet is queued first, then, if over,
//!   the fattest queue (most bytes; the first of equals in index order) is
//!   head-dropped until half its bytes or `drop_batch` packets (64) are
//!   gone, and its CoDel `count` grows by the packets dropped (Linux).
//! * **CoDel** per queue with `target_s`, `interval_s`, `ecn` (on by
//!   default) as `codel`; the one-MTU rule looks at the whole discipline's
//!   backlog, as Linux (ns-3 looks at the flow's own).
//!
//! The quantum is 1500 bytes: Linux uses the device's `psched_mtu`, 1514
//! on Ethernet, which counts the Ethernet header ccsim's packet sizes leave
//! out; ns-3 sets the device MTU, 1500.
use super::codel::{codel_param_docs, limit_or, CodelParams, CodelState, Head};
use super::droptail::Limit;
use super::{QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::net::span::SpanVec;
use crate::scenario::params::{ParamDoc, Params};
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::Time;
use serde_json::json;
use std::collections::VecDeque;

pub const KIND: QueueKind = QueueKind {
    name: "fq_codel",
    doc: "FQ-CoDel (RFC 8290) as Linux sch_fq_codel.c: hashed flow queues, DRR with a new-flow list, \
          CoDel per queue, fattest-queue drops",
    params: || {
        let mut v = vec![
            ParamDoc {
                name: "limit_pkts",
                default: json!(10240),
                doc: "packets waiting over all flow queues (Linux, ns-3: 10240); or limit_bytes instead",
            },
            ParamDoc {
                name: "limit_bytes",
                default: serde_json::Value::Null,
                doc: "bytes waiting over all flow queues instead of limit_pkts (cf. Linux memory_limit)",
            },
            ParamDoc {
                name: "flows",
                default: json!(1024),
                doc: "flow queues the flow ids are hashed into, 1 to 65536 (RFC 8290, Linux, ns-3: 1024)",
            },
            ParamDoc {
                name: "exact_flows",
                default: json!(false),
                doc: "one queue per flow id instead of hashing (no collisions)",
            },
            ParamDoc {
                name: "perturbation",
                default: json!(0),
                doc: "integer mixed into the hash (ns-3 Perturbation): another seed for which flows collide",
            },
            ParamDoc {
                name: "quantum_bytes",
                default: json!(1500),
                doc: "bytes of deficit per round (Linux psched_mtu 1514 with the Ethernet header; ns-3 1500)",
            },
            ParamDoc {
                name: "drop_batch",
                default: json!(64),
                doc: "most packets dropped from the fattest queue per overflow (Linux, ns-3: 64)",
            },
        ];
        v.extend(codel_param_docs(true));
        v
    },
    build: |q, path| Ok(FqCodel::from_spec(q, path)?.into()),
};

/// MurmurHash3's 32-bit finaliser (`fmix32`): a bijection that spreads
/// consecutive ids over all 32 bits.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// The queue of `flow` among `flows`, as Linux's `reciprocal_scale`.
pub fn bucket(flow: u32, flows: u32, perturbation: u32) -> u32 {
    ((fmix32(flow ^ perturbation) as u64 * flows as u64) >> 32) as u32
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum List {
    #[default]
    None,
    New,
    Old,
}

#[derive(Default)]
struct FlowQueue {
    fifo: VecDeque<(PktId, u32, Time)>,
    bytes: u64,
    deficit: i64,
    list: List,
    codel: CodelState,
}

pub struct FqCodel {
    codel: CodelParams,
    limit: Limit,
    flows: u32,
    exact: bool,
    perturbation: u32,
    quantum: i64,
    drop_batch: u32,
    queues: SpanVec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pkts: usize,
    bytes: u64,
}

impl FqCodel {
    pub fn new(codel: CodelParams, limit: Limit, flows: u32, exact: bool, quantum: u32, drop_batch: u32) -> Self {
        FqCodel {
            codel,
            limit,
            flows,
            exact,
            perturbation: 0,
            quantum: quantum as i64,
            drop_batch,
            queues: SpanVec::default(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            pkts: 0,
            bytes: 0,
        }
    }

    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Self, ConfigError> {
        let mut p = Params::new(&q.extra, path);
        let flows = p.u64_in("flows", 1024, 1, 65536)? as u32;
        let exact = p.bool("exact_flows", false)?;
        let perturbation = p.u64_in("perturbation", 0, 0, u32::MAX as u64)? as u32;
        let quantum = p.u64_in("quantum_bytes", 1500, 1, 1 << 20)? as u32;
        let drop_batch = p.u64_in("drop_batch", 64, 1, 1 << 20)? as u32;
        let codel = CodelParams::read(&mut p, true)?;
        p.finish_with("queue kind \"fq_codel\"", &["kind", "limit_pkts", "limit_bytes"])?;
        let mut f = FqCodel::new(codel, limit_or(q, path, 10240)?, flows, exact, quantum, drop_batch);
        f.perturbation = perturbation;
        Ok(f)
    }

    fn index(&self, flow: u32) -> usize {
        if self.exact {
            flow as usize
        } else {
            bucket(flow, self.flows, self.perturbation) as usize
        }
    }

    fn over(&self) -> bool {
        match self.limit {
            Limit::Packets(n) => self.pkts as u64 > n,
            Limit::Bytes(b) => self.bytes > b,
        }
    }

    /// Linux `fq_codel_drop`: head-drop from the fattest queue until half
    /// its bytes or `drop_batch` packets are gone; the dropped packets,
    /// and its CoDel count grows by their number.
    fn drop_fattest(&mut self) -> Vec<PktId> {
        let mut fat = None;
        let mut most = 0;
        for i in self.active() {
            let b = self.queues[i].bytes;
            if b > most {
                (most, fat) = (b, Some(i));
            }
        }
        let Some(i) = fat else { return Vec::new() };
        let threshold = most / 2;
        let q = &mut self.queues[i];
        let (mut out, mut len) = (Vec::new(), 0u64);
        loop {
            let (id, size, _) = q.fifo.pop_front().expect("the fattest queue holds packets");
            q.bytes -= size as u64;
            len += size as u64;
            out.push(id);
            if out.len() as u32 >= self.drop_batch || len >= threshold {
                break;
            }
        }
        q.codel.count = q.codel.count.saturating_add(out.len() as u32);
        self.pkts -= out.len();
        self.bytes -= len;
        out
    }

    /// The queues on a list, in index order (Linux scans its table).
    fn active(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.new_flows.iter().chain(&self.old_flows).map(|&i| i as usize).collect();
        v.sort_unstable();
        v
    }
}

impl QueueDiscipline for FqCodel {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let (flow, size) = {
            let p = pkts.get(id);
            (p.flow, p.size)
        };
        let i = self.index(flow);
        let quantum = self.quantum;
        let q = self.queues.entry(i);
        q.fifo.push_back((id, size, ctx.now));
        q.bytes += size as u64;
        if q.list == List::None {
            q.list = List::New;
            q.deficit = quantum;
            self.new_flows.push_back(i as u32);
        }
        self.pkts += 1;
        self.bytes += size as u64;
        if ctx.idle || !self.over() {
            return true;
        }
        let mut admitted = true;
        for victim in self.drop_fattest() {
            if victim == id {
                admitted = false; // the link drops the arrival itself
            } else {
                ctx.evict(victim);
            }
        }
        admitted
    }

    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            let quantum = self.quantum;
            let q = &mut self.queues[i];
            if q.deficit <= 0 {
                q.deficit += quantum;
                q.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i as u32);
                continue;
            }
            let FlowQueue { fifo, bytes: qbytes, codel, .. } = &mut *q;
            let (total_pkts, total_bytes) = (&mut self.pkts, &mut self.bytes);
            let got = codel.dequeue(&self.codel, ctx, pkts, || {
                let (id, size, enqueued) = fifo.pop_front()?;
                *qbytes -= size as u64;
                *total_pkts -= 1;
                *total_bytes -= size as u64;
                Some(Head { id, enqueued, backlog: *total_bytes })
            });
            match got {
                Some(id) => {
                    q.deficit -= pkts.get(id).size as i64;
                    return Some(id);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                    } else {
                        self.old_flows.pop_front();
                    }
                    if from_new && !self.old_flows.is_empty() {
                        q.list = List::Old;
                        self.old_flows.push_back(i as u32);
                    } else {
                        q.list = List::None;
                    }
                }
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.active().into_iter().flat_map(|i| self.queues[i].fifo.iter().map(|&(id, _, _)| id)).collect()
    }

    /// The bytes in the flow's queue (shared with the flows hashed there).
    fn flow_len_bytes(&self, flow: u32) -> Option<u64> {
        Some(self.queues.get(self.index(flow)).map_or(0, |q| q.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::{Ecn, Packet};

    fn spec(v: serde_json::Value) -> QueueSpec {
        serde_json::from_value(v).unwrap()
    }

    fn pkt(pool: &mut PacketPool, flow: u32, size: u32) -> PktId {
        pool.alloc(Packet { flow, size, ..Default::default() })
    }

    fn fq(limit: u64) -> FqCodel {
        FqCodel::new(CodelParams::linux(true), Limit::Packets(limit), 1024, false, 1500, 64)
    }

    #[test]
    fn the_hash_is_fixed_and_spreads_consecutive_ids() {
        // fmix32 is MurmurHash3's finaliser: known values
        assert_eq!(fmix32(0), 0);
        assert_eq!(fmix32(1), 0x514e_28b7);
        let b: Vec<u32> = (0..8).map(|f| bucket(f, 1024, 0)).collect();
        assert!(b.iter().all(|&x| x < 1024));
        let mut d = b.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 8, "ids 0..8 fall in 8 queues: {b:?}");
        // a perturbation moves them
        assert_ne!(bucket(3, 1024, 0), bucket(3, 1024, 12345));
        // flows = 1: one shared queue
        assert!((0..100).all(|f| bucket(f, 1, 0) == 0));
    }

    #[test]
    fn a_sparse_flows_packet_goes_before_a_backlogged_flows() {
        test_ctx(false, |ctx, pool| {
            let mut q = fq(10240);
            assert_ne!(q.index(1), q.index(2));
            let bulk: Vec<PktId> = (0..50).map(|_| pkt(pool, 1, 1500)).collect();
            for &id in &bulk {
                assert!(q.enqueue(ctx, id, pool));
            }
            // flow 1 sends its quantum, then sits on the old list
            assert_eq!(q.dequeue(ctx, pool), Some(bulk[0]));
            let sparse = pkt(pool, 2, 100);
            assert!(q.enqueue(ctx, sparse, pool));
            assert_eq!(q.dequeue(ctx, pool), Some(sparse), "the new flow first");
            assert_eq!(q.dequeue(ctx, pool), Some(bulk[1]));
            // the sparse flow's queue emptied while new: with the old list
            // non-empty it went to the old list's tail, and leaves it when
            // found empty there
            assert_eq!(q.queues[q.index(2)].list, List::Old);
            assert_eq!(q.dequeue(ctx, pool), Some(bulk[2]));
            assert_eq!(q.queues[q.index(2)].list, List::None);
            // a new arrival of it is new again, and first again
            let again = pkt(pool, 2, 100);
            assert!(q.enqueue(ctx, again, pool));
            assert_eq!(q.dequeue(ctx, pool), Some(again));
        });
    }

    #[test]
    fn backlogged_flows_of_different_packet_sizes_share_bytes_equally() {
        for quantum in [300u32, 1500, 4000] {
            test_ctx(false, |ctx, pool| {
                let mut q = FqCodel::new(CodelParams::linux(true), Limit::Packets(100_000), 1024, true, quantum, 64);
                let sizes = [1500u32, 500, 64];
                for (f, &s) in sizes.iter().enumerate() {
                    for _ in 0..100 {
                        let id = pkt(pool, f as u32, s);
                        assert!(q.enqueue(ctx, id, pool));
                    }
                }
                let mut served = [0u64; 3];
                for _ in 0..3000 {
                    let id = q.dequeue(ctx, pool).unwrap();
                    let p = *pool.get(id);
                    served[p.flow as usize] += p.size as u64;
                    pool.free(id);
                    let refill = pkt(pool, p.flow, p.size);
                    assert!(q.enqueue(ctx, refill, pool));
                    let (lo, hi) = (served.iter().min().unwrap(), served.iter().max().unwrap());
                    assert!(hi - lo <= 2 * (quantum as u64 + 1500), "quantum {quantum}: {served:?}");
                }
                let total: u64 = served.iter().sum();
                for s in served {
                    assert!((s as f64 / total as f64 - 1.0 / 3.0).abs() < 0.01, "quantum {quantum}: {served:?}");
                }
            });
        }
    }

    #[test]
    fn overflow_drops_half_the_fattest_queue_from_its_head() {
        test_ctx(false, |ctx, pool| {
            let mut q = FqCodel::new(CodelParams::linux(true), Limit::Packets(20), 1024, true, 1500, 64);
            let fat: Vec<PktId> = (0..15).map(|_| pkt(pool, 1, 1000)).collect();
            let thin: Vec<PktId> = (0..5).map(|_| pkt(pool, 2, 1000)).collect();
            for &id in fat.iter().chain(&thin) {
                assert!(q.enqueue(ctx, id, pool));
            }
            assert!(ctx.evicted.is_empty());
            // the 21st packet (flow 2's): flow 1 holds 15 000 bytes, the
            // most; its head goes until 7 500 bytes are dropped: 8 packets
            let late = pkt(pool, 2, 1000);
            assert!(q.enqueue(ctx, late, pool));
            assert_eq!(ctx.evicted.as_slice(), &fat[..8]);
            assert_eq!((q.len_pkts(), q.flow_len_bytes(1), q.flow_len_bytes(2)), (13, Some(7000), Some(6000)));
            assert_eq!(q.queues[1].codel.count, 8, "CoDel's count grows by the drops");
            ctx.evicted.clear();
            // a batch stops at drop_batch packets
            let mut q = FqCodel::new(CodelParams::linux(true), Limit::Packets(200), 1024, true, 1500, 4);
            for _ in 0..201 {
                let id = pkt(pool, 7, 100);
                assert!(q.enqueue(ctx, id, pool));
            }
            assert_eq!(ctx.evicted.len(), 4);
            ctx.evicted.clear();
            // alone in the fattest queue, the arrival itself is the one dropped
            let mut q = FqCodel::new(CodelParams::linux(true), Limit::Packets(1), 1024, true, 1500, 64);
            assert!(q.enqueue(ctx, pkt(pool, 1, 100), pool));
            let big = pkt(pool, 2, 1500);
            assert!(!q.enqueue(ctx, big, pool));
            assert!(ctx.evicted.is_empty());
            assert_eq!((q.len_pkts(), q.flow_len_bytes(2)), (1, Some(0)));
        });
    }

    #[test]
    fn each_queue_runs_its_own_codel_and_marks_by_default() {
        // flow 1 builds a standing queue, flow 2 sends one packet per
        // round: only flow 1's packets wait long enough to be marked
        test_ctx(false, |ctx, pool| {
            let mut q = fq(10240);
            const MS: Time = 1_000_000_000;
            let (mut marked, mut sparse_marked) = (0, 0);
            for k in 0..3000u64 {
                ctx.now = k * MS;
                for _ in 0..2 {
                    let id = pool.alloc(Packet { flow: 1, size: 1000, ecn: Ecn::Ect0, ..Default::default() });
                    assert!(q.enqueue(ctx, id, pool));
                }
                if k % 10 == 0 {
                    let id = pool.alloc(Packet { flow: 2, size: 100, ecn: Ecn::Ect0, ..Default::default() });
                    assert!(q.enqueue(ctx, id, pool));
                }
                let id = q.dequeue(ctx, pool).unwrap();
                let p = *pool.get(id);
                if p.ecn == Ecn::Ce {
                    marked += 1;
                    sparse_marked += (p.flow == 2) as u32;
                }
                pool.free(id);
            }
            assert!(ctx.evicted.is_empty(), "ECN-capable: marks, no drops");
            assert!(marked > 10 && sparse_marked == 0, "marks {marked}, of the sparse flow {sparse_marked}");
            assert!(q.queues[q.index(1)].codel.dropping);
            assert_eq!(q.queues[q.index(2)].codel.marks, 0);
        });
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let err = |v| FqCodel::from_spec(&spec(v), "q").err().map(|e| e.to_string()).unwrap_or_default();
        let q = FqCodel::from_spec(&spec(json!({"kind": "fq_codel"})), "q").unwrap();
        assert_eq!(
            (q.limit, q.flows, q.quantum, q.drop_batch, q.exact),
            (Limit::Packets(10240), 1024, 1500, 64, false)
        );
        assert_eq!(q.codel, CodelParams::linux(true));
        let q = FqCodel::from_spec(
            &spec(json!({"kind": "fq_codel", "flows": 16, "quantum_bytes": 300, "ecn": false, "exact_flows": true,
                         "perturbation": 9, "target_s": 0.01})),
            "q",
        )
        .unwrap();
        assert_eq!((q.flows, q.quantum, q.codel.ecn, q.exact, q.perturbation), (16, 300, false, true, 9));
        let e = err(json!({"kind": "fq_codel", "flows": 0}));
        assert!(e.contains("q.flows") && e.contains("from 1 to 65536"), "{e}");
        let e = err(json!({"kind": "fq_codel", "quantum_bytes": 0}));
        assert!(e.contains("q.quantum_bytes"), "{e}");
        let e = err(json!({"kind": "fq_codel", "interval_s": 0}));
        assert!(e.contains("q.interval_s") && e.contains("must be > 0 s"), "{e}");
        let e = err(json!({"kind": "fq_codel", "drop_batch_size": 8}));
        assert!(e.contains("q.drop_batch_size") && e.contains("unknown field") && e.contains("drop_batch"), "{e}");
    }
}
