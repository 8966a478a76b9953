//! Field-by-field validation. Route and RTT feasibility, which need the
//! built network, are checked by the topology builder with the same error
//! type, so `Simulation::new` is the complete check.
use super::*;

type R = Result<(), ConfigError>;

fn err(field: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, msg)
}

/// Longest time any field may hold: simulated time is u64 picoseconds
/// (213 days), and every deadline is a sum of a few such times.
pub const MAX_TIME_S: f64 = 1e6;
/// Link rates: at least 1 b/s (so a packet serialises within the clock
/// range), at most 1 Pb/s.
pub const MIN_RATE_BPS: f64 = 1.0;
pub const MAX_RATE_BPS: f64 = 1e15;
/// Most bottlenecks in a parking lot: each is two links with queues, built
/// before the run, and u32::MAX of them would abort the allocator (found by
/// tests/integration/fuzz_scenario.rs; 10^6 links took 20 s to build).
pub const MAX_PARKING_LOT_LINKS: u32 = 10_000;
/// Largest segment payload or header: keeps packet sizes in u32.
pub const MAX_PACKET_BYTES: u32 = 1_000_000;

/// A number as a user would write it: exponent form when very large or small.
fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Units are in field names; bound every time and rate by its unit.
fn unit_bounds(field: &str, x: f64) -> R {
    let name = field.rsplit('.').next().unwrap_or(field);
    let name = name.split('[').next().unwrap_or(name);
    if name.ends_with("_s") && x > MAX_TIME_S {
        return Err(err(field, format!("{} is not allowed; times must be <= {MAX_TIME_S} s", num(x))));
    }
    if name.ends_with("_bps") && !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&x) {
        return Err(err(
            field,
            format!("{} is not allowed; rates must be from {MIN_RATE_BPS} to {MAX_RATE_BPS} b/s", num(x)),
        ));
    }
    Ok(())
}

pub(crate) fn positive(field: &str, x: f64) -> R {
    if x.is_finite() && x > 0.0 {
        unit_bounds(field, x)
    } else {
        Err(err(field, format!("{} is not allowed; must be a finite number > 0", num(x))))
    }
}

pub(crate) fn non_negative(field: &str, x: f64) -> R {
    if x.is_finite() && x >= 0.0 {
        unit_bounds(field, x)
    } else {
        Err(err(field, format!("{} is not allowed; must be a finite number >= 0", num(x))))
    }
}

pub(crate) fn at_least(field: &str, x: f64, lo: f64) -> R {
    if x.is_finite() && x >= lo {
        unit_bounds(field, x)
    } else {
        Err(err(field, format!("{} is not allowed; must be a finite number >= {lo}", num(x))))
    }
}

fn bytes(field: &str, x: u32, lo: u32) -> R {
    if (lo..=MAX_PACKET_BYTES).contains(&x) {
        Ok(())
    } else {
        Err(err(field, format!("{x} is not allowed; must be from {lo} to {MAX_PACKET_BYTES} bytes")))
    }
}

fn probability(field: &str, p: f64) -> R {
    if p.is_finite() && (0.0..1.0).contains(&p) {
        Ok(())
    } else {
        Err(err(field, format!("{p} is not allowed; a loss probability must be in [0, 1)")))
    }
}

