//! [`FileError`]: what can go wrong reading or writing a file of worl.

use std::path::PathBuf;
use worl_cluster::ClusterError;
use worl_dag::DagError;

/// An error of [`load`](crate::load) or [`save`](crate::save): the readers' and writers'
/// own errors (which name the file, line and item), or a file that no format fits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// A workload reader's or writer's error (a malformed file, a cycle, a bad task).
    #[error(transparent)]
    Workload(#[from] DagError),
    /// A cluster, saga, schedule-file or WfFormat-plan reader's or writer's error.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// An error that does not name its file (a workload without tasks, say), with the file.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        #[source]
        source: Box<FileError>,
    },
    /// A name whose ending no writer of `what` knows.
    #[error("{}: cannot write {what} as {ext} (writable: {})", path.display(), writable.join(", "))]
    UnknownSaveFormat {
        /// The file.
        path: PathBuf,
        /// What was to be written: `workloads`, `schedules`, `clusters`.
        what: String,
        /// The ending found (`` `.xml` ``, or `a name without extension`).
        ext: String,
        /// The endings that writer knows.
        writable: Vec<String>,
    },
    /// A saga problem instance to write without a network.
    #[error("{}: a saga problem instance needs a network: give a cluster", path.display())]
    NeedsNetwork {
        /// The file.
        path: PathBuf,
    },
    /// A workload that brings no network of its own, loaded without a cluster.
    #[error(
        "{}: no cluster given (only a saga problem instance brings its own network)",
        path.display()
    )]
    NoCluster {
        /// The workload file.
        path: PathBuf,
    },
    /// A machine of a cluster with an empty name: a schedule file could not name it and an
    /// export would not pin its tasks.
    #[error(
        "cluster `{cluster}`: machine {index} has an empty name (schedule files and exports \
         name machines: give it a name)"
    )]
    EmptyMachineName {
        /// The cluster as given (a file or a description).
        cluster: String,
        /// The machine's index (0-based).
        index: usize,
    },
}

/// The result of this crate's functions.
pub type Result<T, E = FileError> = std::result::Result<T, E>;
