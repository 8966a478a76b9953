//! What goes out next and how: RFC 6675's NextSeg(), Limited Transmit
//! (RFC 3042), pacing, ns-2's delayed send, and the transmission itself.
use super::*;

impl TcpSender {
    pub(super) fn retransmit_first_lost(&mut self, net: &mut Net, forced: bool) {
        if let Some(s) = self.sb.next_unsent_hole() {
            if s < self.sb.lost_hi() {
                self.transmit(net, s, forced);
            }
        }
    }

    pub(super) fn has_new_data(&self) -> bool {
        // Gerla et al. eq. 1: W_t = min(W_c, W_a) - W_u; cwnd is applied by
        // the caller, the advertised window here.
        self.has_unsent_data() && self.sb.outstanding() < self.awnd as u64
    }

    /// The application has data not yet sent, whatever the windows
    /// (Linux `tcp_send_head`). (A SYN goes with the first write: ns-2's
    /// `output` adds it to `curseq_`.)
    pub(super) fn has_unsent_data(&self) -> bool {
        self.app_active && self.unsent_segs() > 0
    }

    /// Segments the application has given that were never sent
    /// (`u64::MAX` for an endless bulk transfer), whatever the windows.
    pub(super) fn unsent_segs(&self) -> u64 {
        let high = self.sb.high();
        let total = self.total_segs.map_or(u64::MAX, |t| t.get().saturating_sub(high));
        let written = self.x().offered.map_or(u64::MAX, |o| (o.get() + self.cfg.first_data_seg()).saturating_sub(high));
        total.min(written)
    }

    /// A zero-window probe (RFC 9293 §3.8.6.1; Linux `tcp_xmit_probe_skb`
    /// with no urgent data): a segment without payload that repeats the
    /// byte below SND.UNA, so the receiver answers with its window. It is
    /// not data: no counter, RTT sample or retransmission timer.
    pub(super) fn send_window_probe(&mut self, net: &mut Net) {
        let now = net.now;
        let seq = self.sb.una().saturating_sub(1);
        let size = self.cfg.header;
        let l4 = L4::Tcp(TcpHeader { seq, ack: self.x().ts_recent.unwrap_or(0), ..Default::default() });
        net.send(Packet { flow: self.flow, kind: Kind::Data, size, ts: now, l4, ..Default::default() });
        self.trace_control(now, seq, size, true);
    }

    /// A segment outside the window's sending rules (a SYN, a window
    /// probe: forced, unpaced) in the send trace, if traced.
    pub(super) fn trace_control(&mut self, now: Time, seq: u64, size: u32, probe: bool) {
        if let Some(tr) = self.extras.as_deref_mut().and_then(|x| x.trace.as_mut()) {
            let r = SendRecord {
                time: now,
                seq,
                size,
                interval_s: None,
                tokens_after: None,
                forced: true,
                cwr: false,
                probe,
                psh: false,
            };
            tr.push(r);
        }
    }

    /// The segments the sending rules allow out: the window plus Limited
    /// Transmit's allowance (open: against FlightSize) as a standing one,
    /// which a segment written later may use too (RFC 3042, Linux's
    /// `tcp_packets_in_flight` less the duplicates). ns-2 grants it only
    /// at a duplicate ACK's arrival (`ns2_singledup`, [`Self::lt_allowance`]),
    /// and any other send under the window alone. A send changes none of the
    /// inputs (a held one ends the burst), so a burst computes it once.
    pub(super) fn send_limit(&self) -> u64 {
        let cwnd = self.window();
        if self.ns2_send_one() {
            cwnd
        } else {
            cwnd + self.lt_allowance()
        }
    }

    /// Limited Transmit only at a duplicate ACK's arrival, as ns-2's
    /// `send_one` (`ns2_singledup`). A paced sender keeps the standing
    /// allowance: its segments leave when the pacer releases them, never
    /// at a duplicate's instant (ns-2's Reno agents have no pacer; the
    /// papers' paced TCPs are this pacer on them).
    pub(super) fn ns2_send_one(&self) -> bool {
        self.cfg.ns2_singledup && self.x().paced.is_none()
    }

    /// Limited Transmit's allowance beyond the window: one segment per
    /// duplicate ACK up to `dupthresh - 1` in the open state (RFC 3042;
    /// with `limited_transmit`), and with `ns2_singledup` also after a
    /// timeout ([`Self::singledup_allowance`]).
    pub(super) fn lt_allowance(&self) -> u64 {
        if self.state == State::Open {
            if self.cfg.limited_transmit {
                self.dupacks.min(2) as u64
            } else {
                0
            }
        } else {
            self.singledup_allowance()
        }
    }

