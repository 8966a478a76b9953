//! `recovery = "sack1"`: ns-2.35's `Agent/TCP/Sack1` sender with the
//! `Agent/TCPSink/Sack1` receiver's SACK blocks, the loss recovery the
//! LTCP and E-TCP papers' simulations ran.
//!
//! It is a different algorithm from RFC 6675 (`recovery = "sack"`), and the
//! differences move results: at high rates ns-2's exit burst cuts the
//! window a second time in slow start, and a lost retransmission always
//! ends in a timeout followed by go-back-N. Each rule below names the
//! ns-2 function it follows (files under `ns-2.35/tcp/`) and why it is not
//! RFC 6675's.
//!
//! **The sender's variables** are ns-2's, in ns-2's units: `highest_ack`,
//! `last_ack` and `recover` are segment numbers of the last segment
//! acknowledged in order (ccsim's cumulative ACK − 1, so −1 before any),
//! `t_seqno` is the next segment to send, `maxseq` the highest sent.
//!
//! - **Duplicate ACKs** (`Sack1TcpAgent::recv`): an ACK at `last_ack` counts
//!   as a duplicate only if its SACK blocks told the scoreboard something
//!   new (`ScoreBoardRQ::UpdateScoreBoard` / `CheckUpdate`); RFC 6675 §5
//!   counts every duplicate and also enters recovery on `IsLost`. While
//!   duplicates are counted nothing is sent but Limited Transmit's
//!   `send_one` (one new segment per duplicate while `t_seqno <=
//!   highest_ack + cwnd + dupacks`); the third duplicate starts recovery
//!   and sends only the retransmission.
//! - **Entering recovery** (`Sack1TcpAgent::dupack_action`): only if
//!   `highest_ack > recover` (ns-2 `bug_fix_`; with `ns2_bugfix = false`
//!   the one-segment-looser `>=` of RFC 6582), or at the connection's first
//!   segment (`bugfix_ss_`). Then `recover = maxseq`, `pipe = maxseq −
//!   highest_ack − 3` (the three duplicates left the network), the timer
//!   restarts and stops timing (`reset_rtx_timer(1, 0)`), and `slowdown`
//!   halves: `ssthresh = ⌊w/2⌋` (at least 2), `cwnd = w/2` with `w =
//!   min(cwnd, rwnd)` unrounded (`precision_reduce_`), not RFC 6675's
//!   FlightSize/2. HighSpeed and the other controllers set the window
//!   their own way (`ssthresh = ⌊target⌋`, `cwnd = target`), also at the
//!   first fast retransmission after a timeout (`dupack_action` sets
//!   `CWND_ACTION_DUPACK` before `slowdown`, so its halving after a
//!   TIMEOUT action never applies here).
//! - **pipe** (`recv`, `send_much`): not RFC 6675's SetPipe() from the
//!   scoreboard but a counter: −1 for every ACK in recovery, −1 more for a
//!   partial ACK ("so that we never do worse than slow-start"), +1 for
//!   every segment sent. It drifts below the true flight when partial ACKs
//!   cover several segments, which lets recovery send more.
//! - **Window in recovery** (`Sack1TcpAgent::send_much`): no inflation; send
//!   while `pipe < ⌊cwnd⌋`, retransmissions first, new data bounded only by
//!   the receiver window (`t_seqno <= highest_ack + rwnd`), not by cwnd.
//! - **Retransmission choice** (`ScoreBoardRQ::GetNextRetran`): the first
//!   segment at or above a cursor (`h_seqno`, at least `highest_ack + 1`)
//!   that is not SACKed and has a SACKed block above it. RFC 6675 retransmits
//!   only segments `IsLost()` deems lost (DupThresh SACKed segments above)
//!   before new data; ns-2 retransmits every hole below the highest SACK,
//!   once each (the cursor only moves forward), and has no rescue
//!   retransmission.
//! - **Partial ACKs** (`recv`): `highest_ack` advances but `last_ack` does
//!   not; the timer restarts with the old backoff and the backoff is then
//!   cleared (`newtimer`, `t_backoff_ = 1`); there is no RTT sample.
//! - **Exit** (`recv`): an ACK at or beyond `recover` leaves recovery with
//!   `cwnd` as it is (the halved value: nothing to deflate), sets `recover`
//!   to 0 (so the next recovery needs no `bug_fix_` test) and clears the
//!   scoreboard. The window is then measured from the new cumulative ACK
//!   (`t_seqno <= last_ack + ⌊cwnd⌋`), and everything recovery did not send
//!   leaves at once: ns-2's exit burst. RFC 6675 keeps pipe ≤ cwnd across
//!   the exit, so it has no burst.
//! - **Scoreboard lifetime** (`recv`, `timeout`): cleared on every new ACK
//!   outside recovery, at the exit of recovery and at a timeout; SACK
//!   information is never carried across a timeout (RFC 6675 §5.1 keeps
//!   it).
//! - **Timeout** (`Sack1TcpAgent::timeout`, `TcpAgent::timeout`): leave
//!   recovery, `recover = maxseq`, clear the scoreboard, ignore duplicate
//!   ACKs until a new ACK (`timeout_`), `ssthresh = ⌊w/2⌋` (at least 2;
//!   every timeout, the repeated ones too, unless `halve_on_repeated_rto =
//!   false`), `cwnd = 1`, back the timer off and resend from `highest_ack +
//!   1` in order (go-back-N: `t_seqno = highest_ack + 1`), segments the
//!   receiver holds included. RFC 6675 retransmits only un-SACKed ones.
//!   A timer that fires with nothing outstanding (an idle sender: ns-2
//!   `newtimer` keeps it running after the last ACK) restarts the window
//!   from one segment without a timeout being counted.
//! - **Timer** (`TcpAgent::newack`, `newtimer`, `output`): restarted by
//!   every new ACK (after the RTT sample), by a segment sent with nothing
//!   outstanding, and by the fast retransmission; never cancelled.
//!
//! **The receiver** ([`crate::transport::tcp::receiver::sack1::Sacker`],
//! `Sacker::append_ack` in `tcp-sink.cc`)
//! reports at most 3 blocks (`maxSackBlocks_`): first the block holding the
//! segment just received (none if it was at or below the cumulative ACK),
//! then the blocks of earlier ACKs from a 3-deep stack, skipping (and
//! dropping) those the first block covers; the stack empties when the
//! cumulative ACK reaches the highest segment seen. Stack entries are the
//! blocks as they were reported, so a block may repeat as an older, smaller
//! copy; RFC 2018 asks for the current blocks. Each block adds 8 bytes to
//! the ACK (`ch->size() += sack_index * 8`).
//!
//! The other ns-2 modes combine as their names say: `rtt_estimator =
//! "ns2"` (the timing and RTO of `tcp.cc`, which this agent uses
//! unchanged), `ns2_bugfix` (the `recover` test above),
//! `halve_on_repeated_rto`, `limited_transmit` (`singledup_`), `dupthresh`
//! (`numdupacks_`), `syn` (ns-2's start-up with a header-only segment 0,
//! `syn_` and `delay_growth_`: the window opens in `recv` after
//! `recv_newack_helper`, as below), `send_jitter_s` (`overhead_`).
//! ns-2's `partial_ack_` (off by default), `maxburst_` (0), ECN and F-RTO
//! are not modelled; `ecn` and `pacing` are refused with this recovery.
use crate::net::packet::{CongestionHeader, SackBlock};
use crate::net::Net;
use crate::sim::time::to_secs;
use crate::sim::Time;
use crate::transport::cc::{CcEvent, NetFeedback};
use crate::transport::tcp::sender::{State, TcpSender};
use std::collections::BTreeMap;

