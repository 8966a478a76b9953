//! Run one scenario file (TOML or JSON) and print its summary without series:
//! `cargo run --release -p ccsim-core --example run -- scenario.toml`.
use ccsim_core::{Scenario, Simulation};
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run SCENARIO.(toml|json)");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let sc = if path.ends_with(".json") { Scenario::from_json(&text) } else { Scenario::from_toml(&text) };
    let sc = sc.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let mut sim = Simulation::new(&sc).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let mut r = sim.run();
    r.wall_s = t0.elapsed().as_secs_f64();
    r.series = Default::default();
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
}
