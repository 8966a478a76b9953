//! Invalid scenarios produce the documented errors, `scenario.<field>: <msg>`
//! naming the field path and what is wrong (docs/scenario.md), whether the
//! problem is found while parsing (`Scenario::from_toml` / `from_json`) or
//! while building the network (`Simulation::new`: routes, RTT feasibility);
//! and no input makes the library panic.
use crate::common;
use ccsim_core::scenario::{ConfigError, Topology};
use ccsim_core::{Scenario, Simulation};
use std::panic::{catch_unwind, AssertUnwindSafe};

const DUMBBELL: &str = r#"
duration_s = 2.0
[topology]
kind = "dumbbell"
bottleneck_rate_bps = 10e6
bottleneck_delay_s = 0.01
bottleneck_queue = { limit_pkts = 20 }
[[flows]]
rtt_s = 0.05
"#;

const PARKING_LOT: &str = r#"
duration_s = 2.0
[topology]
kind = "parking_lot"
n_links = 3
link_rate_bps = 10e6
link_delay_s = 0.01
link_queue = { limit_pkts = 20 }
[[flows]]
hops = [0, 2]
rtt_s = 0.1
"#;

const CUSTOM: &str = r#"
duration_s = 2.0
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
links = [
  { from = "a", to = "b", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } },
  { from = "b", to = "c", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } },
  { from = "c", to = "d", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } },
]
[[flows]]
route = ["a", "b", "c"]
"#;

/// The error of a scenario, from parsing or, if it parses, from building.
fn error_of(toml: &str) -> ConfigError {
    match Scenario::from_toml(toml) {
        Err(e) => e,
        Ok(sc) => match Simulation::new(&sc) {
            Err(e) => e,
            Ok(_) => panic!("scenario accepted, expected an error:\n{toml}"),
        },
    }
}

/// Assert the error names `field` and mentions every word.
fn check(toml: &str, field: &str, words: &[&str]) {
    let e = error_of(toml);
    let shown = e.to_string();
    assert_eq!(e.field, field, "wrong field path in: {shown}");
    assert!(shown.starts_with(&format!("scenario.{field}: ")), "display: {shown}");
    for w in words {
        assert!(e.msg.contains(w), "{shown:?} does not mention {w:?}");
    }
}

fn with(base: &str, from: &str, to: &str) -> String {
    assert!(base.contains(from), "test bug: {from:?} not in the base scenario");
    base.replacen(from, to, 1)
}

#[test]
fn valid_bases_are_accepted() {
    for t in [DUMBBELL, PARKING_LOT] {
        let sc = Scenario::from_toml(t).unwrap();
        let r = Simulation::new(&sc).unwrap().run();
        common::assert_conserved(&r);
    }
}

#[test]
fn rates_must_be_positive_and_finite() {
    check(&with(DUMBBELL, "10e6", "-1e6"), "topology.bottleneck_rate_bps", &["-1000000", "not allowed", "> 0"]);
    check(&with(DUMBBELL, "10e6", "0"), "topology.bottleneck_rate_bps", &["0 is not allowed", "> 0"]);
    check(&with(DUMBBELL, "10e6", "nan"), "topology.bottleneck_rate_bps", &["NaN", "finite"]);
    check(&with(DUMBBELL, "10e6", "inf"), "topology.bottleneck_rate_bps", &["inf", "finite"]);
    check(&with(PARKING_LOT, "link_rate_bps = 10e6", "link_rate_bps = 0.0"), "topology.link_rate_bps", &["> 0"]);
    check(&with(DUMBBELL, "[[flows]]", "edge_rate_bps = -5.0\n[[flows]]"), "topology.edge_rate_bps", &["-5", "> 0"]);
    check(
        &with(
            CUSTOM,
            "rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } },\n  { from = \"b\"",
            "rate_bps = 0, delay_s = 0.01, queue = { limit_pkts = 20 } },\n  { from = \"b\"",
        ),
        "topology.links[0].rate_bps",
        &["0 is not allowed", "> 0"],
    );
}

#[test]
fn queue_limits() {
    let q = "{ limit_pkts = 20 }";
    check(
        &with(DUMBBELL, q, "{ limit_pkts = 0 }"),
        "topology.bottleneck_queue.limit_pkts",
        &["0 is not allowed", "at least 1"],
    );
    check(&with(DUMBBELL, q, "{ limit_bytes = 0 }"), "topology.bottleneck_queue.limit_bytes", &["0 is not allowed"]);
    check(
        &with(DUMBBELL, q, "{ limit_pkts = 20, limit_bytes = 20000 }"),
        "topology.bottleneck_queue",
        &["both", "limit_pkts", "limit_bytes", "exactly one"],
    );
    check(&with(DUMBBELL, q, "{}"), "topology.bottleneck_queue", &["no limit", "limit_pkts", "limit_bytes"]);
    check(&with(DUMBBELL, q, "{ kind = \"droptail\" }"), "topology.bottleneck_queue", &["no limit"]);
    check(
        &with(DUMBBELL, q, "{ kind = \"fifo9\", limit_pkts = 20 }"),
        "topology.bottleneck_queue.kind",
        &["unknown value", "\"fifo9\"", "allowed", "droptail"],
    );
    check(
        &with(DUMBBELL, q, "{ limit_pkts = 20, limt = 3 }"),
        "topology.bottleneck_queue.limt",
        &["unknown field", "droptail", "limit_pkts"],
    );
    check(
        &with(DUMBBELL, "[[flows]]", "edge_queue = { limit_pkts = 0 }\n[[flows]]"),
        "topology.edge_queue.limit_pkts",
        &["0 is not allowed"],
    );
    check(
        &with(PARKING_LOT, "link_queue = { limit_pkts = 20 }", "link_queue = {}"),
        "topology.link_queue",
        &["no limit"],
    );
}

