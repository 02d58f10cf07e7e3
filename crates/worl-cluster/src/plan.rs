//! [`Plan`] (a GPU per task and a placement order) and the placement [`Policy`]: what the
//! [`PartialSchedule`](crate::PartialSchedule) places with and the
//! [`Evaluator`](crate::Evaluator) decodes. Depends only on ids and the task graph.

use crate::ids::GpuId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use worl_dag::{TaskGraph, TaskId};

/// How a task is put on its GPU's timeline.
///
/// Text form (scheduler options, serde, `FromStr`/`Display`): `append`, `insertion` (also
/// read: `insert`, and serde's older `Append`, `Insertion`).
///
/// ```
/// use worl_cluster::Policy;
/// assert_eq!("insertion".parse::<Policy>().unwrap(), Policy::Insertion);
/// assert_eq!(Policy::Append.to_string(), "append");
/// assert!("sideways".parse::<Policy>().is_err());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// After the GPU's last task: `S_v = max(DRT(v, k), r_k, F of the last task on k)`,
    /// then past any busy window of the GPU the task would meet. Evaluating a plan is
    /// `O(|V| + |E|)` (plus a binary search over the GPU's windows per task when it has
    /// some).
    #[serde(alias = "Append")]
    Append,
    /// In the earliest idle gap of the GPU (between its tasks and busy windows), after
    /// `max(DRT(v, k), r_k)`, long enough for `exec(v, k)`; after the last task if none is
    /// (HEFT's insertion-based policy, Topcuoglu et al. 2002, §4.1).
    /// `O(|V| · (tasks + windows) per GPU + |E|)`. A task never finishes later than
    /// under `Append` with the same plan; a zero-duration task may go into the zero-length
    /// gap between two back-to-back tasks.
    #[serde(alias = "Insertion", alias = "insert")]
    Insertion,
}

serde_plain::derive_fromstr_from_deserialize!(Policy);
serde_plain::derive_display_from_serialize!(Policy);

/// A plan: a GPU per task and the order in which tasks are placed.
///
/// `gpu[v.index()]` is the GPU of task `v` (length `n_tasks`); `order` is a permutation of
/// all tasks that is topological (every task after its predecessors). Decoded by
/// [`Evaluator`](crate::Evaluator): a list scheduler that records its GPU choices and its
/// placement order in a plan gets its schedule back exactly (with the policy it used).
///
/// Gang tasks (needing `g > 1` GPUs): `gpu[v]` is the lead GPU; the decoder chooses the
/// other `g − 1` around it ([`PartialSchedule::place`](crate::PartialSchedule::place))
/// unless [`gangs`](Self::gangs) gives the whole set explicitly (lead first). Serialized
/// only when not empty, so plans without it read and write as before.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Plan {
    /// GPU of each task, indexed by [`TaskId::index`] (a gang task's lead GPU).
    pub gpu: Vec<GpuId>,
    /// Placement order: a topological permutation of the tasks.
    pub order: Vec<TaskId>,
    /// Explicit GPU sets of gang tasks (sparse: usually empty), lead first; checked when
    /// evaluated.
    #[serde(default, skip_serializing_if = "GangSets::is_empty")]
    pub gangs: GangSets,
}

/// Explicit GPU sets of gang tasks in a [`Plan`], by task (each set's first GPU is the
/// task's [`Plan::gpu`]).
pub type GangSets = BTreeMap<TaskId, Vec<GpuId>>;

impl Plan {
    /// A plan from its parts (checked when evaluated), without explicit GPU sets.
    pub fn new(gpu: Vec<GpuId>, order: Vec<TaskId>) -> Self {
        Self {
            gpu,
            order,
            gangs: GangSets::new(),
        }
    }

    /// This plan with the explicit GPU `set` of `task` (lead first; `plan.gpu[task]` set to
    /// it). Checked when evaluated.
    pub fn with_set(mut self, task: TaskId, set: Vec<GpuId>) -> Self {
        if let (Some(&lead), Some(slot)) = (set.first(), self.gpu.get_mut(task.index())) {
            *slot = lead;
        }
        self.gangs.insert(task, set);
        self
    }

    /// A plan placing tasks in the graph's cached topological order
    /// ([`TaskGraph::topo_order`]).
    pub fn in_topo_order(graph: &TaskGraph, gpu: Vec<GpuId>) -> Self {
        Self::new(gpu, graph.topo_order().to_vec())
    }
}
