//! Small fixed shapes for tests and examples (deterministic, no seed).
//!
//! Every task gets the same `work` (reference GPU-seconds) and every edge the same `bytes`.
//! Tasks are named `t0, t1, ...` in id order inside one job `job` (or `job0, job1, ...` for
//! [`disconnected`]). [`topcuoglu_2002`] is the literature's worked example instead.
//! Sizes are bounded by [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS) tasks
//! and [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES) edges, checked before
//! anything is allocated.

use crate::error::{DagError, Result};
use crate::generators::{check_edge_count, check_task_count};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};

fn need(name: &'static str, value: usize, min: usize) -> Result<()> {
    if value >= min {
        Ok(())
    } else {
        Err(DagError::InvalidParameter {
            name,
            reason: format!("{value} is below the minimum {min}"),
        })
    }
}

/// Adds `n` tasks named `t<i>` to job `j`.
fn tasks(b: &mut WorkloadBuilder, j: crate::JobId, n: usize, work: f64) -> Result<Vec<TaskId>> {
    (0..n)
        .map(|i| b.add_task(j, format!("t{i}"), work, None))
        .collect()
}

/// A chain `t0 -> t1 -> ... -> t(n-1)`: depth `n`, width 1.
///
/// Errors: [`DagError::InvalidParameter`] if `n == 0` or `n >` [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS);
/// [`DagError::InvalidWork`] / [`DagError::InvalidBytes`] for bad values.
pub fn chain(n: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("n", n, 1)?;
    check_task_count("n", n as u128, &format!("n = {n}"))?;
    let mut b = WorkloadBuilder::new("chain");
    let j = b.add_job("job")?;
    let t = tasks(&mut b, j, n, work)?;
    for w in t.windows(2) {
        b.add_edge(w[0], w[1], bytes)?;
    }
    b.build()
}

/// Fork-join: `t0` forks to `width` branches `t1..=t(width)`, which join in `t(width+1)`;
/// `width + 2` tasks, `2·width` edges, depth 3.
///
/// Errors: [`DagError::InvalidParameter`] if `width == 0` or `width + 2 >`
/// [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS); bad values as [`chain`].
pub fn fork_join(width: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("width", width, 1)?;
    check_task_count("width", width as u128 + 2, &format!("width = {width}"))?;
    let mut b = WorkloadBuilder::new("fork-join");
    let j = b.add_job("job")?;
    let t = tasks(&mut b, j, width + 2, work)?;
    for &mid in &t[1..=width] {
        b.add_edge(t[0], mid, bytes)?;
        b.add_edge(mid, t[width + 1], bytes)?;
    }
    b.build()
}

/// `n` independent tasks (no edge): depth 1, width `n`.
///
/// Errors: [`DagError::InvalidParameter`] if `n == 0` or `n >`
/// [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS); [`DagError::InvalidWork`].
pub fn wide(n: usize, work: f64) -> Result<Workload> {
    need("n", n, 1)?;
    check_task_count("n", n as u128, &format!("n = {n}"))?;
    let mut b = WorkloadBuilder::new("wide");
    let j = b.add_job("job")?;
    tasks(&mut b, j, n, work)?;
    b.build()
}

/// One task.
///
/// Errors: [`DagError::InvalidWork`].
pub fn single(work: f64) -> Result<Workload> {
    wide(1, work)?.renamed("single")
}

/// `jobs` jobs `job0, job1, ...`, each a chain of `tasks_per_job` tasks; no edge between
/// jobs.
///
/// Errors: [`DagError::InvalidParameter`] if either count is 0, or naming `jobs` if
/// `jobs · tasks_per_job >` [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS);
/// bad values as [`chain`].
pub fn disconnected(jobs: usize, tasks_per_job: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("jobs", jobs, 1)?;
    need("tasks_per_job", tasks_per_job, 1)?;
    check_task_count(
        "jobs",
        jobs as u128 * tasks_per_job as u128,
        &format!("jobs = {jobs} of tasks_per_job = {tasks_per_job}"),
    )?;
    let mut b = WorkloadBuilder::new("disconnected");
    for k in 0..jobs {
        let j = b.add_job(format!("job{k}"))?;
        let t = tasks(&mut b, j, tasks_per_job, work)?;
        for w in t.windows(2) {
            b.add_edge(w[0], w[1], bytes)?;
        }
    }
    b.build()
}

/// `entries` entry tasks `t0..`, each linked to every one of `exits` exit tasks (a complete
/// bipartite DAG): `entries + exits` tasks, `entries·exits` edges, depth 2.
///
/// Errors: [`DagError::InvalidParameter`] if either count is 0, naming `entries` if
/// `entries + exits >` [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS), or
/// `exits` if `entries · exits >` [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES);
/// bad values as [`chain`].
pub fn multi_entry_exit(entries: usize, exits: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("entries", entries, 1)?;
    need("exits", exits, 1)?;
    let what = format!("entries = {entries} with exits = {exits}");
    check_task_count("entries", entries as u128 + exits as u128, &what)?;
    check_edge_count("exits", entries as u128 * exits as u128, &what)?;
    let mut b = WorkloadBuilder::new("multi-entry-exit");
    let j = b.add_job("job")?;
    let t = tasks(&mut b, j, entries + exits, work)?;
    for &u in &t[..entries] {
        for &v in &t[entries..] {
            b.add_edge(u, v, bytes)?;
        }
    }
    b.build()
}

/// The edges of Topcuoglu, Hariri, Wu (IEEE TPDS 13(3), 2002) Fig. 2 as
/// `(from, to, communication cost)`, tasks numbered 1..=10 as in the paper.
pub const TOPCUOGLU_2002_EDGES: [(usize, usize, f64); 15] = [
    (1, 2, 18.0),
    (1, 3, 12.0),
    (1, 4, 9.0),
    (1, 5, 11.0),
    (1, 6, 14.0),
    (2, 8, 19.0),
    (2, 9, 16.0),
    (3, 7, 23.0),
    (4, 8, 27.0),
    (4, 9, 23.0),
    (5, 9, 13.0),
    (6, 8, 15.0),
    (7, 10, 17.0),
    (8, 10, 11.0),
    (9, 10, 13.0),
];

/// The 10-task DAG of Topcuoglu, Hariri, Wu 2002, Fig. 2 (the HEFT/CPOP worked example,
/// Topcuoglu et al. 2002, Fig. 2): workload `topcuoglu-2002`, one job `fig2`, tasks `T1..T10` (ids 0..9)
/// with work `work[i]` (reference GPU-seconds), edges [`TOPCUOGLU_2002_EDGES`] carrying their
/// communication cost as bytes (so a 1 B/s, zero-latency network reproduces the paper's
/// costs). The paper's execution-time matrix belongs to the cost model (unrelated machines).
///
/// ```
/// use worl_dag::generators::shapes::topcuoglu_2002;
/// let w = topcuoglu_2002([1.0; 10])?;
/// assert_eq!((w.graph().n_tasks(), w.graph().n_edges()), (10, 15));
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`DagError::InvalidWork`] for a negative or non-finite work.
pub fn topcuoglu_2002(work: [f64; 10]) -> Result<Workload> {
    let mut b = WorkloadBuilder::new("topcuoglu-2002");
    let j = b.add_job("fig2")?;
    let t = (1..=10)
        .map(|i| b.add_task(j, format!("T{i}"), work[i - 1], None))
        .collect::<Result<Vec<_>>>()?;
    for (u, v, c) in TOPCUOGLU_2002_EDGES {
        b.add_edge(t[u - 1], t[v - 1], c)?;
    }
    b.build()
}