#[test]
fn byte_limits_must_hold_a_packet_that_crosses_the_link() {
    let q = "{ limit_pkts = 20 }";
    // 100 bytes: no 1040-byte data packet fits on r0->r1
    check(
        &with(DUMBBELL, q, "{ limit_bytes = 100 }"),
        "topology.bottleneck_queue.limit_bytes",
        &["100 is not allowed", "r0->r1", "1040 bytes", "mss_bytes 1000 + header_bytes 40", ">= 1040"],
    );
    check(
        &with(DUMBBELL, q, "{ kind = \"drr\", limit_bytes = 1039 }"),
        "topology.bottleneck_queue.limit_bytes",
        &["1039 is not allowed", ">= 1040"],
    );
    let big = with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmss_bytes = 1460\nheader_bytes = 52");
    check(
        &with(&big, q, "{ limit_bytes = 1500 }"),
        "topology.bottleneck_queue.limit_bytes",
        &["1500 is not allowed", "1512 bytes", "mss_bytes 1460 + header_bytes 52"],
    );
    // a finite transfer's last, shorter segment is the smallest packet
    let finite = with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nbytes = 2500");
    check(&with(&finite, q, "{ limit_bytes = 539 }"), "topology.bottleneck_queue.limit_bytes", &["540 bytes"]);
    // one packet exactly fits; edge queues are checked alike
    assert!(Simulation::new(&Scenario::from_toml(&with(DUMBBELL, q, "{ limit_bytes = 1040 }")).unwrap()).is_ok());
    check(
        &with(DUMBBELL, "[[flows]]", "edge_queue = { limit_bytes = 500 }\n[[flows]]"),
        "topology.edge_queue.limit_bytes",
        &["500 is not allowed", "s0->r0"],
    );
    // a direction that carries ACKs (40 bytes) holds them: a 100-byte
    // reverse queue is a (small) queue, not a refusal
    let rev = with(
        CUSTOM,
        "{ from = \"b\", to = \"c\", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } }",
        "{ from = \"b\", to = \"c\", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 }, \
         reverse_queue = { limit_bytes = 100 } }",
    );
    assert!(Simulation::new(&Scenario::from_toml(&rev).unwrap()).is_ok());
    check(
        &with(&rev, "reverse_queue = { limit_bytes = 100 }", "reverse_queue = { limit_bytes = 39 }"),
        "topology.links[1].reverse_queue.limit_bytes",
        &["39 is not allowed", "c->b", "ACKs: flows[0].header_bytes = 40"],
    );
    // a link no flow crosses (c->d) is not checked
    let idle = with(
        CUSTOM,
        "{ from = \"c\", to = \"d\", rate_bps = 10e6, delay_s = 0.01, queue = { limit_pkts = 20 } }",
        "{ from = \"c\", to = \"d\", rate_bps = 10e6, delay_s = 0.01, queue = { limit_bytes = 10 } }",
    );
    assert!(Simulation::new(&Scenario::from_toml(&idle).unwrap()).is_ok());
}

#[test]
fn unknown_names_list_what_is_allowed() {
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\ncc = \"cubicc\""),
        "flows[0].cc",
        &["unknown value", "\"cubicc\"", "allowed:", "reno"],
    );
    // The index names the offending entry.
    check(
        &format!("{DUMBBELL}[[flows]]\nrtt_s = 0.05\ncc = \"cubicc\"\n"),
        "flows[1].cc",
        &["unknown value", "\"cubicc\""],
    );
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nrecovery = \"tahoe\""),
        "flows[0].recovery",
        &["tahoe", "reno", "newreno", "sack"],
    );
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\npacing = \"leaky\""),
        "flows[0].pacing",
        &["leaky", "none", "interval", "token_bucket"],
    );
    check(&with(DUMBBELL, "\"dumbbell\"", "\"star\""), "topology.kind", &["star", "dumbbell", "parking_lot", "custom"]);
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\ntransport = \"sctp\""),
        "flows[0].transport",
        &["\"sctp\"", "tcp", "udp"],
    );
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\ncc_params = { abcd = true }"),
        "flows[0].cc_params.abcd",
        &["unknown parameter", "abc"],
    );
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\ncc_params = { abc = 3 }"),
        "flows[0].cc_params.abc",
        &["3", "true or false"],
    );
}

#[test]
fn unknown_fields_are_rejected() {
    check(&with(DUMBBELL, "duration_s", "duraton_s"), "duraton_s", &["unknown field", "`duraton_s`", "duration_s"]);
    check(&with(DUMBBELL, "rtt_s", "rtt_ss"), "flows[0].rtt_ss", &["unknown field", "`rtt_ss`", "rtt_s"]);
    // Inside the (internally tagged) topology table the path stops at
    // `topology`, but the message names the unknown field.
    let e = error_of(&with(DUMBBELL, "bottleneck_delay_s", "bottleneck_dealy_s"));
    assert!(e.field.starts_with("topology"), "{e}");
    assert!(e.msg.contains("unknown field") && e.msg.contains("bottleneck_dealy_s"), "{e}");
    // JSON: same rules.
    let e = Scenario::from_json(
        r#"{"duration_s": 1.0, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e6,
            "bottleneck_queue": {"limit_pkts": 5}}, "flows": [{"rtt": 0.1}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "flows[0].rtt", "{e}");
    assert!(e.msg.contains("unknown field"), "{e}");
}

