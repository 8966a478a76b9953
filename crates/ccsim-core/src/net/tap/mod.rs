//! Per-link taps: observers called on every enqueue, dequeue, drop and
//! delivery at the far end, ns-2's `+ - d r` trace events. A pcap writer, an
//! ns-2-format trace or a per-flow counter is one tap; taps see packets but
//! never change their fate (that is a stage's job).
//!
//! A tap is one file implementing [`Tap`], attached to a link with
//! `Simulation::add_tap` (or `Link::add_tap`).
use super::packet::{Packet, PktId};
use crate::sim::Time;
use std::any::Any;

pub mod ns2trace;
pub mod pcap;
pub mod wire;

/// ns-2 trace event letters: `+` enqueue, `-` dequeue, `d` drop, `r` receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapEvent {
    Enqueue,
    Dequeue,
    Drop,
    Deliver,
}

impl TapEvent {
    pub fn ns2_char(self) -> char {
        match self {
            TapEvent::Enqueue => '+',
            TapEvent::Dequeue => '-',
            TapEvent::Drop => 'd',
            TapEvent::Deliver => 'r',
        }
    }
}

pub trait Tap: Send + Any {
    fn on_event(&mut self, ev: TapEvent, now: Time, link: u32, pkt: &Packet);
    /// The event with the packet's slab slot, which identifies it while it
    /// is in the network (a trace matching `+` to `r` needs that); by
    /// default forwarded to `on_event`.
    fn on_packet(&mut self, ev: TapEvent, now: Time, link: u32, _id: PktId, pkt: &Packet) {
        self.on_event(ev, now, link, pkt)
    }
    /// End of the run: flush buffered output and report the first write
    /// error (taps cannot fail mid-run without changing the simulation).
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn as_any(&self) -> &dyn Any;
}

/// Test helpers shared by the file-writing taps' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    pub(crate) struct Shared(pub Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
