//! [`PartialSchedule`]: the incremental placement API shared by the plan evaluator and the
//! list schedulers (HEFT, CPOP, PEFT, Min-Min, ...): earliest start/finish of a task on a GPU
//! under a [`Policy`], and placing it.

use crate::error::{ClusterError, Result};
use crate::ids::GpuId;
use crate::plan::Policy;
use crate::problem::Problem;
use crate::schedule::{Schedule, ScheduledTask};
use worl_dag::TaskId;

const NONE: u32 = u32::MAX;

/// Placement of one task.
#[derive(Copy, Clone, Debug)]
struct Placed {
    start: f64,
    finish: f64,
    /// GPU index, `NONE` if not placed.
    gpu: u32,
    /// The next task on its GPU's timeline, `NONE` if last.
    next: u32,
}

const UNPLACED: Placed = Placed {
    start: 0.0,
    finish: 0.0,
    gpu: NONE,
    next: NONE,
};

/// Where a task would go: its GPU, start and finish, computed by
/// [`PartialSchedule::slot`] and applied by [`PartialSchedule::commit`].
///
/// A slot is valid only for the state it was computed on: committing it after any other
/// placement or a reset fails with [`ClusterError::StaleSlot`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Slot {
    task: TaskId,
    gpu: GpuId,
    start: f64,
    finish: f64,
    /// The task it follows on the GPU's timeline (`NONE`: first).
    after: u32,
    /// `PartialSchedule::version` when computed.
    version: u64,
}

impl Slot {
    /// The task.
    #[inline]
    pub fn task(&self) -> TaskId {
        self.task
    }

    /// The GPU.
    #[inline]
    pub fn gpu(&self) -> GpuId {
        self.gpu
    }

    /// Earliest start time (EST), s.
    #[inline]
    pub fn start(&self) -> f64 {
        self.start
    }

    /// Earliest finish time (EFT) = start + exec, s.
    #[inline]
    pub fn finish(&self) -> f64 {
        self.finish
    }
}

/// A schedule under construction: the tasks placed so far, their GPUs, start and finish
/// times, and each GPU's timeline (tasks in start order, as a linked list over task ids).
///
/// Placing a task `v` on GPU `k`:
/// 1. its **data-ready time** is `DRT(v, k) = max over predecessors u of F_u + comm(d_uv,
///    π(u), k)` (0 without predecessors); every predecessor must be placed;
/// 2. with [`Policy::Append`] it starts at `max(DRT, r_k, F of the last task on k)`;
///    with [`Policy::Insertion`] at the start of the earliest idle gap of `k` after
///    `max(DRT, r_k)` that holds `exec(v, k)` (Topcuoglu et al. 2002, §4.1, insertion-based
///    policy), else after the last task;
/// 3. it finishes at `start + exec(v, k)`;
/// 4. busy windows ([`Gpu::busy`](crate::Gpu::busy)) are blocks of the timeline no task
///    may meet: append moves the start past every window `[S, S + exec)` would intersect,
///    insertion takes the earliest gap between tasks and windows that holds the task.
///    Without windows (the common case) the code is the window-free one.
///
/// Costs: `O(|preds(v)|)` for the data-ready time, plus `O(1)` (append) or
/// `O(tasks on k)` (insertion) for the slot. All buffers are sized once (`n + m`); placing
/// allocates nothing. The [`Evaluator`](crate::Evaluator) is this type driven by a plan.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuId, GpuModel, PartialSchedule, Policy, Problem};
/// use worl_dag::WorkloadBuilder;
/// let mut b = WorkloadBuilder::new("w");
/// let j = b.add_job("j")?;
/// let a = b.add_task(j, "a", 4.0, None)?;
/// let c = b.add_task(j, "c", 2.0, None)?;
/// b.add_edge(a, c, 0.0)?;
/// let p = Problem::new(Arc::new(b.build()?), Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?))?;
/// let mut s = PartialSchedule::new(&p);
/// s.place(a, GpuId::new(0), Policy::Insertion)?;
/// // HEFT's step: the EFT of `c` on every GPU, then place it on the best.
/// let best = p.cluster().gpu_ids()
///     .map(|k| s.slot(c, k, Policy::Insertion))
///     .collect::<Result<Vec<_>, _>>()?
///     .into_iter()
///     .min_by(|x, y| x.finish().total_cmp(&y.finish()))
///     .unwrap();
/// assert_eq!(best.gpu(), GpuId::new(0)); // the other GPU pays the PCIe latency
/// s.commit(best)?;
/// assert_eq!(s.makespan(), 6.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct PartialSchedule<'p> {
    problem: &'p Problem,
    /// Per task: its placement (one cache line holds what a successor reads).
    task: Vec<Placed>,
    /// Per GPU: first and last task of its timeline.
    head: Vec<u32>,
    tail: Vec<u32>,
    n_placed: usize,
    makespan: f64,
    version: u64,
    /// Whether some GPU has a busy window ([`Problem::has_windows`]): when not, every slot
    /// is found by the window-free code below, unchanged.
    windows: bool,
}