/// A key that is not a bare TOML key is quoted in the path, so the path
/// stays unambiguous (found by the Python fuzz: a damaged ` uration_s`
/// read `scenario. uration_s`).
#[test]
fn odd_keys_are_quoted_in_the_path() {
    check(&with(DUMBBELL, "duration_s", "\" uration_s\""), "\" uration_s\"", &["unknown field", "` uration_s`"]);
    check(&with(DUMBBELL, "rtt_s", "\"rtt.s\""), "flows[0].\"rtt.s\"", &["unknown field"]);
    let e = Scenario::from_json(
        r#"{"duration_s": 1.0, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e6,
            "bottleneck_queue": {"limit_pkts": 5}}, "flows": [{"a\"b\\c\u0001": 0.1}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, r#"flows[0]."a\"b\\c\u0001""#, "{e}");
    // bare keys stay bare
    check(&with(DUMBBELL, "rtt_s", "rtt-s"), "flows[0].rtt-s", &["unknown field"]);
}

#[test]
fn loss_probability_must_be_below_one() {
    check(
        &with(DUMBBELL, "[[flows]]", "bottleneck_loss = 1.0\n[[flows]]"),
        "topology.bottleneck_loss",
        &["1 is not allowed", "[0, 1)"],
    );
    check(
        &with(DUMBBELL, "[[flows]]", "bottleneck_reverse_loss = -0.1\n[[flows]]"),
        "topology.bottleneck_reverse_loss",
        &["-0.1", "[0, 1)"],
    );
    check(&with(PARKING_LOT, "[[flows]]", "link_loss = 1.5\n[[flows]]"), "topology.link_loss", &["1.5", "[0, 1)"]);
    check(
        &with(CUSTOM, "queue = { limit_pkts = 20 } },\n]", "queue = { limit_pkts = 20 }, reverse_loss = 1.0 },\n]"),
        "topology.links[2].reverse_loss",
        &["[0, 1)"],
    );
    // 0.999999 is allowed.
    let ok = with(DUMBBELL, "[[flows]]", "bottleneck_loss = 0.999999\n[[flows]]");
    Simulation::new(&Scenario::from_toml(&ok).unwrap()).unwrap();
}

#[test]
fn durations_and_times() {
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = -1.0"), "duration_s", &["-1", "> 0"]);
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = 0.0"), "duration_s", &["0 is not allowed"]);
    check(
        &with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nwarmup_s = 2.0"),
        "warmup_s",
        &["2 is not allowed", "< duration_s (2)"],
    );
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nwarmup_s = 3.5"), "warmup_s", &["< duration_s"]);
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nwarmup_s = -0.5"), "warmup_s", &[">= 0"]);
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nstart_s = 5.0\nstop_s = 5.0"),
        "flows[0].stop_s",
        &["5 is not allowed", "> start_s (5)"],
    );
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nstart_s = 1.0\nstop_s = 0.5"),
        "flows[0].stop_s",
        &["> start_s (1)"],
    );
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nstart_s = -1.0"), "flows[0].start_s", &[">= 0"]);
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmin_rto_s = 0"), "flows[0].min_rto_s", &["> 0"]);
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmin_rto_s = 1.0\nmax_rto_s = 0.5"),
        "flows[0].max_rto_s",
        &["0.5", ">= 1"],
    );
}

#[test]
fn rtt_must_cover_the_bottleneck_round_trip() {
    // Dumbbell: the bottleneck alone gives 2 · 0.01 s.
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.015"),
        "flows[0].rtt_s",
        &["0.015 is not allowed", "shorter than the round trip", "0.02 s"],
    );
    // Exactly the bottleneck round trip is fine (zero-delay edges).
    let ok = with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.02");
    let r = Simulation::new(&Scenario::from_toml(&ok).unwrap()).unwrap().run();
    common::assert_conserved(&r);
    assert!((r.flows[0].rtt_prop_s - 0.02).abs() < 1e-12);
    // Parking lot: three links of 0.01 s -> 0.06 s.
    check(&with(PARKING_LOT, "rtt_s = 0.1", "rtt_s = 0.05"), "flows[0].rtt_s", &["0.05", "0.06 s"]);
    // One list entry too short.
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "count = 3\nrtt_s = [0.05, 0.01, 0.08]"),
        "flows[0].rtt_s",
        &["0.01 is not allowed", "shorter"],
    );
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = -0.05"), "flows[0].rtt_s", &["> 0"]);
}

#[test]
fn rtt_lists_need_one_value_per_flow() {
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "count = 3\nrtt_s = [0.05, 0.1]"),
        "flows[0].rtt_s",
        &["list of 2 values", "count = 3"],
    );
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = [0.05, 0.1]"), "flows[0].rtt_s", &["list of 2 values", "count = 1"]);
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nrtt_range_s = [0.05, 0.1]"),
        "flows[0].rtt_range_s",
        &["rtt_s", "only one"],
    );
}

#[test]
fn hops_must_lie_within_the_chain() {
    check(&with(PARKING_LOT, "hops = [0, 2]", "hops = [1, 3]"), "flows[0].hops", &["[1, 3]", "n_links (3)"]);
    check(&with(PARKING_LOT, "hops = [0, 2]", "hops = [2, 1]"), "flows[0].hops", &["[2, 1]", "first <= last"]);
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nhops = [0, 1]"), "flows[0].hops", &["dumbbell"]);
    check(&with(PARKING_LOT, "n_links = 3", "n_links = 0"), "topology.n_links", &["0 is not allowed"]);
    check(&with(PARKING_LOT, "rtt_s = 0.1", "rtt_s = 0.1\nroute = [\"r0\", \"r1\"]"), "flows[0].route", &["custom"]);
}