fn topology(t: &Topology, parts: &dyn Parts) -> R {
    match t {
        Topology::Dumbbell(d) => {
            positive("topology.bottleneck_rate_bps", d.bottleneck_rate_bps)?;
            non_negative("topology.bottleneck_delay_s", d.bottleneck_delay_s)?;
            parts.queue("topology.bottleneck_queue", &d.bottleneck_queue)?;
            probability("topology.bottleneck_loss", d.bottleneck_loss)?;
            probability("topology.bottleneck_reverse_loss", d.bottleneck_reverse_loss)?;
            positive("topology.edge_rate_bps", d.edge_rate_bps)?;
            non_negative("topology.edge_delay_s", d.edge_delay_s)?;
            parts.queue("topology.edge_queue", &d.edge_queue)
        }
        Topology::ParkingLot(p) => {
            if !(1..=MAX_PARKING_LOT_LINKS).contains(&p.n_links) {
                return Err(err(
                    "topology.n_links",
                    format!("{} is not allowed; must be from 1 to {MAX_PARKING_LOT_LINKS}", p.n_links),
                ));
            }
            positive("topology.link_rate_bps", p.link_rate_bps)?;
            non_negative("topology.link_delay_s", p.link_delay_s)?;
            parts.queue("topology.link_queue", &p.link_queue)?;
            probability("topology.link_loss", p.link_loss)?;
            probability("topology.link_reverse_loss", p.link_reverse_loss)?;
            positive("topology.edge_rate_bps", p.edge_rate_bps)?;
            non_negative("topology.edge_delay_s", p.edge_delay_s)?;
            parts.queue("topology.edge_queue", &p.edge_queue)
        }
        Topology::Custom(c) => {
            if c.nodes.is_empty() {
                return Err(err("topology.nodes", "empty; a custom topology needs at least 2 nodes"));
            }
            for (i, n) in c.nodes.iter().enumerate() {
                if c.nodes[..i].contains(n) {
                    return Err(err(
                        format!("topology.nodes[{i}]"),
                        format!("\"{n}\" appears twice; node names must be unique"),
                    ));
                }
            }
            for (i, l) in c.links.iter().enumerate() {
                let f = format!("topology.links[{i}]");
                for (k, n) in [("from", &l.from), ("to", &l.to)] {
                    if !c.nodes.contains(n) {
                        return Err(err(
                            format!("{f}.{k}"),
                            format!("unknown node \"{n}\"; allowed: {}", c.nodes.join(", ")),
                        ));
                    }
                }
                if l.from == l.to {
                    return Err(err(format!("{f}.to"), format!("\"{}\" links a node to itself", l.to)));
                }
                // Routes name nodes, so two links between one pair could
                // not be told apart (the later one would silently carry
                // every route through that pair).
                let same = |m: &CustomLink| (m.from == l.from && m.to == l.to) || (m.from == l.to && m.to == l.from);
                if let Some(j) = c.links[..i].iter().position(same) {
                    return Err(err(
                        f.clone(),
                        format!(
                            "a second link between \"{}\" and \"{}\" (links[{j}] joins them already; each link is \
                             duplex); routes name nodes, so parallel links cannot be told apart: put a node between",
                            l.from, l.to
                        ),
                    ));
                }
                positive(&format!("{f}.rate_bps"), l.rate_bps)?;
                non_negative(&format!("{f}.delay_s"), l.delay_s)?;
                parts.queue(&format!("{f}.queue"), &l.queue)?;
                if let Some(q) = &l.reverse_queue {
                    parts.queue(&format!("{f}.reverse_queue"), q)?;
                }
                probability(&format!("{f}.loss"), l.loss)?;
                probability(&format!("{f}.reverse_loss"), l.reverse_loss)?;
            }
            Ok(())
        }
    }
}

