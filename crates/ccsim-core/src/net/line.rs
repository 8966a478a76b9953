//! Shared wires: one FIFO, and one pending event, for sibling links whose
//! packets tend to reach their far ends in the order they were sent.
//!
//! Each link's wire is a FIFO with one event, its head's arrival
//! (`link::Pipe`). With many flows on a dumbbell, each flow has its own
//! edge links, and when the flows' packets are interleaved (a round-robin
//! bottleneck, pacing) each edge's next arrival lies a whole round of the
//! flows ahead: hundreds of events pending, each scheduled far ahead into
//! the event queue's wheel, where its bucket is sorted on the way out
//! (docs/decisions/2026-11-27-shared-wires.md: G1, 53% of its events
//! through the wheel against B3's 1.6%). Yet edges of equal delay and rate that leave one link (a
//! bottleneck's far edges) or enter one node (the senders' edges into a
//! router) receive their packets in time order, each arriving a fixed
//! delay after it was sent: one FIFO for them all keeps their arrivals in
//! order with one pending event, the next a packet time ahead.
//!
//! A packet joins its link's line only if it arrives no earlier than the
//! line's last packet; otherwise it goes on its link's own wire, as
//! without lines. A link's own packets are in time order either way (its
//! serialiser sends them one after the other), so the two FIFOs together
//! deliver exactly the arrivals of the link, at their times. What lines
//! change is the order among events of one instant: a line's arrivals of
//! one instant come in the order the packets were put on it, and the
//! line's event takes its place among other events of that instant when
//! it was scheduled (when the packet before it arrived, or when it joined
//! an empty line). A packet is put on a wire when its transmission there
//! starts, or earlier when that start is known in advance (a virtual
//! FIFO's, a cut-through's): so tied arrivals on a line mostly come in the
//! order their transmissions started, which is ns-2's order (it schedules
//! each arrival then, and runs equal times first in, first out), as in
//! `net::tests::ns2_ties_order_arrivals_from_two_links_by_transmission_start`.
//!
//! Only links with `Ties::ArrivalFirst` share wires. With `Ties::Ns2`
//! every packet has its own event, as in ns-2. With `Ties::EventOrder` a
//! departure and an arrival of one instant run in the order they were
//! scheduled, so the moment a line schedules its event decides which
//! comes first: on the GWA paper's LAN with Telnet beside FTP (equal
//! delays and rates, every time on one lattice) Reno over DropTail then
//! locked 19 of 20 flows out for the whole run (tests/integration/drr.rs), where each
//! link's own wire had let them all in. With arrival-first ties the
//! departure runs after the instant's arrivals whatever was scheduled
//! first; the golden scenarios run that way give identical results with
//! and without shared wires (tests/integration/cut_through.rs runs them shared).
use super::link::{Link, FEED_MANY, FEED_NONE};
use super::packet::{PktId, NO_PKT};
use crate::scenario::Ties;
use crate::sim::Time;
use std::collections::HashMap;

/// `Net::link_line` of a link on no line.
pub(crate) const NO_LINE: u32 = u32::MAX;

/// One shared wire: its packets chained through the packet pool's wire
/// links, oldest first, and the arrival time of the last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    pub head: PktId,
    pub tail: PktId,
    pub tail_at: Time,
}

impl Default for Line {
    fn default() -> Self {
        Line { head: NO_PKT, tail: NO_PKT, tail_at: 0 }
    }
}

/// What a link is grouped by: its delay and rate, and either the one link
/// feeding it (the far edges of a bottleneck) or, for a link packets enter
/// from several links or from hosts, the node it leads to (the senders'
/// edges into a router).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    Feeder(u32),
    Into(u32),
}

/// The line of each link (`NO_LINE` for none) and the number of lines:
/// links of one key share a line when there are at least two of them.
pub(crate) fn assign(links: &[Link]) -> (Vec<u32>, usize) {
    let key = |l: &Link| {
        let side = match l.feeder {
            FEED_NONE => return None,
            FEED_MANY => Side::Into(l.to),
            f => Side::Feeder(f),
        };
        (l.ties == Ties::ArrivalFirst).then_some((l.delay, l.rate_bps().to_bits(), side))
    };
    let mut members: HashMap<_, u32> = HashMap::new();
    for l in links {
        if let Some(k) = key(l) {
            *members.entry(k).or_default() += 1;
        }
    }
    let mut ids: HashMap<_, u32> = HashMap::new();
    let mut line = vec![NO_LINE; links.len()];
    for (i, l) in links.iter().enumerate() {
        let Some(k) = key(l) else { continue };
        if members[&k] >= 2 {
            let next = ids.len() as u32;
            line[i] = *ids.entry(k).or_insert(next);
        }
    }
    (line, ids.len())
}

#[cfg(test)]
mod tests {
    use super::super::queue::{DropTail, Limit, Queue};
    use super::super::{Net, Packet, Route};
    use super::*;
    use crate::sim::{EventKind, Owner};
    use rand::{Rng, SeedableRng};

    const US: Time = 1_000_000;

    /// An arrival at the end of a route: time, flow, size, send number.
    type Arrival = (Time, u32, u32, u32);

