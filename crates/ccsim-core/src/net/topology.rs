//! Topology builders: a generic builder (nodes, duplex links, per-flow static
//! routes) and the papers' shapes on top of it.
//!
//! - Parking lot: routers `r0 … rN` joined by N bottleneck links; every flow
//!   gets its own source and sink, each on its own edge link, and crosses the
//!   bottleneck links `hops = [first, last]`. Reverse flows run right to
//!   left, so their data shares the reverse bottleneck queues with the ACKs
//!   of forward flows (two-way traffic).
//! - Dumbbell: the parking lot with one link (E-TCP Fig 4, LTCP Fig 4).
//!
//! A flow's `rtt_s` sets its two edge links' delays so that its round-trip
//! propagation delay is exactly `rtt_s` (bottleneck delays stay shared).
use super::link::Link;
use super::stage::loss::RandomLoss;
use super::stage::xcp::{XcpParams, XcpRouter};
use super::Route;
use crate::scenario::{ConfigError, Direction, QueueSpec, Scenario, Topology};
use crate::sim::rng::{self, Stream};
use crate::sim::time::from_secs;
use std::collections::HashMap;

pub struct LinkParams<'a> {
    pub rate_bps: f64,
    pub delay_s: f64,
    pub queue: &'a QueueSpec,
    pub loss: f64,
    pub monitored: bool,
    /// Which queue table of the scenario `queue` is ([`queue_tables`]).
    pub table: u32,
}

/// The topology's node names, end to end in one string.
///
/// Why not a `Vec<String>`: a dumbbell has two hosts per flow, and a
/// `String` each (24 bytes and a heap block of at least 32) was about 90
/// bytes per flow at S2's peak; here a name costs its characters and a
/// 4-byte end.
#[derive(Clone, Debug, Default)]
pub struct NodeNames {
    text: String,
    ends: Vec<u32>,
}

impl NodeNames {
    /// Append `name`; its index.
    pub fn push(&mut self, name: &str) -> usize {
        self.text.push_str(name);
        let end = u32::try_from(self.text.len()).expect("node names take under 4 GB");
        self.ends.push(end);
        self.ends.len() - 1
    }
}

impl std::ops::Index<usize> for NodeNames {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

/// Generic builder: nodes, duplex links (two directed `Link`s) and routes.
#[derive(Default)]
pub struct Builder {
    pub nodes: NodeNames,
    node_idx: HashMap<String, usize>,
    pub links: Vec<Link>,
    adj: HashMap<(usize, usize), usize>,
    /// Routes by node path, so flows between one host pair share one.
    pub routes: Vec<Route>,
    route_idx: HashMap<Vec<usize>, u32>,
    seed: u64,
    /// Each link's delay in seconds as the scenario gave it (the links
    /// keep it in picoseconds; ns-2's clock needs the `double`).
    pub delays_s: Vec<f64>,
    /// Each link's queue table ([`LinkParams::table`]).
    pub tables: Vec<u32>,
}

impl Builder {
    pub fn new(seed: u64) -> Self {
        Builder { seed, ..Default::default() }
    }

    pub fn node(&mut self, name: &str) -> usize {
        if let Some(&i) = self.node_idx.get(name) {
            return i;
        }
        let i = self.nodes.push(name);
        self.node_idx.insert(name.to_string(), i);
        i
    }

    /// One directed link `a -> b`; returns its index.
    pub fn simplex(&mut self, a: usize, b: usize, p: LinkParams) -> usize {
        let id = self.links.len();
        let queue = super::queue::build(p.queue, "queue").expect("validated: queue specs build");
        let mut l = Link::new(id as u32, (a, b), p.rate_bps, from_secs(p.delay_s), queue);
        let seed = self.seed;
        self.delays_s.push(p.delay_s);
        self.tables.push(p.table);
        if p.loss > 0.0 {
            l.add_stage(Box::new(RandomLoss { p: p.loss }), seed);
        }
        // Chosen drops sit with random loss, before the router (ns-2's
        // `lossmodel` puts its ErrorModel at the link's head).
        if let Some(d) =
            super::stage::drop_list::from_queue_table(p.queue, "queue").expect("validated: queue specs build").1
        {
            l.add_stage(d, seed);
        }
        // XCP after random loss: a packet lost on arrival never reaches the
        // router's accounting (ns-2: the ErrorModel sits before the queue).
        if let Some(v) = &p.queue.xcp {
            if let Some(x) = XcpParams::from_value(v, "queue.xcp").expect("validated: xcp tables build") {
                l.add_stage(Box::new(XcpRouter::new(x)), seed);
            }
        }
        if let Some(g) = super::stage::gwa::from_queue_table(p.queue, "queue").expect("validated: queue specs build").1
        {
            l.add_stage(g, seed);
        }
        l.monitored = p.monitored;
        l.set_ties(p.queue.ties.unwrap_or_default());
        self.links.push(l);
        self.adj.insert((a, b), id);
        id
    }

