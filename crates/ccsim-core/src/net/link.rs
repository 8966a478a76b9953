//! One direction of a link: queue discipline, serialiser and propagation pipe.
//!
//! The serialiser is modelled by `busy_until`: a packet that starts
//! transmission at `t` occupies the link until `t + size·8/rate` and reaches
//! the far end `delay` later. Because a link delivers in FIFO order, the
//! packet is appended to the pipe at once with its arrival time and only the
//! pipe's head has an event in the global queue; a `LinkFree` event exists
//! only while packets wait in the queue. A packet that finds the link idle
//! therefore costs a single event, however large the bandwidth-delay product.
use super::packet::PktId;
use super::queue::QueueDiscipline;
use crate::sim::rng::Rng;
use crate::sim::Time;
use std::collections::VecDeque;

/// Counters of one link direction; `snapshot` copies them at warm-up end.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub arrivals: u64,
    pub drops: u64,
    pub random_losses: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
}

pub struct Link {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub rate_bps: f64,
    pub delay: Time,
    /// Bernoulli loss probability applied to arriving packets.
    pub loss: f64,
    pub loss_rng: Option<Rng>,
    pub monitored: bool,
    pub queue: Box<dyn QueueDiscipline>,
    pub busy_until: Time,
    /// A `LinkFree` event is pending.
    pub free_scheduled: bool,
    /// Packets in flight on the wire with their arrival time at the far end.
    pub pipe: VecDeque<(Time, PktId)>,
    pub c: LinkCounters,
    pub max_queue_pkts: usize,
}

impl Link {
    pub fn new(
        name: String,
        from: usize,
        to: usize,
        rate_bps: f64,
        delay: Time,
        queue: Box<dyn QueueDiscipline>,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate_bps,
            delay,
            loss: 0.0,
            loss_rng: None,
            monitored: false,
            queue,
            busy_until: 0,
            free_scheduled: false,
            pipe: VecDeque::new(),
            c: LinkCounters::default(),
            max_queue_pkts: 0,
        }
    }
}
