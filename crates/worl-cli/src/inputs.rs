//! Reading the inputs every command shares: workloads (any format worl reads) and clusters
//! (a cluster file, or a short description of a preset).

use crate::Result;
use std::path::Path;
use std::sync::Arc;
use worl::cluster::{Cluster, Problem};
use worl::dag::Workload;

/// Loads a workload, the format picked by extension or content (see [`load`]).
pub(crate) fn workload(path: &Path) -> Result<Workload> {
    Ok(load(path)?.0)
}

/// Loads a workload, the format picked by extension or content; the load report's notes
/// (dropped rows, repaired references) go to stderr. A saga / dag-bench problem instance
/// (JSON with a `task_graph`) gives its task graph and, second, its network.
pub(crate) fn load(path: &Path) -> Result<(Workload, Option<Cluster>)> {
    if let Some((w, c)) = saga_instance(path)? {
        return Ok((w, Some(c)));
    }
    let (w, report) = worl::dag::load_path(path)?;
    if !report.entries.is_empty() {
        crate::errln!("{}: {report}", path.display());
    }
    Ok((w, None))
}

/// The workload and network of a saga / dag-bench problem instance (`.json` with a
/// `task_graph`), or `None` for any other file.
fn saga_instance(path: &Path) -> Result<Option<(Workload, Cluster)>> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !is_json {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.contains("\"task_graph\"") {
        return Ok(None);
    }
    let source = path.display().to_string();
    Ok(Some(worl::cluster::formats::saga::read(
        text.as_bytes(),
        &source,
    )?))
}

/// The problem of the workload at `path` on the cluster `arg` (see [`cluster`]); without
/// `arg`, a saga / dag-bench instance brings its own network.
pub(crate) fn problem_of(path: &Path, arg: Option<&str>) -> Result<Problem> {
    let (w, own) = load(path)?;
    let c = match (arg, own) {
        (Some(a), _) => cluster(a)?,
        (None, Some(c)) => c,
        (None, None) => {
            return Err(format!(
                "{}: no --cluster given (only a saga problem instance brings its own network)",
                path.display()
            )
            .into());
        }
    };
    problem(w, c)
}

/// A cluster from `arg`: an existing file (TOML or JSON cluster file), else a description of a
/// preset (`pai-mix:M[:SEED]`, `homogeneous:M:MODEL`, `dgx:NODES:MODEL`,
/// `paper-pool:M:MBIT[:SEED]`, `MxG:MODEL[:INTER[:INTRA]]`; grammar:
/// `worl_cluster::description`).
pub(crate) fn cluster(arg: &str) -> Result<Cluster> {
    Ok(worl::cluster::description::parse(arg)?)
}

/// The problem of `workload` on `cluster`.
pub(crate) fn problem(workload: Workload, cluster: Cluster) -> Result<Problem> {
    Ok(Problem::new(Arc::new(workload), Arc::new(cluster))?)
}
