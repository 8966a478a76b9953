//! The emulated path, event by event, without I/O: packets come in with the
//! time they were read, and come out as writes due at ideal times. The event
//! loop in `main.rs` does the reading, the writing and the clock.
//!
//! Forward (sender → receiver): read at `t_arr`; plus the flow's extra
//! one-way delay (keyed by IPv4 source); the bottleneck ([`DropTail`] after
//! an optional [`BernoulliLoss`]), serialising the IP packet's bytes at the
//! rate; plus the common delay `D_fwd`; written at
//! `t_arr + d_flow + queueing + serialisation + D_fwd`.
//!
//! Reverse (receiver → sender, the ACKs), as a duplex link has it
//! ([`Model::duplex`]): read at `t_arr`; plus the common delay `D_rev`; a
//! bottleneck of its own at the same rate and buffer ([`DropTail`], no
//! random loss); plus the flow's extra delay (keyed by IPv4 destination).
//! This mirrors the forward path (common delay on the receiver's side,
//! the flow's on the sender's) and is what ccsim's and ns-2's dumbbells do:
//! an ACK of some 60 bytes takes about 50 µs at 10 Mb/s. Without `duplex`
//! the ACKs see `D_rev` and the flow's delay only.
//!
//! Every step is an event in one timer heap ordered by (time, sequence), so
//! packets with per-flow delays reach the queue and the TUN in the order of
//! their own ideal times, and ties keep their reading order.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::net::Ipv4Addr;

use serde_json::{json, Value};

use crate::queue::{BernoulliLoss, DropTail, Verdict};
use crate::stats::summary;

/// How often the queue is sampled (10 ms).
pub const SAMPLE_NS: u64 = 10_000_000;

/// The path's parameters (all times in nanoseconds).
#[derive(Debug, Clone)]
pub struct Model {
    pub rate_bps: u64,
    /// Packets that may wait (the one being serialised not counted).
    pub buffer_pkts: usize,
    pub delay_fwd_ns: u64,
    pub delay_rev_ns: u64,
    /// Extra one-way delay per flow, applied in both directions: forward
    /// keyed by the packet's source, reverse by its destination.
    pub flow_delay_ns: HashMap<Ipv4Addr, u64>,
    pub loss: f64,
    pub seed: u64,
    /// The reverse path has its own serialiser and DropTail buffer at
    /// `rate_bps` and `buffer_pkts`: the bottleneck is a duplex link.
    pub duplex: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Fwd,
    Rev,
}

/// Source and destination of an IPv4 packet; `None` for anything else.
pub fn ipv4_addrs(pkt: &[u8]) -> Option<(Ipv4Addr, Ipv4Addr)> {
    if pkt.len() < 20 || pkt[0] >> 4 != 4 {
        return None;
    }
    let a = |i: usize| Ipv4Addr::new(pkt[i], pkt[i + 1], pkt[i + 2], pkt[i + 3]);
    Some((a(12), a(16)))
}

enum Kind {
    /// A forward packet reaching the bottleneck.
    Bottleneck(Box<[u8]>),
    /// A reverse packet reaching the reverse bottleneck ([`Model::duplex`]).
    ReverseBottleneck(Box<[u8]>),
    /// A packet due on the TUN on the far side of `Dir`.
    Write(Dir, Box<[u8]>),
    /// Time to sample the queue.
    Sample,
}

struct Event {
    time: u64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Reversed: `BinaryHeap` is a max-heap and the earliest event must top it.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// A write the loop must do now.
pub struct Due {
    pub dir: Dir,
    pub pkt: Box<[u8]>,
    /// When the model wanted it written.
    pub ideal: u64,
}

/// One arrival at the bottleneck, for replay by a reference queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Ideal arrival time at the queue, ns after the emulator's start.
    pub t_ns: u64,
    pub len: u32,
    pub src: Ipv4Addr,
    /// 0 accepted, 1 dropped by the buffer, 2 dropped by random loss.
    pub verdict: u8,
}

/// Counters and timing of one direction.
#[derive(Debug, Default)]
struct DirStats {
    pkts_in: u64,
    bytes_in: u64,
    non_ipv4: u64,
    dropped_buffer: u64,
    dropped_loss: u64,
    pkts_out: u64,
    bytes_out: u64,
    write_errors: u64,
    last_write_error: Option<String>,
    departures: Vec<Departure>,
}

/// One packet written (or tried) to a TUN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    /// When the model wanted it written, ns after the emulator's start.
    pub ideal_ns: u64,
    /// Time the write began minus the ideal time.
    pub error_ns: i64,
    /// How long `write` took (the receiving stack runs inside it, so it
    /// delays the writes behind it).
    pub write_ns: i64,
    pub len: u32,
}

