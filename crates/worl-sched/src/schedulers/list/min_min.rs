//! Min-Min list scheduling, adapted to DAGs.
//!
//! O. H. Ibarra and C. E. Kim, "Heuristic algorithms for scheduling independent tasks on
//! nonidentical processors", *Journal of the ACM* 24(2):280–289, 1977 (the heuristic); named
//! and described as "Min-Min" by T. D. Braun, H. J. Siegel, N. Beck et al., "A comparison of
//! eleven static heuristics for mapping a class of independent tasks onto heterogeneous
//! distributed computing systems", *Journal of Parallel and Distributed Computing*
//! 61(6):810–837, 2001, §2 (heuristic descriptions).

use super::batch::{self, Pick};
use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use worl_cluster::{Policy, Problem, Schedule};

/// Min-Min (Ibarra and Kim, JACM 1977; Braun et al., JPDC 2001, §2), adapted to DAGs.
///
/// Batch mode over the *ready* tasks (those whose predecessors are all placed): every ready
/// task's minimum completion time (MCT) is its minimum EFT over the GPUs that fit it (ties:
/// smaller GPU id), EFT under the [`Policy`] (default: append, Braun et al.'s machine-ready-time
/// form); the ready task of **minimum** MCT (ties: smaller task id) is placed on its MCT GPU, its
/// successors become ready, and the step repeats. For independent tasks this is the original
/// heuristic. See [`Max-Min`](crate::schedulers::MaxMin) for the opposite choice.
///
/// Same schedule as the textbook `O(n · R · m)` recomputation (`R` ready tasks), computed
/// incrementally (module `batch`: per-task EFT rows in tournament trees, lazy refresh of
/// stale entries). Worst case `O(n · R · (d̄ + g + log m))` plus `n · m` EFT
/// evaluations, memory `O(R · m)`; on large inputs it is the slowest baseline with Max-Min.
/// With gang tasks (`g > 1` GPUs) the textbook recomputation runs instead (a gang placement
/// changes several timelines): a gang task's MCT is over the GPUs that can lead it
/// ([`Problem::can_lead`](worl_cluster::Problem::can_lead)), each the common finish of the set
/// chosen around it.
#[derive(Clone, Debug, PartialEq)]
pub struct MinMin {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    MinMin,
    "min-min",
    "Min-Min",
    Policy::Append,
    crate::options::POLICY_APPEND,
    "Min-Min (Ibarra & Kim 1977): ready task of minimum MCT first"
);

impl Scheduler for MinMin {
    fn name(&self) -> &str {
        "Min-Min"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        batch::run(problem, self.policy, Pick::Min, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}
