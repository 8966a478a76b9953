//! ns-3's own CUBIC validation case (ns-3 3.44
//! `examples/tcp/tcp-validation.cc`, `--validate=cubic-50ms-no-ecn`), built
//! in ccsim, with ns-3's envelope checked verbatim.
//!
//! The scenario, each setting from tcp-validation.cc: one CUBIC flow from
//! 5 s (`firstApp.Start(Seconds(5))`; its data leave after the 50 ms
//! handshake ccsim does not run, so `start_s = 5.05`) over a 50 Mb/s
//! bottleneck of 25 ms one way (`--baseRtt=50ms`, `oneWayDelay =
//! baseRtt / 2`) under CoDel (`queueType` "codel", ns-3 defaults: 5 ms,
//! 100 ms, 1500 × 1000 bytes), 1 Gb/s access links of 1 µs; 1448-byte
//! segments (`SegmentSize`; 1502 bytes on the wire with IP, TCP with
//! timestamps and PPP, ACKs 54), initial window 10 (`InitialCwnd`), 32.8 MB
//! socket buffers (`RcvBufSize`: 22629 segments), SACK, timestamps and
//! Limited Transmit (ns-3 defaults), two segments per delayed ACK with a
//! 200 ms timer and the first data segment ACKed at once (ns-3's
//! `DelAckCount`, `DelAckTimeout`, `ProcessSynRcvd`: `delack_model =
//! "ns3"`), a 1 s minimum RTO with 1 ms clock granularity (`MinRto`,
//! `ClockGranularity`), ECN negotiated (`TcpSocketBase::UseEcn` "On")
//! while CoDel drops (`queueUseEcn` false; the run is identical with
//! `ecn = false`).
//!
//! The sender, from ns-3 3.44's `TcpCubic` (tcp-cubic.cc) as
//! tcp-validation.cc configures it: `TcpFriendliness` false
//! (`tcp_friendly = false`: "Validation criteria were written for TCP
//! Cubic without Reno-friendly behavior"); HyStart on (`HyStart` true,
//! `hystart = true` with ns-3's constants, ccsim's defaults); slow start
//! counts segments (`IncreaseWindow`: `m_cWnd += segmentsAcked *
//! segmentSize`) and so does congestion avoidance (`m_cWndCnt +=
//! segmentsAcked`): `abc = true`; at most 20 segments acknowledged per
//! +1 before the first loss (`CntClamp` 20: `cnt_clamp = 20`); W_est
//! keeps α_cubic (`m_tcpCwnd`, RFC 8312: `alpha_switch = false`; unused
//! without the Reno-friendly region); C 0.4, β 0.7, fast convergence (ns-3
//! defaults). ns-3's recovery, PRR (`TcpL4Protocol::RecoveryType`
//! `TcpPrrRecovery`), is `prr = true` (RFC 9937): the first tests run
//! without it (RFC 6675's cwnd = ssthresh at the fast retransmit), the
//! last with it. Not modelled: the bottleneck's device layer (a 3-packet
//! device queue under dynamic queue limits, BQL with a 1 ms `HoldTime`)
//! below CoDel.
//!
//! ns-3's check (`TraceFirstCwnd`) runs at every change of cwnd after
//! 5.1 s, and fails if a change in (5.43, 5.465) s is below 500 segments,
//! one in (5.795, 6) s above 190, one in (14, 14.197) s below 224, or one
//! in (17, 18.026) s below 212. ns-3 3.44 passes it (its trace: a peak of
//! 511 at 5.4593 s, 505-511 in the first window, 175-187 in the second,
//! 233-235 in the third, 228-234 in the fourth). Without PRR ccsim passes
//! the second and fourth windows; the first and third fail, each for a
//! cause traced in docs/validation.md ("CUBIC and HyStart: ns-3's
//! `cubic-50ms-no-ecn` envelope"), and the tests below pin those failures
//! to their causes. With PRR the first window holds and the rest follow
//! ns-3's own run without its device layer (the last test).
use crate::common;
use ccsim_core::{Scenario, Simulation};
use common::*;

