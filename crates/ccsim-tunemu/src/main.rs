//! ccsim-tunemu: a dumbbell bottleneck between two TUN devices, so Linux TCP
//! senders in one network namespace and receivers in another see a path
//! ccsim can model exactly (see `engine.rs` for the model and `USAGE` for the
//! flags). Prints `ready` once both devices exist; writes a JSON report at
//! SIGINT/SIGTERM or after `--duration`.
//!
//! Timing: the loop busy-polls both (non-blocking) devices while the next
//! scheduled event is due within `--spin-us`, and sleeps in `ppoll` (woken by
//! a packet or just before that event) otherwise. Every write's lateness
//! against the model's ideal time is recorded.

mod args;
mod engine;
mod queue;
mod stats;
mod sys;
mod tun;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use serde_json::{json, Value};

use args::{Config, USAGE};
use engine::{Dir, Engine};
use stats::LogHist;
use tun::Tun;

/// Longest sleep (the queue is sampled every 10 ms anyway).
const MAX_SLEEP_NS: u64 = 10_000_000;

/// What the loop measured about itself.
#[derive(Default)]
struct LoopStats {
    iterations: u64,
    /// Time between the starts of consecutive turns that did not sleep: how
    /// stale a packet can be when read while busy-polling.
    spin_gap: LogHist,
    sleeps: u64,
    /// Sleeps ended by a readable device.
    woken_by_packet: u64,
    /// How late a sleep that ran to its timeout woke: how stale a packet can
    /// be when it arrives while the loop sleeps.
    poll_overshoot: LogHist,
}

impl LoopStats {
    fn report(&self) -> Value {
        json!({
            "iterations": self.iterations,
            "spin_gap_ns": self.spin_gap.summary(),
            "sleeps": self.sleeps,
            "sleeps_woken_by_packet": self.woken_by_packet,
            "poll_overshoot_ns": self.poll_overshoot.summary(),
        })
    }
}

enum Stop {
    Signal,
    Duration,
    Error(String),
}

fn run_loop(cfg: &Config, snd: &Tun, rcv: &Tun, engine: &mut Engine, t0: u64, ls: &mut LoopStats) -> Stop {
    let deadline = cfg.duration_s.map(|s| t0 + (s * 1e9) as u64);
    let spin_ns = cfg.spin_us.map(|us| us * 1000);
    let fds = [snd.raw_fd(), rcv.raw_fd()];
    let mut buf = vec![0u8; 65536];
    let mut last_turn: Option<u64> = None;
    loop {
        let turn = sys::now_ns();
        if let Some(prev) = last_turn {
            ls.spin_gap.add(turn - prev);
        }
        ls.iterations += 1;
        if sys::stop_requested() {
            return Stop::Signal;
        }
        if deadline.is_some_and(|d| turn >= d) {
            return Stop::Duration;
        }
        // One packet per device per turn: a write falling due during a
        // burst waits for at most two reads, not for the whole burst.
        let mut got = false;
        for (dir, dev) in [(Dir::Fwd, snd), (Dir::Rev, rcv)] {
            match dev.read(&mut buf) {
                Ok(Some(n)) => {
                    let t = sys::now_ns();
                    engine.on_read(dir, buf[..n].into(), t);
                    got = true;
                }
                Ok(None) => {}
                Err(e) => return Stop::Error(format!("read from {}: {e}", dev.name)),
            }
        }
        while let Some(due) = engine.due_write(sys::now_ns()) {
            let dev = match due.dir {
                Dir::Fwd => rcv,
                Dir::Rev => snd,
            };
            let began = sys::now_ns();
            let res = dev.write(&due.pkt);
            engine.record_write(&due, began, sys::now_ns(), res);
        }
        let now = sys::now_ns();
        let until = engine.next_deadline().map_or(MAX_SLEEP_NS, |d| d.saturating_sub(now)).min(MAX_SLEEP_NS);
        let sleep = match spin_ns {
            Some(spin) if !got && until > spin => until - spin,
            _ => {
                last_turn = Some(turn);
                continue;
            }
        };
        last_turn = None;
        ls.sleeps += 1;
        if sys::wait_readable(&fds, sleep) {
            ls.woken_by_packet += 1;
        } else if !sys::stop_requested() {
            ls.poll_overshoot.add(sys::now_ns().saturating_sub(now + sleep));
        }
    }
}

fn write_arrivals(path: &str, engine: &Engine) -> std::io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    writeln!(w, "t_ns,len,src,verdict")?;
    for a in engine.arrivals() {
        writeln!(w, "{},{},{},{}", a.t_ns, a.len, a.src, a.verdict)?;
    }
    w.flush()
}

