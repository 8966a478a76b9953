// pyo3 0.22 #[pyfunction] expansion trips this lint on PyResult returns.
#![allow(clippy::useless_conversion)]
//! Thin PyO3 bindings: scenario JSON in, results JSON out. Long runs release
//! the GIL, so Python threads (progress bars, Dask workers) keep going.
use ccsim_core::{Scenario, Simulation as CoreSim};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::time::Instant;

mod columns;
mod controller;
mod replay;

/// CPU time of the calling thread, in seconds: the engine runs on the thread
/// that calls `run_until`, so this is the run's own CPU time, which other
/// processes on a shared host hardly change (its wall time they do).
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn parse(json: &str) -> PyResult<Scenario> {
    Scenario::from_json(json).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One simulation run. `run_until` advances it; `finish` returns results JSON.
#[pyclass(module = "ccsim._core")]
struct Simulation {
    sim: CoreSim,
    wall_s: f64,
    cpu_s: f64,
    /// A Python controller raised: the run stopped there.
    stopped: bool,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(scenario_json: &str) -> PyResult<Self> {
        let sc = parse(scenario_json)?;
        let sim = CoreSim::new(&sc).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Simulation { sim, wall_s: 0.0, cpu_s: 0.0, stopped: false })
    }

    /// Advance simulated time to `t_s` seconds (capped at the duration).
    /// Raises `ControllerError` if a Python controller raised (the run
    /// stops there: a later call raises again).
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        if self.stopped {
            return Err(controller::ControllerError::new_err("the run stopped at a Python controller's exception"));
        }
        let sim = &mut self.sim;
        // allow_threads runs the closure on this thread (it only releases
        // the GIL), so the thread's CPU clock covers the run.
        let (t0, c0) = (Instant::now(), thread_cpu_s());
        py.allow_threads(|| sim.run_until(t_s));
        self.wall_s += t0.elapsed().as_secs_f64();
        self.cpu_s += (thread_cpu_s() - c0).max(0.0);
        match controller::take_failure(py) {
            Some(e) => {
                self.stopped = true;
                Err(e)
            }
            None => Ok(()),
        }
    }

    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.now_s()
    }

    #[getter]
    fn duration_s(&self) -> f64 {
        self.sim.duration_s()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.sim.events()
    }

    /// Rows of the `flows` and `links` tables as built, and the monitored
    /// links (one series row each per sample).
    #[getter]
    fn flow_count(&self) -> usize {
        self.sim.flow_count()
    }
    #[getter]
    fn link_count(&self) -> usize {
        self.sim.link_count()
    }
    #[getter]
    fn monitored_link_count(&self) -> usize {
        self.sim.monitored_link_count()
    }
    /// The scenario's sampling interval (0: no series).
    #[getter]
    fn sample_interval_s(&self) -> f64 {
        self.sim.scenario().sample_interval_s
    }

    /// The packet slab's high-water mark: the most packets alive at once.
    #[getter]
    fn packet_slots(&self) -> usize {
        self.sim.packet_slots()
    }

    /// Packets alive now.
    #[getter]
    fn packets_live(&self) -> usize {
        self.sim.packets_live()
    }

    /// Events pending (stale timer events included) and the entries the
    /// event queue can hold without allocating.
    #[getter]
    fn events_pending(&self) -> usize {
        self.sim.events_pending()
    }
    #[getter]
    fn events_capacity(&self) -> usize {
        self.sim.events_capacity()
    }

    /// Write a pcap of the packets leaving link `link` to `path` (before
    /// running; `field` names the option in errors).
    #[pyo3(signature = (link, path, field = "pcap"))]
    fn add_pcap(&mut self, link: &str, path: &str, field: &str) -> PyResult<()> {
        self.sim.add_pcap(link, std::path::Path::new(path), field).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Write an ns-2 format trace of link `link` to `path`.
    #[pyo3(signature = (link, path, field = "trace"))]
    fn add_trace(&mut self, link: &str, path: &str, field: &str) -> PyResult<()> {
        self.sim
            .add_ns2_trace(link, std::path::Path::new(path), field)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Run to the end if needed, flush the taps' files and return the
    /// results as JSON.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        self.run_to_end(py)?;
        let mut r = self.sim.results();
        r.wall_s = self.wall_s;
        r.cpu_s = self.cpu_s;
        Ok(r.to_json())
    }

    /// Run to the end if needed, flush the taps' files and return the
    /// results with their `flows` and `links` tables as columns:
    /// `(document, flows, links)`, the document being the results JSON
    /// with those two tables empty, each table `(rows, columns)` as
    /// `ccsim.tables.RowTable` reads it (`columns.rs`). A run of many
    /// flows then holds about 1 KB per flow of results, not 7.
    fn finish_columns(&mut self, py: Python<'_>) -> PyResult<(String, PyObject, PyObject)> {
        self.run_to_end(py)?;
        let mut flows = columns::Table::with_capacity(self.sim.flow_count());
        let mut links = columns::Table::with_capacity(self.sim.link_count());
        // each row goes into the columns as it is made: the rows are never
        // all held at once
        let mut r = self.sim.results_rows(&mut |f| flows.push(&f), &mut |l| links.push(&l));
        r.wall_s = self.wall_s;
        r.cpu_s = self.cpu_s;
        let doc = r.to_json();
        drop(r);
        Ok((doc, table_to_py(py, flows)?, table_to_py(py, links)?))
    }
}