/// The earliest time `>= free` at which a task of duration `dur` can start on a GPU whose
/// busy windows are `busy` (sorted, non-overlapping) without intersecting any: `[S, S + dur)`
/// must not meet `[from, to)`, which for `dur == 0` refuses only `from < S < to`.
#[inline]
fn past_windows(busy: &[(f64, f64)], mut free: f64, dur: f64) -> f64 {
    let mut w = busy.partition_point(|x| x.1 <= free);
    while let Some(&(from, to)) = busy.get(w) {
        if free + dur > from {
            free = to;
            w += 1;
        } else {
            break;
        }
    }
    free
}

impl<'p> PartialSchedule<'p> {
    /// An empty schedule for `problem`.
    pub fn new(problem: &'p Problem) -> Self {
        let (n, m) = (problem.n_tasks(), problem.n_gpus());
        Self {
            problem,
            task: vec![UNPLACED; n],
            head: vec![NONE; m],
            tail: vec![NONE; m],
            n_placed: 0,
            makespan: 0.0,
            version: 0,
            windows: problem.has_windows(),
        }
    }

    /// Removes every placement (keeps the buffers).
    pub fn reset(&mut self) {
        self.task.fill(UNPLACED);
        self.head.fill(NONE);
        self.tail.fill(NONE);
        self.n_placed = 0;
        self.makespan = 0.0;
        self.version += 1;
    }

    /// The problem.
    #[inline]
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Whether `task` is placed.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn is_placed(&self, task: TaskId) -> bool {
        self.task[task.index()].gpu != NONE
    }

    /// Number of tasks placed.
    #[inline]
    pub fn n_placed(&self) -> usize {
        self.n_placed
    }

    /// Whether every task is placed.
    #[inline]
    pub fn is_complete(&self) -> bool {
        self.n_placed == self.task.len()
    }

    /// The GPU of `task`, if placed.
    #[inline]
    pub fn gpu_of(&self, task: TaskId) -> Option<GpuId> {
        let k = self.task[task.index()].gpu;
        (k != NONE).then(|| GpuId::new(k as usize))
    }

    /// Start time of `task`, s, if placed.
    #[inline]
    pub fn start(&self, task: TaskId) -> Option<f64> {
        self.is_placed(task).then(|| self.task[task.index()].start)
    }

    /// Finish time of `task`, s, if placed.
    #[inline]
    pub fn finish(&self, task: TaskId) -> Option<f64> {
        self.is_placed(task).then(|| self.task[task.index()].finish)
    }

    /// Latest finish time of the placed tasks, s (0 when none is placed).
    #[inline]
    pub fn makespan(&self) -> f64 {
        self.makespan
    }

