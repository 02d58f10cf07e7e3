//! The functions `schedulers`, `scheduler_options`, `gpu_models`, `links` and the timing hook.

use super::cluster::Cluster;
use super::errors::ok;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use worl::cluster::presets;
use worl::sched::Registry;

/// The registered schedulers: a dict name -> one-line description, sorted by name (the
/// names `worl.schedule` and `worl.compare` take).
#[pyfunction]
pub(super) fn schedulers(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let r = Registry::with_builtins();
    let d = PyDict::new(py);
    for n in r.names() {
        d.set_item(n, r.description(n).unwrap_or_default())?;
    }
    Ok(d)
}

/// The declared options of scheduler `name`: a list of dicts `key`, `values`, `default`,
/// `doc` (its own options, then `time` and `evaluations`), as `worl schedulers NAME` prints
/// them. Raises `ScheduleError` for an unregistered name, listing the registered ones.
#[pyfunction]
pub(super) fn scheduler_options<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
    let r = Registry::with_builtins();
    let options = ok(r.options(name))?;
    let l = PyList::empty(py);
    for o in options {
        let d = PyDict::new(py);
        d.set_item("key", o.key)?;
        d.set_item("values", o.values)?;
        d.set_item("default", o.default)?;
        d.set_item("doc", o.doc)?;
        l.append(d)?;
    }
    Ok(l)
}

/// The GPU models of the catalog: dicts `name`, `speed` (relative, V100 = 1.0), `memory`
/// (GiB), for `Cluster.from_spec` and cluster descriptions.
#[pyfunction]
pub(super) fn gpu_models<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for m in worl::cluster::GpuModel::catalog() {
        let d = PyDict::new(py);
        d.set_item("name", &m.name)?;
        d.set_item("speed", m.relative_speed)?;
        d.set_item("memory", m.mem_gib)?;
        l.append(d)?;
    }
    Ok(l)
}

/// The named links: dicts `name`, `bandwidth` (B/s), `latency` (s), for `Cluster.from_spec`
/// and cluster descriptions.
#[pyfunction]
pub(super) fn links<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for n in presets::NAMED_LINKS {
        let d = PyDict::new(py);
        d.set_item("name", n.name)?;
        d.set_item("bandwidth", n.link.bandwidth)?;
        d.set_item("latency", n.link.latency)?;
        l.append(d)?;
    }
    Ok(l)
}

/// Loads `path` and runs HEFT on it `repeats` times on `cluster`, all in Rust, and returns
/// `(load_s, heft_s)`: the best wall times of one load and of one problem build + HEFT run.
/// For measuring the Python layer's overhead against the same work without it.
#[pyfunction]
#[pyo3(signature = (path, cluster, repeats = 5))]
pub(super) fn _rust_timing(
    py: Python<'_>,
    path: PathBuf,
    cluster: &Cluster,
    repeats: usize,
) -> PyResult<(f64, f64)> {
    let c = cluster.inner.clone();
    ok(py.detach(|| crate::timing(&path, c, repeats)))
}
