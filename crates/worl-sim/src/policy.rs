//! The online policy interface: [`OnlinePolicy`], what it sees ([`SimView`]) and what it
//! decides ([`Dispatch`]).

use crate::error::SimError;
use crate::state::{NONE, Phase, State};
use worl_cluster::{GpuId, Problem};
use worl_dag::{JobId, TaskId};

/// A decision: append `task` to `gpu`'s FIFO queue.
///
/// For a gang task (one needing `g > 1` GPUs at once, [`Problem::gpus`]) `gpu` is the
/// **lead** of its GPU set: the set is the one the policy gives through
/// [`OnlinePolicy::gang_set`], or else the one [`SimView::best_set`] chooses around the
/// lead when the dispatch is applied; the task joins the queue of every GPU of the set.
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

    /// The GPU set (lead first, `g` distinct GPUs, the lead being the dispatch's
    /// [`Dispatch::gpu`]) of gang task `task`, dispatched by the `decide` call that just
    /// returned; asked by the engine once per gang dispatch, right after that call.
    /// `None` (the default) lets the engine choose the set with [`SimView::best_set`] around
    /// the lead. The engine checks the set and stops with [`SimError::InvalidGpuSet`] if it
    /// cannot run the task.
    fn gang_set(&self, task: TaskId) -> Option<Vec<GpuId>> {
        let _ = task;
        None
    }
}

