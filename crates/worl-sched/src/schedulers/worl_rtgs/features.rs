//! The state and action features of the WORL-RTGS agent: a fixed number of numbers per
//! decision and per candidate GPU, none of which grows with the number of GPUs.

use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;

use crate::schedulers::agents::{TaskScales, squash};
use crate::schedulers::rtgs::ScoredCandidate;

/// Length of the state vector of one decision (one task of one plan):
/// `[progress, rank, a, candidates]`.
pub const STATE_DIM: usize = 4;

/// Length of the feature vector of one candidate GPU:
/// `[ΔEFT, gap, exec, idle, wait, target, whale, EFT rank]`, see
/// the module docs of [`worl_sched`](super).
pub const ACTION_DIM: usize = 8;

/// Per-task constants of the features: the task's mean execution time `w̄_v` (the unit of
/// every time feature) and its upward rank relative to the largest ([`TaskScales`]).
#[derive(Clone, Debug)]
pub(crate) struct TaskFeatures {
    scales: TaskScales,
}

impl TaskFeatures {
    /// The per-task constants of `problem` (`O(n + e)` plus the upward ranks).
    pub(crate) fn new(problem: &Problem) -> Self {
        TaskFeatures {
            scales: TaskScales::new(problem),
        }
    }

    /// The state of the decision for `task` at position `pos` of `n` in the placement order,
    /// with WOA coefficient `a` (2 → 0 over the run) and `k` candidates of at most `max_k`
    /// (`counts = (pos, n, k, max_k)`): `[pos/n, rank_u(v)/max rank_u, a/2, k/max_k]`, into
    /// `out` (`STATE_DIM`).
    pub(crate) fn state(&self, task: TaskId, counts: [usize; 4], a: f64, out: &mut [f32]) {
        let [pos, n, k, max_k] = counts;
        out[0] = pos as f32 / n.max(1) as f32;
        out[1] = self.scales.rank_norm[task.index()];
        out[2] = (a / 2.0) as f32;
        out[3] = k as f32 / max_k.max(1) as f32;
    }

    /// The features of candidate `c` for `task` (`ACTION_DIM`, into `out`), times in units
    /// of the task's mean execution time and squashed:
    /// `[EFT − smallest EFT, running-time gap to the hope, execution time, idle time the
    /// placement leaves on the GPU (start − free), wait for data (data-ready − latest
    /// predecessor finish), is the target's GPU (0/1), is the moving whale's GPU (0/1),
    /// EFT rank among the candidates / k]`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn candidate(
        &self,
        task: TaskId,
        c: &ScoredCandidate,
        min_eft: f64,
        latest: f64,
        target: GpuId,
        whale: GpuId,
        eft_rank: usize,
        k: usize,
        out: &mut [f32],
    ) {
        let u = self.scales.unit[task.index()];
        let start = c.eft - c.exec;
        out[0] = squash((c.eft - min_eft) / u);
        out[1] = squash(c.gap / u);
        out[2] = squash(c.exec / u);
        out[3] = squash((start - c.free).max(0.0) / u);
        out[4] = squash((c.data_ready - latest).max(0.0) / u);
        out[5] = f32::from(u8::from(target.index() == c.gpu));
        out[6] = f32::from(u8::from(whale.index() == c.gpu));
        out[7] = eft_rank as f32 / k.max(1) as f32;
    }
}
