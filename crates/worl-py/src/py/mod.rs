//! The Python module `worl` (native part `worl._worl`): classes `Workload`, `Cluster`,
//! `Schedule`, `Comparison`, `Simulation`, functions `schedule`, `validate`, `compare`,
//! `simulate`, `schedulers`, `scheduler_options`, `gpu_models`, `links`, and the exceptions,
//! chosen by the type of the Rust error: `WorlError` > `LoadError` (> `WorkloadError`,
//! `ClusterError`, `FileError`), `ScheduleError` (> `SimulationError`), `ArgumentError`.
//!
//! Every loading, scheduling, validating, comparing and simulating call releases the GIL
//! ([`Python::detach`]) while Rust works, so Python threads run meanwhile.
//!
//! | module | holds |
//! |---|---|
//! | `errors` | the exception classes and `py_err`, which picks one by the Rust error's type |
//! | `convert` | JSON ↔ Python values, pandas frames, numbers from Python objects |
//! | `workload` | the `Workload` class (loading, networkx, generators, saving) |
//! | `cluster` | the `Cluster` class |
//! | `scheduling` | the `Schedule` class, `schedule` and `validate` |
//! | `comparison` | the `Comparison` class and `compare` |
//! | `simulation` | the `Simulation` class and `simulate` |
//! | `catalog` | `schedulers`, `scheduler_options`, `gpu_models`, `links` |

mod catalog;
mod cluster;
mod comparison;
mod convert;
mod errors;
mod scheduling;
mod simulation;
mod workload;

use crate::core;
use catalog::{_rust_timing, gpu_models, links, scheduler_options, schedulers};
use cluster::Cluster;
use comparison::{Comparison, compare};
use errors::{
    ArgumentError, ClusterError, FileError, LoadError, ScheduleError, SimulationError,
    WorkloadError, WorlError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use scheduling::{Schedule, schedule, validate};
use simulation::{Simulation, simulate};
use workload::Workload;

/// The Python module's native part, `worl._worl` (the package `worl` re-exports it).
#[pymodule]
#[pyo3(name = "_worl")]
fn worl_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Workload>()?;
    m.add_class::<Cluster>()?;
    m.add_class::<Schedule>()?;
    m.add_class::<Comparison>()?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(schedule, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(schedulers, m)?)?;
    m.add_function(wrap_pyfunction!(scheduler_options, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_models, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(_rust_timing, m)?)?;
    m.add("WorlError", py.get_type::<WorlError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("ScheduleError", py.get_type::<ScheduleError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("ClusterError", py.get_type::<ClusterError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("ArgumentError", py.get_type::<ArgumentError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("HAS_WORL_RTGS", cfg!(feature = "ddqn"))?;
    let tuple = |v: &[&str]| PyTuple::new(py, v.iter().copied());
    m.add(
        "WORKLOAD_SAVE_EXTENSIONS",
        tuple(&worl::io::WORKLOAD_SAVE_EXTENSIONS)?,
    )?;
    m.add(
        "SCHEDULE_SAVE_EXTENSIONS",
        tuple(&worl::io::SCHEDULE_SAVE_EXTENSIONS)?,
    )?;
    m.add("SCHEDULE_ROW_KEYS", tuple(&core::SCHEDULE_ROW_KEYS)?)?;
    let aliases = PyDict::new(py);
    for (alias, key) in core::SCHEDULE_ROW_ALIASES {
        aliases.set_item(alias, key)?;
    }
    m.add("SCHEDULE_ROW_ALIASES", aliases)?;
    Ok(())
}
