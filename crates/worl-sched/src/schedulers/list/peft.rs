//! PEFT, Predict Earliest Finish Time.
//!
//! H. Arabnejad and J. G. Barbosa, "List scheduling algorithm for heterogeneous systems by an
//! optimistic cost table", *IEEE Transactions on Parallel and Distributed Systems*
//! 25(3):682–694, 2014, §3 (the optimistic cost table, the rank_oct priority, the optimistic
//! EFT processor selection, and the algorithm).

use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{GapIndex, ReadyQueue, finish, gang_run_time};
use worl_cluster::{ClassId, GpuId, PartialSchedule, Policy, Problem, Schedule};
use worl_dag::TaskId;

/// PEFT (Arabnejad and Barbosa, IEEE TPDS 25(3), 2014, §3).
///
/// 1. **Optimistic cost table** ([`OptimisticCostTable`]): `OCT(v, p)`, the longest of the
///    shortest paths from `v`'s successors to an exit task when `v` runs on `p`.
/// 2. **Priority**: `rank_oct(v)`, the mean of `OCT(v, ·)` over the GPUs that fit `v`.
/// 3. **Order**: ready tasks by decreasing `rank_oct`, ties by smaller task id (the paper's
///    ready list).
/// 4. **Selection**: the GPU minimising the optimistic EFT `O_EFT(v, p) = EFT(v, p) +
///    OCT(v, p)` among those that fit `v` (ties: smaller GPU id), EFT under the [`Policy`]
///    (default: insertion, as in the paper).
///
/// **Gang tasks** (`g > 1` GPUs): the table charges a gang task its run time on a set of
/// GPUs like `q`, `exec(s, q) / (g · e_s)` ([`gang_run_time`]); the selection tries only
/// GPUs that can lead it ([`Problem::can_lead`]), its EFT on a lead being the common finish
/// of the set chosen around it, and `OCT` taken at the lead.
///
/// Reproduces dslab-dag's golden makespan 95 (with its `original_network_estimation`, the
/// paper's definition; see `tests/golden.rs`). Complexity: `O((n + |E|) · C)` for the table
/// (`C` GPU classes) plus the [`Heft`](crate::schedulers::Heft) loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Peft {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    Peft,
    "peft",
    "PEFT",
    Policy::Insertion,
    crate::options::POLICY_INSERTION,
    "PEFT (Arabnejad & Barbosa 2014): optimistic cost table, min EFT+OCT"
);

impl Scheduler for Peft {
    fn name(&self) -> &str {
        "PEFT"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let oct = OptimisticCostTable::new(problem);
        let rank = problem.graph().task_ids().map(|v| oct.rank(v)).collect();
        let mut partial = PartialSchedule::new(problem);
        let mut index = GapIndex::new(problem);
        let mut ready = ReadyQueue::new(problem.graph(), rank);
        while let Some(task) = ready.pop() {
            let slot = index.best_slot(&partial, task, self.policy, |gpu| oct.get(task, gpu))?;
            index.commit(&mut partial, slot)?;
        }
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}

/// PEFT's optimistic cost table (Arabnejad and Barbosa 2014, §3):
///
/// `OCT(v, p) = max over successors s of min over GPUs q that fit s of
/// (OCT(s, q) + exec(s, q) + [q ≠ p] · c̄_vs)`, 0 for exit tasks,
///
/// (for a gang task `s` of `g` GPUs, `exec(s, q)` stands for `exec(s, q) / (g · e_s)`,
/// [`gang_run_time`]; exactly `exec(s, q)` for a task on one GPU),
///
/// with `c̄_vs` the mean communication time of the edge's bytes
/// ([`Problem::mean_comm_time`]), charged whenever the two tasks run on different GPUs.
///
/// **Stored per GPU class, exactly.** `OCT(v, ·)` depends on `p` only through `[q ≠ p]`.
/// By induction `OCT(s, ·)` is constant on each class (GPUs of a class have the same
/// execution times and memory, [`Problem::class_of`]), so write `X_D(s) = OCT(s, D) +
/// exec(s, D)`. For `p` in class `C` the inner minimum is `min(X_C(s), min_{D ≠ C} X_D(s) +
/// c̄_vs)`: `q = p` itself attains `X_C(s)` with no communication, and any other GPU of `C`
/// costs `X_C(s) + c̄_vs`, never less. This depends on `C` only, so an `n × C` table is the
/// `n × m` table without loss (e.g. 10,000 tasks on 500 PAI-mix GPUs: 10,000 × 5 instead of
/// 10,000 × 500). For unrelated machines every GPU is its own class. (Were the actual
/// link-dependent `comm(q, p)` used instead of `c̄`, as dslab-dag does by default, classes
/// would no longer be exact; we follow the paper.)
///
/// Cost: `O((n + |E|) · C)` time (per successor, the best and second-best `X_D(s)` are
/// computed once), `n · C` `f64`s.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimisticCostTable {
    n_classes: usize,
    /// Row-major `[n, C]`.
    values: Vec<f64>,
    /// Class index of every GPU.
    class_of: Vec<u32>,
    /// `rank_oct` per task.
    rank: Vec<f64>,
}

