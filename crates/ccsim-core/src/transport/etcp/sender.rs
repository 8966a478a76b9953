//! The E-TCP sender (§V-A, Fig 3): packet transmission, congestion control
//! and reliable transmission modules.
//!
//! - Transmission (§III-C): a rate-control timer sends one packet per
//!   expiry and is re-armed with an interval of mean tau_r / W (rate
//!   variant: 1 / x), exponentially distributed unless `exp_pacing` is
//!   off. Retransmissions take the next expiry before new data. With
//!   nothing to send the timer stops; it restarts at once when data appear.
//! - Before the first RTT sample there is no tau_r: the initial window
//!   (`init_w_pkts`) leaves at once, as TCP's does, and the first ACK
//!   starts the timer. (The paper is silent; ns-2 agents have no handshake.)
//! - Congestion control (§V-A): tau_r is TCP's EWMA of per-ACK samples
//!   (RFC 6298 gains; every ACK echoes its trigger's send time); W follows
//!   [`super::control`], driven by the signalling of [`super::signal`].
//! - Signalling timer: while packets are unanswered, an RTO (TCP's formula)
//!   without any ACK that advances `cc_ack` declares every unanswered
//!   number lost, so a flow whose every packet (or ACK) is lost still
//!   responds, and a finite unreliable transfer ends.
//! - Reliability (§IV): [`super::reliable::RetxQueue`] plus a
//!   retransmission timer on the oldest unacknowledged data.
use super::control::Control;
use super::reliable::RetxQueue;
use super::signal::{CcAck, Signal};
use super::{EtcpConfig, RtxTimer, Variant};
use crate::net::packet::{EtcpHeader, Kind, Packet, L4};
use crate::net::Net;
use crate::sim::math;
use crate::sim::rng::{self, Rng, Stream};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::ziggurat;
use crate::sim::{Time, Timer};
use crate::transport::tcp::rtt::RttEstimator;
use crate::transport::{sender_timer, SenderAgent, SenderReport};

/// The sender's timer slots.
const RATE: u8 = 0;
const SIGNAL: u8 = 1;
const RTX: u8 = 2;

#[derive(Clone, Debug, Default)]
pub struct EtcpStats {
    /// Data packets sent (retransmissions included).
    pub data_sent: u64,
    pub retransmits: u64,
    /// Retransmissions of data already retransmitted (a lost
    /// retransmission found again).
    pub retransmits_again: u64,
    /// Retransmission-timer expiries that queued data.
    pub rtx_timeouts: u64,
    /// Signalling-timer expiries.
    pub sig_timeouts: u64,
    /// Congestion sequence numbers responded to as arrived / lost.
    pub arrived: u64,
    pub lost: u64,
    pub completed_at: Option<Time>,
}

/// One departure, recorded when a trace is enabled (pacing tests).
#[derive(Clone, Copy, Debug)]
pub struct SendRecord {
    pub time: Time,
    /// Mean interval of the rate timer when this packet's successor was
    /// scheduled (`None` when no timer was armed: the initial window).
    pub mean_interval_s: Option<f64>,
}

pub struct EtcpSender {
    pub flow: u32,
    pub cfg: EtcpConfig,
    pub ctl: Control,
    sig: CcAck,
    pub rtt: RttEstimator,
    /// Boxed: a `Pcg64Mcg` is a `u128`, whose 16-byte alignment inline
    /// would pad every flow's agents (`transport::Endpoints`), TCP's too.
    rng: Box<Rng>,
    /// Next `cc_seq` to send.
    cc_seq: u64,
    /// Reliable mode: the retransmission queue.
    rel: RetxQueue,
    /// Unreliable mode: next data sequence number.
    next_new: u64,
    /// The transfer's size in segments, if finite; 8 bytes
    /// (`seq_opt`), as the TCP sender's.
    total_segs: Option<nonmax::NonMaxU64>,
    rate_timer: Timer,
    sig_timer: Timer,
    rtx_timer: Timer,
    rtx_backoff: u32,
    /// Packets still to leave at once before the first RTT sample.
    burst: u32,
    app_active: bool,
    pub stats: EtcpStats,
    /// The departures, when traced (tests); boxed, as the TCP sender's:
    /// 8 bytes inline, not a vector's 24.
    pub trace: Option<Box<Vec<SendRecord>>>,
}