    /// A duplex link: `fwd` parameters for a->b, `rev` for b->a.
    pub fn duplex(&mut self, a: usize, b: usize, fwd: LinkParams, rev: LinkParams) -> (usize, usize) {
        (self.simplex(a, b, fwd), self.simplex(b, a, rev))
    }

    /// Links along a node path, or the index of the first missing hop.
    pub fn route(&self, path: &[usize]) -> Result<Vec<usize>, usize> {
        path.windows(2).enumerate().map(|(i, w)| self.adj.get(&(w[0], w[1])).copied().ok_or(i + 1)).collect()
    }

    /// The route along a node path (data that way, ACKs back), shared by
    /// every flow on that path; or the index of the first missing hop.
    pub fn shared_route(&mut self, path: &[usize]) -> Result<u32, usize> {
        if let Some(&r) = self.route_idx.get(path) {
            return Ok(r);
        }
        let fwd = self.route(path)?;
        let back: Vec<usize> = path.iter().rev().copied().collect();
        let rev = self.route(&back)?;
        let to32 = |v: Vec<usize>| v.into_iter().map(|x| x as u32).collect();
        self.routes.push(Route { fwd: to32(fwd), rev: to32(rev) });
        let r = (self.routes.len() - 1) as u32;
        self.route_idx.insert(path.to_vec(), r);
        Ok(r)
    }
}

/// One flow's place in the network.
#[derive(Clone, Debug)]
pub struct FlowPlacement {
    /// Index of the `[[flows]]` entry this flow came from.
    pub entry: usize,
    /// Source and sink nodes.
    pub src: usize,
    pub dst: usize,
    /// Index in `Built::routes`.
    pub route: u32,
    pub start_s: f64,
    pub rtt_prop_s: f64,
}

pub struct Built {
    pub nodes: NodeNames,
    pub links: Vec<Link>,
    pub routes: Vec<Route>,
    pub flows: Vec<FlowPlacement>,
    /// Each link's delay in seconds as the scenario gave it.
    pub delays_s: Vec<f64>,
    /// Each link's queue table ([`queue_tables`]).
    pub tables: Vec<u32>,
}

struct Chain<'a> {
    n: usize,
    rate: f64,
    delay: f64,
    queue: &'a QueueSpec,
    loss: f64,
    rev_loss: f64,
    edge_rate: f64,
    edge_delay: f64,
    edge_queue: &'a QueueSpec,
}

/// Per-flow start times and RTTs, drawn from the flow-setup stream.
fn expand(sc: &Scenario) -> Vec<(usize, f64, Option<f64>)> {
    use rand::Rng;
    let mut out = Vec::new();
    for (e, f) in sc.flows.iter().enumerate() {
        let mut r = rng::stream(sc.seed, Stream::FlowSetup, e as u64);
        for k in 0..f.count as usize {
            let start = f.start_s + if f.start_spread_s > 0.0 { r.gen::<f64>() * f.start_spread_s } else { 0.0 };
            let rtt = match (&f.rtt_s, f.rtt_range_s) {
                (Some(crate::scenario::OneOrMany::One(x)), _) => Some(*x),
                (Some(crate::scenario::OneOrMany::Many(v)), _) => Some(v[k]),
                (None, Some([lo, hi])) => Some(match f.rtt_step_s {
                    None => lo + r.gen::<f64>() * (hi - lo),
                    // Discrete uniform on lo, lo + step, ... <= hi (one draw, as above).
                    Some(step) => {
                        let n = ((hi - lo) / step + 1e-9).floor() + 1.0;
                        lo + (r.gen::<f64>() * n).floor().min(n - 1.0) * step
                    }
                }),
                (None, None) => None,
            };
            out.push((e, start, rtt));
        }
    }
    out
}

