//! Primitives shared by the list schedulers of this crate (and usable by your own): upward
//! and downward ranks, the ready queue, EFT queries and the EFT processor selection
//! ([`GapIndex`]), the `policy` option.
//!
//! A *list scheduler* (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §3) orders the tasks
//! by a priority and places each, in that order, on the GPU chosen by a selection rule. Every
//! placement goes through [`PartialSchedule`], so the EST, gap search and data-ready logic
//! exist once, in `worl-cluster`.
//!
//! Tie-breaking, everywhere in this module: among equal priorities the **smaller task id**
//! goes first; among equal selection keys the **smaller GPU id** wins. Nothing depends on
//! hash or iteration order of a container.

use crate::error::{Result, ScheduleError};
use crate::registry::Options;
use crate::scheduler::{Progress, RunContext};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use worl_cluster::{ClusterError, GpuId, PartialSchedule, Policy, Problem, Schedule, Slot};
use worl_dag::{TaskGraph, TaskId};

/// HEFT's upward rank of every task (Topcuoglu et al. 2002, §4.1, eq. 7):
/// `rank_u(v) = w̄_v + max over successors s of (c̄_vs + rank_u(s))`, with `w̄_v` the mean
/// execution time over the GPUs that fit `v` ([`Problem::mean_exec_time`]) and `c̄_vs` the
/// mean communication time of the edge's bytes over ordered pairs of distinct GPUs
/// ([`Problem::mean_comm_time`]). Seconds, indexed by [`TaskId::index`], length `n`.
/// `O(n + |E|)` (one pass of [`TaskGraph::bottom_levels`]).
pub fn upward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().bottom_levels(
        |v| problem.mean_exec_time(v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}

/// CPOP's downward rank of every task (Topcuoglu et al. 2002, §4.2, eq. 8):
/// `rank_d(v) = max over predecessors u of (rank_d(u) + w̄_u + c̄_uv)`, 0 for entry tasks,
/// with the mean costs of [`upward_ranks`]. Seconds, indexed by [`TaskId::index`], length
/// `n`. `O(n + |E|)` (one pass of [`TaskGraph::top_levels`]).
pub fn downward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().top_levels(
        |v| problem.mean_exec_time(v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}

/// A ready task in the heap: higher priority first, then smaller task id.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Ready {
    priority: f64,
    task: u32,
}

impl Eq for Ready {}

impl Ord for Ready {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.task.cmp(&self.task))
    }
}

impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The ready list of a list scheduler: the tasks whose predecessors have all been taken,
/// served by **decreasing priority, then increasing task id** (a binary heap; `O(log n)` per
/// operation, `O((n + |E|) log n)` for a whole run).
///
/// [`pop`](Self::pop) takes the best ready task and releases its successors at once, so the
/// caller must place the popped task before popping again (as every list scheduler does).
/// When priorities strictly decrease along edges (e.g. `rank_u` with positive costs) the
/// order served is exactly "all tasks sorted by decreasing priority, ties by id"; when they do
/// not (zero costs), the queue still serves a topological order.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuModel, Problem};
/// use worl_dag::generators::shapes;
/// use worl_rtgs::schedulers::list::ReadyQueue;
/// let w = Arc::new(shapes::fork_join(2, 1.0, 0.0)?); // t0 -> {t1, t2} -> t3
/// let p = Problem::new(w, Arc::new(presets::homogeneous(1, &GpuModel::t4())?))?;
/// let mut q = ReadyQueue::new(p.graph(), vec![0.0, 1.0, 5.0, 9.0]);
/// let order: Vec<usize> = std::iter::from_fn(|| q.pop()).map(|t| t.index()).collect();
/// assert_eq!(order, [0, 2, 1, 3]); // t3 has the highest priority but is ready last
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReadyQueue<'g> {
    graph: &'g TaskGraph,
    priority: Vec<f64>,
    missing: Vec<u32>,
    heap: BinaryHeap<Ready>,
}

impl<'g> ReadyQueue<'g> {
    /// A queue over `graph` with one priority per task (indexed by [`TaskId::index`]),
    /// holding the entry tasks.
    ///
    /// # Panics
    /// If `priority.len() != graph.n_tasks()`.
    pub fn new(graph: &'g TaskGraph, priority: Vec<f64>) -> Self {
        assert_eq!(priority.len(), graph.n_tasks(), "one priority per task");
        let missing: Vec<u32> = graph
            .task_ids()
            .map(|v| graph.preds(v).len() as u32)
            .collect();
        let mut heap = BinaryHeap::with_capacity(graph.n_tasks());
        for v in graph.entry_tasks() {
            heap.push(Ready {
                priority: priority[v.index()],
                task: v.index() as u32,
            });
        }
        Self {
            graph,
            priority,
            missing,
            heap,
        }
    }