impl EtcpSender {
    pub fn new(flow: u32, cfg: EtcpConfig, seed: u64) -> Self {
        let ctl = Control::new(cfg.variant, cfg.b, cfg.p0, cfg.init_w, cfg.min_w);
        EtcpSender {
            flow,
            ctl,
            sig: CcAck::default(),
            rtt: RttEstimator::new(),
            rng: Box::new(rng::stream(seed, Stream::Controller, flow as u64)),
            cc_seq: 0,
            rel: RetxQueue::default(),
            next_new: 0,
            total_segs: cfg.total_segs().map(crate::transport::tcp::sender::seq_opt),
            rate_timer: Timer::new(sender_timer(flow, RATE)),
            sig_timer: Timer::new(sender_timer(flow, SIGNAL)),
            rtx_timer: Timer::new(sender_timer(flow, RTX)),
            rtx_backoff: 0,
            burst: 0,
            app_active: false,
            stats: EtcpStats::default(),
            trace: None,
            cfg,
        }
    }

    /// Next data sequence number never sent.
    fn next_data(&self) -> u64 {
        if self.cfg.reliable {
            self.rel.high()
        } else {
            self.next_new
        }
    }

    fn new_data_available(&self) -> bool {
        self.app_active && self.total_segs.is_none_or(|t| self.next_data() < t.get())
    }

    /// The retransmission timer's interval (§IV: "reset to the estimated
    /// round trip time"; `rtx_timer` chooses TCP's RTO or srtt itself).
    fn rtx_interval(&self) -> Time {
        let base = match self.cfg.rtx_timer {
            RtxTimer::Rto => self.rtt.base_rto(&self.cfg.rto),
            RtxTimer::Srtt => self.rtt.srtt().unwrap_or(self.cfg.rto.init_rto),
        };
        from_secs((base * math::powi(2.0, self.rtx_backoff.min(30) as i32)).min(self.cfg.rto.max_rto))
    }

    /// Send one packet now: a waiting retransmission first, else new data.
    /// `false` when there is nothing to send, or when `rwnd_pkts` packets
    /// sent are unanswered (neither signalled arrived nor lost): the
    /// receiver's window, as TCP's flight is bounded by its `rwnd_pkts`.
    /// E-TCP paces W packets per tau_r whatever the path carries, so
    /// without a window a W far above the path's (a small `b`, a large
    /// floor) sent, and tracked, without bound. The next ACK or timer
    /// sends again (`kick`).
    fn send_one(&mut self, net: &mut Net) -> bool {
        if self.cc_seq.saturating_sub(self.sig.next) >= self.cfg.rwnd {
            return false;
        }
        let now = net.now;
        let (d, retx) = match self.cfg.reliable.then(|| self.rel.next_lost()).flatten() {
            Some(d) => (d, true),
            None if self.new_data_available() => (self.next_data(), false),
            None => return false,
        };
        let tx = self.cc_seq;
        self.cc_seq += 1;
        if self.cfg.reliable {
            self.stats.retransmits_again += self.rel.on_send(d, tx, now) as u64;
            if !self.rtx_timer.is_armed() {
                let at = now + self.rtx_interval();
                self.rtx_timer.arm(&mut net.events, at);
            }
        } else {
            self.next_new += 1;
        }
        self.stats.data_sent += 1;
        self.stats.retransmits += retx as u64;
        let l4 = L4::Etcp(EtcpHeader { cc_seq: tx, dseq: d, retx, ..Default::default() });
        let size = self.cfg.header + self.cfg.payload(d);
        net.send(Packet { flow: self.flow, kind: Kind::Data, size, ts: now, l4, ..Default::default() });
        if !self.sig_timer.is_armed() {
            let at = now.saturating_add(from_secs(self.rtt.rto(&self.cfg.rto)));
            self.sig_timer.arm(&mut net.events, at);
        }
        true
    }

