//! A tap that writes ns-2's packet trace format for one link direction, so
//! the awk scripts written for ns-2 traces work on ccsim runs.
//!
//! One line per event, as ns-2.35's `Trace::format` (trace/trace.cc) writes
//! it for a `trace-queue` / `trace-all` link:
//!
//! ```text
//! event time from to type size flags fid src dst seq pktid
//! +     1.2   0    1  tcp  1040 ------N 0  0.0 3.0 29  199
//! ```
//!
//! - `event`: `+` enqueue, `-` dequeue (transmission starts), `d` drop,
//!   `r` received at the far end. A packet lost by a stage before the
//!   queue (random loss) has a `d` without a `+`, so `+` = arrivals −
//!   random losses, `-` = `tx_pkts`, `d` = drops + random losses.
//! - `time`: simulated seconds, exact (no rounding: the picosecond clock in
//!   decimal, trailing zeros trimmed).
//! - `from`, `to`: the link's node indices (`nodes` in the summary order).
//! - `type`: `tcp` (TCP and E-TCP data), `ack` (their ACKs), `cbr` (UDP,
//!   which ns-2 scripts know as a CBR source over UDP).
//! - `size`: simulated bytes on the wire (payload + `header_bytes`).
//! - `flags`: ns-2's seven: `C` ECN-Echo (an ACK's, or ns-2's ECN
//!   negotiation on a segment 0 with `ecn_response = "ns2"`), `A` congestion action
//!   (CWR on data), `E` congestion experienced (CE), `N` ECN-capable
//!   transport (ECT or CE); the others `-`.
//! - `fid`: the flow id (`flows[i].id`); `src`/`dst`: `node.port` of the
//!   packet's source and destination with port = flow id.
//! - `seq`: TCP data: the segment number (ns-2 counts segments); ACK: the
//!   last segment received in order (ns-2's `TcpSink` echoes that, one
//!   below ccsim's next-expected ACK number, so -1 before any); UDP: the
//!   datagram number; E-TCP: the data sequence number (ACK: CACK − 1).
//! - `pktid`: unique per packet on this link, numbered from 0 in order of
//!   first appearance (ns-2's uid is global; these ids are consistent
//!   between a packet's `+ - r/d` lines, which is what scripts match on).
use super::super::packet::{Ecn, Kind, Packet, PktId, L4};
use super::{Tap, TapEvent};
use crate::sim::Time;
use std::any::Any;
use std::collections::HashMap;
use std::io::{self, Write};

pub struct Ns2Trace {
    out: Box<dyn Write + Send>,
    /// The link's from/to node indices.
    from: u32,
    to: u32,
    /// Per flow: source and sink node (data goes src -> dst).
    ends: Vec<(u32, u32)>,
    /// Slab slot -> trace pktid of the packets on this link now.
    ids: HashMap<PktId, u64>,
    next_id: u64,
    pub lines: u64,
    err: Option<io::Error>,
}

/// Exact decimal seconds of a simulated (picosecond) time (`1.5`, `0`,
/// `0.000001`).
pub fn fmt_time(t: Time) -> String {
    let (s, ps) = (t / 1_000_000_000_000, t % 1_000_000_000_000);
    if ps == 0 {
        return s.to_string();
    }
    let frac = format!("{ps:012}");
    format!("{s}.{}", frac.trim_end_matches('0'))
}

/// ns-2's seven flag characters for `p`.
pub fn flags(p: &Packet) -> [u8; 7] {
    let mut f = *b"-------";
    if let L4::Tcp(h) = &p.l4 {
        // an ACK's ECN-Echo, or ns-2's ECN negotiation on segment 0
        if h.ece {
            f[0] = b'C';
        }
        if p.kind == Kind::Data && h.cwr {
            f[3] = b'A';
        }
    }
    if p.ecn == Ecn::Ce {
        f[4] = b'E';
    }
    if p.ecn != Ecn::NotEct {
        f[6] = b'N';
    }
    f
}

/// Type name and sequence field of `p`, as ns-2 prints them.
pub fn type_and_seq(p: &Packet) -> (&'static str, i64) {
    match (&p.l4, p.kind) {
        (L4::Tcp(h), Kind::Data) => ("tcp", h.seq as i64),
        (L4::Tcp(h), Kind::Ack) => ("ack", h.ack as i64 - 1),
        (L4::Udp(h), _) => ("cbr", h.seq as i64),
        (L4::Etcp(h), Kind::Data) => ("tcp", h.dseq as i64),
        (L4::Etcp(h), Kind::Ack) => ("ack", h.cack as i64 - 1),
    }
}