#[test]
fn custom_topology_structure() {
    check(&with(CUSTOM, "from = \"c\"", "from = \"x\""), "topology.links[2].from", &["unknown node", "\"x\""]);
    check(&with(CUSTOM, "to = \"d\"", "to = \"c\""), "topology.links[2].to", &["\"c\"", "itself"]);
    check(&with(CUSTOM, "\"c\", \"d\"]", "\"c\", \"a\"]"), "topology.nodes[3]", &["\"a\"", "twice"]);
    check(&with(CUSTOM, "route = [\"a\", \"b\", \"c\"]", ""), "flows[0].route", &["missing"]);
    check(&with(CUSTOM, "[\"a\", \"b\", \"c\"]", "[\"a\"]"), "flows[0].route", &["too short"]);
    check(
        &with(CUSTOM, "route = [\"a\", \"b\", \"c\"]", "route = [\"a\", \"b\"]\nrtt_s = 0.1"),
        "flows[0].rtt_s",
        &["custom"],
    );
}

#[test]
fn custom_routes_are_checked_against_nodes_and_links() {
    // A valid route is accepted and runs.
    let r = Simulation::new(&Scenario::from_toml(CUSTOM).unwrap()).unwrap().run();
    common::assert_conserved(&r);
    assert!(r.flows[0].delivered_bytes > 0);
    // a -> c has no link.
    check(
        &with(CUSTOM, "[\"a\", \"b\", \"c\"]", "[\"a\", \"c\", \"d\"]"),
        "flows[0].route[1]",
        &["no link from \"a\" to \"c\""],
    );
    check(
        &with(CUSTOM, "[\"a\", \"b\", \"c\"]", "[\"a\", \"b\", \"d\"]"),
        "flows[0].route[2]",
        &["no link", "\"b\"", "\"d\""],
    );
    check(
        &with(CUSTOM, "[\"a\", \"b\", \"c\"]", "[\"a\", \"zz\", \"c\"]"),
        "flows[0].route[1]",
        &["unknown node", "\"zz\""],
    );
}

#[test]
fn type_and_syntax_errors() {
    let e = error_of(&with(DUMBBELL, "[topology]", "[topology"));
    assert_eq!(e.field, "");
    assert!(e.msg.starts_with("invalid TOML") && e.msg.contains("line 3"), "{e}");
    let e = error_of(&with(DUMBBELL, "duration_s = 2.0", ""));
    assert!(e.msg.contains("missing field `duration_s`"), "{e}");
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmss_bytes = \"big\""), "flows[0].mss_bytes", &["\"big\""]);
    check(&with(DUMBBELL, "rtt_s = 0.05", "count = -1"), "flows[0].count", &["-1"]);
    check(&with(DUMBBELL, "rtt_s = 0.05", "count = 0"), "flows[0].count", &["0 is not allowed"]);
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nseed = -1"), "seed", &["-1"]);
    let e = error_of(&format!("{}flows = []\n", DUMBBELL.split("[topology]").next().unwrap()));
    assert!(e.msg.contains("missing field `topology`"), "{e}");
    let no_flows =
        DUMBBELL.replace("[[flows]]\nrtt_s = 0.05\n", "").replace("duration_s = 2.0", "duration_s = 2.0\nflows = []");
    check(&no_flows, "flows", &["empty"]);
    let e = Scenario::from_json("{\"duration_s\": 1.0,").unwrap_err();
    assert!(e.msg.contains("EOF") && e.msg.contains("line 1"), "{e}");
}

#[test]
fn type_errors_inside_the_topology_name_the_field() {
    // docs/scenario.md: every invalid field gives an error naming the field
    // path. `topology` is an internally tagged enum, so serde buffers it and
    // serde_path_to_error cannot see inside: the error reads
    // `scenario.topology: invalid type: string "fast", expected f64`.
    for (from, to, key) in [
        ("10e6", "\"fast\"", "bottleneck_rate_bps"),
        ("limit_pkts = 20", "limit_pkts = -3", "limit_pkts"),
        ("bottleneck_delay_s = 0.01", "bottleneck_delay_s = true", "bottleneck_delay_s"),
    ] {
        let e = error_of(&with(DUMBBELL, from, to));
        assert!(e.field.contains(key) || e.msg.contains(key), "{key} not named in: {e}");
    }
}

#[test]
fn rtt_range_below_the_path_round_trip_is_rejected_for_every_seed() {
    // The range's lower end (1 ms) is below the dumbbell's 20 ms bottleneck
    // round trip; whether the drawn RTT is feasible depends on the seed
    // (seed 2 fails, seeds 1 and 3-10 pass), and the error names rtt_s, a
    // field the scenario does not set.
    let base = with(DUMBBELL, "rtt_s = 0.05", "rtt_range_s = [0.001, 0.1]");
    for seed in 1..=10 {
        let t = with(&base, "duration_s = 2.0", &format!("duration_s = 2.0\nseed = {seed}"));
        check(&t, "flows[0].rtt_range_s[0]", &["shorter"]);
    }
}

// ---------------------------------------------------------------- no panics