    /// The rate timer's next interval: mean tau_r / W (or 1 / x),
    /// exponential or deterministic.
    fn draw_interval(&mut self, tau: f64) -> (Time, f64) {
        let mean = self.ctl.mean_interval_s(tau);
        let s = if self.cfg.exp_pacing {
            // Exp(mean) from the flow's `Controller` stream (its only
            // draws) by the ziggurat of `sim::ziggurat`: one interval per
            // packet, and inversion's `ln` was 5.5% of E5's run. Its
            // wedges and tail use `sim::math`, so the draws are the same
            // on every platform (rand_distr's `Exp1` calls std `exp`/`ln`
            // there). ns-2's `RNG::exponential` inverts (`-mean ln U`):
            // the same law, another sequence of draws.
            ziggurat::exponential(mean, &mut self.rng)
        } else {
            mean
        };
        (from_secs(s), mean)
    }

    /// Send if the rate timer is idle: the initial window before the first
    /// RTT sample, else one packet and the timer for the next.
    fn kick(&mut self, net: &mut Net) {
        if self.rate_timer.is_armed() {
            return;
        }
        match self.rtt.srtt() {
            None => {
                while self.burst > 0 && self.send_one(net) {
                    self.burst -= 1;
                    self.record(net.now, None);
                }
            }
            Some(tau) => {
                if self.send_one(net) {
                    self.arm_rate(net, tau);
                }
            }
        }
    }

    fn arm_rate(&mut self, net: &mut Net, tau: f64) {
        let (iv, mean) = self.draw_interval(tau);
        self.record(net.now, Some(mean));
        self.rate_timer.arm(&mut net.events, net.now + iv);
    }

    fn record(&mut self, time: Time, mean_interval_s: Option<f64>) {
        if let Some(tr) = self.trace.as_mut() {
            tr.push(SendRecord { time, mean_interval_s });
        }
    }

    fn on_rate_timer(&mut self, net: &mut Net) {
        let Some(tau) = self.rtt.srtt() else { return };
        if self.send_one(net) {
            self.arm_rate(net, tau);
        }
    }

    /// Respond to one signalled fate (borrow-split helper).
    fn respond(ctl: &mut Control, stats: &mut EtcpStats, sig: Signal, tau: f64, high: u64) {
        match sig {
            Signal::Arrived(s) => {
                stats.arrived += 1;
                ctl.on_arrival(s, tau);
            }
            Signal::Lost(s) => {
                stats.lost += 1;
                ctl.on_loss(s, tau, high);
            }
        }
    }

    fn on_ack(&mut self, net: &mut Net, h: &EtcpHeader, ts_echo: Time) {
        let now = net.now;
        let first = self.rtt.srtt().is_none();
        self.rtt.sample(to_secs(now.saturating_sub(ts_echo)));
        self.rtt.reset_backoff();
        let tau = self.rtt.srtt().expect("just sampled");
        if first && self.ctl.variant == Variant::Rate {
            self.ctl.start_rate(self.cfg.init_w, tau);
        }
        // Congestion signalling (Fig 2).
        let before = self.sig.next;
        let high = self.cc_seq.saturating_sub(1);
        let (ctl, stats) = (&mut self.ctl, &mut self.stats);
        self.sig.on_ack(h.cc_seq, h.bitmap, |s| Self::respond(ctl, stats, s, tau, high));
        if self.sig.next > before {
            if self.sig.next < self.cc_seq {
                let at = now.saturating_add(from_secs(self.rtt.rto(&self.cfg.rto)));
                self.sig_timer.arm(&mut net.events, at);
            } else {
                self.sig_timer.disarm();
            }
        }
        // Reliability (§IV).
        if self.cfg.reliable {
            let una = self.rel.una();
            self.rel.on_ack(h.cack, h.dseq, h.le, ts_echo);
            if self.rel.una() > una {
                self.rtx_backoff = 0;
                if self.rel.outstanding() {
                    let at = now + self.rtx_interval();
                    self.rtx_timer.arm(&mut net.events, at);
                } else {
                    self.rtx_timer.disarm();
                }
            }
        }
        self.check_done(now);
        self.kick(net);
    }

