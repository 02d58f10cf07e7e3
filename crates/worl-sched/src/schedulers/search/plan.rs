//! What every plan-based search of this crate shares: the GPUs each task fits
//! ([`FeasibleGpus`]), the running-time vector of a plan ([`running_times`]), the order in
//! which a plan's tasks are placed ([`TaskOrder`]) and the allocation-free plan evaluation
//! ([`PlanEvaluator`]).

use rand::Rng;
use serde::{Deserialize, Serialize};
use worl_cluster::{Evaluator, GpuId, Plan, Policy, Problem, Schedule};
use worl_dag::TaskId;

use crate::error::Result;
use crate::schedulers::list::{ReadyQueue, upward_ranks};

/// The order in which a plan's tasks are decoded and placed on their GPUs (every order is
/// topological, so each task is placed after its predecessors).
///
/// Under the append policy the order decides which task runs first on a shared GPU, so it
/// is part of the schedule. Measured with RTGS's default configuration (layered DAGs on 16
/// PAI-mix GPUs, seeds 0..10): 200 tasks 2429 ± 21 s (topological) vs 2278 ± 13 s (upward
/// rank); 500 tasks 4729 ± 30 vs 4641 ± 95.
///
/// Text form (option `order`, serde, `FromStr`/`Display`): `topological`, `upward-rank`
/// (also read: `rank`, `upward_rank`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskOrder {
    /// The graph's cached topological order ([`worl_dag::TaskGraph::topo_order`], Kahn's
    /// algorithm by task id): the authors' code places tasks in index order, assumed
    /// topological.
    Topological,
    /// Decreasing upward rank `rank_u` (HEFT's order, Topcuoglu et al. 2002, §4.1; ties and
    /// zero costs resolved by a [`ReadyQueue`], so the order stays topological): tasks on
    /// long remaining paths are placed first. Our default.
    #[default]
    #[serde(alias = "rank", alias = "upward_rank")]
    UpwardRank,
}

serde_plain::derive_fromstr_from_deserialize!(TaskOrder);
serde_plain::derive_display_from_serialize!(TaskOrder);

impl TaskOrder {
    /// The tasks of `problem` in this order. `O(n + |E|)` (topological) or
    /// `O((n + |E|) log n)` (rank).
    pub fn tasks(self, problem: &Problem) -> Vec<TaskId> {
        match self {
            TaskOrder::Topological => problem.graph().topo_order().to_vec(),
            TaskOrder::UpwardRank => {
                let mut queue = ReadyQueue::new(problem.graph(), upward_ranks(problem));
                std::iter::from_fn(|| queue.pop()).collect()
            }
        }
    }
}

/// The GPUs each task fits (memory need `<=` GPU memory), as one sorted list per distinct
/// memory level: `O(levels · m)` memory, not `O(n · m)`.
///
/// Tasks without a memory need fit every GPU. [`Problem`] construction guarantees every task
/// fits at least one GPU, so no list is empty.
///
/// **Gang tasks** (`g > 1` GPUs, issue 21): a gang task's list holds only the GPUs that can
/// lead its set ([`Problem::can_lead`]; for span `machine`, those on a machine with `g`
/// GPUs that fit it), one extra list per such task whose leads are fewer than the GPUs it
/// fits, so that every GPU a search draws for a gang task is a valid lead (the
/// [`Evaluator`] chooses the set around it). Never empty:
/// [`Problem::new`] refuses a gang no machine (span `machine`) or the cluster can hold.
/// Without gang tasks the lists are exactly the memory levels.
#[derive(Clone, Debug)]
pub struct FeasibleGpus {
    /// Concatenated GPU lists, one per memory level, each in GPU id order.
    gpus: Vec<GpuId>,
    /// `(start, end)` of each level's list in `gpus`.
    ranges: Vec<(u32, u32)>,
    /// Level index per task.
    level_of: Vec<u32>,
}