/// ns-2's `ScoreBoardRQ` (`scoreboard-rq.cc` over `rq.cc`'s reassembly
/// queue): the SACKed ranges the ACKs of this recovery reported, a
/// retransmission cursor and whether the last update said anything new.
/// Sequence numbers are ns-2's (`i64`, −1 for "none").
#[derive(Clone, Debug, Default)]
pub struct Ns2ScoreBoard {
    /// SACKed ranges `[start, end)`, disjoint and not touching.
    ranges: BTreeMap<i64, i64>,
    /// Segments in `ranges` (`ReassemblyQueue::total`).
    total: i64,
    /// The next segment the cursor may return (`h_seqno_`).
    h_seqno: i64,
    /// One past the cumulative ACK the board was last updated with
    /// (`sack_min`); survives `clear`, as in ns-2.
    sack_min: i64,
    changed: bool,
}

impl Ns2ScoreBoard {
    pub fn new() -> Self {
        Ns2ScoreBoard { ranges: BTreeMap::new(), total: 0, h_seqno: -1, sack_min: -1, changed: false }
    }

    /// `ClearScoreBoard`: forget every SACK and the cursor.
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.total = 0;
        self.h_seqno = -1;
    }

    /// `UpdateScoreBoard(last_ack, blocks)`: drop what the cumulative ACK
    /// covers, add the ACK's blocks (`[left, right)`), and remember whether
    /// anything changed (`CheckUpdate`).
    pub fn update(&mut self, last_ack: i64, blocks: impl IntoIterator<Item = (i64, i64)>) {
        let old_total = self.total;
        self.changed = false;
        if self.sack_min <= last_ack {
            self.sack_min = last_ack + 1;
            if !self.ranges.is_empty() {
                self.clear_to(self.sack_min);
                self.changed = true;
            }
        }
        for (l, r) in blocks {
            self.add(l, r);
        }
        self.changed = self.changed || old_total != self.total;
    }

    pub fn changed(&self) -> bool {
        self.changed
    }

    /// `ReassemblyQueue::clearto`: remove everything below `seq`.
    fn clear_to(&mut self, seq: i64) {
        while let Some((&s, &e)) = self.ranges.first_key_value() {
            if e <= seq {
                self.ranges.remove(&s);
                self.total -= e - s;
            } else {
                if s < seq {
                    self.ranges.remove(&s);
                    self.ranges.insert(seq, e);
                    self.total -= seq - s;
                }
                break;
            }
        }
    }

    /// `ReassemblyQueue::add`: merge `[l, r)` into the ranges. (Its update
    /// of the queue's `rcv_nxt` needs a block reaching down to `sack_min`,
    /// which a SACK block never does: blocks start above the cumulative
    /// ACK.)
    fn add(&mut self, l: i64, r: i64) {
        if r <= l {
            return;
        }
        let (mut lo, mut hi) = (l, r);
        // absorb the ranges overlapping or touching [l, r), highest first
        while let Some((&s, &e)) = self.ranges.range(..=hi).next_back() {
            if e < lo {
                break;
            }
            self.ranges.remove(&s);
            self.total -= e - s;
            lo = lo.min(s);
            hi = hi.max(e);
        }
        self.ranges.insert(lo, hi);
        self.total += hi - lo;
    }

    /// `GetNextRetran`: the first segment at or above the cursor that is not
    /// SACKed and lies below a SACKed block, or `None` (`-1`).
    pub fn next_retran(&mut self) -> Option<i64> {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        let seq = self.h_seqno;
        // ReassemblyQueue::nexthole(seq) with the count of blocks above it:
        // the first block not wholly below seq decides
        let hole = match self.ranges.range(..=seq).next_back() {
            // seq inside (or at the end of) a block: the hole is the
            // block's end, if another block lies above
            Some((_, &e)) if e >= seq => {
                self.ranges.range(e + 1..).next()?;
                e
            }
            // seq is a hole if some block lies above it
            _ => {
                self.ranges.range(seq + 1..).next()?;
                seq
            }
        };
        // nexthole's result must be > 0 (`GetNextRetran`)
        if hole <= 0 {
            return None;
        }
        self.h_seqno = self.h_seqno.max(hole);
        Some(hole)
    }

    /// `MarkRetran`: the cursor moves past a retransmitted segment.
    pub fn mark_retran(&mut self, seq: i64) {
        if seq >= self.h_seqno {
            self.h_seqno = seq + 1;
        }
    }
}

