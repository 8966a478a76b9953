//! A tap that times every data packet on a link from `+` to `-` (its
//! queueing delay) per flow, and counts the codepoints new data arrive with.
use ccsim_core::net::packet::{Ecn, Kind, Packet, PktId};
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::sim::time::to_secs;
use ccsim_core::sim::Time;
use std::any::Any;
use std::collections::HashMap;

/// Per flow: the waits (s) of its data packets from `+` to `-` after
/// `warmup_s`, and the codepoints its new data arrived with (flow, ECT(1)).
#[derive(Default)]
pub struct Sojourns {
    pub warmup_s: f64,
    queued: HashMap<PktId, Time>,
    pub waits: HashMap<u32, Vec<f64>>,
    pub codepoints: HashMap<(u32, bool), u64>,
}

impl Sojourns {
    pub fn after(warmup_s: f64) -> Self {
        Sojourns { warmup_s, ..Default::default() }
    }
}

impl Tap for Sojourns {
    fn on_event(&mut self, _ev: TapEvent, _now: Time, _link: u32, _p: &Packet) {}
    fn on_packet(&mut self, ev: TapEvent, now: Time, _link: u32, id: PktId, p: &Packet) {
        if p.kind != Kind::Data {
            return;
        }
        match ev {
            TapEvent::Enqueue => {
                if !p.tcp().is_some_and(|h| h.retx) {
                    *self.codepoints.entry((p.flow, p.ecn == Ecn::Ect1)).or_default() += 1;
                }
                self.queued.insert(id, now);
            }
            TapEvent::Dequeue => {
                if let Some(t) = self.queued.remove(&id) {
                    if to_secs(t) >= self.warmup_s {
                        self.waits.entry(p.flow).or_default().push(to_secs(now - t));
                    }
                }
            }
            TapEvent::Drop => {
                self.queued.remove(&id);
            }
            TapEvent::Deliver => {}
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The `q` quantile of `x` (sorted in place), nearest rank.
pub fn quantile(x: &mut [f64], q: f64) -> f64 {
    x.sort_by(f64::total_cmp);
    x[((x.len() - 1) as f64 * q).round() as usize]
}