fn build_chain(sc: &Scenario, c: Chain) -> Result<Built, ConfigError> {
    let mut b = Builder::new(sc.seed);
    let routers: Vec<usize> = (0..=c.n).map(|i| b.node(&format!("r{i}"))).collect();
    let mut bneck = Vec::new();
    for i in 0..c.n {
        let (rate_bps, delay_s, queue) = (c.rate, c.delay, c.queue);
        let fwd = LinkParams { rate_bps, delay_s, queue, loss: c.loss, monitored: true, table: 0 };
        let rev = LinkParams { rate_bps, delay_s, queue, loss: c.rev_loss, monitored: true, table: 0 };
        bneck.push(b.duplex(routers[i], routers[i + 1], fwd, rev));
    }
    let mut flows = Vec::new();
    for (id, (entry, start, rtt)) in expand(sc).into_iter().enumerate() {
        let f = &sc.flows[entry];
        let [first, last] = f.hops.map_or([0, c.n - 1], |h| [h[0] as usize, h[1] as usize]);
        let path_delay = c.delay * (last - first + 1) as f64;
        if let Some([lo, _]) = f.rtt_range_s {
            // Checked on the range, not the draw, so validity never depends on the seed.
            if lo / 2.0 < path_delay {
                return Err(ConfigError::new(
                    format!("flows[{entry}].rtt_range_s[0]"),
                    format!(
                        "{lo} is not allowed; it is shorter than the round trip of its bottleneck links ({} s)",
                        2.0 * path_delay
                    ),
                ));
            }
        }
        let edge_delay = match rtt {
            None => c.edge_delay,
            Some(r) => {
                let e = (r / 2.0 - path_delay) / 2.0;
                if e < 0.0 {
                    return Err(ConfigError::new(
                        format!("flows[{entry}].rtt_s"),
                        format!(
                            "{r} is not allowed; it is shorter than the round trip of its bottleneck links ({} s)",
                            2.0 * path_delay
                        ),
                    ));
                }
                e
            }
        };
        let (src, dst) = (b.node(&format!("s{id}")), b.node(&format!("d{id}")));
        let edge = |d: f64| LinkParams {
            rate_bps: c.edge_rate,
            delay_s: d,
            queue: c.edge_queue,
            loss: 0.0,
            monitored: false,
            table: 1,
        };
        let (entry_router, exit_router) = match f.direction {
            Direction::Forward => (routers[first], routers[last + 1]),
            Direction::Reverse => (routers[last + 1], routers[first]),
        };
        b.duplex(src, entry_router, edge(edge_delay), edge(edge_delay));
        b.duplex(exit_router, dst, edge(edge_delay), edge(edge_delay));
        let hops: Vec<usize> = match f.direction {
            Direction::Forward => (first..=last + 1).map(|i| routers[i]).collect(),
            Direction::Reverse => (first..=last + 1).rev().map(|i| routers[i]).collect(),
        };
        let path: Vec<usize> = std::iter::once(src).chain(hops).chain(std::iter::once(dst)).collect();
        let route = b.shared_route(&path).expect("a chain's links join every hop");
        let rtt_prop_s = 2.0 * (2.0 * edge_delay + path_delay);
        flows.push(FlowPlacement { entry, src, dst, route, start_s: start, rtt_prop_s });
    }
    Ok(Built { nodes: b.nodes, links: b.links, routes: b.routes, flows, delays_s: b.delays_s, tables: b.tables })
}

/// Build the network and every flow's routes from a validated scenario.
pub fn build(sc: &Scenario) -> Result<Built, ConfigError> {
    let mut built = build_shape(sc)?;
    sending_interfaces(sc, &mut built)?;
    host_delays(sc, &mut built)?;
    byte_limits_hold_a_packet(sc, &built)?;
    Ok(built)
}

/// Refuse a flow whose controller needs a router stage on its path
/// (`stage_needed(cc)`: the controller's declared
/// `transport::cc::Needs::path_stage`, passed in from above this layer)
/// when no link of its forward path has one, with the fix named. An XCP
/// sender (`cc = "xcp"`) takes its window from the feedback of XCP routers
/// on its path (Katabi et al. 2002 §3.1: the sender's own H_feedback is its
/// wish; only routers lower it). With no XCP router on the forward path
/// nothing lowers it: the window jumps to the largest the sender asks for
/// and the flow floods the path.
pub fn check_path_stages(
    sc: &Scenario,
    built: &Built,
    stage_needed: impl Fn(&str) -> Option<&'static str>,
) -> Result<(), ConfigError> {
    for fp in &built.flows {
        let f = &sc.flows[fp.entry];
        if f.transport != "tcp" {
            continue;
        }
        let Some(cc) = f.cc.as_deref() else { continue };
        let Some(stage) = stage_needed(cc) else { continue };
        let fwd = &built.routes[fp.route as usize].fwd;
        if !fwd.iter().any(|&l| built.links[l as usize].has_stage_named(stage)) {
            let fix = if stage == super::stage::xcp::NAME {
                "set xcp = true on the bottleneck's queue table".to_string()
            } else {
                format!("add the {stage} stage to a link of its path")
            };
            return Err(ConfigError::new(
                format!("flows[{}].cc", fp.entry),
                format!(
                    "\"{cc}\" needs an {} router on the flow's path, and none of its links has one: {fix} (or \
                     use another controller)",
                    stage.to_uppercase()
                ),
            ));
        }
    }
    Ok(())
}