/// The Sack1 sender's state (ns-2 `Sack1TcpAgent`'s members and the
/// `TcpAgent` ones its rules use), in ns-2 units; the window, timers, RTT
/// estimator and controller stay in [`super::TcpSender`].
#[derive(Clone, Debug)]
pub struct Sack1 {
    pub sb: Ns2ScoreBoard,
    /// `t_seqno_`: the next segment to send.
    pub t_seqno: i64,
    /// `last_ack_`: the cumulative ACK the window is measured from (not
    /// advanced by partial ACKs).
    pub last_ack: i64,
    /// `highest_ack_`: the highest cumulative ACK.
    pub highest_ack: i64,
    /// `recover_`: `maxseq_` at the last reduction (0 after a clean exit).
    pub recover: i64,
    pub dupacks: u32,
    /// `pipe_`, see the module doc.
    pub pipe: i64,
    /// `fastrecov_`.
    pub fastrecov: bool,
    /// `timeout_`: a timeout happened and no new ACK since.
    pub timeout: bool,
}

impl Default for Sack1 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sack1 {
    /// ns-2 `TcpAgent::reset`.
    pub fn new() -> Self {
        Sack1 {
            sb: Ns2ScoreBoard::new(),
            t_seqno: 0,
            last_ack: -1,
            highest_ack: -1,
            recover: 0,
            dupacks: 0,
            pipe: -1,
            fastrecov: false,
            timeout: false,
        }
    }
}

impl TcpSender {
    /// The agent's state, taken out while its rules run on the rest of the
    /// sender and put back after (`self.strategy = Strategy::Sack1(k)`).
    fn take_sack1(&mut self) -> Box<Sack1> {
        match std::mem::replace(&mut self.strategy, super::Strategy::Rfc) {
            super::Strategy::Sack1(k) => k,
            _ => unreachable!("Sack1's state on another strategy"),
        }
    }

    /// ns-2 `window()`: min(⌊cwnd⌋, rwnd).
    fn sack1_window(&self) -> i64 {
        (self.st.cwnd.floor() as i64).min(self.awnd as i64)
    }

    /// ns-2 `curseq_`: the segments the application has made available.
    fn sack1_curseq(&self) -> i64 {
        if !self.app_active {
            return self.sb.high() as i64;
        }
        let mut c = i64::MAX;
        if let Some(t) = self.total_segs {
            c = c.min(t.get() as i64);
        }
        if let Some(o) = self.x().offered {
            // with a SYN, `output` adds it to `curseq_`
            c = c.min((o.get() + self.cfg.first_data_seg()) as i64);
        }
        c
    }

    /// ns-2 `maxseq_`: the highest segment sent (−1 before any).
    /// ns-2's `TcpAgent::numdupacks(cwnd_)` (tcp.cc): `numdupacks_`, or
    /// `(int) cwnd_ / numdupacksFrac_` when that is larger. Its default
    /// `numdupacksFrac_` is -1 (no effect) in ns-2.35, and was 100 from
    /// 2002/10/18 to 2006/09/27 (ns-default.tcl), the releases 2.26-2.29.
    fn numdupacks(&self) -> u32 {
        match self.cfg.dupthresh_frac {
            0 => self.cfg.dupthresh,
            frac => self.cfg.dupthresh.max((self.st.cwnd as u64 / frac as u64).min(u32::MAX as u64) as u32),
        }
    }

    fn sack1_maxseq(&self) -> i64 {
        self.sb.high() as i64 - 1
    }

    fn sack1_arm_rto(&mut self, net: &mut Net) {
        self.arm_rto(net);
    }

    /// `TcpAgent::output`: send segment `seq`; the timer starts if none is
    /// pending or nothing was outstanding (`force_set_rtx_timer`).
    fn sack1_output(&mut self, k: &Sack1, net: &mut Net, seq: i64) {
        let idle = k.highest_ack == self.sack1_maxseq();
        self.transmit(net, seq as u64, false);
        if idle {
            self.sack1_arm_rto(net);
        }
    }

    /// `TcpAgent::newack` for cumulative ACK `ack` (ccsim's, next expected):
    /// the window is now measured from it, the RTT sample (ns-2 timing) and
    /// the timer restart. Returns the segments newly acknowledged.
    fn sack1_newack(&mut self, k: &mut Sack1, net: &mut Net, ack: u64, ts_echo: Time) -> u64 {
        let now = net.now;
        let a = ack as i64 - 1;
        k.dupacks = 0;
        k.last_ack = a;
        k.highest_ack = a;
        k.t_seqno = k.t_seqno.max(a + 1);
        let acked = ack.saturating_sub(self.sb.una());
        let r = to_secs(now.saturating_sub(ts_echo));
        self.rtt.on_new_ack(ack, r, false, now);
        self.sb.advance(ack);
        self.timer_resent = false;
        self.sack1_arm_rto(net);
        self.sync(now);
        if acked > 0 {
            self.cc.pkts_acked(&mut self.st, acked, Some(r));
        }
        acked
    }

    /// A finite transfer's last segment is acknowledged (ns-2 `finish`).
    fn sack1_check_done(&mut self, now: Time) {
        if self.total_segs.is_some_and(|t| t.get() == self.sb.una()) && self.stats.completed_at.is_none() {
            self.stats.completed_at = Some(crate::sim::time::nonmax(now));
            self.stop_timers();
        }
    }