/// Replacement values for the fuzz: wrong types, signs, special floats,
/// out-of-range integers.
const VALUES: &[&str] = &[
    "-1",
    "0",
    "-0.0",
    "1e-9",
    "nan",
    "-inf",
    "inf",
    "\"x\"",
    "true",
    "[]",
    "{}",
    "[1, 2]",
    "4294967296",
    "9223372036854775807",
    "1e300",
    "-1e300",
    "0.5",
    "2",
    "1e-3",
    "1000",
];

/// Mutations of a scenario text: every value replaced by each of VALUES,
/// every line deleted, duplicated, truncated.
fn mutations(base: &str) -> Vec<String> {
    let lines: Vec<&str> = base.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let join = |new: Option<String>| {
            let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            match new {
                Some(n) => v[i] = n,
                None => {
                    v.remove(i);
                }
            }
            v.join("\n")
        };
        out.push(join(None));
        out.push(join(Some(format!("{l}\n{l}"))));
        out.push(join(Some(l[..l.len() / 2].to_string())));
        if let Some((k, _)) = l.split_once(" = ") {
            if !k.starts_with('[') && !k.contains('{') {
                for v in VALUES {
                    out.push(join(Some(format!("{k} = {v}"))));
                }
            }
        }
    }
    for cut in (0..base.len()).step_by(7) {
        if base.is_char_boundary(cut) {
            out.push(base[..cut].to_string());
        }
    }
    // Deterministic byte-level garbage.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..200 {
        let mut b = base.as_bytes().to_vec();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % b.len() as u64) as usize;
            const GARBAGE: &[u8] = b"=[]{}\",.-0123456789e\n #ax";
            b[i] = GARBAGE[(x >> 32) as usize % GARBAGE.len()];
        }
        out.push(String::from_utf8_lossy(&b).into_owned());
    }
    out
}

/// Whether a parsed scenario stays where the known clock-overflow bugs
/// (ignored tests in clock_range below) cannot bite: every time below 1e6 s,
/// every rate at least 1 kb/s, packet sizes far below u32::MAX.
fn within_clock_range(sc: &Scenario) -> bool {
    let t = |x: f64| x <= 1e6;
    let mut ok =
        t(sc.duration_s) && t(sc.fairness_window_s) && (sc.sample_interval_s == 0.0 || sc.sample_interval_s >= 1e-3);
    ok &= match &sc.topology {
        Topology::Dumbbell(d) => {
            d.bottleneck_rate_bps >= 1e3 && d.edge_rate_bps >= 1e3 && t(d.bottleneck_delay_s) && t(d.edge_delay_s)
        }
        Topology::ParkingLot(p) => {
            p.n_links <= 100
                && p.link_rate_bps >= 1e3
                && p.edge_rate_bps >= 1e3
                && t(p.link_delay_s)
                && t(p.edge_delay_s)
        }
        Topology::Custom(c) => c.links.iter().all(|l| l.rate_bps >= 1e3 && t(l.delay_s)),
    };
    ok && sc.flows.iter().map(|f| f.count as u64).sum::<u64>() <= 100
        && sc.flows.iter().all(|f| {
            [f.delack_timeout_s, f.min_rto_s, f.max_rto_s, f.init_rto_s, f.clock_granularity_s]
                .into_iter()
                .flatten()
                .chain([f.start_s, f.start_spread_s])
                .chain(f.stop_s)
                .all(t)
                && f.mss_bytes as u64 + f.header_bytes as u64 <= 1 << 20
                && match &f.rtt_s {
                    Some(ccsim_core::scenario::OneOrMany::One(x)) => t(*x),
                    Some(ccsim_core::scenario::OneOrMany::Many(v)) => v.iter().all(|x| t(*x)),
                    None => true,
                }
                && f.rtt_range_s.is_none_or(|r| t(r[1]))
        })
}

#[test]
fn garbage_never_panics() {
    let (mut parsed, mut built, mut ran, mut total) = (0, 0, 0, 0);
    for base in [DUMBBELL, PARKING_LOT, CUSTOM] {
        for text in mutations(base) {
            total += 1;
            let res = catch_unwind(AssertUnwindSafe(|| {
                let mut stage = 0;
                for sc in [Scenario::from_toml(&text).ok(), Scenario::from_json(&text).ok()].into_iter().flatten() {
                    stage = stage.max(1);
                    // The normalised form must parse back.
                    let back = Scenario::from_json(&sc.to_json()).expect("a validated scenario re-parses");
                    assert_eq!(back.to_json(), sc.to_json());
                    if let Ok(mut sim) = Simulation::new(&sc) {
                        stage = stage.max(2);
                        if within_clock_range(&sc) {
                            sim.run_until(sc.duration_s.min(0.3));
                            common::assert_conserved(&sim.results());
                            stage = 3;
                        }
                    }
                }
                stage
            }));
            match res {
                Ok(s) => {
                    parsed += (s >= 1) as u32;
                    built += (s >= 2) as u32;
                    ran += (s >= 3) as u32;
                }
                Err(_) => panic!("panic on input:\n{text}"),
            }
        }
    }
    eprintln!("{total} inputs: {parsed} parsed, {built} built, {ran} ran");
    // The mutations are not all rejected: the run path is exercised too.
    assert!(parsed > 60 && built > 40 && ran > 30, "{parsed} {built} {ran}");
}

// ------------------------------------------- magnitudes beyond the clock
//
// Time is u64 picoseconds: at most 1.8e7 s (213 days). Validation bounds
// every time at 1e6 s and every rate to [1, 1e15] b/s, so no deadline can
// leave the clock; each test below checks the bound and that values inside
// it run correctly.

