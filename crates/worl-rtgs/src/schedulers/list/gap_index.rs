//! EFT queries and minimum-EFT processor selection with a per-GPU longest-gap index.

use super::fits_no_gpu;
use crate::error::Result;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Slot};
use worl_dag::TaskId;

/// EFT queries for list schedulers: [`PartialSchedule::slot`] with a shortcut for the
/// insertion-based policy, and the minimum-EFT processor selection.
///
/// The insertion policy walks a GPU's timeline looking for an idle gap long enough for the
/// task; on a busy GPU that walk is the cost of HEFT-like schedulers (`O(tasks on the GPU)`
/// per task and GPU). This index keeps, per GPU, the longest idle gap of its timeline (from
/// its ready time `r_k` on), updated after each placement on that GPU (one walk of that
/// timeline). When the longest gap is shorter than the task's execution time, no gap can
/// hold it, whatever its data-ready time, and the slot is the one after the last task,
/// computed in `O(|preds|)` ([`Policy::Append`] gives exactly that slot); otherwise the full
/// search runs. Results are identical to [`PartialSchedule::slot`]'s (a margin of
/// `1e-12 · (1 + latest finish)` s keeps rounding on the side of searching).
///
/// Use one index per [`PartialSchedule`] and place through [`commit`](Self::commit) (or call
/// [`refresh`](Self::refresh) after placing otherwise), so that the index follows the
/// timelines. `8·m` bytes; queries and updates allocate nothing.
#[derive(Clone, Debug)]
pub struct GapIndex {
    /// Per GPU: longest idle gap + rounding margin, s (`-inf` while the GPU has no task).
    threshold: Vec<f64>,
}

impl GapIndex {
    /// An index for an empty schedule of `problem`.
    pub fn new(problem: &Problem) -> Self {
        Self {
            threshold: vec![f64::NEG_INFINITY; problem.n_gpus()],
        }
    }

    /// The slot `task` would take on `gpu` under `policy`: exactly [`PartialSchedule::slot`].
    ///
    /// Errors: as [`PartialSchedule::slot`].
    #[inline]
    pub fn slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        gpu: GpuId,
        policy: Policy,
    ) -> Result<Slot> {
        let p = partial.problem();
        let policy = match policy {
            Policy::Insertion
                if gpu.index() < self.threshold.len()
                    && task.index() < p.n_tasks()
                    && self.threshold[gpu.index()] < p.exec_time(task, gpu) =>
            {
                Policy::Append // no gap is long enough: the slot is after the last task
            }
            other => other,
        };
        Ok(partial.slot(task, gpu, policy)?)
    }

    /// Commits `slot` to `partial` and updates the index for its GPU.
    ///
    /// Errors: as [`PartialSchedule::commit`].
    pub fn commit(&mut self, partial: &mut PartialSchedule<'_>, slot: Slot) -> Result<()> {
        partial.commit(slot)?;
        self.refresh(partial, slot.gpu());
        Ok(())
    }

    /// Recomputes the longest idle gap of `gpu` from `partial` (`O(tasks on gpu)`).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn refresh(&mut self, partial: &PartialSchedule<'_>, gpu: GpuId) {
        let mut latest = partial.problem().ready_time(gpu);
        let mut gap = f64::NEG_INFINITY;
        for t in partial.timeline(gpu) {
            let (start, finish) = (partial.start(t), partial.finish(t));
            let (start, finish) = (start.unwrap_or(latest), finish.unwrap_or(latest));
            gap = gap.max(start - latest);
            latest = latest.max(finish);
        }
        self.threshold[gpu.index()] = gap + 1e-12 * (1.0 + latest.abs());
    }

    /// The slot of `task` minimising `slot.finish() + extra(gpu)` over the GPUs that fit
    /// it, under `policy`; ties go to the smaller GPU id. With `extra = 0` this is HEFT's
    /// processor selection (minimum EFT, Topcuoglu et al. 2002, §4.1); with PEFT's
    /// optimistic cost it is O_EFT (Arabnejad and Barbosa 2014, §3).
    ///
    /// `O(m · |preds(task)|)` plus the gap searches the index cannot rule out; allocates
    /// nothing.
    ///
    /// Errors: [`ClusterError::NotTopological`](worl_cluster::ClusterError::NotTopological) if a predecessor is not placed,
    /// [`ClusterError::DuplicateTask`](worl_cluster::ClusterError::DuplicateTask) if `task` is; [`ClusterError::TaskFitsNoGpu`](worl_cluster::ClusterError::TaskFitsNoGpu) if no
    /// GPU fits it (impossible for a [`Problem`], which rejects such tasks).
    #[inline]
    pub fn best_slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        policy: Policy,
        mut extra: impl FnMut(GpuId) -> f64,
    ) -> Result<Slot> {
        let p = partial.problem();
        let mut best: Option<(Slot, f64)> = None;
        for k in 0..p.n_gpus() {
            let gpu = GpuId::new(k);
            if !p.fits(task, gpu) {
                continue;
            }
            let slot = self.slot(partial, task, gpu, policy)?;
            let key = slot.finish() + extra(gpu);
            if best.is_none_or(|(_, b)| key < b) {
                best = Some((slot, key));
            }
        }
        match best {
            Some((slot, _)) => Ok(slot),
            None => Err(fits_no_gpu(p, task)),
        }
    }
}