fn flow(i: usize, f: &FlowSpec, sc: &Scenario, parts: &dyn Parts) -> R {
    let p = |k: &str| format!("flows[{i}].{k}");
    if f.count == 0 {
        return Err(err(p("count"), "0 is not allowed; must be >= 1"));
    }
    bytes(&p("mss_bytes"), f.mss_bytes, 1)?;
    bytes(&p("header_bytes"), f.header_bytes, 0)?;
    // The transport and the application check their own fields.
    parts.flow(f, &format!("flows[{i}]"))?;
    non_negative(&p("start_s"), f.start_s)?;
    non_negative(&p("start_spread_s"), f.start_spread_s)?;
    if let Some(stop) = f.stop_s {
        unit_bounds(&p("stop_s"), stop)?;
        if !(stop.is_finite() && stop > f.start_s) {
            return Err(err(p("stop_s"), format!("{stop} is not allowed; must be > start_s ({})", f.start_s)));
        }
    }
    if let Some(q) = &f.host_delay_s {
        delay_distribution(&p("host_delay_s"), q)?;
    }
    match &f.rtt_s {
        Some(OneOrMany::One(x)) => positive(&p("rtt_s"), *x)?,
        Some(OneOrMany::Many(v)) => {
            if v.len() != f.count as usize {
                return Err(err(
                    p("rtt_s"),
                    format!("list of {} values given; need one per flow (count = {})", v.len(), f.count),
                ));
            }
            for (j, x) in v.iter().enumerate() {
                positive(&format!("flows[{i}].rtt_s[{j}]"), *x)?;
            }
        }
        None => {}
    }
    if let Some([lo, hi]) = f.rtt_range_s {
        positive(&p("rtt_range_s[0]"), lo)?;
        at_least(&p("rtt_range_s[1]"), hi, lo)?;
        if f.rtt_s.is_some() {
            return Err(err(p("rtt_range_s"), "given together with rtt_s; set only one"));
        }
    }
    if let Some(step) = f.rtt_step_s {
        positive(&p("rtt_step_s"), step)?;
        if f.rtt_range_s.is_none() {
            return Err(err(p("rtt_step_s"), "only allowed with rtt_range_s (the grid starts at its low end)"));
        }
    }
    match (&sc.topology, f.hops, &f.route) {
        (Topology::Custom(_), _, None) => {
            Err(err(p("route"), "missing; flows on a custom topology need a route of node names"))
        }
        (Topology::Custom(_), Some(_), _) => Err(err(p("hops"), "only parking_lot topologies take hops; use route")),
        (Topology::Custom(_), _, Some(r)) if r.len() < 2 => {
            Err(err(p("route"), format!("{r:?} is too short; a route names at least 2 nodes")))
        }
        (Topology::Custom(_), _, Some(_)) if f.rtt_s.is_some() || f.rtt_range_s.is_some() => {
            Err(err(p("rtt_s"), "not allowed on a custom topology; the RTT follows from the link delays"))
        }
        (Topology::Custom(_), _, Some(r)) if r.iter().enumerate().any(|(j, n)| r[..j].contains(n)) => {
            let j = r.iter().enumerate().position(|(j, n)| r[..j].contains(n)).unwrap_or_default();
            let k = r.iter().position(|n| *n == r[j]).unwrap_or_default();
            Err(err(
                p(&format!("route[{j}]")),
                format!("\"{}\" appears twice (also route[{k}]); a route visits each node once", r[j]),
            ))
        }
        (Topology::Custom(_), _, Some(_)) if f.direction == Direction::Reverse => Err(err(
            p("direction"),
            "\"reverse\" is not allowed on a custom topology (it only applies to dumbbell and parking_lot); \
             write the route from sender to receiver instead",
        )),
        (Topology::Custom(_), _, Some(_)) => Ok(()),
        (_, _, Some(_)) => Err(err(p("route"), "only custom topologies take a route")),
        (Topology::Dumbbell(_), Some(h), _) if h != [0, 0] => {
            Err(err(p("hops"), format!("{h:?} is not allowed; a dumbbell has one link (use a parking_lot)")))
        }
        (Topology::ParkingLot(pl), Some([a, b]), _) if a > b || b >= pl.n_links => {
            Err(err(p("hops"), format!("[{a}, {b}] is not allowed; need first <= last < n_links ({})", pl.n_links)))
        }
        _ => Ok(()),
    }
}

