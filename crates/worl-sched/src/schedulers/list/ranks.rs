//! Task priorities of list schedulers: HEFT's upward rank and CPOP's downward rank
//! (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §4).

use worl_cluster::Problem;
use worl_dag::TaskId;

/// A task's run time from a single-GPU time `exec` (s): `exec` itself for a task on one GPU,
/// `exec / (g · e_v)` for a gang task of `g` GPUs and parallel efficiency `e_v` (issue 21):
/// the run time of its set if every GPU of the set were like the one `exec` belongs to,
/// the all-reduce term left out (it depends on the set). This is the compute part of
/// [`Problem::exec_time_on`] on a homogeneous set. Exactly `exec` when `g = 1`.
///
/// # Panics
/// If `task` is out of range.
#[inline]
pub fn gang_run_time(problem: &Problem, task: TaskId, exec: f64) -> f64 {
    let t = problem.graph().task(task);
    if t.gpus > 1 {
        exec / (f64::from(t.gpus) * t.gang.efficiency)
    } else {
        exec
    }
}

/// The mean run time of `task` used by the ranks, s: [`Problem::mean_exec_time`] (the mean
/// over the GPUs that fit it) through [`gang_run_time`], i.e. `mean_k exec(v, k) / (g · e_v)`
/// for a gang task, the mean over GPUs `k` of the set's run time if all its GPUs were like
/// `k`; exactly [`Problem::mean_exec_time`] for a task on one GPU.
///
/// # Panics
/// If `task` is out of range.
#[inline]
pub fn mean_run_time(problem: &Problem, task: TaskId) -> f64 {
    gang_run_time(problem, task, problem.mean_exec_time(task))
}

/// HEFT's upward rank of every task (Topcuoglu et al. 2002, §4.1, eq. 7):
/// `rank_u(v) = w̄_v + max over successors s of (c̄_vs + rank_u(s))`, with `w̄_v` the mean
/// execution time over the GPUs that fit `v` ([`Problem::mean_exec_time`]) and `c̄_vs` the
/// mean communication time of the edge's bytes over ordered pairs of distinct GPUs
/// ([`Problem::mean_comm_time`]). A gang task's `w̄_v` is its [`mean_run_time`]. Seconds, indexed by [`TaskId::index`](worl_dag::TaskId::index), length `n`.
/// `O(n + |E|)` (one pass of [`TaskGraph::bottom_levels`](worl_dag::TaskGraph::bottom_levels)).
pub fn upward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().bottom_levels(
        |v| mean_run_time(problem, v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}

/// CPOP's downward rank of every task (Topcuoglu et al. 2002, §4.2, eq. 8):
/// `rank_d(v) = max over predecessors u of (rank_d(u) + w̄_u + c̄_uv)`, 0 for entry tasks,
/// with the mean costs of [`upward_ranks`] (gang tasks: [`mean_run_time`]). Seconds, indexed by [`TaskId::index`](worl_dag::TaskId::index), length
/// `n`. `O(n + |E|)` (one pass of [`TaskGraph::top_levels`](worl_dag::TaskGraph::top_levels)).
pub fn downward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().top_levels(
        |v| mean_run_time(problem, v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}
