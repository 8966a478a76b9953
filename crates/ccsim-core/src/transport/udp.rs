//! UDP: a datagram sender without congestion control, and its sink.
//!
//! The sender sends one datagram of `mss_bytes + header_bytes` on the wire
//! each time its application writes; the constant-rate on/off source that
//! drives it (`rate_bps`, `on_s`, `off_s`) is an application
//! (`app::onoff`). UDP has no ACKs; the sink counts what arrives.
use super::{Endpoints, Receiver, ReceiverAgent, Sender, SenderAgent, SenderReport, TransportKind};
use crate::net::packet::{Kind, Packet, UdpHeader, L4};
use crate::net::Net;
use crate::scenario::{ConfigError, FlowSpec};

/// The registry entry (`transport = "udp"`).
pub const KIND: TransportKind = TransportKind {
    name: "udp",
    doc: "UDP datagrams without congestion control, driven by a constant-rate on/off source (rate_bps, on_s, off_s)",
    validate,
    fill_defaults: |_| {},
    describe: |_| ["none".into(), "none".into(), "none".into()],
    build: |f, flow, _seed, _shared| Endpoints {
        sender: Sender::Udp(UdpSender::new(flow, f.mss_bytes, f.header_bytes)),
        receiver: Receiver::Udp(UdpSink::new(f.header_bytes)),
    },
};

fn validate(f: &FlowSpec, path: &str) -> Result<(), ConfigError> {
    use crate::scenario::validate::positive;
    let p = |k: &str| format!("{path}.{k}");
    let err = |k: &str, m: &str| Err(ConfigError::new(p(k), m));
    if let Some(n) = f.txqueuelen_pkts {
        super::tcp::txqueuelen_valid(&p("txqueuelen_pkts"), n)?;
    }
    match f.rate_bps {
        Some(r) => positive(&p("rate_bps"), r)?,
        None => return err("rate_bps", "required with transport = \"udp\" (b/s on the wire)"),
    }
    match (f.on_s, f.off_s) {
        (Some(on), Some(off)) => {
            positive(&p("on_s"), on)?;
            positive(&p("off_s"), off)?;
            // An on-period shorter than one datagram's time at rate_bps
            // would still send one datagram per period, above rate_bps,
            // and periods that round to 0 ps would never let time advance.
            let gap_s = (f.mss_bytes + f.header_bytes) as f64 * 8.0 / f.rate_bps.unwrap_or(f64::NAN);
            if on < gap_s {
                return err(
                    "on_s",
                    &format!(
                        "{on} is not allowed; must be at least one datagram's time at rate_bps \
                         ({gap_s:e} s for {} bytes)",
                        f.mss_bytes + f.header_bytes
                    ),
                );
            }
            Ok(())
        }
        (None, None) => Ok(()),
        (Some(_), None) => err("off_s", "missing; on_s and off_s go together"),
        (None, Some(_)) => err("on_s", "missing; on_s and off_s go together"),
    }
}

/// Sends one datagram per application write while open.
pub struct UdpSender {
    pub flow: u32,
    /// Wire size of every datagram (payload + header).
    size: u32,
    open: bool,
    seq: u64,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
}

impl UdpSender {
    pub fn new(flow: u32, payload: u32, header: u32) -> Self {
        UdpSender { flow, size: payload + header, open: false, seq: 0, sent_pkts: 0, sent_bytes: 0 }
    }
}

impl SenderAgent for UdpSender {
    fn open(&mut self, _net: &mut Net) {
        self.open = true;
    }

    fn close(&mut self) {
        self.open = false;
    }

    fn write(&mut self, net: &mut Net) {
        if !self.open {
            return;
        }
        let l4 = L4::Udp(UdpHeader { seq: self.seq });
        net.send(Packet { flow: self.flow, kind: Kind::Data, size: self.size, ts: net.now, l4, ..Default::default() });
        self.seq += 1;
        self.sent_pkts += 1;
        self.sent_bytes += self.size as u64;
    }

    fn on_packet(&mut self, _net: &mut Net, _pkt: &Packet) {}

    /// A datagram source never finishes by itself (its application stops).
    fn finished(&self) -> bool {
        false
    }

    fn report(&self) -> SenderReport {
        SenderReport { data_sent: self.sent_pkts, cwnd: f64::NAN, ssthresh: f64::NAN, ..Default::default() }
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
}

impl ReceiverAgent for UdpSink {
    fn on_packet(&mut self, _net: &mut Net, pkt: &Packet) {
        self.rx_pkts += 1;
        self.rx_bytes += pkt.size as u64;
        self.payload_bytes += pkt.size.saturating_sub(self.header) as u64;
    }

    fn delivered_bytes(&self) -> u64 {
        self.payload_bytes
    }

    fn rx_bytes(&self) -> u64 {
        self.rx_bytes
    }
}