/// Check every field of `sc`; the registries above the scenario check
/// their own tables through `parts` (queues, transports, applications).
pub fn validate(sc: &Scenario, parts: &dyn Parts) -> R {
    positive("duration_s", sc.duration_s)?;
    non_negative("warmup_s", sc.warmup_s)?;
    if sc.warmup_s >= sc.duration_s {
        return Err(err(
            "warmup_s",
            format!("{} is not allowed; must be < duration_s ({})", sc.warmup_s, sc.duration_s),
        ));
    }
    non_negative("sample_interval_s", sc.sample_interval_s)?;
    positive("fairness_window_s", sc.fairness_window_s)?;
    topology(&sc.topology, parts)?;
    if sc.flows.is_empty() {
        return Err(err("flows", "empty; a scenario needs at least one flow"));
    }
    for (i, f) in sc.flows.iter().enumerate() {
        flow(i, f, sc, parts)?;
    }
    ns2_seed(sc)?;
    ns2_boot_order(sc)?;
    match available_memory() {
        Some((bytes, who)) => resources_of(sc, bytes, &who),
        None => Ok(()),
    }
}

/// The first field that asks for ns-2's default random stream (`rng =
/// "ns2"` on a queue table or in a flow's `app_params`, or
/// `ns2_boot_order`, which orders the TCP agents' draws from it), as the
/// field and its value.
pub(crate) fn ns2_rng_user(sc: &Scenario) -> Option<String> {
    let is_ns2 = |m: &serde_json::Map<String, serde_json::Value>| m.get("rng").and_then(|v| v.as_str()) == Some("ns2");
    let mut queues: Vec<(String, &QueueSpec)> = Vec::new();
    match &sc.topology {
        Topology::Dumbbell(d) => {
            queues.push(("topology.bottleneck_queue".into(), &d.bottleneck_queue));
            queues.push(("topology.edge_queue".into(), &d.edge_queue));
        }
        Topology::ParkingLot(p) => {
            queues.push(("topology.link_queue".into(), &p.link_queue));
            queues.push(("topology.edge_queue".into(), &p.edge_queue));
        }
        Topology::Custom(c) => {
            for (i, l) in c.links.iter().enumerate() {
                queues.push((format!("topology.links[{i}].queue"), &l.queue));
                if let Some(q) = &l.reverse_queue {
                    queues.push((format!("topology.links[{i}].reverse_queue"), q));
                }
            }
        }
    }
    let queue = queues.into_iter().find(|(_, q)| is_ns2(&q.extra)).map(|(f, _)| format!("{f}.rng = \"ns2\""));
    let app = || {
        sc.flows.iter().enumerate().find_map(|(i, f)| {
            f.app_params.as_ref().filter(|m| is_ns2(m)).map(|_| format!("flows[{i}].app_params.rng = \"ns2\""))
        })
    };
    let boot = || sc.ns2_boot_order.as_ref().map(|_| "ns2_boot_order".to_string());
    queue.or_else(app).or_else(boot)
}

/// ns-2's `$defaultRNG seed S` takes 0 < S < 2^31 - 1: a scenario whose
/// components draw from that stream needs a seed it accepts.
fn ns2_seed(sc: &Scenario) -> R {
    let Some(user) = ns2_rng_user(sc) else { return Ok(()) };
    if crate::sim::ns2rng::Ns2Rng::seeded(sc.seed).is_some() {
        return Ok(());
    }
    Err(err(
        "seed",
        format!(
            "{} is not allowed with {user}; ns-2's default random stream takes seeds from 1 to {}",
            sc.seed,
            crate::sim::ns2rng::MAX_SEED
        ),
    ))
}

