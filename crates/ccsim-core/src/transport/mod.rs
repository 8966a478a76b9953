//! Transport agents: TCP (sender with shared loss recovery, receiver) and the
//! congestion controllers it drives.
pub mod cc;
pub mod tcp;
