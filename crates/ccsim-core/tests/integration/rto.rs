//! RFC 6298 §5.5-5.7: the RTO doubles on each consecutive timeout (up to
//! max_rto) and the backoff is cleared once new data is acknowledged.
//!
//! Construction: one flow in steady state, then the forward bottleneck's
//! loss probability is raised to 0.999999 through the link's random-loss stage
//! (a link built with loss 0 has no RNG, so the scenario sets a negligible
//! 1e-15 to create it). Every data packet, retransmissions included, is lost;
//! the test steps the event loop, records when each timeout fires, then
//! restores the link and watches the sender recover.
use crate::common;
use ccsim_core::net::stage::loss::RandomLoss;
use ccsim_core::sim::math;
use ccsim_core::Simulation;
use common::*;

const RTT: f64 = 0.3;
const MIN_RTO: f64 = 0.2;
const MAX_RTO: f64 = 5.0;

fn sim() -> Simulation {
    sim_with("")
}

fn sim_with(extra: &str) -> Simulation {
    let mut sim = Dumbbell::new(10e6, 1000, 60.0)
        .loss(1e-15)
        .flow(&format!(
            "rtt_s = {RTT}\nmax_cwnd_pkts = 20\nmin_rto_s = {MIN_RTO}\nmax_rto_s = {MAX_RTO}\n\
             clock_granularity_s = 0.001\ninit_rto_s = 1.0\n{extra}"
        ))
        .sim();
    assert!(sim.net.links[FWD_BNECK].stage_mut::<RandomLoss>().is_some(), "a lossy link must own an RNG");
    sim.run_until(5.0);
    sim
}

struct Outage {
    /// Time of the last ACK of new data before the outage, and the RTO then.
    last_ack_s: f64,
    base_rto: f64,
    /// Instants at which the RTO fired, and the backoff after each.
    timeouts: Vec<(f64, u32)>,
}

/// Black-hole the forward bottleneck until `n` timeouts have fired.
fn outage(sim: &mut Simulation, n: usize) -> Outage {
    set_loss(sim, FWD_BNECK, 0.999999);
    let s = sim.tcp_sender(0).unwrap();
    let (mut una, mut base_rto, mut last_ack_s) = (s.sb.una(), s.rto(), sim.now_s());
    let mut timeouts = Vec::new();
    let mut seen = s.stats.timeouts;
    while timeouts.len() < n {
        assert!(step(sim), "run ended before {n} timeouts");
        let s = sim.tcp_sender(0).unwrap();
        if s.sb.una() > una {
            assert!(timeouts.is_empty(), "new data ACKed after the first timeout while the link is black-holed");
            una = s.sb.una();
            last_ack_s = sim.now_s();
            base_rto = s.rto();
            assert_eq!(s.rtt.backoff, 0);
        }
        if s.stats.timeouts > seen {
            assert_eq!(s.stats.timeouts, seen + 1, "two timeouts at one instant");
            seen = s.stats.timeouts;
            timeouts.push((sim.now_s(), s.rtt.backoff));
        }
    }
    Outage { last_ack_s, base_rto, timeouts }
}

#[test]
fn rto_doubles_per_timeout_up_to_max_rto() {
    let mut sim = sim();
    let o = outage(&mut sim, 7);
    // The base RTO is SRTT + 4 RTTVAR, above the 0.2 s floor with a 0.3 s RTT.
    assert!(o.base_rto > RTT && o.base_rto < 2.0 * RTT, "base RTO {}", o.base_rto);
    let mut prev = o.last_ack_s;
    let mut spacings = Vec::new();
    for (i, &(t, backoff)) in o.timeouts.iter().enumerate() {
        let expected = (o.base_rto * math::powi(2.0, i as i32)).min(MAX_RTO);
        spacings.push(t - prev);
        // Timer instants are rounded to the picosecond.
        assert!(
            (t - prev - expected).abs() < 1e-9,
            "timeout {i}: spaced {:.6} s from the previous one, expected {expected:.6} s (base {:.6})",
            t - prev,
            o.base_rto
        );
        assert_eq!(backoff, i as u32 + 1, "backoff after timeout {i}");
        prev = t;
    }
    eprintln!("base RTO {:.6} s, spacings {spacings:.4?}", o.base_rto);
    // The cap was reached: the last two gaps are both max_rto.
    assert!((spacings[5] - MAX_RTO).abs() < 1e-9 && (spacings[6] - MAX_RTO).abs() < 1e-9);
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!(s.rto(), MAX_RTO);
    assert_eq!(s.st.cwnd, 1.0, "cwnd is one segment after an RTO");
    let r = finish(&sim);
    assert_eq!(r.flows[0].timeouts, 7);
}