/// Refuses a problem holding a gang task for policy `policy`, which cannot place them:
/// [`SimError::GangUnsupported`] naming the first gang task in id order.
pub(crate) fn refuse_gangs(policy: &str, problem: &Problem) -> Result<(), SimError> {
    if !problem.has_gangs() {
        return Ok(());
    }
    match problem.graph().tasks().find(|(_, t)| t.is_gang()) {
        Some((v, t)) => Err(SimError::GangUnsupported {
            policy: policy.to_string(),
            task: problem.task_label(v),
            gpus: t.gpus,
        }),
        None => Ok(()),
    }
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

    /// The GPU set of gang task `task`'s current (or last) dispatch, lead first (the lead
    /// is [`placement`](Self::placement)); `None` for a task needing one GPU or never
    /// dispatched.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn placement_set(&self, task: TaskId) -> Option<&'a [GpuId]> {
        let _ = &self.state.tasks[task.index()];
        self.state.set_of(task)
    }

    /// Estimated data-ready time of `task` on `gpu`, s: the latest of now and, over its
    /// finished parents `u`, `F_u + min_{k ∈ S_u} comm(d_uv, k, gpu)` (each input sent from
    /// the GPU of the parent's set nearest to `gpu`, with the contention-free cost model; a
    /// parent not finished is not counted).
    ///
    /// # Panics
    /// If `task` or `gpu` is out of range.
    pub fn data_ready_at(&self, task: TaskId, gpu: GpuId) -> f64 {
        let p = self.problem;
        let mut drt = self.now();
        for e in p.graph().preds(task) {
            let Some(f) = self.finish_time(e.task) else {
                continue;
            };
            if let Some(set) = self.placement_set(e.task) {
                let c = set
                    .iter()
                    .map(|&k| p.comm_time(e.bytes, k, gpu))
                    .fold(f64::INFINITY, f64::min);
                drt = drt.max(f + c);
            } else if let Some(from) = self.placement(e.task) {
                drt = drt.max(f + p.comm_time(e.bytes, from, gpu));
            }
        }
        drt
    }

    /// The GPU set gang task `task` would take around its lead `lead` now, lead first, with
    /// its estimated common finish, s: the online analogue of
    /// [`PartialSchedule::best_set`](worl_cluster::PartialSchedule::best_set), with each
    /// GPU's estimated free time [`gpu_free_at`](Self::gpu_free_at) in place of a planned
    /// timeline. Every other up GPU that fits the task's memory gets the estimated start
    /// `max(free_k, DRT(v, k))` ([`data_ready_at`](Self::data_ready_at)); the `g − 1`
    /// earliest (ties by id) of the lead's machine join the lead, then, for span `cluster`
    /// only, the earliest of the other machines' GPUs if the lead's machine has too few.
    /// The common start is the latest estimated start over the set (the lead's included),
    /// the finish that plus [`Problem::exec_time_on`] (busy windows are not looked at: the
    /// engine enforces them at the start). `None` if the lead is down or lacks the task's
    /// memory, or too few up GPUs can join it. A task needing one GPU gets `[lead]`.
    /// `O(m + c log c + c · in-degree · g)` for `c` candidates.
    ///
    /// # Panics
    /// If `task` or `lead` is out of range.
    pub fn best_set(&self, task: TaskId, lead: GpuId) -> Option<(Vec<GpuId>, f64)> {
        let free: Vec<f64> = self
            .problem
            .cluster()
            .gpu_ids()
            .map(|k| self.gpu_free_at(k))
            .collect();
        set_around(self, task, lead, &free)
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

/// The GPU set of gang task `task` around `lead` with per-GPU estimated free times `free`
/// (s, by GPU index), and its estimated common finish, s: [`SetPicker::new`] then
/// [`SetPicker::around`].
pub(crate) fn set_around(
    view: &SimView<'_>,
    task: TaskId,
    lead: GpuId,
    free: &[f64],
) -> Option<(Vec<GpuId>, f64)> {
    SetPicker::new(view, task, free).around(view, lead)
}

/// The GPU sets of one gang task around any lead, from one ranking of the GPUs.
///
/// Each up GPU that fits the task's memory gets the estimated start
/// `max(free_k, DRT(v, k))` ([`SimView::data_ready_at`]), computed once. Around a lead
/// (up, fitting), the `g − 1` earliest others (ties by id) of the lead's machine join it,
/// then, for span `cluster` only, the earliest of the other machines' GPUs if the lead's
/// machine has too few (the ranking of
/// [`PartialSchedule::best_set`](worl_cluster::PartialSchedule::best_set), with estimated
/// free times instead of a planned timeline, and without windows). The common start is
/// the latest estimated start over the set (the lead's included), the finish that plus
/// [`Problem::exec_time_on`]. Building is `O(m · in-degree + m log m)`; each lead then
/// `O(g + GPUs of its machine)` plus `exec_time_on`, so trying every GPU as the lead is
/// `O(m · (g + GPUs per machine))`, not `O(m²)`, for span `cluster`.
pub(crate) struct SetPicker {
    /// Per GPU: its estimated start, `NaN` when it is down or lacks the memory.
    est: Vec<f64>,
    /// Per machine: its eligible GPUs by `(estimated start, id)`.
    by_machine: Vec<Vec<GpuId>>,
    /// Every eligible GPU by `(estimated start, id)` (span `cluster` only, else empty).
    all: Vec<GpuId>,
    g: usize,
    cluster_span: bool,
    task: TaskId,
}

impl SetPicker {
    /// The ranking of `task`'s GPUs at `view` with estimated free times `free` (s, by GPU
    /// index).
    pub(crate) fn new(view: &SimView<'_>, task: TaskId, free: &[f64]) -> Self {
        let p = view.problem();
        let est: Vec<f64> = p
            .cluster()
            .gpu_ids()
            .map(|k| {
                if view.gpu_up(k) && p.fits(task, k) {
                    free[k.index()].max(view.data_ready_at(task, k))
                } else {
                    f64::NAN
                }
            })
            .collect();
        let by_key =
            |a: &GpuId, b: &GpuId| est[a.index()].total_cmp(&est[b.index()]).then(a.cmp(b));
        let mut by_machine: Vec<Vec<GpuId>> = (0..p.cluster().n_machines())
            .map(|mc| {
                p.cluster()
                    .gpus_of(worl_cluster::MachineId::new(mc))
                    .iter()
                    .copied()
                    .filter(|k| !est[k.index()].is_nan())
                    .collect()
            })
            .collect();
        for list in &mut by_machine {
            list.sort_by(by_key);
        }
        let cluster_span = p.graph().task(task).gang.span == worl_dag::Span::Cluster;
        let mut all: Vec<GpuId> = if cluster_span {
            p.cluster()
                .gpu_ids()
                .filter(|k| !est[k.index()].is_nan())
                .collect()
        } else {
            Vec::new()
        };
        all.sort_by(by_key);
        Self {
            est,
            by_machine,
            all,
            g: p.gpus(task) as usize,
            cluster_span,
            task,
        }
    }

    /// The set around `lead` (lead first) and its estimated common finish, s; `None` if the
    /// lead is down or lacks the memory, or fewer than `g − 1` GPUs can join it.
    pub(crate) fn around(&self, view: &SimView<'_>, lead: GpuId) -> Option<(Vec<GpuId>, f64)> {
        let p = view.problem();
        let mut start = self.est[lead.index()];
        if start.is_nan() {
            return None;
        }
        let mut set = Vec::with_capacity(self.g);
        set.push(lead);
        let home = p.machine_of(lead);
        for &k in &self.by_machine[home.index()] {
            if set.len() == self.g {
                break;
            }
            if k != lead {
                set.push(k);
                start = start.max(self.est[k.index()]);
            }
        }
        if set.len() < self.g && self.cluster_span {
            for &k in &self.all {
                if set.len() == self.g {
                    break;
                }
                if p.machine_of(k) != home {
                    set.push(k);
                    start = start.max(self.est[k.index()]);
                }
            }
        }
        if set.len() < self.g {
            return None;
        }
        let finish = start + p.exec_time_on(self.task, &set);
        Some((set, finish))
    }
}
