//! The crate's error type.

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
    #[cfg(feature = "ddqn")]
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
    /// A scheduler read an option it does not declare ([`OptionDoc`](crate::options::OptionDoc)):
    /// a defect of the scheduler, not of the user's spec.
    #[error("scheduler `{scheduler}` reads option `{key}`, which it does not declare")]
    UndeclaredOption {
        /// The scheduler.
        scheduler: String,
        /// The key it read.
        key: String,
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
    /// An evaluation budget a search cannot honour: below the plans of its first population
    /// (every search evaluates its whole initial population, so `max_evaluations = 0` is
    /// always this error). See [`RunContext::check_budget`](crate::RunContext::check_budget).
    #[error(
        "scheduler `{scheduler}`: a budget of {budget} plan evaluations is below its initial \
         population of {population} plans (give at least {population} evaluations or a \
         smaller population)"
    )]
    BudgetBelowPopulation {
        /// The scheduler.
        scheduler: String,
        /// The budget, plan evaluations.
        budget: u64,
        /// The plans its first step evaluates.
        population: usize,
    },
    /// The problem is too large for the scheduler's method (`exact`'s task × GPU tables).
    #[error("{scheduler} cannot take {tasks} tasks on {gpus} GPUs: {reason}")]
    TooLarge {
        /// The scheduler's name.
        scheduler: String,
        /// Tasks of the problem.
        tasks: usize,
        /// GPUs of the problem.
        gpus: usize,
        /// The limit it passes.
        reason: String,
    },
    /// The problem holds something the scheduler does not handle yet: gang tasks (a task
    /// needing more than one GPU at once, [`Task::gpus`](worl_dag::Task::gpus) `> 1`),
    /// refused by every scheduler built by a [`Registry`](crate::Registry) whose
    /// [`Scheduler::supports_gangs`](crate::Scheduler::supports_gangs) is `false` (DQN,
    /// MDTS; [`check_supported`](crate::scheduler::check_supported)). Names the scheduler and the
    /// first such task (smallest task id) as `job/task` with its GPU count.
    #[error("scheduler `{scheduler}` does not support {feature}: task {task} needs {gpus} GPUs")]
    Unsupported {
        /// The scheduler's name.
        scheduler: String,
        /// What it does not support, e.g. [`GANG_TASKS`].
        feature: &'static str,
        /// The first task that needs it, `job/task`.
        task: String,
        /// That task's GPU demand.
        gpus: u32,
    },
    /// A scheduler specification string (`name:key=value,...`) is malformed.
    #[error("malformed scheduler spec `{spec}`: {reason}")]
    InvalidSpec {
        /// The spec.
        spec: String,
        /// Why.
        reason: String,
    },
}

/// The `feature` of [`ScheduleError::Unsupported`] for gang tasks.
pub const GANG_TASKS: &str = "gang tasks (a task needing more than one GPU)";

/// Result alias of this crate.
pub type Result<T, E = ScheduleError> = std::result::Result<T, E>;
