//! Constant-bit-rate UDP source with optional on/off periods, and its sink.
//!
//! Non-responsive cross traffic: ns-2's `Application/Traffic/CBR` over
//! `Agent/UDP`, or `iperf -u -b RATE`. The LTCP paper's §V-B.3 (Fig 11/12)
//! runs "an iperf stream of UDP sending at 350Mbps ... at intervals of 5
//! minutes" against one LTCP flow; that is `rate_bps = 350e6`, `on_s = 300`,
//! `off_s = 300` here.
//!
//! Packets leave exactly every `size·8/rate` seconds while the source is on
//! (no jitter: iperf's UDP pacing is a fixed inter-packet gap too). Send times
//! are computed from the start of the current on-period (`t_k = t_on + k·gap`)
//! rather than accumulated, so the rate carries no rounding drift over long
//! runs. The first period after `start_s` is an on-period; a packet whose slot
//! falls at or after the end of an on-period is not sent.
use crate::net::packet::Packet;
use crate::sim::events::EventKind;
use crate::sim::time::from_secs;
use crate::sim::Time;
use crate::world::Net;

/// On/off CBR sender.
pub struct UdpSource {
    pub flow: u32,
    /// Wire size of every packet (payload + header).
    size: u32,
    /// Inter-packet gap in seconds (`size·8/rate`).
    gap_s: f64,
    /// `(on, off)` period lengths; `None`: always on.
    on_off: Option<(Time, Time)>,
    /// Start of the current (or next) on-period.
    t_on: Time,
    /// Index of the next departure within the on-period: departure `k` is
    /// at `t_on + k·gap` (integer slots, so no drift and no double sends).
    slot: u64,
    active: bool,
    seq: u64,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
}

impl UdpSource {
    /// `rate_bps` counts wire bytes (payload + header), as iperf's `-b` does
    /// for its UDP datagrams.
    pub fn new(flow: u32, payload: u32, header: u32, rate_bps: f64, on_off_s: Option<(f64, f64)>) -> Self {
        let size = payload + header;
        UdpSource {
            flow,
            size,
            gap_s: size as f64 * 8.0 / rate_bps,
            on_off: on_off_s.map(|(on, off)| (from_secs(on), from_secs(off))),
            t_on: 0,
            slot: 0,
            active: false,
            seq: 0,
            sent_pkts: 0,
            sent_bytes: 0,
        }
    }

    pub fn start(&mut self, net: &mut Net) {
        self.active = true;
        self.t_on = net.now;
        self.slot = 0;
        self.on_send(net);
    }

    /// Stop offering traffic; the pending `UdpSend` event becomes a no-op.
    pub fn stop(&mut self) {
        self.active = false;
    }

    /// `UdpSend` fired (always at a slot time of the current on-period):
    /// send, then schedule the next slot, or the start of the next
    /// on-period when this one is over.
    pub fn on_send(&mut self, net: &mut Net) {
        if !self.active {
            return;
        }
        let now = net.now;
        net.send(Packet { flow: self.flow, size: self.size, seq: self.seq, ts: now, ..Default::default() });
        self.seq += 1;
        self.sent_pkts += 1;
        self.sent_bytes += self.size as u64;
        self.slot += 1;
        let mut next = self.t_on.saturating_add(from_secs(self.slot as f64 * self.gap_s)).max(now + 1);
        if let Some((on, off)) = self.on_off {
            if next >= self.t_on.saturating_add(on) {
                self.t_on = self.t_on.saturating_add(on).saturating_add(off);
                self.slot = 0;
                next = self.t_on;
            }
        }
        net.events.schedule(next, EventKind::UdpSend, self.flow, 0);
    }
}

/// Counts what arrives; UDP has no ACKs.
pub struct UdpSink {
    /// Header bytes of the source's packets (not goodput).
    header: u32,
    pub rx_pkts: u64,
    /// Wire bytes received.
    pub rx_bytes: u64,
    /// Payload bytes received (goodput).
    pub payload_bytes: u64,
}

impl UdpSink {
    pub fn new(header: u32) -> Self {
        UdpSink { header, rx_pkts: 0, rx_bytes: 0, payload_bytes: 0 }
    }

    pub fn on_data(&mut self, size: u32) {
        self.rx_pkts += 1;
        self.rx_bytes += size as u64;
        self.payload_bytes += size.saturating_sub(self.header) as u64;
    }
}
