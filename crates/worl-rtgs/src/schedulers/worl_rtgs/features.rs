//! The state and action features of the WORL-RTGS agent: a fixed number of numbers per
//! decision and per candidate GPU, none of which grows with the number of GPUs.

use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;

use crate::schedulers::list::upward_ranks;
use crate::schedulers::rtgs::ScoredCandidate;

/// Length of the state vector of one decision (one task of one plan):
/// `[progress, rank, a, candidates]`.
pub const STATE_DIM: usize = 4;

/// Length of the feature vector of one candidate GPU:
/// `[ΔEFT, gap, exec, idle, wait, target, whale, EFT rank]`, see
/// the module docs of [`worl_rtgs`](super).
pub const ACTION_DIM: usize = 8;

/// Per-task constants of the features: the task's mean execution time `w̄_v` (the unit of
/// every time feature, so features are comparable across tasks, GPU models and workloads)
/// and its upward rank relative to the largest.
#[derive(Clone, Debug)]
pub(crate) struct TaskFeatures {
    unit: Vec<f64>,
    rank: Vec<f32>,
}

/// `sign(x)·ln(1 + |x|)`: keeps features of very different scales (a gap of 0.1 or of 1,000
/// mean execution times) in a range a small network handles.
#[inline]
fn squash(x: f64) -> f32 {
    let y = x.abs().ln_1p();
    (if x < 0.0 { -y } else { y }) as f32
}

impl TaskFeatures {
    /// The per-task constants of `problem` (`O(n + e)` plus the upward ranks).
    pub(crate) fn new(problem: &Problem) -> Self {
        let ranks = upward_ranks(problem);
        let max = ranks.iter().copied().fold(0.0f64, f64::max);
        let unit = problem
            .graph()
            .task_ids()
            .map(|v| {
                let w = problem.mean_exec_time(v);
                if w > 0.0 { w } else { 1.0 }
            })
            .collect();
        let rank = ranks
            .iter()
            .map(|&r| if max > 0.0 { (r / max) as f32 } else { 0.0 })
            .collect();
        TaskFeatures { unit, rank }
    }

    /// The state of the decision for `task` at position `pos` of `n` in the placement order,
    /// with WOA coefficient `a` (2 → 0 over the run) and `k` candidates of at most `max_k`
    /// (`counts = (pos, n, k, max_k)`): `[pos/n, rank_u(v)/max rank_u, a/2, k/max_k]`, into
    /// `out` (`STATE_DIM`).
    pub(crate) fn state(&self, task: TaskId, counts: [usize; 4], a: f64, out: &mut [f32]) {
        let [pos, n, k, max_k] = counts;
        out[0] = pos as f32 / n.max(1) as f32;
        out[1] = self.rank[task.index()];
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
        let u = self.unit[task.index()];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squash_is_odd_monotone_and_compresses() {
        assert_eq!(squash(0.0), 0.0);
        assert!((squash(std::f64::consts::E - 1.0) - 1.0).abs() < 1e-6);
        assert_eq!(squash(-3.0), -squash(3.0));
        assert!(squash(1000.0) < 7.0 && squash(1000.0) > squash(999.0));
    }
}
