//! **List schedulers**: order the tasks by a priority and place each, in that order, on the
//! GPU chosen by a selection rule (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §3), and
//! the primitives they share (usable by your own list scheduler). Every placement goes through
//! [`PartialSchedule`], so the EST, gap search and data-ready logic exist once, in
//! `worl-cluster`.
//!
//! | module | holds |
//! |---|---|
//! | [`ranks`] | [`upward_ranks`] (rank_u), [`downward_ranks`] (rank_d), [`mean_run_time`] |
//! | [`queue`] | [`ReadyQueue`]: ready tasks by priority |
//! | [`gap_index`] | [`GapIndex`]: EFT queries and minimum-EFT processor selection |
//! | [`heft`], [`cpop`], [`peft`] | [`Heft`], [`Cpop`], [`Peft`] |
//! | [`min_min`], [`max_min`] | [`MinMin`], [`MaxMin`] (batch-mode selection over ready tasks) |
//! | [`least_connection`], [`round_robin`], [`random`] | [`LeastConnection`], [`RoundRobin`], [`RandomAssignment`] |
//!
//! **Gang tasks** (a task needing `g > 1` GPUs, issue 21): every scheduler of this module
//! supports them. A gang task is placed on a *lead* GPU through [`PartialSchedule::slot`],
//! which takes the set [`PartialSchedule::best_set`] chooses around the lead and its
//! earliest common gap; only GPUs where [`Problem::can_lead`] holds are tried as leads.
//! Minimum-EFT rules ([`GapIndex::best_slot`]) therefore pick the lead of earliest common
//! finish (for span `machine` without busy windows among one candidate set per machine, the
//! machine's `g` GPUs where the task could start earliest); ranks use a gang's
//! [`mean_run_time`]. Without gang tasks none of this runs and
//! every result is unchanged.
//!
//! Tie-breaking, everywhere in this module: among equal priorities the **smaller task id**
//! goes first; among equal selection keys the **smaller GPU id** wins. Nothing depends on
//! hash or iteration order of a container.

pub mod gap_index;
mod gap_tree;
pub mod queue;
pub mod ranks;

pub mod cpop;
pub mod heft;
pub mod least_connection;
pub mod max_min;
pub mod min_min;
pub mod peft;
pub mod random;
pub mod round_robin;

mod batch;

pub use cpop::{Cpop, CriticalPathAssignment};
pub use gap_index::GapIndex;
pub use heft::Heft;
pub use least_connection::LeastConnection;
pub use max_min::MaxMin;
pub use min_min::MinMin;
pub use peft::{OptimisticCostTable, Peft};
pub use queue::ReadyQueue;
pub use random::RandomAssignment;
pub use ranks::{downward_ranks, gang_run_time, mean_run_time, upward_ranks};
pub use round_robin::RoundRobin;

use crate::error::{Result, ScheduleError};
use crate::scheduler::{Progress, RunContext};
use worl_cluster::{ClusterError, PartialSchedule, Problem, Schedule};
use worl_dag::TaskId;

/// The error for a task that fits no GPU.
pub(crate) fn fits_no_gpu(p: &Problem, task: TaskId) -> ScheduleError {
    let max_gib = p
        .cluster()
        .gpu_ids()
        .map(|k| p.gpu_mem(k))
        .fold(0.0, f64::max);
    ScheduleError::Cluster(ClusterError::TaskFitsNoGpu {
        task: p.task_label(task),
        need_gib: p.mem_need(task),
        max_gib,
    })
}

/// Whether `gpu` may take `task` (as its lead, for a gang task): [`Problem::fits`], and
/// with gang tasks in the problem also [`Problem::can_lead`] (which is `fits` for a task on
/// one GPU, so without gang tasks this is exactly `fits`).
#[inline]
pub(crate) fn lead_ok(p: &Problem, task: TaskId, gpu: worl_cluster::GpuId) -> bool {
    p.fits(task, gpu) && (!p.has_gangs() || p.can_lead(task, gpu))
}

/// Builds the finished schedule and reports one final [`Progress`] event (a list scheduler
/// is not interruptible: an observer's `Break` is ignored, there is no partial result).
pub(crate) fn finish(partial: &PartialSchedule<'_>, ctx: &mut RunContext<'_>) -> Result<Schedule> {
    let schedule = partial.to_schedule()?;
    let n = partial.n_placed() as u64;
    let _ = ctx.report(Progress {
        step: n,
        total_steps: n,
        evaluations: 0,
        best_makespan: schedule.makespan(),
    });
    Ok(schedule)
}

/// The constructors of a scheduler whose only setting is the placement policy (a struct
/// with one field `policy: Policy`): `Default`, `NAME`, `new` (policy `$default`),
/// `with_policy`, `policy` and `from_options` (option `policy`).
macro_rules! policy_scheduler {
    ($ty:ident, $name:literal, $label:literal, $default:expr, $policy:expr, $about:literal) => {
        impl Default for $ty {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $ty {
            /// Registry name.
            pub const NAME: &'static str = $name;

            /// Its registration: name, description, family, declared options (`policy`).
            pub const BUILTIN: $crate::Builtin = $crate::Builtin {
                name: $name,
                description: $about,
                family: $crate::Family::List,
                quick: "",
                options: &[&$policy],
                build: |o| $crate::builtin::boxed(Self::from_options(o)),
            };

            #[doc = concat!($label, " with the `", stringify!($default), "` placement policy.")]
            pub fn new() -> Self {
                Self { policy: $default }
            }

            /// Sets the placement policy.
            pub fn with_policy(mut self, policy: worl_cluster::Policy) -> Self {
                self.policy = policy;
                self
            }

            /// The placement policy.
            pub fn policy(&self) -> worl_cluster::Policy {
                self.policy
            }

            #[doc = concat!("From registry options: `policy` = `append` or `insertion` (default `", stringify!($default), "`).")]
            ///
            /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
            /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
            pub fn from_options(mut options: $crate::options::Options) -> $crate::Result<Self> {
                let policy = options.take_or("policy", $default)?;
                options.finish()?;
                Ok(Self::new().with_policy(policy))
            }
        }
    };
}
pub(crate) use policy_scheduler;