/// `ns2_boot_order` must name every TCP flow (by its index in the
/// expanded flow list, as in the results) exactly once.
fn ns2_boot_order(sc: &Scenario) -> R {
    let Some(order) = &sc.ns2_boot_order else { return Ok(()) };
    let tcp: Vec<bool> =
        sc.flows.iter().flat_map(|f| std::iter::repeat_n(f.transport == "tcp", f.count as usize)).collect();
    let mut seen = vec![false; tcp.len()];
    for (k, &i) in order.iter().enumerate() {
        let field = format!("ns2_boot_order[{k}]");
        match tcp.get(i as usize) {
            None => {
                return Err(err(
                    field,
                    format!("{i} is not a flow index; the scenario has flows 0 to {}", tcp.len() - 1),
                ))
            }
            Some(false) => return Err(err(field, format!("{i} is not allowed: flow {i} is not a TCP flow"))),
            Some(true) if seen[i as usize] => {
                return Err(err(field, format!("{i} is not allowed: flow {i} is already in the order")))
            }
            Some(true) => seen[i as usize] = true,
        }
    }
    if let Some(missing) = (0..tcp.len()).find(|&i| tcp[i] && !seen[i]) {
        return Err(err("ns2_boot_order", format!("misses TCP flow {missing}; it must list every TCP flow once")));
    }
    Ok(())
}

/// What a run holds in memory, measured on `ccsim run` (engine, results
/// JSON and the Python tables together, 2026-11-23): about 24 kB per flow
/// (its agents, its own host links and queues, its result row) and 300 B
/// per series row (a flow or link at one sample time).
pub const BYTES_PER_FLOW: f64 = 24e3;
pub const BYTES_PER_SERIES_ROW: f64 = 300.0;

/// `MemAvailable` of /proc/meminfo; `None` where there is none (then
/// nothing is refused).
/// The memory a run may use, and who has it (for the message): the
/// machine's `MemAvailable`, or, when smaller, the room left under this
/// process's soft address-space limit (`RLIMIT_AS`, `ulimit -v`), where
/// an allocation would fail mid-build however much the machine has free.
/// `None` where neither figure is available.
fn available_memory() -> Option<(f64, String)> {
    let machine = (|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024.0)
    })();
    let machine = machine.map(|m| (m, "this machine has".to_string()));
    let process = address_space_limit().map(|(limit, used)| {
        let who = format!(
            "this process, under its address-space limit (ulimit -v: {}, {} of it in use), has",
            gb(limit),
            gb(used)
        );
        ((limit - used).max(0.0), who)
    });
    match (machine, process) {
        (Some(m), Some(p)) => Some(if p.0 < m.0 { p } else { m }),
        (m, p) => m.or(p),
    }
}

/// The soft address-space limit of this process and the address space it
/// maps now, in bytes, from /proc/self/limits and /proc/self/status;
/// `None` without a limit (or where there is no /proc).
fn address_space_limit() -> Option<(f64, f64)> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft = limits.lines().find_map(|l| l.strip_prefix("Max address space"))?.split_whitespace().next()?;
    let limit: f64 = soft.parse().ok()?; // "unlimited" does not parse
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmSize:"))?.split_whitespace().next()?.parse().ok()?;
    Some((limit, kb * 1024.0))
}

fn gb(bytes: f64) -> String {
    format!("{:.3} GB", bytes / 1e9)
}

/// `flows[i].host_delay_s` (or `read_delay_s`) is valid: its delays as [`delay_quantiles`]
/// says, and given probabilities as many, from 0 to 1 and increasing.
pub fn delay_distribution(path: &str, d: &crate::scenario::DelayQuantiles) -> Result<(), ConfigError> {
    let crate::scenario::DelayQuantiles::At(t) = d else { return delay_quantiles(path, d.values()) };
    delay_quantiles(&format!("{path}.quantiles_s"), &t.quantiles_s)?;
    let pp = format!("{path}.probabilities");
    let (p, n) = (&t.probabilities, t.quantiles_s.len());
    if p.len() != n || n < 2 {
        return Err(ConfigError::new(
            pp,
            format!("{} values is not allowed; give one per quantile ({n}), at least two", p.len()),
        ));
    }
    for (j, &x) in p.iter().enumerate() {
        let bad = if !x.is_finite() {
            Some("must be a finite number".to_string())
        } else if j == 0 && x != 0.0 {
            Some("the first must be 0".into())
        } else if j == n - 1 && x != 1.0 {
            Some("the last must be 1".into())
        } else if j > 0 && x <= p[j - 1] {
            Some(format!("must be above the one before it ({})", p[j - 1]))
        } else {
            None
        };
        if let Some(why) = bad {
            return Err(ConfigError::new(format!("{pp}[{j}]"), format!("{x} is not allowed; {why}")));
        }
    }
    Ok(())
}

