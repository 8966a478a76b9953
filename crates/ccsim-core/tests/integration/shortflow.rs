//! The short-flow workload (`app = "shortflow"`, paced-XCP paper §4.3):
//! realised file sizes follow the Pareto law in whole packets and off times
//! the exponential law (Kolmogorov–Smirnov), a node carries one file at a
//! time and waits its off time after each completion, finished files are
//! freed, packets are conserved, one seed gives the same bytes, and the
//! fields are checked with named errors.
use crate::common;
use ccsim_core::app::shortflow::ShortFlowConfig;
use ccsim_core::stats::{ks_crit_001, ks_distance, ks_distance_discrete, Transfers};
use ccsim_core::{Scenario, Simulation};
use common::*;
use std::collections::BTreeMap;

/// A dumbbell carrying `nodes` short-flow nodes with the given `app_params`.
fn shortflow(nodes: u32, rate_bps: f64, buf_pkts: u64, duration_s: f64, params: &str, extra: &str) -> String {
    Dumbbell::new(rate_bps, buf_pkts, duration_s)
        .name("shortflow")
        .delay(0.001)
        .flow(&format!(
            "count = {nodes}\napp = \"shortflow\"\nrtt_range_s = [0.01, 0.1]\nstart_spread_s = 1.0\n\
             app_params = {{ {params} }}\n{extra}"
        ))
        .toml()
        .replace("[[flows]]", "edge_queue = { limit_pkts = 100000 }\n[[flows]]")
}

