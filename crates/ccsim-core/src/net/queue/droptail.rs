//! DropTail: FIFO that drops arrivals when full, limited in packets or bytes.
//!
//! The limit counts packets waiting behind the one being serialised; a
//! packet that finds the link idle goes straight into service whatever its
//! size (ns-2's `Queue::recv` also hands it to the link at once).
use super::{QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::{ConfigError, QueueSpec};
use std::collections::VecDeque;

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

/// The FIFO storage a single-queue discipline keeps: packet ids with their
/// sizes (so dequeue needs no pool lookup) and the bytes waiting. DropTail
/// and RED share it.
#[derive(Default)]
pub struct Fifo {
    q: VecDeque<(PktId, u32)>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, id: PktId, size: u32) {
        self.q.push_back((id, size));
        self.bytes += size as u64;
    }
    /// The `i`th waiting packet from the head.
    #[inline]
    pub fn get(&self, i: usize) -> Option<PktId> {
        self.q.get(i).map(|e| e.0)
    }
    /// The head and its size.
    #[inline]
    pub fn pop(&mut self) -> Option<(PktId, u32)> {
        let (id, size) = self.q.pop_front()?;
        self.bytes -= size as u64;
        Some((id, size))
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn ids(&self) -> Vec<PktId> {
        self.q.iter().map(|&(id, _)| id).collect()
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
    pub fn upcoming(&self, i: usize) -> Option<PktId> {
        self.fifo.get(i)
    }

    /// `enqueue` without a context (the link's fast path): admit a packet
    /// of `size` bytes unless the buffer is full.
    #[inline]
    pub fn admit(&mut self, idle: bool, id: PktId, size: u32) -> bool {
        let fits = idle || self.fits(self.fifo.len(), self.fifo.bytes(), size);
        if fits {
            self.fifo.push(id, size);
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
    pub fn take(&mut self) -> Option<PktId> {
        Some(self.fifo.pop()?.0)
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        self.admit(ctx.idle, id, pkts.get(id).size)
    }

    fn dequeue(&mut self, _ctx: &mut LinkCtx, _pkts: &mut PacketPool) -> Option<PktId> {
        self.take()
    }

    #[inline]
    fn len_pkts(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn waiting(&self) -> Vec<PktId> {
        self.fifo.ids()
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
