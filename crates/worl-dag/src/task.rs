//! Tasks, jobs and the edges between tasks.

use crate::ids::{JobId, TaskId};
use serde::{Deserialize, Serialize};

/// One task (a DAG node): a unit of GPU work.
///
/// `work` is in *reference GPU-seconds*: the task's run time on a GPU of relative speed 1.0
/// (the reference is an NVIDIA V100). Its run time on GPU `k` is `work / speed_k`
///.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Name, unique within its job (e.g. `M2_1` in the Alibaba trace).
    pub name: String,
    /// The job (DAG of the forest) the task belongs to.
    pub job: JobId,
    /// Work in reference GPU-seconds (finite, `>= 0`).
    pub work: f64,
    /// GPU memory the task needs, in GiB (finite, `> 0`), if known.
    pub mem_gib: Option<f64>,
}

/// One job of a workload: a named DAG, a connected or disconnected set of tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Name of the job (e.g. `j_1053726` in the Alibaba trace), unique in its workload.
    pub name: String,
    /// The job's tasks, in ascending id order.
    pub tasks: Vec<TaskId>,
    /// Release (arrival) time of the job in seconds from the start of the schedule (finite,
    /// `>= 0`; 0 for a batch workload): none of its tasks may start earlier. Static
    /// schedulers plan the batch as if every job were present at 0; the simulator
    /// (`worl-sim`) honours releases.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub release: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A neighbour in the compact adjacency of a [`TaskGraph`](crate::TaskGraph): the task at
/// the other end of an edge and the bytes the edge carries.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbor {
    /// The predecessor (in `preds`) or successor (in `succs`).
    pub task: TaskId,
    /// Data the edge carries from the parent to the child, in bytes.
    pub bytes: f64,
}

/// A dependency edge `from -> to` carrying `bytes` of data.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Parent task.
    pub from: TaskId,
    /// Child task.
    pub to: TaskId,
    /// Data sent from parent to child, in bytes (finite, `>= 0`).
    pub bytes: f64,
}
