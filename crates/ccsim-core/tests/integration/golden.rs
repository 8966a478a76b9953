//! Golden results (snapshot tests): every scenario in `tests/golden/*.toml`
//! must produce exactly the results JSON stored beside it (summary and
//! series), so an engine refactoring that changes any number is caught. The
//! set covers every controller, recovery, pacing mode, transport, queue
//! discipline, router stage (random loss, XCP, GWA/BA), application and
//! topology that `ccsim list` shows (`golden_set_covers_the_catalog`
//! checks this against the catalog, so a new registry entry needs a
//! golden), plus delayed ACKs, ECN marking, two-way traffic, finite
//! transfers, stop times and byte-limited queues.
//!
//! A deliberate behaviour change re-blesses the files with
//! `CCSIM_BLESS=1 cargo test --release -p ccsim-core --test integration golden::`, and the
//! commit that does so explains every difference (docs/reliability.md).
use crate::common;

use ccsim_core::Scenario;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn results_match_golden_files() {
    let bless = std::env::var_os("CCSIM_BLESS").is_some();
    let mut tomls: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    tomls.sort();
    assert!(tomls.len() >= 11, "golden scenarios missing: {tomls:?}");
    let mut failed = Vec::new();
    for path in &tomls {
        let sc = Scenario::from_toml(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = common::run(&sc);
        let got = serde_json::to_string_pretty(&r).unwrap() + "\n";
        let want_path = path.with_extension("json");
        if bless {
            std::fs::write(&want_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&want_path)
            .unwrap_or_else(|e| panic!("{}: {e} (bless with CCSIM_BLESS=1)", want_path.display()));
        if got != want {
            let line = got.lines().zip(want.lines()).position(|(a, b)| a != b).map_or(0, |i| i + 1);
            failed.push(format!("{} differs from line {line}", want_path.display()));
        }
    }
    assert!(failed.is_empty(), "golden results changed:\n{}", failed.join("\n"));
}

/// What the golden scenarios exercise, by registry: (registry, name).
fn exercised() -> std::collections::BTreeSet<(&'static str, String)> {
    use ccsim_core::scenario::{QueueSpec, Topology};
    let mut seen = std::collections::BTreeSet::new();
    let queue = |q: &QueueSpec, seen: &mut std::collections::BTreeSet<(&'static str, String)>| {
        seen.insert(("queues", q.kind.clone()));
        if q.xcp.is_some() {
            seen.insert(("stages", "xcp".into()));
        }
        if q.extra.contains_key("gwa") || q.extra.contains_key("ba") {
            seen.insert(("stages", "gwa".into()));
        }
        if q.extra.contains_key("drop_list") {
            seen.insert(("stages", "drop_list".into()));
        }
    };
    for e in std::fs::read_dir(golden_dir()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let sc = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut loss = false;
        match &sc.topology {
            Topology::Dumbbell(d) => {
                seen.insert(("topologies", "dumbbell".into()));
                queue(&d.bottleneck_queue, &mut seen);
                loss |= d.bottleneck_loss > 0.0 || d.bottleneck_reverse_loss > 0.0;
            }
            Topology::ParkingLot(p) => {
                seen.insert(("topologies", "parking_lot".into()));
                queue(&p.link_queue, &mut seen);
                loss |= p.link_loss > 0.0 || p.link_reverse_loss > 0.0;
            }
            Topology::Custom(c) => {
                seen.insert(("topologies", "custom".into()));
                for l in &c.links {
                    queue(&l.queue, &mut seen);
                    if let Some(q) = &l.reverse_queue {
                        queue(q, &mut seen);
                    }
                    loss |= l.loss > 0.0 || l.reverse_loss > 0.0;
                }
            }
        }
        if loss {
            seen.insert(("stages", "random_loss".into()));
        }
        for f in &sc.flows {
            seen.insert(("transports", f.transport.clone()));
            let j = serde_json::to_value(f).unwrap();
            let name = |k: &str| j.get(k).and_then(|v| v.as_str()).map(str::to_string);
            if f.transport == "tcp" {
                seen.insert(("controllers", name("cc").unwrap()));
                seen.insert(("recoveries", name("recovery").unwrap()));
                seen.insert(("pacing", name("pacing").unwrap()));
            }
            // absent, the transport's default application
            let default_app = if f.transport == "udp" { "onoff" } else { "bulk" };
            seen.insert(("applications", name("app").unwrap_or_else(|| default_app.into())));
        }
    }
    seen
}

/// Every controller, recovery, pacing mode, transport, queue, stage,
/// application and topology of the catalog has at least one golden.
#[test]
fn golden_set_covers_the_catalog() {
    let catalog: serde_json::Value = serde_json::from_str(&ccsim_core::catalog::catalog_json()).unwrap();
    let seen = exercised();
    let mut missing = Vec::new();
    for registry in
        ["controllers", "recoveries", "pacing", "transports", "queues", "stages", "applications", "topologies"]
    {
        for e in catalog[registry].as_array().unwrap_or_else(|| panic!("catalog has {registry}")) {
            let name = e["name"].as_str().unwrap().to_string();
            if !seen.contains(&(registry, name.clone())) {
                missing.push(format!("{registry}: {name}"));
            }
        }
    }
    assert!(missing.is_empty(), "no golden scenario exercises: {missing:?}");
}
