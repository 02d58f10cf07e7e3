//! Reading any input file of worl: workloads (by extension and content, saga / dag-bench
//! problem instances included), clusters (a file or a description) and schedule files.

use crate::error::{FileError, Result};
use crate::saga;
use crate::schedule_file::ScheduleFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use worl_cluster::{Cluster, Problem};
use worl_dag::Workload;
use worl_dag::formats::LoadReport;

/// A workload read from a file, with the network a saga problem instance brings.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The workload.
    pub workload: Workload,
    /// The cluster of a saga / dag-bench problem instance (one GPU per network node), else
    /// `None`.
    pub network: Option<Cluster>,
    /// What the reader dropped or repaired (rows skipped, references fixed); empty if
    /// nothing.
    pub report: LoadReport,
    /// The file read.
    pub path: PathBuf,
}

impl Loaded {
    /// The problem of this workload on `cluster`, or without one on the network a saga /
    /// dag-bench instance brought.
    ///
    /// Errors: [`FileError::NoCluster`] naming the file for a workload without a network
    /// and no `cluster`; the problem's own ([`Problem::new`]: a task that fits no GPU).
    pub fn into_problem(self, cluster: Option<Cluster>) -> Result<Problem> {
        let Some(c) = cluster.or(self.network) else {
            return Err(FileError::NoCluster { path: self.path });
        };
        Ok(Problem::new(Arc::new(self.workload), Arc::new(c))?)
    }
}

/// Whether `text`, the content of a `.json` file, is a saga / dag-bench problem instance:
/// it has a `"task_graph"` key.
pub fn is_saga_text(text: &str) -> bool {
    text.contains("\"task_graph\"")
}

/// Reads the workload at `path`, the format picked by extension and content: a `.json`
/// holding a `"task_graph"` is a saga / dag-bench problem instance ([`saga::read`]:
/// workload and network); any other file goes to
/// [`worl_dag::formats::load_path`] (Alibaba v2018 / GPU v2023 / PAI CSV by header,
/// WfCommons JSON, Pegasus DAX, STG, DOT, worl's workload JSON). A leading byte-order mark
/// is skipped.
///
/// Errors: the readers' ([`FileError::Workload`], [`FileError::Cluster`] for a saga
/// instance), naming the file, line and item; an error that does not name the file (a
/// workload without tasks) comes as [`FileError::InFile`] with it.
pub fn load_workload(path: impl AsRef<Path>) -> Result<Loaded> {
    let path = path.as_ref();
    read_workload(path).map_err(|e| {
        if e.to_string().contains(&path.display().to_string()) {
            e
        } else {
            FileError::InFile {
                path: path.to_owned(),
                source: Box::new(e),
            }
        }
    })
}

fn read_workload(path: &Path) -> Result<Loaded> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let (workload, report) = if is_json {
        // one read: the text decides saga or not, then native JSON or WfFormat
        let source = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| worl_dag::DagError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = worl_dag::formats::read_text(bytes.as_slice(), &source)?;
        let text = worl_dag::formats::strip_bom(&text);
        if is_saga_text(text) {
            let (workload, network) = saga::read(text.as_bytes(), &source)?;
            return Ok(Loaded {
                workload,
                network: Some(network),
                report: LoadReport::new(source, "saga"),
                path: path.to_owned(),
            });
        }
        worl_dag::formats::read_json_text(text, &source)?
    } else {
        worl_dag::formats::load_path(path)?
    };
    Ok(Loaded {
        workload,
        network: None,
        report,
        path: path.to_owned(),
    })
}

/// A cluster from `arg`: an existing cluster file (TOML for `*.toml`, else JSON; the native
/// or compact form), else a description of a preset (`pai-mix:M[:SEED]`,
/// `homogeneous:M:MODEL`, `dgx:NODES:MODEL`, `paper-pool:M:MBIT[:SEED]`,
/// `MxG:MODEL[:INTER[:INTRA]]`; grammar: [`worl_cluster::description`]).
///
/// Errors: the reader's or the description's ([`FileError::Cluster`], naming the file or
/// the description); [`FileError::EmptyMachineName`] for a machine without a name (a
/// schedule file could not name it).
pub fn load_cluster(arg: &str) -> Result<Cluster> {
    let c = worl_cluster::description::parse(arg)?;
    if let Some(index) = c.machines().iter().position(|m| m.trim().is_empty()) {
        return Err(FileError::EmptyMachineName {
            cluster: arg.to_owned(),
            index,
        });
    }
    Ok(c)
}

/// The problem of the workload at `path` ([`load_workload`]) on the cluster `cluster`
/// ([`load_cluster`]); without one, a saga / dag-bench instance brings its own network
/// ([`Loaded::into_problem`]).
///
/// Errors: those of [`load_workload`], [`load_cluster`] and [`Loaded::into_problem`].
pub fn load_problem(path: impl AsRef<Path>, cluster: Option<&str>) -> Result<Problem> {
    let loaded = load_workload(path)?;
    let cluster = cluster.map(load_cluster).transpose()?;
    loaded.into_problem(cluster)
}

/// The schedule file at `path` ([`ScheduleFile::read`]: `.json`, `.csv` or a WfFormat
/// plan).
///
/// Errors: those of [`ScheduleFile::read`], naming the file.
pub fn load_schedule_file(path: impl AsRef<Path>) -> Result<ScheduleFile> {
    Ok(ScheduleFile::read(path)?)
}
