//! Real IPv4/TCP/UDP headers for simulated packets, for the pcap tap.
//!
//! A simulated packet carries segment numbers, a wire size and a few flags;
//! a capture needs the bytes a real stack would have put on the wire. This
//! module is that mapping, kept apart from the file format so it can be
//! tested byte by byte:
//!
//! - Addresses: node `i` is `10.0.0.0 + i + 1` (so `s0`, `r0` … of a
//!   topology get distinct addresses in one /8). Ports: the sender uses
//!   `10000 + flow` (mod 50000), the receiver `5001`, so every flow has its
//!   own 4-tuple.
//! - TCP sequence numbers are in bytes, `ISN + segment · mss` (RFC 793
//!   §3.3, modulo 2^32), with a per-flow ISN ([`isn`]); ACK numbers
//!   likewise `ISN + ack · mss`. The receiver sends no data, so its own
//!   sequence number is its ISN ([`peer_isn`]) throughout.
//! - Options (RFC 7323 §3, RFC 2018 §3): every TCP packet carries a
//!   timestamp in microseconds of simulated time. A data segment's TSval
//!   is its send time and its TSecr is 0: a real sender echoes the TSval
//!   of the last ACK it received, but ccsim's senders keep no such value
//!   and a packet carries one timestamp only (its send time, or on an ACK
//!   the echo), so the tap cannot know it. An ACK's TSval is the time it
//!   crosses the tapped link and its TSecr echoes the send time of the
//!   data it acknowledges, as ccsim's receivers do. ACKs carry their SACK
//!   blocks in bytes. An XCP congestion
//!   header is TCP option 253 (RFC 4727's experimental kind) holding
//!   H_cwnd, H_rtt, H_feedback as IEEE-754 f32s; SACK blocks that no longer
//!   fit in the 40 option bytes are left out, as a real stack does.
//! - ECN (RFC 3168 §5, §6.1): the IP ECN field from the packet's codepoint;
//!   ECE on ACKs that echo a mark, CWR on data that answer one. PSH on the
//!   data segments whose sender set it (Linux's GSO sender, on the last
//!   segment of each transmission of more than one).
//! - GWA's IP-level option (B_n / v) is IPv4 option 158 (RFC 4727's
//!   experimental copy-class-0 option 30) with the 32-bit value.
//! - IP identification: the caller's per-flow, per-direction counter
//!   (the pcap tap numbers the packets it writes, [`ip_id_base`]).
//! - Lengths: IP total length = real header lengths + the segment's payload
//!   (the simulated size minus the flow's `header_bytes`); the payload is
//!   not captured. Checksums: the IP header checksum (RFC 791 §3.1) is
//!   exact; the TCP/UDP checksums (RFC 793 §3.1, RFC 768) are computed
//!   over the headers and an all-zero payload of the stated length.
//! - UDP flows are UDP (RFC 768). E-TCP packets are UDP to port 5002 whose
//!   first [`ETCP_HDR_LEN`] payload bytes are E-TCP's header ([`etcp_header`]).
use super::super::packet::{CongestionHeader, Ecn, Kind, Packet, IP_OPT_NONE, L4};
use crate::sim::Time;

/// What a flow looks like on the wire: its ends and how segments map to
/// bytes. One per simulated flow, built when the tap is attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWire {
    /// Source and sink node indices (addresses via [`node_addr`]).
    pub src: u32,
    pub dst: u32,
    /// Payload bytes per full segment, and the simulated header bytes
    /// (`mss_bytes`, `header_bytes` of the flow's scenario entry).
    pub mss: u32,
    pub header: u32,
}

/// IPv4 address of node `i`: `10.0.0.0 + i + 1`.
pub fn node_addr(i: u32) -> [u8; 4] {
    (0x0A00_0000u32 | (i.wrapping_add(1) & 0x00FF_FFFF)).to_be_bytes()
}