fn write_departures(path: &str, engine: &Engine) -> std::io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    writeln!(w, "dir,ideal_ns,error_ns,write_ns,len")?;
    for (dir, name) in [(Dir::Fwd, "fwd"), (Dir::Rev, "rev")] {
        for d in engine.departures(dir) {
            writeln!(w, "{name},{},{},{},{}", d.ideal_ns, d.error_ns, d.write_ns, d.len)?;
        }
    }
    w.flush()
}

fn conventions() -> Value {
    json!({
        "buffer": "buffer_pkts counts packets waiting; the packet being serialised is not counted \
                   (ns-2's and ccsim's limit_pkts). An arrival finding buffer_pkts waiting is dropped.",
        "wire_bytes": "serialisation time = IP packet length * 8 / rate (no link-layer framing), \
                       rounded up to 1 ns per packet",
        "loss": "Bernoulli per forward packet before the buffer (SplitMix64 from the seed); \
                 a lost packet takes no buffer space",
        "flow_delay": "extra one-way delay, forward keyed by IPv4 source (before the bottleneck), \
                       reverse by IPv4 destination",
        "timing_error": "time the write() call began minus the model's ideal time. Arrival times are \
                         the times read() returned: the delay between the kernel queueing a packet on \
                         the TUN and the emulator reading it is not included (loop.spin_gap_ns bounds it \
                         while busy-polling, loop.poll_overshoot_ns estimates it while sleeping)",
        "arrivals_csv": "one line per arrival at the bottleneck: ideal arrival time (ns after t0), \
                         IP length, source address, verdict (0 accepted, 1 buffer drop, 2 random loss)",
        "departures_csv": "one line per packet written: direction, ideal write time (ns after t0), \
                           lateness of the write's start (ns), duration of the write call (ns), IP length",
        "non_ipv4": "anything but IPv4 is dropped on reading and counted as non_ipv4_dropped",
    })
}

fn run(cfg: Config) -> Result<(), String> {
    sys::install_stop_handlers().map_err(|e| format!("signal handlers: {e}"))?;
    sys::minimise_timer_slack().map_err(|e| format!("timer slack: {e}"))?;
    if let Some(cpu) = cfg.cpu {
        sys::pin_to_cpu(cpu).map_err(|e| format!("pin to CPU {cpu}: {e}"))?;
    }
    let snd = Tun::open_in_netns(&cfg.snd_ns, &cfg.snd_tun).map_err(|e| format!("TUN in {}: {e}", cfg.snd_ns))?;
    let rcv = Tun::open_in_netns(&cfg.rcv_ns, &cfg.rcv_tun).map_err(|e| format!("TUN in {}: {e}", cfg.rcv_ns))?;
    let t0 = sys::now_ns();
    let cpu0 = sys::cpu_use();
    let mut engine = Engine::new(cfg.model(), t0);
    let mut ls = LoopStats::default();
    println!("ready");
    std::io::stdout().flush().map_err(|e| e.to_string())?;

    let stop = run_loop(&cfg, &snd, &rcv, &mut engine, t0, &mut ls);
    let t_end = sys::now_ns();
    let cpu = sys::cpu_use();
    let (user, system) = (cpu.user_s - cpu0.user_s, cpu.sys_s - cpu0.sys_s);
    let elapsed = (t_end - t0) as f64 * 1e-9;
    let mut report = engine.report(t_end);
    let extra = json!({
        "config": cfg,
        "conventions": conventions(),
        "t0_monotonic_ns": t0,
        "t_end_monotonic_ns": t_end,
        "elapsed_s": elapsed,
        "stop": match &stop {
            Stop::Signal => "signal".to_string(),
            Stop::Duration => "duration".to_string(),
            Stop::Error(e) => format!("error: {e}"),
        },
        "loop": ls.report(),
        "cpu": {
            "user_s": user,
            "sys_s": system,
            "share_of_one_cpu": (user + system) / elapsed.max(1e-9),
            "involuntary_switches": cpu.involuntary_switches - cpu0.involuntary_switches,
            "runqueue_wait_ns": cpu.runqueue_wait_ns - cpu0.runqueue_wait_ns,
        },
        "arrivals_file": cfg.arrivals,
        "departures_file": cfg.departures,
    });
    if let (Some(r), Value::Object(extra)) = (report.as_object_mut(), extra) {
        r.extend(extra);
    }
    if let Some(path) = &cfg.arrivals {
        write_arrivals(path, &engine).map_err(|e| format!("{path}: {e}"))?;
    }
    if let Some(path) = &cfg.departures {
        write_departures(path, &engine).map_err(|e| format!("{path}: {e}"))?;
    }
    let text = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    std::fs::write(&cfg.json, text).map_err(|e| format!("{}: {e}", cfg.json))?;
    match stop {
        Stop::Error(e) => Err(e),
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let cfg = match Config::parse(std::env::args().skip(1)) {
        Ok(c) => c,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("ccsim-tunemu: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ccsim-tunemu: {e}");
            ExitCode::FAILURE
        }
    }
}
