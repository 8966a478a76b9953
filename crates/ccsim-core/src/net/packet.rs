//! Packets and the slab they live in.
//!
//! A packet is a common header that routers read and write (flow, route
//! position, size, kind, send timestamp, the ECN codepoint and one IP-level
//! option field), a transport part (TCP, UDP, or a transport's own) and an
//! optional congestion header for explicit-feedback schemes (XCP). Queue
//! disciplines and per-link stages get `&mut Packet` on enqueue and dequeue,
//! so they can mark, stamp or rewrite these fields.
//!
//! Packets are created once, passed around by `PktId` (an index into the
//! slab), and their slot is recycled through a free list, so the steady state
//! allocates nothing per packet.
use crate::sim::Time;

pub type PktId = u32;

/// A SACK block: segments `[start, end)`.
pub type SackBlock = (u64, u64);
pub const MAX_SACK_BLOCKS: usize = 3;

/// Data or acknowledgement: routers route ACKs on the flow's reverse path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    Data,
    Ack,
}

/// The IP ECN field (RFC 3168 §5): a router may set `Ce` only on an
/// ECN-capable (`Ect0`/`Ect1`) packet; otherwise it drops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// TCP's part of a packet. Sequence numbers count segments, as in ns-2.
///
/// SACK blocks are stored as 32-bit offsets above the cumulative ACK (a
/// block always lies above it, within the window; `rwnd_pkts` is bounded
/// accordingly), which keeps the whole packet at 88 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpHeader {
    /// Data: segment number. ACK: the receiver's TSval (read it with
    /// [`TcpHeader::tsval`]).
    pub seq: u64,
    /// ACK: next segment expected by the receiver (cumulative ACK). Data:
    /// TSecr (read it with [`TcpHeader::tsecr`]).
    pub ack: u64,
    /// SACK blocks as (start, end) offsets above `ack`: use `push_sack` and
    /// `sack_blocks`.
    pub sack_off: [(u32, u32); MAX_SACK_BLOCKS],
    /// The number of SACK blocks (bits 0-1, use `n_sack`) and, on an ACK,
    /// a zero window (bit 6, `zero_window`) and AccECN's AE flag (bit 7,
    /// use `ace`/`set_ace`): one byte, so the
    /// packet stays at 88 bytes. Read and write it through those methods.
    pub sack_ae: u8,
    /// Data: a retransmission.
    pub retx: bool,
    /// ACK: ECN-Echo, set from a CE mark until the sender's CWR (RFC 3168
    /// §6.1.3); with AccECN bit 0 of the ACE field (RFC 9768 §3.2.2).
    pub ece: bool,
    /// Data: Congestion Window Reduced, the sender's answer to ECE; on an
    /// AccECN ACK bit 1 of the ACE field.
    pub cwr: bool,
    /// ACK: the advertised window W_a in segments, 0 when the receiver
    /// advertises nothing beyond the flow's configured `rwnd_pkts` (GWA:
    /// Gerla et al. eq. 2, W_a = min(B_r, B_n)).
    pub wnd: u32,
}

const AE_BIT: u8 = 0x80;
/// A zero receive window (bit 6 of `sack_ae`).
const ZERO_WND_BIT: u8 = 0x40;
/// The first SACK block is a D-SACK (bit 5 of `sack_ae`).
const DSACK_BIT: u8 = 0x20;
/// The SACK block count (bits 0-1).
const N_SACK_MASK: u8 = 0x03;
/// Data: the PSH flag (bit 4 of `sack_ae`).
const PSH_BIT: u8 = 0x10;

impl TcpHeader {
    /// ACK: its TSval, the time the receiver sent it (RFC 7323 §3), kept
    /// in `seq`, which an ACK does not otherwise use; 0 when the receiver
    /// sends none (a replayed ACK).
    pub fn tsval(&self) -> Time {
        self.seq
    }

    /// Data: its TSecr, the TSval of the latest ACK the sender had received
    /// (RFC 7323 §4.3 `TS.Recent`), kept in `ack`, which a data segment
    /// does not otherwise use; 0 before the first ACK. A Linux receiver
    /// measures its RTT from it (`tcp_rcv_rtt_measure_ts`).
    pub fn tsecr(&self) -> Time {
        self.ack
    }