    /// `Sack1TcpAgent::recv` (see the module doc for each rule).
    pub(in crate::transport::tcp::sender) fn sack1_on_ack(
        &mut self,
        net: &mut Net,
        ack: u64,
        sack: &[SackBlock],
        ts_echo: Time,
        echo: Option<CongestionHeader>,
    ) {
        let mut k = self.take_sack1();
        let now = net.now;
        let ack = ack.min(self.sb.high());
        let a = ack as i64 - 1;
        let blocks = sack.iter().map(|&(l, r)| (l as i64, r as i64));
        if !k.fastrecov {
            if a > k.last_ack {
                let acked = self.sack1_newack(&mut k, net, ack, ts_echo);
                if let Some(h) = echo {
                    self.cc.on_feedback(&mut self.st, NetFeedback::Echo(h));
                }
                if self.state == State::Loss && ack as i64 > k.recover {
                    // before the increase, as Linux changes state before
                    // `cong_avoid` (`tcp_ack`)
                    self.state = State::Open;
                    self.cc.on_event(&mut self.st, CcEvent::LossEnd);
                }
                // opencwnd(): one increase per ACK (the controller's rule)
                self.cc.cong_avoid(&mut self.st, acked.max(1));
                self.clamp_cwnd();
                // then `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window()`
                self.syn_acked(ack);
                self.sack1_check_done(now);
                k.timeout = false;
                k.sb.clear();
            } else if a == k.last_ack && !k.timeout {
                k.sb.update(k.highest_ack, blocks);
                if k.sb.changed() {
                    k.dupacks += 1;
                    let numdupacks = self.numdupacks();
                    if k.dupacks == numdupacks {
                        self.sack1_dupack_action(&mut k, net);
                    } else if k.dupacks < numdupacks && self.cfg.limited_transmit {
                        self.sack1_send_one(&mut k, net);
                    }
                }
            }
            if k.dupacks == 0 {
                self.sack1_send(&mut k, net, false);
            }
        } else {
            k.pipe -= 1;
            if a >= k.recover {
                // the end of recovery: cwnd stays as it is
                k.recover = 0;
                k.fastrecov = false;
                self.sack1_newack(&mut k, net, ack, ts_echo);
                if let Some(h) = echo {
                    self.cc.on_feedback(&mut self.st, NetFeedback::Echo(h));
                    self.clamp_cwnd();
                }
                self.state = State::Open;
                self.cc.on_event(&mut self.st, CcEvent::RecoveryEnd);
                self.clamp_cwnd();
                self.sack1_check_done(now);
                k.timeout = false;
                k.sb.clear();
            } else if a > k.highest_ack {
                // partial ACK (partial_ack_ false): no RTT sample; the
                // timer restarts with the old backoff, which is then cleared
                k.highest_ack = a;
                self.sb.advance(ack);
                k.sb.update(k.highest_ack, blocks);
                k.pipe -= 1;
                self.sack1_arm_rto(net);
                self.rtt.reset_backoff();
                self.timer_resent = false;
            } else if !k.timeout {
                k.sb.update(k.highest_ack, blocks);
                if k.sb.changed() && k.dupacks > 0 {
                    k.dupacks += 1;
                }
            }
            self.sack1_send(&mut k, net, false);
        }
        self.strategy = super::Strategy::Sack1(k);
    }