    /// The priorities, indexed by [`TaskId::index`].
    pub fn priorities(&self) -> &[f64] {
        &self.priority
    }

    /// Removes and returns the ready task of highest priority (ties: smaller id) and makes
    /// its successors ready when it was their last missing predecessor; `None` when every
    /// task has been served.
    pub fn pop(&mut self) -> Option<TaskId> {
        let Ready { task, .. } = self.heap.pop()?;
        let v = TaskId::new(task as usize);
        for s in self.graph.succs(v) {
            let w = s.task.index();
            self.missing[w] -= 1;
            if self.missing[w] == 0 {
                self.heap.push(Ready {
                    priority: self.priority[w],
                    task: w as u32,
                });
            }
        }
        Some(v)
    }
}

/// EFT queries for list schedulers: [`PartialSchedule::slot`] with a shortcut for the
/// insertion-based policy, and the minimum-EFT processor selection.
///
/// The insertion policy walks a GPU's timeline looking for an idle gap long enough for the
/// task; on a busy GPU that walk is the cost of HEFT-like schedulers (`O(tasks on the GPU)`
/// per task and GPU). This index keeps, per GPU, the longest idle gap of its timeline (from
/// its ready time `r_k` on), updated after each placement on that GPU (one walk of that
/// timeline). When the longest gap is shorter than the task's execution time, no gap can
/// hold it, whatever its data-ready time, and the slot is the one after the last task,
/// computed in `O(|preds|)` ([`Policy::Append`] gives exactly that slot); otherwise the full
/// search runs. Results are identical to [`PartialSchedule::slot`]'s (a margin of
/// `1e-12 · (1 + latest finish)` s keeps rounding on the side of searching).
///
/// Use one index per [`PartialSchedule`] and place through [`commit`](Self::commit) (or call
/// [`refresh`](Self::refresh) after placing otherwise), so that the index follows the
/// timelines. `8·m` bytes; queries and updates allocate nothing.
#[derive(Clone, Debug)]
pub struct GapIndex {
    /// Per GPU: longest idle gap + rounding margin, s (`-inf` while the GPU has no task).
    threshold: Vec<f64>,
}

impl GapIndex {
    /// An index for an empty schedule of `problem`.
    pub fn new(problem: &Problem) -> Self {
        Self {
            threshold: vec![f64::NEG_INFINITY; problem.n_gpus()],
        }
    }

    /// The slot `task` would take on `gpu` under `policy`: exactly [`PartialSchedule::slot`].
    ///
    /// Errors: as [`PartialSchedule::slot`].
    #[inline]
    pub fn slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        gpu: GpuId,
        policy: Policy,
    ) -> Result<Slot> {
        let p = partial.problem();
        let policy = match policy {
            Policy::Insertion
                if gpu.index() < self.threshold.len()
                    && task.index() < p.n_tasks()
                    && self.threshold[gpu.index()] < p.exec_time(task, gpu) =>
            {
                Policy::Append // no gap is long enough: the slot is after the last task
            }
            other => other,
        };
        Ok(partial.slot(task, gpu, policy)?)
    }

    /// Commits `slot` to `partial` and updates the index for its GPU.
    ///
    /// Errors: as [`PartialSchedule::commit`].
    pub fn commit(&mut self, partial: &mut PartialSchedule<'_>, slot: Slot) -> Result<()> {
        partial.commit(slot)?;
        self.refresh(partial, slot.gpu());
        Ok(())
    }

    /// Recomputes the longest idle gap of `gpu` from `partial` (`O(tasks on gpu)`).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn refresh(&mut self, partial: &PartialSchedule<'_>, gpu: GpuId) {
        let mut latest = partial.problem().ready_time(gpu);
        let mut gap = f64::NEG_INFINITY;
        for t in partial.timeline(gpu) {
            let (start, finish) = (partial.start(t), partial.finish(t));
            let (start, finish) = (start.unwrap_or(latest), finish.unwrap_or(latest));
            gap = gap.max(start - latest);
            latest = latest.max(finish);
        }
        self.threshold[gpu.index()] = gap + 1e-12 * (1.0 + latest.abs());
    }

    /// The slot of `task` minimising `slot.finish() + extra(gpu)` over the GPUs that fit
    /// it, under `policy`; ties go to the smaller GPU id. With `extra = 0` this is HEFT's
    /// processor selection (minimum EFT, Topcuoglu et al. 2002, §4.1); with PEFT's
    /// optimistic cost it is O_EFT (Arabnejad and Barbosa 2014, §3).
    ///
    /// `O(m · |preds(task)|)` plus the gap searches the index cannot rule out; allocates
    /// nothing.
    ///
    /// Errors: [`ClusterError::NotTopological`] if a predecessor is not placed,
    /// [`ClusterError::DuplicateTask`] if `task` is; [`ClusterError::TaskFitsNoGpu`] if no
    /// GPU fits it (impossible for a [`Problem`], which rejects such tasks).
    #[inline]
    pub fn best_slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        policy: Policy,
        mut extra: impl FnMut(GpuId) -> f64,
    ) -> Result<Slot> {
        let p = partial.problem();
        let mut best: Option<(Slot, f64)> = None;
        for k in 0..p.n_gpus() {
            let gpu = GpuId::new(k);
            if !p.fits(task, gpu) {
                continue;
            }
            let slot = self.slot(partial, task, gpu, policy)?;
            let key = slot.finish() + extra(gpu);
            if best.is_none_or(|(_, b)| key < b) {
                best = Some((slot, key));
            }
        }
        match best {
            Some((slot, _)) => Ok(slot),
            None => Err(fits_no_gpu(p, task)),
        }
    }
}