/// ns-3's windows, verbatim from `TraceFirstCwnd`: (from, to, bound, the
/// bound is a minimum).
const WINDOWS: [(f64, f64, f64, bool); 4] =
    [(5.43, 5.465, 500.0, true), (5.795, 6.0, 190.0, false), (14.0, 14.197, 224.0, true), (17.0, 18.026, 212.0, true)];

/// ns-3's validated sender's parameters (see the module comment).
const NS3_CUBIC: &str = "hystart = true, cnt_clamp = 20, abc = true, tcp_friendly = false, alpha_switch = false";

fn scenario(cc_params: &str, extra: &str) -> Scenario {
    let t = format!(
        "name = \"cubic-50ms-no-ecn\"\nduration_s = 20.0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 50e6\nbottleneck_delay_s = 0.025\nedge_rate_bps = 1e9\n\
         bottleneck_queue = {{ kind = \"codel\", limit_bytes = 1500000 }}\n\
         [[flows]]\ncc = \"cubic\"\ncc_params = {{ {cc_params} }}\nstart_s = 5.05\nrtt_s = 0.050004\n\
         mss_bytes = 1448\nheader_bytes = 54\ninit_cwnd_pkts = 10\nrwnd_pkts = 22629\nrecovery = \"sack\"\necn = true\n\
         delayed_ack = true\ndelack_model = \"ns3\"\nmin_rto_s = 1.0\nclock_granularity_s = 0.001\n{extra}\n"
    );
    Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}"))
}

/// One change of cwnd: when, the new cwnd, ssthresh then.
#[derive(Clone, Copy, Debug)]
struct Change {
    t: f64,
    cwnd: f64,
    ssthresh: f64,
}

/// Every change of cwnd (event by event), and the times of the
/// bottleneck's drops.
fn run(cc_params: &str) -> (Vec<Change>, Vec<f64>) {
    run_with(cc_params, "")
}

/// [`run`] with `extra` flow fields (TOML lines).
fn run_with(cc_params: &str, extra: &str) -> (Vec<Change>, Vec<f64>) {
    let mut sim = Simulation::new(&scenario(cc_params, extra)).unwrap();
    let (mut changes, mut drops) = (Vec::new(), Vec::new());
    let mut w = sim.tcp_sender(0).unwrap().st.cwnd;
    let mut n_drops = 0;
    while step(&mut sim) {
        let d = sim.net.links[FWD_BNECK].counters().drops;
        if d != n_drops {
            drops.extend(std::iter::repeat_n(sim.now_s(), (d - n_drops) as usize));
            n_drops = d;
        }
        let st = &sim.tcp_sender(0).unwrap().st;
        if st.cwnd != w {
            changes.push(Change { t: sim.now_s(), cwnd: st.cwnd, ssthresh: st.ssthresh });
            w = st.cwnd;
        }
    }
    let r = finish(&sim);
    assert_eq!(r.links[FWD_BNECK].drops as usize, drops.len());
    (changes, drops)
}

/// ns-3's check: the changes that fail it, with their window (0-3).
fn violations(changes: &[Change]) -> Vec<(usize, Change)> {
    let mut v = Vec::new();
    for c in changes.iter().filter(|c| c.t > 5.1) {
        for (i, &(a, b, bound, is_min)) in WINDOWS.iter().enumerate() {
            if c.t > a && c.t < b && (if is_min { c.cwnd < bound } else { c.cwnd > bound }) {
                v.push((i, *c));
            }
        }
    }
    v
}

fn in_window(changes: &[Change], i: usize) -> Vec<Change> {
    let (a, b, _, _) = WINDOWS[i];
    changes.iter().filter(|c| c.t > a && c.t < b).copied().collect()
}

/// The first change after `t` that lowers cwnd by more than one segment
/// (a window reduction).
fn first_cut_after(changes: &[Change], t: f64) -> Change {
    changes
        .windows(2)
        .find(|p| p[1].t > t && p[1].cwnd < p[0].cwnd - 1.0)
        .map(|p| p[1])
        .unwrap_or_else(|| panic!("a reduction after {t} s"))
}