/// The sender's port of flow `f`.
pub fn sender_port(f: u32) -> u16 {
    (10_000 + f % 50_000) as u16
}
/// The receiver's port of every TCP and UDP flow.
pub const RECEIVER_PORT: u16 = 5001;
/// The receiver's port of E-TCP flows (UDP-encapsulated).
pub const ETCP_PORT: u16 = 5002;

/// Initial sequence number of flow `f`'s sender: a fixed odd multiplicative
/// hash of the flow id (Knuth), so flows differ and numbers wrap mod 2^32
/// as real ones do, yet every run writes the same bytes.
pub fn isn(f: u32) -> u32 {
    f.wrapping_add(1).wrapping_mul(0x9E37_79B1)
}
/// Initial sequence number of flow `f`'s receiver.
pub fn peer_isn(f: u32) -> u32 {
    !isn(f)
}

/// First IP identification of flow `f`'s data (`ack = false`) and ACKs:
/// distinct per flow and direction, the same in every run.
pub fn ip_id_base(f: u32, ack: bool) -> u16 {
    let h = if ack { peer_isn(f) } else { isn(f) };
    (h >> 16) as u16
}

/// Microseconds of simulated time (picoseconds), as a 32-bit TCP timestamp.
fn ts_us(t: Time) -> u32 {
    (t / 1_000_000) as u32
}