#[test]
fn backoff_clears_after_new_data_is_acked() {
    let mut sim = sim();
    let o = outage(&mut sim, 4);
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!(s.rtt.backoff, 4);
    assert!((s.rto() - (o.base_rto * 16.0).min(MAX_RTO)).abs() < 1e-12);
    // Heal the link. Losses happen on arrival at the bottleneck, and the
    // fourth timeout's retransmission is still on the access link, so it gets
    // through and is ACKed one RTT after that timeout.
    set_loss(&mut sim, FWD_BNECK, 0.0);
    let una = sim.tcp_sender(0).unwrap().sb.una();
    let t4 = o.timeouts[3].0;
    while sim.tcp_sender(0).unwrap().sb.una() == una {
        assert!(step(&mut sim), "no recovery after the link healed");
        // Until new data is ACKed the backoff stays.
        if sim.tcp_sender(0).unwrap().sb.una() == una {
            assert_eq!(sim.tcp_sender(0).unwrap().rtt.backoff, 4);
        }
    }
    let t_acked = sim.now_s();
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!(s.stats.timeouts, 4, "no further timeout: the retransmission got through");
    assert!(t_acked > t4 + RTT && t_acked - t4 < RTT * 1.1, "ACK at {t_acked}, retransmission at {t4}");
    assert_eq!(s.rtt.backoff, 0, "backoff must clear on the ACK of new data");
    let rto = s.rto();
    assert_eq!(rto, s.rtt.base_rto(&s.cfg.rto));
    // The RTT sample came from a retransmission (timestamps make it valid,
    // RFC 7323) and equals the path RTT, so the estimate barely moved.
    assert!((rto - o.base_rto).abs() / o.base_rto < 0.1, "RTO after recovery {rto}, before the outage {}", o.base_rto);
    // And the sender goes on to recover fully: no further timeouts.
    sim.run_until(20.0);
    let r = finish(&sim);
    assert_eq!(r.flows[0].timeouts, 4);
    assert!(sim.tcp_sender(0).unwrap().st.cwnd >= 10.0, "cwnd {}", sim.tcp_sender(0).unwrap().st.cwnd);
    eprintln!("RTO before {:.6} s, after recovery {rto:.6} s", o.base_rto);
}

#[test]
fn first_rto_uses_init_rto_before_any_sample() {
    // Every packet of a fresh connection is lost: no RTT sample ever, so the
    // timer runs on init_rto_s = 1 s, doubling: 1, 2, 4 (RFC 6298 §2.1, §5.5).
    let sc = Dumbbell::new(10e6, 1000, 10.0)
        .loss(0.999999)
        .flow("rtt_s = 0.1\ninit_rto_s = 1.0\nmin_rto_s = 0.2\nmax_rto_s = 60.0")
        .scenario();
    let mut sim = Simulation::new(&sc).unwrap();
    let mut times = Vec::new();
    while step(&mut sim) {
        if sim.tcp_sender(0).unwrap().stats.timeouts as usize > times.len() {
            times.push(sim.now_s());
        }
    }
    let r = finish(&sim);
    assert!(sim.tcp_sender(0).unwrap().rtt.srtt().is_none());
    assert_eq!(times.len(), 3, "timeouts at {times:?}");
    for (t, want) in times.iter().zip([1.0, 3.0, 7.0]) {
        assert!((t - want).abs() < 1e-9, "timeouts at {times:?}");
    }
    assert_eq!(r.flows[0].delivered_bytes, 0);
}

/// RFC 5681 §3.1: ssthresh is reduced when the timer fires for a segment not
/// yet resent by the timer; the backed-off repeats keep it (Linux
/// `tcp_enter_loss`), rather than collapsing it to 2 from the one-segment
/// window the first timeout left.
#[test]
fn repeated_timeouts_keep_ssthresh() {
    let seen = ssthresh_at_timeouts("");
    assert!(seen[0] > 2.0, "first RTO: ssthresh from min(FlightSize, cwnd), got {}", seen[0]);
    assert!(seen.iter().all(|&x| x == seen[0]), "repeats changed ssthresh: {seen:?}");
}

/// ns-2's `TcpAgent::timeout` halves ssthresh on every timeout (`slowdown`
/// with CLOSE_SSTHRESH_HALF from window() = 1): repeats set it to 2.
#[test]
fn halve_on_repeated_rto_collapses_ssthresh_to_two() {
    let seen = ssthresh_at_timeouts("halve_on_repeated_rto = true");
    assert!(seen[0] > 2.0, "first RTO: ssthresh from min(FlightSize, cwnd), got {}", seen[0]);
    assert!(seen[1..].iter().all(|&x| x == 2.0), "repeats: {seen:?}");
}