    /// The number of SACK blocks.
    pub fn n_sack(&self) -> usize {
        (self.sack_ae & N_SACK_MASK) as usize
    }

    /// ACK: the receiver advertises a zero window (RFC 9293 §3.8.6.1):
    /// the sender may send nothing but window probes. `wnd` = 0 without
    /// it means no window is advertised. Only replayed ACKs carry it
    /// (`transport::tcp::replay`): ccsim's receivers read every segment
    /// at once.
    pub fn zero_window(&self) -> bool {
        self.sack_ae & ZERO_WND_BIT != 0
    }

    /// Advertise a zero window.
    pub fn set_zero_window(&mut self) {
        self.sack_ae |= ZERO_WND_BIT;
    }

    /// Data: the PSH flag (RFC 9293 §3.9.1.2). Only Linux's GSO sender
    /// sets it (`__tcp_transmit_skb` forces it on every transmission of
    /// more than one segment, so it reaches the wire on the last), and
    /// only Linux's receiver reads it (`ICSK_ACK_PUSHED`, see
    /// `transport::tcp::receiver`).
    pub fn psh(&self) -> bool {
        self.sack_ae & PSH_BIT != 0
    }

    /// Set PSH on a data segment.
    pub fn set_psh(&mut self) {
        self.sack_ae |= PSH_BIT;
    }

    /// The first SACK block reports a duplicate segment (RFC 2883 D-SACK),
    /// below the cumulative ACK or inside the second block.
    pub fn dsack(&self) -> Option<SackBlock> {
        (self.sack_ae & DSACK_BIT != 0).then(|| self.sack_block(0))
    }

    /// Report `(start, end)` as a D-SACK, before any SACK block (RFC 2883
    /// §4: the first block). It may lie below `ack`, which must be set.
    pub fn push_dsack(&mut self, (start, end): SackBlock) {
        debug_assert!(self.n_sack() == 0 && end >= start);
        self.sack_off[0] = (start.wrapping_sub(self.ack) as u32, end.wrapping_sub(self.ack) as u32);
        self.sack_ae = (self.sack_ae | DSACK_BIT) + 1;
    }

    /// The SACK blocks other than a D-SACK, as the scoreboard takes them.
    pub fn sack_blocks_no_dsack(&self) -> impl Iterator<Item = SackBlock> + '_ {
        let first = usize::from(self.sack_ae & DSACK_BIT != 0);
        (first..self.n_sack()).map(|i| self.sack_block(i))
    }

    /// Append a SACK block (segments `[start, end)`, above `ack`, which
    /// must be set first); `false` when the header holds the maximum.
    pub fn push_sack(&mut self, (start, end): SackBlock) -> bool {
        let n = self.n_sack();
        if n == MAX_SACK_BLOCKS {
            return false;
        }
        debug_assert!(start >= self.ack && end >= start && end - self.ack <= u32::MAX as u64);
        self.sack_off[n] = ((start - self.ack) as u32, (end - self.ack) as u32);
        self.sack_ae += 1;
        true
    }

    /// The AccECN ACE field (RFC 9768 §3.2.2): the three header flags AE,
    /// CWR and ECE read as a counter, the receiver's count of CE-marked
    /// packets modulo 8.
    pub fn ace(&self) -> u8 {
        (u8::from(self.sack_ae & AE_BIT != 0) << 2) | (u8::from(self.cwr) << 1) | u8::from(self.ece)
    }

    /// Set the ACE field to `v` modulo 8.
    pub fn set_ace(&mut self, v: u8) {
        self.ece = v & 1 != 0;
        self.cwr = v & 2 != 0;
        self.sack_ae = (self.sack_ae & !AE_BIT) | if v & 4 != 0 { AE_BIT } else { 0 };
    }

    /// The AE flag (the ACE field's most significant bit).
    pub fn ae(&self) -> bool {
        self.sack_ae & AE_BIT != 0
    }

    /// SACK block `i` in absolute segments (a D-SACK's offsets are
    /// signed: it may lie below the cumulative ACK).
    pub fn sack_block(&self, i: usize) -> SackBlock {
        let (s, e) = self.sack_off[i];
        if i == 0 && self.sack_ae & DSACK_BIT != 0 {
            let at = |o: u32| self.ack.wrapping_add(o as i32 as i64 as u64);
            return (at(s), at(e));
        }
        (self.ack + s as u64, self.ack + e as u64)
    }

    /// The SACK blocks, in the order the receiver reported them.
    pub fn sack_blocks(&self) -> impl Iterator<Item = SackBlock> + '_ {
        (0..self.n_sack()).map(|i| self.sack_block(i))
    }
}

