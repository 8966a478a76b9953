"""PEP 517 build backend: maturin's, with the engine compiled under
profile-guided optimisation (PGO).

``pip install .`` (and ``pip install -e .``) come here (pyproject.toml's
``build-backend``). Before maturin compiles the extension, :func:`profile`

1. builds the extension instrumented (``-Cprofile-generate``) into
   ``target/pgo-gen``;
2. runs the training scenarios through it: ``ccsim bench``'s rows cut short
   (``benches/pgo/``, written by ``benches/pgo_scenarios.py``) and the Rust
   golden scenarios (``crates/ccsim-core/tests/golden/``), so that every
   feature's code is seen run and the benchmarks' paths weigh most;
3. merges the counts with the toolchain's own ``llvm-profdata`` (rustup's
   ``llvm-tools`` component, added if missing: a profile must be read by
   the LLVM that wrote it);

and maturin's build then gets ``-Cprofile-use`` with the profile. LLVM
uses it to lay out code and to choose what to inline; the program's
semantics, floating point included, are untouched, so results are
identical with and without it (tests/test_pgo.py runs the golden
scenarios through the built extension). Measured on the bench rows: 2-9%
less wall time (docs/performance.md, "A profile-guided build").

``CCSIM_PGO=0`` builds without it. Any failure on the way (no rustup, no
network for the component, a scenario that does not run) is reported and
the build goes on without PGO: an install never fails because of it.
The extension records whether it was built so (``ccsim._core.build_info``).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

ROOT = Path(__file__).resolve().parent.parent
GEN_TARGET = ROOT / "target" / "pgo-gen"
PROFILES = ROOT / "target" / "pgo"


def _log(msg: str) -> None:
    print(f"ccsim build: {msg}", file=sys.stderr, flush=True)


def _run(cmd: List[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, **kw)


def profdata_tool() -> Optional[Path]:
    """The toolchain's ``llvm-profdata`` (rustup's ``llvm-tools``), added
    with rustup if it is missing; None if it cannot be had."""
    sysroot = Path(subprocess.check_output(["rustc", "--print", "sysroot"], text=True).strip())
    host = next(line.split(":", 1)[1].strip()
                for line in subprocess.check_output(["rustc", "-vV"], text=True).splitlines()
                if line.startswith("host:"))
    tool = sysroot / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists() and shutil.which("rustup"):
        _log("adding rustup's llvm-tools component (its llvm-profdata reads the PGO profile)")
        subprocess.run(["rustup", "component", "add", "llvm-tools"], stdout=subprocess.DEVNULL, timeout=300)
    return tool if tool.exists() else None


def training_scenarios() -> List[Path]:
    """The scenarios the instrumented engine runs, in a fixed order."""
    return (sorted((ROOT / "benches" / "pgo").glob("*.toml"))
            + sorted((ROOT / "crates" / "ccsim-core" / "tests" / "golden").glob("*.toml")))


#: Run by the build's own Python with the instrumented extension: every
#: training scenario (TOML) through ``Simulation(json).finish()``, as
#: ``ccsim.run`` drives the engine.
_TRAIN = r"""
import importlib.machinery, importlib.util, json, sys
try:
    import tomllib
except ImportError:
    import tomli as tomllib
loader = importlib.machinery.ExtensionFileLoader("_core", sys.argv[1])
spec = importlib.util.spec_from_file_location("_core", sys.argv[1], loader=loader)
core = importlib.util.module_from_spec(spec)
loader.exec_module(core)
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        core.Simulation(json.dumps(tomllib.load(f))).finish()
"""


def _extension(target: Path) -> Path:
    """The compiled extension library in cargo's ``target/release``."""
    names = {"linux": "lib_core.so", "darwin": "lib_core.dylib", "win32": "_core.dll"}
    lib = target / "release" / names.get(sys.platform, "lib_core.so")
    if not lib.exists():
        raise RuntimeError(f"the instrumented build made no {lib}")
    return lib


def profile() -> Path:
    """Build the extension instrumented, run the training scenarios through
    it, merge the counts: the merged profile, named by its content's hash
    (so cargo, which sees only the flag, rebuilds when the profile
    changes). The profile is taken from the extension itself, not from a
    separate runner: a runner (the `run` example) compiles the engine with
    its dev-dependencies' features, which gives its functions other
    symbol names, and the profile then matches nothing in the extension."""
    tool = profdata_tool()
    if tool is None:
        raise RuntimeError("no llvm-profdata for this toolchain (rustup component add llvm-tools)")
    scenarios = training_scenarios()
    if not scenarios:
        raise RuntimeError("no training scenarios (benches/pgo/*.toml)")
    raw = GEN_TARGET / "profraw"
    shutil.rmtree(raw, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(GEN_TARGET),
               RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + f" -Cprofile-generate={raw}").strip())
    _log("building the instrumented engine (target/pgo-gen)")
    _run(["cargo", "build", "--release", "-p", "ccsim-py", "--lib"], cwd=ROOT, env=env)
    # Counts from the build itself (build scripts, proc macros) are not ours.
    shutil.rmtree(raw, ignore_errors=True)
    _log(f"running {len(scenarios)} training scenarios")
    _run([sys.executable, "-c", _TRAIN, str(_extension(GEN_TARGET))] + [str(p) for p in scenarios], cwd=ROOT,
         env=dict(os.environ, LLVM_PROFILE_FILE=str(raw / "ccsim-%p-%m.profraw")))
    PROFILES.mkdir(parents=True, exist_ok=True)
    merged = PROFILES / "merged.profdata"
    _run([str(tool), "merge", "-o", str(merged)] + [str(p) for p in sorted(raw.glob("*.profraw"))])
    digest = hashlib.sha256(merged.read_bytes()).hexdigest()[:16]
    final = PROFILES / f"ccsim-{digest}.profdata"
    merged.replace(final)
    for old in PROFILES.glob("ccsim-*.profdata"):
        if old != final:
            old.unlink()
    return final


@contextmanager
def pgo_environment() -> Iterator[None]:
    """``RUSTFLAGS`` with ``-Cprofile-use`` for the build inside, unless
    ``CCSIM_PGO=0`` or the profile could not be made (then as before)."""
    saved = {k: os.environ.get(k) for k in ("RUSTFLAGS", "CCSIM_BUILD_PGO")}
    try:
        if os.environ.get("CCSIM_PGO", "1") == "0":
            _log("CCSIM_PGO=0: building without profile-guided optimisation")
        else:
            try:
                prof = profile()
            except Exception as e:  # a PGO failure never fails the install
                _log(f"profile-guided optimisation skipped: {e}")
            else:
                _log(f"building with the profile {prof.name}")
                os.environ["RUSTFLAGS"] = (os.environ.get("RUSTFLAGS", "") + f" -Cprofile-use={prof}").strip()
                os.environ["CCSIM_BUILD_PGO"] = prof.name
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# The PEP 517 hooks: maturin's, the two that compile wrapped in
# pgo_environment. maturin is imported when a hook runs (it is in the
# build's isolated environment; tests import this module without it).

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin
    with pgo_environment():
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin
    with pgo_environment():
        return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    import maturin
    return maturin.build_sdist(sdist_directory, config_settings)


def get_requires_for_build_wheel(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_editable(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    import maturin
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    import maturin
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
