//! Tasks, jobs and the edges between tasks.

use crate::ids::{JobId, TaskId};
use serde::{Deserialize, Serialize};

/// One task (a DAG node): a unit of GPU work.
///
/// `work` is in *reference GPU-seconds*: the task's run time on a GPU of relative speed 1.0
/// (the reference is an NVIDIA V100). Its run time on GPU `k` is `work / speed_k`
///.
///
/// A *gang task* ([`is_gang`](Self::is_gang)) needs `gpus > 1` GPUs at once, which start and
/// finish it together; `work` stays its total work (its run time on *one* reference GPU), and
/// [`gang`](Self::gang) says how it spreads over its GPUs. A trace that records a wall time
/// `d` on `g` GPUs gives `work = d · g` (with the default efficiency 1 this reproduces `d` on
/// `g` reference GPUs).
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
    /// GPUs the task needs at once (a gang), `1..=`[`MAX_GANG_GPUS`]; default 1. Set with
    /// [`WorkloadBuilder::set_gang`](crate::WorkloadBuilder::set_gang).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub gpus: u32,
    /// How a gang runs (ignored when `gpus == 1`); default [`GangParams::default`].
    #[serde(default, skip_serializing_if = "GangParams::is_default")]
    pub gang: GangParams,
}

impl Task {
    /// Whether the task is a gang task: it needs more than one GPU at once (`gpus > 1`).
    #[inline]
    pub fn is_gang(&self) -> bool {
        self.gpus > 1
    }
}

/// Most GPUs one task may demand (a sanity bound on input: 512 machines of 8 GPUs).
pub const MAX_GANG_GPUS: u32 = 4096;

fn one() -> u32 {
    1
}

fn is_one(g: &u32) -> bool {
    *g == 1
}

/// Where the GPUs of a gang task may be.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Span {
    /// All `gpus` GPUs on one machine (the default; what Kubernetes and Slurm do for a pod or
    /// a single-node job). Written `machine`.
    #[default]
    Machine,
    /// Any GPUs of the cluster, on one machine or several (multi-node data parallelism); the
    /// gang then pays its all-reduce over the slowest link between its machines. Written
    /// `cluster`.
    Cluster,
}

impl Span {
    /// The span as written in files: `machine` or `cluster`.
    pub fn as_str(self) -> &'static str {
        match self {
            Span::Machine => "machine",
            Span::Cluster => "cluster",
        }
    }

    /// Parses `machine` or `cluster` (ASCII case-insensitive); `None` for anything else.
    pub fn parse(s: &str) -> Option<Span> {
        if s.eq_ignore_ascii_case("machine") {
            Some(Span::Machine)
        } else if s.eq_ignore_ascii_case("cluster") {
            Some(Span::Cluster)
        } else {
            None
        }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a gang task (`gpus = g > 1`) runs on its GPU set `S`.
///
/// The cluster model (worl-cluster's `Problem`) takes its run time as
/// `max_{k in S} exec(v, k) / (g · efficiency) + sync_steps · AR(v, S)` with the ring
/// all-reduce time `AR = 2 (g − 1) / g · sync_bytes / B_min(S) + 2 (g − 1) · L_max(S)`
/// (Patarasuk & Yuan, J. Parallel Distrib. Comput. 69(2), 2009).
///
/// Missing fields of a serialized value take their defaults.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GangParams {
    /// Where the GPUs may be (default [`Span::Machine`]).
    pub span: Span,
    /// Parallel efficiency of the compute part on `g` GPUs, in `(0, 1]`; default 1.0 (perfect
    /// scaling: `g` GPUs run the compute part `g` times as fast as one).
    pub efficiency: f64,
    /// Bytes all-reduced per synchronisation step (the model's gradient size), finite and
    /// `>= 0`; default 0.
    pub sync_bytes: f64,
    /// Number of synchronisation steps over the task's run, finite and `>= 0`; default 0.
    pub sync_steps: f64,
}

impl Default for GangParams {
    /// `{span: Machine, efficiency: 1.0, sync_bytes: 0.0, sync_steps: 0.0}`.
    fn default() -> Self {
        Self {
            span: Span::Machine,
            efficiency: 1.0,
            sync_bytes: 0.0,
            sync_steps: 0.0,
        }
    }
}

impl GangParams {
    /// Whether every field has its default value (what serializers skip).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Checks `gpus` and these parameters as
    /// [`WorkloadBuilder::set_gang`](crate::WorkloadBuilder::set_gang) does.
    ///
    /// Errors: a one-line reason (without the task's name) when `gpus` is 0 or more than
    /// [`MAX_GANG_GPUS`], `efficiency` is not in `(0, 1]` (NaN included), or `sync_bytes` /
    /// `sync_steps` is negative, NaN or infinite.
    pub fn check(&self, gpus: u32) -> std::result::Result<(), String> {
        if gpus == 0 {
            return Err("gpus = 0; a task needs at least 1 GPU".into());
        }
        if gpus > MAX_GANG_GPUS {
            return Err(format!(
                "gpus = {gpus} is more than {MAX_GANG_GPUS}, the most one task may demand"
            ));
        }
        let num = crate::error::num;
        if !(self.efficiency > 0.0 && self.efficiency <= 1.0) {
            return Err(format!(
                "efficiency {} is not in (0, 1]",
                num(self.efficiency)
            ));
        }
        for (name, v) in [
            ("sync_bytes", self.sync_bytes),
            ("sync_steps", self.sync_steps),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} {} is not a finite number >= 0", num(v)));
            }
        }
        Ok(())
    }
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