#[test]
fn ns3_cubic_50ms_no_ecn_envelope() {
    let (ch, drops) = run(NS3_CUBIC);
    let v = violations(&ch);
    for i in 0..4 {
        assert!(!in_window(&ch, i).is_empty(), "window {i} has changes to check");
    }
    // Windows 2 and 4 hold as ns-3 writes them (ns-3: 175-187, 228-234).
    assert!(v.iter().all(|(i, _)| *i == 0 || *i == 2), "{v:?}");
    // Window 1 (>= 500 in (5.43, 5.465) s): every change up to the fast
    // retransmit holds; the fast retransmit cuts cwnd to ssthresh at once,
    // where ns-3's PRR lowers it over the recovery round (ns-3's own cwnd
    // passes under 500 at 5.46651 s, 1.5 ms after the window; with
    // `TcpClassicRecovery` ns-3 fails here too, with 357 at 5.46338 s).
    let cut = first_cut_after(&ch, 5.4);
    assert!(cut.t > 5.43 && cut.t < 5.465, "{cut:?}");
    assert!((cut.t - 5.46338).abs() < 0.002, "the cut comes when ns-3's PRR starts: {cut:?}");
    assert_eq!(cut.cwnd, cut.ssthresh, "an immediate cut to ssthresh");
    let w1: Vec<(usize, Change)> = v.iter().filter(|(i, _)| *i == 0).copied().collect();
    assert!(!w1.is_empty() && w1.iter().all(|(_, c)| c.t >= cut.t), "{w1:?}");
    assert!(in_window(&ch, 0).iter().filter(|c| c.t < cut.t).count() > 50);
    // Window 3 (>= 224 in (14, 14.197) s): holds up to the reduction that
    // CoDel's drop at 14.097 s brings (ns-3: its drop at 14.2165 s is
    // answered after the window). That drop's time is set by the device
    // layer under ns-3's CoDel: with a 1-packet device queue and no BQL
    // ns-3 drops at 15.90 s and fails windows 3 and 4.
    let d14 = *drops.iter().find(|&&t| t > 10.0).expect("a drop after 10 s");
    assert!((d14 - 14.0967).abs() < 0.001, "drop at {d14}");
    let cut14 = first_cut_after(&ch, 10.0);
    assert!(cut14.t > 14.0 && cut14.t < 14.197, "{cut14:?}");
    let w3: Vec<(usize, Change)> = v.iter().filter(|(i, _)| *i == 2).copied().collect();
    assert!(!w3.is_empty() && w3.iter().all(|(_, c)| c.t >= cut14.t), "{w3:?}");
    assert!(in_window(&ch, 2).iter().any(|c| c.t < cut14.t && c.cwnd >= 224.0));
}

#[test]
fn hystart_leaves_slow_start_where_ns3_does_and_the_reductions_follow_ns3() {
    let (ch, drops) = run(NS3_CUBIC);
    // HyStart's exit: ssthresh = cwnd before any drop. ns-3: 499 at
    // 5.4021 s, by the ACK train (its round passes delay_min 50 ms after
    // ACKs 0.48 ms apart).
    let exit = ch.iter().find(|c| c.ssthresh < 1e8).expect("HyStart exits");
    assert!(exit.t < drops[0], "the exit precedes the first drop");
    assert!((exit.ssthresh - 499.0).abs() <= 2.0, "{exit:?}");
    assert!((exit.t - 5.4021).abs() < 0.002, "{exit:?}");
    // Then 1 segment per 20 acknowledged (cnt_clamp) up to the peak:
    // ns-3 511 at 5.4593 s.
    let peak = ch.iter().filter(|c| c.t < 7.0).fold(*exit, |m, &c| if c.cwnd > m.cwnd { c } else { m });
    assert!((peak.cwnd - 511.0).abs() <= 3.0 && (peak.t - 5.4593).abs() < 0.005, "{peak:?}");
    // Three reductions in the first CoDel episode: ns-3 511 → 357 → 250 → 175.
    let mut t = 5.4;
    for want in [357.0, 250.0, 175.0] {
        let c = first_cut_after(&ch, t);
        assert!((c.cwnd - want).abs() < 0.02 * want, "{c:?} against ns-3's {want}");
        t = c.t + 0.05;
    }
    // Standard slow start instead overshoots to 748 before the first loss
    // is seen, and window 2 then fails.
    let (ss, _) = run("abc = true, tcp_friendly = false, alpha_switch = false");
    let ss_peak = ss.iter().filter(|c| c.t < 7.0).map(|c| c.cwnd).fold(0.0, f64::max);
    assert!(ss_peak > 700.0, "{ss_peak}");
    assert!(violations(&ss).iter().any(|(i, _)| *i == 1));
}

