//! A tap that writes the packets leaving a link direction as a pcap file.
//!
//! Classic libpcap format ("pcap" in the Wireshark wiki's *Development/
//! LibpcapFileFormat*, and draft-ietf-opsawg-pcap): a 24-byte global
//! header, then per packet a 16-byte record header and the captured bytes.
//! We write the nanosecond variant (magic `0xa1b23c4d`, read by tcpdump,
//! Wireshark and dpkt) because simulated time has nanosecond resolution and
//! packets on a fast link are less than a microsecond apart; the link type
//! is `LINKTYPE_RAW` (101: the record starts with the IPv4 header).
//!
//! A packet is recorded when it starts transmission on the link (the `-`
//! event), so the file holds exactly the link's `tx_pkts`; drops are not
//! on the wire and appear only in the ns-2 trace. Only headers are
//! captured (`caplen` < `len`); see [`super::wire`] for what they contain.
//! The IP identification counts the packets of each flow direction in the
//! file (from [`wire::ip_id_base`], +1 per packet, modulo 2^16): a
//! retransmission gets a new one, as from a real stack. A packet captured
//! on two links carries the same number in both files only when none of
//! its flow direction's packets were dropped between them.
//! Records stream through a buffered writer: nothing is held in memory.
use super::super::packet::Packet;
use super::wire::{self, FlowWire};
use super::{Tap, TapEvent};
use crate::sim::Time;
use std::any::Any;
use std::io::{self, Write};

/// `LINKTYPE_RAW`: raw IPv4/IPv6, no link-layer header.
pub const LINKTYPE_RAW: u32 = 101;
/// Magic of nanosecond-resolution pcap files, written in our byte order.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Largest record we ever capture: IPv4 with an option (28) + 60 TCP bytes.
pub const SNAPLEN: u32 = 128;

/// The 24-byte global header (little-endian, as the magic tells readers).
pub fn global_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes()); // version 2.4
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone = 0, sigfigs = 0
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// The 16-byte record header at simulated time `t` (ps): seconds, nanoseconds, captured and original length.
pub fn record_header(t: Time, caplen: u32, len: u32) -> [u8; 16] {
    let mut h = [0u8; 16];
    // Simulated time is in picoseconds (`sim::time`).
    h[0..4].copy_from_slice(&((t / 1_000_000_000_000) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((t % 1_000_000_000_000 / 1_000) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&caplen.to_le_bytes());
    h[12..16].copy_from_slice(&len.to_le_bytes());
    h
}

pub struct PcapTap {
    out: Box<dyn Write + Send>,
    flows: Vec<FlowWire>,
    /// Used for a flow created after the tap was attached (a workload's
    /// transfers): their addresses are not known here.
    fallback: FlowWire,
    /// Packets written so far per flow, data and ACKs (IP identification).
    sent: Vec<[u16; 2]>,
    pub packets: u64,
    err: Option<io::Error>,
}

impl PcapTap {
    /// A tap writing to `out` (wrap files in a `BufWriter`); `flows[f]`
    /// describes flow `f`.
    pub fn new(mut out: Box<dyn Write + Send>, flows: Vec<FlowWire>, fallback: FlowWire) -> Self {
        let err = out.write_all(&global_header()).err();
        PcapTap { out, flows, fallback, sent: Vec::new(), packets: 0, err }
    }
}

impl Tap for PcapTap {
    fn on_event(&mut self, ev: TapEvent, now: Time, _link: u32, pkt: &Packet) {
        if ev != TapEvent::Dequeue || self.err.is_some() {
            return;
        }
        let w = self.flows.get(pkt.flow as usize).copied().unwrap_or(FlowWire {
            src: u32::MAX - 1 - 2 * pkt.flow,
            dst: u32::MAX - 2 - 2 * pkt.flow,
            ..self.fallback
        });
        let f = pkt.flow as usize;
        if self.sent.len() <= f {
            self.sent.resize(f + 1, [0, 0]);
        }
        let n = &mut self.sent[f][pkt.is_ack() as usize];
        let ip_id = wire::ip_id_base(pkt.flow, pkt.is_ack()).wrapping_add(*n);
        *n = n.wrapping_add(1);
        let (bytes, len) = wire::headers(pkt, &w, now, ip_id);
        let r = self
            .out
            .write_all(&record_header(now, bytes.len() as u32, len.max(bytes.len() as u32)))
            .and_then(|_| self.out.write_all(&bytes));
        self.packets += 1;
        self.err = r.err();
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.err.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Shared;
    use super::*;

    #[test]
    fn file_layout() {
        let buf = Shared::default();
        let w = FlowWire { src: 0, dst: 1, mss: 1000, header: 40 };
        let mut t = PcapTap::new(Box::new(buf.clone()), vec![w], w);
        let p = Packet { size: 1040, ..Default::default() };
        t.on_event(TapEvent::Enqueue, 5, 0, &p);
        t.on_event(TapEvent::Dequeue, 2_000_000_123_456, 0, &p);
        t.on_event(TapEvent::Drop, 7, 0, &p);
        t.finish().unwrap();
        let b = buf.0.lock().unwrap().clone();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1], "nanosecond magic, little-endian");
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101);
        let r = &b[24..40];
        assert_eq!(u32::from_le_bytes(r[0..4].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(r[4..8].try_into().unwrap()), 123);
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 52, "IP 20 + TCP 32 captured");
        assert_eq!(u32::from_le_bytes(r[12..16].try_into().unwrap()), 1052);
        assert_eq!(b.len(), 24 + 16 + 52, "one record: only the dequeue is on the wire");
        assert_eq!(b[40], 0x45);
    }

    #[test]
    fn ip_ids_count_packets_per_flow_direction() {
        let buf = Shared::default();
        let w = FlowWire { src: 0, dst: 1, mss: 1000, header: 40 };
        let mut t = PcapTap::new(Box::new(buf.clone()), vec![w, w], w);
        let data = |flow| Packet { flow, size: 1040, ..Default::default() };
        let ack = |flow| Packet { flow, size: 40, kind: crate::net::packet::Kind::Ack, ..Default::default() };
        for p in [data(0), data(0), ack(0), data(1), data(0), ack(0), data(5)] {
            t.on_event(TapEvent::Dequeue, 1, 0, &p);
        }
        t.finish().unwrap();
        let b = buf.0.lock().unwrap().clone();
        let mut ids = Vec::new();
        let mut at = 24;
        while at < b.len() {
            let caplen = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
            let ip = &b[at + 16..at + 16 + caplen];
            ids.push(u16::from_be_bytes([ip[4], ip[5]]));
            assert_eq!(wire::checksum(&ip[..20]), 0, "the IP checksum covers the id");
            at += 16 + caplen;
        }
        let base = wire::ip_id_base;
        let d0 = base(0, false);
        let a0 = base(0, true);
        assert_eq!(
            ids,
            [d0, d0.wrapping_add(1), a0, base(1, false), d0.wrapping_add(2), a0.wrapping_add(1), base(5, false)]
        );
        assert_ne!(d0, a0);
        assert_ne!(d0, base(1, false));
    }
}
