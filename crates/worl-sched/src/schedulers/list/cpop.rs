//! CPOP, Critical-Path-on-a-Processor.
//!
//! H. Topcuoglu, S. Hariri and M.-Y. Wu, "Performance-effective and low-complexity task
//! scheduling for heterogeneous computing", *IEEE Transactions on Parallel and Distributed
//! Systems* 13(3):260–274, 2002, §4.2 (the algorithm: Fig. 5).

use crate::builtin::{Builtin, Family, boxed};
use crate::error::Result;
use crate::options::{OptionDoc, Options, POLICY_INSERTION};
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{GapIndex, ReadyQueue, downward_ranks, finish, upward_ranks};
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};
use worl_dag::TaskId;

/// CPOP (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §4.2).
///
/// 1. **Priority**: `rank_u + rank_d` with mean costs ([`upward_ranks`],
///    [`downward_ranks`]); `|CP|` is the priority of the best entry task.
/// 2. **Critical path**: from the entry task whose priority is `|CP|`, repeatedly the
///    successor whose priority is `|CP|`, until an exit task (the paper's walk; "is `|CP|`"
///    means within `tolerance · max(1, |CP|)`, to absorb rounding; ties: smaller task id).
/// 3. **Critical-path GPU**: the GPU minimising the critical path's total execution time
///    `Σ_{v ∈ CP} exec(v, k)` among the GPUs that fit every critical-path task (ties: earlier
///    ready time, then smaller GPU id). If no GPU fits them all, the one fitting the most
///    (then the same keys over those it fits); the critical-path tasks it does not fit are
///    placed like the others.
/// 4. **Order and selection**: ready tasks by decreasing priority (ties: smaller id); a
///    critical-path task goes to the critical-path GPU at its earliest slot, any other task to
///    the GPU of minimum EFT (ties: smaller GPU id), both under the [`Policy`] (default:
///    insertion, as in the paper).
///
/// **Gang tasks** (`g > 1` GPUs): priorities use the gang's mean run time
/// ([`mean_run_time`](crate::schedulers::list::mean_run_time)); a critical-path gang task
/// goes to the set led by the critical-path GPU when that GPU can lead it
/// ([`Problem::can_lead`]), else it is placed like the others: on the lead of earliest
/// common finish ([`GapIndex::best_slot`]).
///
/// Reproduces the paper's Fig. 2 example (makespan 86, critical path T1, T2, T9, T10 on P2;
/// see `tests/golden.rs`). Complexity as [`Heft`](crate::schedulers::Heft) plus
/// `O(m · |CP|)` to choose the critical-path GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Cpop {
    policy: Policy,
    tolerance: f64,
}

impl Default for Cpop {
    fn default() -> Self {
        Self::new()
    }
}

/// The critical path CPOP found and the GPU it reserved for it.
#[derive(Clone, Debug, PartialEq)]
pub struct CriticalPathAssignment {
    /// `|CP|`: the priority `rank_u + rank_d` of the critical path's tasks, s.
    pub length: f64,
    /// The critical path's tasks, from an entry task to an exit task.
    pub tasks: Vec<TaskId>,
    /// The critical-path GPU.
    pub gpu: GpuId,
}

impl Cpop {
    /// Registry name.
    pub const NAME: &'static str = "cpop";

    /// Its registration: name, description, family, declared options.
    pub const BUILTIN: Builtin = Builtin {
        name: Self::NAME,
        description: "CPOP (Topcuoglu et al. 2002): rank_u+rank_d order, critical path on one GPU",
        family: Family::List,
        quick: "",
        options: &[
            &POLICY_INSERTION,
            &[OptionDoc::new(
                "tolerance",
                "finite, >= 0",
                "1e-9",
                "relative tolerance of \"priority equals |CP|\"",
            )],
        ],
        build: |o| boxed(Self::from_options(o)),
    };

    /// Default relative tolerance of "priority equals `|CP|`".
    pub const DEFAULT_TOLERANCE: f64 = 1e-9;

    /// CPOP with the insertion-based policy and tolerance [`Self::DEFAULT_TOLERANCE`].
    pub fn new() -> Self {
        Self {
            policy: Policy::Insertion,
            tolerance: Self::DEFAULT_TOLERANCE,
        }
    }

