//! The engine's mutable state, read by policies through [`SimView`](crate::SimView).

use std::collections::VecDeque;
use worl_cluster::GpuId;
use worl_dag::{JobId, TaskId};

/// No GPU / no task.
pub(crate) const NONE: u32 = u32::MAX;

/// Where a task is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Not dispatched (never, or lost and not re-dispatched).
    Undispatched,
    /// Dispatched with a charged decision time: joins its GPU's queue later.
    Pending,
    /// In its GPU's queue.
    Queued,
    /// Running on its GPU.
    Running,
    /// Done.
    Finished,
}

/// Per-task state.
#[derive(Clone, Debug)]
pub(crate) struct TaskState {
    pub(crate) phase: Phase,
    /// GPU of the current (or last) dispatch, `NONE` if never dispatched.
    pub(crate) gpu: u32,
    /// Parents not finished yet.
    pub(crate) parents_left: u32,
    /// Inputs of the current dispatch not arrived yet.
    pub(crate) inputs_left: u32,
    /// Whether it is in `State::ready` (released, parents finished, undispatched).
    pub(crate) in_ready: bool,
    /// Start of the current attempt, s.
    pub(crate) start: f64,
    /// Finish, s (valid when finished).
    pub(crate) finish: f64,
    /// Nominal run time on its GPU, s (the policy's estimate).
    pub(crate) est: f64,
    pub(crate) attempts: u32,
    pub(crate) lost_time: f64,
    /// Generation of the current attempt (invalidates a lost attempt's finish event).
    pub(crate) generation: u32,
    /// The actual run time drawn for the next attempt while it waits for a busy window of
    /// its GPU to pass (only with windows), s; taken when it starts.
    pub(crate) drawn: Option<f64>,
}

/// Per-GPU state.
#[derive(Clone, Debug, Default)]
pub(crate) struct GpuState {
    /// Number of outages covering now (up when 0).
    pub(crate) down: u32,
    /// Re-dispatched lost tasks, served before `queue`.
    pub(crate) retry: VecDeque<TaskId>,
    /// Dispatched tasks in dispatch order.
    pub(crate) queue: VecDeque<TaskId>,
    /// The running task, `NONE` if idle.
    pub(crate) running: u32,
    /// Nominal finish of the running task, s.
    pub(crate) running_est_finish: f64,
    /// Sum of the nominal run times of the queued tasks, s.
    pub(crate) queued_est: f64,
    /// Busy time of successful attempts, s.
    pub(crate) busy: f64,
    /// The time of the pending wake-up after a busy window (0: none), so that a head
    /// waiting for a window schedules one `GpuReady` event, not one per try.
    pub(crate) window_wake: f64,
}

impl GpuState {
    /// The queue head: the oldest retry, else the oldest dispatch.
    #[inline]
    pub(crate) fn head(&self) -> Option<TaskId> {
        self.retry.front().or(self.queue.front()).copied()
    }

    /// Queues `task` of nominal run time `est` (s): on the retry queue when `retry` (a lost
    /// task dispatched again), else on the dispatch queue.
    #[inline]
    pub(crate) fn push(&mut self, task: TaskId, est: f64, retry: bool) {
        self.queued_est += est;
        if retry {
            self.retry.push_back(task);
        } else {
            self.queue.push_back(task);
        }
    }

    /// Takes the head `h` (task index `v`, nominal run time `est`, s) off its queue and
    /// runs it from `now` (s): the queued estimate drops by `est` (exactly 0 once both
    /// queues are empty, against rounding drift).
    #[inline]
    pub(crate) fn start_head(&mut self, h: TaskId, v: usize, est: f64, now: f64) {
        if self.retry.front() == Some(&h) {
            self.retry.pop_front();
        } else {
            self.queue.pop_front();
        }
        self.queued_est = if self.retry.is_empty() && self.queue.is_empty() {
            0.0
        } else {
            self.queued_est - est
        };
        self.running = v as u32;
        self.running_est_finish = now + est;
    }

    /// Tasks dispatched and not finished (queued plus running).
    #[inline]
    pub(crate) fn load(&self) -> usize {
        self.retry.len() + self.queue.len() + usize::from(self.running != NONE)
    }
}

/// Everything a policy may read.
#[derive(Clone, Debug)]
pub(crate) struct State {
    pub(crate) now: f64,
    pub(crate) tasks: Vec<TaskState>,
    pub(crate) gpus: Vec<GpuState>,
    pub(crate) job_released: Vec<bool>,
    /// Released jobs in release order.
    pub(crate) released: Vec<JobId>,
    pub(crate) newly_released: Vec<JobId>,
    pub(crate) newly_lost: Vec<TaskId>,
    /// Ready tasks (compacted before each decision).
    pub(crate) ready: Vec<TaskId>,
    /// GPU ready times, s.
    pub(crate) ready_time: Vec<f64>,
    /// Per task, the GPU set of its current (or last) dispatch when it is a gang task, lead
    /// first (empty for a single-GPU task or one never dispatched); an empty vector when
    /// the problem has no gang task.
    pub(crate) sets: Vec<Vec<GpuId>>,
}

impl State {
    /// The GPU set of gang task `task`'s current (or last) dispatch, lead first; `None`
    /// for a single-GPU task or one never dispatched.
    #[inline]
    pub(crate) fn set_of(&self, task: TaskId) -> Option<&[GpuId]> {
        self.sets
            .get(task.index())
            .filter(|s| !s.is_empty())
            .map(Vec::as_slice)
    }

    #[inline]
    pub(crate) fn gpu_of(&self, task: TaskId) -> Option<GpuId> {
        let g = self.tasks[task.index()].gpu;
        (g != NONE).then(|| GpuId::new(g as usize))
    }
}
