//! The network: packets, links (serialiser + propagation pipe), queue
//! disciplines, and the topology builders that wire them into per-flow routes.
pub mod link;
pub mod packet;
pub mod queue;
pub mod topology;

pub use link::Link;
pub use packet::{Packet, PacketPool, PktId};
