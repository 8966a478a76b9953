//! Simulation kernel: integer time, the deterministic event queue, seeded RNG streams.
pub mod events;
pub mod math;
pub mod rng;
pub mod time;

pub use events::{Event, EventKind, EventQueue, Owner};
pub use time::Time;
pub mod timer;
pub use timer::Timer;
