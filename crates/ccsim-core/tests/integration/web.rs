//! The closed-loop web workload (`app = "web"`, E-TCP paper §VI-H): its
//! transfers follow the configured laws (Kolmogorov–Smirnov against the
//! CDFs), every finished transfer is freed so live flows stay bounded while
//! transfers accumulate, packets are conserved, one seed gives the same
//! bytes, and every new field is checked with a named error.
use crate::common;
use ccsim_core::app::web::WebConfig;
use ccsim_core::stats::{ks_crit_001, ks_distance, Transfers};
use ccsim_core::{Scenario, Simulation};
use common::*;
use std::collections::BTreeMap;

/// A dumbbell carrying `users` web users with the given `app_params`.
fn web(users: u32, rate_bps: f64, buf_pkts: u64, duration_s: f64, params: &str, extra: &str) -> String {
    format!(
        r#"
name = "web"
duration_s = {duration_s:?}
sample_interval_s = 0
[topology]
kind = "dumbbell"
bottleneck_rate_bps = {rate_bps:?}
bottleneck_delay_s = 0.001
bottleneck_queue = {{ limit_pkts = {buf_pkts} }}
edge_queue = {{ limit_pkts = 100000 }}
[[flows]]
count = {users}
app = "web"
rtt_range_s = [0.01, 0.15]
rtt_step_s = 0.001
app_params = {{ {params} }}
{extra}
"#
    )
}