/// UDP's part: a datagram counter (for traces; UDP has no ACKs).
#[derive(Clone, Copy, Debug, Default)]
pub struct UdpHeader {
    pub seq: u64,
}

/// E-TCP's part (Gu et al., §III-B and §IV). Congestion signalling and
/// reliability use separate sequence numbers, as the paper decouples them:
/// `cc_seq` labels packets, `dseq` labels data. Fields are reused between
/// data and ACKs, as ns-2 agents reuse one header type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EtcpHeader {
    /// Data: the packet's congestion sequence number (cc_seq).
    /// ACK: h_seq, the highest cc_seq the receiver has received.
    pub cc_seq: u64,
    /// Data: the data sequence number carried (in segments).
    /// ACK: TSN, the data sequence number of the packet that triggered it.
    pub dseq: u64,
    /// ACK: CACK, kept as the first data sequence number not yet received
    /// in order (the paper's "highest received in order" plus one, so no
    /// -1 is needed before anything arrived).
    pub cack: u64,
    /// ACK: LE, the smallest number such that LE..=TSN have all arrived.
    pub le: u64,
    /// ACK: bit k set when h_seq - 1 - k was received (k = 0..31).
    pub bitmap: u32,
    /// Data: a retransmission (for traces).
    pub retx: bool,
}

/// The transport part of a packet; a new transport adds its variant here.
#[derive(Clone, Copy, Debug)]
pub enum L4 {
    Tcp(TcpHeader),
    Udp(UdpHeader),
    Etcp(EtcpHeader),
}

impl Default for L4 {
    fn default() -> Self {
        L4::Tcp(TcpHeader::default())
    }
}

/// XCP's congestion header (Katabi et al. 2002, §3.1), in ns-2.35's
/// rate form (xcp/xcp-end-sys.cc, after draft-falk-xcp): the sender's
/// window and RTT estimate, and the feedback as a change of *throughput*
/// in bytes/s that routers may only lower; the sender turns it into a
/// window change with its srtt (`cwnd += feedback · srtt / mss`). On an
/// ACK, `feedback_bytes_per_s` is the receiver's echo (ns-2's
/// `reverse_feedback_`, the sum over the data packets it acknowledges) and
/// routers leave it alone. Like ns-2 (`XCP_HDR_LEN` is defined but never
/// added to a packet's size), the header adds no bytes on the wire.
/// 32-bit fields, as on the wire (routers compute in f64 and store the
/// result); keeping the packet at 88 bytes is worth more than the digits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpHeader {
    /// H_cwnd: the sender's window in bytes (segments × packet size).
    pub cwnd_bytes: f32,
    /// H_rtt: the sender's srtt in seconds; 0 before the first sample
    /// (routers then give no feedback, as ns-2).
    pub rtt_s: f32,
    /// H_feedback: desired (sender) or allowed (routers) change of the
    /// flow's throughput in bytes/s; may be negative.
    pub feedback_bytes_per_s: f32,
}

/// A congestion header between IP and the transport, read and written by
/// routers of explicit-feedback schemes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CongestionHeader {
    Xcp(XcpHeader),
}

/// `Packet::ip_opt` of a packet that carries no IP option.
pub const IP_OPT_NONE: u32 = u32::MAX;

