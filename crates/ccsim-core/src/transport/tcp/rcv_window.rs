//! Linux's receive-window growth and receive-buffer autotuning, as far as
//! they decide when a receiver that delays ACKs answers at once
//! (`delack_model = "linux"`, with [`super::delack`]).
//!
//! A Linux receiver offers at most `rcv_ssthresh`, and raises it by two
//! segments for each full segment received while there is room under the
//! window clamp and the free receive buffer (`tcp_grow_window`,
//! net/ipv4/tcp_input.c). Every raise also sets `icsk_ack.quick |= 1`, so
//! that segment is ACKed at once, not with the next one. The room opens
//! when the application's reads show the sender sending more per round
//! trip than before: once per receiver RTT the bytes read in the last one
//! are compared with the round before, and the buffer is resized to twice
//! them plus twice their growth (`tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`:
//! Dynamic Right-Sizing, Fisk and Feng 2001). So through slow start a Linux
//! receiver ACKs most segments at once: at 10 Mb/s its ACKs come 1.2 ms
//! apart instead of 2.4 ms, inside HyStart's 2 ms ACK train
//! (`hystart_ack_delta_us`), which then ends slow start before a loss.
//!
//! The receiver's RTT (`tcp_rcv_rtt_measure_ts`) comes from the timestamps
//! option: each data segment echoes the TSval of the latest ACK its sender
//! had received ([`crate::net::packet::TcpHeader::tsecr`]); a sample is the
//! difference of the two ends' millisecond timestamp clocks, a smaller one
//! replaces the estimate, a larger one enters at 1/8. The TSval counts
//! milliseconds, so the ACKs a receiver sends within one millisecond echo
//! one value and give one sample (`rcv_rtt_last_tsecr`), and where the
//! clock's ticks fall (`ts_clock_phase_s`) decides whether a delay of
//! 80.5 ms reads 80 or 81: through slow start these samples time the
//! buffer's measurements, and so where the quick ACKs end. The time to receive
//! one offered window is a sample too, which only lowers the estimate
//! (`tcp_rcv_rtt_measure`): below a millisecond it is the only one.
//!
//! Modelled with the kernel's byte arithmetic (Linux 6.18, checked against
//! its `tcp:tcp_rcvbuf_grow` tracepoint on the kernel peer): the defaults
//! `tcp_rmem` = 4096 131072 33554432 and `tcp_moderate_rcvbuf` = 1; the
//! window a buffer gives, `tcp_win_from_space`, at the ratio of a
//! segment's payload to its `truesize` (`scaling_ratio`), the latter what
//! a 1500-byte frame costs received through TUN or veth (2304 bytes:
//! [`truesize`]); the data the application has not read yet and the data
//! above a hole in the buffer ([`super::receiver::reader`]: by default the
//! application reads at each arrival). Not modelled, and why: the offered window
//! as a limit on the sender (the buffer grows ahead of a slow-starting
//! sender by design, and the flow's `rwnd_pkts` stays the limit); the
//! window-update ACK a read can send (`tcp_cleanup_rbuf`, only when the
//! offered window could double, which growth by two segments per segment
//! pre-empts); memory pressure.
use crate::sim::Time;

