//! [`PartialSchedule`]: the incremental placement API shared by the plan evaluator and the
//! list schedulers (HEFT, CPOP, PEFT, Min-Min, ...): earliest start/finish of a task on a GPU
//! under a [`Policy`], and placing it.

use crate::error::{ClusterError, Result};
use crate::ids::{GpuId, MachineId};
use crate::plan::Policy;
use crate::problem::Problem;
use crate::schedule::{GpuSet, Schedule, ScheduledTask, set_label};
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
/// 5. a **gang task** (one needing `g > 1` GPUs) goes on a GPU set: [`slot_set`](Self::slot_set)
///    / [`place_set`](Self::place_set) for a given set, and [`slot`](Self::slot) /
///    [`place`](Self::place) with one GPU take the set [`best_set`](Self::best_set) chooses
///    around it as lead, so callers that pick one GPU per task work unchanged (the slot's
///    GPU is the lead; [`commit`](Self::commit) places the whole set). Without gang tasks
///    (`!problem.has_gangs()`) none of this code runs. See the gang section below.
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
    /// Whether the workload has a gang task ([`Problem::has_gangs`]): when not, nothing
    /// below `gangs` is used and `task` holds exactly one node per task.
    gangs: bool,
    /// Gang mode: the task of each extra timeline node (node `n + i` is `node_task[i]`): a
    /// gang task placed on `g` GPUs has its own node on its lead's timeline and one extra
    /// node (same start and finish) on each other GPU's.
    node_task: Vec<u32>,
    /// Gang mode: per task placed on several GPUs, its GPU set (lead first) and its node on
    /// each (the task's own id first); empty otherwise.
    set_gpus: Vec<Vec<GpuId>>,
    set_nodes: Vec<Vec<u32>>,
}

/// Where a task would go on a GPU set: computed by [`PartialSchedule::slot_set`], applied
/// by [`PartialSchedule::commit_set`]; like a [`Slot`], valid only for the state it was
/// computed on.
#[derive(Clone, Debug, PartialEq)]
pub struct SetSlot {
    task: TaskId,
    gpus: Vec<GpuId>,
    start: f64,
    finish: f64,
    /// Per GPU of the set, the node it follows on that GPU's timeline (`NONE`: first).
    after: Vec<u32>,
    version: u64,
}

impl SetSlot {
    /// The task.
    pub fn task(&self) -> TaskId {
        self.task
    }

    /// The GPU set, lead first.
    pub fn gpus(&self) -> &[GpuId] {
        &self.gpus
    }

    /// Common start time of the set, s.
    pub fn start(&self) -> f64 {
        self.start
    }

    /// Common finish time `start + exec(v, S)`, s.
    pub fn finish(&self) -> f64 {
        self.finish
    }
}

