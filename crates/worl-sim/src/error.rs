//! [`SimError`]: every way a simulation, a specification string or a policy can fail.

use crate::failures::escaped;
use thiserror::Error;

/// An error of the simulator. Every variant names the offending item: the specification
/// string, the task (by its `job/task` label), the GPU (`g3`), the job or the policy.
/// Messages are one line: control characters of a specification string, a file name or a
/// quoted field are escaped (`\0`, `\r`, `\u{1b}`).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SimError {
    /// A specification string (`--noise lognormal:0.3`, `--failures mtbf:0`, ...) or a
    /// configuration value is invalid.
    #[error("invalid {what} `{}`: {reason}", escaped(spec))]
    InvalidSpec {
        /// What the string specifies: `noise`, `contention`, `failures`, `arrivals`, ...
        what: &'static str,
        /// The string (or the value, formatted) as given.
        spec: String,
        /// Why it is refused.
        reason: String,
    },
    /// A scripted outage is invalid (GPU out of range, `to <= from`, negative or non-finite
    /// times).
    #[error("invalid outage of GPU {gpu} from {from} s to {to} s: {reason}")]
    InvalidOutage {
        /// The GPU index as given.
        gpu: usize,
        /// Start of the outage, s.
        from: f64,
        /// End of the outage, s.
        to: f64,
        /// Why it is refused.
        reason: String,
    },
    /// An outage script file (`script:FILE`) cannot be read, or one of its lines is
    /// invalid (a bad header, a GPU that is not an index, a time that is not a number, a
    /// non-finite or negative failure time, a repair time not after it, too many rows).
    #[error("outage script `{}`{}: {reason}", escaped(file), at_line(*.line))]
    InvalidScript {
        /// The file, as given.
        file: String,
        /// The 1-based line (the header is line 1), or `None` for the file as a whole.
        line: Option<u64>,
        /// Why it is refused.
        reason: String,
    },
    /// A policy that cannot place gang tasks (online DQN/MDTS, re-planning with a static
    /// scheduler whose [`supports_gangs`](worl_sched::Scheduler::supports_gangs) is false)
    /// met a problem holding one.
    #[error(
        "policy `{policy}` does not support gang tasks: task `{task}` needs {gpus} GPUs at once"
    )]
    GangUnsupported {
        /// The policy's name.
        policy: String,
        /// The first gang task (id order), as `job/task`.
        task: String,
        /// The GPUs it needs.
        gpus: u32,
    },
    /// A policy dispatched a gang task to a GPU set that cannot run it: wrong size, a GPU
    /// repeated or out of range, a GPU without the task's memory, span `machine` broken, a
    /// set not led by the dispatch's GPU, or no set of up GPUs around the lead.
    #[error("policy `{policy}` dispatched gang task {task} to the GPU set {gpus}: {reason}")]
    InvalidGpuSet {
        /// The policy's name.
        policy: String,
        /// The task's label.
        task: String,
        /// The set, as `[g0, g1]`.
        gpus: String,
        /// Why it is refused.
        reason: String,
    },
    /// A policy dispatched a task id that is not in the problem.
    #[error("policy `{policy}` dispatched task index {index}, but the problem has {n_tasks} tasks")]
    UnknownTask {
        /// The policy's name.
        policy: String,
        /// The task index.
        index: usize,
        /// Number of tasks of the problem.
        n_tasks: usize,
    },
    /// A policy dispatched a task to a GPU id that is not in the cluster.
    #[error(
        "policy `{policy}` dispatched task {task} to GPU index {index}, but the cluster has {n_gpus} GPUs"
    )]
    UnknownGpu {
        /// The policy's name.
        policy: String,
        /// The task's label.
        task: String,
        /// The GPU index.
        index: usize,
        /// Number of GPUs of the cluster.
        n_gpus: usize,
    },
    /// A policy dispatched a task that is already dispatched (and not lost) or finished.
    #[error(
        "policy `{policy}` dispatched task {task} to {gpu} at t = {time} s, but it is already dispatched to {current}"
    )]
    AlreadyDispatched {
        /// The policy's name.
        policy: String,
        /// The task's label.
        task: String,
        /// The GPU of the new dispatch.
        gpu: String,
        /// The GPU it is dispatched to (or ran on).
        current: String,
        /// Simulation time, s.
        time: f64,
    },
    /// A policy dispatched a task to a GPU whose memory it does not fit.
    #[error("policy `{policy}` dispatched task {task} to {gpu}, whose memory it does not fit")]
    MemoryInfeasible {
        /// The policy's name.
        policy: String,
        /// The task's label.
        task: String,
        /// The GPU.
        gpu: String,
    },
    /// Nothing can happen any more but tasks are unfinished: the policy left tasks
    /// undispatched, or a GPU's queue head waits for a task queued behind it.
    #[error(
        "simulation stalled at t = {time} s with {unfinished} unfinished tasks (first: {task}, {why}) under policy `{policy}`"
    )]
    Stalled {
        /// The policy's name.
        policy: String,
        /// Simulation time, s.
        time: f64,
        /// Number of unfinished tasks.
        unfinished: usize,
        /// The label of the first unfinished task (id order).
        task: String,
        /// Its state: `never dispatched`, `queued on g2 behind ...`.
        why: String,
    },
    /// A task was lost to GPU failures [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS) times:
    /// failures come faster than it can run.
    #[error(
        "task {task} was lost to GPU failures {attempts} times by t = {time} s: failures come faster than the task can run"
    )]
    TooManyLosses {
        /// The task's label.
        task: String,
        /// Its attempts so far.
        attempts: u32,
        /// Simulation time, s.
        time: f64,
    },
    /// A policy or a plan does not match the problem (wrong number of tasks or GPUs).
    #[error("policy `{policy}` does not match the problem: {reason}")]
    PolicyMismatch {
        /// The policy's name.
        policy: String,
        /// What differs.
        reason: String,
    },
    /// A policy failed on its own terms (a scheduler it calls failed, ...).
    #[error("policy `{policy}` failed at t = {time} s: {reason}")]
    Policy {
        /// The policy's name.
        policy: String,
        /// Simulation time, s.
        time: f64,
        /// What failed.
        reason: String,
    },
    /// An error of the cluster model (a plan that does not evaluate, ...).
    #[error(transparent)]
    Cluster(#[from] worl_cluster::ClusterError),
    /// An error of the workload model (a release time refused, ...).
    #[error(transparent)]
    Dag(#[from] worl_dag::DagError),
    /// A scheduler of the registry failed (used by the re-planning policy).
    #[error(transparent)]
    Scheduler(#[from] worl_sched::ScheduleError),
    /// Placeholder of the skeleton: the function is not written yet.
    #[error("{0} is not implemented yet")]
    NotImplemented(&'static str),
}

/// `, line N` for a line of a file, nothing for the file as a whole.
fn at_line(line: Option<u64>) -> String {
    line.map_or_else(String::new, |l| format!(", line {l}"))
}

/// `Result` with [`SimError`].
pub type Result<T, E = SimError> = std::result::Result<T, E>;