/// The error for a task that fits no GPU.
pub(crate) fn fits_no_gpu(p: &Problem, task: TaskId) -> ScheduleError {
    let max_gib = p
        .cluster()
        .gpu_ids()
        .map(|k| p.gpu_mem(k))
        .fold(0.0, f64::max);
    ScheduleError::Cluster(ClusterError::TaskFitsNoGpu {
        task: p.task_label(task),
        need_gib: p.mem_need(task),
        max_gib,
    })
}

/// Parses a [`Policy`] from `append` or `insertion` (case-insensitive).
pub fn parse_policy(text: &str) -> Option<Policy> {
    match text.trim().to_ascii_lowercase().as_str() {
        "append" => Some(Policy::Append),
        "insertion" | "insert" => Some(Policy::Insertion),
        _ => None,
    }
}

/// Takes option `policy` (`append` or `insertion`) from `options`, `default` if absent.
///
/// Errors: [`ScheduleError::InvalidOption`] for another value.
pub fn take_policy(options: &mut Options, default: Policy) -> Result<Policy> {
    match options.take::<String>("policy")? {
        None => Ok(default),
        Some(v) => parse_policy(&v)
            .ok_or_else(|| options.invalid("policy", &v, "expected `append` or `insertion`")),
    }
}

/// Builds the finished schedule and reports one final [`Progress`] event (a list scheduler
/// is not interruptible: an observer's `Break` is ignored, there is no partial result).
pub(crate) fn finish(partial: &PartialSchedule<'_>, ctx: &mut RunContext<'_>) -> Result<Schedule> {
    let schedule = partial.to_schedule()?;
    let n = partial.n_placed() as u64;
    let _ = ctx.report(Progress {
        step: n,
        total_steps: n,
        evaluations: 0,
        best_makespan: schedule.makespan(),
    });
    Ok(schedule)
}

/// The constructors of a scheduler whose only setting is the placement policy (a struct
/// with one field `policy: Policy`): `Default`, `NAME`, `new` (policy `$default`),
/// `with_policy`, `policy` and `from_options` (option `policy`).
macro_rules! policy_scheduler {
    ($ty:ident, $name:literal, $label:literal, $default:expr) => {
        impl Default for $ty {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $ty {
            /// Registry name.
            pub const NAME: &'static str = $name;

            #[doc = concat!($label, " with the `", stringify!($default), "` placement policy.")]
            pub fn new() -> Self {
                Self { policy: $default }
            }

            /// Sets the placement policy.
            pub fn with_policy(mut self, policy: worl_cluster::Policy) -> Self {
                self.policy = policy;
                self
            }

            /// The placement policy.
            pub fn policy(&self) -> worl_cluster::Policy {
                self.policy
            }

            #[doc = concat!("From registry options: `policy` = `append` or `insertion` (default `", stringify!($default), "`).")]
            ///
            /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
            /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
            pub fn from_options(mut options: $crate::registry::Options) -> $crate::Result<Self> {
                let policy = $crate::schedulers::list::take_policy(&mut options, $default)?;
                options.finish()?;
                Ok(Self::new().with_policy(policy))
            }
        }
    };
}
pub(crate) use policy_scheduler;
