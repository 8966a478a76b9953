//! Transport agents: TCP (sender with shared loss recovery, receiver), the
//! congestion controllers it drives, and on/off constant-rate UDP.
pub mod cc;
pub mod tcp;
pub mod udp;