    /// Send while the window, the receiver and the pacer allow (after the
    /// `send_jitter_s` delay, if set).
    pub fn try_send(&mut self, net: &mut Net) {
        self.send_much(net, false);
    }

    /// ns-2 `send_much(force)`: with `send_jitter_s`, a send that is not
    /// `force`d waits for a pending delayed send, or arms one if the window
    /// is open (tcp.cc: `if (!force && delsnd_timer_.status() ==
    /// TIMER_PENDING) return;` ... `delsnd_timer_.resched(Random::uniform(
    /// overhead_))`); the timer's expiry sends with `force`. Without
    /// `send_jitter_s` every send is direct.
    pub(super) fn send_much(&mut self, net: &mut Net, force: bool) {
        if self.stats.completed_at.is_some() || self.connecting() {
            return;
        }
        if self.strategy.kind() == super::recovery::StrategyKind::Sack1 {
            return self.sack1_send_much(net, force);
        }
        if !force && self.cfg.send_jitter_s > 0.0 {
            if !self.delsnd_armed() && self.next_segment_available() {
                self.arm_delsnd(net);
            }
            return;
        }
        let now = net.now;
        let limit = self.send_limit();
        let sent0 = self.stats.data_sent;
        let mut deferred = false;
        loop {
            let release = self
                .extras
                .as_deref_mut()
                .and_then(|x| x.paced.as_deref_mut())
                .map_or(now, |p| p.pacer.release_time(now, self.st.cwnd, self.rtt.srtt()));
            if release > now {
                if self.next_segment_available() {
                    if let Some(p) = self.extras.as_deref_mut().and_then(|x| x.paced.as_deref_mut()) {
                        p.timer.arm(&mut net.events, release);
                    }
                }
                break;
            }
            if self.cfg.tso_autosize && self.x().gso.left == 0 && self.next_is_new(limit) {
                // a transmission of new data begins (`tcp_write_xmit`); it
                // may wait in the open state (`tcp_tso_should_defer`, asked
                // once the pacer, if any, lets it go)
                match self.gso_transmission(now, limit, self.state == State::Open) {
                    Some(n) => self.begin_gso(n),
                    None => {
                        // `is_cwnd_limited` when cwnd, not the offered
                        // window, left too little room
                        deferred = limit < self.awnd as u64;
                        break;
                    }
                }
            }
            if !self.send_next(net, limit) {
                break;
            }
        }
        // a transmission ends with `tcp_write_xmit`
        self.end_gso();
        if let Some(p) = self.extras.as_deref_mut().and_then(|x| x.paced.as_deref_mut()) {
            p.pacer.end_transmission();
        }
        if self.x().cwnd_use.is_some() {
            self.cwnd_use_after_burst(self.stats.data_sent - sent0, deferred);
        }
    }

    /// Send the segment `next_segment` picks under `limit`
    /// ([`Self::send_limit`]), if any; whether one was sent.
    pub(super) fn send_next(&mut self, net: &mut Net, limit: u64) -> bool {
        match self.next_segment(limit) {
            None => false,
            Some(Next::New) => {
                // Beyond cwnd only on Limited Transmit's allowance, which
                // is nonzero only after a duplicate ACK.
                let lt = self.state == State::Open && self.dupacks > 0 && self.sb.outstanding() >= self.window();
                let s = self.sb.high();
                if !self.transmit(net, s, false) {
                    return false;
                }
                if lt {
                    self.lt_sent += 1; // beyond cwnd: Limited Transmit (RFC 3042)
                }
                true
            }
            Some(Next::Retx(s)) => {
                // a retransmission goes as a transmission of its own
                self.end_gso();
                self.transmit(net, s, false)
            }
        }
    }

    /// A transmission of `n` segments of new data begins (Linux's GSO
    /// sender): the last of them will carry PSH if it holds more than one.
    fn begin_gso(&mut self, n: u64) {
        let g = &mut self.x_make().gso;
        g.left = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
        g.multi = n > 1;
    }

    /// No transmission of new data is in progress.
    fn end_gso(&mut self) {
        if let Some(x) = self.x_mut() {
            x.gso.left = 0;
        }
    }

