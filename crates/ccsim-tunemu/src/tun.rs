//! TUN devices opened inside other network namespaces.
//!
//! A TUN device belongs to the namespace of the process that creates it
//! (`TUNSETIFF`), but its file descriptor keeps working from anywhere. So
//! the emulator enters each namespace just long enough to create its device,
//! then returns to its own: one process can then join two namespaces that
//! share no link.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `struct ifreq` as `TUNSETIFF` reads it: the name, then the flags (a
/// `short`), padded to the union's 24 bytes.
#[repr(C)]
struct IfReqFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn open_path(path: &str, flags: libc::c_int) -> io::Result<OwnedFd> {
    let c = CString::new(path).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: a valid C string; the returned descriptor is owned below.
    let fd = cvt(unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) })?;
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn setns(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain syscall on a namespace descriptor.
    cvt(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }).map(drop)
}

/// Where a namespace argument points: a path as given when it starts with
/// `/` (e.g. `/proc/PID/ns/net`), else the name `ip netns add` created.
pub fn netns_path(ns: &str) -> String {
    if ns.starts_with('/') {
        ns.to_string()
    } else {
        format!("/var/run/netns/{ns}")
    }
}

/// A non-blocking TUN device (`IFF_TUN | IFF_NO_PI`: each read or write is
/// one bare IP packet). The device lives as long as the descriptor.
pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

impl Tun {
    /// Creates TUN device `name` inside network namespace `ns` (see
    /// [`netns_path`]) and returns to the caller's namespace.
    pub fn open_in_netns(ns: &str, name: &str) -> io::Result<Tun> {
        if name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "interface name too long"));
        }
        let home = open_path("/proc/thread-self/ns/net", libc::O_RDONLY)?;
        let target = open_path(&netns_path(ns), libc::O_RDONLY)?;
        setns(target.as_raw_fd())?;
        let created = Self::create(name);
        // Return home even when the creation failed; a failure to return
        // would leave every later socket in the wrong namespace.
        setns(home.as_raw_fd()).expect("cannot return to the emulator's own network namespace");
        created
    }

    fn create(name: &str) -> io::Result<Tun> {
        let fd = open_path("/dev/net/tun", libc::O_RDWR | libc::O_NONBLOCK)?;
        let mut req = IfReqFlags { name: [0; libc::IFNAMSIZ], flags: 0, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        req.flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF reads (and writes back) an ifreq-sized buffer.
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut IfReqFlags) })?;
        Ok(Tun { fd, name: name.to_string() })
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Reads one packet into `buf`; `Ok(None)` when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(self.raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Writes one packet (the kernel takes it whole or not at all).
    pub fn write(&self, pkt: &[u8]) -> io::Result<()> {
        // SAFETY: `pkt` is valid for `pkt.len()` bytes.
        let n = unsafe { libc::write(self.raw_fd(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}