impl DirStats {
    fn report(&self) -> Value {
        json!({
            "packets_in": self.pkts_in,
            "bytes_in": self.bytes_in,
            "non_ipv4_dropped": self.non_ipv4,
            "dropped_buffer": self.dropped_buffer,
            "dropped_loss": self.dropped_loss,
            "packets_out": self.pkts_out,
            "bytes_out": self.bytes_out,
            "write_errors": self.write_errors,
            "last_write_error": self.last_write_error,
            "timing_error_ns": summary(&mut self.departures.iter().map(|d| d.error_ns).collect::<Vec<_>>()),
            "write_syscall_ns": summary(&mut self.departures.iter().map(|d| d.write_ns).collect::<Vec<_>>()),
        })
    }
}

#[derive(Debug, Default)]
struct Samples {
    t_ns: Vec<u64>,
    waiting_pkts: Vec<usize>,
    waiting_bytes: Vec<usize>,
    in_system_pkts: Vec<usize>,
}

pub struct Engine {
    model: Model,
    t0: u64,
    queue: DropTail,
    /// The reverse bottleneck, if the link is duplex.
    rev_queue: Option<DropTail>,
    loss: BernoulliLoss,
    heap: BinaryHeap<Event>,
    seq: u64,
    fwd: DirStats,
    rev: DirStats,
    samples: Samples,
    arrivals: Vec<Arrival>,
}

impl Engine {
    /// A path starting (empty) at `t0`, the clock's value at start.
    pub fn new(model: Model, t0: u64) -> Engine {
        let mut e = Engine {
            queue: DropTail::new(model.rate_bps, model.buffer_pkts),
            rev_queue: model.duplex.then(|| DropTail::new(model.rate_bps, model.buffer_pkts)),
            loss: BernoulliLoss::new(model.loss, model.seed),
            model,
            t0,
            heap: BinaryHeap::new(),
            seq: 0,
            fwd: DirStats::default(),
            rev: DirStats::default(),
            samples: Samples::default(),
            arrivals: Vec::with_capacity(1 << 20),
        };
        e.push(t0 + SAMPLE_NS, Kind::Sample);
        e
    }

    fn push(&mut self, time: u64, kind: Kind) {
        self.heap.push(Event { time, seq: self.seq, kind });
        self.seq += 1;
    }

    fn flow_delay(&self, addr: Ipv4Addr) -> u64 {
        self.model.flow_delay_ns.get(&addr).copied().unwrap_or(0)
    }

    /// A packet read from the TUN on the `dir` side's origin at `t`.
    pub fn on_read(&mut self, dir: Dir, pkt: Box<[u8]>, t: u64) {
        let stats = match dir {
            Dir::Fwd => &mut self.fwd,
            Dir::Rev => &mut self.rev,
        };
        let Some((src, dst)) = ipv4_addrs(&pkt) else {
            stats.non_ipv4 += 1;
            return;
        };
        stats.pkts_in += 1;
        stats.bytes_in += pkt.len() as u64;
        match dir {
            Dir::Fwd => self.push(t + self.flow_delay(src), Kind::Bottleneck(pkt)),
            Dir::Rev if self.rev_queue.is_some() => {
                self.push(t + self.model.delay_rev_ns, Kind::ReverseBottleneck(pkt))
            }
            Dir::Rev => self.push(t + self.flow_delay(dst) + self.model.delay_rev_ns, Kind::Write(Dir::Rev, pkt)),
        }
    }