impl FeasibleGpus {
    /// The feasible GPU lists of `problem`.
    pub fn new(problem: &Problem) -> Self {
        let m = problem.n_gpus();
        let mut mems: Vec<f64> = (0..m).map(|k| problem.gpu_mem(GpuId::new(k))).collect();
        mems.sort_by(f64::total_cmp);
        mems.dedup();
        // Level `l` holds the GPUs with memory >= mems[l].
        let mut gpus = Vec::new();
        let mut ranges = Vec::with_capacity(mems.len());
        for &level in &mems {
            let start = gpus.len() as u32;
            gpus.extend(
                (0..m)
                    .map(GpuId::new)
                    .filter(|&k| problem.gpu_mem(k) >= level),
            );
            ranges.push((start, gpus.len() as u32));
        }
        let level_of = problem
            .graph()
            .task_ids()
            .map(|t| {
                let need = problem.mem_need(t);
                // The smallest memory level that holds the need (exists: the task fits a GPU).
                let l = mems.partition_point(|&mem| mem < need);
                l.min(mems.len() - 1) as u32
            })
            .collect();
        let mut feasible = FeasibleGpus {
            gpus,
            ranges,
            level_of,
        };
        if problem.has_gangs() {
            for t in problem.graph().task_ids() {
                if problem.gpus(t) < 2 {
                    continue;
                }
                let leads: Vec<GpuId> = feasible
                    .of(t)
                    .iter()
                    .copied()
                    .filter(|&k| problem.can_lead(t, k))
                    .collect();
                if leads.len() < feasible.of(t).len() && !leads.is_empty() {
                    let start = feasible.gpus.len() as u32;
                    feasible.gpus.extend(leads);
                    feasible.ranges.push((start, feasible.gpus.len() as u32));
                    feasible.level_of[t.index()] = (feasible.ranges.len() - 1) as u32;
                }
            }
        }
        feasible
    }

    /// The GPUs `task` fits, in id order (never empty).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn of(&self, task: TaskId) -> &[GpuId] {
        let (a, b) = self.ranges[self.level_of[task.index()] as usize];
        &self.gpus[a as usize..b as usize]
    }

    /// A GPU drawn uniformly from those `task` fits.
    #[inline]
    pub fn random(&self, task: TaskId, rng: &mut impl Rng) -> GpuId {
        let list = self.of(task);
        list[rng.random_range(0..list.len())]
    }

    /// Fills `out` (one GPU per task, by task index) with a uniformly random feasible plan.
    pub fn random_plan(&self, rng: &mut impl Rng, out: &mut [GpuId]) {
        for (v, g) in out.iter_mut().enumerate() {
            *g = self.random(TaskId::new(v), rng);
        }
    }
}

/// The per-GPU running times of a plan: `loads[k] = r_k + Σ_{v: π(v) = k} exec(v, k)`, s,
/// written into `loads` (resized to `m`). The running time of task `v` is
/// `RT_v = loads[π(v)]` (RTGS: the total busy time of the GPU hosting `v`).
///
/// **Ready times.** Unlike the authors' code (which has none), the GPU's ready time `r_k`
/// starts its running time: a GPU busy until `r_k` finishes its share no earlier than
/// `r_k + busy`, so `loads` is that finish time if the GPU ran its tasks back to back.
/// With idle GPUs (`r_k = 0`) this is exactly the authors' load. The greedy decoder starts
/// from the same values, so hope and decoding use one scale.
///
/// `gpu` holds one GPU per task, indexed by [`TaskId::index`].
///
/// # Panics
/// If `gpu` is shorter than the number of tasks or holds an unknown GPU.
pub fn running_times(problem: &Problem, gpu: &[GpuId], loads: &mut Vec<f64>) {
    loads.clear();
    loads.extend_from_slice(problem.ready_times());
    for (v, &k) in gpu[..problem.n_tasks()].iter().enumerate() {
        loads[k.index()] += problem.exec_time(TaskId::new(v), k);
    }
}

/// Evaluates GPU assignments (one GPU per task, placed in the graph's topological order)
/// with the [`Evaluator`] fast path, reusing its buffers: after construction nothing is
/// allocated. One per thread.
#[derive(Clone, Debug)]
pub struct PlanEvaluator<'p> {
    evaluator: Evaluator<'p>,
    plan: Plan,
    policy: Policy,
}

impl<'p> PlanEvaluator<'p> {
    /// An evaluator of plans of `problem` under `policy`, placing tasks in the graph's
    /// topological order.
    pub fn new(problem: &'p Problem, policy: Policy) -> Self {
        PlanEvaluator {
            evaluator: Evaluator::new(problem),
            plan: Plan::in_topo_order(problem.graph(), vec![GpuId::new(0); problem.n_tasks()]),
            policy,
        }
    }