    /// When `gpu` becomes free for appending: the finish of its last task, or its ready time
    /// `r_k` if it has none (HEFT's `avail[j]` for the non-insertion policy).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn available(&self, gpu: GpuId) -> f64 {
        let r = self.problem.ready_time(gpu);
        match self.tail[gpu.index()] {
            NONE => r,
            t => self.task[t as usize].finish.max(r),
        }
    }

    /// The tasks on `gpu`, in start order.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn timeline(&self, gpu: GpuId) -> impl Iterator<Item = TaskId> + '_ {
        let mut cur = self.head[gpu.index()];
        std::iter::from_fn(move || {
            (cur != NONE).then(|| {
                let t = cur;
                cur = self.task[t as usize].next;
                TaskId::new(t as usize)
            })
        })
    }

    /// The task after `task` on its GPU's timeline: `None` if `task` is the last one there or
    /// is not placed (`O(1)`).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn next_on_gpu(&self, task: TaskId) -> Option<TaskId> {
        let t = self.task[task.index()];
        (t.gpu != NONE && t.next != NONE).then(|| TaskId::new(t.next as usize))
    }

    /// Data-ready time of `task` on `gpu`: `max over predecessors u of F_u + comm(d_uv, π(u),
    /// gpu)`, 0 without predecessors, s.
    ///
    /// Errors: [`ClusterError::UnknownId`] for a task or GPU out of range;
    /// [`ClusterError::NotTopological`] naming the first predecessor not placed yet.
    #[inline]
    pub fn data_ready_time(&self, task: TaskId, gpu: GpuId) -> Result<f64> {
        self.problem.check_task(task)?;
        self.problem.check_gpu(gpu)?;
        self.drt(task, gpu)
    }

    #[inline]
    fn drt(&self, task: TaskId, gpu: GpuId) -> Result<f64> {
        let p = self.problem;
        let mut drt = 0.0f64;
        for nb in p.graph().preds(task) {
            let u = self.task[nb.task.index()];
            if u.gpu == NONE {
                return Err(ClusterError::NotTopological {
                    task: p.task_label(task),
                    pred: p.task_label(nb.task),
                });
            }
            let t = u.finish + p.comm_time(nb.bytes, GpuId::new(u.gpu as usize), gpu);
            if t > drt {
                drt = t;
            }
        }
        Ok(drt)
    }

    /// The slot `task` would take on `gpu` under `policy` (its EST and EFT), without placing
    /// it.
    ///
    /// Errors: [`ClusterError::UnknownId`] for a task or GPU out of range;
    /// [`ClusterError::DuplicateTask`] if the task is placed;
    /// [`ClusterError::MemoryInfeasible`] if it does not fit the GPU's memory;
    /// [`ClusterError::NotTopological`] if a predecessor is not placed.
    #[inline]
    pub fn slot(&self, task: TaskId, gpu: GpuId, policy: Policy) -> Result<Slot> {
        let (ready_at, dur) = self.slot_inputs(task, gpu)?;
        let k = gpu.index();
        if self.windows {
            let (start, after) = self.earliest_on(k, ready_at, dur, policy);
            return Ok(Slot {
                task,
                gpu,
                start,
                finish: start + dur,
                after,
                version: self.version,
            });
        }
        let (start, after) = match policy {
            Policy::Append => {
                let t = self.tail[k];
                let free = if t == NONE {
                    ready_at
                } else {
                    ready_at.max(self.task[t as usize].finish)
                };
                (free, t)
            }
            // Nothing ends after `ready_at`: no gap to search (the common case).
            Policy::Insertion
                if self.tail[k] == NONE || self.task[self.tail[k] as usize].finish <= ready_at =>
            {
                (ready_at, self.tail[k])
            }
            Policy::Insertion => {
                let mut prev = NONE;
                let mut free = ready_at;
                let mut cur = self.head[k];
                loop {
                    if cur == NONE {
                        break (free, prev);
                    }
                    let c = self.task[cur as usize];
                    if free + dur <= c.start {
                        break (free, prev);
                    }
                    free = free.max(c.finish);
                    prev = cur;
                    cur = c.next;
                }
            }
        };
        Ok(Slot {
            task,
            gpu,
            start,
            finish: start + dur,
            after,
            version: self.version,
        })
    }

    /// The earliest start `>= ready_at` of a task of duration `dur` on GPU `k` under
    /// `policy`, honouring `k`'s busy windows, and the node it would follow on `k`'s
    /// timeline (`NONE`: first). Append: after the last task and past any window the task
    /// would meet; insertion: the earliest gap between tasks and windows that holds it.
    fn earliest_on(&self, k: usize, ready_at: f64, dur: f64, policy: Policy) -> (f64, u32) {
        let busy = self.problem.busy(GpuId::new(k));
        match policy {
            Policy::Append => {
                let t = self.tail[k];
                let free = if t == NONE {
                    ready_at
                } else {
                    ready_at.max(self.task[t as usize].finish)
                };
                (past_windows(busy, free, dur), t)
            }
            Policy::Insertion => {
                let mut prev = NONE;
                let mut free = ready_at;
                let mut cur = self.head[k];
                let mut w = busy.partition_point(|x| x.1 <= free);
                loop {
                    // past every window the task would meet at `free`
                    while let Some(&(from, to)) = busy.get(w) {
                        if to <= free {
                            w += 1;
                        } else if free + dur > from {
                            free = to;
                            w += 1;
                        } else {
                            break;
                        }
                    }
                    if cur == NONE {
                        break (free, prev);
                    }
                    let c = self.task[cur as usize];
                    if free + dur <= c.start {
                        break (free, prev);
                    }
                    free = free.max(c.finish);
                    prev = cur;
                    cur = c.next;
                }
            }
        }
    }

    /// The slot of `task` on `gpu` right after task `after` on its timeline (`None`: first
    /// on the GPU), starting as early as its data and `after` allow:
    /// `max(data-ready time, r_k, finish of after)`, then past any busy window of the GPU it
    /// would meet (a gap index must therefore know the windows: the slot fails if that
    /// pushes it past the next task). For an index that found the gap itself
    /// (the list schedulers' gap index): when `after` ends the first gap the insertion policy
    /// would take, this is exactly [`slot`](Self::slot)`(task, gpu, Policy::Insertion)`.
    ///
    /// Errors: as [`slot`](Self::slot); [`ClusterError::InvalidParameter`] if `after` is not
    /// placed on `gpu`, or if the task does not fit before the task that follows `after`.
    pub fn slot_after(&self, task: TaskId, gpu: GpuId, after: Option<TaskId>) -> Result<Slot> {
        let (ready_at, dur) = self.slot_inputs(task, gpu)?;
        let k = gpu.index();
        let (free, next, after) = match after {
            None => (ready_at, self.head[k], NONE),
            Some(a) => {
                self.problem.check_task(a)?;
                let placed = self.task[a.index()];
                if placed.gpu as usize != k {
                    return Err(ClusterError::InvalidParameter {
                        name: "after",
                        reason: format!(
                            "task {} is not placed on GPU {}",
                            self.problem.task_label(a),
                            gpu.index()
                        ),
                    });
                }
                (ready_at.max(placed.finish), placed.next, a.index() as u32)
            }
        };
        let free = if self.windows {
            past_windows(self.problem.busy(gpu), free, dur)
        } else {
            free
        };
        // The walk's own test (`free + dur <= start`), negated so that NaN also fails.
        let fits = next == NONE || free + dur <= self.task[next as usize].start;
        if !fits {
            return Err(ClusterError::InvalidParameter {
                name: "after",
                reason: format!(
                    "task {} does not fit before task {} on GPU {}",
                    self.problem.task_label(task),
                    self.problem.task_label(TaskId::new(next as usize)),
                    gpu.index()
                ),
            });
        }
        Ok(Slot {
            task,
            gpu,
            start: free,
            finish: free + dur,
            after,
            version: self.version,
        })
    }

    /// The checks of [`slot`](Self::slot) and its inputs: the time `task` could start on
    /// `gpu` (data-ready time and `r_k`) and its execution time there, s.
    #[inline]
    fn slot_inputs(&self, task: TaskId, gpu: GpuId) -> Result<(f64, f64)> {
        let p = self.problem;
        p.check_task(task)?;
        p.check_gpu(gpu)?;
        if self.task[task.index()].gpu != NONE {
            return Err(ClusterError::DuplicateTask {
                task: p.task_label(task),
                position: self.n_placed,
            });
        }
        if !p.fits(task, gpu) {
            return Err(ClusterError::MemoryInfeasible {
                task: p.task_label(task),
                gpu,
                need_gib: p.mem_need(task),
                have_gib: p.gpu_mem(gpu),
            });
        }
        let ready_at = self.drt(task, gpu)?.max(p.ready_time(gpu));
        Ok((ready_at, p.exec_time(task, gpu)))
    }

    /// Earliest start time (EST) of `task` on `gpu` under `policy`, s. Errors: as
    /// [`slot`](Self::slot).
    #[inline]
    pub fn est(&self, task: TaskId, gpu: GpuId, policy: Policy) -> Result<f64> {
        Ok(self.slot(task, gpu, policy)?.start)
    }

    /// Earliest finish time (EFT) of `task` on `gpu` under `policy`, s. Errors: as
    /// [`slot`](Self::slot).
    #[inline]
    pub fn eft(&self, task: TaskId, gpu: GpuId, policy: Policy) -> Result<f64> {
        Ok(self.slot(task, gpu, policy)?.finish)
    }

    /// Places a slot computed by [`slot`](Self::slot) on this schedule.
    ///
    /// Errors: [`ClusterError::StaleSlot`] if anything was placed (or the schedule reset)
    /// since the slot was computed.
    #[inline]
    pub fn commit(&mut self, slot: Slot) -> Result<()> {
        if slot.version != self.version {
            return Err(ClusterError::StaleSlot {
                task: self.problem.task_label(slot.task),
                gpu: slot.gpu,
            });
        }
        let (t, k) = (slot.task.index(), slot.gpu.index());
        let next = if slot.after == NONE {
            std::mem::replace(&mut self.head[k], t as u32)
        } else {
            std::mem::replace(&mut self.task[slot.after as usize].next, t as u32)
        };
        self.task[t] = Placed {
            start: slot.start,
            finish: slot.finish,
            gpu: k as u32,
            next,
        };
        if next == NONE {
            self.tail[k] = t as u32;
        }
        self.n_placed += 1;
        if slot.finish > self.makespan {
            self.makespan = slot.finish;
        }
        self.version += 1;
        Ok(())
    }

    /// Places `task` on `gpu` at its earliest slot under `policy` and returns the slot.
    /// Errors: as [`slot`](Self::slot).
    #[inline]
    pub fn place(&mut self, task: TaskId, gpu: GpuId, policy: Policy) -> Result<Slot> {
        let slot = self.slot(task, gpu, policy)?;
        self.commit(slot)?;
        Ok(slot)
    }

    /// The finished schedule.
    ///
    /// Errors: [`ClusterError::Incomplete`] if a task is not placed.
    pub fn to_schedule(&self) -> Result<Schedule> {
        if !self.is_complete() {
            let first = self.task.iter().position(|t| t.gpu == NONE).unwrap_or(0);
            return Err(ClusterError::Incomplete {
                missing: self.task.len() - self.n_placed,
                n_tasks: self.task.len(),
                first: self.problem.task_label(TaskId::new(first)),
            });
        }
        let tasks = self
            .task
            .iter()
            .map(|t| ScheduledTask {
                gpu: GpuId::new(t.gpu as usize),
                start: t.start,
                finish: t.finish,
            })
            .collect();
        Schedule::new(self.problem.n_gpus(), tasks)
    }
}
