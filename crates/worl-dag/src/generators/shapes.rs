//! Small fixed shapes for tests and examples (deterministic, no seed).
//!
//! Every task gets the same `work` (reference GPU-seconds) and every edge the same `bytes`.
//! Tasks are named `t0, t1, ...` in id order inside one job `job` (or `job0, job1, ...` for
//! [`disconnected`]).

use crate::error::{DagError, Result};
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
/// Errors: [`DagError::InvalidParameter`] if `n == 0`; [`DagError::InvalidWork`] /
/// [`DagError::InvalidBytes`] for bad values.
pub fn chain(n: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("n", n, 1)?;
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
/// Errors: [`DagError::InvalidParameter`] if `width == 0`; bad values as [`chain`].
pub fn fork_join(width: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("width", width, 1)?;
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
/// Errors: [`DagError::InvalidParameter`] if `n == 0`; [`DagError::InvalidWork`].
pub fn wide(n: usize, work: f64) -> Result<Workload> {
    need("n", n, 1)?;
    let mut b = WorkloadBuilder::new("wide");
    let j = b.add_job("job")?;
    tasks(&mut b, j, n, work)?;
    b.build()
}

/// One task.
///
/// Errors: [`DagError::InvalidWork`].
pub fn single(work: f64) -> Result<Workload> {
    wide(1, work).map(|w| w.renamed("single"))
}

/// `jobs` jobs `job0, job1, ...`, each a chain of `tasks_per_job` tasks; no edge between
/// jobs.
///
/// Errors: [`DagError::InvalidParameter`] if either count is 0; bad values as [`chain`].
pub fn disconnected(jobs: usize, tasks_per_job: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("jobs", jobs, 1)?;
    need("tasks_per_job", tasks_per_job, 1)?;
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
/// Errors: [`DagError::InvalidParameter`] if either count is 0; bad values as [`chain`].
pub fn multi_entry_exit(entries: usize, exits: usize, work: f64, bytes: f64) -> Result<Workload> {
    need("entries", entries, 1)?;
    need("exits", exits, 1)?;
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
