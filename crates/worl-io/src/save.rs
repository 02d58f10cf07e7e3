//! Writing workloads and schedules in the format their file name asks for.

use crate::error::{FileError, Result};
use crate::saga;
use crate::schedule_file::{ScheduleFile, ScheduleMeta};
use crate::wfformat;
use std::path::Path;
use worl_cluster::{Cluster, ClusterError, Problem, Schedule};
use worl_dag::Workload;
use worl_dag::formats::{is_wfformat_path, lower_file_name};

/// The file-name endings [`save_workload`] writes: worl's workload JSON, WfCommons
/// WfFormat 1.5, Graphviz DOT
/// ([`WRITABLE_EXTENSIONS`](worl_dag::formats::WRITABLE_EXTENSIONS)) and saga / dag-bench
/// problem instances.
pub const WORKLOAD_SAVE_EXTENSIONS: [&str; 6] = {
    let dag = worl_dag::formats::WRITABLE_EXTENSIONS;
    let mut all = [SAGA_EXTENSION; 6];
    let mut i = 0;
    while i < dag.len() {
        all[i] = dag[i];
        i += 1;
    }
    all
};

/// The file-name ending of a saga / dag-bench problem instance that [`save_workload`]
/// writes.
pub const SAGA_EXTENSION: &str = ".saga.json";

/// The file-name endings [`save_schedule`] writes: schedule files (`.json`, `.csv`) and
/// WfFormat plans, a workload with an `execution` section (`.wf.json`, `.wfformat.json`).
pub const SCHEDULE_SAVE_EXTENSIONS: [&str; 4] = [".json", ".csv", ".wf.json", ".wfformat.json"];

/// The file-name endings [`save_cluster`] writes: TOML and JSON cluster files.
pub const CLUSTER_SAVE_EXTENSIONS: [&str; 2] = [".toml", ".json"];

/// Whether `path` asks for a saga / dag-bench problem instance: a name ending in
/// [`SAGA_EXTENSION`] (any case).
pub fn is_saga_path(path: impl AsRef<Path>) -> bool {
    lower_file_name(path.as_ref()).ends_with(SAGA_EXTENSION)
}

/// Checks that the name of `path` ends with one of `writable`, before anything is
/// computed or written.
///
/// Errors: [`FileError::UnknownSaveFormat`] naming the file, its ending and `writable`.
pub fn check_writable(path: impl AsRef<Path>, what: &str, writable: &[&str]) -> Result<()> {
    let path = path.as_ref();
    let name = lower_file_name(path);
    if writable.iter().any(|e| name.ends_with(e)) {
        return Ok(());
    }
    let ext = match path.extension() {
        Some(e) => format!("`.{}`", e.to_string_lossy()),
        None => "a name without extension".to_owned(),
    };
    Err(FileError::UnknownSaveFormat {
        path: path.to_owned(),
        what: what.to_owned(),
        ext,
        writable: writable.iter().map(|w| (*w).to_owned()).collect(),
    })
}

/// Writes `workload` to `path` in the format of its name: `.saga.json` a saga / dag-bench
/// problem instance with `network` as its network; `.wf.json` / `.wfformat.json`
/// WfCommons WfFormat 1.5; `.json` worl's workload JSON; `.dot` / `.gv` Graphviz
/// ([`WORKLOAD_SAVE_EXTENSIONS`]). Each reads back ([`load_workload`](crate::load_workload))
/// as the same workload. `network` is used by saga instances only.
///
/// Errors: [`FileError::UnknownSaveFormat`] for another name; [`FileError::NeedsNetwork`]
/// for a saga instance without `network`; the writers' errors naming the file (a saga
/// network with latencies, or a machine of several GPUs, is refused before anything is
/// written).
pub fn save_workload(
    workload: &Workload,
    network: Option<&Cluster>,
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    check_writable(path, "workloads", &WORKLOAD_SAVE_EXTENSIONS)?;
    if is_saga_path(path) {
        let Some(c) = network else {
            return Err(FileError::NeedsNetwork {
                path: path.to_owned(),
            });
        };
        return Ok(saga::save(workload, c, path)?);
    }
    Ok(worl_dag::formats::save_path(workload, path)?)
}

/// Writes `schedule` of `problem` to `path` in the format of its name: `.wf.json` /
/// `.wfformat.json` a WfFormat plan ([`wfformat::save`]: the workload with an
/// `execution` section), else a schedule file ([`ScheduleFile`], JSON or CSV by extension:
/// task, job, GPU, machine, model, start, finish; `meta`'s scheduler, options and seed,
/// makespan and lower bound) ([`SCHEDULE_SAVE_EXTENSIONS`]).
///
/// Errors: [`FileError::UnknownSaveFormat`] for another name; the writers' errors naming
/// the file.
pub fn save_schedule(
    problem: &Problem,
    schedule: &Schedule,
    meta: ScheduleMeta,
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    check_writable(path, "schedules", &SCHEDULE_SAVE_EXTENSIONS)?;
    if is_wfformat_path(path) {
        return Ok(wfformat::save(problem, schedule, path)?);
    }
    Ok(ScheduleFile::new(problem, schedule, meta)?.save(path)?)
}

/// Writes `cluster` to `path` as a cluster file, TOML for `.toml` and JSON for `.json`
/// ([`CLUSTER_SAVE_EXTENSIONS`]): the compact form where it describes the cluster exactly,
/// else the full one; JSON is streamed. It reads back equal
/// ([`load_cluster`](crate::load_cluster)).
///
/// Errors: [`FileError::UnknownSaveFormat`] for another name; a per-machine-pair network
/// too large to write ([`Cluster::check_writable`]), before anything is written;
/// [`ClusterError::Io`] naming the file.
pub fn save_cluster(cluster: &Cluster, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    check_writable(path, "clusters", &CLUSTER_SAVE_EXTENSIONS)?;
    cluster.check_writable()?;
    let io = |source| ClusterError::Io {
        path: path.to_owned(),
        source,
    };
    if lower_file_name(path).ends_with(".toml") {
        std::fs::write(path, cluster.to_compact_toml_string()?).map_err(io)?;
        return Ok(());
    }
    let file = std::fs::File::create(path).map_err(io)?;
    cluster
        .write_compact_json(std::io::BufWriter::new(file))
        .map_err(|e| match e {
            ClusterError::Io { source, .. } => io(source),
            other => other,
        })?;
    Ok(())
}
