//! One TCP sender played against a scripted peer: the inbound ACKs of a
//! packetdrill script arrive at their times, the application writes
//! what the script's `write()` calls write, and every segment the sender
//! lets out is recorded with its time (`validation/packetdrill.py` reads
//! the script, drives a [`Replay`] and compares).
//!
//! The sender sits on a one-link network whose packets are never
//! delivered: the script is the network and the receiver. Only the
//! sender's own timers run, in time order, up to each scripted event.
//! Sequence numbers are segments (the script's bytes divided by its MSS).
//!
//! Without the timestamps option an ACK gives an RTT sample only when the
//! oldest segment it newly acknowledges was never retransmitted (Karn;
//! Linux's `tcp_clean_rtx_queue` drops the sample when any acknowledged
//! segment was retransmitted), taken from that segment's transmission.
use super::sender::{SendRecord, NO_ECHO};
use super::{TcpConfig, TcpSender};
use crate::net::packet::{Kind, Packet, TcpHeader, L4};
use crate::net::Net;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::events::EventKind;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;
use crate::transport::{slot, SenderAgent};
use nonmax::NonMaxU64;

/// What Linux's `tcp_info` reports, from the sender's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpInfo {
    /// `tcpi_snd_cwnd` (whole segments).
    pub snd_cwnd: u64,
    /// `tcpi_snd_ssthresh` (Linux's `TCP_INFINITE_SSTHRESH` before any).
    pub snd_ssthresh: u64,
    /// `tcpi_ca_state`: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss.
    pub ca_state: u8,
    /// `tcpi_total_retrans`.
    pub total_retrans: u64,
    /// `tcpi_retransmits`: consecutive timeouts of the head (the backoff).
    pub retransmits: u64,
    /// `tcpi_rto` and `tcpi_rtt` (microseconds).
    pub rto_us: u64,
    pub rtt_us: u64,
    /// `tcpi_unacked`, `tcpi_sacked`, `tcpi_lost`, `tcpi_retrans`.
    pub unacked: u64,
    pub sacked: u64,
    pub lost: u64,
    pub retrans: u64,
    /// `tcpi_reordering` and `tcpi_reord_seen` (RACK flows).
    pub reordering: Option<(u64, u32)>,
}

/// Linux's `TCP_INFINITE_SSTHRESH`.
const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

/// A sender driven by a script.
pub struct Replay {
    sender: TcpSender,
    net: Net,
    /// Per segment: its first transmission and whether it was sent again.
    sends: Vec<(Time, bool)>,
    /// Trace records already handed out by [`Replay::take_sent`].
    taken: usize,
    /// Trace records already read into `sends`.
    seen: usize,
}

impl Replay {
    /// A sender of flow `spec` (its fields; defaults filled as for any
    /// flow) that sends only what is written.
    pub fn new(spec: serde_json::Value) -> Result<Self, ConfigError> {
        let mut spec: FlowSpec =
            serde_json::from_value(spec).map_err(|e| ConfigError::new("flow", format!("not a flow: {e}")))?;
        // the script plays the handshake (its RTT: `handshake_rtt`), so the
        // sender's data are segments 0, 1, ... from the first write
        spec.syn = Some(super::Syn::None);
        super::fill_defaults(&mut spec);
        let cfg = TcpConfig::from_spec(&spec, "flow")?;
        let cc = super::build_cc(&spec, "flow")?;
        let net = super::one_link_net();
        let mut sender = TcpSender::new(0, cfg, cc, 1);
        let x = sender.x_make();
        x.trace = Some(Vec::new());
        x.offered = Some(NonMaxU64::new(0).expect("0 is not u64::MAX"));
        Ok(Replay { sender, net, sends: Vec::new(), taken: 0, seen: 0 })
    }

    /// The handshake's RTT sample `r` seconds (the SYN-ACK's, as Linux's
    /// `tcp_synack_rtt_meas`): the estimator starts from it.
    pub fn handshake_rtt(&mut self, r: f64) {
        self.sender.seed_rtt(r);
    }

    /// Run the sender's timers due up to `t` seconds, in order; the clock
    /// then reads `t`.
    pub fn advance(&mut self, t: f64) {
        while self.step(t) {}
        self.net.now = self.net.now.max(from_secs(t));
    }

    /// Run the next of the sender's timers if it is due by `t_max`
    /// seconds; whether one ran (events of the unused network are passed
    /// over on the way).
    pub fn step(&mut self, t_max: f64) -> bool {
        let t_max = from_secs(t_max);
        while let Some(at) = self.net.events.peek_time() {
            if at > t_max {
                return false;
            }
            let ev = self.net.events.pop().expect("peeked");
            self.net.now = ev.time;
            if ev.to.kind == EventKind::AgentTimer && ev.to.idx == 0 && ev.to.slot < slot::RECEIVER {
                self.sender.on_timer(&mut self.net, ev.to.slot, ev.gen);
                self.absorb();
                return true;
            }
        }
        false
    }