/// The scenario's queue tables as `LinkParams::table` numbers them: the
/// field path of each and the table. A custom link `i` has tables `2i`
/// (`queue`) and `2i + 1` (`reverse_queue`, or `queue` again without one).
fn queue_tables(sc: &Scenario) -> Vec<(String, &QueueSpec)> {
    match &sc.topology {
        Topology::Dumbbell(d) => vec![
            ("topology.bottleneck_queue".into(), &d.bottleneck_queue),
            ("topology.edge_queue".into(), &d.edge_queue),
        ],
        Topology::ParkingLot(p) => {
            vec![("topology.link_queue".into(), &p.link_queue), ("topology.edge_queue".into(), &p.edge_queue)]
        }
        Topology::Custom(c) => c
            .links
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                let rev = match &l.reverse_queue {
                    Some(q) => (format!("topology.links[{i}].reverse_queue"), q),
                    None => (format!("topology.links[{i}].queue"), &l.queue),
                };
                [(format!("topology.links[{i}].queue"), &l.queue), rev]
            })
            .collect(),
    }
}

/// The smallest packets a flow of `[[flows]]` entry `e` sends on the wire,
/// in bytes, each with the fields that make it: `[data, ACKs]`, data along
/// its route and ACKs back (none for UDP). A bulk or on/off source sends
/// full segments (`mss_bytes + header_bytes`), a finite transfer may end
/// with a shorter one, a SYN is a header alone; other applications are
/// taken to send packets as small as a header.
fn smallest_packets(sc: &Scenario, e: usize) -> [Option<(u64, String)>; 2] {
    use crate::scenario::kinds::Syn;
    let f = &sc.flows[e];
    let (mss, hdr) = (f.mss_bytes as u64, f.wire_header_bytes() as u64);
    // the header bytes as the scenario gives them, and the timestamps
    // option's if the flow uses it
    let hdr_text = match hdr - f.header_bytes as u64 {
        0 => format!("header_bytes {hdr}"),
        ts => format!("header_bytes {} + the timestamps option's {ts}", f.header_bytes),
    };
    let header = || Some((hdr.max(1), format!("flows[{e}].{}", hdr_text.replacen(' ', " = ", 1))));
    let full = matches!((f.transport.as_str(), f.app.as_deref()), (_, None | Some("bulk")) | ("udp", Some("onoff")));
    let syn = matches!(f.syn, Some(Syn::Ns2 | Syn::Ns2NoDelayGrowth | Syn::Linux));
    let data = if !full || syn {
        header()
    } else {
        let last = f.bytes.filter(|&b| b > 0).map_or(mss, |b| (b - 1) % mss + 1);
        let what = if last < mss {
            format!("the last segment of flows[{e}].bytes = {}: {last} + {hdr_text}", f.bytes.unwrap_or(0))
        } else {
            format!("flows[{e}]: mss_bytes {mss} + {hdr_text}")
        };
        Some((last + hdr, what))
    };
    let acks = if f.transport == "udp" { None } else { header() };
    [data, acks]
}

