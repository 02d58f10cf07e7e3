//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong building a cluster or a problem, loading cluster files, or
/// evaluating a plan.
///
/// Every variant names the offending item (a GPU as `g3`, a machine by name, a task as
/// `job/task`, a file and line), so that a user can find it in their input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// The cluster has no GPU.
    #[error("cluster `{cluster}` has no GPU")]
    EmptyCluster {
        /// Name of the cluster.
        cluster: String,
    },
    /// A number is out of its allowed range (zero, negative, NaN or infinite where that is not
    /// allowed).
    #[error("{}: {field} = {} is invalid (expected {expected})", clip(item), num(*value))]
    InvalidValue {
        /// The item holding the value (`g3`, `machine node-1`, `link node-0 -> node-1`,
        /// `GPU model V100-32GB`, `exec[t4, g2]`, ...).
        item: String,
        /// The field (`speed`, `bandwidth`, `latency`, `background`, ...).
        field: &'static str,
        /// The rejected value.
        value: f64,
        /// The allowed range, in words.
        expected: &'static str,
    },
    /// A matrix has the wrong shape.
    #[error("{what}: shape {actual:?} given, {expected:?} expected")]
    ShapeMismatch {
        /// Which matrix.
        what: &'static str,
        /// Expected shape (rows, columns).
        expected: (usize, usize),
        /// Given shape (rows, columns).
        actual: (usize, usize),
    },
    /// A GPU, machine, task or model id that does not exist.
    #[error("unknown {kind} id {index} (only {len} exist)")]
    UnknownId {
        /// `"GPU"`, `"machine"`, `"task"`, `"GPU model"` or `"GPU class"`.
        kind: &'static str,
        /// The rejected dense index.
        index: usize,
        /// How many ids exist.
        len: usize,
    },
    /// Two different GPU models share a name.
    #[error("two different GPU models are named `{}`", clip(name))]
    DuplicateModel {
        /// The name.
        name: String,
    },
    /// A GPU model name that is neither in the catalog nor defined by the input.
    #[error("unknown GPU model `{}`", clip(name))]
    UnknownModel {
        /// The name.
        name: String,
    },
    /// A task whose memory need exceeds the memory of every GPU.
    #[error(
        "task `{task}` needs {need_gib} GiB of GPU memory but the largest GPU has {max_gib} GiB"
    )]
    TaskFitsNoGpu {
        /// The task, as `job/task`.
        task: String,
        /// Its memory need, GiB.
        need_gib: f64,
        /// The largest GPU memory of the cluster, GiB.
        max_gib: f64,
    },
    /// A plan's vector has the wrong length.
    #[error("plan: `{field}` has {actual} entries, the workload has {expected} tasks")]
    PlanLength {
        /// `"gpu"` or `"order"`.
        field: &'static str,
        /// Number of tasks.
        expected: usize,
        /// Given length.
        actual: usize,
    },
    /// A task appears twice in a plan's order (or is placed twice).
    #[error("task `{task}` is placed twice (second time at order position {position})")]
    DuplicateTask {
        /// The task, as `job/task`.
        task: String,
        /// Position in the order of the second occurrence (the count of placed tasks for the
        /// incremental API).
        position: usize,
    },
    /// A task is placed before one of its predecessors: the order is not topological.
    #[error("task `{task}` is placed before its predecessor `{pred}` (order is not topological)")]
    NotTopological {
        /// The task, as `job/task`.
        task: String,
        /// The predecessor not yet placed, as `job/task`.
        pred: String,
    },
    /// A task placed on a GPU with too little memory.
    #[error("task `{task}` needs {need_gib} GiB but GPU {gpu} has {have_gib} GiB")]
    MemoryInfeasible {
        /// The task, as `job/task`.
        task: String,
        /// The GPU.
        gpu: crate::GpuId,
        /// Memory need, GiB.
        need_gib: f64,
        /// GPU memory, GiB.
        have_gib: f64,
    },
    /// A slot computed by [`PartialSchedule::slot`](crate::PartialSchedule::slot) was committed
    /// after the timeline changed so that it no longer fits.
    #[error("slot of task `{task}` on GPU {gpu} no longer fits its timeline")]
    StaleSlot {
        /// The task, as `job/task`.
        task: String,
        /// The GPU.
        gpu: crate::GpuId,
    },
    /// A partial schedule was turned into a [`Schedule`](crate::Schedule) before every task
    /// was placed.
    #[error("{missing} of {n_tasks} tasks are not placed yet (first: `{first}`)")]
    Incomplete {
        /// Number of tasks not placed.
        missing: usize,
        /// Number of tasks.
        n_tasks: usize,
        /// The first task not placed, as `job/task`.
        first: String,
    },
    /// A scheduled task's start or finish is not a finite number, or finish < start.
    #[error("task {task}: start {start} / finish {finish} is not a valid interval")]
    InvalidInterval {
        /// The task id.
        task: worl_dag::TaskId,
        /// Start, s.
        start: f64,
        /// Finish, s.
        finish: f64,
    },
    /// A parameter of a preset, generator or loader is out of range.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// More GPUs than a machine or a cluster may hold
    /// ([`MAX_GPUS_PER_MACHINE`](crate::cluster::MAX_GPUS_PER_MACHINE),
    /// [`MAX_GPUS`](crate::cluster::MAX_GPUS)).
    #[error("{}: {count} GPUs exceed the limit of {limit}", clip(item))]
    TooManyGpus {
        /// The machine (`machine node-3`) or cluster (`cluster pai`).
        item: String,
        /// The number of GPUs asked for (saturating at `usize::MAX`).
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// An execution or communication time of the cost model is not a finite number: the
    /// work, bytes, speed or bandwidth are each valid, but their quotient overflows (work
    /// `1e308` on a GPU of speed `1e-3`, say). Reported by [`Problem`](crate::Problem)
    /// construction.
    #[error(
        "{what} time of task `{task}` on {gpu} is {value} s, not a finite number (work or bytes too large for the speed or bandwidth)"
    )]
    NonFiniteCost {
        /// `"execution"` or `"communication"`.
        what: &'static str,
        /// The task as `job/task`, or the edge as `job/a -> job/b` for communication.
        task: String,
        /// The GPU as `g3`, or the GPU pair as `g0 -> g3` for communication.
        gpu: String,
        /// The time, s (infinite or NaN).
        value: f64,
    },
    /// A sum over the workload overflows: the total work, the critical path or the longest
    /// possible schedule is not a finite number, so that makespans and the lower bound could
    /// not be represented. Reported by [`Problem`](crate::Problem) construction.
    #[error("{what} overflows at task `{task}` (the sum is no longer a finite number)")]
    Overflow {
        /// `"total work"` or `"worst-case schedule length"`.
        what: &'static str,
        /// The task (as `job/task`) or edge (as `job/a -> job/b`) whose addition overflowed.
        task: String,
    },
    /// A busy window of a GPU ([`Gpu::busy`](crate::Gpu::busy)) is invalid: empty or
    /// inverted (`from >= to`), overlapping another window of the GPU, or with a bound that
    /// is negative, not finite, or past [`MAX_HORIZON`](crate::cluster::MAX_HORIZON).
    #[error("busy window of GPU `{}`: {reason}", clip(gpu))]
    InvalidWindow {
        /// The GPU as `machine/gN` (`node-1/g3`).
        gpu: String,
        /// What is wrong, with the window(s) in seconds.
        reason: String,
    },
    /// A gang task ([`Task::gpus`](worl_dag::Task::gpus) `> 1`) that no GPU set of the
    /// cluster can hold: with span `machine`, more GPUs (or more GPUs that fit its memory)
    /// than any one machine has; with span `cluster`, more than the whole cluster has.
    /// Reported by [`Problem`](crate::Problem) construction.
    #[error(
        "gang task `{task}` needs {gpus} GPUs at once (span {span}) but {reason} (largest machine `{}`: {largest_gpus} GPUs)",
        clip(largest_machine)
    )]
    GangTooLarge {
        /// The task, as `job/task`.
        task: String,
        /// Its GPU demand `g`.
        gpus: u32,
        /// Its span, `machine` or `cluster`.
        span: &'static str,
        /// What is short, in words (`the largest machine has 4 GPUs`, `only 3 GPUs of
        /// the cluster have its 40 GiB`, ...).
        reason: String,
        /// The name of the machine with the most GPUs (the first in id order on ties).
        largest_machine: String,
        /// Its number of GPUs.
        largest_gpus: usize,
    },
    /// A GPU set given for a gang task (to
    /// [`PartialSchedule::slot_set`](crate::PartialSchedule::slot_set), a
    /// [`Plan`](crate::Plan)'s explicit sets or a [`Schedule`](crate::Schedule)) or chosen
    /// around a lead GPU cannot hold the task: wrong size, a repeated or unknown GPU, GPUs on
    /// several machines for span `machine`, a GPU without the task's memory, or too few
    /// suitable GPUs around the lead.
    #[error("GPU set of task `{task}` {{{gpus}}}: {reason}")]
    InvalidGpuSet {
        /// The task, as `job/task` (or its id `t3` where no problem names it).
        task: String,
        /// The set as given, GPUs as `g0,g1,...` (the lead alone when choosing around it).
        gpus: String,
        /// What is wrong.
        reason: String,
    },
    /// A cluster description ([`description::parse`](crate::description::parse)) is
    /// malformed.
    #[error("cluster `{description}`: {reason} (expected {forms})", forms = crate::description::FORMS)]
    Description {
        /// The description as given.
        description: String,
        /// What is wrong, naming the field.
        reason: String,
    },
    /// Reading or writing a file failed.
    #[error("cannot access `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file given as a schedule file is another kind of file (a workload, a cluster, a
    /// WfFormat workflow without an `execution` section, a CSV without schedule columns).
    #[error("not a schedule file: {file}: {}", clip_quoted(reason))]
    NotAScheduleFile {
        /// The file (or `<memory>`).
        file: String,
        /// What it is or lacks, and what a schedule file has.
        reason: String,
    },
    /// A file is malformed at a given line (1-based; 0 when the format has no line notion).
    /// Quoted values of the message longer than [`SHOWN_VALUE_CHARS`] are shown clipped
    /// ([`clip_quoted`]).
    #[error("{file}:{line}: {}", clip_quoted(message))]
    Parse {
        /// The file (or `<memory>` for in-memory input).
        file: String,
        /// 1-based line, 0 when unknown.
        line: usize,
        /// What is wrong, naming the offending item.
        message: String,
    },
}