    /// The segments of the transmission the segment being sent begins or
    /// joins, itself and those after it (1 outside one: a retransmission
    /// or a probe goes alone).
    fn gso_rest(&self) -> u32 {
        self.x().gso.left.max(1)
    }

    /// The segment being sent ends a transmission of more than one
    /// segment: Linux's `__tcp_transmit_skb` forces PSH on every GSO
    /// packet ("to expedite GRO flush at receiver"), which segmentation
    /// leaves on its last segment. A lone segment gets none (Linux: "it
    /// is better to delay the delivery of 1-MSS packets"), and neither do
    /// retransmissions here, each its own transmission (Linux may resend
    /// a lost multi-segment skb whole). The end of an application write
    /// (`tcp_push`) marks PSH too; ccsim's senders write without end, so
    /// that one is not modelled.
    fn gso_psh(&mut self) -> bool {
        let Some(g) = self.x_mut().map(|x| &mut x.gso).filter(|g| g.left > 0) else { return false };
        g.left -= 1;
        g.left == 0 && g.multi
    }

    /// Arm ns-2's `delsnd_timer_` `Random::uniform(overhead_)` from now.
    pub(in crate::transport::tcp) fn arm_delsnd(&mut self, net: &mut Net) {
        use rand::Rng as _;
        let j = self.extras.as_deref_mut().and_then(|x| x.jitter.as_deref_mut()).expect("send_jitter_s > 0");
        let u: f64 = j.rng.gen();
        let at = net.now.saturating_add(from_secs(u * self.cfg.send_jitter_s));
        j.timer.arm(&mut net.events, at);
    }

    /// Whether a segment would be sent if the pacer allowed it (no side effects).
    pub(super) fn next_segment_available(&self) -> bool {
        self.within_limit(self.send_limit())
    }

    /// The gate of [`Self::next_segment`] under `limit`: open, new data
    /// and FlightSize below it; otherwise `pipe` below it.
    #[inline]
    pub(super) fn within_limit(&self, limit: u64) -> bool {
        if self.state == State::Open {
            self.has_new_data() && self.sb.outstanding() < limit
        } else {
            self.sb.pipe() < limit
        }
    }

    /// ns-2's `singledup_` after a timeout (`ns2_singledup`): each of the
    /// first duplicate ACKs lets one more segment out (tcp-reno.cc
    /// `send_one`: `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`), as
    /// Limited Transmit does in the open state.
    pub(super) fn singledup_allowance(&self) -> u64 {
        if self.state == State::Loss && self.cfg.ns2_singledup && self.cfg.limited_transmit {
            self.dupacks.min(self.cfg.dupthresh.saturating_sub(1)) as u64
        } else {
            0
        }
    }

    /// `tcp_tso_autosize` at the flow's pacing rate: the pacer's (BBR's,
    /// or Linux's default rate set at each ACK), or for an unpaced flow
    /// the rate `tcp_update_pacing_rate` gives it all the same.
    fn tso_goal(&self) -> u32 {
        use crate::transport::tso;
        let rate = if self.x().paced.is_some() {
            (self.st.pacing_rate > 0.0).then_some(self.st.pacing_rate)
        } else {
            super::super::pacing::linux_pacing_rate(
                self.cfg.mss,
                self.st.cwnd,
                self.st.ssthresh,
                self.sb.outstanding(),
                self.rtt.srtt(),
            )
        };
        let min = self.cc.min_tso_segs(&self.st);
        tso::autosize(rate, self.cfg.mss, self.rtt.min_rtt(), min)
    }

    /// Whether the segment [`Self::next_segment`] would pick under
    /// `limit` is new data (no lost segment waits for a retransmission:
    /// rule 1 comes first).
    fn next_is_new(&mut self, limit: u64) -> bool {
        self.within_limit(limit)
            && self.has_new_data()
            && (self.state == State::Open || self.sb.next_unsent_hole().is_none_or(|s| s >= self.sb.lost_hi()))
    }

