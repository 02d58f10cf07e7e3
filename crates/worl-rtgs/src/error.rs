//! The crate's error type.

use std::path::PathBuf;
use worl_cluster::ClusterError;
use worl_woa::WoaError;

/// Everything that can go wrong building or running a scheduler.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The cost model rejected a problem, plan or schedule.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The WOA engine rejected its configuration.
    #[error(transparent)]
    Woa(#[from] WoaError),
    /// The Double DQN agent of WORL-RTGS failed (configuration, device, checkpoint).
    #[error(transparent)]
    Ddqn(#[from] worl_ddqn::DdqnError),
    /// No scheduler of this name is registered.
    #[error("unknown scheduler `{name}` (known: {})", .known.join(", "))]
    UnknownScheduler {
        /// The requested name.
        name: String,
        /// The registered names.
        known: Vec<String>,
    },
    /// An option a scheduler does not know.
    #[error("scheduler `{scheduler}` has no option `{key}` (known: {})", .known.join(", "))]
    UnknownOption {
        /// The scheduler.
        scheduler: String,
        /// The unknown key.
        key: String,
        /// The keys it accepts.
        known: Vec<String>,
    },
    /// An option value that does not parse or is out of range.
    #[error("scheduler `{scheduler}`: option `{key}` = `{value}` is invalid: {reason}")]
    InvalidOption {
        /// The scheduler.
        scheduler: String,
        /// The option key.
        key: String,
        /// The rejected value.
        value: String,
        /// Why.
        reason: String,
    },
    /// A scheduler specification string (`name:key=value,...`) is malformed.
    #[error("malformed scheduler spec `{spec}`: {reason}")]
    InvalidSpec {
        /// The spec.
        spec: String,
        /// Why.
        reason: String,
    },
    /// A scheduler spec could not be built (unknown name, bad option, ...).
    #[error("scheduler spec `{spec}`: {source}")]
    Spec {
        /// The spec or factory label.
        spec: String,
        /// Why.
        source: Box<ScheduleError>,
    },
    /// A scheduler returned an error on an experiment run.
    #[error("scheduler `{scheduler}` failed on problem `{problem}` with seed {seed}: {source}")]
    RunFailed {
        /// The scheduler's label.
        scheduler: String,
        /// The problem's name.
        problem: String,
        /// The run's seed.
        seed: u64,
        /// The scheduler's error.
        source: Box<ScheduleError>,
    },
    /// A scheduler returned a schedule that violates the model's constraints
    /// ([`Schedule::validate`](worl_cluster::Schedule::validate)). The harness never reports
    /// a number for such a run.
    #[error(
        "scheduler `{scheduler}` returned an invalid schedule on problem `{problem}` with seed \
         {seed}: {violations} violation(s), first: {first}"
    )]
    InvalidSchedule {
        /// The scheduler's label.
        scheduler: String,
        /// The problem's name.
        problem: String,
        /// The run's seed.
        seed: u64,
        /// Number of violations.
        violations: usize,
        /// The first violation, rendered.
        first: String,
    },
    /// Two problems (or two schedulers) share a name, which would make records ambiguous.
    #[error("duplicate {what} name `{name}`")]
    Duplicate {
        /// `"problem"` or `"scheduler"`.
        what: &'static str,
        /// The repeated name.
        name: String,
    },
    /// An experiment or statistic lacks what it needs (no problem, no seed, fewer than two
    /// schedulers or blocks, a missing result, an unknown scheduler, ...).
    #[error("{0}")]
    Invalid(String),
    /// Reading or writing a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Reading or writing CSV.
    #[error("CSV {}: {message}", path.display())]
    Csv {
        /// The file (or `<memory>`).
        path: PathBuf,
        /// What went wrong, with the record or line where known.
        message: String,
    },
    /// Reading or writing JSON.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Drawing a plot.
    #[error("plot {}: {message}", path.display())]
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// The drawing error.
        message: String,
    },
}

impl ScheduleError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn csv(path: impl Into<PathBuf>, message: impl ToString) -> Self {
        Self::Csv {
            path: path.into(),
            message: message.to_string(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = ScheduleError> = std::result::Result<T, E>;
