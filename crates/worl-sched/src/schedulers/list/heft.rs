//! HEFT, Heterogeneous Earliest Finish Time.
//!
//! H. Topcuoglu, S. Hariri and M.-Y. Wu, "Performance-effective and low-complexity task
//! scheduling for heterogeneous computing", *IEEE Transactions on Parallel and Distributed
//! Systems* 13(3):260–274, 2002, §4.1 (the algorithm: Fig. 4).

use crate::error::Result;
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::{GapIndex, ReadyQueue, finish, upward_ranks};
use worl_cluster::{PartialSchedule, Policy, Problem, Schedule};

/// HEFT (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §4.1).
///
/// 1. **Priority**: the upward rank `rank_u` with mean execution and mean communication
///    costs ([`upward_ranks`]).
/// 2. **Order**: tasks by decreasing `rank_u`, ties by smaller task id (served by a
///    [`ReadyQueue`], which equals the sorted list whenever ranks decrease along edges and
///    stays topological when zero costs make them tie).
/// 3. **Selection**: each task on the GPU, among those that fit it, of minimum earliest
///    finish time (EFT) under the [`Policy`] (default: the paper's insertion-based policy);
///    ties go to the smaller GPU id.
///
/// **Gang tasks** (`g > 1` GPUs): the EFT on a GPU is the common finish of the set chosen
/// around it as lead ([`PartialSchedule::slot`]); GPUs that cannot lead the task
/// ([`Problem::can_lead`]) are skipped, so the choice is the set of earliest common finish
/// (span `machine` without busy windows: one candidate set per machine, its `g` GPUs of
/// earliest start, see [`GapIndex::best_slot`](super::GapIndex::best_slot));
/// `rank_u` uses the gang's mean run time `w̄_v / (g · e_v)`
/// ([`mean_run_time`](crate::schedulers::list::mean_run_time)).
///
/// Reproduces the paper's Fig. 2 schedule (makespan 80) and dslab-dag's golden 98 (see
/// `tests/golden.rs`). Complexity `O(n · m · (d̄ + g) + |E| + n log n)`, `d̄` the mean
/// in-degree and `g` the gap search per GPU (0 for append, at most the tasks on the GPU for
/// insertion); memory `O(n + m)`.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, Policy, Problem};
/// use worl_dag::generators::shapes;
/// use worl_sched::schedulers::Heft;
/// use worl_sched::{RunContext, Scheduler};
/// let w = Arc::new(shapes::fork_join(8, 10.0, 1.0e6)?);
/// let p = Problem::new(w, Arc::new(presets::pai_mix(16, 1)?))?;
/// let s = Heft::new().with_policy(Policy::Append).schedule(&p, &mut RunContext::new(0))?;
/// assert!(s.validate(&p).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Heft {
    policy: Policy,
}

crate::schedulers::list::policy_scheduler!(
    Heft,
    "heft",
    "HEFT",
    Policy::Insertion,
    crate::options::POLICY_INSERTION,
    "HEFT (Topcuoglu et al. 2002): rank_u order, min-EFT GPU, insertion"
);

impl Heft {
    /// HEFT's placement (minimum EFT, this scheduler's policy) with the tasks taken in
    /// decreasing `priority` among the ready ones (ties by smaller task id; a
    /// [`ReadyQueue`]) instead of by `rank_u`: the randomized-rank restarts of a local
    /// search perturb the ranks this way. `priority` is indexed by task index, length `n`.
    ///
    /// Errors: a task that fits no GPU, as [`Scheduler::schedule`].
    pub fn schedule_with_priorities(
        &self,
        problem: &Problem,
        priority: Vec<f64>,
    ) -> Result<Schedule> {
        Ok(self.place_by(problem, priority)?.to_schedule()?)
    }

    fn place_by<'p>(
        &self,
        problem: &'p Problem,
        priority: Vec<f64>,
    ) -> Result<PartialSchedule<'p>> {
        let mut partial = PartialSchedule::new(problem);
        let mut index = GapIndex::new(problem);
        let mut ready = ReadyQueue::new(problem.graph(), priority);
        while let Some(task) = ready.pop() {
            let slot = index.best_slot(&partial, task, self.policy, |_| 0.0)?;
            index.commit(&mut partial, slot)?;
        }
        Ok(partial)
    }
}

impl Scheduler for Heft {
    fn name(&self) -> &str {
        "HEFT"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let partial = self.place_by(problem, upward_ranks(problem))?;
        finish(&partial, ctx)
    }

    fn supports_gangs(&self) -> bool {
        true
    }
}
