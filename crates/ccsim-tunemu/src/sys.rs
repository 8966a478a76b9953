//! Thin wrappers over the system calls the event loop needs.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// CLOCK_MONOTONIC in ns: the clock every process on the machine shares
/// (Python's `time.monotonic_ns()`), so the runner can align its records.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes one timespec; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// SIGINT and SIGTERM ask the loop to stop (and write its report). Without
/// `SA_RESTART`, so a sleeping `ppoll` returns at once.
pub fn install_stop_handlers() -> io::Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a handler that only stores an atomic.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(sig, &sa, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Keeps the process on one CPU, so its caches and the timer it sleeps on
/// stay put.
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET stays within it
    // for cpu < CPU_SETSIZE, which sched_setaffinity checks anyway.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Timer slack of 1 ns: the default 50 µs would let the kernel wake a
/// sleeping `ppoll` that much late.
pub fn minimise_timer_slack() -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument.
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sleeps until one of `fds` is readable, `timeout_ns` passes or a signal
/// arrives; true when a descriptor became readable.
pub fn wait_readable(fds: &[RawFd; 2], timeout_ns: u64) -> bool {
    let mut pfds = fds.map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: two valid pollfds and a valid timespec; no signal mask change.
    let n = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    n > 0
}

/// CPU use of this process so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuUse {
    pub user_s: f64,
    pub sys_s: f64,
    /// Times another task took the CPU from it.
    pub involuntary_switches: i64,
    /// Time spent runnable but waiting for the CPU (`/proc/self/schedstat`):
    /// with a busy-polling loop, time in which packets went unserved.
    pub runqueue_wait_ns: u64,
}

pub fn cpu_use() -> CpuUse {
    // SAFETY: getrusage fills one rusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let s = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    let wait = std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().nth(1).and_then(|w| w.parse().ok()))
        .unwrap_or(0);
    CpuUse {
        user_s: s(ru.ru_utime),
        sys_s: s(ru.ru_stime),
        involuntary_switches: ru.ru_nivcsw as i64,
        runqueue_wait_ns: wait,
    }
}
