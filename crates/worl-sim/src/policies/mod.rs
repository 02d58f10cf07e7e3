//! Policies: [`AsPlanned`] replays a static plan; the online policies decide as jobs
//! arrive and tasks finish.

mod as_planned;
#[cfg(feature = "ddqn")]
mod drl;
mod least_connection;
mod online_eft;
mod replan;
mod round_robin;

pub use as_planned::AsPlanned;
#[cfg(feature = "ddqn")]
pub use drl::{DecisionRecord, OnlineDrl};
#[allow(unused_imports)]
pub use least_connection::*;
#[allow(unused_imports)]
pub use online_eft::*;
#[allow(unused_imports)]
pub use replan::*;
#[allow(unused_imports)]
pub use round_robin::*;

use std::sync::Arc;
use worl_cluster::Problem;

/// The identity of `problem`'s workload and cluster (their `Arc` addresses): the key under
/// which a policy caches per-problem data (ranks, topological positions, scales) and
/// recomputes it for another problem.
pub(crate) fn problem_key(problem: &Problem) -> (usize, usize) {
    (
        Arc::as_ptr(problem.workload_arc()) as usize,
        Arc::as_ptr(problem.cluster_arc()) as usize,
    )
}
