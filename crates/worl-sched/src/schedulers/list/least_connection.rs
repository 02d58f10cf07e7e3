//! Least-connection load balancing.
//!
//! The classic load-balancer rule (send each request to the server with the fewest active
//! connections), as used as a baseline by the MDTS paper. We could not pin that paper's
//! bibliographic reference (authors, venue, year) in the material available to this project;
//! the rule is implemented as commonly defined, with "connections" = tasks assigned so far.

use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{finish, fits_no_gpu, lead_ok};
use std::collections::BTreeSet;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};

/// Least-connection: every task, in the graph's topological order
/// ([`TaskGraph::topo_order`](worl_dag::TaskGraph::topo_order): Kahn's algorithm, ready
/// tasks first-in first-out), goes to the GPU with the **fewest tasks assigned so far** among
/// those that fit it (ties: smaller GPU id), at its earliest slot under the [`Policy`]
/// (default: append). Ignores execution and communication costs: a load-balancing baseline
/// (least-connection load balancing, as used as a baseline by the MDTS paper; reference not
/// pinned, see the module docs). A gang task (`g > 1` GPUs) goes to the least-loaded GPU
/// that can lead it ([`Problem::can_lead`]), with the set [`PartialSchedule::best_set`]
/// chooses, and counts as one task on every GPU of its set.
///
/// `O(n log m + |E|)` when tasks fit every GPU (an ordered set of `(count, GPU)`), up to
/// `O(n · m)` when memory excludes many GPUs.
#[derive(Clone, Debug, PartialEq)]
pub struct LeastConnection {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    LeastConnection,
    "least-connection",
    "Least-connection",
    Policy::Append,
    crate::options::POLICY_APPEND,
    "least-connection: each task to the GPU with the fewest tasks"
);

impl Scheduler for LeastConnection {
    fn name(&self) -> &str {
        "least-connection"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let mut partial = PartialSchedule::new(problem);
        // (tasks assigned, GPU index): the first entry that fits is the choice.
        let mut load: BTreeSet<(u32, u32)> = (0..problem.n_gpus() as u32).map(|k| (0, k)).collect();
        for &task in problem.graph().topo_order() {
            let Some(&(count, k)) = load
                .iter()
                .find(|&&(_, k)| lead_ok(problem, task, GpuId::new(k as usize)))
            else {
                return Err(fits_no_gpu(problem, task));
            };
            partial.place(task, GpuId::new(k as usize), self.policy)?;
            load.remove(&(count, k));
            load.insert((count + 1, k));
            if let Some(set) = partial.gang_set(task) {
                // a gang task counts on every GPU of its set (the lead's is done)
                for &other in &set[1..] {
                    let o = other.index() as u32;
                    let c = load
                        .iter()
                        .find(|&&(_, j)| j == o)
                        .map(|&(c, _)| c)
                        .expect("every GPU has a load entry");
                    load.remove(&(c, o));
                    load.insert((c + 1, o));
                }
            }
        }
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}
