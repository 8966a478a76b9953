"""Scenario fuzzing through the Python API and the CLI (docs/reliability.md).

Hypothesis generates scenario dicts and scenario files, valid and invalid:
values at and past every unit bound (times <= 1e6 s, rates in [1, 1e15]
b/s, packet sizes <= 1e6 bytes, loss in [0, 1), counts near 2**32), NaN and
infinities, wrong types, unknown and missing keys, damaged TOML text and
bytes that are not UTF-8. Properties:

* ``ccsim.run(dict)`` either returns results whose packet conservation holds
  (created = delivered + dropped + in flight, and the network walk agrees
  with the packet pool) or raises :class:`ccsim.UserError` whose message
  names the field (``scenario.<path>: ...``, or a missing/unknown field by
  name) and speaks no Rust or serde; any other exception is a bug;
* ``ccsim run FILE`` never lets a traceback out: it exits 0 (and its
  summary conserves packets) or 2 with ``error: ...`` naming the file and,
  for a well-formed file, the field.

Accepted scenarios are kept cheap as in the Rust fuzz
(crates/ccsim-core/tests/integration/fuzz_scenario.rs): short durations, and a run
whose offered packets would exceed ``WORK_PKTS`` is shortened before it
runs (validation is always checked on the scenario as generated).

Budget: the ``ci`` Hypothesis profile (default) runs a few hundred
examples; ``HYPOTHESIS_PROFILE=full`` runs ``CCSIM_FUZZ_PY_CASES`` (default
10000) per test. See docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import math
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import ccsim
from ccsim import UserError
from ccsim import cli
from ccsim.runner import simulation
from ccsim.scenario import dumps_toml

settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("CCSIM_FUZZ_PY_CASES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
settings.register_profile(
    "full",
    max_examples=int(os.environ.get("CCSIM_FUZZ_PY_CASES", "10000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Upper bound on the packets an accepted case offers (its run is shortened).
WORK_PKTS = 20_000.0

EDGES = [
    0.0, -0.0, -1.0, 5e-324, 1e-300, 1e-13, 1e-12, 1e-9, 1.0, math.nextafter(1.0, 0.0),
    1e6, math.nextafter(1e6, math.inf), 1e15, math.nextafter(1e15, math.inf), 1e300,
    4294967295, 4294967296, 1_000_000, 1_000_001, -1, 2**63, 2**64, 0, 1,
]
NONFINITE = [math.nan, math.inf, -math.inf]


def nest(n):
    """A list nested ``n`` deep: past ccsim's bound (32) at 40; past what
    Python's TOML parser can recurse through at 600."""
    v = []
    for _ in range(n):
        v = [v]
    return v


WRONG = ["fast", "", True, [], [0.1, 0.2, 0.3], {}, {"a": 1},
         # TOML dates and times (tomllib gives these types; JSON has none)
         datetime.date(1979, 5, 27), datetime.datetime(1979, 5, 27, 7, 32, tzinfo=datetime.timezone.utc),
         datetime.datetime(1979, 5, 27, 7, 32), datetime.time(7, 32),
         nest(40), nest(600)]
RUST_WORDS = ["struct ", "enum ", "u32", "u64", "f64", "i64", "usize", "untagged", "sequence", "Traceback"]
#: One step of a field path: ``.key``, ``."quoted key"`` (a key that is not a
#: bare TOML key, quoted as TOML quotes it), ``[index]``, or ``.?``.
PATH_STEP = r'(?:\.(?:[A-Za-z0-9_?-]+|"(?:[^"\\]|\\.)*")|\[\d+\])'
FIELD_MSG = re.compile(rf"^scenario(?:{PATH_STEP}+: |: (missing|unknown) field `)")
#: serde's wording after the field path (``must be variant identifier``,
#: ``string or map``, ``unknown variant `x`, expected one of``); whole words
#: so the ``variant`` field's own path does not count. serde's "unknown
#: field `x`, expected one of" for a misspelt key is allowed (FIELD_MSG).
SERDE_WORDS = re.compile(r"\bvariant\b|\bmap\b|, expected |expected one of")


def val(draw, typical, mode):
    """A field value: ``typical`` in mode 0; in mode 1 sometimes a bound
    value; in mode 2 often a bound, non-finite or wrongly typed value."""
    if mode == 0:
        return draw(typical)
    r = draw(st.integers(0, 39 if mode == 1 else 7))
    if r == 0:
        return draw(st.sampled_from(EDGES))
    if r == 1 and mode == 2:
        return draw(st.sampled_from(NONFINITE))
    if r == 2 and mode == 2:
        return draw(st.sampled_from(WRONG))
    return draw(typical)


