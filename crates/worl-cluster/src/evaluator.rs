//! [`Plan`] and the plan [`Evaluator`]: decoding a GPU assignment plus a task order into a
//! schedule, the hot path of every metaheuristic.

use crate::error::{ClusterError, Result};
use crate::ids::GpuId;
use crate::partial::PartialSchedule;
use crate::problem::Problem;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};
use worl_dag::{TaskGraph, TaskId};

/// How a task is put on its GPU's timeline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Policy {
    /// After the GPU's last task: `S_v = max(DRT(v, k), r_k, F of the last task on k)`.
    /// Evaluating a plan is `O(|V| + |E|)`.
    Append,
    /// In the earliest idle gap of the GPU, after `max(DRT(v, k), r_k)`, long enough for
    /// `exec(v, k)`; after the last task if none is (HEFT's insertion-based policy, Topcuoglu
    /// et al. 2002, §4.1). `O(|V| · tasks per GPU + |E|)`. A task never finishes later than
    /// under `Append` with the same plan; a zero-duration task may go into the zero-length
    /// gap between two back-to-back tasks.
    Insertion,
}

/// A plan: a GPU per task and the order in which tasks are placed.
///
/// `gpu[v.index()]` is the GPU of task `v` (length `n_tasks`); `order` is a permutation of
/// all tasks that is topological (every task after its predecessors). Decoded by
/// [`Evaluator`]: a list scheduler that records its GPU choices and its placement order in a
/// plan gets its schedule back exactly (with the policy it used).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Plan {
    /// GPU of each task, indexed by [`TaskId::index`].
    pub gpu: Vec<GpuId>,
    /// Placement order: a topological permutation of the tasks.
    pub order: Vec<TaskId>,
}

impl Plan {
    /// A plan from its parts (checked when evaluated).
    pub fn new(gpu: Vec<GpuId>, order: Vec<TaskId>) -> Self {
        Self { gpu, order }
    }

    /// A plan placing tasks in the graph's cached topological order
    /// ([`TaskGraph::topo_order`]).
    pub fn in_topo_order(graph: &TaskGraph, gpu: Vec<GpuId>) -> Self {
        Self {
            gpu,
            order: graph.topo_order().to_vec(),
        }
    }
}

/// Decodes [`Plan`]s into makespans or [`Schedule`]s for one [`Problem`], reusing its
/// buffers: after construction, [`makespan`](Self::makespan) allocates nothing.
///
/// Each evaluation walks `plan.order` and places every task with
/// [`PartialSchedule::place`] (one shared implementation of the append and insertion
/// policies), so a wrong plan is detected during the pass:
/// [`ClusterError::PlanLength`] (either vector's length differs from `n_tasks`),
/// [`ClusterError::UnknownId`] (a task or GPU id out of range),
/// [`ClusterError::DuplicateTask`] (order not a permutation),
/// [`ClusterError::NotTopological`] (a task before one of its predecessors),
/// [`ClusterError::MemoryInfeasible`] (a task on a GPU with too little memory).
///
/// One evaluator per thread: it is cheap to create (`O(n + m)`) and borrows the problem.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, Evaluator, GpuId, GpuModel, Plan, Policy, Problem};
/// use worl_dag::WorkloadBuilder;
/// let mut b = WorkloadBuilder::new("w");
/// let j = b.add_job("j")?;
/// let a = b.add_task(j, "a", 4.0, None)?;
/// let c = b.add_task(j, "c", 2.0, None)?;
/// b.add_edge(a, c, 0.0)?;
/// let p = Problem::new(Arc::new(b.build()?), Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?))?;
/// let mut ev = Evaluator::new(&p);
/// let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 2]);
/// assert_eq!(ev.makespan(&plan, Policy::Append)?, 6.0);
/// let s = ev.schedule(&plan, Policy::Append)?;
/// assert_eq!(s.task(c).start, 4.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Evaluator<'p> {
    state: PartialSchedule<'p>,
}

impl<'p> Evaluator<'p> {
    /// An evaluator for `problem`.
    pub fn new(problem: &'p Problem) -> Self {
        Self {
            state: PartialSchedule::new(problem),
        }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.state.problem()
    }

    /// The placements of the last evaluation (complete after a successful one).
    pub fn state(&self) -> &PartialSchedule<'p> {
        &self.state
    }

    fn run(&mut self, plan: &Plan, policy: Policy) -> Result<()> {
        let n = self.state.problem().n_tasks();
        for (field, len) in [("gpu", plan.gpu.len()), ("order", plan.order.len())] {
            if len != n {
                return Err(ClusterError::PlanLength {
                    field,
                    expected: n,
                    actual: len,
                });
            }
        }
        self.state.reset();
        for &task in &plan.order {
            // `task` is checked by `place` before `plan.gpu` is indexed with it.
            let gpu = match plan.gpu.get(task.index()) {
                Some(&g) => g,
                None => {
                    return Err(ClusterError::UnknownId {
                        kind: "task",
                        index: task.index(),
                        len: n,
                    });
                }
            };
            self.state.place(task, gpu, policy)?;
        }
        Ok(())
    }

    /// The makespan of `plan` under `policy`, s (fast path: no schedule is built).
    ///
    /// Errors: see [`Evaluator`].
    #[inline]
    pub fn makespan(&mut self, plan: &Plan, policy: Policy) -> Result<f64> {
        self.run(plan, policy)?;
        Ok(self.state.makespan())
    }

    /// The schedule of `plan` under `policy`.
    ///
    /// Errors: see [`Evaluator`].
    pub fn schedule(&mut self, plan: &Plan, policy: Policy) -> Result<Schedule> {
        self.run(plan, policy)?;
        self.state.to_schedule()
    }
}