/// With PRR (`prr = true`, RFC 9937; tcp-validation.cc's
/// `TcpPrrRecovery`) the first window holds: cwnd comes down from 511
/// over the recovery round and passes under 500 after the window, as
/// ns-3's does (5.46651 s). ccsim's bottleneck is then ns-3's run without
/// BQL and with a 1-packet device queue (CoDel sees the whole queue):
/// ns-3 drops once more at the end of the first episode (5.7886 s), cuts
/// four times (511 -> 357 -> 250 -> 175 -> 123), drops next at 15.8998 s,
/// after the third window, and fails windows 3 (178-181) and 4 (200-220).
/// ccsim does the same, each reduction within a segment of ns-3's. It
/// fails window 2 as well: RFC 9937's proportional phase lowers cwnd by
/// 0.3 of a segment per segment delivered (ssthresh/RecoverFS = 0.7), from
/// 249 at the fourth episode's start (5.7655 s) to 211 at 5.795 s, where
/// ns-3's trace falls a segment per ACK (251 at 5.7773 s, 178 at 5.7966 s):
/// ns-3 3.44's `TcpPrrRecovery` multiplies `prr_delivered × ssthresh` in
/// 32 bits, which wraps within a few ACKs, and then sends nothing until
/// pipe reaches ssthresh (validation/ns3_newuser.py's finding).
#[test]
fn with_prr_the_first_window_holds_and_the_episode_follows_ns3_without_bql() {
    let (ch, drops) = run_with(NS3_CUBIC, "prr = true");
    let v = violations(&ch);
    assert!(v.iter().all(|(i, _)| *i != 0), "window 1 holds: {:?}", v.iter().find(|(i, _)| *i == 0));
    let fr = first_cut_after(&ch, 5.4);
    assert!(fr.t > 5.43 && fr.t < 5.465 && fr.cwnd > 500.0, "PRR's first step stays above 500: {fr:?}");
    let under = ch.iter().find(|c| c.t > 5.43 && c.cwnd < 500.0).unwrap();
    assert!(under.t > 5.465, "under 500 after the window, as ns-3 (5.46651 s): {under:?}");
    // the first episode's reductions (ssthresh at each fast retransmit)
    let mut cuts: Vec<f64> = Vec::new();
    for c in ch.iter().filter(|c| c.t > 5.43 && c.t < 6.0 && c.ssthresh < 499.0) {
        if cuts.last() != Some(&c.ssthresh) {
            cuts.push(c.ssthresh);
        }
    }
    for (got, ns3) in cuts.iter().zip([357.0, 250.0, 175.0, 123.0]) {
        assert!((got - ns3).abs() < 1.0, "reductions {cuts:?}");
    }
    assert_eq!(cuts.len(), 4, "{cuts:?}");
    // no drop from the first episode's end until after window 3
    let later = *drops.iter().find(|&&t| t > 6.0).unwrap();
    assert!(later > 14.197 && later < 17.0, "the next drop at {later}");
    // windows 2, 3 and 4 fail; 3 and 4 as in ns-3 without BQL
    for w in [1, 2, 3] {
        assert!(v.iter().any(|(i, _)| *i == w), "window {} fails", w + 1);
    }
    let w2 = in_window(&ch, 1);
    assert!(w2[0].cwnd > 200.0 && w2.iter().any(|c| c.cwnd <= 190.0), "{:?}", &w2[..3]);
}