fn parse(toml: &str) -> Scenario {
    Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Per node, its files in order: (start, completion).
fn files(t: &Transfers) -> BTreeMap<u32, Vec<(f64, Option<f64>)>> {
    let mut m: BTreeMap<u32, Vec<(u32, f64, Option<f64>)>> = BTreeMap::new();
    for i in 0..t.len() {
        m.entry(t.user[i]).or_default().push((t.page[i], t.start_s[i], t.completed_s[i]));
    }
    m.into_iter()
        .map(|(node, mut v)| {
            v.sort_by_key(|x| x.0);
            assert!(v.iter().enumerate().all(|(k, x)| x.0 == k as u32), "node {node}: files numbered from 0");
            (node, v.into_iter().map(|(_, s, c)| (s, c)).collect())
        })
        .collect()
}

/// Loss-free (large buffers, light load): a file is freed the moment its
/// last ACK arrives, so an off time is exactly the gap between a file's
/// completion and the node's next file.
#[test]
fn file_sizes_and_off_times_follow_their_laws_one_file_at_a_time() {
    let sc = parse(&shortflow(200, 1e9, 100_000, 30.0, "", ""));
    let cfg = ShortFlowConfig::from_spec(&sc.flows[0], "flows[0]").unwrap();
    let r = run(&sc);
    assert!(r.links.iter().all(|l| l.drops == 0), "the run must be loss-free");
    let t = &r.transfers;
    assert!(t.len() > 10_000, "{} files", t.len());
    // Sizes: whole packets of 1000 payload bytes, the Pareto law in packets
    // (discrete: sup over whole packets of |F_n(k) - F(k)|).
    assert!(t.bytes.iter().all(|&b| b % 1000 == 0));
    let mut pkts: Vec<u64> = t.bytes.iter().map(|&b| b / 1000).collect();
    pkts.sort_unstable();
    assert_eq!(pkts[0], 8, "type I Pareto of mean 30 and shape 1.35 starts at 7.78 packets");
    let d = ks_distance_discrete(&pkts, |k| cfg.file_pkts_cdf(k));
    assert!(d < ks_crit_001(pkts.len()), "file sizes: KS distance {d} over {} files", pkts.len());
    for i in 0..t.len() {
        assert_eq!((t.objects[i], t.page_objects[i], t.persistent[i]), (1, 1, false));
        if let Some(c) = t.completed_s[i] {
            assert_eq!(t.delivered_bytes[i], t.bytes[i]);
            assert!((t.fct_s[i].unwrap() - (c - t.start_s[i])).abs() < 1e-9);
        }
    }
    // One file at a time; off times from each completion to the next file.
    let mut off = Vec::new();
    let per_node = files(t);
    assert_eq!(per_node.len(), 200, "every node sends");
    for (node, v) in &per_node {
        for w in v.windows(2) {
            let done = w[0].1.unwrap_or_else(|| panic!("node {node}: a file starts before the previous one finished"));
            assert!(w[1].0 > done, "node {node}: file at {} before the previous completion {done}", w[1].0);
            off.push(w[1].0 - done);
        }
        // at most the last file is unfinished
        assert!(v[..v.len() - 1].iter().all(|f| f.1.is_some()));
    }
    let d = ks_distance(&mut off, |x| cfg.off_cdf(x));
    assert!(d < ks_crit_001(off.len()), "off times: KS distance {d} over {}", off.len());
    // the first file of each node opens at its start (start_spread_s = 1)
    assert!(per_node.values().all(|v| v[0].0 <= 1.0));
}

/// Lossy: finished files are freed (live flows at most one per node),
/// packets are conserved, one seed gives the same bytes, another other files.
#[test]
fn shortflow_runs_free_files_conserve_packets_and_are_deterministic() {
    let nodes = 150;
    let toml = shortflow(nodes, 20e6, 30, 20.0, "off_mean_s = 0.2", "recovery = \"sack\"");
    let mut sim = Simulation::new(&parse(&toml)).unwrap();
    for k in 1..=4 {
        sim.run_until(5.0 * k as f64);
        assert!(sim.flows.live() <= nodes as usize, "{} live flows for {nodes} nodes", sim.flows.live());
    }
    let a = finish(&sim);
    assert!(a.links[FWD_BNECK].drops > 0, "the small buffer overflows");
    let ft = a.flow_table.clone().unwrap();
    assert!(ft.live_max <= nodes as u64 && ft.transfers > 10 * ft.live_max, "{ft:?}");
    // one file at a time, lossy or not
    for (node, v) in files(&a.transfers) {
        for w in v.windows(2) {
            assert!(w[0].1.is_some_and(|c| w[1].0 > c), "node {node}: overlapping files");
        }
    }
    let b = run(&parse(&toml));
    assert_eq!(a.to_json(), b.to_json());
    let c = run(&parse(&toml.replace("seed = 1", "seed = 2")));
    assert_ne!(a.transfers.bytes, c.transfers.bytes);
    // adding a node leaves the others' draws alone: node 0's first file
    let d = run(&parse(&toml.replace("count = 150", "count = 151")));
    let first = |r: &ccsim_core::Results| {
        let t = &r.transfers;
        t.bytes[(0..t.len()).find(|&i| t.user[i] == 0).unwrap()]
    };
    assert_eq!(first(&a), first(&d));
}

/// The entry's transport settings reach every file; stop_s ends the files.
#[test]
fn files_use_the_entry_transport_and_stop() {
    let toml = shortflow(40, 100e6, 100, 6.0, "", "cc = \"xcp\"\npacing = \"token_bucket\"\nstop_s = 4.0")
        .replace("bottleneck_queue = { limit_pkts = 100 }", "bottleneck_queue = { limit_pkts = 100, xcp = true }");
    let r = run(&parse(&toml));
    let t = &r.transfers;
    assert!(t.len() > 100);
    assert!(t.cc.iter().all(|x| x == "xcp") && t.transport.iter().all(|x| x == "tcp"));
    assert!(t.start_s.iter().all(|&s| s < 4.0), "no file starts at or after stop_s");
}

#[test]
fn shortflow_fields_are_validated_with_named_errors() {
    let base = shortflow(10, 10e6, 20, 5.0, "", "");
    let err = |from: &str, to: &str| {
        let t = base.replacen(from, to, 1);
        assert_ne!(t, base, "{from} not in the scenario");
        Scenario::from_toml(&t).and_then(|sc| Simulation::new(&sc).map(|_| ())).unwrap_err().to_string()
    };
    let e = err("app = \"shortflow\"", "app = \"shortflows\"");
    assert_eq!(e, "scenario.flows[0].app: unknown value \"shortflows\"; allowed: bulk, onoff, web, shortflow, telnet");
    let e = err("app_params = {  }", "app_params = { off_mean_s = -1 }");
    assert_eq!(e, "scenario.flows[0].app_params.off_mean_s: -1 is not allowed; must be a finite number > 0");
    let e = err("app_params = {  }", "app_params = { size_shape = 0.9 }");
    assert!(e.starts_with("scenario.flows[0].app_params.size_shape: 0.9 is not allowed; must be a finite number > 1"));
    let e = err("app_params = {  }", "app_params = { size_dist = \"uniform\" }");
    assert_eq!(e, "scenario.flows[0].app_params.size_dist: unknown value \"uniform\"; allowed: pareto2, pareto");
    let e = err("app_params = {  }", "app_params = { mean_pkts = 30 }");
    assert!(e.starts_with("scenario.flows[0].app_params.mean_pkts: unknown field for app = \"shortflow\""), "{e}");
    let e = err("app = \"shortflow\"", "app = \"shortflow\"\nbytes = 1000");
    assert!(e.starts_with("scenario.flows[0].bytes: not allowed with app = \"shortflow\""), "{e}");
    // (the TCP fields the test dumbbell pins go too: UDP takes none)
    let udp = base.replacen("recovery = \"newreno\"\ninit_cwnd_pkts = 2\ndelayed_ack = false\n", "", 1);
    assert_ne!(udp, base);
    let e = Scenario::from_toml(&udp.replacen(
        "app = \"shortflow\"",
        "app = \"shortflow\"\ntransport = \"udp\"\nrate_bps = 1e6",
        1,
    ))
    .and_then(|sc| Simulation::new(&sc).map(|_| ()))
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "scenario.flows[0].app: \"shortflow\" needs a transport that takes bytes; transport \"udp\" does not"
    );
    // the normalised scenario holds the paper's defaults
    let sc = parse(&base);
    let p = sc.flows[0].app_params.as_ref().unwrap();
    assert_eq!((p["size_dist"].as_str(), p["size_shape"].as_f64()), (Some("pareto"), Some(1.35)));
    assert_eq!((p["size_mean_pkts"].as_f64(), p["off_mean_s"].as_f64()), (Some(30.0), Some(0.2)));
    assert_eq!(Scenario::from_json(&sc.to_json()).unwrap().to_json(), sc.to_json());
}
