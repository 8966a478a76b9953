//! The E-TCP receiver (§V-B, Fig 3): a congestion-control acknowledgement
//! module (h_seq and the 32-bit bitmap, from a fixed-size buffer) and, in
//! reliable mode, a reliability module that reassembles data in order and
//! adds CACK, TSN and LE to the ACK. Every data packet is answered at once
//! by one ACK of `header_bytes` on the wire, echoing its send time.
use super::reliable::Reassembly;
use super::signal::Bitmap;
use super::EtcpConfig;
use crate::net::packet::{EtcpHeader, Kind, Packet, L4};
use crate::net::Net;
use crate::transport::ReceiverAgent;

pub struct EtcpReceiver {
    pub flow: u32,
    cfg: EtcpConfig,
    bitmap: Bitmap,
    data: Reassembly,
    /// Payload bytes handed to the application (in order when reliable).
    pub delivered_bytes: u64,
    /// Every byte that arrived (headers and duplicates included).
    pub rx_bytes: u64,
}

impl EtcpReceiver {
    pub fn new(flow: u32, cfg: EtcpConfig) -> Self {
        EtcpReceiver {
            flow,
            cfg,
            bitmap: Bitmap::default(),
            data: Reassembly::default(),
            delivered_bytes: 0,
            rx_bytes: 0,
        }
    }

    /// In-order point of the reliable stream (CACK).
    pub fn cack(&self) -> u64 {
        self.data.next
    }
}

impl ReceiverAgent for EtcpReceiver {
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        let L4::Etcp(h) = &pkt.l4 else { return };
        self.rx_bytes += pkt.size as u64;
        self.bitmap.on_arrival(h.cc_seq);
        let (cack, le) = if self.cfg.reliable {
            let (le, _new, before) = self.data.on_data(h.dseq);
            self.delivered_bytes += self.cfg.payload_between(before, self.data.next);
            (self.data.next, le)
        } else {
            // Streaming: every packet is handed up as it arrives.
            self.delivered_bytes += self.cfg.payload(h.dseq) as u64;
            (0, h.dseq)
        };
        let (h_seq, bitmap) = self.bitmap.ack_fields();
        let l4 = L4::Etcp(EtcpHeader { cc_seq: h_seq, bitmap, dseq: h.dseq, cack, le, retx: false });
        let size = self.cfg.header.max(1);
        net.send(Packet { flow: self.flow, kind: Kind::Ack, size, ts: pkt.ts, l4, ..Default::default() });
    }

    fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }

    fn rx_bytes(&self) -> u64 {
        self.rx_bytes
    }
}