/// RFC 1071 one's-complement sum of `data` added to `acc` (not folded).
fn sum16(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Internet checksum (RFC 1071) of `data`.
pub fn checksum(data: &[u8]) -> u16 {
    fold(sum16(0, data))
}

/// Length of E-TCP's header as written into the UDP payload.
pub const ETCP_HDR_LEN: usize = 38;

/// E-TCP's header (Gu et al. §III-B) in network byte order: kind (0 data,
/// 1 ACK), retransmission flag, cc_seq, dseq, cack, le (u64 each), bitmap
/// (u32).
pub fn etcp_header(p: &Packet, h: &super::super::packet::EtcpHeader) -> [u8; ETCP_HDR_LEN] {
    let mut b = [0u8; ETCP_HDR_LEN];
    b[0] = p.is_ack() as u8;
    b[1] = h.retx as u8;
    b[2..10].copy_from_slice(&h.cc_seq.to_be_bytes());
    b[10..18].copy_from_slice(&h.dseq.to_be_bytes());
    b[18..26].copy_from_slice(&h.cack.to_be_bytes());
    b[26..34].copy_from_slice(&h.le.to_be_bytes());
    b[34..38].copy_from_slice(&h.bitmap.to_be_bytes());
    b
}

/// TCP options of `p` (NOP-padded to a multiple of 4, at most 40 bytes).
fn tcp_options(p: &Packet, h: &super::super::packet::TcpHeader, w: &FlowWire, now: Time, out: &mut Vec<u8>) {
    // Timestamps, RFC 7323 §3 (kind 8, length 10), NOP-aligned as stacks send it.
    let (tsval, tsecr) = match p.kind {
        Kind::Data => (ts_us(p.ts), 0),
        Kind::Ack => (ts_us(now), ts_us(p.ts)),
    };
    out.extend_from_slice(&[1, 1, 8, 10]);
    out.extend_from_slice(&tsval.to_be_bytes());
    out.extend_from_slice(&tsecr.to_be_bytes());
    let mut room = 40 - 12;
    if let Some(CongestionHeader::Xcp(x)) = p.cong {
        // Experimental option (RFC 4727 §5: kind 253), 2 + 12 bytes + 2 NOPs.
        out.extend_from_slice(&[1, 1, 253, 14]);
        for v in [x.cwnd_bytes, x.rtt_s, x.feedback_bytes_per_s] {
            out.extend_from_slice(&v.to_bits().to_be_bytes());
        }
        room -= 16;
    }
    // SACK, RFC 2018 §3 (kind 5, length 2 + 8n), blocks as byte edges.
    let n = h.n_sack().min((room - 4) / 8);
    if n > 0 && p.kind == Kind::Ack {
        out.extend_from_slice(&[1, 1, 5, 2 + 8 * n as u8]);
        let base = peer_isn_base(p.flow);
        for (s, e) in h.sack_blocks().take(n) {
            out.extend_from_slice(&seg_to_seq(base, s, w.mss).to_be_bytes());
            out.extend_from_slice(&seg_to_seq(base, e, w.mss).to_be_bytes());
        }
    }
}

/// ACK numbers and SACK edges count the *sender's* bytes.
fn peer_isn_base(f: u32) -> u32 {
    isn(f)
}

/// Byte sequence number of segment `seg` of a flow with ISN `base`.
pub fn seg_to_seq(base: u32, seg: u64, mss: u32) -> u32 {
    base.wrapping_add(seg.wrapping_mul(mss as u64) as u32)
}

/// The IPv4 + transport headers of `p` crossing a link at `now`, with IP
/// identification `ip_id`; returns the headers and the IP total length
/// (headers + uncaptured payload).
pub fn headers(p: &Packet, w: &FlowWire, now: Time, ip_id: u16) -> (Vec<u8>, u32) {
    let payload = p.size.saturating_sub(w.header);
    let (mut src, mut dst) = (node_addr(w.src), node_addr(w.dst));
    if p.is_ack() {
        std::mem::swap(&mut src, &mut dst);
    }
    // Transport header first (its length goes into the IP header).
    let mut l4 = Vec::with_capacity(80);
    let proto: u8;
    let l4_payload_len: u32;
    match &p.l4 {
        L4::Tcp(h) => {
            proto = 6;
            l4_payload_len = payload;
            let (sport, dport) = (sender_port(p.flow), RECEIVER_PORT);
            let (sport, dport) = if p.is_ack() { (dport, sport) } else { (sport, dport) };
            let (seq, ack) = match p.kind {
                Kind::Data => (seg_to_seq(isn(p.flow), h.seq, w.mss), peer_isn(p.flow)),
                Kind::Ack => (peer_isn(p.flow), seg_to_seq(isn(p.flow), h.ack, w.mss)),
            };
            let mut opts = Vec::with_capacity(40);
            tcp_options(p, h, w, now, &mut opts);
            let off = (20 + opts.len()) / 4;
            // RFC 793 §3.1 flags + RFC 3168 §6.1 ECE (0x40) / CWR (0x80).
            let mut flags = 0x10u8; // ACK: both directions acknowledge the other
            if p.kind == Kind::Data {
                if h.psh() {
                    flags |= 0x08; // PSH: Linux's GSO sender's, see `TcpHeader::psh`
                }
                if h.cwr {
                    flags |= 0x80;
                }
            } else {
                // RFC 3168's ECE, or the ACE field of an AccECN ACK (RFC
                // 9768 §3.2.2: ECE, CWR and AE, the former NS bit).
                if h.ece {
                    flags |= 0x40;
                }
                if h.cwr {
                    flags |= 0x80;
                }
            }
            let wnd: u16 = if h.wnd > 0 { (h.wnd as u64 * w.mss as u64).min(65_535) as u16 } else { 65_535 };
            l4.extend_from_slice(&sport.to_be_bytes());
            l4.extend_from_slice(&dport.to_be_bytes());
            l4.extend_from_slice(&seq.to_be_bytes());
            l4.extend_from_slice(&ack.to_be_bytes());
            l4.push(((off as u8) << 4) | u8::from(p.kind == Kind::Ack && h.ae()));
            l4.push(flags);
            l4.extend_from_slice(&wnd.to_be_bytes());
            l4.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
            l4.extend_from_slice(&opts);
        }
        L4::Udp(_) | L4::Etcp(_) => {
            proto = 17;
            let etcp = match &p.l4 {
                L4::Etcp(h) => Some(etcp_header(p, h)),
                _ => None,
            };
            // E-TCP: its header is part of the payload, not extra bytes.
            l4_payload_len = match etcp {
                Some(_) => payload.max(ETCP_HDR_LEN as u32),
                None => payload,
            };
            let far = if etcp.is_some() { ETCP_PORT } else { RECEIVER_PORT };
            let (sport, dport) = if p.is_ack() { (far, sender_port(p.flow)) } else { (sender_port(p.flow), far) };
            l4.extend_from_slice(&sport.to_be_bytes());
            l4.extend_from_slice(&dport.to_be_bytes());
            l4.extend_from_slice(&((8 + l4_payload_len) as u16).to_be_bytes());
            l4.extend_from_slice(&[0, 0]);
            if let Some(b) = etcp {
                l4.extend_from_slice(&b);
            }
        }
    }
    let l4_hdr_len = match &p.l4 {
        L4::Etcp(_) => 8,
        _ => l4.len() as u32,
    };
    let l4_len = l4_hdr_len + l4_payload_len;
    // Transport checksum over the pseudo-header (RFC 793 §3.1) and the
    // bytes present; the missing payload is zeros and adds nothing.
    let mut acc = sum16(0, &src);
    acc = sum16(acc, &dst);
    acc += proto as u32 + (l4_len & 0xFFFF) + (l4_len >> 16);
    acc = sum16(acc, &l4);
    let mut c = fold(acc);
    let at = if proto == 6 { 16 } else { 6 };
    if proto == 17 && c == 0 {
        c = 0xFFFF; // RFC 768: a computed zero is sent as all ones
    }
    l4[at..at + 2].copy_from_slice(&c.to_be_bytes());

    // IPv4 header, RFC 791 §3.1, with GWA's option if present.
    let opt: Option<[u8; 8]> = (p.ip_opt != IP_OPT_NONE).then(|| {
        let v = p.ip_opt.to_be_bytes();
        [158, 6, v[0], v[1], v[2], v[3], 0, 0] // value, then End of Options + pad
    });
    let ihl = 5 + opt.map_or(0, |_| 2);
    let total = ihl * 4 + l4_len;
    let tos = match p.ecn {
        Ecn::NotEct => 0b00,
        Ecn::Ect1 => 0b01,
        Ecn::Ect0 => 0b10,
        Ecn::Ce => 0b11,
    };
    let mut ip = Vec::with_capacity(ihl as usize * 4 + l4.len());
    ip.push(0x40 | ihl as u8);
    ip.push(tos);
    ip.extend_from_slice(&(total.min(65_535) as u16).to_be_bytes());
    ip.extend_from_slice(&ip_id.to_be_bytes());
    ip.extend_from_slice(&[0x40, 0]); // DF, fragment offset 0
    ip.push(64); // TTL
    ip.push(proto);
    ip.extend_from_slice(&[0, 0]);
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    if let Some(o) = opt {
        ip.extend_from_slice(&o);
    }
    let c = checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    ip.extend_from_slice(&l4);
    (ip, total)
}

#[cfg(test)]
mod tests {
    use super::super::super::packet::{EtcpHeader, TcpHeader, UdpHeader, XcpHeader};
    use super::*;

    const W: FlowWire = FlowWire { src: 0, dst: 3, mss: 1000, header: 40 };

    fn data(seq: u64) -> Packet {
        Packet {
            flow: 2,
            size: 1040,
            ts: 1_500_000_000_000,
            ecn: Ecn::Ect0,
            l4: L4::Tcp(TcpHeader { seq, cwr: true, ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3's worked example: sum 0xddf2, checksum its complement.
        assert_eq!(checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), !0xddf2);
        // A header with its checksum filled in sums to zero.
        let (h, _) = headers(&data(0), &W, 0, 0);
        assert_eq!(checksum(&h[..20]), 0);
    }

    #[test]
    fn tcp_data_header_bytes() {
        let (h, total) = headers(&data(7), &W, 2_000_000_000, 0xBEEF);
        // IPv4: version 4, IHL 5, ECT(0), total = 20 + 32 + 1000 payload.
        assert_eq!(h[0], 0x45);
        assert_eq!(h[1], 0b10);
        assert_eq!(total, 20 + 32 + 1000);
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 1052);
        assert_eq!(u16::from_be_bytes([h[4], h[5]]), 0xBEEF, "identification");
        assert_eq!(&h[6..8], &[0x40, 0], "DF, offset 0");
        assert_eq!(checksum(&h[..20]), 0);
        assert_eq!(h[9], 6);
        assert_eq!(&h[12..16], &[10, 0, 0, 1]);
        assert_eq!(&h[16..20], &[10, 0, 0, 4]);
        let t = &h[20..];
        assert_eq!(u16::from_be_bytes([t[0], t[1]]), 10_002);
        assert_eq!(u16::from_be_bytes([t[2], t[3]]), 5001);
        let seq = u32::from_be_bytes([t[4], t[5], t[6], t[7]]);
        assert_eq!(seq, isn(2).wrapping_add(7000));
        assert_eq!(t[12] >> 4, 8, "data offset: 20 + 12 option bytes");
        assert_eq!(t[13], 0x80 | 0x10, "CWR, ACK");
        let mut pushed = data(7);
        if let L4::Tcp(h) = &mut pushed.l4 {
            h.set_psh();
        }
        assert_eq!(headers(&pushed, &W, 2_000_000_000, 0xBEEF).0[33], 0x80 | 0x10 | 0x08, "CWR, ACK, PSH");
        // NOP NOP TS(8,10) TSval = send time in µs, TSecr 0.
        assert_eq!(&t[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes([t[24], t[25], t[26], t[27]]), 1_500_000);
        assert_eq!(u32::from_be_bytes([t[28], t[29], t[30], t[31]]), 0);
        assert_eq!(h.len(), 52);
        // The TCP checksum verifies over pseudo-header + header (+ zero payload).
        let mut acc = sum16(0, &h[12..20]);
        acc += 6 + (32 + 1000);
        assert_eq!(fold(sum16(acc, t)), 0);
    }

    #[test]
    fn ack_with_sack_ece_and_echo() {
        let mut th = TcpHeader { ack: 5, ece: true, ..Default::default() };
        th.push_sack((7, 9));
        th.push_sack((11, 12));
        let p = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 3_000_000_000, l4: L4::Tcp(th), ..Default::default() };
        let (h, total) = headers(&p, &W, 9_000_000_000, 1);
        assert_eq!(h[1], 0, "Not-ECT");
        assert_eq!(&h[12..16], &[10, 0, 0, 4], "ACKs go sink to source");
        let t = &h[20..];
        assert_eq!(u16::from_be_bytes([t[0], t[1]]), 5001);
        assert_eq!(u32::from_be_bytes([t[4], t[5], t[6], t[7]]), peer_isn(0));
        assert_eq!(u32::from_be_bytes([t[8], t[9], t[10], t[11]]), isn(0).wrapping_add(5000));
        assert_eq!(t[13], 0x40 | 0x10, "ECE + ACK");
        assert_eq!(t[12] >> 4, (20 + 12 + 4 + 16) / 4);
        assert_eq!(total, 20 + 52);
        assert_eq!(u32::from_be_bytes([t[24], t[25], t[26], t[27]]), 9_000, "TSval: now");
        assert_eq!(u32::from_be_bytes([t[28], t[29], t[30], t[31]]), 3_000, "TSecr: echo");
        assert_eq!(&t[32..36], &[1, 1, 5, 18]);
        let edge = |i: usize| u32::from_be_bytes([t[36 + 4 * i], t[37 + 4 * i], t[38 + 4 * i], t[39 + 4 * i]]);
        assert_eq!([edge(0), edge(1), edge(2), edge(3)].map(|e| e.wrapping_sub(isn(0))), [7000, 9000, 11000, 12000]);
    }

    #[test]
    fn an_accecn_ack_carries_the_ace_field_in_ece_cwr_and_ae() {
        // RFC 9768 §3.2.2: ACE = AE·4 + CWR·2 + ECE; AE is the former NS
        // bit, the low bit of the data-offset byte.
        for ace in 0..8u8 {
            let mut th = TcpHeader { ack: 5, ..Default::default() };
            th.push_sack((7, 9));
            th.set_ace(ace);
            assert_eq!((th.ace(), th.n_sack()), (ace, 1), "the SACK count and AE share a byte");
            let p = Packet { kind: Kind::Ack, size: 40, l4: L4::Tcp(th), ..Default::default() };
            let (h, _) = headers(&p, &W, 0, 0);
            let t = &h[20..];
            let (ece, cwr, ae) = (t[13] & 0x40 != 0, t[13] & 0x80 != 0, t[12] & 1 != 0);
            assert_eq!(u8::from(ae) << 2 | u8::from(cwr) << 1 | u8::from(ece), ace);
            assert_eq!(t[12] >> 4, (20 + 12 + 4 + 8) / 4, "the data offset is intact");
        }
    }

    #[test]
    fn xcp_option_leaves_room_for_one_sack_block() {
        let mut th = TcpHeader { ack: 1, ..Default::default() };
        for b in [(2, 3), (4, 5), (6, 7)] {
            th.push_sack(b);
        }
        let x = XcpHeader { cwnd_bytes: 1.0, rtt_s: 0.5, feedback_bytes_per_s: -2.0 };
        let p = Packet {
            kind: Kind::Ack,
            size: 40,
            l4: L4::Tcp(th),
            cong: Some(CongestionHeader::Xcp(x)),
            ..Default::default()
        };
        let (h, _) = headers(&p, &W, 0, 0);
        let t = &h[20..];
        assert_eq!(t[12] >> 4, 15, "60-byte TCP header, the maximum");
        assert_eq!(&t[32..36], &[1, 1, 253, 14]);
        assert_eq!(u32::from_be_bytes([t[40], t[41], t[42], t[43]]), 0.5f32.to_bits());
        assert_eq!(&t[48..52], &[1, 1, 5, 10], "one SACK block fits");
    }

    #[test]
    fn udp_and_ce_and_ip_option() {
        let p = Packet {
            flow: 4,
            size: 1028,
            ecn: Ecn::Ce,
            ip_opt: 12345,
            l4: L4::Udp(UdpHeader { seq: 3 }),
            ..Default::default()
        };
        let w = FlowWire { header: 28, ..W };
        let (h, total) = headers(&p, &w, 0, 0);
        assert_eq!(h[0], 0x47, "IHL 7 with the 8-byte option");
        assert_eq!(h[1], 0b11, "CE");
        assert_eq!(checksum(&h[..28]), 0);
        assert_eq!(&h[20..26], &[158, 6, 0, 0, 0x30, 0x39]);
        assert_eq!(h[9], 17);
        assert_eq!(total, 28 + 8 + 1000);
        let u = &h[28..];
        assert_eq!(u16::from_be_bytes([u[0], u[1]]), 10_004);
        assert_eq!(u16::from_be_bytes([u[4], u[5]]), 1008);
        assert_eq!(h.len(), 36);
    }

    #[test]
    fn etcp_is_udp_with_its_header_as_payload() {
        let e = EtcpHeader { cc_seq: 9, dseq: 4, ..Default::default() };
        let p = Packet { flow: 1, size: 1040, l4: L4::Etcp(e), ..Default::default() };
        let (h, total) = headers(&p, &W, 0, 0);
        assert_eq!(h[9], 17);
        assert_eq!(total, 20 + 8 + 1000);
        let u = &h[20..];
        assert_eq!(u16::from_be_bytes([u[2], u[3]]), ETCP_PORT);
        assert_eq!(u.len(), 8 + ETCP_HDR_LEN);
        assert_eq!(u64::from_be_bytes(u[10..18].try_into().unwrap()), 9);
        assert_eq!(u64::from_be_bytes(u[18..26].try_into().unwrap()), 4);
    }

    #[test]
    fn addresses_and_sequence_wrap() {
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(255), [10, 0, 1, 0]);
        assert_eq!(seg_to_seq(u32::MAX - 10, 1, 1000), 989);
    }
}