/// The earliest time `>= free` at which a task of duration `dur` s can start on a GPU whose
/// busy windows are `busy` (as [`Gpu::busy`](crate::Gpu::busy): sorted, non-overlapping,
/// half-open) without meeting any: `[S, S + dur)` must not meet `[from, to)`, which for
/// `dur == 0` refuses only `from < S < to`. The window rule of every decoder, scheduler and
/// the simulator; `O(log w)` to find the first window plus one step per window skipped.
///
/// ```
/// use worl_cluster::past_windows;
/// let busy = [(10.0, 20.0), (25.0, 30.0)];
/// assert_eq!(past_windows(&busy, 6.0, 4.0), 6.0); // [6, 10) only touches [10, 20)
/// assert_eq!(past_windows(&busy, 6.0, 5.0), 20.0); // [6, 11) meets it; [20, 25) fits
/// assert_eq!(past_windows(&busy, 6.0, 6.0), 30.0); // [20, 26) meets [25, 30) too
/// assert_eq!(past_windows(&busy, 15.0, 0.0), 20.0); // no zero-length task inside a window
/// ```
#[inline]
pub fn past_windows(busy: &[(f64, f64)], mut free: f64, dur: f64) -> f64 {
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
            gangs: problem.has_gangs(),
            node_task: Vec::new(),
            set_gpus: if problem.has_gangs() {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
            set_nodes: if problem.has_gangs() {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
        }
    }

    /// Removes every placement (keeps the buffers).
    pub fn reset(&mut self) {
        if self.gangs {
            self.task.truncate(self.problem.n_tasks());
            self.node_task.clear();
            self.set_gpus.iter_mut().for_each(Vec::clear);
            self.set_nodes.iter_mut().for_each(Vec::clear);
        }
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
        self.n_placed == self.problem.n_tasks()
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
        let n = self.problem.n_tasks();
        std::iter::from_fn(move || {
            (cur != NONE).then(|| {
                let t = cur;
                cur = self.task[t as usize].next;
                TaskId::new(self.task_of(t as usize, n))
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

    /// Links timeline node `node` into GPU `k`'s timeline right after node `after` (`NONE`:
    /// first), running `[start, finish)`.
    #[inline]
    fn link(&mut self, node: usize, k: usize, after: u32, start: f64, finish: f64) {
        let next = if after == NONE {
            std::mem::replace(&mut self.head[k], node as u32)
        } else {
            std::mem::replace(&mut self.task[after as usize].next, node as u32)
        };
        self.task[node] = Placed {
            start,
            finish,
            gpu: k as u32,
            next,
        };
        if next == NONE {
            self.tail[k] = node as u32;
        }
    }

    /// The placement of `pred`, a predecessor of `task`; [`ClusterError::NotTopological`]
    /// when it is not placed yet.
    #[inline]
    fn placed_pred(&self, task: TaskId, pred: TaskId) -> Result<Placed> {
        let u = self.task[pred.index()];
        if u.gpu == NONE {
            return Err(ClusterError::NotTopological {
                task: self.problem.task_label(task),
                pred: self.problem.task_label(pred),
            });
        }
        Ok(u)
    }

    #[inline]
    fn drt(&self, task: TaskId, gpu: GpuId) -> Result<f64> {
        if self.gangs {
            return self.drt_set(task, std::slice::from_ref(&gpu));
        }
        let p = self.problem;
        let mut drt = 0.0f64;
        for nb in p.graph().preds(task) {
            let u = self.placed_pred(task, nb.task)?;
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
        if self.gangs && self.is_gang(task) {
            return self.gang_slot(task, gpu, policy);
        }
        let (ready_at, dur) = self.slot_inputs(task, gpu)?;
        let (start, after) = self.earliest_on(gpu.index(), ready_at, dur, policy);
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
    /// Without windows these are the append and insertion rules of [`Policy`].
    #[inline]
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
            // Nothing ends after `ready_at` and no window: no gap to search (the common case).
            Policy::Insertion
                if busy.is_empty()
                    && (self.tail[k] == NONE
                        || self.task[self.tail[k] as usize].finish <= ready_at) =>
            {
                (ready_at, self.tail[k])
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
        if self.gangs && self.is_gang(task) {
            return self.gang_slot(task, gpu, Policy::Insertion);
        }
        let (ready_at, dur) = self.slot_inputs(task, gpu)?;
        let k = gpu.index();
        let (free, next, after) = match after {
            None => (ready_at, self.head[k], NONE),
            Some(a) => {
                self.problem.check_task(a)?;
                let node = if self.gangs {
                    self.node_on(a, gpu).unwrap_or(a.index() as u32)
                } else {
                    a.index() as u32
                };
                let placed = self.task[node as usize];
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
                (ready_at.max(placed.finish), placed.next, node)
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
                    self.problem.task_label(TaskId::new(
                        self.task_of(next as usize, self.problem.n_tasks())
                    )),
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
        if self.gangs && self.is_gang(slot.task) {
            // a gang slot: the set around its lead, chosen again on the same state
            let policy = if slot.after == 1 {
                Policy::Insertion
            } else {
                Policy::Append
            };
            let set = self.best_set(slot.task, slot.gpu, policy)?;
            let s = self.slot_set(slot.task, &set, policy)?;
            return self.commit_set(s);
        }
        let (t, k) = (slot.task.index(), slot.gpu.index());
        self.link(t, k, slot.after, slot.start, slot.finish);
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
        if self.gangs && self.is_gang(task) {
            let set = self.best_set(task, gpu, policy)?;
            let s = self.slot_set(task, &set, policy)?;
            let slot = Slot {
                task,
                gpu: set[0],
                start: s.start,
                finish: s.finish,
                after: policy_code(policy),
                version: s.version,
            };
            self.commit_set(s)?;
            return Ok(slot);
        }
        let slot = self.slot(task, gpu, policy)?;
        self.commit(slot)?;
        Ok(slot)
    }

    /// The finished schedule.
    ///
    /// Errors: [`ClusterError::Incomplete`] if a task is not placed.
    pub fn to_schedule(&self) -> Result<Schedule> {
        if !self.is_complete() {
            let n = self.problem.n_tasks();
            let first = self.task[..n]
                .iter()
                .position(|t| t.gpu == NONE)
                .unwrap_or(0);
            return Err(ClusterError::Incomplete {
                missing: n - self.n_placed,
                n_tasks: n,
                first: self.problem.task_label(TaskId::new(first)),
            });
        }
        let tasks = self.task[..self.problem.n_tasks()]
            .iter()
            .map(|t| ScheduledTask {
                gpu: GpuId::new(t.gpu as usize),
                start: t.start,
                finish: t.finish,
            })
            .collect();
        if !self.gangs {
            return Schedule::new(self.problem.n_gpus(), tasks);
        }
        let sets = self
            .set_gpus
            .iter()
            .enumerate()
            .filter(|(_, s)| s.len() > 1)
            .map(|(t, s)| GpuSet {
                task: TaskId::new(t),
                gpus: s.clone(),
            });
        Schedule::with_sets(self.problem.n_gpus(), tasks, sets)
    }
}

/// The policy of a gang task's [`Slot`], kept in its unused `after` field so that
/// [`PartialSchedule::commit`] chooses the same set again.
fn policy_code(policy: Policy) -> u32 {
    match policy {
        Policy::Append => 0,
        Policy::Insertion => 1,
    }
}

/// Gang tasks: placement on GPU sets (`docs/model.md`, "Gang tasks").
///
/// A gang task `v` needing `g` GPUs runs on a set `S` of `g` distinct GPUs (one machine for
/// span `machine`), starting together at `S_v` and finishing together at
/// `S_v + exec(v, S)` ([`Problem::exec_time_on`]). Each GPU `l` of `S` receives the data of
/// an edge `u → v` from the nearest GPU of `u`'s set: `DRT(v, S) = max_{l∈S} max_u
/// min_{k∈S_u} (F_u + comm(d_uv, k, l))`. The start is the earliest time `>= max(DRT(v, S),
/// max_{l∈S} r_l)` at which every GPU of `S` is free for the whole run, found as a fixed
/// point: each GPU's own earliest start from the current time (append: after its last task
/// and past its windows; insertion: its earliest gap between tasks and windows that holds the
/// run), the largest of them becomes the new time, until all agree. Each GPU's earliest start
/// is monotone in the time it starts looking from, so the fixed point is the earliest common
/// start and is reached after finitely many steps (each moves to a task's finish or a
/// window's end).
impl PartialSchedule<'_> {
    /// The task of timeline node `node` (`n` tasks).
    #[inline]
    fn task_of(&self, node: usize, n: usize) -> usize {
        if node < n {
            node
        } else {
            self.node_task[node - n] as usize
        }
    }

    /// Whether `task` (in range) needs several GPUs; `false` out of range, so that the
    /// ordinary checks report it.
    #[inline]
    fn is_gang(&self, task: TaskId) -> bool {
        task.index() < self.problem.n_tasks() && self.problem.gpus(task) > 1
    }

    /// The node of placed `task` on `gpu`'s timeline, if it is there.
    fn node_on(&self, task: TaskId, gpu: GpuId) -> Option<u32> {
        let t = self.task.get(task.index())?;
        if t.gpu as usize == gpu.index() {
            return Some(task.index() as u32);
        }
        let set = self.set_gpus.get(task.index())?;
        let i = set.iter().position(|&k| k == gpu)?;
        Some(self.set_nodes[task.index()][i])
    }

    /// The task that follows placed `task` on `gpu`'s timeline (`None` if it is the last
    /// there, or `task` is not on `gpu`); for a gang task, after its node on `gpu`, and a
    /// gang following it is named by its task. `O(g)`.
    ///
    /// # Panics
    /// If `task` is out of range.
    pub fn next_on(&self, task: TaskId, gpu: GpuId) -> Option<TaskId> {
        let _ = &self.task[task.index()];
        let node = self.node_on(task, gpu)?;
        match self.task[node as usize].next {
            NONE => None,
            next => Some(TaskId::new(
                self.task_of(next as usize, self.problem.n_tasks()),
            )),
        }
    }

    /// The [`Slot`] of a gang's lead for a set slot computed by
    /// [`slot_set`](Self::slot_set) under `policy` (lead `set.gpus()[0]`, the set's start
    /// and finish): what [`slot`](Self::slot) on the lead returns when `set` is the set
    /// [`best_set`](Self::best_set) chooses around it. Committing it
    /// ([`commit`](Self::commit)) places `best_set`'s set again; to place `set` itself use
    /// [`commit_set`](Self::commit_set). For callers that chose the set themselves (the
    /// list schedulers' gap index).
    pub fn lead_slot(&self, set: &SetSlot, policy: Policy) -> Slot {
        Slot {
            task: set.task,
            gpu: set.gpus[0],
            start: set.start,
            finish: set.finish,
            after: policy_code(policy),
            version: set.version,
        }
    }

    /// The GPU set of a placed task that runs on several GPUs (lead first, the lead being
    /// [`gpu_of`](Self::gpu_of)); `None` for a task placed on one GPU or not placed.
    ///
    /// # Panics
    /// If `task` is out of range.
    pub fn gang_set(&self, task: TaskId) -> Option<&[GpuId]> {
        let _ = &self.task[task.index()];
        self.set_gpus
            .get(task.index())
            .filter(|s| !s.is_empty())
            .map(Vec::as_slice)
    }

    /// The data-ready time of `task` on the GPU set `gpus`: `max_{l∈S} max_u min_{k∈S_u}
    /// (F_u + comm(d_uv, k, l))`, 0 without predecessors, s; for one GPU on each side it
    /// is [`data_ready_time`](Self::data_ready_time).
    ///
    /// Errors: [`ClusterError::UnknownId`] for a task or GPU out of range;
    /// [`ClusterError::NotTopological`] naming the first predecessor not placed yet.
    pub fn data_ready_time_on(&self, task: TaskId, gpus: &[GpuId]) -> Result<f64> {
        self.problem.check_task(task)?;
        for &k in gpus {
            self.problem.check_gpu(k)?;
        }
        self.drt_set(task, gpus)
    }

    fn drt_set(&self, task: TaskId, to: &[GpuId]) -> Result<f64> {
        let p = self.problem;
        let mut drt = 0.0f64;
        self.for_each_input(task, |finish, from, bytes| {
            for &l in to {
                let mut nearest = f64::INFINITY;
                for &k in from {
                    let t = finish + p.comm_time(bytes, k, l);
                    if t < nearest {
                        nearest = t;
                    }
                }
                if nearest > drt {
                    drt = nearest;
                }
            }
        })?;
        Ok(drt)
    }

    /// Calls `f(finish, gpus, bytes)` for each predecessor of `task` in edge order: its
    /// finish time (s), the GPUs it ran on (its set, or its one GPU) and the edge's bytes.
    ///
    /// Errors: [`ClusterError::NotTopological`] naming the first predecessor not placed yet.
    #[inline]
    fn for_each_input(&self, task: TaskId, mut f: impl FnMut(f64, &[GpuId], f64)) -> Result<()> {
        for nb in self.problem.graph().preds(task) {
            let u = self.placed_pred(task, nb.task)?;
            let lead = [GpuId::new(u.gpu as usize)];
            let from = match self.set_gpus.get(nb.task.index()) {
                Some(s) if !s.is_empty() => s.as_slice(),
                _ => &lead[..],
            };
            f(u.finish, from, nb.bytes);
        }
        Ok(())
    }

    /// The data-ready time of `task` on the GPUs of machine `m` that hold no GPU of a
    /// predecessor (`max_u min_{k∈S_u} F_u + comm(d_uv, k, ·)`, s: the same on all of them,
    /// since a transfer's time depends only on the two machines), and whether some GPU of
    /// `m` holds one (its own [`data_ready_time_on`](Self::data_ready_time_on) may be
    /// earlier). Bit for bit the per-GPU value; `O(Σ_u |S_u|)`, for schedulers that rank
    /// many GPUs of a machine.
    ///
    /// Errors: [`ClusterError::UnknownId`] for a task or machine out of range;
    /// [`ClusterError::NotTopological`] naming the first predecessor not placed yet.
    pub fn data_ready_time_on_machine(&self, task: TaskId, m: MachineId) -> Result<(f64, bool)> {
        let p = self.problem;
        p.check_task(task)?;
        let machines = p.cluster().n_machines();
        if m.index() >= machines {
            return Err(ClusterError::UnknownId {
                kind: "machine",
                index: m.index(),
                len: machines,
            });
        }
        let (mut drt, mut holds) = (0.0f64, false);
        self.for_each_input(task, |finish, from, bytes| {
            let mut nearest = f64::INFINITY;
            for &k in from {
                let km = p.machine_of(k);
                holds |= km == m;
                let t = finish + p.comm_time_between(bytes, km, m);
                if t < nearest {
                    nearest = t;
                }
            }
            if nearest > drt {
                drt = nearest;
            }
        })?;
        Ok((drt, holds))
    }

    /// A gang task's [`Slot`]: on [`best_set`](Self::best_set) around `lead`.
    fn gang_slot(&self, task: TaskId, lead: GpuId, policy: Policy) -> Result<Slot> {
        let set = self.best_set(task, lead, policy)?;
        let s = self.slot_set(task, &set, policy)?;
        Ok(Slot {
            task,
            gpu: set[0],
            start: s.start,
            finish: s.finish,
            after: policy_code(policy),
            version: s.version,
        })
    }

    fn bad_set(&self, task: TaskId, gpus: &[GpuId], reason: String) -> ClusterError {
        ClusterError::InvalidGpuSet {
            task: self.problem.task_label(task),
            gpus: set_label(gpus),
            reason,
        }
    }

    /// The slot `task` would take on the GPU set `gpus` (lead first) under `policy`: the
    /// earliest common start of the set (see the section's documentation above), without
    /// placing it. For one GPU and no gang task in the problem this is the same start and
    /// finish as [`slot`](Self::slot).
    ///
    /// Errors: [`ClusterError::UnknownId`] for a task or GPU out of range;
    /// [`ClusterError::DuplicateTask`] if the task is placed; [`ClusterError::InvalidGpuSet`]
    /// naming the task and set when its size is not the task's demand
    /// ([`Problem::gpus`]), a GPU repeats, or span `machine` is broken;
    /// [`ClusterError::MemoryInfeasible`] for a GPU without the task's memory;
    /// [`ClusterError::NotTopological`] if a predecessor is not placed.
    pub fn slot_set(&self, task: TaskId, gpus: &[GpuId], policy: Policy) -> Result<SetSlot> {
        self.slot_set_from(task, gpus, policy, f64::NEG_INFINITY)
    }

    /// [`slot_set`](Self::slot_set) with a known lower bound `from` on the set's earliest
    /// common start (s): the search for it starts there instead of at the data-ready time,
    /// which saves walks of the set's timelines. With `from` at most the earliest common
    /// start the slot is exactly `slot_set`'s; a larger `from` gives the earliest common
    /// start at or after it (still a valid slot). For callers that computed the start
    /// otherwise (the list schedulers' gap index). Errors: as `slot_set`.
    pub fn slot_set_from(
        &self,
        task: TaskId,
        gpus: &[GpuId],
        policy: Policy,
        from: f64,
    ) -> Result<SetSlot> {
        let p = self.problem;
        p.check_task(task)?;
        for &k in gpus {
            p.check_gpu(k)?;
        }
        if self.task[task.index()].gpu != NONE {
            return Err(ClusterError::DuplicateTask {
                task: p.task_label(task),
                position: self.n_placed,
            });
        }
        let g = p.gpus(task) as usize;
        if gpus.len() != g {
            return Err(self.bad_set(
                task,
                gpus,
                format!("{} GPUs given, the task needs {g}", gpus.len()),
            ));
        }
        if let Some(i) = (1..g).find(|&i| gpus[..i].contains(&gpus[i])) {
            return Err(self.bad_set(task, gpus, format!("GPU {} is repeated", gpus[i])));
        }
        if g > 1 && p.graph().task(task).gang.span == worl_dag::Span::Machine {
            let home = p.machine_of(gpus[0]);
            if let Some(&k) = gpus.iter().find(|&&k| p.machine_of(k) != home) {
                return Err(self.bad_set(
                    task,
                    gpus,
                    format!(
                        "span machine, but {k} is on another machine than {}",
                        gpus[0]
                    ),
                ));
            }
        }
        if let Some(&k) = gpus.iter().find(|&&k| !p.fits(task, k)) {
            return Err(ClusterError::MemoryInfeasible {
                task: p.task_label(task),
                gpu: k,
                need_gib: p.mem_need(task),
                have_gib: p.gpu_mem(k),
            });
        }
        let ready = gpus
            .iter()
            .fold(self.drt_set(task, gpus)?, |r, &k| r.max(p.ready_time(k)));
        let dur = p.exec_time_on(task, gpus);
        // the least common start `>= max(ready, from)`: each GPU's earliest start from the
        // candidate, until none moves it (the last round's nodes are the set's `after`)
        let mut start = ready.max(from);
        let mut after = vec![NONE; gpus.len()];
        loop {
            let mut next = start;
            for (a, &k) in after.iter_mut().zip(gpus) {
                let (at, prev) = self.earliest_on(k.index(), start, dur, policy);
                *a = prev;
                next = next.max(at);
            }
            if next == start {
                break;
            }
            start = next;
        }
        Ok(SetSlot {
            task,
            gpus: gpus.to_vec(),
            start,
            finish: start + dur,
            after,
            version: self.version,
        })
    }

    /// Places a slot computed by [`slot_set`](Self::slot_set): the task on every GPU of its
    /// set.
    ///
    /// Errors: [`ClusterError::StaleSlot`] if anything was placed (or the schedule reset)
    /// since the slot was computed.
    pub fn commit_set(&mut self, slot: SetSlot) -> Result<()> {
        if slot.version != self.version {
            return Err(ClusterError::StaleSlot {
                task: self.problem.task_label(slot.task),
                gpu: slot.gpus[0],
            });
        }
        let t = slot.task.index();
        let mut nodes = Vec::with_capacity(slot.gpus.len());
        for (i, &k) in slot.gpus.iter().enumerate() {
            let node = if i == 0 {
                t
            } else {
                self.node_task.push(t as u32);
                self.task.push(UNPLACED);
                self.task.len() - 1
            };
            self.link(node, k.index(), slot.after[i], slot.start, slot.finish);
            nodes.push(node as u32);
        }
        if slot.gpus.len() > 1 {
            self.set_nodes[t] = nodes;
            self.set_gpus[t] = slot.gpus;
        }
        self.n_placed += 1;
        if slot.finish > self.makespan {
            self.makespan = slot.finish;
        }
        self.version += 1;
        Ok(())
    }

    /// Places `task` on the GPU set `gpus` at its earliest common slot under `policy` and
    /// returns the slot. Errors: as [`slot_set`](Self::slot_set).
    pub fn place_set(&mut self, task: TaskId, gpus: &[GpuId], policy: Policy) -> Result<SetSlot> {
        let slot = self.slot_set(task, gpus, policy)?;
        self.commit_set(slot.clone())?;
        Ok(slot)
    }

    /// The GPU set a gang task takes around its lead GPU `lead` (lead first), by a greedy
    /// rule: every other GPU that fits the task's memory gets the earliest start of the
    /// task's compute share `exec(v, k) / (g · e_v)` on it alone under `policy` (after its
    /// data-ready time there and its ready time, past its windows); the `g − 1` earliest
    /// (ties by id) join the lead. Span `machine`: the candidates are the other GPUs of the
    /// lead's machine. Span `cluster`: the lead's machine first, then, if it has too few,
    /// the earliest of the other machines' GPUs (a set on one machine avoids paying its
    /// all-reduce over the slower inter-machine link). A task needing one GPU gets `[lead]`.
    /// `O(c · (preds · g + timeline))` for `c` candidates.
    ///
    /// Errors: [`ClusterError::UnknownId`]; [`ClusterError::MemoryInfeasible`] if the lead
    /// lacks the task's memory; [`ClusterError::InvalidGpuSet`] if fewer than `g − 1` GPUs
    /// can join it; [`ClusterError::NotTopological`] if a predecessor is not placed.
    pub fn best_set(&self, task: TaskId, lead: GpuId, policy: Policy) -> Result<Vec<GpuId>> {
        let p = self.problem;
        p.check_task(task)?;
        p.check_gpu(lead)?;
        let g = p.gpus(task) as usize;
        if g == 1 {
            return Ok(vec![lead]);
        }
        if !p.fits(task, lead) {
            return Err(ClusterError::MemoryInfeasible {
                task: p.task_label(task),
                gpu: lead,
                need_gib: p.mem_need(task),
                have_gib: p.gpu_mem(lead),
            });
        }
        let params = p.graph().task(task).gang;
        let share = |k: GpuId| p.exec_time(task, k) / (g as f64 * params.efficiency);
        // the data-ready time once per machine (per GPU only on those holding a predecessor)
        let ranked = |machines: &mut dyn Iterator<Item = MachineId>| -> Result<Vec<(f64, GpuId)>> {
            let mut out = Vec::new();
            for m in machines {
                let (drt_m, holds) = self.data_ready_time_on_machine(task, m)?;
                for &k in p.cluster().gpus_of(m) {
                    if k == lead || !p.fits(task, k) {
                        continue;
                    }
                    let drt = if holds {
                        self.drt_set(task, &[k])?
                    } else {
                        drt_m
                    };
                    let ready = drt.max(p.ready_time(k));
                    out.push((self.earliest_on(k.index(), ready, share(k), policy).0, k));
                }
            }
            out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            Ok(out)
        };
        let home = p.machine_of(lead);
        let mut set = vec![lead];
        let near = ranked(&mut std::iter::once(home))?;
        set.extend(near.iter().take(g - 1).map(|x| x.1));
        if set.len() < g && params.span == worl_dag::Span::Cluster {
            let machines = p.cluster().n_machines();
            let far = ranked(&mut (0..machines).map(MachineId::new).filter(|&m| m != home))?;
            let missing = g - set.len();
            set.extend(far.iter().take(missing).map(|x| x.1));
        }
        if set.len() < g {
            let place = match params.span {
                worl_dag::Span::Machine => {
                    format!("machine `{}` has", p.cluster().machines()[home.index()])
                }
                worl_dag::Span::Cluster => "the cluster has".to_owned(),
            };
            return Err(self.bad_set(
                task,
                &[lead],
                format!(
                    "{place} {} other GPUs with its memory, the task needs {g} GPUs",
                    set.len() - 1
                ),
            ));
        }
        Ok(set)
    }
}
