//! ccsim-core: a fast, deterministic packet-level simulator for congestion
//! control research on high-speed, small-buffer networks.
//!
//! ```
//! let sc = ccsim_core::Scenario::from_toml(r#"
//!     duration_s = 20.0
//!     [topology]
//!     kind = "dumbbell"
//!     bottleneck_rate_bps = 10e6
//!     bottleneck_queue = { limit_pkts = 20 }
//!     [[flows]]
//!     rtt_s = 0.05
//! "#).unwrap();
//! let r = ccsim_core::Simulation::new(&sc).unwrap().run();
//! assert!(r.conservation.holds());
//! // 78% of the link: slow start overshoots the 20-packet buffer, then
//! // the AIMD sawtooth (BDP 60 packets) runs it at about 90%
//! assert!(r.flows[0].goodput_bps > 7e6);
//! ```
pub mod app;
pub mod catalog;
pub mod flow;
pub mod net;
pub mod parts;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod transport;
pub mod world;

pub use scenario::{ConfigError, Scenario};
pub use stats::Results;
pub use world::Simulation;