def maybe(draw, d, key, typical, mode, p=0.2):
    if draw(st.floats(0, 1)) < p:
        d[key] = val(draw, typical, mode)


def fl(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


@st.composite
def queue(draw, mode):
    kind = draw(st.sampled_from(["droptail", "red", "drr", "codel", "pie", "fq_codel", "dualpi2"]))
    q = {"kind": kind}
    if draw(st.booleans()):
        q["limit_pkts"] = val(draw, st.integers(1, 200), mode)
    else:
        q["limit_bytes"] = val(draw, st.integers(1, 300_000), mode)
    if kind == "red":
        maybe(draw, q, "ecn", st.booleans(), mode)
        maybe(draw, q, "w_q", fl(1e-4, 0.1), mode)
        maybe(draw, q, "max_p", fl(0.01, 0.5), mode)
    if kind == "drr":
        maybe(draw, q, "quantum_bytes", st.integers(100, 3000), mode)
    if kind in ("codel", "pie", "fq_codel"):
        maybe(draw, q, "ecn", st.booleans(), mode)
        maybe(draw, q, "target_s", fl(5e-4, 0.05), mode)
    if kind in ("codel", "fq_codel"):
        maybe(draw, q, "interval_s", fl(0.01, 0.5), mode)
    if kind == "pie":
        maybe(draw, q, "tupdate_s", fl(0.005, 0.05), mode)
        maybe(draw, q, "alpha", fl(0, 2), mode)
        maybe(draw, q, "estimator", st.sampled_from(["timestamp", "dequeue_rate"]), mode)
    if kind == "dualpi2":
        maybe(draw, q, "target_s", fl(5e-4, 0.05), mode)
        maybe(draw, q, "tupdate_s", fl(0.005, 0.05), mode)
        maybe(draw, q, "step_thresh_s", fl(1e-4, 0.01), mode)
        maybe(draw, q, "coupling_factor", fl(1, 8), mode)
        maybe(draw, q, "c_protection", st.integers(0, 100), mode)
        maybe(draw, q, "drop_overload", st.booleans(), mode)
        maybe(draw, q, "ecn_mask", st.sampled_from(["l4s_ect", "cla_ect", "any_ect"]), mode)
    if kind == "fq_codel":
        maybe(draw, q, "flows", st.integers(1, 2048), mode)
        maybe(draw, q, "exact_flows", st.booleans(), mode)
        maybe(draw, q, "quantum_bytes", st.integers(40, 3000), mode)
    if mode == 2 and draw(st.integers(0, 15)) == 0:
        q["bogus_option"] = 1
    return q


@st.composite
def topology(draw, mode):
    kind = draw(st.sampled_from(["dumbbell", "parking_lot", "custom"]))
    if kind == "dumbbell":
        t = {"kind": kind, "bottleneck_rate_bps": val(draw, fl(1e5, 1e9), mode),
             "bottleneck_queue": draw(queue(mode))}
        maybe(draw, t, "bottleneck_delay_s", fl(0, 0.05), mode)
        maybe(draw, t, "bottleneck_loss", fl(0, 0.2), mode)
        maybe(draw, t, "edge_rate_bps", fl(1e6, 1e10), mode)
    elif kind == "parking_lot":
        t = {"kind": kind, "n_links": val(draw, st.integers(1, 3), mode),
             "link_rate_bps": val(draw, fl(1e5, 1e9), mode), "link_queue": draw(queue(mode))}
        maybe(draw, t, "link_delay_s", fl(0, 0.02), mode)
        maybe(draw, t, "link_loss", fl(0, 0.2), mode)
    else:
        links = []
        for a, b in [("a", "b"), ("b", "c")]:
            link = {"from": a, "to": b, "rate_bps": val(draw, fl(1e5, 1e9), mode),
                    "delay_s": val(draw, fl(0, 0.02), mode), "queue": draw(queue(mode))}
            maybe(draw, link, "loss", fl(0, 0.2), mode)
            maybe(draw, link, "monitor", st.booleans(), mode)
            links.append(link)
        t = {"kind": kind, "nodes": ["a", "b", "c"], "links": links}
    if mode == 2 and draw(st.integers(0, 20)) == 0:
        t.pop(draw(st.sampled_from(sorted(t))))
    return t


@st.composite
def flow(draw, mode, custom):
    transport = draw(st.sampled_from(["tcp", "tcp", "udp", "etcp"] + (["sctp"] if mode == 2 else [])))
    f = {"transport": transport}
    maybe(draw, f, "count", st.integers(1, 3), mode)
    maybe(draw, f, "mss_bytes", st.integers(100, 1500), mode)
    maybe(draw, f, "header_bytes", st.integers(0, 60), mode)
    maybe(draw, f, "start_s", fl(0, 0.05), mode)
    maybe(draw, f, "stop_s", fl(0.06, 0.3), mode)
    if custom:
        f["route"] = draw(st.sampled_from([["a", "b"], ["a", "b", "c"], ["c", "b"]]))
    else:
        maybe(draw, f, "rtt_s", fl(0.001, 0.1), mode)
    if transport == "tcp":
        maybe(draw, f, "cc", st.sampled_from(
            ["reno", "hstcp", "stcp", "htcp", "ltcp", "bic", "cubic", "fast", "vegas", "xcp"]), mode, 0.6)
        maybe(draw, f, "recovery", st.sampled_from(["reno", "newreno", "sack"]), mode)
        maybe(draw, f, "pacing", st.sampled_from(["none", "interval", "token_bucket"]), mode)
        maybe(draw, f, "init_cwnd_pkts", fl(1, 10), mode)
        maybe(draw, f, "min_rto_s", fl(0.01, 1), mode)
        maybe(draw, f, "delayed_ack", st.booleans(), mode)
        maybe(draw, f, "bytes", st.integers(1, 200_000), mode)
    elif transport == "udp":
        f["rate_bps"] = val(draw, fl(1e4, 5e7), mode)
    elif transport == "etcp":
        maybe(draw, f, "variant", st.sampled_from(["window", "rate"]), mode)
        maybe(draw, f, "b", fl(0.5, 4), mode)
    if mode == 2 and draw(st.integers(0, 15)) == 0:
        f["colour"] = "blue"
    return f


@st.composite
def scenario_dict(draw):
    mode = draw(st.sampled_from([0, 1, 2]))
    topo = draw(topology(mode))
    custom = topo.get("kind") == "custom"
    d = {"duration_s": val(draw, fl(0.01, 0.3), mode), "topology": topo,
         "flows": draw(st.lists(flow(mode, custom), min_size=1 if mode < 2 else 0, max_size=3))}
    maybe(draw, d, "seed", st.integers(0, 1000), mode)
    maybe(draw, d, "warmup_s", fl(0, 0.005), mode)
    maybe(draw, d, "sample_interval_s", fl(0.005, 0.05), mode)
    if mode == 2 and draw(st.integers(0, 20)) == 0:
        d.pop("duration_s")
    return d


def cheap(d):
    """A copy of an accepted scenario that offers at most WORK_PKTS packets."""
    d = json.loads(json.dumps(d))
    t = d["topology"]
    rates = {
        "dumbbell": lambda: [min(t["bottleneck_rate_bps"], t.get("edge_rate_bps", 100e9))],
        "parking_lot": lambda: [t["link_rate_bps"]],
        "custom": lambda: [link["rate_bps"] for link in t["links"]],
    }[t["kind"]]()
    pkts_per_s = 0.0
    for f in d["flows"]:
        bits = 8.0 * max(1, f.get("mss_bytes", 1000) + f.get("header_bytes", 40))
        pkts_per_s += 2.0 * f.get("count", 1) * max(max(rates), f.get("rate_bps", 0)) / bits
        if f.get("transport", "tcp") == "tcp":
            f["rwnd_pkts"] = min(f.get("rwnd_pkts", 10**7), int(WORK_PKTS))
    max_dur = WORK_PKTS / max(pkts_per_s, 1e-9)
    if d["duration_s"] > max_dur:
        d["duration_s"] = max_dur
        if d.get("warmup_s", 0) >= max_dur:
            d["warmup_s"] = 0.0
    si = d.get("sample_interval_s", 0.1)
    if si > 0 and d["duration_s"] / si > 200:
        d["sample_interval_s"] = d["duration_s"] / 200
    return d


def assert_names_field(msg):
    assert FIELD_MSG.match(msg), f"rejection names no field: {msg}"
    for w in RUST_WORDS:
        assert w not in msg, f"rejection speaks Rust ({w!r}): {msg}"
    if not re.search(r": (missing|unknown) field `", msg):
        body = msg.split(": ", 1)[1]
        assert not SERDE_WORDS.search(body), f"rejection speaks serde: {msg}"


def assert_conserved(c):
    assert c["created"] == c["delivered"] + c["dropped"] + c["in_flight"], c
    assert c["in_flight"] == c["live_in_pool"], c


@given(scenario_dict())
def test_api_scenarios_run_and_conserve_or_name_a_field(d):
    try:
        simulation(d)
    except UserError as exc:
        assert_names_field(str(exc))
        event("rejected")
        return
    event("accepted and run")
    try:
        res = ccsim.run(cheap(d))
    except UserError as exc:
        # The memory guard reads MemAvailable, which building the first
        # simulation can itself lower; that refusal is the guard working.
        # Any other refusal of the shortened copy is a fault.
        if not re.search(r"\.count: .* available", str(exc)):
            raise
        assert_names_field(str(exc))
        return
    assert_conserved(res.conservation)


def _cli(path, out):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main(["run", str(path), "--out", str(out), "--no-plots", "--no-progress"])
        except SystemExit as exc:  # argparse
            code = exc.code
    return code, err.getvalue()


def damage(text, op, at, n, byte):
    b = text.encode()
    if not b:
        return b
    at %= len(b)
    end = min(len(b), at + n)
    if op == 0:
        return b[:at] + b[end:]
    if op == 1:
        return b[:end] + b[at:end] + b[end:]
    return b[:at] + bytes([byte]) * (end - at) + b[end:]


@given(
    scenario_dict(),
    st.sampled_from(["toml", "json"]),
    st.integers(0, 3),
    st.integers(0, 10**6),
    st.integers(1, 40),
    st.integers(0, 255),
)
# found by the full budget (2026-11-23): a damaged key ` uration_s` was
# shown bare, `scenario. uration_s: ...`; keys that are not bare are quoted
@example(
    {"duration_s": 0.0, "topology": {"n_links": 0.0, "link_rate_bps": 0.0,
     "link_queue": {"kind": "droptail", "limit_bytes": 0.0, "bogus_option": 1}, "link_delay_s": 0.0},
     "flows": [], "warmup_s": 0.0, "sample_interval_s": 0.0},
    "json", 2, 225, 1, 32,
)
def test_cli_run_never_prints_a_traceback(d, fmt, op, at, n, byte):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"s.{fmt}"
        if fmt == "toml":
            try:
                text = dumps_toml(d)
            except (UserError, ValueError, TypeError):
                # a dict that has no TOML form (an empty table in a list):
                # write it as JSON under a .toml name instead
                text = json.dumps(d, default=str)
        else:
            # JSON has no dates: they go in as strings
            text = json.dumps(d, allow_nan=True, default=str)
        data = text.encode() if op == 3 else damage(text, op, at, n, byte)
        path.write_bytes(data)
        code, err = _cli(path, Path(tmp) / "out")
        assert "Traceback" not in err, err
        event(f"exit {code}")
        if code == 0:
            summary = json.loads((Path(tmp) / "out" / "summary.json").read_text())
            assert_conserved(summary["conservation"])
            return
        assert code == 2, (code, err)
        assert err.startswith("error: "), err
        msg = err[len("error: "):].strip()
        if msg.startswith("scenario"):
            assert_names_field(msg)
        else:
            # file-level problems (syntax, encoding) name the file
            assert msg.startswith(str(path)), err


def test_cli_fuzz_cases_run_fast_enough_on_a_huge_rate(tmp_path):
    """A regression guard for the cheap() bound itself: a 1e15 b/s UDP
    source for 0.3 s is accepted by validation and shortened to fit."""
    d = {"duration_s": 0.3, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e15,
                                          "bottleneck_queue": {"limit_pkts": 10}},
         "flows": [{"transport": "udp", "rate_bps": 1e15, "mss_bytes": 1, "header_bytes": 0}]}
    simulation(d)
    small = cheap(d)
    assert small["duration_s"] < 1e-9
    assert_conserved(ccsim.run(small).conservation)


@pytest.mark.parametrize("raw", [b"\xff\xfe duration_s = 1", b"duration_s = nan\n", b"[[flows]]\ncount = 4e9\n"])
def test_cli_bad_files_name_file_or_field(tmp_path, raw):
    path = tmp_path / "bad.toml"
    path.write_bytes(raw)
    code, err = _cli(path, tmp_path / "out")
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err, err
