//! Random assignment: the seeded uniform baseline.
//!
//! The usual sanity baseline of scheduling studies (any heuristic should beat it); no
//! originating paper, we cite none.

use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{finish, fits_no_gpu};
use rand::Rng;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};

/// Random: tasks in the graph's topological order
/// ([`TaskGraph::topo_order`](worl_dag::TaskGraph::topo_order)), each on a GPU drawn
/// uniformly among those that fit it, at its earliest slot under the [`Policy`] (default:
/// append). Seeded by [`RunContext::seed`] (ChaCha8, [`RunContext::rng`]): same seed, same
/// schedule.
///
/// The draw: GPUs sorted by (memory, id); the ones fitting a task are a suffix of that list,
/// of length `f`; one `random_range(0..f)` per task picks in it. A gang task (`g > 1`
/// GPUs) draws its lead uniformly among the fitting GPUs that can lead it
/// ([`Problem::can_lead`]); the set around it is [`PartialSchedule::best_set`]'s. `O(n log m + |E|)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomAssignment {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    RandomAssignment,
    "random",
    "Random assignment",
    Policy::Append,
    crate::options::POLICY_APPEND,
    "random: seeded uniform GPU per task (stochastic)"
);

impl Scheduler for RandomAssignment {
    fn name(&self) -> &str {
        "random"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let mut rng = ctx.rng();
        let mut by_mem: Vec<GpuId> = problem.cluster().gpu_ids().collect();
        by_mem.sort_by(|&a, &b| {
            problem
                .gpu_mem(a)
                .total_cmp(&problem.gpu_mem(b))
                .then(a.cmp(&b))
        });
        let mut partial = PartialSchedule::new(problem);
        for &task in problem.graph().topo_order() {
            let need = problem.mem_need(task);
            let first = by_mem.partition_point(|&k| problem.gpu_mem(k) < need);
            if first == by_mem.len() {
                return Err(fits_no_gpu(problem, task)); // a Problem rules this out
            }
            let k = if problem.gpus(task) > 1 {
                // a gang task: a uniform lead among the GPUs that can lead it
                let leads: Vec<GpuId> = by_mem[first..]
                    .iter()
                    .copied()
                    .filter(|&k| problem.can_lead(task, k))
                    .collect();
                if leads.is_empty() {
                    return Err(fits_no_gpu(problem, task));
                }
                leads[rng.random_range(0..leads.len())]
            } else {
                by_mem[rng.random_range(first..by_mem.len())]
            };
            partial.place(task, k, self.policy)?;
        }
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}
