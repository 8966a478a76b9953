//! Simulation kernel: integer time, the deterministic event queue, seeded RNG streams
//! and the draws made from them.
pub mod events;
pub mod math;
pub mod ns2clock;
pub mod ns2rng;
pub mod quantiles;
pub mod rng;
pub mod time;
pub mod ziggurat;

pub use events::{Event, EventKind, EventQueue, Owner};
pub use time::Time;
pub mod timer;
pub use timer::{BareTimer, Timer};
