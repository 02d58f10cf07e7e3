//! [`AsPlanned`]: replays a static schedule.

use crate::error::{Result, SimError};
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use worl_cluster::{Plan, Problem, Schedule};

/// Replays a static plan: at time 0 it dispatches every task to its planned GPU in order
/// of planned start ([`Schedule::to_plan`]); a lost task goes back to the same GPU. A gang
/// task goes to its planned GPU set ([`Plan::gangs`], from [`Schedule::gpus`]), in the
/// planned order on every GPU of it; a gang task without an explicit set in the plan gets
/// the engine's set around its planned lead ([`SimView::best_set`]).
#[derive(Clone, Debug)]
pub struct AsPlanned {
    plan: Plan,
    started: bool,
}

impl AsPlanned {
    /// Replays `schedule` (a schedule of `problem`).
    ///
    /// Errors: [`SimError::PolicyMismatch`] if the schedule's task or GPU count differs
    /// from the problem's.
    pub fn new(problem: &Problem, schedule: &Schedule) -> Result<Self> {
        if schedule.n_tasks() != problem.n_tasks() || schedule.n_gpus() != problem.n_gpus() {
            return Err(SimError::PolicyMismatch {
                policy: "as-planned".to_string(),
                reason: format!(
                    "the schedule has {} tasks on {} GPUs, the problem {} tasks on {} GPUs",
                    schedule.n_tasks(),
                    schedule.n_gpus(),
                    problem.n_tasks(),
                    problem.n_gpus()
                ),
            });
        }
        Ok(Self::from_plan(schedule.to_plan(problem)))
    }

    /// Replays `plan`: tasks dispatched in `plan.order` to `plan.gpu` (checked by the
    /// simulation when dispatched).
    pub fn from_plan(plan: Plan) -> Self {
        Self {
            plan,
            started: false,
        }
    }
}

impl AsPlanned {
    /// The planned GPU of `task` (an out-of-range task keeps its id and is refused by the
    /// simulation with a typed error).
    fn gpu_of(&self, task: worl_dag::TaskId) -> worl_cluster::GpuId {
        self.plan
            .gpu
            .get(task.index())
            .copied()
            .unwrap_or(worl_cluster::GpuId::new(0))
    }
}

impl OnlinePolicy for AsPlanned {
    fn name(&self) -> &str {
        "as-planned"
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        if !self.started {
            self.started = true;
            if self.plan.gpu.len() != view.problem().n_tasks() {
                return Err(SimError::PolicyMismatch {
                    policy: self.name().to_string(),
                    reason: format!(
                        "the plan assigns {} tasks, the problem has {}",
                        self.plan.gpu.len(),
                        view.problem().n_tasks()
                    ),
                });
            }
            out.extend(self.plan.order.iter().map(|&task| Dispatch {
                task,
                gpu: self.gpu_of(task),
            }));
        }
        for &task in view.newly_lost() {
            out.push(Dispatch {
                task,
                gpu: self.gpu_of(task),
            });
        }
        Ok(())
    }

    fn gang_set(&self, task: worl_dag::TaskId) -> Option<Vec<worl_cluster::GpuId>> {
        self.plan.gangs.get(&task).cloned()
    }
}