impl Simulation {
    /// Run to the end if needed, flush the taps' files and end the run
    /// (`ccsim_core::Simulation::end`): what both `finish` forms do before
    /// building the results. The agents, the applications and the pending
    /// events are freed first, so the results mostly take memory the run
    /// gave back rather than adding to its peak.
    fn run_to_end(&mut self, py: Python<'_>) -> PyResult<()> {
        let d = self.sim.duration_s();
        self.run_until(py, d)?;
        self.sim.finish_taps().map_err(pyo3::exceptions::PyOSError::new_err)?;
        self.sim.end();
        give_back_freed_memory();
        Ok(())
    }
}

/// Return to the system the whole pages of the heap that are free, as the
/// run has just freed its agents and pending events: glibc keeps freed
/// small blocks in its heap, where the results' columns, each one large
/// block that glibc maps on its own, cannot use them, so the results would
/// add to the process's peak what the run gave back (the memory per flow
/// that `ccsim bench` reports is that peak's). A no-op elsewhere than glibc.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of glibc's heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A [`columns::Table`] for `ccsim.tables.RowTable`: `(rows, [(name,
/// kind, data, state)])`, `kind` one of `f` (f64), `u` (u64, or u32 when
/// every value fits), `i` (i64),
/// `b` (bool, one byte), `s` (`(text, starts, codes)`: value `codes[i]`
/// of the values end to end in `text`, `starts` their character
/// offsets, `columns::Strings`), `j` (JSON text per
/// row, None where null or absent), `n` (null or absent in every row);
/// numbers as one-dimensional NumPy arrays; `state` None when every row
/// has a value, else one byte per row (`columns::STATE_*`).
fn table_to_py(py: Python<'_>, t: columns::Table) -> PyResult<PyObject> {
    use columns::Data;
    use pyo3::types::PyList;
    /// The values as a NumPy array that takes over the vector's memory:
    /// no copy, so the tables are never held twice.
    fn packed<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> PyObject {
        numpy::PyArray1::from_vec_bound(py, v).into_any().unbind()
    }
    let cols = PyList::empty_bound(py);
    for c in t.columns {
        let (kind, data): (&str, PyObject) = match c.data {
            None => ("n", py.None()),
            Some(Data::F64(v)) => ("f", packed(py, v)),
            Some(Data::U32(v)) => ("u", packed(py, v)),
            Some(Data::U64(v)) => ("u", packed(py, v)),
            Some(Data::I64(v)) => ("i", packed(py, v)),
            Some(Data::Bool(v)) => ("b", packed(py, v)),
            Some(Data::Str { values, codes }) => {
                let (text, starts) = values.into_parts();
                ("s", (text, packed(py, starts), packed(py, codes)).into_py(py))
            }
            Some(Data::Json(v)) => ("j", v.into_py(py)),
        };
        let state: PyObject = c.state.map_or_else(|| py.None(), |s| packed(py, s));
        cols.append((c.name, kind, data, state))?;
    }
    Ok((t.rows, cols).into_py(py))
}

/// Validate a scenario (fields, routes, RTTs) and return it normalised, with
/// every default filled in.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    let sc = parse(scenario_json)?;
    CoreSim::new(&sc).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(sc.to_json())
}

/// Controllers, recoveries, pacing, queues and topologies with parameters.
#[pyfunction]
fn catalog() -> String {
    ccsim_core::catalog::catalog_json()
}

/// The engine's cube root (`ccsim_core::sim::math::cbrt`, libm's), for
/// Python controllers that must round as the built-ins do (CUBIC's K).
#[pyfunction]
fn cbrt(x: f64) -> f64 {
    ccsim_core::sim::math::cbrt(x)
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The engine build's identity: the version and a digest of the engine's
/// sources (build.rs), which changes with any edit that can move a result.
/// Sweeps file their cached runs under it, and a Dask cluster's workers
/// must share it.
#[pyfunction]
fn engine_id() -> String {
    format!("{}+{}", env!("CARGO_PKG_VERSION"), env!("CCSIM_ENGINE_SOURCE"))
}

/// How this extension was compiled: `{"pgo": profile file name or None}`.
/// The build backend (build_backend/ccsim_build.py) sets `CCSIM_BUILD_PGO`
/// when it compiles with a profile; `ccsim bench` reports it beside its
/// figures, which depend on it.
#[pyfunction]
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new_bound(py);
    d.set_item("pgo", option_env!("CCSIM_BUILD_PGO"))?;
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_class::<replay::TcpReplay>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(engine_id, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add_function(wrap_pyfunction!(cbrt, m)?)?;
    controller::install(m)?;
    Ok(())
}
