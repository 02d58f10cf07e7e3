//! The crate's error type.

use std::path::PathBuf;
use worl_rtgs::ScheduleError;

/// Everything that can go wrong building, running or reporting an experiment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExperimentError {
    /// A scheduler or the cost model failed outside a run (e.g. building a problem).
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
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
    /// A simulation run failed (`worl-sim`): a policy that cannot be built or fails.
    #[error("simulating policy `{policy}` on problem `{problem}` with seed {seed}: {source}")]
    Simulation {
        /// The problem's name.
        problem: String,
        /// The policy's label.
        policy: String,
        /// The run's seed.
        seed: u64,
        /// The simulator's error.
        source: Box<worl_sim::SimError>,
    },
    /// A simulation setting (noise, contention, failures: e.g. an outage of a GPU the
    /// cluster lacks) or the arrival process is refused for a problem (`worl-sim`), before
    /// any policy runs.
    #[error("{what} refused for problem `{problem}` with seed {seed}: {source}")]
    SimulationSetup {
        /// The problem's name.
        problem: String,
        /// `"simulation settings"` or `"arrival process"`.
        what: &'static str,
        /// The seed.
        seed: u64,
        /// The simulator's error.
        source: Box<worl_sim::SimError>,
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

impl ExperimentError {
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
pub type Result<T, E = ExperimentError> = std::result::Result<T, E>;
