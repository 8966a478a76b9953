//! How long one dependent load takes on this machine as the data it walks
//! grows: `cargo run --release -p ccsim-core --example mem_latency`.
//!
//! Why: with thousands of flows each bottleneck packet first-touches its
//! flow's sender or receiver, access links and route entry, lines last
//! read a round-trip time ago; what each such touch costs is the latency
//! of the level that still holds the flow's state. The many-flows rows
//! (S0-S4, `ccsim bench`) are read against this ladder: the largest size
//! that still answers at the cache's latency is the state the machine
//! keeps close, whatever its nominal cache sizes (a virtual machine may
//! get a small part of a shared third-level cache).
//!
//! Each size is one random cycle through 64-byte lines (a pointer chase:
//! every load's address is the previous load's value, so loads cannot
//! overlap), walked once to warm it and then timed over
//! `STEPS` loads. Prints one JSON object per size.
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::time::Instant;

const LINE: usize = 64;
const STEPS: usize = 20_000_000;

fn ns_per_load(bytes: usize, rng: &mut rand::rngs::StdRng) -> f64 {
    let lines = bytes / LINE;
    let stride = LINE / std::mem::size_of::<usize>();
    let mut order: Vec<usize> = (0..lines).collect();
    order.shuffle(rng);
    // Word `stride * i` holds the word index of the next line of the cycle.
    let mut next = vec![0usize; lines * stride];
    for w in 0..lines {
        next[order[w] * stride] = order[(w + 1) % lines] * stride;
    }
    let mut at = order[0] * stride;
    for _ in 0..lines {
        at = next[at];
    }
    let t0 = Instant::now();
    for _ in 0..STEPS {
        at = next[at];
    }
    let dt = t0.elapsed().as_secs_f64();
    std::hint::black_box(at);
    dt / STEPS as f64 * 1e9
}

fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for kib in [64, 256, 512, 1024, 2048, 4096, 6144, 8192, 16384, 32768, 65536, 131072] {
        let ns = ns_per_load(kib * 1024, &mut rng);
        println!("{{\"bytes\": {}, \"ns_per_load\": {:.1}}}", kib * 1024, ns);
    }
}