impl OptimisticCostTable {
    /// The table of `problem`.
    pub fn new(problem: &Problem) -> Self {
        let g = problem.graph();
        let n = g.n_tasks();
        let c = problem.n_classes();
        let classes: Vec<ClassId> = problem.class_ids().collect();
        let fits = |v: TaskId, d: ClassId| problem.fits(v, problem.class_gpus(d)[0]);
        let mut values = vec![0.0f64; n * c];
        // Per task s (once final): best and second-best X_D(s) with the best class.
        let mut best1 = vec![f64::INFINITY; n];
        let mut best1_class = vec![u32::MAX; n];
        let mut best2 = vec![f64::INFINITY; n];
        for &v in g.topo_order().iter().rev() {
            let row = v.index() * c;
            for s in g.succs(v) {
                let si = s.task.index();
                let comm = problem.mean_comm_time(s.bytes);
                for &d in &classes {
                    let own = if fits(s.task, d) {
                        values[si * c + d.index()]
                            + gang_run_time(problem, s.task, problem.class_exec_time(s.task, d))
                    } else {
                        f64::INFINITY
                    };
                    let other = if best1_class[si] as usize == d.index() {
                        best2[si]
                    } else {
                        best1[si]
                    };
                    let term = own.min(other + comm);
                    let cell = &mut values[row + d.index()];
                    if term > *cell {
                        *cell = term;
                    }
                }
            }
            for &d in &classes {
                if !fits(v, d) {
                    continue;
                }
                let x = values[row + d.index()]
                    + gang_run_time(problem, v, problem.class_exec_time(v, d));
                let i = v.index();
                if x < best1[i] {
                    best2[i] = best1[i];
                    best1[i] = x;
                    best1_class[i] = d.index() as u32;
                } else if x < best2[i] {
                    best2[i] = x;
                }
            }
        }
        // rank_oct: mean over the GPUs that fit the task.
        let sizes: Vec<f64> = classes
            .iter()
            .map(|&d| problem.class_gpus(d).len() as f64)
            .collect();
        let rank = g
            .task_ids()
            .map(|v| {
                let (mut sum, mut count) = (0.0, 0.0);
                for &d in &classes {
                    if fits(v, d) {
                        sum += sizes[d.index()] * values[v.index() * c + d.index()];
                        count += sizes[d.index()];
                    }
                }
                sum / count
            })
            .collect();
        let class_of = problem
            .cluster()
            .gpu_ids()
            .map(|k| problem.class_of(k).index() as u32)
            .collect();
        Self {
            n_classes: c,
            values,
            class_of,
            rank,
        }
    }

    /// `OCT(task, gpu)`, s.
    ///
    /// # Panics
    /// If `task` or `gpu` is out of range.
    #[inline]
    pub fn get(&self, task: TaskId, gpu: GpuId) -> f64 {
        self.values[task.index() * self.n_classes + self.class_of[gpu.index()] as usize]
    }

    /// `OCT(task, ·)` on any GPU of `class`, s.
    ///
    /// # Panics
    /// If `task` or `class` is out of range.
    #[inline]
    pub fn get_class(&self, task: TaskId, class: ClassId) -> f64 {
        assert!(class.index() < self.n_classes, "class out of range");
        self.values[task.index() * self.n_classes + class.index()]
    }

    /// `rank_oct(task)`: the mean of `OCT(task, p)` over the GPUs `p` that fit the task
    /// (the paper's mean over all processors, restricted to memory-feasible GPUs), s.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn rank(&self, task: TaskId) -> f64 {
        self.rank[task.index()]
    }

    /// Number of GPU classes (columns of the stored table).
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }
}