/// A byte-limited queue must hold at least one of the packets that cross
/// its link direction: below the smallest, it admits a packet only when
/// the link is idle and drops every one that finds it busy (`limit_pkts =
/// 0` is refused for the same reason). Links whose queue a flow's
/// `txqueuelen_pkts` replaced are not checked, nor links no packet crosses.
fn byte_limits_hold_a_packet(sc: &Scenario, built: &Built) -> Result<(), ConfigError> {
    let tables = queue_tables(sc);
    if tables.iter().all(|(_, q)| q.limit_bytes.is_none()) {
        return Ok(());
    }
    let mut sizes: Vec<[Option<u64>; 2]> = Vec::new();
    let mut smallest = vec![u64::MAX; built.links.len()];
    for fp in &built.flows {
        while sizes.len() <= fp.entry {
            sizes.push(smallest_packets(sc, sizes.len()).map(|p| p.map(|(b, _)| b)));
        }
        let route = &built.routes[fp.route as usize];
        for (links, size) in [&route.fwd, &route.rev].into_iter().zip(sizes[fp.entry]) {
            let Some(size) = size else { continue };
            for &l in links {
                smallest[l as usize] = smallest[l as usize].min(size);
            }
        }
    }
    for (l, link) in built.links.iter().enumerate() {
        let (path, q) = &tables[built.tables[l] as usize];
        let (Some(limit), size) = (q.limit_bytes, smallest[l]) else { continue };
        if link.txqueuelen().is_some() || size == u64::MAX || limit >= size {
            continue;
        }
        // the first flow that sends a packet of that size over the link
        let what = built.flows.iter().find_map(|fp| {
            let route = &built.routes[fp.route as usize];
            let [data, acks] = smallest_packets(sc, fp.entry);
            let on = |links: &[u32], p: Option<(u64, String)>, kind: &str| {
                p.filter(|p| p.0 == size && links.contains(&(l as u32))).map(|p| format!("{kind}: {}", p.1))
            };
            on(&route.fwd, data, "data").or_else(|| on(&route.rev, acks, "ACKs"))
        });
        return Err(ConfigError::new(
            format!("{path}.limit_bytes"),
            format!(
                "{limit} is not allowed: the smallest packet that crosses link {} is {size} bytes ({}), so the \
                 queue could hold no packet and would drop every one that finds the link busy; must be >= {size}",
                link.name(&built.nodes),
                what.unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// `txqueuelen_pkts`: the first link of each such flow's route is its
/// sending host's interface, whose queue becomes a DropTail of that many
/// packets (Linux's default pfifo_fast tail-drops at `dev->tx_queue_len`
/// per band; one band here: TCP and UDP data leave with the same TOS).
/// Every flow whose route starts on that link shares the one queue, so
/// they may not give different lengths.
fn sending_interfaces(sc: &Scenario, built: &mut Built) -> Result<(), ConfigError> {
    use super::queue::{DropTail, Limit, Queue};
    let mut given: HashMap<usize, (u64, usize)> = HashMap::new();
    for fp in &built.flows {
        let Some(n) = sc.flows[fp.entry].txqueuelen_pkts else { continue };
        let first = built.routes[fp.route as usize].fwd[0] as usize;
        match given.get(&first) {
            Some(&(m, e)) if m != n => {
                return Err(ConfigError::new(
                    format!("flows[{}].txqueuelen_pkts", fp.entry),
                    format!(
                        "{n} differs from flows[{e}].txqueuelen_pkts = {m}: both send over link \"{}\", the \
                         sending host's one interface queue; give the same value",
                        built.links[first].name(&built.nodes)
                    ),
                ));
            }
            Some(_) => {}
            None => {
                given.insert(first, (n, fp.entry));
                let link = &mut built.links[first];
                link.queue = Queue::DropTail(DropTail::new(Limit::Packets(n)));
                link.set_txqueuelen(Some(n as usize));
            }
        }
    }
    Ok(())
}

/// `host_delay_s`: the first link of each such flow's route is its
/// sending host's interface, and the first link of its ACKs' route the
/// receiving host's; the packets of both wait a drawn delay before the
/// wire (`net::host_delay`), each interface from its own stream. Flows
/// that share an interface must give the same distribution. Not on a link
/// that orders ties as ns-2 does (its times are ns-2's, `Ties::Ns2`).
fn host_delays(sc: &Scenario, built: &mut Built) -> Result<(), ConfigError> {
    use super::host_delay::HostDelay;
    let mut given: HashMap<usize, (&crate::scenario::DelayQuantiles, usize)> = HashMap::new();
    for fp in &built.flows {
        let Some(q) = &sc.flows[fp.entry].host_delay_s else { continue };
        let path = format!("flows[{}].host_delay_s", fp.entry);
        let route = &built.routes[fp.route as usize];
        for first in [route.fwd[0] as usize, route.rev[0] as usize] {
            match given.get(&first) {
                Some(&(m, e)) if m != q => {
                    return Err(ConfigError::new(
                        path,
                        format!(
                            "{} differs from flows[{e}].host_delay_s = {}: both send over link \"{}\", a \
                             host's one interface; give the same value",
                            serde_json::to_string(q).unwrap_or_default(),
                            serde_json::to_string(m).unwrap_or_default(),
                            built.links[first].name(&built.nodes)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    let link = &mut built.links[first];
                    if link.ties == crate::scenario::Ties::Ns2 {
                        return Err(ConfigError::new(
                            path,
                            format!(
                                "not allowed on link \"{}\", whose queue orders ties as ns-2 (ties = \"ns2\"): \
                                 ns-2's times leave no room for a host's delay",
                                link.name(&built.nodes)
                            ),
                        ));
                    }
                    link.set_host_delay(HostDelay::new(q.to_quantiles(), sc.seed, link.id));
                    given.insert(first, (q, fp.entry));
                }
            }
        }
    }
    Ok(())
}

fn build_shape(sc: &Scenario) -> Result<Built, ConfigError> {
    match &sc.topology {
        Topology::Dumbbell(d) => build_chain(
            sc,
            Chain {
                n: 1,
                rate: d.bottleneck_rate_bps,
                delay: d.bottleneck_delay_s,
                queue: &d.bottleneck_queue,
                loss: d.bottleneck_loss,
                rev_loss: d.bottleneck_reverse_loss,
                edge_rate: d.edge_rate_bps,
                edge_delay: d.edge_delay_s,
                edge_queue: &d.edge_queue,
            },
        ),
        Topology::ParkingLot(p) => build_chain(
            sc,
            Chain {
                n: p.n_links as usize,
                rate: p.link_rate_bps,
                delay: p.link_delay_s,
                queue: &p.link_queue,
                loss: p.link_loss,
                rev_loss: p.link_reverse_loss,
                edge_rate: p.edge_rate_bps,
                edge_delay: p.edge_delay_s,
                edge_queue: &p.edge_queue,
            },
        ),
        Topology::Custom(c) => {
            let mut b = Builder::new(sc.seed);
            for n in &c.nodes {
                b.node(n);
            }
            for (i, l) in c.links.iter().enumerate() {
                let (x, y) = (b.node(&l.from), b.node(&l.to));
                let fwd = LinkParams {
                    rate_bps: l.rate_bps,
                    delay_s: l.delay_s,
                    queue: &l.queue,
                    loss: l.loss,
                    monitored: l.monitor,
                    table: 2 * i as u32,
                };
                let rq = l.reverse_queue.as_ref().unwrap_or(&l.queue);
                let rev = LinkParams {
                    rate_bps: l.rate_bps,
                    delay_s: l.delay_s,
                    queue: rq,
                    loss: l.reverse_loss,
                    monitored: l.monitor,
                    table: 2 * i as u32 + 1,
                };
                b.duplex(x, y, fwd, rev);
            }
            let mut flows = Vec::new();
            for (entry, start, _) in expand(sc) {
                let names = sc.flows[entry].route.as_ref().expect("validated: custom flows have a route");
                for (j, n) in names.iter().enumerate() {
                    if !b.node_idx.contains_key(n.as_str()) {
                        return Err(ConfigError::new(
                            format!("flows[{entry}].route[{j}]"),
                            format!("unknown node \"{n}\"; allowed: {}", c.nodes.join(", ")),
                        ));
                    }
                }
                let path: Vec<usize> = names.iter().map(|n| b.node_idx[n.as_str()]).collect();
                let route = b.shared_route(&path).map_err(|j| {
                    ConfigError::new(
                        format!("flows[{entry}].route[{j}]"),
                        format!("no link from \"{}\" to \"{}\"; add it to topology.links", names[j - 1], names[j]),
                    )
                })?;
                let fwd = &b.routes[route as usize].fwd;
                let rtt_prop_s =
                    2.0 * fwd.iter().map(|&l| crate::sim::time::to_secs(b.links[l as usize].delay)).sum::<f64>();
                let (src, dst) = (path[0], path[path.len() - 1]);
                flows.push(FlowPlacement { entry, src, dst, route, start_s: start, rtt_prop_s });
            }
            Ok(Built {
                nodes: b.nodes,
                links: b.links,
                routes: b.routes,
                flows,
                delays_s: b.delays_s,
                tables: b.tables,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NodeNames;

    /// Names come back as pushed, by index, the empty one and multi-byte
    /// characters included.
    #[test]
    fn node_names_come_back_as_pushed() {
        let names = ["s0", "", "router-å", "d10000"];
        let mut n = NodeNames::default();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(n.push(name), i);
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(&n[i], *name);
        }
    }
}
