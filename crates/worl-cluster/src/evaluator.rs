//! The plan [`Evaluator`]: decoding a [`Plan`] (a GPU assignment plus a task order) into a
//! makespan or a schedule, the hot path of every metaheuristic.

use crate::error::{ClusterError, Result};
use crate::partial::PartialSchedule;
use crate::plan::{Plan, Policy};
use crate::problem::Problem;
use crate::schedule::Schedule;

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
/// [`ClusterError::MemoryInfeasible`] (a task on a GPU with too little memory),
/// [`ClusterError::InvalidGpuSet`] (an explicit set of the wrong size, with a repeated
/// GPU, across machines for span `machine`, or whose first GPU is not the plan's GPU of the
/// task; a lead whose machine has too few GPUs for its gang task).
///
/// Gang tasks: a task with an explicit set in [`Plan::gangs`] is placed on it
/// ([`PartialSchedule::place_set`]); any other gang task on the set
/// [`PartialSchedule::best_set`] chooses around its lead `plan.gpu[v]`
/// ([`PartialSchedule::place`]). Without explicit sets the loop is the single-GPU one plus
/// one test of an empty map per task.
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
            if !plan.gangs.is_empty()
                && let Some(set) = plan.gangs.get(&task)
            {
                if set.first() != Some(&gpu) {
                    return Err(ClusterError::InvalidGpuSet {
                        task: self.state.problem().task_label(task),
                        gpus: crate::schedule::set_label(set),
                        reason: format!("the plan's GPU of the task is {gpu}, not the set's first"),
                    });
                }
                self.state.place_set(task, set, policy)?;
                continue;
            }
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
