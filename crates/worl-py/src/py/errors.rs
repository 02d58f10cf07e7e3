//! The exceptions of the Python module, chosen by the type of the Rust error ([`py_err`]).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    worl,
    WorlError,
    PyException,
    "Base class of worl's errors; the message is the Rust library's, naming the file, line and item."
);
create_exception!(
    worl,
    LoadError,
    WorlError,
    "A workload, cluster or schedule file (or a cluster description) that cannot be read or written."
);
create_exception!(
    worl,
    ScheduleError,
    WorlError,
    "A scheduler that cannot be built (unknown name, bad option) or that failed, or a comparison that failed."
);
create_exception!(
    worl,
    WorkloadError,
    LoadError,
    "A workload that cannot be read, built or written (a malformed file, a cycle, a bad task or edge)."
);
create_exception!(
    worl,
    ClusterError,
    LoadError,
    "A cluster, problem or schedule the cost model rejects (a malformed cluster file, a task that fits no GPU)."
);
create_exception!(
    worl,
    FileError,
    LoadError,
    "A file that cannot be read or written (missing, unreadable, a directory)."
);
create_exception!(
    worl,
    SimulationError,
    ScheduleError,
    "A simulation that cannot be set up (a bad arrival, noise, contention or failure spec) or whose run failed."
);
create_exception!(
    worl,
    ArgumentError,
    WorlError,
    "An argument out of its range (seeds 0, a negative time)."
);

/// The Python exception of `e`, chosen by its type (see the class docs: under [`WorlError`],
/// [`LoadError`] with [`WorkloadError`], [`ClusterError`] and [`FileError`];
/// [`ScheduleError`] with [`SimulationError`]; [`ArgumentError`]), with the message of `e`
/// and its causes on one line.
pub(super) fn py_err(e: impl Into<worl::Error>) -> PyErr {
    use worl::Error as E;
    let e = e.into();
    let msg = worl::error_line(&e);
    match e {
        // an unreadable file is a FileError whichever reader met it
        E::Workload(e) if matches!(*e, worl::dag::DagError::Io { .. }) => FileError::new_err(msg),
        E::Cluster(e) if matches!(*e, worl::cluster::ClusterError::Io { .. }) => {
            FileError::new_err(msg)
        }
        E::Workload(_) | E::UnknownGangSpan { .. } => WorkloadError::new_err(msg),
        E::Cluster(_) => ClusterError::new_err(msg),
        E::Io { .. } => FileError::new_err(msg),
        E::ScheduleFile(_) | E::Json(_) | E::File(_) | E::UnknownRowKey { .. } => {
            LoadError::new_err(msg)
        }
        E::Simulation(_) => SimulationError::new_err(msg),
        E::Schedule(_) | E::Search(_) | E::Experiment(_) => ScheduleError::new_err(msg),
        E::InvalidArgument { .. } | E::UnknownPolicy { .. } => ArgumentError::new_err(msg),
        _ => WorlError::new_err(msg),
    }
}

/// `Ok` of `r`, or its error as the Python exception of its type ([`py_err`]).
pub(super) fn ok<T, E: Into<worl::Error>>(r: Result<T, E>) -> PyResult<T> {
    r.map_err(py_err)
}