fn run_toml(t: &str, until: f64) -> ccsim_core::Results {
    let sc = Scenario::from_toml(t).unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_until(until);
    let r = sim.results();
    common::assert_conserved(&r);
    r
}

#[test]
fn huge_fairness_window_is_rejected_and_a_window_longer_than_the_run_works() {
    let t = with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nfairness_window_s = 1e300");
    check(&t, "fairness_window_s", &["<= 1000000"]);
    // A window longer than the run spans every sample: no panic, index valid.
    let t = with(DUMBBELL, "duration_s = 2.0", "duration_s = 2.0\nfairness_window_s = 1e5");
    let r = catch_unwind(|| run_toml(&t, 2.0));
    assert!(r.is_ok(), "fairness window longer than the run panics");
}

#[test]
fn a_link_too_slow_for_the_clock_is_rejected_and_a_slow_link_delivers_nothing_early() {
    check(&with(DUMBBELL, "10e6", "1e-300"), "topology.bottleneck_rate_bps", &["1e-300", "rates must be"]);
    // 1 b/s is allowed: one 1040-byte packet then takes 8320 s, so nothing
    // can arrive within 1 s.
    let r = run_toml(&with(DUMBBELL, "10e6", "1.0"), 1.0);
    assert_eq!(r.flows[0].delivered_bytes, 0, "goodput {} b/s over a 1 b/s link", r.flows[0].goodput_bps);
}

#[test]
fn a_delay_beyond_the_clock_range_is_rejected() {
    let t = with(DUMBBELL, "bottleneck_delay_s = 0.01", "bottleneck_delay_s = 3e7").replace("rtt_s = 0.05", "");
    check(&t, "topology.bottleneck_delay_s", &["3e7", "<= 1000000"]);
}

#[test]
fn a_duration_beyond_the_clock_range_is_rejected() {
    check(&with(DUMBBELL, "duration_s = 2.0", "duration_s = 1e8"), "duration_s", &["<= 1000000"]);
}

#[test]
fn an_rto_at_the_time_bound_backs_off_and_the_run_ends() {
    check(&with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmax_rto_s = 1e9"), "flows[0].max_rto_s", &["<= 1000000"]);
    // A black-holed path with the largest allowed RTO and duration: the RTO
    // doubles from 1 s (1 + 2 + ... + 2^19 < 1e6 s), and the run must end.
    let t = with(DUMBBELL, "duration_s = 2.0", "duration_s = 1e6\nsample_interval_s = 0")
        .replace("[[flows]]", "bottleneck_loss = 0.999999\n[[flows]]")
        .replace("rtt_s = 0.05", "rtt_s = 0.05\nmax_rto_s = 1e6");
    let sc = Scenario::from_toml(&t).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sim = Simulation::new(&sc).unwrap();
        let r = sim.run();
        let _ = tx.send((r, sim.tcp_sender(0).unwrap().stats.timeouts));
    });
    let (r, timeouts) = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the run never ends");
    common::assert_conserved(&r);
    assert!((18..=21).contains(&timeouts), "{timeouts} timeouts");
}

#[test]
fn packet_size_overflow_is_rejected() {
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nmss_bytes = 4294967295"),
        "flows[0].mss_bytes",
        &["1000000 bytes"],
    );
}

/// E-TCP's fields are validated with named errors, and TCP's fields on an
/// E-TCP flow (or E-TCP's on a TCP flow) are rejected, not ignored.
#[test]
fn etcp_fields_are_validated() {
    let etcp = "rtt_s = 0.05\ntransport = \"etcp\"";
    for (line, field, want) in [
        ("b = 0", "b", "> 0"),
        ("b = -3", "b", "> 0"),
        ("p0 = 1.0", "p0", "< 1"),
        ("p0 = -0.1", "p0", ">= 0"),
        ("init_w_pkts = 0.5", "init_w_pkts", "from 1"),
        ("min_w_pkts = 0", "min_w_pkts", "> 0"),
        ("min_w_pkts = 4294967295.0", "min_w_pkts", "at most 1e9"),
        ("init_w_pkts = 1e10", "init_w_pkts", "to 1e9"),
        ("min_rto_s = 0", "min_rto_s", "> 0"),
        ("bytes = 0", "bytes", ">= 1"),
    ] {
        check(&with(DUMBBELL, "rtt_s = 0.05", &format!("{etcp}\n{line}")), &format!("flows[0].{field}"), &[want]);
    }
    check(&with(DUMBBELL, "rtt_s = 0.05", &format!("{etcp}\nvariant = \"rates\"")), "flows[0].variant", &["window"]);
    for (field, line) in
        [("cc", "cc = \"cubic\""), ("recovery", "recovery = \"sack\""), ("pacing", "pacing = \"interval\"")]
    {
        check(
            &with(DUMBBELL, "rtt_s = 0.05", &format!("{etcp}\n{line}")),
            &format!("flows[0].{field}"),
            &["only allowed with transport = \"tcp\"", "transport \"etcp\" takes", "p0"],
        );
    }
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\np0 = 0.01"),
        "flows[0].p0",
        &["only allowed with transport = \"etcp\"", "transport \"tcp\" takes"],
    );
    // `bytes` belongs to both byte-stream transports.
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\ntransport = \"udp\"\nrate_bps = 1e6\nbytes = 10"),
        "flows[0].bytes",
        &["only allowed with transport = \"tcp\" or \"etcp\""],
    );
    // Normalisation fills E-TCP's defaults and no TCP field; idempotent.
    let sc = Scenario::from_toml(&with(DUMBBELL, "rtt_s = 0.05", etcp)).unwrap();
    assert!(sc.flows[0].cc.is_none() && sc.flows[0].dupthresh.is_none());
    assert_eq!((sc.flows[0].b, sc.flows[0].p0), (Some(25.0), Some(0.01)));
    let again = Scenario::from_json(&sc.to_json()).unwrap();
    assert_eq!(again.to_json(), sc.to_json());
}

