//! Per-link taps: observers called on every enqueue, dequeue, drop and
//! delivery at the far end, ns-2's `+ - d r` trace events. A pcap writer, an
//! ns-2-format trace or a per-flow counter is one tap; taps see packets but
//! never change their fate (that is a stage's job).
//!
//! A tap is one file implementing [`Tap`], attached to a link with
//! `Simulation::add_tap` (or `Link::add_tap`).
use super::packet::Packet;
use crate::sim::Time;
use std::any::Any;

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
    fn as_any(&self) -> &dyn Any;
}