    /// `n` links of 10 us and 1 Gb/s from hosts into one node, a route of
    /// one link each, and links `n..2n`, their reverses, into the hosts.
    fn star(n: u32, ties: Ties) -> Net {
        let q = || Queue::DropTail(DropTail::new(Limit::Packets(100_000)));
        let mut links = Vec::new();
        for i in 0..2 * n {
            let ends = if i < n { (i as usize + 1, 0) } else { (0, (i - n) as usize + 1) };
            let mut l = Link::new(i, ends, 1e9, 10 * US, q());
            l.set_ties(ties);
            links.push(l);
        }
        let routes = (0..n).map(|i| Route { fwd: vec![i], rev: vec![n + i] }).collect();
        let mut net = Net::new(links, routes);
        for f in 0..n {
            net.add_flow(f, f);
        }
        net
    }

    /// Hosts send packets of 40 or 1040 bytes at random instants on a
    /// 1 us lattice (so arrivals often tie), each about a third of its
    /// link's rate, for 2 ms; returns every arrival as (time, flow, size,
    /// send number) in the order they ran, and the send numbers of the
    /// packets that joined the shared wire.
    fn traffic(shared: bool, seed: u64) -> (Vec<Arrival>, Vec<u32>) {
        let n = 8;
        let mut net = star(n, Ties::ArrivalFirst);
        if !shared {
            net.unshare_wires();
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for f in 0..n {
            net.events.schedule(rng.gen_range(0..20) * US, Owner::new(EventKind::AgentTimer, f, 0), 0);
        }
        let (mut out, mut joined, mut sent) = (Vec::new(), Vec::new(), 0u32);
        while let Some(e) = net.events.pop() {
            net.now = e.time;
            let end = match e.to.kind {
                EventKind::AgentTimer => {
                    let size = if rng.gen_bool(0.3) { 40 } else { 1040 };
                    // the send number rides in the timestamp field
                    net.send(Packet { flow: e.to.idx, size, ts: sent as Time, ..Default::default() });
                    sent += 1;
                    let line = net.lines.first().map_or(NO_PKT, |l| l.tail);
                    if line != NO_PKT && net.pkts.get(line).ts == sent as Time - 1 {
                        joined.push(sent - 1);
                    }
                    if net.now < 2000 * US {
                        let at = net.now + rng.gen_range(0..40) * US;
                        net.events.schedule(at, e.to, 0);
                    }
                    None
                }
                EventKind::LinkFree => {
                    net.link_free(e.to.idx as usize, e.gen);
                    None
                }
                EventKind::PipeArrival => net.pipe_arrival(e.to.idx as usize),
                EventKind::LineArrival => net.line_arrival(e.to.idx as usize),
                k => panic!("unexpected event {k:?}"),
            };
            if let Some(id) = end {
                let p = net.pkts.get(id);
                out.push((e.time, p.flow, p.size, p.ts as u32));
                net.pkts.free(id);
            }
        }
        assert_eq!(net.created, net.delivered, "every packet arrives");
        assert_eq!(net.in_flight(), 0, "and none is left on a wire");
        (out, joined)
    }

    #[test]
    fn siblings_share_a_line_and_others_do_not() {
        let net = star(8, Ties::ArrivalFirst);
        // the eight into node 0 share one; the eight from it go to
        // different nodes and are fed by hosts: one line each would be
        // none
        assert_eq!(net.lines.len(), 1);
        assert!(net.link_line[..8].iter().all(|&k| k == 0));
        assert!(net.link_line[8..].iter().all(|&k| k == NO_LINE));
        // shared wires reorder ties, so only arrival-first links have them
        for ties in [Ties::EventOrder, Ties::Ns2] {
            assert!(star(8, ties).lines.is_empty(), "{ties:?}");
        }
    }

    #[test]
    fn a_shared_wire_delivers_every_packet_at_its_time_in_its_links_order() {
        for seed in 0..20 {
            let (own, none) = traffic(false, seed);
            let (line, joined) = traffic(true, seed);
            assert!(none.is_empty());
            // both paths taken: in order onto the line, out of order (an
            // ACK-sized packet sent after a full one, a packet sent while
            // its link is busy) onto the link's own
            let n = joined.len();
            assert!(n > line.len() / 2 && n < line.len(), "seed {seed}: {n} of {}", line.len());
            // arrivals in time order, each flow's in its sending order
            assert!(line.windows(2).all(|w| w[0].0 <= w[1].0), "seed {seed}");
            for f in 0..8 {
                let of = |v: &[Arrival]| v.iter().filter(|a| a.1 == f).copied().collect::<Vec<_>>();
                assert_eq!(of(&line), of(&own), "seed {seed}, flow {f}: same arrivals at the same times");
            }
            // the same arrivals; only those of one instant may run in
            // another order (the line's: the order they were sent)
            let sorted = |mut v: Vec<Arrival>| {
                v.sort_unstable();
                v
            };
            assert_eq!(sorted(line.clone()), sorted(own.clone()), "seed {seed}");
            let ties = line.windows(2).filter(|w| w[0].0 == w[1].0).count();
            assert!(ties > 0, "seed {seed}: the lattice makes ties");
            // tied arrivals from the line come in the order they joined it
            let on_line = |a: &Arrival| joined.binary_search(&a.3).is_ok();
            let tied_on_line: Vec<_> =
                line.windows(2).filter(|w| w[0].0 == w[1].0 && on_line(&w[0]) && on_line(&w[1])).collect();
            assert!(!tied_on_line.is_empty(), "seed {seed}");
            assert!(tied_on_line.iter().all(|w| w[0].3 < w[1].3), "seed {seed}");
        }
    }
}