    fn check_done(&mut self, now: Time) {
        if self.stats.completed_at.is_some() {
            return;
        }
        let Some(total) = self.total_segs.map(|t| t.get()) else { return };
        let done = if self.cfg.reliable {
            self.rel.una() >= total
        } else {
            self.next_new >= total && self.sig.next >= self.cc_seq
        };
        if done {
            self.stats.completed_at = Some(now);
            self.sig_timer.disarm();
            self.rtx_timer.disarm();
        }
    }

    fn on_sig_timer(&mut self, net: &mut Net) {
        self.stats.sig_timeouts += 1;
        self.rtt.on_timeout();
        let tau = self.rtt.srtt().unwrap_or(self.cfg.rto.init_rto);
        let high = self.cc_seq.saturating_sub(1);
        let (ctl, stats) = (&mut self.ctl, &mut self.stats);
        self.sig.expire(self.cc_seq, |s| Self::respond(ctl, stats, s, tau, high));
        if self.rtt.srtt().is_none() {
            // Nothing came back yet: try the initial window again.
            self.burst = self.cfg.init_w.ceil() as u32;
        }
        self.check_done(net.now);
        self.kick(net);
    }

    fn on_rtx_timer(&mut self, net: &mut Net) {
        if self.rel.on_timeout() {
            self.stats.rtx_timeouts += 1;
            self.rtx_backoff += 1;
        }
        if self.rel.outstanding() {
            let at = net.now + self.rtx_interval();
            self.rtx_timer.arm(&mut net.events, at);
        }
        self.kick(net);
    }

    /// Packets sent whose fate is not yet signalled (at most `rwnd_pkts`).
    pub fn unanswered(&self) -> u64 {
        self.cc_seq.saturating_sub(self.sig.next)
    }

    /// Lost retransmissions found again from later ACKs (§IV), not by the
    /// retransmission timer.
    pub fn lost_retransmissions_inferred(&self) -> u64 {
        self.rel.lost_retx_inferred
    }

    /// Fraction of congestion sequence numbers responded to as lost.
    pub fn loss_estimate(&self) -> Option<f64> {
        let n = self.stats.arrived + self.stats.lost;
        (n > 0).then(|| self.stats.lost as f64 / n as f64)
    }
}

impl SenderAgent for EtcpSender {
    fn open(&mut self, net: &mut Net) {
        self.app_active = true;
        if self.rtt.srtt().is_none() && self.cc_seq == 0 {
            self.burst = self.cfg.init_w.ceil() as u32;
        }
        self.kick(net);
    }

    fn close(&mut self) {
        self.app_active = false;
    }

    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        if let L4::Etcp(h) = &pkt.l4 {
            let h = *h;
            self.on_ack(net, &h, pkt.ts);
        }
    }

    fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        let now = net.now;
        match slot {
            RATE if self.rate_timer.fire(&mut net.events, now, gen) => self.on_rate_timer(net),
            SIGNAL if self.sig_timer.fire(&mut net.events, now, gen) => self.on_sig_timer(net),
            RTX if self.rtx_timer.fire(&mut net.events, now, gen) => self.on_rtx_timer(net),
            _ => {}
        }
    }

    fn finished(&self) -> bool {
        self.stats.completed_at.is_some()
    }

    fn report(&self) -> SenderReport {
        let window = self.ctl.variant == Variant::Window;
        SenderReport {
            data_sent: self.stats.data_sent,
            retransmits: self.stats.retransmits,
            timeouts: self.stats.rtx_timeouts + self.stats.sig_timeouts,
            fast_recoveries: 0,
            // E-TCP signals congestion by loss alone (its packets are Not-ECT).
            ece_acks: 0,
            cwnd: if window { self.ctl.value } else { f64::NAN },
            ssthresh: f64::NAN,
            srtt_s: self.rtt.srtt(),
            completed_at: self.stats.completed_at,
            loss_est: Some(self.loss_estimate().unwrap_or(0.0)),
            rate_pps: self.rtt.srtt().map(|tau| self.ctl.rate_pps(tau)).filter(|r| r.is_finite()),
            awnd_pkts: None,
        }
    }
}