    /// `Sack1TcpAgent::dupack_action`: fast retransmission and the start of
    /// recovery, unless this window was already reduced (`bug_fix_`).
    fn sack1_dupack_action(&mut self, k: &mut Sack1, net: &mut Net) {
        let ha = k.highest_ack;
        let recovered = if self.cfg.ns2_bugfix { ha > k.recover } else { ha >= k.recover };
        // bugfix_ss_: a loss of the connection's first segments may recover
        if !recovered && ha != 0 {
            return;
        }
        let maxseq = self.sack1_maxseq();
        k.recover = maxseq;
        k.pipe = maxseq - ha - self.numdupacks() as i64;
        // reset_rtx_timer(1, 0): restart the timer, stop timing
        self.sack1_arm_rto(net);
        self.rtt.on_fast_retransmit();
        k.fastrecov = true;
        k.sb.mark_retran(ha + 1);
        self.sack1_slowdown(net.now);
        self.state = State::Recovery;
        self.stats.fast_recoveries += 1;
        self.cc.on_event(&mut self.st, CcEvent::RecoveryStart);
        self.clamp_cwnd();
        self.sack1_output(k, net, k.last_ack + 1);
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` at a fast
    /// retransmission, on w = min(cwnd, rwnd) unrounded
    /// (`precision_reduce_`): Reno halves (ssthresh ⌊w/2⌋, cwnd w/2);
    /// another controller gives its decreased window `target` (HighSpeed:
    /// (1 − b(w))·w), ssthresh ⌊target⌋. `slowdown`'s halving of
    /// ssthresh when `last_cwnd_action_ == CWND_ACTION_TIMEOUT` never
    /// applies here, even at the first fast retransmission after a
    /// timeout: `Sack1TcpAgent::dupack_action` sets
    /// `CWND_ACTION_DUPACK` before it calls `slowdown` (tcp-sack1.cc); it
    /// is the timeout's own halving (`sack1_on_rto`).
    fn sack1_slowdown(&mut self, now: Time) {
        let w = self.st.cwnd.min(self.awnd as f64);
        let (ssthresh, cwnd) = if self.cc.name() == "reno" {
            ((w / 2.0).floor(), w / 2.0)
        } else {
            self.sync(now);
            let cwnd = self.st.cwnd;
            self.st.cwnd = w;
            let target = self.cc.ssthresh(&self.st);
            self.st.cwnd = cwnd;
            (target.floor(), target)
        };
        self.st.ssthresh = ssthresh.max(2.0);
        self.st.cwnd = cwnd;
    }

    /// `TcpAgent::send_one` (Limited Transmit, `singledup_`): one segment
    /// on a duplicate ACK below the threshold, within cwnd + dupacks.
    fn sack1_send_one(&mut self, k: &mut Sack1, net: &mut Net) {
        let ha = k.highest_ack;
        if k.t_seqno <= ha + self.awnd as i64
            && k.t_seqno < self.sack1_curseq()
            && k.t_seqno as f64 <= ha as f64 + self.st.cwnd + k.dupacks as f64
        {
            let s = k.t_seqno;
            self.sack1_output(k, net, s);
            k.t_seqno += 1;
        }
    }

    /// `Sack1TcpAgent::send_much`: outside recovery, up to `last_ack +
    /// window()`; in recovery, while `pipe < ⌊cwnd⌋`. Retransmissions
    /// (`GetNextRetran`) come first, then new data. With `send_jitter_s`
    /// (`overhead_`), a send that is not `force`d waits for a pending
    /// delayed send, or arms one when the window is open; its expiry sends
    /// with `force` (`send_much(1, ...)`).
    fn sack1_send(&mut self, k: &mut Sack1, net: &mut Net, force: bool) {
        if self.stats.completed_at.is_some() {
            return;
        }
        if !force && self.delsnd_armed() {
            return;
        }
        let wnd = self.awnd as i64;
        let curseq = self.sack1_curseq();
        let mut win = self.sack1_window();
        loop {
            let open = if k.fastrecov { k.pipe < self.st.cwnd.floor() as i64 } else { k.t_seqno <= k.last_ack + win };
            if !open || k.last_ack + 1 >= curseq {
                return;
            }
            if !force && self.cfg.send_jitter_s > 0.0 {
                // "Set a delayed send timeout" (not pending: checked above)
                self.arm_delsnd(net);
                return;
            }
            let x = match k.sb.next_retran() {
                None => {
                    let room =
                        if k.fastrecov { k.t_seqno <= k.highest_ack + wnd } else { k.t_seqno <= k.highest_ack + win };
                    if !(room && k.t_seqno < curseq) {
                        return;
                    }
                    k.t_seqno += 1;
                    k.t_seqno - 1
                }
                Some(x) if k.recover > 0 && x <= k.highest_ack + wnd => {
                    k.sb.mark_retran(x);
                    win = self.sack1_window();
                    x
                }
                Some(_) => return,
            };
            self.sack1_output(k, net, x);
            if k.t_seqno <= x {
                k.t_seqno = x + 1;
            }
            k.pipe += 1;
        }
    }

    /// The entry for [`TcpSender::try_send`].
    pub(in crate::transport::tcp::sender) fn sack1_send_much(&mut self, net: &mut Net, force: bool) {
        let mut k = self.take_sack1();
        self.sack1_send(&mut k, net, force);
        self.strategy = super::Strategy::Sack1(k);
    }

    /// `Sack1TcpAgent::timeout` + `TcpAgent::timeout`.
    pub(in crate::transport::tcp::sender) fn sack1_on_rto(&mut self, net: &mut Net) {
        let mut k = self.take_sack1();
        let now = net.now;
        let maxseq = self.sack1_maxseq();
        let idle = k.highest_ack == maxseq;
        k.dupacks = 0;
        k.fastrecov = false;
        k.timeout = true;
        k.last_ack = k.last_ack.max(k.highest_ack);
        k.recover = maxseq;
        k.sb.clear();
        self.st.cwnd = self.st.cwnd.max(1.0);
        if idle {
            // nothing outstanding: restart from one segment, no backoff,
            // no ssthresh cut, no timeout counted (NO_OUTSTANDING_DATA)
            self.st.cwnd = 1.0;
            self.st.ssthresh = self.st.ssthresh.max(2.0);
            self.rtt.on_fast_retransmit();
        } else {
            self.stats.timeouts += 1;
            self.note_timeout_before_any_ack();
            let repeated = self.timer_resent;
            self.timer_resent = true;
            if !repeated || self.cfg.halve_on_repeated_rto {
                let w = self.st.cwnd.min(self.awnd as f64);
                // the controller keeps its own state (HighSpeed's first
                // decrease, decrease_num_); ns-2 halves on every timeout
                self.sync(now);
                self.cc.ssthresh_rto(&self.st);
                self.st.ssthresh = (w / 2.0).floor().max(2.0);
            }
            self.st.cwnd = 1.0;
            self.state = State::Loss;
            self.cc.on_event(&mut self.st, CcEvent::Timeout);
            self.clamp_cwnd();
            self.rtt.on_timeout();
        }
        self.sack1_arm_rto(net);
        k.t_seqno = k.highest_ack + 1;
        self.sack1_send(&mut k, net, false);
        self.strategy = super::Strategy::Sack1(k);
    }
}

/// The settings ns-2's Sack1 agent takes (`numdupacksFrac_`) and those it
/// refuses: ECN, pacing and local congestion are not modelled for it.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if let Some(frac) = f.dupthresh_frac {
        if frac == 0 {
            return Err(ConfigError::new(p("dupthresh_frac"), "0 is not allowed; must be >= 1 (absent: off)"));
        }
        if cfg.recovery != Recovery::Sack1 {
            return Err(ConfigError::new(
                p("dupthresh_frac"),
                "needs recovery = \"sack1\" (ns-2 reads numdupacksFrac_ in its Sack1 agent only)",
            ));
        }
    }
    if cfg.recovery == Recovery::Sack1 {
        // ns-2's Sack1 agent has neither; its rules are not written for them.
        if cfg.ecn {
            return Err(ConfigError::new(
                p("ecn"),
                "true is not supported with recovery = \"sack1\" (ns-2's Sack1 ECN response is not modelled); \
                 use recovery = \"sack\" or ecn = false",
            ));
        }
        if cfg.pacing != PacingKind::None {
            return Err(ConfigError::new(
                p("pacing"),
                "only \"none\" is allowed with recovery = \"sack1\" (ns-2's Sack1 sends in bursts)",
            ));
        }
        // it keeps its own send state: Linux's handshake is the generic
        // sender's (ns-2's own SYN, segment 0 of its data, is allowed)
        if cfg.syn == crate::scenario::kinds::Syn::Linux {
            return Err(ConfigError::new(
                p("syn"),
                "\"linux\" is not supported with recovery = \"sack1\" (ns-2's Sack1 agent keeps its own send \
                 state); use syn = \"ns2\" or \"none\", or recovery = \"sack\"",
            ));
        }
    }
    if cfg.recovery == Recovery::Sack1 && f.txqueuelen_pkts.is_some() {
        return Err(ConfigError::new(
            p("txqueuelen_pkts"),
            "not supported with recovery = \"sack1\" (ns-2's Sack1 agent has no local congestion); \
             use recovery = \"sack\"",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, Packet, TcpHeader, L4};
    use crate::transport::SenderAgent;

    /// A Sack1 sender (ns-2 mode, Reno) on a one-link network whose events
    /// are never run: the test plays the receiver and reads what was sent.
    fn sender(init_cwnd: f64) -> (TcpSender, Net) {
        sender_jitter(init_cwnd, 0.0)
    }

    /// The same, with `send_jitter_s` (ns-2 `overhead_`).
    fn sender_jitter(init_cwnd: f64, jitter: f64) -> (TcpSender, Net) {
        let spec = serde_json::json!({
            "recovery": "sack1", "rtt_estimator": "ns2", "ns2_bugfix": true, "halve_on_repeated_rto": true,
            "init_cwnd_pkts": init_cwnd, "init_ssthresh_pkts": init_cwnd, "ns2_boot_time_s": 0.0,
            "send_jitter_s": jitter
        });
        TcpSender::on_test_link(spec, None, 1)
    }

    /// Deliver an ACK (cumulative `ack`, next expected; SACK `blocks`) at
    /// `t` seconds; the segments sent in response.
    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, blocks: &[(u64, u64)]) -> Vec<u64> {
        net.now = crate::sim::time::from_secs(t);
        let mut h = TcpHeader { ack, ..Default::default() };
        for &b in blocks {
            h.push_sack(b);
        }
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
        let before = s.x().trace.as_ref().unwrap().len();
        s.on_packet(net, &pkt);
        s.x().trace.as_ref().unwrap()[before..].iter().map(|r| r.seq).collect()
    }

    fn state(s: &TcpSender) -> &Sack1 {
        match &s.strategy {
            super::super::Strategy::Sack1(k) => k,
            _ => unreachable!(),
        }
    }

    /// Segments 0..4 acknowledged one by one, then 5 lost: three
    /// duplicates carrying new SACK information start recovery.
    fn into_recovery() -> (TcpSender, Net, f64) {
        let (mut s, mut net) = sender(20.0);
        assert_eq!(s.x().trace.as_ref().unwrap().len(), 20, "the initial window");
        for a in 1..=5 {
            // congestion avoidance: one new segment per ACK (cwnd < 21)
            assert_eq!(ack(&mut s, &mut net, 0.1, a, &[]), vec![19 + a]);
        }
        // duplicates 1 and 2: Limited Transmit (send_one), one each
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, 7)]), vec![25]);
        // a duplicate saying nothing new is not counted and sends nothing
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, 7)]), Vec::<u64>::new());
        assert_eq!(state(&s).dupacks, 1);
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, 8)]), vec![26]);
        let w = s.st.cwnd;
        // the third: only the retransmission
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, 9)]), vec![5]);
        (s, net, w)
    }

    /// ns-2 `overhead_` in `Sack1TcpAgent::send_much`: every send_much(0)
    /// waits for one delayed send (armed only while the window is open);
    /// `send_one` (Limited Transmit) and `dupack_action`'s retransmission
    /// call `output` directly; the timeout's go-back-N goes through
    /// send_much(0), so it is delayed too.
    #[test]
    fn send_jitter_delays_send_much_but_not_send_one_or_the_fast_retransmission() {
        let j = 0.05;
        let (mut s, mut net) = sender_jitter(20.0, j);
        assert!(s.x().trace.as_ref().unwrap().is_empty(), "open: only the delayed send is armed");
        assert_eq!(s.fire_delsnd(&mut net), (0..20).collect::<Vec<_>>());
        // ACKs 1..5 at 0.1: the first arms, the others wait; one burst
        for a in 1..=5 {
            assert!(ack(&mut s, &mut net, 0.1, a, &[]).is_empty());
        }
        let d = s.delsnd_timer().deadline().expect("armed");
        assert!(d >= crate::sim::time::from_secs(0.1) && d < crate::sim::time::from_secs(0.1 + j));
        assert_eq!(s.fire_delsnd(&mut net), (20..25).collect::<Vec<_>>());
        // duplicates: send_one at once, then the fast retransmission at once
        assert_eq!(ack(&mut s, &mut net, 0.2, 5, &[(6, 7)]), vec![25]);
        assert_eq!(ack(&mut s, &mut net, 0.2, 5, &[(6, 8)]), vec![26]);
        assert_eq!(ack(&mut s, &mut net, 0.2, 5, &[(6, 9)]), vec![5]);
        // pipe 19 >= cwnd: the window is shut, so no delayed send is armed
        assert!(!s.delsnd_timer().is_armed());
        // the timeout: go-back-N from highest_ack + 1, after the delay
        net.now = crate::sim::time::from_secs(3.5);
        let before = s.x().trace.as_ref().unwrap().len();
        s.on_rto(&mut net);
        assert_eq!(s.x().trace.as_ref().unwrap().len(), before);
        assert_eq!(s.fire_delsnd(&mut net), vec![5]);
    }

    #[test]
    fn numdupacks_frac_raises_the_threshold_and_the_pipe_at_large_windows() {
        // ns-2 numdupacksFrac_ 4: a 20-segment window needs 20 / 4 = 5
        // duplicates; Limited Transmit sends one for each before the fifth
        let spec = serde_json::json!({
            "recovery": "sack1", "rtt_estimator": "ns2", "ns2_bugfix": true, "halve_on_repeated_rto": true,
            "init_cwnd_pkts": 20.0, "init_ssthresh_pkts": 20.0, "ns2_boot_time_s": 0.0, "dupthresh_frac": 4
        });
        let (mut s, mut net) = TcpSender::on_test_link(spec, None, 1);
        for a in 1..=5 {
            assert_eq!(ack(&mut s, &mut net, 0.1, a, &[]), vec![19 + a]);
        }
        let w = s.st.cwnd;
        assert!(w > 20.0 && w < 21.0, "{w}");
        for (e, sent) in (7..11).zip(25..) {
            assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, e)]), vec![sent], "duplicate {}", e - 6);
        }
        assert!(!state(&s).fastrecov);
        // the fifth: the retransmission; pipe = maxseq - highest_ack - 5 = 28 - 4 - 5
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(6, 11)]), vec![5]);
        let k = state(&s);
        assert!(k.fastrecov);
        assert_eq!((k.pipe, k.recover), (19, 28));
        // a small window keeps dupthresh (3 > int(cwnd) / 4 once cwnd < 16)
        let spec = serde_json::json!({"recovery": "sack1", "init_cwnd_pkts": 8.0, "dupthresh_frac": 4});
        let (s, _) = TcpSender::on_test_link(spec, None, 1);
        assert_eq!(s.numdupacks(), 3);
    }

    #[test]
    fn fast_retransmit_halves_the_unrounded_window_without_inflation() {
        let (s, _, w) = into_recovery();
        assert!(w > 20.0 && w < 21.0, "{w}");
        assert_eq!(s.st.cwnd, w / 2.0, "cwnd = windowd()/2, not rounded");
        assert_eq!(s.st.ssthresh, (w / 2.0).floor());
        let k = state(&s);
        assert!(k.fastrecov);
        // pipe = maxseq - highest_ack - numdupacks = 26 - 4 - 3
        assert_eq!((k.pipe, k.recover, k.highest_ack, k.last_ack), (19, 26, 4, 4));
    }

    #[test]
    fn recovery_sends_while_pipe_is_below_cwnd_then_bursts_at_the_exit() {
        let (mut s, mut net, _) = into_recovery();
        // every further duplicate takes one from pipe (19 -> 10) without sending
        for e in 10..19 {
            assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(6, e)]), Vec::<u64>::new());
        }
        assert_eq!(state(&s).pipe, 10);
        // below floor(cwnd) = 10: new data, bounded by rwnd and not by cwnd
        assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(6, 19)]), vec![27]);
        assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(6, 20)]), vec![28]);
        // a partial ACK: pipe -1 for the ACK and -1 more, so two leave;
        // last_ack (the window's base) stays
        assert_eq!(ack(&mut s, &mut net, 0.13, 26, &[]), vec![29, 30]);
        let k = state(&s);
        assert_eq!((k.pipe, k.highest_ack, k.last_ack), (10, 25, 4));
        assert!(s.st.cwnd < 11.0);
        // the full ACK: out of recovery with cwnd unchanged, the window now
        // measured from the new ACK: floor(cwnd) segments leave at once
        let cwnd = s.st.cwnd;
        let burst = ack(&mut s, &mut net, 0.14, 31, &[]);
        assert!(!state(&s).fastrecov);
        assert_eq!(s.st.cwnd, cwnd, "no deflation, no increase on the exit ACK");
        assert_eq!(burst, (31..31 + cwnd.floor() as u64).collect::<Vec<_>>());
    }

    #[test]
    fn every_hole_below_the_highest_sack_is_retransmitted_before_new_data() {
        let (mut s, mut net, _) = into_recovery();
        for e in 10..19 {
            ack(&mut s, &mut net, 0.12, 5, &[(6, e)]);
        }
        // 19, 20 lost as well: a block above them reveals both holes, which
        // go before new data although only one SACKed segment lies above
        // (RFC 6675's IsLost() would need three)
        assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(21, 22), (6, 19)]), vec![19]);
        assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(21, 23), (6, 19)]), vec![20]);
        assert_eq!(ack(&mut s, &mut net, 0.12, 5, &[(21, 24), (6, 19)]), vec![27]);
    }

    #[test]
    fn timeout_clears_the_scoreboard_and_goes_back_n_over_sacked_segments() {
        let (mut s, mut net) = sender(20.0);
        // 0..4 acknowledged at once; 5 and 6 lost, 7..9 SACKed by two
        // duplicates (Limited Transmit sends 25 and 26)
        assert_eq!(ack(&mut s, &mut net, 0.1, 5, &[]), vec![20, 21, 22, 23, 24]);
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(7, 8)]), vec![25]);
        assert_eq!(ack(&mut s, &mut net, 0.11, 5, &[(7, 10)]), vec![26]);
        let w = s.st.cwnd;
        net.now = crate::sim::time::from_secs(3.5);
        s.on_rto(&mut net);
        assert_eq!(s.x().trace.as_ref().unwrap().last().unwrap().seq, 5);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.stats.timeouts), (1.0, (w / 2.0).floor(), 1));
        let k = state(&s);
        assert!(k.timeout && !k.fastrecov && k.recover == 26);
        // duplicates before the next new ACK are ignored, SACKs and all
        assert_eq!(ack(&mut s, &mut net, 3.6, 5, &[(7, 11)]), Vec::<u64>::new());
        assert_eq!(state(&s).dupacks, 0);
        // the retransmission of 5 is ACKed: slow start from 6 in order,
        // 7 again although the receiver SACKed it (RFC 6675 §5.1 would not)
        assert_eq!(ack(&mut s, &mut net, 3.7, 6, &[(7, 11)]), vec![6, 7]);
        assert_eq!(s.st.cwnd, 2.0);
    }

    /// ns-2's `slowdown` halves ssthresh when `last_cwnd_action_` is
    /// TIMEOUT, but Sack1's `dupack_action` sets DUPACK first, so the
    /// first fast retransmission after a timeout takes HighSpeed's own
    /// decrease for ssthresh too, not half the window.
    #[test]
    fn first_fast_retransmit_after_a_timeout_takes_the_controllers_decrease() {
        let spec = serde_json::json!({
            "recovery": "sack1", "cc": "hstcp", "rtt_estimator": "ns2", "ns2_bugfix": true,
            "init_cwnd_pkts": 400.0, "init_ssthresh_pkts": 400.0, "ns2_boot_time_s": 0.0
        });
        let (mut s, mut net) = TcpSender::on_test_link(spec, None, 1);
        net.now = crate::sim::time::from_secs(3.5);
        s.on_rto(&mut net);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 200.0), "the timeout halves");
        // slow start to 200, then congestion avoidance past `recover_`
        // (400), one segment acknowledged at a time
        for a in 1..=410 {
            ack(&mut s, &mut net, 3.6, a, &[]);
        }
        let w = s.st.cwnd;
        assert!(w > 200.0 && w < 220.0, "{w}");
        for n in 2..=4 {
            ack(&mut s, &mut net, 3.7, 410, &[(411, 410 + n)]);
        }
        assert_eq!(state(&s).dupacks, 3);
        assert!(state(&s).fastrecov);
        // HighSpeed's b(w) at about 200 segments is 0.41: (1 - b)·w, not w/2
        assert!(s.st.cwnd > 0.55 * w && s.st.cwnd < 0.65 * w, "{} of {w}", s.st.cwnd);
        assert_eq!(s.st.ssthresh, s.st.cwnd.floor());
    }

    #[test]
    fn scoreboard_counts_only_new_sack_information() {
        let mut sb = Ns2ScoreBoard::new();
        sb.update(9, [(11, 12)]);
        assert!(sb.changed());
        sb.update(9, [(11, 12)]);
        assert!(!sb.changed(), "a repeated block is not a new duplicate ACK");
        sb.update(9, [(11, 13), (11, 12)]);
        assert!(sb.changed());
        assert_eq!(sb.total, 2);
        // the cumulative ACK passing SACKed data is a change
        sb.update(11, []);
        assert!(sb.changed());
        assert_eq!(sb.total, 1);
    }

    /// The board against its definition on random block streams: the
    /// SACKed set, its size, and GetNextRetran as "the first segment at or
    /// above max(cursor, sack_min) that is not SACKed and has a SACKed
    /// segment above it".
    #[test]
    fn scoreboard_matches_its_definition_under_random_blocks() {
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeSet;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut sb = Ns2ScoreBoard::new();
        let (mut set, mut cursor, mut sack_min) = (BTreeSet::new(), -1i64, -1i64);
        let mut ack = -1i64;
        for round in 0..3000 {
            match rng.gen_range(0..10) {
                0 => {
                    sb.clear();
                    set.clear();
                    cursor = -1;
                }
                1..=2 => ack += rng.gen_range(0..4),
                _ => {}
            }
            let blocks: Vec<(i64, i64)> = (0..rng.gen_range(0..4))
                .map(|_| {
                    let l = ack + rng.gen_range(2..40);
                    (l, l + rng.gen_range(1..6))
                })
                .collect();
            let old = set.len();
            // CheckUpdate: the ACK advanced over a non-empty board, or the
            // SACKed total changed
            let advanced = sack_min <= ack && !set.is_empty();
            sb.update(ack, blocks.iter().copied());
            if sack_min <= ack {
                sack_min = ack + 1;
                set.retain(|&x| x >= sack_min);
            }
            for &(l, r) in &blocks {
                set.extend(l..r);
            }
            assert_eq!(sb.total, set.len() as i64, "round {round}");
            assert_eq!(sb.changed(), advanced || set.len() != old, "round {round}");
            let from = cursor.max(sack_min);
            let want =
                set.iter().next_back().and_then(|&top| (from..top).find(|x| !set.contains(x))).filter(|&h| h > 0);
            let got = sb.next_retran();
            assert_eq!(got, want, "round {round}: cursor {cursor} sack_min {sack_min} set {set:?}");
            cursor = cursor.max(from).max(got.unwrap_or(i64::MIN));
            if let Some(h) = got {
                if rng.gen_bool(0.7) {
                    sb.mark_retran(h);
                    cursor = cursor.max(h + 1);
                }
            }
        }
    }

    #[test]
    fn next_retran_walks_every_hole_below_the_highest_sack_once() {
        let mut sb = Ns2ScoreBoard::new();
        // cumulative ACK 9 (10 missing), SACKed 11, 13-14
        sb.update(9, [(11, 12), (13, 15)]);
        assert_eq!(sb.next_retran(), Some(10));
        sb.mark_retran(10);
        assert_eq!(sb.next_retran(), Some(12));
        sb.mark_retran(12);
        // above the highest SACKed block there is no hole
        assert_eq!(sb.next_retran(), None);
        // a new block above reveals 15, 16
        sb.update(9, [(17, 18)]);
        assert_eq!(sb.next_retran(), Some(15));
        sb.mark_retran(15);
        assert_eq!(sb.next_retran(), Some(16));
        sb.mark_retran(16);
        assert_eq!(sb.next_retran(), None);
        // clearing forgets the cursor too
        sb.clear();
        assert_eq!(sb.next_retran(), None);
        sb.update(9, [(11, 12)]);
        assert_eq!(sb.next_retran(), Some(10));
    }
}