/// Field order is fixed (`repr(C)`): what every hop reads (flow, route
/// position, kind, size, ECN, the IP option and the congestion header)
/// comes first, right after the wire link in the pool slot
/// (`PacketPool`); only the endpoint reads the transport part behind it.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Packet {
    pub flow: u32,
    /// Index in the flow's route of the link the packet is on.
    pub hop: u16,
    pub kind: Kind,
    pub ecn: Ecn,
    /// Size on the wire in bytes.
    pub size: u32,
    /// One 32-bit IP-level option routers may read and lower on the way
    /// (GWA's B_n, the available buffer along the path, in bytes);
    /// `IP_OPT_NONE` when unused.
    pub ip_opt: u32,
    /// Data: time the packet was sent; ACK: echo of the triggering data
    /// packet's send time (RFC 7323 timestamps, so every ACK of new data is
    /// a valid RTT sample even after a retransmission).
    pub ts: Time,
    pub cong: Option<CongestionHeader>,
    pub l4: L4,
}

impl Default for Packet {
    fn default() -> Self {
        Packet {
            flow: 0,
            hop: 0,
            kind: Kind::Data,
            ecn: Ecn::NotEct,
            size: 0,
            ts: 0,
            ip_opt: IP_OPT_NONE,
            l4: L4::default(),
            cong: None,
        }
    }
}

impl Packet {
    pub fn is_ack(&self) -> bool {
        self.kind == Kind::Ack
    }

    /// The TCP part, if this is a TCP packet.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.l4 {
            L4::Tcp(h) => Some(h),
            _ => None,
        }
    }
}

/// Prefetch the cache lines of `*v` (a hint only: results never depend on it).
#[inline]
pub(crate) fn prefetch_lines<T>(v: &T) {
    prefetch_span(v, std::mem::size_of::<T>());
}

/// Prefetch the first and the last line of the `bytes` bytes from `v`'s
/// address on (`bytes` at most 128: the lines in between are not
/// loaded); a hint only.
#[inline]
pub(crate) fn prefetch_span<T>(v: &T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = (v as *const T).cast::<i8>();
        let last = first.wrapping_add(bytes.saturating_sub(1));
        // SAFETY: a prefetch never faults and reads nothing into the program
        // (any address is allowed); SSE is part of the x86_64 baseline.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, bytes);
}

/// No packet: the end of a pipe list.
pub const NO_PKT: PktId = PktId::MAX;

/// Slab of packets with a free list.
///
/// Beside each packet its slot keeps the packet's place on a link's wire:
/// when it arrives at the far end and the packet behind it. Links chain
/// the packets they carry through these (an intrusive FIFO), so the wire
/// needs no memory of its own: a per-link `VecDeque` would keep the
/// capacity of the most packets ever on that wire, a sum that grows with
/// run length (the L1 soak; docs/decisions/2026-11-23-wires-through-packet-pool.md).
///
/// A slot is 104 bytes, the wire link first and then the packet with its
/// router-visible header in front, at any offset. Aligning slots to 64
/// bytes (128-byte slots, the header always in the slot's first line)
/// gains no measurable time, and its 24 bytes of padding per packet raise
/// B5's peak memory by a quarter (6.0 -> 7.5 MB;
/// docs/decisions/2026-11-23-packet-slot-size.md).
///
/// The free list is chained through the free slots' wire links (a free
/// packet is on no wire), most recently freed first, so it needs no
/// memory of its own either (a `Vec` of free ids was 4 bytes per slot
/// at its high-water mark).
pub struct PacketPool {
    slots: Vec<Slot>,
    /// The most recently freed slot, `NO_PKT` when none is free.
    free_head: PktId,
    free_len: usize,
}

/// Slots reserved up front. Grown by doubling from nothing, a slab leaves
/// every smaller copy behind in the heap (4 + 8 + ... + 512 slots, about
/// as much again as the last), pages that stay resident; a reservation
/// touches only the pages of the slots used. 2,048 slots (213 KB) is
/// above glibc's 128 KB threshold, so the slab is mapped on its own, out
/// of the heap where the other vectors grow: B1 (about 1,000 packets at
/// its peak) keeps 228 KB of anonymous memory at its peak against 292 KB
/// with 1,024 slots in the heap, the larger rows the same within their
/// run-to-run spread (docs/decisions/2026-11-26-packet-slab-reservation.md).
const INITIAL_SLOTS: usize = 2048;

