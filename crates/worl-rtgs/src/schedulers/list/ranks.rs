//! Task priorities of list schedulers: HEFT's upward rank and CPOP's downward rank
//! (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, §4).

use worl_cluster::Problem;

/// HEFT's upward rank of every task (Topcuoglu et al. 2002, §4.1, eq. 7):
/// `rank_u(v) = w̄_v + max over successors s of (c̄_vs + rank_u(s))`, with `w̄_v` the mean
/// execution time over the GPUs that fit `v` ([`Problem::mean_exec_time`]) and `c̄_vs` the
/// mean communication time of the edge's bytes over ordered pairs of distinct GPUs
/// ([`Problem::mean_comm_time`]). Seconds, indexed by [`TaskId::index`](worl_dag::TaskId::index), length `n`.
/// `O(n + |E|)` (one pass of [`TaskGraph::bottom_levels`](worl_dag::TaskGraph::bottom_levels)).
pub fn upward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().bottom_levels(
        |v| problem.mean_exec_time(v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}

/// CPOP's downward rank of every task (Topcuoglu et al. 2002, §4.2, eq. 8):
/// `rank_d(v) = max over predecessors u of (rank_d(u) + w̄_u + c̄_uv)`, 0 for entry tasks,
/// with the mean costs of [`upward_ranks`]. Seconds, indexed by [`TaskId::index`](worl_dag::TaskId::index), length
/// `n`. `O(n + |E|)` (one pass of [`TaskGraph::top_levels`](worl_dag::TaskGraph::top_levels)).
pub fn downward_ranks(problem: &Problem) -> Vec<f64> {
    problem.graph().top_levels(
        |v| problem.mean_exec_time(v),
        |_, _, bytes| problem.mean_comm_time(bytes),
    )
}
