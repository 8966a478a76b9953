//! DropTail: FIFO that drops arrivals when full, limited in packets or bytes.
//!
//! The limit counts packets waiting behind the one being serialised; a
//! packet that finds the link idle goes straight into service whatever its
//! size (ns-2's `Queue::recv` also hands it to the link at once).
use super::{QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId, NO_PKT};
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::{ConfigError, QueueSpec};

pub const KIND: QueueKind = QueueKind {
    name: "droptail",
    doc: "FIFO, drops arrivals when full",
    params: || {
        vec![
            ParamDoc {
                name: "limit_pkts",
                default: serde_json::Value::Null,
                doc: "capacity in packets waiting (one of limit_pkts/limit_bytes)",
            },
            ParamDoc { name: "limit_bytes", default: serde_json::Value::Null, doc: "capacity in bytes waiting" },
        ]
    },
    build: |q, path| Ok(super::Queue::DropTail(DropTail::new(Limit::from_spec(q, path)?))),
};

/// The FIFO storage a single-queue discipline keeps: its packets chained
/// through the packet pool's wire links (a waiting packet is on no wire),
/// its head, tail and length, and the bytes waiting. DropTail and RED
/// share it.
///
/// Why chained, not a `VecDeque` of ids: a ring per link keeps the
/// capacity of its longest queue for the rest of the run, and with many
/// flows every access link's ring held a slow-start burst (130 bytes per
/// flow on S2); each enqueue also wrote a line of its own. Chained, an
/// enqueue writes the slot of the packet before it, which that packet's
/// own arrival has just read, and a dequeue reads the slot of the packet
/// it hands to the serialiser, which reads it next anyway.
pub struct Fifo {
    head: PktId,
    tail: PktId,
    len: u32,
    bytes: u64,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo { head: NO_PKT, tail: NO_PKT, len: 0, bytes: 0 }
    }
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, id: PktId, size: u32, pkts: &mut PacketPool) {
        if self.len == 0 {
            self.head = id;
        } else {
            pkts.set_wire_next(self.tail, id);
        }
        self.tail = id;
        self.len += 1;
        self.bytes += size as u64;
    }
    /// The `i`th waiting packet from the head (a walk of `i` slots).
    #[inline]
    pub fn get(&self, i: usize, pkts: &PacketPool) -> Option<PktId> {
        if i >= self.len as usize {
            return None;
        }
        let mut id = self.head;
        for _ in 0..i {
            id = pkts.wire(id).1;
        }
        Some(id)
    }
    /// The head and its size.
    #[inline]
    pub fn pop(&mut self, pkts: &PacketPool) -> Option<(PktId, u32)> {
        if self.len == 0 {
            return None;
        }
        let id = self.head;
        self.len -= 1;
        if self.len > 0 {
            self.head = pkts.wire(id).1;
        }
        let size = pkts.get(id).size;
        self.bytes -= size as u64;
        Some((id, size))
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn ids(&self, pkts: &PacketPool) -> Vec<PktId> {
        (0..self.len())
            .scan(self.head, |id, i| {
                let here = *id;
                if i + 1 < self.len() {
                    *id = pkts.wire(here).1;
                }
                Some(here)
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// The buffer size of a queue table: exactly one of `limit_pkts` and
    /// `limit_bytes`, at least 1; no keys beyond the discipline's own.
    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Limit, ConfigError> {
        Params::new(&q.extra, path)
            .finish_with(&format!("queue kind \"{}\"", q.kind), &["kind", "limit_pkts", "limit_bytes"])?;
        Self::from_fields(q, path)
    }

    /// `limit_pkts`/`limit_bytes` alone (the caller checks other keys).
    pub fn from_fields(q: &QueueSpec, path: &str) -> Result<Limit, ConfigError> {
        let err = |f: String, m: &str| Err(ConfigError::new(f, m));
        match (q.limit_pkts, q.limit_bytes) {
            (Some(0), _) => err(
                format!("{path}.limit_pkts"),
                &format!("0 is not allowed; a {} queue holds at least 1 packet", q.kind),
            ),
            (_, Some(0)) => err(format!("{path}.limit_bytes"), "0 is not allowed; must be >= 1 byte"),
            (Some(_), Some(_)) => err(path.to_string(), "both limit_pkts and limit_bytes given; set exactly one"),
            (None, None) => err(path.to_string(), "no limit given; set limit_pkts or limit_bytes"),
            (Some(n), None) => Ok(Limit::Packets(n)),
            (None, Some(b)) => Ok(Limit::Bytes(b)),
        }
    }
}

pub struct DropTail {
    limit: Limit,
    fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, fifo: Fifo::default() }
    }

    /// The `i`th packet to be served after the one now leaving.
    #[inline]
    pub fn upcoming(&self, i: usize, pkts: &PacketPool) -> Option<PktId> {
        self.fifo.get(i, pkts)
    }

    /// `enqueue` without a context (the link's fast path): admit a packet
    /// of `size` bytes unless the buffer is full.
    #[inline]
    pub fn admit(&mut self, idle: bool, id: PktId, size: u32, pkts: &mut PacketPool) -> bool {
        let fits = idle || self.fits(self.fifo.len(), self.fifo.bytes(), size);
        if fits {
            self.fifo.push(id, size, pkts);
        }
        fits
    }

    /// The buffer size.
    #[inline]
    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Whether a packet of `size` bytes fits behind `pkts` packets of
    /// `bytes` bytes waiting (a link that is not idle).
    #[inline]
    pub fn fits(&self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => (pkts as u64) < n,
            Limit::Bytes(b) => bytes + size as u64 <= b,
        }
    }

    /// `dequeue` without a context: the head of the FIFO.
    #[inline]
    pub fn take(&mut self, pkts: &PacketPool) -> Option<PktId> {
        Some(self.fifo.pop(pkts)?.0)
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let size = pkts.get(id).size;
        self.admit(ctx.idle, id, size, pkts)
    }

    fn dequeue(&mut self, _ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        self.take(pkts)
    }

    #[inline]
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

    fn pkt(pool: &mut PacketPool, size: u32) -> PktId {
        pool.alloc(Packet { size, ..Default::default() })
    }
    #[test]
    fn packet_limit_drops_the_arrival_that_overflows() {
        test_ctx(false, |ctx, pool| {
            let mut q = DropTail::new(Limit::Packets(2));
            let a = pkt(pool, 100);
            let b = pkt(pool, 100);
            let c = pkt(pool, 100);
            assert!(q.enqueue(ctx, a, pool));
            assert!(q.enqueue(ctx, b, pool));
            assert!(!q.enqueue(ctx, c, pool));
            assert_eq!(q.dequeue(ctx, pool), Some(a));
            assert!(q.enqueue(ctx, c, pool));
            assert_eq!(q.len_pkts(), 2);
        });
    }
    /// The chained FIFO against a `VecDeque`: pushes and pops interleaved,
    /// with other packets on a wire of the same pool in between, give the
    /// same order, lengths, bytes, `get` and `ids`.
    #[test]
    fn the_chained_fifo_is_a_fifo() {
        use rand::{Rng, SeedableRng};
        let mut pool = PacketPool::default();
        let mut f = Fifo::default();
        let mut want: std::collections::VecDeque<(PktId, u32)> = Default::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut wire_tail = None;
        for _ in 0..5000 {
            if rng.gen_bool(0.55) {
                let size = rng.gen_range(40..1500);
                let id = pkt(&mut pool, size);
                f.push(id, size, &mut pool);
                want.push_back((id, size));
            } else {
                assert_eq!(f.pop(&pool), want.pop_front());
                // another link's wire chains its own packets meanwhile
                let w = pkt(&mut pool, 40);
                pool.set_wire(w, 0);
                if let Some(t) = wire_tail {
                    pool.set_wire_next(t, w);
                }
                wire_tail = Some(w);
            }
            assert_eq!(f.len(), want.len());
            assert_eq!(f.bytes(), want.iter().map(|e| e.1 as u64).sum::<u64>());
            for i in 0..3 {
                assert_eq!(f.get(i, &pool), want.get(i).map(|e| e.0));
            }
        }
        assert_eq!(f.ids(&pool), want.iter().map(|e| e.0).collect::<Vec<_>>());
    }
    #[test]
    fn byte_limit_counts_bytes() {
        test_ctx(false, |ctx, pool| {
            let mut q = DropTail::new(Limit::Bytes(1500));
            let (a, b, c) = (pkt(pool, 1040), pkt(pool, 1040), pkt(pool, 40));
            assert!(q.enqueue(ctx, a, pool));
            assert!(!q.enqueue(ctx, b, pool));
            assert!(q.enqueue(ctx, c, pool));
            assert_eq!(q.len_bytes(), 1080);
        });
    }
    #[test]
    fn idle_link_serves_a_packet_larger_than_the_byte_limit() {
        test_ctx(true, |ctx, pool| {
            let mut q = DropTail::new(Limit::Bytes(1000));
            let a = pkt(pool, 1040);
            assert!(q.enqueue(ctx, a, pool), "an idle link takes the packet into service");
            assert_eq!(q.dequeue(ctx, pool), Some(a));
        });
    }
}
