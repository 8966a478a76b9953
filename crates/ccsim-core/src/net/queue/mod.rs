//! Queue disciplines behind one interface.
//!
//! A discipline decides, per arriving packet, whether to admit it, and which
//! packet the serialiser takes next. It receives `&mut Packet` so that active
//! queue management can mark (ECN) or stamp router fields (XCP, GWA) on the
//! packets it handles. One discipline per file.
pub mod droptail;

use crate::net::packet::{Packet, PktId};
use crate::sim::Time;
pub use droptail::{DropTail, Limit};

pub trait QueueDiscipline: Send {
    /// Offer an arriving packet; `false` means it was dropped.
    fn enqueue(&mut self, now: Time, id: PktId, pkt: &mut Packet) -> bool;
    /// The next packet to serialise, if any.
    fn dequeue(&mut self, now: Time) -> Option<PktId>;
    /// Packets waiting (not counting the one being serialised).
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Every waiting packet, in any order (used to count in-flight packets).
    fn waiting(&self) -> Vec<PktId>;
}
