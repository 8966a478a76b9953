//! The DRR queue (`kind = "drr"`) end to end: GWA-RR over it on the GWA
//! paper's LAN (§6.1: no loss at any buffer, equal shares), isolation of
//! responsive flows from an unresponsive one, conservation and determinism.
use crate::common;
use ccsim_core::stats::Results;
use ccsim_core::Scenario;
use common::*;

/// The paper's LAN (§6.1), as in tests/gwa.rs, with the bottleneck table `q`.
fn lan(n: u32, q: &str, flow_extra: &str, duration: f64) -> String {
    format!(
        "name = \"drr-lan\"\nseed = 3\nduration_s = {duration:?}\nwarmup_s = 5.0\nsample_interval_s = 0.05\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 40e-6\n\
         bottleneck_queue = {q}\nedge_rate_bps = 100e6\nedge_delay_s = 30e-6\n\
         [[flows]]\ncount = {n}\ncc = \"reno\"\nrecovery = \"reno\"\nmss_bytes = 1000\nheader_bytes = 40\n\
         rwnd_pkts = 64\nclock_granularity_s = 0.1\n{flow_extra}\n"
    )
}

fn run_toml(t: &str) -> Results {
    run(&Scenario::from_toml(&common::classic_toml(t)).unwrap_or_else(|e| panic!("{e}\n{t}")))
}

#[test]
fn gwa_rr_over_drr_never_drops_and_shares_equally() {
    // §4: per-flow queueing with round robin is loss-free at any buffer;
    // §6.1: perfect fairness and full utilisation on the LAN.
    for buffer in [12_000u64, 30_000, 120_000] {
        let q = format!("{{ kind = \"drr\", limit_bytes = {buffer}, gwa = \"rr\" }}");
        let r = run_toml(&lan(10, &q, "gwa = true", 10.0));
        let l = &r.links[FWD_BNECK];
        assert_eq!(l.drops, 0, "buffer {buffer}: {} drops", l.drops);
        assert!(l.utilization > 0.95, "buffer {buffer}: utilisation {}", l.utilization);
        assert!(r.jain_index > 0.99, "buffer {buffer}: Jain {}", r.jain_index);
        assert!(l.max_queue_bytes <= buffer, "buffer {buffer}: queue reached {}", l.max_queue_bytes);
        // the advertised window: W_a = min(rwnd, B_n) never above rwnd
        let s = &r.series.flows;
        assert_eq!(s.awnd_pkts.len(), s.time_s.len());
        assert!(s.awnd_pkts.iter().all(|&w| (1.0..=64.0).contains(&w)));
        assert!(r.flows.iter().all(|f| f.awnd_pkts.is_some_and(|w| w <= 64.0)));
    }
    // with packet limits too (B_t = limit_pkts x gwa_pkt_bytes)
    let r = run_toml(&lan(10, "{ kind = \"drr\", limit_pkts = 20, gwa = \"rr\" }", "gwa = true", 8.0));
    assert_eq!(r.links[FWD_BNECK].drops, 0);
    assert!(r.jain_index > 0.99, "Jain {}", r.jain_index);
}

#[test]
fn drr_without_gwa_drops_but_stays_fair_and_conserves() {
    // Plain Reno over a small DRR buffer loses packets (longest-queue
    // drops, counted as the link's drops) yet every flow gets its share.
    let r = run_toml(&lan(10, "{ kind = \"drr\", limit_bytes = 30000 }", "", 10.0));
    assert!(r.links[FWD_BNECK].drops > 0);
    assert!(r.links[FWD_BNECK].utilization > 0.9);
    assert!(r.jain_index > 0.98, "Jain {}", r.jain_index);
}

/// Two Reno flows and a UDP source at twice the bottleneck rate.
fn isolation(queue: &str) -> Results {
    let t = format!(
        "name = \"drr-isolation\"\nseed = 5\nduration_s = 20.0\nwarmup_s = 5.0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\nbottleneck_delay_s = 0.01\n\
         bottleneck_queue = {queue}\n\
         [[flows]]\ncount = 2\ncc = \"reno\"\nrtt_range_s = [0.02, 0.06]\n\
         [[flows]]\ntransport = \"udp\"\nrate_bps = 20e6\n"
    );
    run_toml(&t)
}