/// A delay's quantiles are valid: one value or at least two, each a
/// finite number ≥ 0, in nondecreasing order.
pub fn delay_quantiles(path: &str, quantiles_s: &[f64]) -> Result<(), ConfigError> {
    if quantiles_s.is_empty() {
        return Err(ConfigError::new(path, "an empty list is not allowed; give one delay or its quantiles"));
    }
    for (j, &q) in quantiles_s.iter().enumerate() {
        if !(q.is_finite() && q >= 0.0) {
            return Err(ConfigError::new(
                format!("{path}[{j}]"),
                format!("{q} is not allowed; must be a finite number ≥ 0 (seconds)"),
            ));
        }
        if j > 0 && q < quantiles_s[j - 1] {
            return Err(ConfigError::new(
                format!("{path}[{j}]"),
                format!("{q} is below the quantile before it ({}); quantiles must not decrease", quantiles_s[j - 1]),
            ));
        }
    }
    Ok(())
}

/// [`resources_of`] against `available` bytes of this machine (`None`:
/// unknown, nothing refused), as the tests state it.
#[cfg(test)]
pub fn resources(sc: &Scenario, available: Option<f64>) -> R {
    match available {
        Some(avail) => resources_of(sc, avail, "this machine has"),
        None => Ok(()),
    }
}