fn parse(toml: &str) -> Scenario {
    Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Per (user, page): first start, last completion (None if a transfer of
/// it is unfinished), the page's object count, whether it is persistent.
struct Page {
    start: f64,
    done: Option<f64>,
    objects: u32,
    persistent: bool,
}

fn pages(t: &Transfers) -> BTreeMap<(u32, u32), Page> {
    let mut m: BTreeMap<(u32, u32), Page> = BTreeMap::new();
    for i in 0..t.len() {
        let p = m.entry((t.user[i], t.page[i])).or_insert(Page {
            start: f64::INFINITY,
            done: Some(0.0),
            objects: t.page_objects[i],
            persistent: t.persistent[i],
        });
        p.start = p.start.min(t.start_s[i]);
        p.done = match (p.done, t.completed_s[i]) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        assert_eq!(p.objects, t.page_objects[i]);
        assert_eq!(p.persistent, t.persistent[i]);
    }
    m
}

/// Loss-free (a large buffer, light load): a transfer is freed the moment
/// its last ACK arrives, so a think time is exactly the gap between a
/// page's last completion and the next page's first start.
#[test]
fn transfer_sizes_think_times_and_pages_follow_their_laws() {
    let params = "think_mean_s = 0.5, size_factor = 2.0, parallel = 2";
    let sc = parse(&web(300, 1e9, 100_000, 25.0, params, ""));
    let cfg = WebConfig::from_spec(&sc.flows[0], "flows[0]").unwrap();
    let r = run(&sc);
    assert!(r.links.iter().all(|l| l.drops == 0), "the run must be loss-free");
    let t = &r.transfers;
    assert!(t.len() > 10_000, "{} transfers", t.len());

    // One object per non-persistent transfer: its size law.
    let mut sizes: Vec<f64> = (0..t.len()).filter(|&i| !t.persistent[i]).map(|i| t.bytes[i] as f64).collect();
    let d = ks_distance(&mut sizes, |b| cfg.object_bytes_cdf(b));
    assert!(d < ks_crit_001(sizes.len()), "object sizes: KS distance {d} over {}", sizes.len());
    for i in 0..t.len() {
        assert_eq!(t.objects[i], if t.persistent[i] { t.page_objects[i] } else { 1 });
        if t.completed_s[i].is_some() {
            assert_eq!(t.delivered_bytes[i], t.bytes[i]);
            assert!((t.fct_s[i].unwrap() - (t.completed_s[i].unwrap() - t.start_s[i])).abs() < 1e-9);
        }
    }

    // Think times: from a page's end to the user's next page.
    let pg = pages(t);
    let mut think = Vec::new();
    for (&(user, page), p) in &pg {
        if page == 0 {
            continue;
        }
        let prev = pg[&(user, page - 1)].done.expect("a page starts after the previous one finished");
        think.push(p.start - prev);
    }
    let d = ks_distance(&mut think, |x| cfg.think_cdf(x));
    assert!(d < ks_crit_001(think.len()), "think times: KS distance {d} over {}", think.len());

    // Objects per page (discrete: sup_k |F_n(k) - F(k)|).
    let n = pg.len();
    let mut count = BTreeMap::new();
    for p in pg.values() {
        *count.entry(p.objects).or_insert(0usize) += 1;
    }
    let (mut cum, mut d) = (0, 0.0f64);
    for (&k, &c) in &count {
        cum += c;
        d = d.max((cum as f64 / n as f64 - cfg.objects.cdf(k as f64)).abs());
    }
    assert!(d < ks_crit_001(n), "objects per page: KS distance {d} over {n} pages");

    // Pages on persistent connections: a new connection is persistent with
    // probability p and then carries E[P] pages, so the share of pages is
    // p·E[P] / (p·E[P] + 1 - p).
    let (p, ep) = (cfg.persistent, cfg.pages.mean());
    let want = p * ep / (p * ep + 1.0 - p);
    let got = pg.values().filter(|p| p.persistent).count() as f64 / n as f64;
    assert!((got - want).abs() < 5.0 * (want * (1.0 - want) / n as f64).sqrt(), "persistent pages {got}, want {want}");
}

/// Every finished transfer is freed: the live flows stay at most one per
/// user (sequential objects) while the transfers made keep growing.
#[test]
fn finished_transfers_are_freed_and_live_flows_stay_bounded() {
    let users = 200;
    let sc = parse(&web(users, 20e6, 30, 40.0, "think_mean_s = 1.0, size_factor = 4.0", ""));
    let mut sim = Simulation::new(&sc).unwrap();
    let mut last_total = 0;
    for k in 1..=8 {
        sim.run_until(5.0 * k as f64);
        let total = sim.flows.len();
        assert!(total > last_total, "transfers keep being made ({total} by {} s)", sim.now_s());
        last_total = total;
        assert!(sim.flows.live() <= users as usize, "{} live flows for {users} users", sim.flows.live());
        // a flow is live exactly while its transfer is unfinished or has
        // packets in the network
        for f in 0..total as u32 {
            let fl = sim.flows.get(f);
            let done = fl.report().completed_at.is_some() && sim.net.flow_in_network(f) == 0;
            assert_eq!(fl.is_live(), !done, "flow {f} at {} s", sim.now_s());
        }
    }
    let r = finish(&sim);
    let ft = r.flow_table.clone().expect("a run with transfers reports its flow table");
    assert_eq!(ft.transfers as usize, r.transfers.len());
    assert_eq!(ft.flows, ft.transfers, "web entries place host pairs, not flows");
    assert!(ft.live_max <= users as u64 && ft.live_end == sim.flows.live() as u64);
    assert!(ft.transfers > 20 * ft.live_max, "{ft:?}: thousands of transfers, a few hundred alive");
    assert!(r.flows.is_empty() && r.series.flows.time_s.is_empty(), "transfers are not flows");
    let unfinished = r.transfers.completed_s.iter().filter(|c| c.is_none()).count() as u64;
    assert!(unfinished <= ft.live_end);
}

/// Lossy (a 20-packet buffer): conservation holds, and one seed gives the
/// same results byte for byte while another gives other transfers.
#[test]
fn web_runs_conserve_packets_and_are_deterministic() {
    let toml = web(300, 30e6, 20, 20.0, "size_factor = 10.0, think_mean_s = 2.0", "recovery = \"sack\"");
    let a = run(&parse(&toml));
    let b = run(&parse(&toml));
    assert!(a.links[FWD_BNECK].drops > 0, "the buffer overflows");
    assert!(a.transfers.retransmits.iter().sum::<u64>() > 0);
    let (ja, jb) = (a.to_json(), b.to_json());
    assert_eq!(ja, jb);
    assert!(ja.contains("\"transfers\":{\"flow\":[0,") && ja.contains("\"flow_table\":{"));
    let c = run(&parse(&toml.replace("name = \"web\"", "name = \"web\"\nseed = 2")));
    assert_ne!(a.transfers.bytes, c.transfers.bytes);
    // adding a user leaves the others' draws alone: user 0's first page
    let d = run(&parse(&toml.replace("count = 300", "count = 301")));
    let first = |r: &ccsim_core::Results| {
        let t = &r.transfers;
        let i = (0..t.len()).find(|&i| t.user[i] == 0).unwrap();
        (t.bytes[i], t.page_objects[i], t.rtt_prop_s[i])
    };
    assert_eq!(first(&a).0, first(&d).0);
    assert_eq!(first(&a).1, first(&d).1);
}

/// The entry's transport settings reach every transfer, and per-user RTTs
/// come from the discrete grid.
#[test]
fn transfers_use_the_entry_transport_and_per_user_rtts() {
    let toml = web(50, 100e6, 100, 10.0, "think_mean_s = 0.5", "cc = \"cubic\"\npacing = \"interval\"");
    let r = run(&parse(&toml));
    let t = &r.transfers;
    assert!(t.len() > 100);
    assert!(t.transport.iter().all(|x| x == "tcp") && t.cc.iter().all(|x| x == "cubic"));
    let mut per_user: BTreeMap<u32, f64> = BTreeMap::new();
    for i in 0..t.len() {
        let rtt = *per_user.entry(t.user[i]).or_insert(t.rtt_prop_s[i]);
        assert_eq!(rtt, t.rtt_prop_s[i], "a user keeps its host pair");
        let ms = rtt * 1e3;
        assert!((10.0 - 1e-6..=150.0 + 1e-6).contains(&ms) && (ms - ms.round()).abs() < 1e-6, "RTT {ms} ms");
    }
    assert!(per_user.values().any(|&x| x != per_user[&t.user[0]]), "users differ");
    // stop_s: no page is requested after it
    let r = run(&parse(&toml.replace("cc = \"cubic\"", "cc = \"cubic\"\nstop_s = 4.0")));
    let pg = pages(&r.transfers);
    assert!(pg.values().all(|p| p.start < 4.0), "pages start before stop_s");
}

#[test]
fn web_fields_are_validated_with_named_errors() {
    let base = web(10, 10e6, 20, 5.0, "", "");
    let err = |from: &str, to: &str| {
        let t = base.replacen(from, to, 1);
        assert_ne!(t, base, "{from} not in the scenario");
        let e = Scenario::from_toml(&t).and_then(|sc| Simulation::new(&sc).map(|_| ())).unwrap_err();
        e.to_string()
    };
    let e = err("app = \"web\"", "app = \"wbe\"");
    assert_eq!(e, "scenario.flows[0].app: unknown value \"wbe\"; allowed: bulk, onoff, web, shortflow, telnet");
    let e = err("app_params = {  }", "app_params = { think_mean_s = 0 }");
    assert_eq!(e, "scenario.flows[0].app_params.think_mean_s: 0 is not allowed; must be a finite number > 0");
    let e = err("app_params = {  }", "app_params = { think_mean_s = 2e6 }");
    assert_eq!(e, "scenario.flows[0].app_params.think_mean_s: 2000000 is not allowed; times must be <= 1000000 s");
    let e = err("app_params = {  }", "app_params = { objects_p1 = -0.1 }");
    assert!(e.starts_with("scenario.flows[0].app_params.objects_p1: -0.1 is out of range"), "{e}");
    let e = err("app_params = {  }", "app_params = { think = 1 }");
    assert!(e.starts_with("scenario.flows[0].app_params.think: unknown field for app = \"web\"; allowed:"), "{e}");
    let e = err("app_params = {  }", "app_params = { size_factor = \"big\" }");
    assert!(e.starts_with("scenario.flows[0].app_params.size_factor: \"big\" is not a number"), "{e}");
    let e = err("app = \"web\"", "app = \"web\"\nbytes = 1000");
    assert!(e.starts_with("scenario.flows[0].bytes: not allowed with app = \"web\""), "{e}");
    let e = err("app = \"web\"", "app = \"web\"\ntransport = \"udp\"\nrate_bps = 1e6");
    assert_eq!(e, "scenario.flows[0].app: \"web\" needs a transport that takes bytes; transport \"udp\" does not");
    let e = err("app = \"web\"", "app = \"bulk\"");
    assert!(e.starts_with("scenario.flows[0].app_params: app \"bulk\" takes no parameters"), "{e}");
    let e = err("app = \"web\"\n", "");
    assert_eq!(e, "scenario.flows[0].app_params: given without app; set app first");
    let e = err("rtt_step_s = 0.001", "rtt_step_s = 0");
    assert_eq!(e, "scenario.flows[0].rtt_step_s: 0 is not allowed; must be a finite number > 0");
    let e = err("rtt_range_s = [0.01, 0.15]\n", "rtt_s = 0.1\n");
    assert_eq!(e, "scenario.flows[0].rtt_step_s: only allowed with rtt_range_s (the grid starts at its low end)");
    // The normalised scenario holds every web parameter.
    let sc = parse(&base);
    let p = sc.flows[0].app_params.as_ref().unwrap();
    assert_eq!(p["think_mean_s"], 20.0);
    assert_eq!(p["persistent"], 0.15);
    assert_eq!(p["object_dist"], "pareto2");
    assert!(!p.contains_key("object_max_bytes"));
    assert_eq!(Scenario::from_json(&sc.to_json()).unwrap().to_json(), sc.to_json());
}

/// Web users beside an ordinary bulk flow, with series and a warm-up: the
/// bulk flow keeps id 0, its row in `flows`, its series and Jain's index;
/// the transfers stay out of all three.
#[test]
fn web_users_beside_a_bulk_flow() {
    let toml = web(100, 50e6, 50, 10.0, "think_mean_s = 0.5", "")
        .replace("sample_interval_s = 0", "sample_interval_s = 0.5\nwarmup_s = 2.0")
        + "[[flows]]\nrtt_s = 0.05\n";
    let r = run(&parse(&toml));
    assert_eq!(r.flows.len(), 1);
    assert_eq!((r.flows[0].id, r.flows[0].entry), (0, 1));
    assert!(r.flows[0].goodput_bps > 0.0 && r.jain_index == 1.0);
    assert!(!r.series.flows.flow.is_empty() && r.series.flows.flow.iter().all(|&f| f == 0));
    assert!(r.series.fairness.jain.iter().all(|&j| j == 1.0 || j.is_nan()));
    assert!(r.transfers.len() > 100 && !r.transfers.flow.contains(&0));
    assert_eq!(r.flow_table.as_ref().unwrap().flows, r.transfers.len() as u64 + 1);
}

/// The workload names no transport: the same users over E-TCP make,
/// finish and free their transfers, with packets conserved.
#[test]
fn web_users_on_etcp() {
    let toml = web(300, 30e6, 20, 15.0, "size_factor = 4.0, think_mean_s = 2.0", "transport = \"etcp\"");
    let r = run(&parse(&toml));
    let t = &r.transfers;
    assert!(t.len() > 500, "{} transfers", t.len());
    assert!(t.transport.iter().all(|x| x == "etcp"));
    let done: Vec<usize> = (0..t.len()).filter(|&i| t.completed_s[i].is_some()).collect();
    assert!(done.len() as f64 > 0.9 * t.len() as f64);
    assert!(done.iter().all(|&i| t.delivered_bytes[i] == t.bytes[i]));
    let ft = r.flow_table.unwrap();
    assert!(ft.live_max <= 300 && ft.transfers > 5 * ft.live_max, "{ft:?}");
    assert!(r.links[FWD_BNECK].drops > 0, "E-TCP keeps the small buffer lossy");
}