pub(crate) use worl_dag::error::num;

pub use worl_dag::error::{SHOWN_VALUE_CHARS, clip, clip_quoted};

/// Result alias of this crate.
pub type Result<T, E = ClusterError> = std::result::Result<T, E>;

/// Checks that `value` is finite, `> 0` and normal: not subnormal (below
/// `f64::MIN_POSITIVE` ≈ 2.2e-308), so that its reciprocal is finite (a speed or bandwidth of
/// `1e-320` would make every time infinite).
pub(crate) fn positive(item: impl Fn() -> String, field: &'static str, value: f64) -> Result<()> {
    if value.is_normal() && value > 0.0 {
        Ok(())
    } else {
        Err(ClusterError::InvalidValue {
            item: item(),
            field,
            value,
            expected: "a finite number > 0, not subnormal (>= 2.2e-308)",
        })
    }
}

/// Checks that `value` is finite and `>= 0`.
pub(crate) fn non_negative(
    item: impl Fn() -> String,
    field: &'static str,
    value: f64,
) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(ClusterError::InvalidValue {
            item: item(),
            field,
            value,
            expected: "a finite number >= 0",
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn a_10_mb_value_is_clipped_in_cluster_file_errors() {
        let big = "x".repeat(10 << 20);
        let toml = format!("name = \"c\"\nmachines = 1\ngpus_per_machine = 1\nmodel = \"{big}\"\n");
        let json = format!(
            r#"{{"name": "c", "machines": 1, "gpus_per_machine": 1, "model": "A100-80GB", "{big}": 1}}"#
        );
        for e in [
            Cluster::from_toml_str(&toml).unwrap_err(),
            Cluster::from_json_str(&json).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(
                e.len() < 1000 && e.contains(&format!("{}… (10485760 bytes)", "x".repeat(80))),
                "{}",
                &e[..1000.min(e.len())]
            );
        }
    }
}
