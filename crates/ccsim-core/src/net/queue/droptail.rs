//! DropTail: FIFO that drops arrivals when full, limited in packets or bytes.
use super::QueueDiscipline;
use crate::net::packet::{Packet, PktId};
use crate::sim::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

pub struct DropTail {
    limit: Limit,
    fifo: VecDeque<(PktId, u32)>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, fifo: VecDeque::new(), bytes: 0 }
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, _now: Time, id: PktId, pkt: &mut Packet) -> bool {
        let fits = match self.limit {
            Limit::Packets(n) => (self.fifo.len() as u64) < n,
            Limit::Bytes(b) => self.bytes + pkt.size as u64 <= b,
        };
        if fits {
            self.fifo.push_back((id, pkt.size));
            self.bytes += pkt.size as u64;
        }
        fits
    }

    fn dequeue(&mut self, _now: Time) -> Option<PktId> {
        let (id, size) = self.fifo.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn waiting(&self) -> Vec<PktId> {
        self.fifo.iter().map(|&(id, _)| id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn pkt(size: u32) -> Packet {
        Packet { size, ..Default::default() }
    }
    #[test]
    fn packet_limit_drops_the_arrival_that_overflows() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.enqueue(0, 1, &mut pkt(100)));
        assert!(q.enqueue(0, 2, &mut pkt(100)));
        assert!(!q.enqueue(0, 3, &mut pkt(100)));
        assert_eq!(q.dequeue(0), Some(1));
        assert!(q.enqueue(0, 4, &mut pkt(100)));
        assert_eq!(q.len_pkts(), 2);
    }
    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = DropTail::new(Limit::Bytes(1500));
        assert!(q.enqueue(0, 1, &mut pkt(1040)));
        assert!(!q.enqueue(0, 2, &mut pkt(1040)));
        assert!(q.enqueue(0, 3, &mut pkt(40)));
        assert_eq!(q.len_bytes(), 1080);
    }
}
