"""The packetdrill replay (validation/packetdrill.py) against ccsim's
``linux`` TCP: the project's own scripts (tests/packetdrill/, each also
run against the kernel with ``--kernel`` before it was committed) pass,
and the harness reports a wrong expectation, an unexpected segment and an
unreadable script instead of passing them."""
import glob
import os

import pytest

from validation import packetdrill as pd

HERE = os.path.dirname(__file__)
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "packetdrill", "*.pkt")))


@pytest.mark.parametrize("path", SCRIPTS, ids=os.path.basename)
def test_project_scripts_pass_on_ccsim(path):
    r = pd.run_ccsim(path)
    assert r.ok, r.message


def _variant(tmp_path, name, old, new):
    src = open(os.path.join(HERE, "packetdrill", name)).read()
    assert old in src
    p = tmp_path / name
    p.write_text(src.replace(old, new))
    return str(p)


@pytest.mark.parametrize("name, old, new, says", [
    # the probe expected 100 ms early: ccsim sends nothing by then
    ("tlp-then-rto.pkt", "// The loss probe at the RTO's time.\n +.3~+.303",
     "// The loss probe at the RTO's time.\n +.2~+.203", "ccsim sent nothing by"),
    # a wrong value asserted: the failure gives ccsim's
    ("tlp-then-rto.pkt", "tcpi_snd_cwnd == 1,", "tcpi_snd_cwnd == 2,", "tcpi_snd_cwnd == 2 failed (ccsim: 1)"),
    # only half of the initial window expected: the next outbound line
    # reads the sixth segment, as packetdrill would
    ("rack-reo-timer.pkt", "   +0 > P. 1:10001(10000) ack 1\n", "   +0 > P. 1:5001(5000) ack 1\n",
     "ccsim sent segment 5"),
], ids=["early-probe", "wrong-assert", "unexpected-segment"])
def test_a_wrong_expectation_fails(tmp_path, name, old, new, says):
    r = pd.run_ccsim(_variant(tmp_path, name, old, new))
    assert not r.ok and says in r.message, r.message


@pytest.mark.parametrize("name, off", [
    ("dsack-undo.pkt", {"undo": False, "frto": False}),
    ("frto-spurious-rto.pkt", {"frto": False}),
    ("frto-real-loss.pkt", {"frto": False}),
    ("prr-proportional.pkt", {"prr": False}),
    ("hystart-ack-train.pkt", {"cc_params": {"hystart_detect": "delay"}}),
    ("hystart-delay.pkt", {"cc_params": {"hystart_detect": "ack_train"}}),
    ("hystart-delay-sack.pkt", {"cc_params": {"hystart_detect": "ack_train"}}),
], ids=["no-undo", "no-frto-undo", "no-frto-new-data", "no-prr", "no-ack-train", "no-delay-exit",
        "no-delay-exit-on-sacks"])
def test_a_script_fails_without_the_rule_it_tests(name, off):
    """The scripts of undo, F-RTO, PRR's quota and HyStart's two exits pass
    because of those rules: with the rule switched off the replay differs
    from the kernel."""
    r = pd.Player(os.path.join(HERE, "packetdrill", name), flow_extra=off).run()
    assert not r.ok, f"{name} passes without {off}"


def test_an_unreadable_line_is_named(tmp_path):
    p = tmp_path / "bad.pkt"
    p.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\nnonsense here\n")
    r = pd.run_ccsim(str(p))
    assert not r.ok and "line 2" in r.message, r.message


def test_linux_rto_from_the_handshake_sample():
    """tcp_rtt_estimator's first sample: RTO = SRTT + max(2 SRTT, 200 ms),
    rounded up to the jiffy (4 ms at HZ = 250, `tcp_set_rto`'s
    `usecs_to_jiffies`; the kernel here reports 304 ms after a 100.x ms
    handshake)."""
    from ccsim._core import TcpReplay
    for rtt, rto in [(0.1, 300000), (0.1001, 304000), (0.01, 212000), (0.5, 1500000)]:
        r = TcpReplay('{"tcp_model": "linux", "mss_bytes": 1000}')
        assert r.info()["tcpi_rto"] == 1000000, "TCP_TIMEOUT_INIT before a sample"
        r.handshake_rtt(rtt)
        assert r.info()["tcpi_rto"] == rto


def test_missing_script_and_cli_summary(capsys):
    assert pd.main([os.path.join(HERE, "packetdrill", "no-such.pkt")]) == 2
    assert pd.main(SCRIPTS) == 0
    out = capsys.readouterr().out
    assert f"{len(SCRIPTS)}/{len(SCRIPTS)} scripts pass on ccsim's linux TCP" in out


def test_sysctls_before_the_flow_become_its_fields(tmp_path):
    (tmp_path / "common.sh").write_text("sysctl -q net.ipv4.tcp_slow_start_after_idle=0\n"
                                        "sysctl -q net.ipv4.tcp_early_retrans=0 net.ipv4.tcp_frto=2\n"
                                        "sysctl -q net.ipv4.tcp_ecn=1\n")
    script = tmp_path / "s.pkt"
    script.write_text("`./common.sh\nsysctl -q net.ipv4.tcp_reordering=5`\n"
                      "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
                      "+.1 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n")
    p = pd.Player(str(script))
    for ev in p.events:
        p.step(ev)
    f = p.flow()
    assert (f["slow_start_after_idle"], f["tlp"], f["dupthresh"], f["cc"]) == (False, False, 5, "cubic")
    assert f["frto"] is True
    assert any("tcp_ecn=1" in s for s in p.skipped), p.skipped
