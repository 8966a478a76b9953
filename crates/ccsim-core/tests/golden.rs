//! Golden results: every scenario in `tests/golden/*.toml` must produce
//! exactly the results JSON stored beside it (summary and series), so an
//! engine refactoring that changes any number is caught. The set covers every
//! controller, every recovery, both pacers, delayed ACKs, UDP on/off, random
//! loss, parking lot, custom topology, two-way traffic, finite transfers,
//! stop times and byte-limited queues.
//!
//! A deliberate behaviour change re-blesses the files with
//! `CCSIM_BLESS=1 cargo test --release -p ccsim-core --test golden`, and the
//! commit that does so explains every difference.
mod common;

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
    assert!(tomls.len() >= 7, "golden scenarios missing: {tomls:?}");
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