    /// The application writes `segs` more segments at `t` seconds.
    pub fn write(&mut self, t: f64, segs: u64) {
        self.advance(t);
        if !self.sender.app_active {
            self.sender.open(&mut self.net);
        }
        self.sender.write_segs(&mut self.net, segs);
        self.absorb();
    }

    /// An ACK of `ack` (the next segment expected) with SACK blocks
    /// `sack` (segments `[start, end)`), `ece`, and a window of `wnd`
    /// segments (`None`: none advertised; `Some(0)`: a zero window)
    /// arrives at `t` seconds.
    pub fn ack(&mut self, t: f64, ack: u64, sack: &[(u64, u64)], ece: bool, wnd: Option<u32>) {
        self.advance(t);
        let una = self.sender.sb.una();
        let ts = match self.sends.get(una as usize) {
            Some(&(sent, false))
                if ack > una && !(una..ack).any(|s| self.sends.get(s as usize).is_some_and(|x| x.1)) =>
            {
                sent
            }
            // An ACK that leaves SND.UNA: the RTT of the last newly SACKed
            // segment sent once (Linux's `ca_rtt_us` from `last_sackt`;
            // the scoreboard's marks are from before this ACK).
            _ if ack <= una => sack
                .iter()
                .filter(|&&(s, _)| s >= ack)
                .flat_map(|&(s, e)| s..e)
                .filter(|&q| !self.sender.sb.is_sacked(q))
                .filter_map(|q| self.sends.get(q as usize).filter(|x| !x.1).map(|x| x.0))
                .max()
                .unwrap_or(NO_ECHO),
            _ => NO_ECHO,
        };
        let mut h = TcpHeader { ack, ece, wnd: wnd.unwrap_or(0), ..Default::default() };
        if wnd == Some(0) {
            h.set_zero_window();
        }
        // RFC 2883 as Linux reads it (`tcp_check_dsack`): a first block
        // below the ACK, or inside the second, reports a duplicate.
        let dsack =
            sack.first().is_some_and(|&(s0, e0)| s0 < ack || sack.get(1).is_some_and(|&(s1, e1)| s0 >= s1 && e0 <= e1));
        for (i, &b) in sack.iter().enumerate() {
            if i == 0 && dsack {
                h.push_dsack(b);
            } else if b.0 >= ack {
                h.push_sack(b);
            }
        }
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts, l4: L4::Tcp(h), ..Default::default() };
        self.sender.on_packet(&mut self.net, &pkt);
        self.absorb();
    }

    /// Read the departures since the last call into the per-segment table.
    fn absorb(&mut self) {
        let trace = self.sender.trace();
        for r in trace[self.seen..].iter().filter(|r| !r.probe) {
            let i = r.seq as usize;
            if i < self.sends.len() {
                self.sends[i].1 = true;
            } else {
                self.sends.resize(i + 1, (r.time, false));
            }
        }
        self.seen = trace.len();
    }

    /// The departures not yet handed out: (time s, segment,
    /// retransmission, zero-window probe).
    pub fn take_sent(&mut self) -> Vec<(f64, u64, bool, bool)> {
        let trace: &[SendRecord] = self.sender.trace();
        let out = trace[self.taken..]
            .iter()
            .map(|r| {
                let retx = !r.probe && self.sends.get(r.seq as usize).is_some_and(|s| s.0 != r.time);
                (to_secs(r.time), r.seq, retx, r.probe)
            })
            .collect();
        self.taken = trace.len();
        out
    }

    /// The sender's state as `tcp_info` reports it.
    pub fn info(&self) -> TcpInfo {
        let s = &self.sender;
        let floor = |x: f64| if x.is_finite() && x >= 0.0 { x as u64 } else { INFINITE_SSTHRESH };
        TcpInfo {
            snd_cwnd: floor(s.st.cwnd),
            // the initial threshold is Linux's "infinite" one
            snd_ssthresh: if s.st.ssthresh >= s.cfg.init_ssthresh {
                INFINITE_SSTHRESH
            } else {
                floor(s.st.ssthresh).min(INFINITE_SSTHRESH)
            },
            ca_state: s.tcpi_ca_state(),
            total_retrans: s.stats.retransmits,
            retransmits: s.rtt.backoff as u64,
            rto_us: (s.rto() * 1e6).round() as u64,
            rtt_us: s.rtt.srtt().map_or(0, |r| (r * 1e6).round() as u64),
            unacked: s.sb.outstanding(),
            sacked: s.sb.n_sacked(),
            lost: s.sb.n_lost(),
            retrans: s.sb.n_retx(),
            reordering: s.tcpi_reordering(),
        }
    }
}
