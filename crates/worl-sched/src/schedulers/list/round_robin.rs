//! Round-robin assignment.
//!
//! The oldest load-distribution rule (cyclic assignment, as in round-robin scheduling of
//! time-sharing systems); a standard lower-quality baseline of GPU-cluster and
//! DAG-scheduling studies. No single originating paper: we cite none.

use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{finish, fits_no_gpu, lead_ok};
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};

/// Round-robin: tasks in the graph's topological order
/// ([`TaskGraph::topo_order`](worl_dag::TaskGraph::topo_order)) go to GPUs `0, 1, 2, …`
/// cyclically; a GPU the task does not fit is skipped (the cursor then moves past the GPU
/// chosen). Each task takes its earliest slot on its GPU under the [`Policy`] (default:
/// append). Ignores costs entirely. A gang task (`g > 1` GPUs) goes to the next GPU that can
/// lead it ([`Problem::can_lead`]), with the set [`PartialSchedule::best_set`] chooses.
///
/// `O(n + |E|)` when tasks fit every GPU, up to `O(n · m)` with memory exclusions.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRobin {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    RoundRobin,
    "round-robin",
    "Round-robin",
    Policy::Append,
    crate::options::POLICY_APPEND,
    "round-robin: tasks in topological order to GPUs cyclically"
);

impl Scheduler for RoundRobin {
    fn name(&self) -> &str {
        "round-robin"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let m = problem.n_gpus();
        let mut partial = PartialSchedule::new(problem);
        let mut cursor = 0usize;
        for &task in problem.graph().topo_order() {
            let Some(k) = (0..m)
                .map(|i| (cursor + i) % m)
                .find(|&k| lead_ok(problem, task, GpuId::new(k)))
            else {
                return Err(fits_no_gpu(problem, task));
            };
            partial.place(task, GpuId::new(k), self.policy)?;
            cursor = (k + 1) % m;
        }
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}