/// ssthresh after each of four consecutive timeouts in a black hole.
fn ssthresh_at_timeouts(extra: &str) -> Vec<f64> {
    let mut sim = sim_with(extra);
    let cwnd_before = sim.tcp_sender(0).unwrap().st.cwnd;
    // the black hole starts with cwnd well above 4 segments
    assert!(cwnd_before >= 8.0, "cwnd {cwnd_before}");
    let mut seen = Vec::new();
    set_loss(&mut sim, FWD_BNECK, 0.999999);
    while seen.len() < 4 {
        assert!(step(&mut sim));
        let s = sim.tcp_sender(0).unwrap();
        if s.stats.timeouts as usize > seen.len() {
            seen.push(s.st.ssthresh);
        }
    }
    seen
}

/// `rtt_estimator = "ns2"` (ns-2.35 tcp.cc, no timestamps): SRTT is a whole
/// number of `tcpTick_`s, and after timeouts the ACK of the retransmission
/// does not clear the backoff (Karn: retransmitted data is not timed); a
/// segment sent after the recovery, timed and acknowledged, does.
#[test]
fn ns2_estimator_ticks_and_karn_backoff() {
    let tick = 0.01;
    let mut sim = Dumbbell::new(10e6, 1000, 60.0)
        .loss(1e-15)
        .flow(&format!(
            "rtt_s = {RTT}\nmax_cwnd_pkts = 20\nmin_rto_s = {MIN_RTO}\nmax_rto_s = {MAX_RTO}\n\
             clock_granularity_s = {tick}\nrtt_estimator = \"ns2\""
        ))
        .sim();
    sim.run_until(5.0);
    let s = sim.tcp_sender(0).unwrap();
    let srtt = s.rtt.srtt().expect("timed segments were acknowledged");
    assert!((srtt / tick - (srtt / tick).round()).abs() < 1e-9, "SRTT {srtt} is not whole ticks");
    assert!((srtt - RTT).abs() <= 2.0 * tick, "SRTT {srtt}, path RTT {RTT}");
    // RTO = floor(SRTT + 4 RTTVAR) ticks, also whole ticks (min_rto below it)
    let rto = s.rto();
    assert!((rto / tick - (rto / tick).round()).abs() < 1e-9 && rto >= srtt, "RTO {rto}");
    let o = outage(&mut sim, 2);
    assert_eq!(sim.tcp_sender(0).unwrap().rtt.backoff, 2);
    set_loss(&mut sim, FWD_BNECK, 0.0);
    let una = sim.tcp_sender(0).unwrap().sb.una();
    while sim.tcp_sender(0).unwrap().sb.una() == una {
        assert!(step(&mut sim), "no recovery after the link healed");
    }
    // The retransmission is acknowledged: RFC 6298 mode clears the backoff
    // here (backoff_clears_after_new_data_is_acked); ns-2 keeps it.
    assert_eq!(sim.tcp_sender(0).unwrap().rtt.backoff, 2, "ACK of retransmitted data cleared the backoff");
    // Go-back-N resends what was outstanding before any new segment can
    // be timed: the backoff clears with the ACK of data beyond it.
    let high = sim.tcp_sender(0).unwrap().sb.high();
    while sim.tcp_sender(0).unwrap().rtt.backoff != 0 {
        assert!(step(&mut sim), "backoff never cleared");
        assert!(sim.tcp_sender(0).unwrap().sb.una() <= high || sim.tcp_sender(0).unwrap().rtt.backoff == 0);
    }
    let s = sim.tcp_sender(0).unwrap();
    assert!(s.sb.una() > high, "backoff cleared at una {} before new data beyond {high} was acked", s.sb.una());
    assert_eq!(sim.tcp_sender(0).unwrap().stats.timeouts, 2);
    assert!(o.timeouts.len() == 2);
}

#[test]
fn ns2_estimator_needs_a_tick() {
    let sc = ccsim_core::Scenario::from_toml(
        "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e6\n\
         bottleneck_queue = { limit_pkts = 10 }\n[[flows]]\nrtt_s = 0.1\nrtt_estimator = \"ns2\"\n\
         clock_granularity_s = 0.0\n",
    )
    .and_then(|sc| ccsim_core::Simulation::new(&sc).map(|_| ()));
    let e = sc.expect_err("a zero tick must be rejected").to_string();
    assert!(e.contains("flows[0].clock_granularity_s") && e.contains("rtt_estimator"), "{e}");
    let bad = ccsim_core::Scenario::from_toml(
        "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e6\n\
         bottleneck_queue = { limit_pkts = 10 }\n[[flows]]\nrtt_s = 0.1\nrtt_estimator = \"bsd\"\n",
    )
    .expect_err("unknown estimator")
    .to_string();
    assert!(
        bad.contains("rtt_estimator") && bad.contains("rfc6298") && bad.contains("ns2") && bad.contains("linux"),
        "{bad}"
    );
}
