//! The online policy interface: [`OnlinePolicy`], what it sees ([`SimView`]) and what it
//! decides ([`Dispatch`]).

use crate::error::SimError;
use crate::state::{NONE, Phase, State};
use worl_cluster::{GpuId, Problem};
use worl_dag::{JobId, TaskId};

/// A decision: append `task` to `gpu`'s FIFO queue.
///
/// Each GPU runs its dispatched tasks in dispatch order; the queue head starts when the
/// GPU is up and idle, the task's job is released and every input has arrived. A lost
/// task dispatched again goes before the tasks dispatched normally (it is ready: all its
/// parents have finished, so it cannot wait for a task queued behind it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dispatch {
    /// The task.
    pub task: TaskId,
    /// The GPU whose queue it joins.
    pub gpu: GpuId,
}

/// A scheduling policy driven by the simulation: static plans replayed
/// ([`AsPlanned`](crate::policies::AsPlanned)) and online schedulers.
pub trait OnlinePolicy {
    /// Short name (for logs and errors).
    fn name(&self) -> &str;

    /// Called at time 0 and after every event batch (arrival, task finish, failure,
    /// repair, lost task) with the current state; pushes dispatches into `out` (empty on
    /// entry).
    ///
    /// Errors: whatever the policy fails with; the simulation stops with it.
    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError>;
}

/// The state of a running simulation as a policy sees it: a read-only view.
#[derive(Copy, Clone, Debug)]
pub struct SimView<'a> {
    pub(crate) problem: &'a Problem,
    pub(crate) state: &'a State,
}

impl<'a> SimView<'a> {
    /// The current simulation time, s.
    #[inline]
    pub fn now(&self) -> f64 {
        self.state.now
    }

    /// The problem (workload, cluster and cost model).
    #[inline]
    pub fn problem(&self) -> &'a Problem {
        self.problem
    }

    /// The jobs released so far, in release order.
    #[inline]
    pub fn released_jobs(&self) -> &'a [JobId] {
        &self.state.released
    }

    /// Whether `job` is released.
    ///
    /// # Panics
    /// If `job` is out of range.
    #[inline]
    pub fn is_released(&self, job: JobId) -> bool {
        self.state.job_released[job.index()]
    }

    /// The ready tasks: released, every parent finished, not dispatched (or lost and not
    /// dispatched again). Order: the order they became ready (ties by event order).
    #[inline]
    pub fn ready_tasks(&self) -> &'a [TaskId] {
        &self.state.ready
    }

    /// Whether `task` is not dispatched (never, or lost and not dispatched again).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn undispatched(&self, task: TaskId) -> bool {
        self.state.tasks[task.index()].phase == Phase::Undispatched
    }

    /// Whether `gpu` is up (not failed).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn gpu_up(&self, gpu: GpuId) -> bool {
        self.state.gpus[gpu.index()].down == 0
    }

    /// The tasks dispatched to `gpu` and not finished: its queue plus the running task.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn gpu_queue_len(&self, gpu: GpuId) -> usize {
        self.state.gpus[gpu.index()].load()
    }

    /// Estimated time `gpu` becomes free, s: the latest of now, its ready time and the
    /// running task's nominal finish (start + `exec(v, k)`), plus the nominal run times of
    /// its queued tasks. An estimate: it ignores noise, inputs and outages.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn gpu_free_at(&self, gpu: GpuId) -> f64 {
        let g = &self.state.gpus[gpu.index()];
        let mut t = self.state.now.max(self.state.ready_time[gpu.index()]);
        if g.running != NONE {
            t = t.max(g.running_est_finish);
        }
        t + g.queued_est
    }

    /// The GPU `task` is dispatched to (or ran on, or was lost on), `None` if never
    /// dispatched.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn placement(&self, task: TaskId) -> Option<GpuId> {
        self.state.gpu_of(task)
    }

    /// The finish time of `task`, s, `None` if not finished.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn finish_time(&self, task: TaskId) -> Option<f64> {
        let t = &self.state.tasks[task.index()];
        (t.phase == Phase::Finished).then_some(t.finish)
    }

    /// The jobs released since the previous decision.
    #[inline]
    pub fn newly_released(&self) -> &'a [JobId] {
        &self.state.newly_released
    }

    /// The tasks lost since the previous decision (each to be dispatched again).
    #[inline]
    pub fn newly_lost(&self) -> &'a [TaskId] {
        &self.state.newly_lost
    }
}