    /// When the next event is due, if any.
    pub fn next_deadline(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.time)
    }

    /// Runs the model up to `now` and returns the first write due by then.
    pub fn due_write(&mut self, now: u64) -> Option<Due> {
        while self.heap.peek().is_some_and(|e| e.time <= now) {
            let ev = self.heap.pop().expect("peeked");
            match ev.kind {
                Kind::Write(dir, pkt) => return Some(Due { dir, pkt, ideal: ev.time }),
                Kind::Bottleneck(pkt) => self.bottleneck(ev.time, pkt),
                Kind::ReverseBottleneck(pkt) => self.reverse_bottleneck(ev.time, pkt),
                Kind::Sample => self.sample(ev.time),
            }
        }
        None
    }

    fn bottleneck(&mut self, t: u64, pkt: Box<[u8]>) {
        let src = ipv4_addrs(&pkt).expect("checked on read").0;
        let len = pkt.len();
        let verdict = if self.loss.lose() {
            self.fwd.dropped_loss += 1;
            2
        } else {
            match self.queue.arrive(t, len) {
                Verdict::Accepted { finish } => {
                    self.push(finish + self.model.delay_fwd_ns, Kind::Write(Dir::Fwd, pkt));
                    0
                }
                Verdict::Dropped => {
                    self.fwd.dropped_buffer += 1;
                    1
                }
            }
        };
        self.arrivals.push(Arrival { t_ns: t - self.t0, len: len as u32, src, verdict });
    }

    fn reverse_bottleneck(&mut self, t: u64, pkt: Box<[u8]>) {
        let dst = ipv4_addrs(&pkt).expect("checked on read").1;
        let q = self.rev_queue.as_mut().expect("only queued on a duplex link");
        match q.arrive(t, pkt.len()) {
            Verdict::Accepted { finish } => {
                let at = finish + self.flow_delay(dst);
                self.push(at, Kind::Write(Dir::Rev, pkt));
            }
            Verdict::Dropped => self.rev.dropped_buffer += 1,
        }
    }

    fn sample(&mut self, t: u64) {
        let occ = self.queue.occupancy(t);
        let s = &mut self.samples;
        s.t_ns.push(t - self.t0);
        s.waiting_pkts.push(occ.waiting_pkts);
        s.waiting_bytes.push(occ.waiting_bytes);
        s.in_system_pkts.push(occ.in_system_pkts);
        self.push(t + SAMPLE_NS, Kind::Sample);
    }

    /// The loop wrote (or failed to write) a [`Due`] packet of `len` bytes,
    /// the call spanning `[began, ended]`.
    pub fn record_write(&mut self, due: &Due, began: u64, ended: u64, result: std::io::Result<()>) {
        let s = match due.dir {
            Dir::Fwd => &mut self.fwd,
            Dir::Rev => &mut self.rev,
        };
        s.departures.push(Departure {
            ideal_ns: due.ideal - self.t0,
            error_ns: began as i64 - due.ideal as i64,
            write_ns: ended as i64 - began as i64,
            len: due.pkt.len() as u32,
        });
        match result {
            Ok(()) => {
                s.pkts_out += 1;
                s.bytes_out += due.pkt.len() as u64;
            }
            Err(e) => {
                s.write_errors += 1;
                s.last_write_error = Some(e.to_string());
            }
        }
    }

    /// The arrivals at the bottleneck so far, in time order.
    pub fn arrivals(&self) -> &[Arrival] {
        &self.arrivals
    }

    /// The packets written so far in one direction, in writing order.
    pub fn departures(&self, dir: Dir) -> &[Departure] {
        match dir {
            Dir::Fwd => &self.fwd.departures,
            Dir::Rev => &self.rev.departures,
        }
    }

    /// Counters, timing and queue statistics up to `t_end`.
    pub fn report(&mut self, t_end: u64) -> Value {
        let (avg_pkts, avg_bytes) = self.queue.time_average(self.t0, t_end);
        let (mut pending_fwd, mut pending_rev) = (0, 0);
        for e in &self.heap {
            match e.kind {
                Kind::Bottleneck(_) | Kind::Write(Dir::Fwd, _) => pending_fwd += 1,
                Kind::ReverseBottleneck(_) | Kind::Write(Dir::Rev, _) => pending_rev += 1,
                Kind::Sample => {}
            }
        }
        let s = &self.samples;
        json!({
            "forward": self.fwd.report(),
            "reverse": self.rev.report(),
            "pending_at_exit": { "forward": pending_fwd, "reverse": pending_rev },
            "queue": {
                "sample_interval_ns": SAMPLE_NS,
                "t_ns": s.t_ns,
                "waiting_pkts": s.waiting_pkts,
                "waiting_bytes": s.waiting_bytes,
                "in_system_pkts": s.in_system_pkts,
                "time_avg_waiting_pkts": avg_pkts,
                "time_avg_waiting_bytes": avg_bytes,
                "max_waiting_pkts": self.queue.max_waiting(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn pkt(src: [u8; 4], dst: [u8; 4], len: usize) -> Box<[u8]> {
        let mut p = vec![0u8; len];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        p.into()
    }

    fn model() -> Model {
        Model {
            rate_bps: 12_000_000, // 1500 B in 1 ms
            buffer_pkts: 1,
            delay_fwd_ns: 10 * MS,
            delay_rev_ns: 5 * MS,
            flow_delay_ns: HashMap::from([(Ipv4Addr::new(10, 77, 1, 3), 3 * MS)]),
            loss: 0.0,
            seed: 1,
            duplex: false,
        }
    }

    /// Every write due by `until`, as (direction, source's last byte, ideal).
    fn drain(e: &mut Engine, until: u64) -> Vec<(Dir, u8, u64)> {
        let mut out = vec![];
        while let Some(d) = e.due_write(until) {
            out.push((d.dir, d.pkt[15], d.ideal));
            e.record_write(&d, d.ideal, d.ideal, Ok(()));
        }
        out
    }

    #[test]
    fn forward_path_adds_flow_delay_queue_and_propagation() {
        let mut e = Engine::new(model(), 0);
        let (a, b, r) = ([10, 77, 1, 2], [10, 77, 1, 3], [10, 77, 2, 1]);
        e.on_read(Dir::Fwd, pkt(a, r, 1500), 0);
        e.on_read(Dir::Fwd, pkt(b, r, 1500), 0); // reaches the queue at 3 ms
        e.on_read(Dir::Fwd, pkt(a, r, 1500), MS / 2); // waits behind the first
        e.on_read(Dir::Fwd, pkt(a, r, 1500), MS / 2); // buffer of 1 full: dropped
        let w = drain(&mut e, 100 * MS);
        assert_eq!(w, vec![(Dir::Fwd, 2, 11 * MS), (Dir::Fwd, 2, 12 * MS), (Dir::Fwd, 3, 14 * MS)]);
        let arr: Vec<_> = e.arrivals().iter().map(|a| (a.t_ns, a.verdict)).collect();
        assert_eq!(arr, vec![(0, 0), (MS / 2, 0), (MS / 2, 1), (3 * MS, 0)]);
    }

    #[test]
    fn reverse_path_is_delay_only_and_keyed_by_destination() {
        let mut e = Engine::new(model(), 0);
        let (a, b, r) = ([10, 77, 1, 2], [10, 77, 1, 3], [10, 77, 2, 1]);
        for _ in 0..3 {
            e.on_read(Dir::Rev, pkt(r, b, 52), MS);
        }
        e.on_read(Dir::Rev, pkt(r, a, 52), MS);
        let w: Vec<_> = drain(&mut e, 100 * MS).into_iter().map(|(d, _, t)| (d, t)).collect();
        assert_eq!(w, vec![(Dir::Rev, 6 * MS), (Dir::Rev, 9 * MS), (Dir::Rev, 9 * MS), (Dir::Rev, 9 * MS)]);
    }

    #[test]
    fn a_duplex_links_reverse_path_serialises_and_buffers_like_the_forward() {
        let mut e = Engine::new(Model { duplex: true, ..model() }, 0);
        let (a, b, r) = ([10, 77, 1, 2], [10, 77, 1, 3], [10, 77, 2, 1]);
        // 750 bytes take 0.5 ms at 12 Mb/s; D_rev (5 ms) comes before the
        // queue, the flow's extra delay (b: 3 ms) after it
        e.on_read(Dir::Rev, pkt(r, b, 750), 0);
        e.on_read(Dir::Rev, pkt(r, a, 750), 0); // waits behind the first
        e.on_read(Dir::Rev, pkt(r, a, 750), 0); // buffer of 1 full: dropped
        let w: Vec<_> = drain(&mut e, 100 * MS).into_iter().map(|(d, _, t)| (d, t)).collect();
        assert_eq!(w, vec![(Dir::Rev, 6 * MS), (Dir::Rev, 5 * MS + MS / 2 + 3 * MS)]);
        let r = e.report(100 * MS);
        assert_eq!(r["reverse"]["dropped_buffer"], 1);
        assert_eq!(r["forward"]["dropped_buffer"], 0);
        assert!(e.arrivals().is_empty(), "the arrivals log is the forward bottleneck's");
    }

    #[test]
    fn nothing_is_due_early_and_non_ipv4_is_counted_apart() {
        let mut e = Engine::new(model(), 0);
        let mut v6 = vec![0u8; 40];
        v6[0] = 0x60;
        e.on_read(Dir::Fwd, v6.into(), 0);
        e.on_read(Dir::Fwd, pkt([10, 77, 1, 2], [10, 77, 2, 1], 1500), 0);
        assert!(e.due_write(11 * MS - 1).is_none());
        assert_eq!(e.next_deadline(), Some(11 * MS));
        assert_eq!(drain(&mut e, 11 * MS).len(), 1);
        assert_eq!(e.departures(Dir::Fwd), [Departure { ideal_ns: 11 * MS, error_ns: 0, write_ns: 0, len: 1500 }]);
        let r = e.report(20 * MS);
        assert_eq!(r["forward"]["non_ipv4_dropped"], 1);
        assert_eq!(r["forward"]["packets_in"], 1);
        assert_eq!(r["forward"]["packets_out"], 1);
    }

    #[test]
    fn queue_is_sampled_every_10_ms() {
        let mut e = Engine::new(Model { buffer_pkts: 100, ..model() }, 0);
        for _ in 0..15 {
            e.on_read(Dir::Fwd, pkt([10, 77, 1, 2], [10, 77, 2, 1], 1500), 0);
        }
        drain(&mut e, 25 * MS);
        let r = e.report(25 * MS);
        assert_eq!(r["queue"]["t_ns"], json!([10 * MS, 20 * MS]));
        // At 10 ms ten have left, the 11th is in service, four wait.
        assert_eq!(r["queue"]["waiting_pkts"], json!([4, 0]));
        assert_eq!(r["queue"]["in_system_pkts"], json!([5, 0]));
    }
}
