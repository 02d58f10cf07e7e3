//! Typed dense ids for tasks and jobs.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Dense id of a task in a [`TaskGraph`](crate::TaskGraph): `0..n_tasks`.
///
/// It indexes every per-task array in the workspace (costs, schedules, plans), and equals the
/// petgraph `NodeIndex` of the task in [`TaskGraph::graph`](crate::TaskGraph::graph).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TaskId(u32);

impl TaskId {
    /// The id of the task at dense index `index`.
    ///
    /// # Panics
    /// If `index` does not fit in `u32` (graphs hold at most `u32::MAX` tasks).
    #[inline]
    pub fn new(index: usize) -> Self {
        Self(u32::try_from(index).expect("task index exceeds u32::MAX"))
    }

    /// The dense index `0..n_tasks` of this task.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

impl From<TaskId> for petgraph::graph::NodeIndex<u32> {
    fn from(id: TaskId) -> Self {
        petgraph::graph::NodeIndex::new(id.index())
    }
}

impl From<petgraph::graph::NodeIndex<u32>> for TaskId {
    fn from(ix: petgraph::graph::NodeIndex<u32>) -> Self {
        TaskId::new(ix.index())
    }
}

/// Dense id of a job (one DAG of a workload forest): `0..n_jobs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(u32);

impl JobId {
    /// The id of the job at dense index `index`.
    ///
    /// # Panics
    /// If `index` does not fit in `u32`.
    #[inline]
    pub fn new(index: usize) -> Self {
        Self(u32::try_from(index).expect("job index exceeds u32::MAX"))
    }

    /// The dense index `0..n_jobs` of this job.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "j{}", self.0)
    }
}
