//! DRR: deficit round robin over per-flow queues sharing one buffer
//! (Shreedhar and Varghese, "Efficient Fair Queuing using Deficit Round
//! Robin", SIGCOMM 1995), with longest-queue drop; behaviour read from
//! ns-2.35 `queue/drr.cc` (`Queue/DRR`).
//!
//! * **Queues.** One FIFO per flow, keyed by the packet's flow id (exact
//!   per-flow queues; flows created during the run get theirs on their
//!   first packet). ns-2 instead hashes the *source address* into
//!   `buckets_` queues (10 by default) and only reports collisions; with
//!   `buckets = n` flows are hashed into n queues with ns-2's hash function
//!   (applied to the flow id), so a run can share queues as an ns-2 run
//!   does.
//! * **Service** (ns-2's `DRR::deque`, one packet per call): the queue at
//!   the head of the active list gets `quantum_bytes` added to its deficit
//!   once per visit; while its head packet fits in the deficit it is sent
//!   (one per call, the visit continues on the next call); when it does not
//!   fit, the visit ends and the queue moves to the tail, keeping its
//!   deficit. A queue that empties leaves the list and its deficit is reset
//!   to 0; a queue that becomes backlogged joins the tail with deficit 0.
//! * **Buffer** (`limit_pkts` or `limit_bytes`, like `droptail`; ns-2's
//!   `blimit_` is bytes): the arriving packet is always queued first; then,
//!   while the buffer is over its limit, the **head** packet of the longest
//!   queue (in bytes, ns-2's `getMaxflow`: a linear scan of the active
//!   queues from the current one, the first of equal lengths wins) is
//!   dropped. So a burst evicts its own flow's packets, and an arrival to
//!   the longest queue drops that queue's head, not itself (it is dropped
//!   only when it is alone in the longest queue). As with `droptail`, the
//!   limit counts packets waiting behind the one being serialised, and a
//!   packet finding the link idle goes into service whatever its size.
//! * **Quantum** (`quantum_bytes`, default 1500): ns-2's default is 250
//!   bytes, below a 1000-byte segment, so a queue may need several visits
//!   before it sends (the shares are the same; set `quantum_bytes = 250`
//!   to mirror ns-2). The GWA paper's "per-flow queuing and RR serving
//!   discipline" gives no quantum; 1500 (one Ethernet MTU, at least any
//!   packet ccsim's flows send by default) makes every visit send at least
//!   one packet, the O(1)-per-packet condition of the DRR paper, and with
//!   equal packet sizes it serves the backlogged flows' packets in turn.
//!
//! Cost: O(1) per enqueue and dequeue when the quantum is at least the
//! packet size. With a smaller quantum, a round in which no queue can send
//! is followed by skipping, in one O(active queues) step, every further
//! round that would send nothing (the order is that of visiting them one
//! by one). The longest-queue search at a full buffer is O(active queues),
//! as ns-2's. Memory: one small record per queue index (flow id) seen.
//! Differences from ns-2, besides the exact queues: a queue that a drop
//! empties restarts its visit flag (ns-2 keeps `turn` set, so such a queue
//! skips its next quantum).
use super::droptail::Limit;
use super::{QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::net::span::SpanVec;
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::{ConfigError, QueueSpec};
use std::collections::VecDeque;

/// The default quantum (bytes): see the module doc.
pub const DEFAULT_QUANTUM: u64 = 1500;

pub const KIND: QueueKind = QueueKind {
    name: "drr",
    doc: "deficit round robin over per-flow queues sharing one buffer, longest-queue drop (ns-2 Queue/DRR)",
    params: || {
        vec![
            ParamDoc {
                name: "limit_pkts",
                default: serde_json::Value::Null,
                doc: "shared capacity in packets waiting (one of limit_pkts/limit_bytes)",
            },
            ParamDoc {
                name: "limit_bytes",
                default: serde_json::Value::Null,
                doc: "shared capacity in bytes waiting (ns-2 blimit_)",
            },
            ParamDoc {
                name: "quantum_bytes",
                default: DEFAULT_QUANTUM.into(),
                doc: "bytes added to a queue's deficit per round (ns-2 quantum_, default there 250)",
            },
            ParamDoc {
                name: "buckets",
                default: serde_json::Value::Null,
                doc: "hash flows into this many queues as ns-2 does (absent: one queue per flow)",
            },
        ]
    },
    build: |q, path| Ok(super::Queue::Drr(Box::new(Drr::from_spec(q, path)?))),
};

#[derive(Default)]
struct FlowQueue {
    fifo: VecDeque<(PktId, u32)>,
    bytes: u64,
    deficit: u64,
    /// The quantum of the current visit was added (ns-2's `turn`).
    turn: bool,
}

pub struct Drr {
    limit: Limit,
    quantum: u64,
    buckets: Option<u32>,
    /// Queues by index (flow id, or hash bucket).
    /// Per queue index (a flow id, or a bucket), over the indices seen
    /// only ([`SpanVec`]: a host's own access link holds one queue).
    queues: SpanVec<FlowQueue>,
    /// Backlogged queues in service order; the front is being visited.
    active: VecDeque<u32>,
    pkts: usize,
    bytes: u64,
}

/// ns-2's `DRR::hash` (of a source address there, of a flow id here),
/// reduced modulo `buckets`.
fn ns2_bucket(flow: u32, buckets: u32) -> u32 {
    let i = flow as i64;
    let h = (i + (i >> 8) + !(i >> 4)) % ((2 << 23) - 1) + 1;
    h.rem_euclid(buckets as i64) as u32
}

impl Drr {
    pub fn new(limit: Limit, quantum_bytes: u64, buckets: Option<u32>) -> Self {
        Drr {
            limit,
            quantum: quantum_bytes.max(1),
            buckets,
            queues: SpanVec::default(),
            active: VecDeque::new(),
            pkts: 0,
            bytes: 0,
        }
    }

    /// Build from a queue table (limit as `droptail`, `quantum_bytes`,
    /// `buckets`), every field validated.
    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Self, ConfigError> {
        let mut p = Params::new(&q.extra, path);
        let quantum = p.u64_in("quantum_bytes", DEFAULT_QUANTUM, 1, 1 << 30)?;
        let buckets = match q.extra.get("buckets") {
            None | Some(serde_json::Value::Null) => {
                p.u64_in("buckets", 0, 0, 0)?;
                None
            }
            Some(_) => Some(p.u64_in("buckets", 1, 1, 1 << 20)? as u32),
        };
        p.finish_with("queue kind \"drr\"", &["kind", "limit_pkts", "limit_bytes"])?;
        Ok(Drr::new(Limit::from_fields(q, path)?, quantum, buckets))
    }

    fn index(&self, flow: u32) -> usize {
        match self.buckets {
            Some(n) => ns2_bucket(flow, n) as usize,
            None => flow as usize,
        }
    }

    fn over(&self) -> bool {
        match self.limit {
            Limit::Packets(n) => self.pkts as u64 > n,
            Limit::Bytes(b) => self.bytes > b,
        }
    }

    /// Position in `active` of the longest queue (bytes), scanning from the
    /// current one; the first of equal lengths wins (ns-2's `getMaxflow`).
    fn longest(&self) -> usize {
        let mut best = 0;
        for (pos, &i) in self.active.iter().enumerate() {
            if self.queues[i as usize].bytes > self.queues[self.active[best] as usize].bytes {
                best = pos;
            }
        }
        best
    }

    /// Drop the head of the queue at `active[pos]`; returns the packet.
    fn drop_head(&mut self, pos: usize) -> PktId {
        let i = self.active[pos] as usize;
        let q = &mut self.queues[i];
        let (id, size) = q.fifo.pop_front().expect("active queues hold packets");
        q.bytes -= size as u64;
        self.bytes -= size as u64;
        self.pkts -= 1;
        if q.fifo.is_empty() {
            q.deficit = 0;
            q.turn = false;
            self.active.remove(pos);
        }
        id
    }

    /// After a round without a departure: add (k - 1) quanta to every
    /// backlogged queue, k the fewest visits after which one can send.
    fn skip_idle_rounds(&mut self) {
        let quantum = self.quantum;
        let need =
            |q: &FlowQueue| (q.fifo.front().map_or(0, |p| p.1 as u64).saturating_sub(q.deficit)).div_ceil(quantum);
        let k = self.active.iter().map(|&i| need(&self.queues[i as usize])).min().unwrap_or(0);
        if k > 1 {
            for &i in &self.active {
                self.queues[i as usize].deficit += (k - 1) * quantum;
            }
        }
    }

    /// Bytes waiting in queue `i` (a flow's, or its bucket's).
    fn queue_bytes(&self, i: usize) -> u64 {
        self.queues.get(i).map_or(0, |q| q.bytes)
    }

    /// Offer an arriving packet of `flow` (`size` bytes); `idle`: the
    /// serialiser is free and nothing waits (the packet goes straight into
    /// service). Packets evicted by the longest-queue drop are pushed to
    /// `evicted`; `false` means the arriving packet itself is dropped.
    /// What `enqueue` does, without a link context: the link calls it
    /// directly (`Queue::Drr`), as it does `DropTail::admit`.
    #[inline]
    pub fn admit(&mut self, idle: bool, id: PktId, flow: u32, size: u32, evicted: &mut Vec<PktId>) -> bool {
        let i = self.index(flow);
        let q = self.queues.entry(i);
        if q.fifo.is_empty() {
            q.deficit = 0;
            q.turn = false;
            self.active.push_back(i as u32);
        }
        q.fifo.push_back((id, size));
        q.bytes += size as u64;
        self.bytes += size as u64;
        self.pkts += 1;
        if idle || !self.over() {
            return true;
        }
        self.drop_longest(id, evicted)
    }

    /// Longest-queue drop while the buffer is over its limit; `false` if
    /// the arriving packet `id` was the one dropped.
    #[cold]
    fn drop_longest(&mut self, id: PktId, evicted: &mut Vec<PktId>) -> bool {
        let mut admitted = true;
        while self.over() {
            let victim = self.drop_head(self.longest());
            if victim == id {
                admitted = false; // alone in the longest queue: the link drops it
            } else {
                evicted.push(victim);
            }
        }
        admitted
    }

    /// The next packet to serialise, if any (`dequeue` without a context).
    #[inline]
    pub fn take(&mut self) -> Option<PktId> {
        if self.pkts == 0 {
            return None;
        }
        // Visits that sent nothing since the last packet sent.
        let mut misses = 0;
        loop {
            let i = *self.active.front().expect("packets wait in active queues") as usize;
            let q = &mut self.queues[i];
            if !q.turn {
                q.deficit += self.quantum;
                q.turn = true;
            }
            let &(id, size) = q.fifo.front().expect("active queues hold packets");
            if q.deficit >= size as u64 {
                q.deficit -= size as u64;
                q.fifo.pop_front();
                q.bytes -= size as u64;
                self.bytes -= size as u64;
                self.pkts -= 1;
                if q.fifo.is_empty() {
                    q.deficit = 0;
                    q.turn = false;
                    self.active.pop_front();
                }
                return Some(id);
            }
            q.turn = false;
            // The visit ends: the queue goes to the tail (one element
            // moved; `rotate_left(1)`'s general copy cost a third of this
            // function's instructions).
            let front = self.active.pop_front().expect("visited");
            self.active.push_back(front);
            misses += 1;
            if misses == self.active.len() {
                // A whole round sent nothing (quantum below the packet
                // sizes): skip the rounds in which no queue could send,
                // giving every queue their quanta at once (the same
                // outcome as visiting them, in O(active queues)).
                self.skip_idle_rounds();
                misses = 0;
            }
        }
    }
}

impl QueueDiscipline for Drr {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let p = pkts.get(id);
        let (flow, size) = (p.flow, p.size);
        self.admit(ctx.idle, id, flow, size, ctx.evicted)
    }

    fn dequeue(&mut self, _ctx: &mut LinkCtx, _pkts: &mut PacketPool) -> Option<PktId> {
        self.take()
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.active.iter().flat_map(|&i| self.queues[i as usize].fifo.iter().map(|&(id, _)| id)).collect()
    }

    /// The bytes in the flow's queue (its bucket's, shared with the flows
    /// hashed there, with `buckets`).
    fn flow_len_bytes(&self, flow: u32) -> Option<u64> {
        Some(self.queue_bytes(self.index(flow)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::Packet;
    use serde_json::json;

    fn pkt(pool: &mut PacketPool, flow: u32, size: u32) -> PktId {
        pool.alloc(Packet { flow, size, ..Default::default() })
    }

    fn spec(v: serde_json::Value) -> QueueSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn backlogged_flows_with_different_sizes_get_equal_bytes_within_a_quantum() {
        // Three flows of 40, 576 and 1500-byte packets, kept backlogged:
        // after every dequeue, any two flows' served bytes differ by less
        // than quantum + the largest packet (the DRR fairness bound), and
        // at the end the shares are equal within one quantum.
        for quantum in [250u64, 1000, 1500, 4000] {
            test_ctx(false, |ctx, pool| {
                let sizes = [40u32, 576, 1500];
                let mut q = Drr::new(Limit::Packets(10_000), quantum, None);
                for (f, &s) in sizes.iter().enumerate() {
                    for _ in 0..200 {
                        let id = pkt(pool, f as u32, s);
                        assert!(q.enqueue(ctx, id, pool));
                    }
                }
                let mut served = [0u64; 3];
                for _ in 0..300 {
                    let id = q.dequeue(ctx, pool).unwrap();
                    let p = *pool.get(id);
                    served[p.flow as usize] += p.size as u64;
                    // refill so every flow stays backlogged
                    let again = pkt(pool, p.flow, p.size);
                    assert!(q.enqueue(ctx, again, pool));
                    let (lo, hi) = (served.iter().min().unwrap(), served.iter().max().unwrap());
                    assert!(hi - lo < quantum + 1500 + quantum.max(1500), "{quantum}: {served:?}");
                }
                // whole rounds: stop right after a round ends and compare
                let (lo, hi) = (*served.iter().min().unwrap(), *served.iter().max().unwrap());
                assert!(hi - lo <= quantum + 1500, "quantum {quantum}: served {served:?}");
                assert!(lo > 0);
            });
        }
    }

    /// DRR visit by visit, without skipping rounds (the reference).
    fn naive_order(sizes: &[(u32, u32)], quantum: u64) -> Vec<usize> {
        let mut fifo: Vec<VecDeque<(usize, u32)>> = Vec::new();
        for (k, &(f, s)) in sizes.iter().enumerate() {
            if fifo.len() <= f as usize {
                fifo.resize(f as usize + 1, VecDeque::new());
            }
            fifo[f as usize].push_back((k, s));
        }
        let mut active: VecDeque<usize> = VecDeque::new();
        for &(f, _) in sizes {
            if !active.contains(&(f as usize)) {
                active.push_back(f as usize);
            }
        }
        let mut dc = vec![0u64; fifo.len()];
        let mut out = Vec::new();
        while let Some(i) = active.pop_front() {
            dc[i] += quantum;
            while let Some(&(k, s)) = fifo[i].front() {
                if dc[i] < s as u64 {
                    break;
                }
                dc[i] -= s as u64;
                out.push(k);
                fifo[i].pop_front();
            }
            if fifo[i].is_empty() {
                dc[i] = 0;
            } else {
                active.push_back(i);
            }
        }
        out
    }

    #[test]
    fn small_quanta_skip_idle_rounds_without_changing_the_order() {
        let sizes: Vec<(u32, u32)> =
            (0..60).map(|k| (k % 4, [40, 1500, 576, 1040][(k as usize * 7 + k as usize / 4) % 4])).collect();
        for quantum in [1u64, 7, 250, 1000, 1500, 3000] {
            test_ctx(false, |ctx, pool| {
                let mut q = Drr::new(Limit::Packets(1000), quantum, None);
                let ids: Vec<PktId> = sizes.iter().map(|&(f, s)| pkt(pool, f, s)).collect();
                for &id in &ids {
                    assert!(q.enqueue(ctx, id, pool));
                }
                let got: Vec<usize> = std::iter::from_fn(|| q.dequeue(ctx, pool))
                    .map(|id| ids.iter().position(|&x| x == id).unwrap())
                    .collect();
                assert_eq!(got, naive_order(&sizes, quantum), "quantum {quantum}");
            });
        }
    }

    #[test]
    fn flow_ids_arriving_in_descending_order_keep_the_order() {
        // The table grows downwards (103, then 102 ...) while earlier
        // queues are backlogged: their places in `active` must follow.
        let sizes: Vec<(u32, u32)> =
            (0..60).map(|k| (103 - k % 4, [40, 1500, 576, 1040][(k as usize * 7 + k as usize / 4) % 4])).collect();
        for quantum in [7u64, 1000, 3000] {
            test_ctx(false, |ctx, pool| {
                let mut q = Drr::new(Limit::Packets(1000), quantum, None);
                let ids: Vec<PktId> = sizes.iter().map(|&(f, s)| pkt(pool, f, s)).collect();
                for &id in &ids {
                    assert!(q.enqueue(ctx, id, pool));
                }
                assert_eq!(q.queues.len(), 4, "flows 100..=103 only");
                assert_eq!(q.flow_len_bytes(99), Some(0));
                let got: Vec<usize> = std::iter::from_fn(|| q.dequeue(ctx, pool))
                    .map(|id| ids.iter().position(|&x| x == id).unwrap())
                    .collect();
                assert_eq!(got, naive_order(&sizes, quantum), "quantum {quantum}");
            });
        }
    }

    #[test]
    fn rounds_of_equal_packets_serve_flows_in_turn() {
        test_ctx(false, |ctx, pool| {
            let mut q = Drr::new(Limit::Packets(100), 1500, None);
            for _ in 0..3 {
                for f in [7, 2, 9] {
                    let id = pkt(pool, f, 1040);
                    q.enqueue(ctx, id, pool);
                }
            }
            let order: Vec<u32> = (0..9)
                .map(|_| {
                    let id = q.dequeue(ctx, pool).unwrap();
                    pool.get(id).flow
                })
                .collect();
            // quantum 1500 >= 1040: one packet per visit until the deficit
            // carried over (460 per visit) pays for a second one
            assert_eq!(&order[..3], &[7, 2, 9]);
            assert_eq!(order.iter().filter(|&&f| f == 7).count(), 3);
            assert_eq!(q.len_pkts(), 0);
            assert_eq!(q.len_bytes(), 0);
            assert!(q.dequeue(ctx, pool).is_none());
        });
    }

    #[test]
    fn a_burst_evicts_its_own_packets_not_another_flows_share() {
        // Buffer of 10 packets. Flow 1 holds 3; flow 2 bursts 20: the
        // longest queue (flow 2's) loses its head each time the buffer is
        // over, so flow 1 keeps its 3 and flow 2 ends with 7.
        test_ctx(false, |ctx, pool| {
            let mut q = Drr::new(Limit::Packets(10), 1500, None);
            let mine: Vec<PktId> = (0..3).map(|_| pkt(pool, 1, 1000)).collect();
            for &id in &mine {
                assert!(q.enqueue(ctx, id, pool));
            }
            let burst: Vec<PktId> = (0..20).map(|_| pkt(pool, 2, 1000)).collect();
            for &id in &burst {
                assert!(q.enqueue(ctx, id, pool), "the arrival is admitted, the longest queue's head goes");
            }
            assert_eq!(q.flow_len_bytes(1), Some(3000));
            assert_eq!(q.flow_len_bytes(2), Some(7000));
            assert_eq!(q.flow_len_bytes(3), Some(0));
            // the evicted packets are the burst's first 13, dropped from the head
            assert_eq!(ctx.evicted.as_slice(), &burst[..13]);
            let mut left = q.waiting(pool);
            left.sort();
            let mut expect: Vec<PktId> = mine.iter().chain(&burst[13..]).copied().collect();
            expect.sort();
            assert_eq!(left, expect);
        });
    }

    #[test]
    fn byte_limit_drops_from_the_longest_queue_and_an_alone_arrival_is_refused() {
        test_ctx(false, |ctx, pool| {
            let mut q = Drr::new(Limit::Bytes(3000), 1500, None);
            let a = pkt(pool, 1, 1000);
            let b = pkt(pool, 1, 1000);
            let c = pkt(pool, 2, 500);
            assert!(q.enqueue(ctx, a, pool) && q.enqueue(ctx, b, pool) && q.enqueue(ctx, c, pool));
            // 3500 > 3000: flow 1 (2000 bytes) is the longest: its head `a` goes
            let d = pkt(pool, 2, 1000);
            assert!(q.enqueue(ctx, d, pool));
            assert_eq!(ctx.evicted.as_slice(), &[a]);
            assert_eq!(q.len_bytes(), 2500);
            // a packet larger than the whole buffer, alone in its queue and
            // so the longest: it is the one dropped
            let big = pkt(pool, 3, 4000);
            assert!(!q.enqueue(ctx, big, pool));
            assert_eq!(q.len_bytes(), 2500);
            assert_eq!(q.flow_len_bytes(3), Some(0));
        });
    }

    #[test]
    fn small_quantum_still_serves_and_an_idle_link_takes_any_packet() {
        test_ctx(true, |ctx, pool| {
            let mut q = Drr::new(Limit::Bytes(500), 250, None);
            let a = pkt(pool, 0, 1040);
            assert!(q.enqueue(ctx, a, pool));
            assert_eq!(q.dequeue(ctx, pool), Some(a), "five visits of 250 bytes pay for 1040");
        });
    }

    #[test]
    fn a_lone_packet_at_an_idle_link_leaves_the_state_as_it_was() {
        // What `Queue::passes_idle` relies on: at an idle, empty DRR a
        // packet of any size (below, at and above the quantum) is admitted,
        // taken straight back, and leaves no queue, deficit or turn behind,
        // so later service is as if it never passed.
        test_ctx(true, |ctx, pool| {
            let mut q = Drr::new(Limit::Packets(3), 250, None);
            for size in [40u32, 250, 1040, 9000] {
                let id = pkt(pool, 5, size);
                assert!(q.enqueue(ctx, id, pool));
                assert_eq!(q.dequeue(ctx, pool), Some(id));
                assert_eq!((q.len_pkts(), q.len_bytes(), q.active.len()), (0, 0, 0));
                let fq = &q.queues[5];
                assert_eq!((fq.deficit, fq.turn, fq.fifo.len(), fq.bytes), (0, false, 0, 0), "size {size}");
            }
        });
    }

    #[test]
    fn buckets_hash_flows_into_shared_queues() {
        test_ctx(false, |ctx, pool| {
            let mut q = Drr::new(Limit::Packets(100), 1500, Some(1));
            for f in 0..4 {
                let id = pkt(pool, f, 100);
                q.enqueue(ctx, id, pool);
            }
            // one bucket: every flow shares it
            assert_eq!(q.flow_len_bytes(0), Some(400));
            assert_eq!(q.flow_len_bytes(3), Some(400));
        });
        // ns-2's hash of small ids: i - i/16 + i/256, so ids 0..10 spread
        assert_eq!((0..10).map(|f| ns2_bucket(f, 10)).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let err = |v| Drr::from_spec(&spec(v), "q").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(Drr::from_spec(&spec(json!({"kind": "drr", "limit_bytes": 25000})), "q").is_ok());
        assert!(Drr::from_spec(
            &spec(json!({"kind": "drr", "limit_pkts": 5, "quantum_bytes": 250, "buckets": 10})),
            "q"
        )
        .is_ok());
        let e = err(json!({"kind": "drr"}));
        assert!(e.contains("no limit given"), "{e}");
        let e = err(json!({"kind": "drr", "limit_pkts": 0}));
        assert!(e.contains("q.limit_pkts") && e.contains("drr queue"), "{e}");
        let e = err(json!({"kind": "drr", "limit_pkts": 5, "quantum_bytes": 0}));
        assert!(e.contains("q.quantum_bytes") && e.contains("from 1"), "{e}");
        let e = err(json!({"kind": "drr", "limit_pkts": 5, "buckets": 0}));
        assert!(e.contains("q.buckets") && e.contains("from 1"), "{e}");
        let e = err(json!({"kind": "drr", "limit_pkts": 5, "quantum": 250}));
        assert!(e.contains("q.quantum") && e.contains("unknown field") && e.contains("quantum_bytes"), "{e}");
    }
}