/// `tcp_rmem[1]`: a socket's initial receive buffer.
pub const RMEM_DEFAULT: u32 = 131_072;
/// `tcp_rmem[2]`: the most autotuning gives it.
pub const RMEM_MAX: u32 = 33_554_432;
/// `TCP_RMEM_TO_WIN_SCALE`: `scaling_ratio` is in 1/256.
const WIN_SCALE: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO`, before the first segment is measured.
const DEFAULT_SCALING_RATIO: u32 = 1 << (WIN_SCALE - 1);
/// `TCP_INIT_CWND`: the first round's expected bytes are ten segments.
const INIT_CWND: u32 = 10;
/// `tcp_event_data_recv`: smaller segments do not grow the window.
const GROW_MIN_LEN: u32 = 128;
/// One millisecond: the timestamp clock's tick (`TCP_TS_HZ`).
const MS: Time = 1_000_000_000;
/// One microsecond, the unit of the receiver's RTT.
const US: Time = 1_000_000;
/// `rcv_wscale`: the window scale `tcp_select_initial_window` gives for a
/// buffer that may grow to `tcp_rmem[2]` (ilog2(32 MB) - 15); an offered
/// window is a multiple of 1 << 10 bytes.
const RCV_WSCALE: u32 = RMEM_MAX.ilog2() - 15;

/// The window the SYN-ACK offers, `rcv_wnd` until the first ACK: the
/// initial buffer's at the default ratio, a multiple of the MSS
/// (`tcp_select_initial_window`).
pub fn initial_window(mss: u32) -> u32 {
    let mss = mss.max(1);
    let full = win_from_space(RMEM_DEFAULT, DEFAULT_SCALING_RATIO);
    if full > mss {
        full / mss * mss
    } else {
        full
    }
}

/// What one received segment of `payload` bytes costs the receive buffer
/// (`skb->truesize`): its frame, the driver's headroom and the shared
/// info, in a power-of-two allocation, plus the `sk_buff` (256 bytes).
/// A 1448-byte segment costs 2304, as the kernel peer's TUN receiver
/// measured (`scaling_ratio` 160).
pub fn truesize(payload: u32) -> u32 {
    // IPv4 + TCP with timestamps, NET_SKB_PAD, skb_shared_info
    (payload + 52 + 64 + 320).next_power_of_two() + 256
}

/// One receiver's window and buffer state, in bytes as the kernel keeps it.
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    /// The advertised MSS (`advmss`), the window grows by two of them.
    mss: u32,
    /// `scaling_ratio`: window bytes per 256 buffer bytes.
    ratio: u32,
    /// What one queued segment costs the free window.
    seg_cost: u32,
    rcv_ssthresh: u32,
    window_clamp: u32,
    /// `sk_rcvbuf`.
    rcvbuf: u32,
    /// `rcvq_space.space`: the bytes read in the last measured RTT.
    space: u32,
    /// `rcvq_space.seq`, `rcvq_space.time`: where that measurement began;
    /// the time is set at the first segment (the connection's start).
    rcvq_seq: u64,
    rcvq_time: Option<Time>,
    /// `rcv_rtt_est.rtt_us`, in 1/8 µs (0: no sample yet).
    rtt_us8: u64,
    /// `rcv_rtt_last_tsecr`: one sample per echoed TSval, in ms (none
    /// yet: `Time::MAX`).
    last_tsecr_ms: Time,
    /// Where the millisecond clock ticks: it reads (t + phase) / 1 ms
    /// (ps, under 1 ms: a `u32` keeps the state in 96 bytes).
    clock_phase: u32,
    /// `rcv_rtt_est.seq`, `rcv_rtt_est.time`: the byte a window beyond
    /// where the last window-based sample began, and when.
    est_seq: u64,
    est_time: Option<Time>,
}

impl LinuxRcvWindow {
    /// The state after the handshake (`tcp_select_initial_window`,
    /// `tcp_init_buffer_space`) and the first full segment, whose measured
    /// `scaling_ratio` re-derives the clamp from the buffer
    /// (`tcp_measure_rcv_mss` -> `tcp_set_window_clamp`).
    pub fn new(mss: u32, clock_phase: Time) -> Self {
        let mss = mss.max(1);
        let full = win_from_space(RMEM_DEFAULT, DEFAULT_SCALING_RATIO);
        let rcv_wnd = initial_window(mss);
        // one segment held back from the full space ("force reservation")
        let clamp0 = if full > 2 * mss { (2 * mss).max(full - mss) } else { full };
        let ssthresh0 = rcv_wnd.min(clamp0);
        let space = ssthresh0.min(rcv_wnd).min(INIT_CWND * mss);
        let ts = truesize(mss);
        let ratio = ((mss << WIN_SCALE) / ts).max(1);
        // tcp_set_window_clamp: a larger clamp lets rcv_ssthresh rise to the
        // offered window, a smaller one caps it
        let window_clamp = win_from_space(RMEM_DEFAULT, ratio);
        let rcv_ssthresh =
            if window_clamp >= clamp0 { rcv_wnd.min(window_clamp).max(ssthresh0) } else { ssthresh0.min(window_clamp) };
        LinuxRcvWindow {
            mss,
            ratio,
            seg_cost: win_from_space(ts, ratio),
            rcv_ssthresh,
            window_clamp,
            rcvbuf: RMEM_DEFAULT,
            space: space.min(window_clamp),
            rcvq_seq: 0,
            rcvq_time: None,
            rtt_us8: 0,
            last_tsecr_ms: Time::MAX,
            clock_phase: u32::try_from(clock_phase % MS).unwrap_or(0),
            est_seq: 0,
            est_time: None,
        }
    }

    /// `tcp_rcv_rtt_measure_ts`: a data segment of `len` bytes echoing
    /// `tsecr` arrived at `now`; `queue_empty`: the application had read
    /// everything before it (`tcp_rcv_rtt_update` takes a larger sample
    /// only then: "Do not use this sample if receive queue is not empty",
    /// Linux 6.16).
    pub fn on_segment(&mut self, now: Time, tsecr: Time, len: u32, queue_empty: bool) {
        // the echoed TSval is this host's millisecond clock: ACKs sent within
        // one millisecond echo the same value and give one sample
        let ts_ms = (tsecr + self.clock_phase as Time) / MS;
        if tsecr == 0 || ts_ms == self.last_tsecr_ms {
            return;
        }
        self.last_tsecr_ms = ts_ms;
        if len < self.mss {
            return;
        }
        let delta_ms = ((now + self.clock_phase as Time) / MS).saturating_sub(ts_ms);
        if delta_ms == 0 {
            return;
        }
        // tcp_rcv_rtt_update(tp, sample, 0)
        let sample_us = delta_ms * (MS / US);
        let m = sample_us << 3;
        if self.rtt_us8 == 0 || m < self.rtt_us8 {
            self.rtt_us8 = m;
        } else if queue_empty {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        }
    }

    /// An in-order segment of `len` bytes arrived with `queued` segments in
    /// the receive buffer, itself and any data above a hole
    /// (`tcp_event_data_recv` -> `tcp_grow_window`): whether the window
    /// grew, so the segment is ACKed at once.
    pub fn on_in_order(&mut self, now: Time, len: u32, queued: u64, rcv_nxt: u64) -> bool {
        self.rcvq_time.get_or_insert(now);
        self.measure_window_rtt(now, rcv_nxt);
        len >= GROW_MIN_LEN && self.grow_window(len, queued)
    }

    /// `tcp_rcv_rtt_measure`: without a timestamp sample finer than the
    /// clock's millisecond (an RTT below it gives none), the time to
    /// receive one offered window (`rcv_ssthresh` here) bounds the RTT;
    /// such a sample only ever lowers the estimate. `rcv_nxt`: the bytes
    /// received in order.
    fn measure_window_rtt(&mut self, now: Time, rcv_nxt: u64) {
        if let Some(t0) = self.est_time {
            if rcv_nxt < self.est_seq {
                return;
            }
            let m = ((now - t0) / US).max(1) << 3;
            if self.rtt_us8 == 0 || m < self.rtt_us8 {
                self.rtt_us8 = m;
            }
        }
        self.est_seq = rcv_nxt + self.rcv_ssthresh as u64;
        self.est_time = Some(now);
    }

    /// A segment of `len` bytes was queued above a hole, with `queued`
    /// segments there before it and `span` bytes from the next expected
    /// byte to the highest held (`tcp_data_queue_ofo`: with SACK the window
    /// grows as for an in-order segment, and the buffer is resized to hold
    /// the span, `tcp_rcvbuf_grow` with the last measurement).
    pub fn on_out_of_order(&mut self, len: u32, queued: u64, span: u64) -> bool {
        let grew = self.grow_window(len, queued);
        self.rcvbuf_grow(self.space, span);
        grew
    }

    /// The application has read up to `read` bytes at `now`, `inq` bytes
    /// more still queued in order and `span` bytes above a hole held
    /// (`tcp_rcv_space_adjust`, once per receiver RTT). The bytes still
    /// queued do not count ("tcp: add receive queue awareness in
    /// tcp_rcv_space_adjust()", Linux 6.18: `copied -= inq`): an
    /// application that lags behind asks no larger buffer.
    pub fn on_read(&mut self, now: Time, read: u64, inq: u64, span: u64) {
        let Some(since) = self.rcvq_time else { return };
        if self.rtt_us8 == 0 || (now - since) / US < self.rtt_us8 >> 3 {
            return;
        }
        let copied = (read - self.rcvq_seq).saturating_sub(inq);
        if copied > self.space as u64 {
            self.rcvbuf_grow(u32::try_from(copied).unwrap_or(u32::MAX), span);
        }
        self.rcvq_seq = read;
        self.rcvq_time = Some(now);
    }

    /// `tcp_grow_window`: two segments more while there is room under the
    /// clamp and the free buffer.
    fn grow_window(&mut self, len: u32, queued: u64) -> bool {
        let held = u32::try_from(queued).unwrap_or(u32::MAX).saturating_mul(self.seg_cost);
        let free = self.rcvbuf_window().saturating_sub(held);
        let room = self.window_clamp.min(free).saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return false;
        }
        // tcp_win_from_space(truesize) <= len: the cheap case, 2 * advmss
        let incr = (2 * self.mss).max(2 * len);
        self.rcv_ssthresh += room.min(incr);
        true
    }

    /// `tcp_rcvbuf_grow(sk, newval)`: DRS is one RTT late, so twice the
    /// last RTT's bytes, plus twice their growth for a sender in slow
    /// start, plus the data above a hole.
    fn rcvbuf_grow(&mut self, newval: u32, span: u64) {
        let old = self.space.max(1) as u64;
        self.space = newval;
        let mut rcvwin = (newval as u64) << 1;
        let grow = rcvwin * (newval as u64).saturating_sub(old) / old;
        rcvwin += (grow << 1) + span;
        let rcvbuf = ((rcvwin << WIN_SCALE) / self.ratio as u64).min(RMEM_MAX as u64) as u32;
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(rcvbuf, self.ratio);
        }
    }

    fn rcvbuf_window(&self) -> u32 {
        win_from_space(self.rcvbuf, self.ratio)
    }

    /// `__tcp_select_window` with `queued` segments in the buffer (unread
    /// or above a hole): the free window, at most `rcv_ssthresh`, rounded
    /// up to the window scale's unit. Below half the full window it is
    /// rounded down instead, and under a 16th of the buffer or one segment
    /// it is zero. (Its side effect there, ending quick ACKs, is not
    /// modelled: it takes half the buffer unread.)
    pub fn select(&self, queued: u64) -> u32 {
        let held = u32::try_from(queued).unwrap_or(u32::MAX).saturating_mul(self.seg_cost);
        let allowed = self.rcvbuf_window();
        let mut free = allowed.saturating_sub(held);
        if free < self.window_clamp.min(allowed) >> 1 {
            free &= !((1 << RCV_WSCALE) - 1);
            if free < allowed >> 4 || free < self.mss {
                return 0;
            }
        }
        free.min(self.rcv_ssthresh).next_multiple_of(1 << RCV_WSCALE)
    }

    /// `tcp_select_window`: the window an ACK offers with `queued`
    /// segments in the buffer, never less than `left`, what remains of the
    /// last offer (rounded up to the scale's unit).
    pub fn offer(&self, queued: u64, left: u32) -> u32 {
        let new = self.select(queued);
        if new < left {
            left.next_multiple_of(1 << RCV_WSCALE)
        } else {
            new
        }
    }

    /// `rcv_ssthresh`, bytes.
    /// `rcv_rtt_est.rtt_us`, in 1/8 µs (0: no sample yet).
    pub fn rtt_us8(&self) -> u64 {
        self.rtt_us8
    }

    pub fn rcv_ssthresh(&self) -> u32 {
        self.rcv_ssthresh
    }

    /// `window_clamp`, bytes.
    pub fn window_clamp(&self) -> u32 {
        self.window_clamp
    }
}

/// `tcp_win_from_space`: the window `space` buffer bytes give.
fn win_from_space(space: u32, ratio: u32) -> u32 {
    ((space as u64 * ratio as u64) >> WIN_SCALE) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel peer's receiver (Linux 6.18, 1448-byte segments through
    /// TUN): `tcp:tcp_rcvbuf_grow` showed scaling_ratio 160, rcvbuf 131072,
    /// window_clamp 81920 and rcv_ssthresh 80480 at the first measurement.
    /// 96 bytes, boxed per flow with the delayed-ACK state.
    #[test]
    fn the_state_stays_small() {
        assert!(std::mem::size_of::<LinuxRcvWindow>() <= 96, "{}", std::mem::size_of::<LinuxRcvWindow>());
    }

    /// Below a millisecond the timestamps give no sample; the time to
    /// receive one offered window does, and only lowers the estimate.
    #[test]
    fn a_window_received_is_an_rtt_sample() {
        let us = US;
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.on_in_order(100 * us, 1448, 1, 1448);
        w.on_segment(300 * us, 150 * us, 1448, true);
        assert_eq!(w.rtt_us8, 0, "0 ms between the timestamp clocks: no sample");
        // the offered window (65160 bytes) is received 400 us later
        w.on_in_order(300 * us, 1448, 1, 30_000);
        assert_eq!(w.rtt_us8, 0);
        w.on_in_order(500 * us, 1448, 1, 1448 + 80_480);
        assert_eq!(w.rtt_us8 >> 3, 400);
        // a longer one does not raise it
        w.on_in_order(2_000 * us, 1448, 1, 400_000);
        assert_eq!(w.rtt_us8 >> 3, 400);
    }

    #[test]
    fn the_initial_state_is_the_kernels() {
        assert_eq!(truesize(1448), 2304);
        let w = LinuxRcvWindow::new(1448, 0);
        assert_eq!((w.ratio, w.window_clamp, w.rcv_ssthresh, w.space), (160, 81_920, 65_160, 14_480));
    }

    /// From the first segment the window grows to the free buffer (the
    /// clamp less the queued segment): six quick ACKs, to 80480.
    #[test]
    fn the_window_grows_two_segments_per_segment_to_the_free_buffer() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        let grew: Vec<bool> = (0..8).map(|i| w.on_in_order(i * MS, 1448, 1, (i + 1) * 1448)).collect();
        assert_eq!(grew, [true, true, true, true, true, true, false, false]);
        assert_eq!(w.rcv_ssthresh(), 80_480);
        // small segments do not grow it
        let mut s = LinuxRcvWindow::new(1448, 0);
        assert!(!s.on_in_order(0, 100, 1, 100));
        // 1000-byte segments (truesize 2304, ratio 111): the measured ratio
        // shrinks the clamp below the initial window, no room to grow
        let mut k = LinuxRcvWindow::new(1000, 0);
        assert_eq!((k.ratio, k.window_clamp(), k.rcv_ssthresh()), (111, 56_832, 56_832));
        assert!(!k.on_in_order(0, 1000, 1, 1000));
    }

    /// The trace's second and third measurements: 30408 bytes read against
    /// 15928 sets the clamp to 171390 (twice 30408 plus twice the growth);
    /// 39096 against 30408 asks less and changes nothing.
    #[test]
    fn drs_sizes_the_buffer_from_the_last_rounds_reads() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.space = 15_928;
        w.rcvbuf_grow(30_408, 0);
        assert_eq!((w.rcvbuf, w.window_clamp), (274_224, 171_390));
        w.rcvbuf_grow(39_096, 0);
        assert_eq!((w.rcvbuf, w.window_clamp, w.space), (274_224, 171_390, 39_096));
        // the free window is the clamp less the queued segment's cost
        assert_eq!(w.rcvbuf_window() - w.seg_cost, 169_950);
    }

    #[test]
    fn measurements_wait_one_receiver_rtt_and_a_sample() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.on_in_order(0, 1448, 1, 1448);
        // no RTT sample yet: no measurement
        w.on_read(100 * MS, 1_000_000, 0, 0);
        assert_eq!(w.space, 14_480);
        // a segment echoing a TSval 20 ms old: a 20 ms sample
        w.on_segment(120 * MS, 100 * MS, 1448, true);
        assert_eq!(w.rtt_us8 >> 3, 20_000);
        // the same TSval again: no second sample
        w.on_segment(150 * MS, 100 * MS, 1448, true);
        assert_eq!(w.rtt_us8 >> 3, 20_000);
        // a larger sample enters at 1/8, a smaller one replaces it
        w.on_segment(160 * MS, 132 * MS, 1448, true);
        assert_eq!(w.rtt_us8, 8 * 20_000 - 20_000 + 28_000);
        w.on_segment(170 * MS, 160 * MS, 1448, true);
        assert_eq!(w.rtt_us8 >> 3, 10_000);
        // a measurement after the RTT: more read than before grows the buffer
        w.on_read(170 * MS, 30_000, 0, 0);
        assert_eq!(w.space, 30_000);
        assert!(w.window_clamp() > 81_920);
        // and within the next RTT none
        w.on_read(175 * MS, 200_000, 0, 0);
        assert_eq!(w.space, 30_000);
    }

    /// The kernel peer's traced read of two segments (Linux 6.18.44,
    /// `tcp:tcp_rcvbuf_grow`): measured after the first, 28960 bytes
    /// since the last measurement with 1448 still queued; the next
    /// measurement's `space` was 27512. A read whose queued rest exceeds
    /// what it took asks nothing but starts the next measurement.
    #[test]
    fn the_bytes_still_queued_do_not_count() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.rtt_us8 = 20_000 << 3;
        w.rcvq_time = Some(0);
        w.rcvq_seq = 10_000;
        w.space = 15_928;
        w.on_read(24 * MS, 10_000 + 28_960, 1448, 0);
        assert_eq!((w.space, w.rcvq_seq), (27_512, 38_960));
        w.on_read(50 * MS, 38_960 + 2896, 100_000, 0);
        assert_eq!((w.space, w.rcvq_seq, w.rcvq_time), (27_512, 41_856, Some(50 * MS)));
    }

    /// A larger sample enters only when the application has read
    /// everything (Linux 6.16 on: an application slow to drain the queue
    /// would otherwise inflate the buffer); a smaller one always does.
    #[test]
    fn a_larger_sample_waits_for_an_empty_queue() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.on_segment(120 * MS, 100 * MS, 1448, true);
        w.on_segment(135 * MS, 110 * MS, 1448, false);
        assert_eq!(w.rtt_us8 >> 3, 20_000, "25 ms with data unread: not taken");
        w.on_segment(140 * MS, 125 * MS, 1448, false);
        assert_eq!(w.rtt_us8 >> 3, 15_000, "a smaller one is");
        w.on_segment(160 * MS, 140 * MS, 1448, true);
        assert_eq!(w.rtt_us8, 8 * 15_000 - 15_000 + 20_000);
    }

    /// The offered window: the free buffer, at most `rcv_ssthresh`, in
    /// units of 1 KB (window scale 10); what an ACK offers never falls
    /// below what is left of the last offer.
    #[test]
    fn the_offered_window_is_the_free_buffer_in_scale_units() {
        let w = LinuxRcvWindow::new(1448, 0);
        assert_eq!(RCV_WSCALE, 10);
        // rcv_ssthresh 65160 binds: rounded up to 65536
        assert_eq!(w.select(1), 65_536);
        // 30 segments queued leave 81920 - 30 * 1440 = 38720, under half
        // the clamp: rounded down
        assert_eq!(w.select(30), 37_888);
        assert_eq!(w.select(60), 0, "under a 16th of the buffer: zero");
        assert_eq!(w.offer(30, 50_000), 50_176, "not below what is left of the last offer");
        assert_eq!(w.offer(1, 50_000), 65_536);
    }

    /// The kernel peer's receiver (tcpdump, CUBIC at 50 Mb/s): ACKs sent
    /// 0.24 ms apart carry one TSval per millisecond, so a slow-start round
    /// gives one sample per millisecond, not one per echoed ACK.
    #[test]
    fn one_sample_per_echoed_millisecond() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        w.on_segment(180 * MS, 100 * MS, 1448, true);
        assert_eq!(w.rtt_us8 >> 3, 80_000);
        // echoes of ACKs sent later within the same millisecond: no sample
        w.on_segment(181 * MS + 500 * US, 100 * MS + 400 * US, 1448, true);
        w.on_segment(182 * MS + 500 * US, 100 * MS + 800 * US, 1448, true);
        assert_eq!(w.rtt_us8 >> 3, 80_000);
        // the next millisecond's echo: a sample (82 ms enters at 1/8)
        w.on_segment(183 * MS, 101 * MS, 1448, true);
        assert_eq!(w.rtt_us8, 8 * 80_000 - 80_000 + 82_000);
    }

    /// The clock's phase decides how a delay rounds: 80.5 ms between an
    /// ACK and the data echoing it reads 80 ms or 81 ms by where the
    /// millisecond ticks fall.
    #[test]
    fn the_clock_phase_rounds_the_samples() {
        let sample = |phase| {
            let mut w = LinuxRcvWindow::new(1448, phase);
            w.on_segment(180_700 * US, 100_200 * US, 1448, true);
            w.rtt_us8 >> 3
        };
        assert_eq!(sample(0), 80_000);
        assert_eq!(sample(400 * US), 81_000);
    }

    #[test]
    fn data_above_a_hole_grows_the_buffer_by_its_span() {
        let mut w = LinuxRcvWindow::new(1448, 0);
        let clamp = w.window_clamp();
        w.on_out_of_order(1448, 0, 200 * 1448);
        assert_eq!(w.window_clamp(), 2 * 14_480 + 200 * 1448);
        assert!(w.window_clamp() > clamp);
    }
}