#[test]
fn an_unresponsive_flow_gets_only_its_round_robin_share() {
    // DropTail: the UDP flood fills the FIFO and the TCP flows starve.
    // DRR: the flood's own queue is the longest, so its packets are the
    // ones dropped; each flow gets about a third of the link.
    let dt = isolation("{ limit_pkts = 50 }");
    let drr = isolation("{ kind = \"drr\", limit_pkts = 50 }");
    let tcp = |r: &Results| r.flows.iter().filter(|f| f.transport == "tcp").map(|f| f.goodput_bps).collect::<Vec<_>>();
    let udp = |r: &Results| r.flows.iter().find(|f| f.transport == "udp").unwrap().goodput_bps;
    assert!(tcp(&dt).iter().all(|&g| g < 1.5e6), "DropTail TCP goodputs {:?}", tcp(&dt));
    let share = 10e6 * 1000.0 / 1040.0 / 3.0; // payload rate of a third of the link
    for g in tcp(&drr) {
        assert!(g > 0.75 * share, "DRR TCP goodput {g} (share {share})");
    }
    let u = udp(&drr);
    assert!((0.85 * share..1.15 * share).contains(&u), "DRR UDP goodput {u} (share {share})");
}

#[test]
fn drr_runs_are_deterministic() {
    let t = lan(6, "{ kind = \"drr\", limit_bytes = 20000, quantum_bytes = 250, buckets = 4 }", "", 6.0);
    let a = run_toml(&t);
    let b = run_toml(&t);
    assert_eq!(a.to_json().replace("wall_s", ""), b.to_json().replace("wall_s", ""));
}

#[test]
fn drr_fields_are_validated_with_named_errors() {
    let bad = |q: &str| {
        let t = lan(2, q, "", 6.0);
        Scenario::from_toml(&common::classic_toml(&t))
            .and_then(|s| ccsim_core::Simulation::new(&s).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let e = bad("{ kind = \"drr\", limit_bytes = 30000, quantum_bytes = 0 }");
    assert!(e.contains("bottleneck_queue.quantum_bytes"), "{e}");
    let e = bad("{ kind = \"drr\", limit_bytes = 30000, buckets = -1 }");
    assert!(e.contains("bottleneck_queue.buckets"), "{e}");
    let e = bad("{ kind = \"drr\" }");
    assert!(e.contains("bottleneck_queue") && e.contains("no limit"), "{e}");
    let e = bad("{ kind = \"drr\", limit_pkts = 10, blimit = 5 }");
    assert!(e.contains("bottleneck_queue.blimit") && e.contains("unknown field"), "{e}");
    // droptail still has no per-flow queues for GWA-RR
    let e = bad("{ limit_bytes = 30000, gwa = \"rr\" }");
    assert!(e.contains("per-flow"), "{e}");
}

/// §6.1's mix: every host runs an FTP and a Telnet connection.
fn lan_with_telnet(q: &str, gwa: &str) -> String {
    lan(10, q, gwa, 15.0)
        + &format!(
            "[[flows]]\ncount = 10\napp = \"telnet\"\ncc = \"reno\"\nrecovery = \"reno\"\nmss_bytes = 1000\n\
             header_bytes = 40\nrwnd_pkts = 64\nclock_granularity_s = 0.1\n{gwa}\n"
        )
}

#[test]
fn telnet_beside_ftp_is_loss_free_and_prompt_under_gwa_rr() {
    // Fig 5: GWA's loss-free operation keeps Telnet delays low, while
    // Reno over DropTail loses packets and Telnet segments wait for
    // retransmissions.
    let gwa = run_toml(&lan_with_telnet("{ kind = \"drr\", limit_bytes = 30000, gwa = \"rr\" }", "gwa = true"));
    let reno = run_toml(&lan_with_telnet("{ limit_bytes = 30000 }", ""));
    let telnet_delays = |r: &Results| {
        let t: Vec<_> = r.flows.iter().filter(|f| f.app_delay_count.is_some()).collect();
        assert_eq!(t.len(), 10);
        let n: u64 = t.iter().map(|f| f.app_delay_count.unwrap()).sum();
        let mean =
            t.iter().map(|f| f.app_delay_mean_s.unwrap() * f.app_delay_count.unwrap() as f64).sum::<f64>() / n as f64;
        let max = t.iter().map(|f| f.app_delay_max_s.unwrap()).fold(0.0, f64::max);
        (n, mean, max)
    };
    let (gn, gmean, gmax) = telnet_delays(&gwa);
    let (rn, rmean, rmax) = telnet_delays(&reno);
    assert_eq!(gwa.links[FWD_BNECK].drops, 0);
    assert!(reno.links[FWD_BNECK].drops > 0);
    assert!(gn > 900 && rn > 900, "{gn} and {rn} telnet segments measured");
    assert!(gmean < rmean && gmax < rmax, "GWA-RR mean {gmean} max {gmax}; Reno mean {rmean} max {rmax}");
    // a telnet segment under DRR waits at most about a round of the other
    // queues (20 flows x one packet at 100 Mb/s, ~1.7 ms), no retransmission
    assert!(gmax < 0.01, "GWA-RR telnet max delay {gmax}");
}