impl Ns2Trace {
    /// A trace of the link `from -> to` written to `out` (wrap files in a
    /// `BufWriter`); `ends[f]` are flow `f`'s source and sink nodes.
    pub fn new(out: Box<dyn Write + Send>, (from, to): (u32, u32), ends: Vec<(u32, u32)>) -> Self {
        Ns2Trace { out, from, to, ends, ids: HashMap::new(), next_id: 0, lines: 0, err: None }
    }

    fn line(&mut self, ev: TapEvent, now: Time, id: PktId, p: &Packet) -> io::Result<()> {
        let uid = match self.ids.get(&id) {
            Some(&u) => u,
            None => {
                self.next_id += 1;
                self.ids.insert(id, self.next_id - 1);
                self.next_id - 1
            }
        };
        if matches!(ev, TapEvent::Drop | TapEvent::Deliver) {
            self.ids.remove(&id);
        }
        let (src, dst) = self.ends.get(p.flow as usize).copied().unwrap_or((u32::MAX, u32::MAX));
        let (src, dst) = if p.is_ack() { (dst, src) } else { (src, dst) };
        let (ty, seq) = type_and_seq(p);
        let f = flags(p);
        let fl = std::str::from_utf8(&f).expect("ascii");
        let node = |n: u32| if n == u32::MAX { "-1".to_string() } else { n.to_string() };
        self.lines += 1;
        writeln!(
            self.out,
            "{} {} {} {} {} {} {} {} {}.{} {}.{} {} {}",
            ev.ns2_char(),
            fmt_time(now),
            self.from,
            self.to,
            ty,
            p.size,
            fl,
            p.flow,
            node(src),
            p.flow,
            node(dst),
            p.flow,
            seq,
            uid
        )
    }
}

impl Tap for Ns2Trace {
    fn on_event(&mut self, _ev: TapEvent, _now: Time, _link: u32, _pkt: &Packet) {
        unreachable!("Ns2Trace implements on_packet")
    }

    fn on_packet(&mut self, ev: TapEvent, now: Time, _link: u32, id: PktId, pkt: &Packet) {
        if self.err.is_none() {
            self.err = self.line(ev, now, id, pkt).err();
        }
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
    use super::super::super::packet::{TcpHeader, UdpHeader};
    use super::super::testing::Shared;
    use super::*;

    #[test]
    fn times_are_exact() {
        assert_eq!(fmt_time(0), "0");
        assert_eq!(fmt_time(1_500_000_000_000), "1.5");
        assert_eq!(fmt_time(1_000_000), "0.000001");
        assert_eq!(fmt_time(1), "0.000000000001");
        assert_eq!(fmt_time(12_084_375_000_000), "12.084375");
    }

    #[test]
    fn lines_as_ns2_writes_them() {
        let buf = Shared::default();
        let mut t = Ns2Trace::new(Box::new(buf.clone()), (2, 3), vec![(0, 5), (1, 4)]);
        let d = Packet {
            flow: 1,
            size: 1040,
            ecn: Ecn::Ce,
            l4: L4::Tcp(TcpHeader { seq: 29, cwr: true, ..Default::default() }),
            ..Default::default()
        };
        let a = Packet {
            flow: 0,
            kind: Kind::Ack,
            size: 40,
            l4: L4::Tcp(TcpHeader { ack: 0, ece: true, ..Default::default() }),
            ..Default::default()
        };
        let u = Packet { flow: 1, size: 210, l4: L4::Udp(UdpHeader { seq: 7 }), ..Default::default() };
        t.on_packet(TapEvent::Enqueue, 1_250_000_000_000, 0, 9, &d);
        t.on_packet(TapEvent::Enqueue, 1_300_000_000_000, 0, 4, &a);
        t.on_packet(TapEvent::Dequeue, 1_400_000_000_000, 0, 9, &d);
        t.on_packet(TapEvent::Deliver, 1_500_000_000_000, 0, 9, &d);
        t.on_packet(TapEvent::Drop, 2_000_000_000_000, 0, 9, &u);
        t.finish().unwrap();
        let s = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let want = "+ 1.25 2 3 tcp 1040 ---AE-N 1 1.1 4.1 29 0\n\
                    + 1.3 2 3 ack 40 C------ 0 5.0 0.0 -1 1\n\
                    - 1.4 2 3 tcp 1040 ---AE-N 1 1.1 4.1 29 0\n\
                    r 1.5 2 3 tcp 1040 ---AE-N 1 1.1 4.1 29 0\n\
                    d 2 2 3 cbr 210 ------- 1 1.1 4.1 7 2\n";
        assert_eq!(s, want, "slot 9 is free again after r: the next packet there gets a new id");
    }
}