    /// Sets the placement policy (the paper's is [`Policy::Insertion`]).
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the relative tolerance of "priority equals `|CP|`" (finite, `>= 0`; negative or
    /// non-finite values are replaced by 0).
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = if tolerance.is_finite() && tolerance >= 0.0 {
            tolerance
        } else {
            0.0
        };
        self
    }

    /// The placement policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The relative tolerance of "priority equals `|CP|`".
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// From registry options: `policy` = `insertion` (default) or `append`; `tolerance`
    /// (relative, `>= 0`, default 1e-9).
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) for a
    /// bad value, [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut options: Options) -> Result<Self> {
        let policy = options.take_or("policy", Policy::Insertion)?;
        let tolerance: f64 = options.take_or("tolerance", Self::DEFAULT_TOLERANCE)?;
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(options.invalid("tolerance", tolerance, "expected a finite number >= 0"));
        }
        options.finish()?;
        Ok(Self::new().with_policy(policy).with_tolerance(tolerance))
    }

    /// The priorities `rank_u + rank_d` (s, indexed by [`TaskId::index`]), and the critical
    /// path with its GPU (steps 1–3 above).
    pub fn critical_path(&self, problem: &Problem) -> (Vec<f64>, CriticalPathAssignment) {
        let g = problem.graph();
        let mut priority = upward_ranks(problem);
        for (p, d) in priority.iter_mut().zip(downward_ranks(problem)) {
            *p += d;
        }
        // The best entry task: it starts the critical path (ties: smaller id).
        let first = g
            .entry_tasks()
            .fold(None::<TaskId>, |best, v| match best {
                Some(b) if priority[b.index()] >= priority[v.index()] => Some(b),
                _ => Some(v),
            })
            .expect("a task graph has an entry task");
        let length = priority[first.index()];
        let tol = self.tolerance * length.abs().max(1.0);
        let on_cp = |v: TaskId| (priority[v.index()] - length).abs() <= tol;
        let mut tasks = vec![first];
        let mut v = first;
        // Successors are sorted by id: `find` takes the smallest matching one.
        while let Some(s) = g.succs(v).iter().find(|s| on_cp(s.task)) {
            v = s.task;
            tasks.push(v);
        }
        let gpu = cp_gpu(problem, &tasks);
        (priority, CriticalPathAssignment { length, tasks, gpu })
    }
}

/// The critical-path GPU: most critical-path tasks fitted, then least total execution time
/// of those, then earliest ready time, then smallest id.
fn cp_gpu(problem: &Problem, cp: &[TaskId]) -> GpuId {
    let mut best: Option<(GpuId, (usize, f64, f64))> = None;
    for gpu in problem.cluster().gpu_ids() {
        let (mut missed, mut total) = (0usize, 0.0f64);
        for &v in cp {
            if problem.fits(v, gpu) {
                total += problem.exec_time(v, gpu);
            } else {
                missed += 1;
            }
        }
        let key = (missed, total, problem.ready_time(gpu));
        let better = match best {
            None => true,
            Some((_, b)) => {
                key.0 < b.0 || (key.0 == b.0 && (key.1 < b.1 || (key.1 == b.1 && key.2 < b.2)))
            }
        };
        if better {
            best = Some((gpu, key));
        }
    }
    best.expect("a cluster has a GPU").0
}

impl Scheduler for Cpop {
    fn name(&self) -> &str {
        "CPOP"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let (priority, cp) = self.critical_path(problem);
        let mut on_cp = vec![false; problem.n_tasks()];
        for &v in &cp.tasks {
            // `can_lead` is `fits` for a task on one GPU
            on_cp[v.index()] = problem.can_lead(v, cp.gpu);
        }
        let mut partial = PartialSchedule::new(problem);
        let mut index = GapIndex::new(problem);
        let mut ready = ReadyQueue::new(problem.graph(), priority);
        while let Some(task) = ready.pop() {
            let slot = if on_cp[task.index()] {
                index.slot(&partial, task, cp.gpu, self.policy)?
            } else {
                index.best_slot(&partial, task, self.policy, |_| 0.0)?
            };
            index.commit(&mut partial, slot)?;
        }
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}