/// Refuse, before running, a scenario whose flows or series cannot fit in
/// the `avail` bytes `who` ("this machine has") has, instead of the
/// allocator aborting or the machine swapping mid-run, naming the field
/// that decides it.
fn resources_of(sc: &Scenario, avail: f64, who: &str) -> R {
    let flows: f64 = sc.flows.iter().map(|f| f.count as f64).sum();
    let flow_bytes = flows * BYTES_PER_FLOW;
    // the entry to blame when the flows do not fit: the largest
    let too_many = |why: String| {
        let (i, f) = sc.flows.iter().enumerate().max_by_key(|(_, f)| f.count).expect("validated: flows");
        err(format!("flows[{i}].count"), format!("{} is too many: {why}; {who} {} available", f.count, gb(avail)))
    };
    if flow_bytes > avail {
        return Err(too_many(format!(
            "{flows} flows in total need about {} (about 24 kB each: agents, host links, queues, results)",
            gb(flow_bytes)
        )));
    }
    if sc.sample_interval_s > 0.0 {
        let monitored = match &sc.topology {
            Topology::Dumbbell(_) => 2.0,
            Topology::ParkingLot(p) => 2.0 * p.n_links as f64,
            Topology::Custom(c) => 2.0 * c.links.iter().filter(|l| l.monitor).count() as f64,
        };
        let samples = (sc.duration_s / sc.sample_interval_s).floor() + 1.0;
        let rows_per_sample = flows + monitored + 1.0;
        let sample_bytes = rows_per_sample * BYTES_PER_SERIES_ROW;
        let series = samples * sample_bytes;
        if flow_bytes + series > avail {
            // samples that fit beside the flows
            let room = ((avail - flow_bytes) / sample_bytes).floor();
            if room < 1.0 {
                // not even the sample at time 0: no interval helps, the
                // flows leave no room for their series
                return Err(too_many(format!(
                    "{flows} flows in total need about {} and their series {} per sample; set \
                     sample_interval_s = 0 for no series, or run fewer flows",
                    gb(flow_bytes),
                    gb(sample_bytes)
                )));
            }
            // floor(d / i) + 1 <= room exactly when i > d / room
            let min_interval = sc.duration_s / room;
            return Err(err(
                "sample_interval_s",
                format!(
                    "{} s gives {} samples x {} series rows (flows and monitored links) = about {} of series; \
                     {who} {} available beside the flows' {}: use sample_interval_s >= {} s, or 0 for \
                     no series",
                    num(sc.sample_interval_s),
                    num(samples),
                    rows_per_sample,
                    gb(series),
                    gb(avail),
                    gb(flow_bytes),
                    num((min_interval * 1.01 * 1e6).ceil() / 1e6)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(extra_top: &str, count: u64) -> Scenario {
        Scenario::from_toml(&format!(
            "duration_s = 10.0\n{extra_top}\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\n\
             bottleneck_queue = {{ limit_pkts = 20 }}\n[[flows]]\ncount = {count}\nrtt_s = 0.1\n"
        ))
        .unwrap()
    }

    #[test]
    fn flows_beyond_memory_are_refused_naming_the_count() {
        // 1000 flows need 24 MB: fine with 1 GB, refused with 10 MB
        let s = sc("sample_interval_s = 0", 1000);
        assert!(resources(&s, Some(1e9)).is_ok());
        let e = resources(&s, Some(1e7)).unwrap_err();
        assert_eq!(e.field, "flows[0].count");
        assert!(e.msg.contains("0.024 GB") && e.msg.contains("0.010 GB available"), "{}", e.msg);
        // no memory figure (not Linux): nothing refused
        assert!(resources(&s, None).is_ok());
    }

    #[test]
    fn series_beyond_memory_are_refused_with_the_smallest_interval_that_fits() {
        // 10 flows + 2 bottleneck directions + fairness = 13 rows per sample;
        // 1e-4 s over 10 s = 100,001 samples: 390 MB of series
        let s = sc("sample_interval_s = 1e-4", 10);
        let e = resources(&s, Some(2e8)).unwrap_err();
        assert_eq!(e.field, "sample_interval_s");
        assert!(e.msg.contains("0.390 GB of series"), "{}", e.msg);
        // the interval it suggests does fit
        let hint: f64 = e.msg.rsplit(">= ").next().unwrap().split(' ').next().unwrap().parse().unwrap();
        let ok = sc(&format!("sample_interval_s = {hint}"), 10);
        assert!(resources(&ok, Some(2e8)).is_ok(), "suggested {hint} s does not fit");
        assert!(resources(&sc("sample_interval_s = 0", 10), Some(2e8)).is_ok());
    }

    #[test]
    fn flows_that_leave_no_room_for_one_sample_are_blamed_not_the_interval() {
        // Found by the fuzz: a million flows (24 GB) on a 24.2 GB machine
        // with one sample of 0.3 GB was refused on `sample_interval_s`,
        // suggesting ">= 1e-6 s" for an interval of 0.1 s. 1000 flows (24 MB)
        // + one sample (interval 20 s over 10 s: 1003 rows, 0.3 MB) against
        // 24.1 MB: no interval fits.
        let mut s = sc("sample_interval_s = 20", 1000);
        let e = resources(&s, Some(24.1e6)).unwrap_err();
        assert_eq!(e.field, "flows[0].count", "{e}");
        assert!(e.msg.contains("sample_interval_s = 0"), "{}", e.msg);
        s.sample_interval_s = 0.0;
        assert!(resources(&s, Some(24.1e6)).is_ok());
        // room for two samples: the interval is blamed and its hint fits
        let s = sc("sample_interval_s = 1", 1000);
        let avail = 24e6 + 2.5 * 1003.0 * BYTES_PER_SERIES_ROW;
        let e = resources(&s, Some(avail)).unwrap_err();
        assert_eq!(e.field, "sample_interval_s", "{e}");
        let hint: f64 = e.msg.rsplit(">= ").next().unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(hint > 1.0, "{hint}");
        assert!(resources(&sc(&format!("sample_interval_s = {hint}"), 1000), Some(avail)).is_ok());
    }
}
