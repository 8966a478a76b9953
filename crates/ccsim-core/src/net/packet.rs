//! Packets and the slab they live in.
//!
//! Packets are created once, passed around by `PktId` (an index into the
//! slab), and their slot is recycled through a free list, so the steady state
//! allocates nothing per packet. A packet carries everything routers and
//! endpoints read or write: the route position (`hop`), transport fields
//! (sequence, cumulative ACK, SACK blocks, timestamp echo) and the ECN bits.
//! Router-written header fields for explicit-feedback schemes (XCP, GWA) are
//! added here; queue disciplines get `&mut Packet` on enqueue for that reason.
use crate::sim::Time;

pub type PktId = u32;

/// A SACK block: segments `[start, end)`.
pub type SackBlock = (u64, u64);
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Debug, Default)]
pub struct Packet {
    pub flow: u32,
    /// Index in the flow's route of the link the packet is on.
    pub hop: u16,
    pub is_ack: bool,
    /// Size on the wire in bytes.
    pub size: u32,
    /// Data: segment number.
    pub seq: u64,
    /// ACK: next segment expected by the receiver (cumulative ACK).
    pub ack: u64,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub n_sack: u8,
    /// Data: time the segment was sent; ACK: echo of the triggering segment's
    /// send time (RFC 7323 timestamps, so every ACK of new data is a valid
    /// RTT sample even after a retransmission).
    pub ts: Time,
    pub retx: bool,
    /// ECN: congestion experienced (set by routers) / echo (set by receivers).
    pub ce: bool,
    pub ece: bool,
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }

    pub fn free(&mut self, id: PktId) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated (created and not yet freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots ever allocated: the high-water mark of live packets.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}