impl Default for PacketPool {
    fn default() -> Self {
        PacketPool { slots: Vec::with_capacity(INITIAL_SLOTS), free_head: NO_PKT, free_len: 0 }
    }
}

#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    /// Arrival time at the far end of the wire the packet is on; while the
    /// packet waits in a link's queue (on no wire), its arrival at that
    /// queue (`set_queued_at`), for its queueing delay.
    wire_at: Time,
    /// The next packet on that wire (`NO_PKT` at the tail); in a free
    /// slot, the next free slot.
    wire_next: PktId,
    pkt: Packet,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if self.free_head != NO_PKT {
            let id = self.free_head;
            let s = &mut self.slots[id as usize];
            self.free_head = s.wire_next;
            self.free_len -= 1;
            s.pkt = p;
            id
        } else {
            self.slots.push(Slot { wire_at: 0, wire_next: NO_PKT, pkt: p });
            (self.slots.len() - 1) as PktId
        }
    }

    /// Packet `id`'s arrival time and successor on its wire.
    #[inline]
    pub(crate) fn wire(&self, id: PktId) -> (Time, PktId) {
        let s = &self.slots[id as usize];
        (s.wire_at, s.wire_next)
    }

    /// The packet behind `id` on its wire, if `id` is a slot and one is.
    #[inline]
    pub(crate) fn wire_next(&self, id: PktId) -> Option<PktId> {
        self.slots.get(id as usize).map(|s| s.wire_next).filter(|&n| n != NO_PKT)
    }

    /// Place packet `id` on a wire: arriving at `at`, last so far.
    #[inline]
    pub(crate) fn set_wire(&mut self, id: PktId, at: Time) {
        let s = &mut self.slots[id as usize];
        s.wire_at = at;
        s.wire_next = NO_PKT;
    }

    /// Note that packet `id` joins a link's queue at `at` (it is on no
    /// wire until it is served; the field is the wire's, on the slot's
    /// first line, which the hop has just read).
    #[inline]
    pub(crate) fn set_queued_at(&mut self, id: PktId, at: Time) {
        self.slots[id as usize].wire_at = at;
    }

    /// When packet `id`, which a link's queue has just released, joined it.
    #[inline]
    pub(crate) fn queued_at(&self, id: PktId) -> Time {
        self.slots[id as usize].wire_at
    }

    /// Chain `next` behind `id` on their wire.
    #[inline]
    pub(crate) fn set_wire_next(&mut self, id: PktId, next: PktId) {
        self.slots[id as usize].wire_next = next;
    }

    pub fn free(&mut self, id: PktId) {
        self.slots[id as usize].wire_next = self.free_head;
        self.free_head = id;
        self.free_len += 1;
    }

    /// Ask the CPU to start loading packet `id` into cache. The propagation
    /// pipe knows which packet arrives next long before it does: on a path
    /// with a large bandwidth-delay product (tens of thousands of packets in
    /// flight) its slot has left the cache, and the load otherwise stalls
    /// the event loop (a third of E5's time went to that one miss).
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        if let Some(s) = self.slots.get(id as usize) {
            prefetch_lines(s);
        }
    }

    /// Start loading the first line of packet `id`'s slot: its wire link
    /// and router-visible header, what its next hop reads first.
    #[inline]
    pub(crate) fn prefetch_head(&self, id: PktId) {
        if let Some(s) = self.slots.get(id as usize) {
            prefetch_lines(&s.wire_at);
        }
    }

    /// Packet `id`, if `id` names a slot (a stale id from an event's
    /// generation field may not: for prefetching only).
    #[inline]
    pub(crate) fn try_get(&self, id: PktId) -> Option<&Packet> {
        self.slots.get(id as usize).map(|s| &s.pkt)
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize].pkt
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize].pkt
    }

    /// Packets currently allocated (created and not yet freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free_len
    }

    /// Slots ever allocated: the high-water mark of live packets.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SACK count, the zero-window bit and AccECN's AE share a byte
    /// without disturbing each other.
    #[test]
    fn zero_window_sack_count_and_ae_share_a_byte() {
        let mut h = TcpHeader { ack: 10, ..Default::default() };
        assert!(!h.zero_window());
        h.set_zero_window();
        h.set_ace(7);
        for i in 0..MAX_SACK_BLOCKS as u64 {
            assert!(h.push_sack((12 + 3 * i, 13 + 3 * i)));
        }
        assert!(!h.push_sack((30, 31)));
        assert_eq!((h.n_sack(), h.ace(), h.zero_window()), (MAX_SACK_BLOCKS, 7, true));
        assert_eq!(h.sack_block(2), (18, 19));
        h.set_ace(0);
        assert_eq!((h.n_sack(), h.ace(), h.zero_window()), (MAX_SACK_BLOCKS, 0, true));
        assert_eq!(h.dsack(), None);
        assert!(!h.psh());
        let mut d = TcpHeader { seq: 5, ..Default::default() };
        d.set_psh();
        assert!(d.psh() && d.n_sack() == 0 && !d.zero_window() && d.ace() == 0 && d.dsack().is_none());
    }

    /// A D-SACK below the cumulative ACK round-trips, comes first, and is
    /// left out of the blocks the scoreboard marks.
    #[test]
    fn dsack_below_the_ack_is_the_first_block() {
        let mut h = TcpHeader { ack: 100, ..Default::default() };
        h.push_dsack((97, 98));
        assert!(h.push_sack((103, 105)));
        assert_eq!(h.dsack(), Some((97, 98)));
        assert_eq!(h.sack_blocks().collect::<Vec<_>>(), vec![(97, 98), (103, 105)]);
        assert_eq!(h.sack_blocks_no_dsack().collect::<Vec<_>>(), vec![(103, 105)]);
        let mut g = TcpHeader { ack: 100, ..Default::default() };
        g.push_dsack((104, 105));
        g.push_sack((103, 106));
        assert_eq!((g.dsack(), g.n_sack()), (Some((104, 105)), 2));
    }

    #[test]
    fn packet_stays_within_88_bytes() {
        // The size of a packet before the congestion header and the IP
        // option existed: the slab's footprint and cache use depend on it.
        assert!(std::mem::size_of::<Packet>() <= 88, "{}", std::mem::size_of::<Packet>());
    }
    #[test]
    fn a_slot_is_the_packet_and_its_wire_link() {
        // Peak memory follows packets in flight times this size (B5: 16,460
        // slots); the wire link adds 16 bytes, no padding to a line.
        assert!(std::mem::size_of::<Slot>() <= 104, "{}", std::mem::size_of::<Slot>());
    }
    #[test]
    fn freed_slots_are_reused_most_recent_first() {
        let mut pool = PacketPool::default();
        let ids: Vec<PktId> = (0..4).map(|_| pool.alloc(Packet::default())).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        pool.free(1);
        pool.free(3);
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.alloc(Packet { flow: 7, ..Default::default() }), 3);
        assert_eq!(pool.get(3).flow, 7);
        assert_eq!(pool.alloc(Packet::default()), 1);
        assert_eq!(pool.alloc(Packet::default()), 4, "then a new slot");
        assert_eq!((pool.live(), pool.capacity()), (5, 5));
    }

    #[test]
    fn sack_blocks_round_trip_above_the_ack() {
        let mut h = TcpHeader { ack: 1_000_000, ..Default::default() };
        assert!(h.push_sack((1_000_005, 1_000_009)));
        assert!(h.push_sack((1_000_020, 1_000_021)));
        assert!(h.push_sack((1_000_030, 1_000_040)));
        assert!(!h.push_sack((1_000_050, 1_000_060)), "three blocks at most");
        let b: Vec<SackBlock> = h.sack_blocks().collect();
        assert_eq!(b, [(1_000_005, 1_000_009), (1_000_020, 1_000_021), (1_000_030, 1_000_040)]);
    }
}
