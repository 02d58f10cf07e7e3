//! What a simulation returns: per-task and per-job records, the event log and the metrics.

use crate::metrics::SimMetrics;
use worl_cluster::GpuId;
use worl_dag::{JobId, TaskId};

/// The realised execution of one task (its last, successful attempt).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TaskRecord {
    /// The GPU it completed on (a gang task's lead GPU; its whole set is in the event log,
    /// one `Started` event per GPU, lead first).
    pub gpu: GpuId,
    /// Start of the successful attempt, s.
    pub start: f64,
    /// Finish of the successful attempt, s.
    pub finish: f64,
    /// Number of attempts (1 without failures; each lost attempt adds one).
    pub attempts: u32,
    /// Time run by lost attempts, s (GPU-seconds for a gang task: each lost attempt counts
    /// its elapsed time on each of its `g` GPUs).
    pub lost_time: f64,
}

/// The realised execution of one job.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JobRecord {
    /// Release (arrival) time, s.
    pub release: f64,
    /// Finish of its last task, s (its release if it has no task).
    pub finish: f64,
    /// Job completion time `finish − release`, s.
    pub jct: f64,
    /// `jct` over the job's ideal time: its critical path with every task at its fastest
    /// GPU's run time (a gang task of `g` GPUs at `min_k exec(v, k) / (g · e_v)`, its
    /// compute share without the all-reduce) and free communication (a lower bound of any
    /// JCT); 1 for a job without work.
    pub slowdown: f64,
    /// Queueing delay: first start of any of its tasks minus release, s.
    pub wait: f64,
}

/// One entry of the event log (recorded when [`SimConfig::record_events`](crate::SimConfig)
/// is set), in the order the engine processed them (non-decreasing times).
///
/// A gang task (needing `g > 1` GPUs) has one `Dispatched`, `Started`, `Finished` or `Lost`
/// event per GPU of its set, consecutive, lead first (for `Lost`, the failed GPU first), and
/// one transfer per edge and destination GPU of its set (the transfer events do not name
/// the GPUs).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Event {
    /// A job arrived: its tasks become visible to the policy.
    Released {
        /// Time, s.
        time: f64,
        /// The job.
        job: JobId,
    },
    /// The policy dispatched a task to a GPU's queue.
    Dispatched {
        /// Time, s.
        time: f64,
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// A task attempt started.
    Started {
        /// Time, s.
        time: f64,
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// A task attempt finished.
    Finished {
        /// Time, s.
        time: f64,
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// A running task attempt was lost to a GPU failure.
    Lost {
        /// Time, s.
        time: f64,
        /// The task.
        task: TaskId,
        /// The GPU.
        gpu: GpuId,
    },
    /// The transfer of edge `from_task -> to_task` between two GPUs started (its latency
    /// phase begins).
    TransferStarted {
        /// Time, s.
        time: f64,
        /// The parent.
        from_task: TaskId,
        /// The child.
        to_task: TaskId,
    },
    /// The transfer of edge `from_task -> to_task` delivered its data.
    TransferFinished {
        /// Time, s.
        time: f64,
        /// The parent.
        from_task: TaskId,
        /// The child.
        to_task: TaskId,
    },
    /// A GPU failed.
    GpuDown {
        /// Time, s.
        time: f64,
        /// The GPU.
        gpu: GpuId,
    },
    /// A GPU was repaired.
    GpuUp {
        /// Time, s.
        time: f64,
        /// The GPU.
        gpu: GpuId,
    },
}

impl Event {
    /// The event's time, s.
    pub fn time(&self) -> f64 {
        match *self {
            Self::Released { time, .. }
            | Self::Dispatched { time, .. }
            | Self::Started { time, .. }
            | Self::Finished { time, .. }
            | Self::Lost { time, .. }
            | Self::TransferStarted { time, .. }
            | Self::TransferFinished { time, .. }
            | Self::GpuDown { time, .. }
            | Self::GpuUp { time, .. } => time,
        }
    }
}

/// The outcome of [`Simulation::run`](crate::Simulation::run).
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// Per task, indexed by [`TaskId::index`].
    pub tasks: Vec<TaskRecord>,
    /// Per job, indexed by [`JobId::index`].
    pub jobs: Vec<JobRecord>,
    /// The event log (empty unless [`SimConfig::record_events`](crate::SimConfig)).
    pub events: Vec<Event>,
    /// Aggregate metrics.
    pub metrics: SimMetrics,
}