/// Each transport validates its own fields and names the transport a field
/// belongs to when another transport's flow is given it.
#[test]
fn fields_of_another_transport_are_rejected() {
    let udp = "rtt_s = 0.05\ntransport = \"udp\"\nrate_bps = 1e6";
    for (field, line) in [
        ("cc", "cc = \"cubic\""),
        ("recovery", "recovery = \"sack\""),
        ("delayed_ack", "delayed_ack = true"),
        ("ecn", "ecn = true"),
        ("bytes", "bytes = 1000"),
    ] {
        check(
            &with(DUMBBELL, "rtt_s = 0.05", &format!("{udp}\n{line}")),
            &format!("flows[0].{field}"),
            &["only allowed with transport = \"tcp\"", "transport \"udp\" takes", "rate_bps"],
        );
    }
    check(
        &with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\non_s = 1.0"),
        "flows[0].on_s",
        &["only allowed with transport = \"udp\"", "transport \"tcp\" takes", "recovery"],
    );
    // A TCP flow's fields are filled with TCP's defaults when normalised; a
    // UDP flow's normalised form holds no TCP field.
    let sc = Scenario::from_toml(&with(DUMBBELL, "rtt_s = 0.05", udp)).unwrap();
    assert!(sc.flows[0].cc.is_none() && sc.flows[0].recovery.is_none());
    let sc = Scenario::from_toml(DUMBBELL).unwrap();
    assert_eq!(sc.flows[0].cc.as_deref(), Some("reno"));
    assert_eq!(sc.flows[0].dupthresh, Some(3));
    let again = Scenario::from_json(&sc.to_json()).unwrap();
    assert_eq!(again.to_json(), sc.to_json(), "normalisation is idempotent");
}

/// Queue kinds come from the queue registry, which `ccsim list` shows.
#[test]
fn catalog_lists_registries() {
    let c: serde_json::Value = serde_json::from_str(&ccsim_core::catalog::catalog_json()).unwrap();
    let names = |k: &str| -> Vec<String> {
        c[k].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names("queues"), ["droptail", "red", "drr", "codel", "fq_codel", "pie", "dualpi2"]);
    assert_eq!(names("stages"), ["random_loss", "drop_list", "xcp", "gwa"]);
    assert_eq!(names("transports"), ["tcp", "udp", "etcp"]);
    let param = |t: usize, n: &str| {
        c["transports"][t]["params"].as_array().unwrap().iter().find(|p| p["name"] == n).unwrap().clone()
    };
    assert_eq!(param(0, "dupthresh")["default"], 3);
    assert_eq!(param(2, "b")["default"], 25.0);
    assert_eq!(param(2, "p0")["default"], 0.01);
    assert_eq!(param(2, "variant")["default"], "window");
}