    /// The next transmission of new data (`tcp_write_xmit`, Linux 6.18),
    /// in segments, or `None` while an unpaced sender in the open state
    /// waits for the next ACK (`defer`: [`crate::transport::tso::should_defer`]).
    ///
    /// The application's writes queue skbs of the device's GSO limit
    /// (`tcp_xmit_size_goal`: 64 KB, "tcp_tso_autosize() will eventually
    /// split this later"; ccsim's bulk application always has more
    /// written than sent, so every queued skb is full; the limit of half
    /// the peer's largest window, which binds only in the first round
    /// trips, is left out). A transmission takes the head skb: first
    /// grown from the next one up to the quota (`tcp_grow_skb`: min(half
    /// cwnd, cwnd's room, the TSO goal), taking from that one skb only),
    /// then cut to the quota (`tso_fragment`), its rest staying at the
    /// head. A head of one segment goes at once (Nagle's test passes with
    /// more queued behind); a longer one may wait
    /// (`tcp_tso_should_defer`), unless it holds the last of the data the
    /// window could take (a transfer's end, the application's last
    /// write). The transmissions, and the PSH flags they carry
    /// ([`Self::gso_psh`]), follow the kernel's.
    fn gso_transmission(&mut self, now: Time, limit: u64, defer: bool) -> Option<u64> {
        use super::extras::Gso;
        use crate::transport::tso::{should_defer, skb_segs, DeferCheck};
        let window = limit.min(self.awnd as u64);
        let used = if self.state == State::Open { self.sb.outstanding() } else { self.sb.pipe() };
        let room = window.saturating_sub(used);
        let goal = self.tso_goal();
        let quota = (skb_segs(goal, self.st.cwnd) as u64).min(room).max(1) as u32;
        let unsent = self.unsent_segs();
        let full =
            u32::try_from(crate::transport::tso::GSO_MAX_BYTES / self.cfg.mss.max(1) as u64).unwrap_or(u32::MAX).max(1);
        let Gso { mut head, mut next, .. } = self.x().gso;
        if head == 0 {
            (head, next) = (full, full);
        }
        if head < quota {
            // tcp_grow_skb: from the next skb only
            let take = (quota - head).min(next);
            head += take;
            next -= take;
            if next == 0 {
                next = full;
            }
        }
        let head_len = (head as u64).min(unsent);
        if defer && head_len > 1 && unsent > room {
            let una = self.sb.una();
            let sent = self.strategy.linux_ref().and_then(|l| l.sent_at(una));
            let c = DeferCheck {
                room,
                goal,
                skb: head_len,
                window: self.window().min(self.awnd as u64),
                since_last_send: self.wstamp().map(|w| now.saturating_sub(w)),
                head_age_and_srtt: sent.zip(self.rtt.srtt()).map(|(h, s)| (now.saturating_sub(h), from_secs(s))),
            };
            if should_defer(&c, self.cfg.mss) {
                let g = &mut self.x_make().gso;
                (g.head, g.next) = (head, next);
                return None;
            }
        }
        let n = head_len.min(quota as u64);
        head -= n as u32;
        let g = &mut self.x_make().gso;
        (g.head, g.next) = if head == 0 { (next, full) } else { (head, next) };
        Some(n)
    }

    /// Linux's `tcp_wstamp_ns`, what `tcp_tso_should_defer`'s "last write"
    /// is measured from: each transmission sets it to max(itself, now), and
    /// a rate-paced sender (`sk_pacing_status`, BBR's internal pacing) then
    /// moves it on by the transmission's time at the pacing rate
    /// (`tcp_update_skb_after_send`), so that it is the pacer's next
    /// departure, never before the last send (`transmit` records both).
    /// `None` before any transmission.
    fn wstamp(&self) -> Option<Time> {
        let last = self.x().last_send?;
        Some(self.x().paced.as_ref().and_then(|p| p.pacer.wstamp()).unwrap_or(last))
    }