    /// The same evaluator placing tasks in `order` (a topological order of all tasks, e.g.
    /// from [`TaskOrder::tasks`]; any other makes every plan evaluate to `+∞` and
    /// [`schedule`](Self::schedule) fail).
    pub fn with_order(mut self, order: &[TaskId]) -> Self {
        self.plan.order.clear();
        self.plan.order.extend_from_slice(order);
        self
    }

    /// The placement order.
    pub fn order(&self) -> &[TaskId] {
        &self.plan.order
    }

    /// The placement policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The makespan of the assignment `gpu` (by task index), s; `+∞` for an assignment the
    /// evaluator rejects (wrong length, unknown GPU, memory-infeasible), which the searches of
    /// this crate never produce.
    pub fn makespan(&mut self, gpu: &[GpuId]) -> f64 {
        if gpu.len() != self.plan.gpu.len() {
            return f64::INFINITY;
        }
        self.plan.gpu.copy_from_slice(gpu);
        self.evaluator
            .makespan(&self.plan, self.policy)
            .unwrap_or(f64::INFINITY)
    }

    /// The schedule of the assignment `gpu`.
    ///
    /// Errors: the [`Evaluator`]'s, as [`ScheduleError::Cluster`](crate::ScheduleError).
    pub fn schedule(&mut self, gpu: &[GpuId]) -> Result<Schedule> {
        let plan = Plan::new(gpu.to_vec(), self.plan.order.clone());
        Ok(self.evaluator.schedule(&plan, self.policy)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use worl_cluster::{ClusterBuilder, GpuModel};
    use worl_dag::WorkloadBuilder;

    /// GPUs: 0 = 16 GiB speed 1, 1 = 32 GiB speed 2 (ready at 5 s), 2 = 16 GiB speed 1.
    /// Tasks: a (4 s, no memory), b (6 s, 20 GiB), c (2 s, 16 GiB).
    fn problem() -> Problem {
        let mut w = WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        w.add_task(j, "a", 4.0, None).unwrap();
        w.add_task(j, "b", 6.0, Some(20.0)).unwrap();
        w.add_task(j, "c", 2.0, Some(16.0)).unwrap();
        let mut c = ClusterBuilder::new("c");
        let m = c.add_machine("m");
        c.add_gpu(m, &GpuModel::custom("small", 1.0, 16.0).unwrap())
            .unwrap();
        let big = c
            .add_gpu(m, &GpuModel::custom("big", 2.0, 32.0).unwrap())
            .unwrap();
        c.add_gpu(m, &GpuModel::custom("small", 1.0, 16.0).unwrap())
            .unwrap();
        c.set_ready_time(big, 5.0).unwrap();
        Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
    }

    #[test]
    fn feasible_gpus_follow_memory_levels() {
        let p = problem();
        let f = FeasibleGpus::new(&p);
        let ids = |v: &[GpuId]| v.iter().map(|g| g.index()).collect::<Vec<_>>();
        assert_eq!(ids(f.of(TaskId::new(0))), vec![0, 1, 2]);
        assert_eq!(ids(f.of(TaskId::new(1))), vec![1]);
        assert_eq!(ids(f.of(TaskId::new(2))), vec![0, 1, 2]);
    }

    #[test]
    fn running_times_start_at_ready_times() {
        let p = problem();
        let gpu = [GpuId::new(1), GpuId::new(1), GpuId::new(0)];
        let mut loads = Vec::new();
        running_times(&p, &gpu, &mut loads);
        // GPU 1: 5 + 4/2 + 6/2 = 10; GPU 0: 2; GPU 2: 0.
        assert_eq!(loads, vec![2.0, 10.0, 0.0]);
    }

    #[test]
    fn plan_evaluator_matches_the_schedule_and_rejects_bad_plans() {
        let p = problem();
        let mut ev = PlanEvaluator::new(&p, Policy::Append);
        let gpu = [GpuId::new(1), GpuId::new(1), GpuId::new(0)];
        // a on GPU 1 from 5 to 7, b from 7 to 10; c on GPU 0 from 0 to 2.
        assert_eq!(ev.makespan(&gpu), 10.0);
        assert_eq!(ev.schedule(&gpu).unwrap().makespan(), 10.0);
        assert_eq!(ev.makespan(&gpu[..2]), f64::INFINITY);
        let infeasible = [GpuId::new(0), GpuId::new(0), GpuId::new(0)];
        assert_eq!(ev.makespan(&infeasible), f64::INFINITY);
    }
}