/// Found by trying ccsim as a new user: silent wrong results on
/// custom topologies are named errors now.
#[test]
fn custom_topology_silent_mistakes_are_errors() {
    // a second link between one node pair (either orientation)
    let parallel = with(
        CUSTOM,
        r#"  { from = "b", to = "c""#,
        r#"  { from = "b", to = "a", rate_bps = 1e6, delay_s = 0.01, queue = { limit_pkts = 20 } },
  { from = "b", to = "c""#,
    );
    check(&parallel, "topology.links[1]", &["second link", "\"b\"", "\"a\"", "links[0]", "put a node between"]);
    // a route that returns to a node
    check(
        &with(CUSTOM, r#"route = ["a", "b", "c"]"#, r#"route = ["a", "b", "a", "b", "c"]"#),
        "flows[0].route[2]",
        &["\"a\" appears twice", "route[0]", "each node once"],
    );
    // direction is a dumbbell / parking-lot notion
    check(
        &with(CUSTOM, r#"route = ["a", "b", "c"]"#, "route = [\"a\", \"b\", \"c\"]\ndirection = \"reverse\""),
        "flows[0].direction",
        &["\"reverse\"", "custom topology", "route"],
    );
    // the unchanged scenario is accepted
    Simulation::new(&Scenario::from_toml(CUSTOM).unwrap()).unwrap();
}

/// serde's own wording never reaches the user: each type error
/// says, in the scenario's terms, what was given and what is allowed.
#[test]
fn type_errors_speak_the_scenario_language() {
    let dumbbell = "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\n\
                    bottleneck_queue = { limit_pkts = 20 }\n[[flows]]\nrtt_s = 0.1\n";
    let cases: &[(&str, &str, &str, &[&str])] = &[
        ("rtt_s = 0.1", "rtt_s = \"x\"", "flows[0].rtt_s", &["must be a number or a list of numbers"]),
        (
            "bottleneck_queue = { limit_pkts = 20 }",
            "bottleneck_queue = 5",
            "topology.bottleneck_queue",
            &["5 is not allowed", "queue table such as { limit_pkts = 20 }"],
        ),
        ("rtt_s = 0.1", "rtt_s = 0.1\ncount = -1", "flows[0].count", &["-1 is not allowed", "whole number from 0"]),
        ("rtt_s = 0.1", "rtt_s = 0.1\ncount = 1.5", "flows[0].count", &["1.5 is not allowed", "whole number"]),
        (
            "rtt_s = 0.1",
            "rtt_s = 0.1\nhops = [0, 0, 1]",
            "flows[0].hops",
            &["a list of 3 values is not allowed", "exactly 2 values"],
        ),
        ("rtt_s = 0.1", "rtt_s = 0.1\nhops = [0]", "flows[0].hops", &["a list of 1 values", "exactly 2 values"]),
        (
            "[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\nbottleneck_queue = { limit_pkts = 20 }\n",
            "topology = 5\n",
            "topology",
            &["5 is not allowed", "a table with kind = one of \"dumbbell\", \"parking_lot\", \"custom\""],
        ),
        (
            "kind = \"dumbbell\"",
            "kind = 3",
            "topology.kind",
            &["3 is not allowed", "one of \"dumbbell\", \"parking_lot\", \"custom\""],
        ),
        (
            "rtt_s = 0.1",
            "rtt_s = 0.1\npacing = 5",
            "flows[0].pacing",
            &["5 is not allowed", "a name in quotes, one of \"none\", \"interval\", \"token_bucket\""],
        ),
        ("rtt_s = 0.1", "rtt_s = 0.1\nrecovery = 5", "flows[0].recovery", &["5 is not allowed", "\"newreno\""]),
        ("rtt_s = 0.1", "rtt_s = 0.1\ndirection = 5", "flows[0].direction", &["5 is not allowed", "\"reverse\""]),
        (
            "rtt_s = 0.1",
            "rtt_s = 0.1\npacing = { kind = \"token_bucket\", bogus = 1 }",
            "flows[0].pacing",
            &["a table is not allowed", "a name in quotes, one of \"none\", \"interval\", \"token_bucket\""],
        ),
        (
            "rtt_s = 0.1",
            "rtt_s = 0.1\npacing = \"fast\"",
            "flows[0].pacing",
            &["\"fast\" is not allowed; allowed: \"none\", \"interval\", \"token_bucket\""],
        ),
    ];
    for (from, to, field, words) in cases {
        let e = error_of(&with(dumbbell, from, to));
        assert_eq!(e.field, *field, "{e}");
        for w in *words {
            assert!(e.msg.contains(w), "{e} does not say {w:?}");
        }
        speaks_no_serde(&e);
    }
    // JSON only: TOML has no integer past i64, Python's json writes 2**64
    // as an integer and serde_json reads it as a float
    let json = r#"{"seed": 18446744073709551616, "duration_s": 1.0, "flows": [{"rtt_s": 0.1}],
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7, "bottleneck_queue": {"limit_pkts": 20}}}"#;
    let e = Scenario::from_json(json).expect_err("seed 2**64 accepted");
    assert_eq!(e.field, "seed", "{e}");
    assert!(e.msg.contains("18446744073709551616 is out of range 0..=18446744073709551615"), "{e}");
    speaks_no_serde(&e);
    // the same name-valued mistakes as JSON (serde_json words them apart)
    for (pacing, said) in [
        ("5", "5 is not allowed; must be a name in quotes, one of"),
        (r#"{"kind": "token_bucket", "bogus": 1}"#, "a table is not allowed; must be a name in quotes, one of"),
        (r#""fast""#, r#""fast" is not allowed; allowed: "none", "interval", "token_bucket""#),
    ] {
        let good = json.replace("18446744073709551616", "1");
        let e = Scenario::from_json(&good.replace(r#""rtt_s": 0.1"#, &format!(r#""rtt_s": 0.1, "pacing": {pacing}"#)))
            .expect_err("bad pacing accepted");
        assert_eq!(e.field, "flows[0].pacing", "{e}");
        assert!(e.msg.contains(said) && e.msg.contains(r#""token_bucket""#), "{e} does not say {said:?}");
        speaks_no_serde(&e);
    }
}

fn speaks_no_serde(e: &ConfigError) {
    for serde_word in
        ["expected", "struct", "u32", "enum", "variant", "integer `", "floating point", "map", "e+", "e19", "`"]
    {
        assert!(!e.msg.contains(serde_word), "{e} speaks serde ({serde_word:?})");
    }
}

/// ns-2's Sack1 agent grows its window on every ACK: a `cwnd_limited` rule
/// asked of it is refused, not ignored (it was accepted without ns-2's
/// other rules before the strategies checked their own settings); the
/// `linux` personality leaves it off for a Sack1 flow, and with it Linux's
/// handshake and TSO deferral, which the generic sender runs.
#[test]
fn sack1_refuses_a_cwnd_limited_rule() {
    let base = with(DUMBBELL, "rtt_s = 0.05", "rtt_s = 0.05\nrecovery = \"sack1\"");
    assert!(Scenario::from_toml(&base).is_ok(), "{base}");
    check(
        &with(&base, "recovery = \"sack1\"", "recovery = \"sack1\"\ncwnd_limited = \"linux\""),
        "flows[0].cwnd_limited",
        &["\"linux\"", "ns-2.35's agents grow cwnd on every ACK"],
    );
    let linux = with(&base, "recovery = \"sack1\"", "recovery = \"sack1\"\ntcp_model = \"linux\"\ncc = \"reno\"");
    assert!(Scenario::from_toml(&linux).is_ok(), "{linux}");
    // nor Linux's handshake, which the generic sender runs
    check(
        &with(&base, "recovery = \"sack1\"", "recovery = \"sack1\"\nsyn = \"linux\""),
        "flows[0].syn",
        &["\"linux\"", "sack1", "own send state"],
    );
}
