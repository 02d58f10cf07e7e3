//! The crate's error type.

use std::path::PathBuf;
use worl_sched::ScheduleError;

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
    /// An experiment or study without something it needs (a problem, a scheduler, a seed).
    #[error("{what} has no {missing}")]
    Missing {
        /// What lacks it (`the experiment`, ``problem `x` ``).
        what: String,
        /// What it lacks.
        missing: &'static str,
    },
    /// Shard `k` of `n` with `k >= n` (or `n = 0`).
    #[error("shard {k}/{n}: need 0 <= K < N")]
    BadShard {
        /// The shard index.
        k: usize,
        /// The shard count.
        n: usize,
    },
    /// A sharded study naming a policy label or a seed twice.
    #[error("{what} twice: a sharded study needs distinct {kind}")]
    Repeated {
        /// The repeated item (``policy `eft` ``, `seed 3`).
        what: String,
        /// What must be distinct (`policy labels`, `seeds`).
        kind: &'static str,
    },
    /// A policy spec the simulator refuses.
    #[error("policy `{spec}`: {source}")]
    Policy {
        /// The spec.
        spec: String,
        /// Why (boxed: a simulator error is large).
        source: Box<worl_sim::SimError>,
    },
    /// A scheduler the results do not hold.
    #[error("no {role}scheduler `{name}` in the results (have: {})", have.join(", "))]
    NoScheduler {
        /// `"baseline "` or empty.
        role: &'static str,
        /// The scheduler asked for.
        name: String,
        /// The schedulers the results hold.
        have: Vec<String>,
    },
    /// Values a rank statistic cannot use (no block, blocks of different sizes, a NaN, an
    /// incomplete block, fewer than two algorithms or blocks).
    #[error("{reason}")]
    Ranks {
        /// What is wrong, naming the block and algorithm.
        reason: String,
    },
    /// A line of a results file that does not belong to the grid.
    #[error("{}:{line}: {reason}", path.display())]
    ResultsLine {
        /// The results file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// Why it does not belong.
        reason: String,
    },
    /// Two lines of results files that record one run with different results.
    #[error("{}:{line} and {}:{first_line}: {reason}", path.display(), first_path.display())]
    ConflictingRuns {
        /// The later file.
        path: PathBuf,
        /// Its line (1-based).
        line: usize,
        /// The file of the first record.
        first_path: PathBuf,
        /// Its line.
        first_line: usize,
        /// Which run, and what differs.
        reason: String,
    },
    /// A results line whose run is out of the grid's canonical order.
    #[error(
        "{}:{line} ({run}): does not fit the grid's canonical order ({why}): an edited or foreign line, remove it",
        path.display()
    )]
    OutOfOrder {
        /// The results file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The run it records (`run index 2: ali-4 · round-robin · seed 3`).
        run: String,
        /// What is out of order.
        why: String,
    },
    /// A results file that cannot hold or give runs.
    #[error("{}: {reason}", path.display())]
    ResultsFile {
        /// The results file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Results files that do not merge into one finished grid.
    #[error("merge: {reason}")]
    Merge {
        /// Why.
        reason: String,
    },
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
