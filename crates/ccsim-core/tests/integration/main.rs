//! The engine's integration tests, one module per file, in one test
//! binary: the release profile links each test binary with LTO, which
//! costs some 20 s a binary, so one binary for all of them instead of one
//! per file (`tests/parse_alloc.rs` keeps its own: it installs a counting
//! global allocator). Run one file's tests with a filter, e.g.
//! `cargo test --release -p ccsim-core --test integration golden::`.
mod common;

mod aqm;
mod bbr;
mod bbr3;
mod conservation_determinism;
mod controllers;
mod cut_through;
mod dctcp;
mod delack;
mod drr;
mod dualpi2;
mod etcp;
mod extension;
mod fuzz_scenario;
mod golden;
mod gwa;
mod host_delay;
mod layers;
mod linux;
mod ltcp_delack_rto;
mod mathis;
mod metrics;
mod ns2_clock;
mod pacing;
mod prague;
mod recovery;
mod red;
mod rto;
mod sack_option;
mod send_jitter;
mod shortflow;
mod tcp_validation_cubic;
mod telnet;
mod txqueuelen;
mod udp;
mod validation;
mod warmup;
mod web;
mod xcp;
