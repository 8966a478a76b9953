"""A sweep on a Dask cluster that only talks mutual TLS, as docs/cluster.md
('Keeping the scheduler private') sets one up: a throwaway CA and
certificates made with the ``openssl`` command, a ``dask scheduler`` and
two ``dask worker`` processes started with ``--tls-ca-file``, ``--tls-cert``
and ``--tls-key``, and ``ccsim sweep --dask tls://... --tls-*`` against
them, whose table must equal the in-process backend's. Clients without a
certificate the cluster's CA signed (plain TCP, a certificate from another
CA, no certificates at all) are refused with an ``error:`` line and run
nothing. Bad ``--tls-*`` input fails before anything connects, naming the
option, the value and what is allowed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim.sweep import dask_security, sweep, write_table

from test_cluster import _spawn, _stop, _wait

pytest.importorskip("dask.distributed")
OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="needs the openssl command to make certificates")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bbr3-vs-cubic.toml"
GRID = ["--grid", "duration_s=3", "--grid", "warmup_s=1", "--grid", "sample_interval_s=0",
        "--grid", "topology.bottleneck_queue.kind=droptail,fq_codel", "--grid", "seed=1,2"]
EXT = """basicConstraints = CA:FALSE
keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
"""


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(d: Path, name: str) -> Path:
    """A self-signed CA (EC P-256, valid 2 days) in d/name-ca.pem/.key."""
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}-ca.key", "-out", f"{name}-ca.pem", "-days", "2", "-subj", f"/CN={name} test CA",
             cwd=d)
    return d / f"{name}-ca.pem"


def make_cert(d: Path, ca: str, name: str) -> tuple:
    """A certificate for name, signed by CA ca: (cert, key) paths."""
    (d / "ext.cnf").write_text(EXT)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}-ca.pem", "-CAkey", f"{ca}-ca.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
    return d / f"{name}.pem", d / f"{name}.key"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    make_ca(d, "cluster")
    make_ca(d, "rogue")
    return {"dir": d, "ca": d / "cluster-ca.pem", "node": make_cert(d, "cluster", "node"),
            "client": make_cert(d, "cluster", "client"), "rogue": make_cert(d, "rogue", "intruder")}


def _tls(ca, cert, key) -> list:
    return ["--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)]


def _workers(address: str, security) -> int:
    from dask.distributed import Client

    with Client(address, timeout=10, security=security) as c:
        return len(c.scheduler_info()["workers"])


def _ccsim(*argv, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ccsim", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


def test_sweep_over_mutual_tls_equals_in_process_and_refuses_strangers(tmp_path, certs):
    sched_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    node_tls = _tls(certs["ca"], *certs["node"])
    procs = [_spawn(dask + ["scheduler", "--scheduler-file", str(sched_file), "--host", "127.0.0.1",
                            "--port", "0", "--no-dashboard", *node_tls], tmp_path / "scheduler.log")]
    try:
        _wait(sched_file.exists, 60, "the scheduler's address file")
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tls://127.0.0.1:"), address
        for i in range(2):
            procs.append(_spawn(dask + ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                        "--name", f"w{i}", *node_tls], tmp_path / f"worker{i}.log"))
        client_sec = dask_security(certs["ca"], *certs["client"])
        _wait(lambda: _workers(address, client_sec) == 2, 90, "two workers over TLS")

        out = tmp_path / "sweep"
        r = _ccsim("sweep", EXAMPLE, *GRID, "--dask", address, *_tls(certs["ca"], *certs["client"]),
                   "--out", out, "--quiet")
        assert r.returncode == 0, r.stderr[-2000:]
        assert "4 runs (0 from cache), 8 rows: one per cc value of each run" in r.stdout
        got = pd.read_csv(out / "sweep.csv")

        # the same sweep in this process: the same table but for timings
        local = sweep(EXAMPLE, {"duration_s": [3], "warmup_s": [1], "sample_interval_s": [0],
                                "topology.bottleneck_queue.kind": ["droptail", "fq_codel"], "seed": [1, 2]},
                      tmp_path / "local", backend="inprocess", progress=False, group_by="auto")
        write_table(local, tmp_path / "local")
        want = pd.read_csv(tmp_path / "local" / "sweep.csv")
        cols = [c for c in want.columns if c not in ("wall_s", "cpu_s", "cached")]
        assert list(got.columns) == list(want.columns)
        pd.testing.assert_frame_equal(got[cols], want[cols])
        assert sorted(p.name for p in (out / "runs").glob("*.json")) == sorted(
            p.name for p in (tmp_path / "local" / "runs").glob("*.json"))

        # strangers: no certificates, plain TCP to the TLS port, a certificate of another CA
        refused = tmp_path / "refused"
        r = _ccsim("sweep", EXAMPLE, *GRID, "--dask", address, "--out", refused, "--quiet")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert f"--dask '{address}': a tls:// scheduler needs certificates: give --tls-ca-file" in r.stderr
        plain = address.replace("tls://", "tcp://")
        r = _ccsim("sweep", EXAMPLE, *GRID, "--dask", plain, "--out", refused, "--quiet")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert r.stderr.startswith(f"error: cannot connect to the Dask scheduler at {plain}"), r.stderr
        r = _ccsim("sweep", EXAMPLE, *GRID, "--dask", address, *_tls(certs["ca"], *certs["rogue"]),
                   "--out", refused, "--quiet")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert r.stderr.startswith(f"error: cannot connect to the Dask scheduler at {address}"), r.stderr
        assert "signed by the CA the scheduler was given" in r.stderr
        assert not list(refused.glob("runs/*.json")), "a refused client ran nothing"

        # Dask's own configuration can hold the client's certificates instead
        # (how `ccsim reproduce --all --dask tls://...` gets them)
        env = dict(os.environ, DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(certs["ca"]),
                   DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(certs["client"][0]),
                   DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(certs["client"][1]),
                   DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION="True")
        r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(EXAMPLE), *GRID, "--dask", address,
                            "--out", str(tmp_path / "by-config"), "--quiet"], capture_output=True, text=True,
                           timeout=120, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        assert "4 runs (0 from cache)" in r.stdout
        log = (tmp_path / "scheduler.log").read_text()
        assert "TLS handshake failed" in log
        assert "CERTIFICATE_VERIFY_FAILED" in log or "unknown ca" in log.lower(), log[-3000:]
    finally:
        _stop(procs)


def _bad(argv, tmp_path):
    r = _ccsim("sweep", EXAMPLE, *GRID, "--out", tmp_path / "bad", *argv, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "bad" / "runs").exists()
    return r.stderr


def test_bad_tls_input_is_named_before_connecting(tmp_path, certs):
    ca, (cert, key) = certs["ca"], certs["client"]
    addr = "tls://127.0.0.1:9"  # nothing listens: every error below comes before connecting
    err = _bad(["--dask", addr, *_tls(tmp_path / "nope.pem", cert, key)], tmp_path)
    assert f"error: --tls-ca-file '{tmp_path / 'nope.pem'}': no such file; expected a PEM CA certificate" in err
    err = _bad(["--dask", addr, *_tls(ca, cert, tmp_path)], tmp_path)
    assert f"--tls-key '{tmp_path}': is a directory; expected a PEM private key" in err
    err = _bad(["--dask", addr, *_tls(key, cert, key)], tmp_path)
    assert f"--tls-ca-file '{key}': not a PEM CA certificate (-----BEGIN CERTIFICATE-----)" in err
    err = _bad(["--dask", addr, *_tls(ca, key, key)], tmp_path)
    assert f"--tls-cert '{key}': not a PEM certificate" in err
    err = _bad(["--dask", addr, "--tls-ca-file", ca], tmp_path)
    assert "--tls-cert is missing" in err and "only --tls-ca-file given" in err
    err = _bad(["--dask", addr, "--tls-ca-file", ca, "--tls-cert", cert], tmp_path)
    assert f"--tls-key is missing: --tls-cert '{cert}' holds no private key" in err
    err = _bad(["--dask", addr], tmp_path)
    assert "a tls:// scheduler needs certificates: give --tls-ca-file, --tls-cert, --tls-key" in err
    err = _bad(["--dask", "tcp://127.0.0.1:9", *_tls(ca, cert, key)], tmp_path)
    assert "certificates (--tls-ca-file, --tls-cert, --tls-key) need a tls:// address, not tcp://" in err
    err = _bad(["--dask", *_tls(ca, cert, key)], tmp_path)
    assert "a local Dask cluster (no address) needs none" in err
    err = _bad(_tls(ca, cert, key), tmp_path)
    assert "go with --dask tls://HOST:PORT" in err
    err = _bad(["--dask", "foo://127.0.0.1:9"], tmp_path)
    assert "Dask scheduler address 'foo://127.0.0.1:9'" in err and "allowed: tcp://HOST:PORT" in err


def test_python_security_keyword(tmp_path, certs):
    ca, (cert, key) = certs["ca"], certs["client"]
    both = tmp_path / "both.pem"  # a certificate file that holds its key too needs no key file
    both.write_text(cert.read_text() + key.read_text())
    sec = dask_security(ca, both)
    assert sec.require_encryption and sec.tls_client_cert == str(both) and sec.tls_client_key is None
    with pytest.raises(ccsim.UserError, match="security: unknown keys 'ca'"):
        sweep(EXAMPLE, [{}], tmp_path, backend="dask", address="tls://127.0.0.1:9", security={"ca": ca})
    with pytest.raises(ccsim.UserError, match="security goes with the dask backend"):
        sweep(EXAMPLE, [{}], tmp_path, security={"ca_file": ca, "cert": cert, "key": key})
    with pytest.raises(ccsim.UserError, match="cert is missing"):
        sweep(EXAMPLE, [{}], tmp_path, backend="dask", address="tls://127.0.0.1:9", security={"ca_file": ca})
