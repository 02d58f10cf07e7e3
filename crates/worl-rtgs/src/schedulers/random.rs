//! Random assignment: the seeded uniform baseline.
//!
//! The usual sanity baseline of scheduling studies (any heuristic should beat it); no
//! originating paper, we cite none.

use crate::error::Result;
use crate::registry::Options;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{finish, fits_no_gpu, take_policy};
use rand::Rng;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};

/// Random: tasks in the graph's topological order
/// ([`TaskGraph::topo_order`](worl_dag::TaskGraph::topo_order)), each on a GPU drawn
/// uniformly among those that fit it, at its earliest slot under the [`Policy`] (default:
/// append). Seeded by [`RunContext::seed`] (ChaCha8, [`RunContext::rng`]): same seed, same
/// schedule.
///
/// The draw: GPUs sorted by (memory, id); the ones fitting a task are a suffix of that list,
/// of length `f`; one `random_range(0..f)` per task picks in it. `O(n log m + |E|)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomAssignment {
    policy: Policy,
}

impl Default for RandomAssignment {
    fn default() -> Self {
        Self::new()
    }
}

impl RandomAssignment {
    /// Registry name.
    pub const NAME: &'static str = "random";

    /// Random assignment with the append policy.
    pub fn new() -> Self {
        Self {
            policy: Policy::Append,
        }
    }

    /// Sets the placement policy.
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The placement policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// From registry options: `policy` = `append` (default) or `insertion`.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut options: Options) -> Result<Self> {
        let policy = take_policy(&mut options, Policy::Append)?;
        options.finish()?;
        Ok(Self::new().with_policy(policy))
    }
}

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
            let k = by_mem[rng.random_range(first..by_mem.len())];
            partial.place(task, k, self.policy)?;
        }
        finish(&partial, ctx)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}