    /// Send segment `seq`; false if it was held back at the full interface
    /// queue (`txqueuelen_pkts`, [`Self::on_local_congestion`]). ns-2's
    /// Sack1 agent (`recovery = "sack1"`) keeps its own send state and has
    /// no local congestion: its segments go to the queue like any packet
    /// and are dropped there when it is full.
    pub(in crate::transport::tcp) fn transmit(&mut self, net: &mut Net, seq: u64, forced: bool) -> bool {
        if self.strategy.kind() != super::recovery::StrategyKind::Sack1 && net.local_queue_full(self.flow) {
            self.on_local_congestion(net);
            return false;
        }
        self.held = false;
        let now = net.now;
        // ns-2 `output`: a send with nothing outstanding (`highest_ack_ ==
        // maxseq_`) sets the timer afresh even when it is pending, which
        // with `ns2_idle_restart` it is (rearmed at every ACK and at every
        // idle expiry): the segment gets a whole RTO.
        let rearm = self.cfg.ns2_idle_restart && self.sb.outstanding() == 0;
        let retx = seq < self.sb.high();
        let outstanding = self.sb.outstanding();
        if self.x().rate.is_some() {
            self.rate_before_send(now);
        }
        if self.state == State::Recovery {
            if let Some(p) = self.extras.as_deref_mut().and_then(|x| x.prr.as_deref_mut()) {
                p.out += 1; // RFC 9937 prr_out
            }
        }
        if retx {
            self.sb.mark_retx(seq);
            self.stats.retransmits += 1;
        } else {
            self.sb.on_send_new();
        }
        if self.x().rate.is_some() {
            self.rate_on_send(seq, now, outstanding);
        }
        self.rtt.on_send(seq, !retx, to_secs(now));
        if self.cfg.slow_start_after_idle || self.cfg.tso_autosize {
            self.x_make().last_send = Some(now);
        }
        self.stats.data_sent += 1;
        if self.x().cwnd_use.is_some() {
            self.cwnd_use_on_send();
        }
        let size = self.cfg.header + self.cfg.payload(seq);
        // RFC 3168 §6.1.5: retransmissions go Not-ECT, so a congested
        // router drops rather than marks them; ns-2 marks them ECT anyway.
        // A SYN is never ECT (RFC 3168 §6.1.1; ns-2 `output`: `ect() = 0`
        // for segment 0 with `syn_`).
        // ns-2's ECN agent negotiates on segment 0, a SYN or not: it goes
        // Not-ECT with ECE set, and the sink echoes ECE on its ACK
        // (`output`: `if (seqno == 0) ... ecnecho() = 1; ect() = 0`).
        let ns2_ecn = self.cfg.ecn_response == EcnResponse::Ns2;
        let negotiate = self.cfg.ecn && ns2_ecn && seq == 0;
        let syn = seq < self.cfg.first_data_seg() || negotiate;
        let ecn =
            if self.cfg.ecn && !syn && (!retx || self.cfg.ecn_retransmit_ect) { self.cfg.ect } else { Ecn::NotEct };
        // ns-2 `output` (SetCWRonRetransmit_, true since 2005) sets CWR on
        // the next segment, a retransmission too; the RFC on new data only.
        // AccECN sends no CWR (RFC 9768: the flag is a bit of the ACE counter).
        let cwr = (!retx || ns2_ecn) && std::mem::take(&mut self.cwr_pending) && self.x().accecn.is_none();
        let mut tcp =
            TcpHeader { seq, ack: self.x().ts_recent.unwrap_or(0), retx, cwr, ece: negotiate, ..Default::default() };
        // the pacer's transmission: this one's segments from here
        let skb_segs = if self.cfg.tso_autosize { self.gso_rest() } else { 1 };
        let psh = self.gso_psh();
        if psh {
            tcp.set_psh();
        }
        let l4 = L4::Tcp(tcp);
        // GWA §2: the sender sets B_n = B_max (here the receiver window in
        // bytes on the wire); routers on the path only ever lower it.
        // BA (§5): v starts unbounded (the option's largest value).
        let ip_opt = match (self.cfg.gwa, self.cfg.ba) {
            (true, _) => self.cfg.gwa_b_max(),
            (_, true) => BA_UNBOUNDED,
            _ => IP_OPT_NONE,
        };
        self.st.srtt_s = self.rtt.srtt();
        let cong = self.cc.cong_header(&self.st, size);
        net.send(Packet {
            flow: self.flow,
            kind: Kind::Data,
            size,
            ts: now,
            ecn,
            ip_opt,
            l4,
            cong,
            ..Default::default()
        });
        if let Some(x) = self.extras.as_deref_mut() {
            if let Some(p) = x.paced.as_deref_mut() {
                p.pacer.on_send(now, self.cfg.payload(seq), self.st.pacing_rate, skb_segs);
            }
            if let Some(tr) = x.trace.as_mut() {
                let interval_s = self.rtt.srtt().map(|s| s / self.st.cwnd.max(1.0));
                tr.push(SendRecord {
                    time: now,
                    seq,
                    size,
                    interval_s,
                    tokens_after: x.paced.as_ref().and_then(|p| p.pacer.tokens()),
                    forced,
                    cwr,
                    probe: false,
                    psh,
                });
            }
        }
        let timer_set = self.strategy.linux_ref().is_some() && self.linux_on_send(net, seq, retx, outstanding);
        if !timer_set && (rearm || !self.rto_timer.is_armed()) {
            self.arm_rto(net);
        }
        true
    }
}
