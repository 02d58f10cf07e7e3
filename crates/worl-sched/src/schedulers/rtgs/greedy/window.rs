//! The window of the greedy decoder: the candidate GPUs of the task being decoded and the
//! buffers that compute their data-ready and finish times.

use worl_cluster::{GpuId, PartialSchedule, Problem};
use worl_dag::TaskId;

/// `max(a, b)` for the finite times of the window (`f64::max`'s NaN handling costs a
/// measurable share of a decoding).
#[inline]
pub(super) fn larger(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// A GPU in the window of the task being decoded.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    /// Lower bound of its EFT, s.
    pub(super) bound: f64,
    /// When it is free for appending (append) or ready (insertion), s.
    pub(super) free: f64,
    /// Its running-time gap, s.
    pub(super) gap: f64,
    pub(super) gpu: u32,
    pub(super) class: u32,
    /// The task's execution time on it, s.
    pub(super) exec: f64,
}

/// The window's buffers for the task being decoded: the classes it fits (class, execution
/// time, search hint), its candidates, its predecessors (finish, GPU, bytes), and per
/// machine the data-ready time on its GPUs that host no predecessor (communication costs
/// depend on the two GPUs' machines only when the GPUs differ), computed once per task.
/// Cache entries are valid when their stamp is the current one.
#[derive(Clone, Debug)]
pub(crate) struct WindowScratch {
    /// (gap, gpu, class, exec) of the GPU nearest the hope of the current task.
    pub(super) nearest: (f64, usize, usize, f64),
    /// The latest predecessor finish of the current task (with a window), s.
    pub(crate) latest: f64,
    pub(super) classes: Vec<(u32, f64, usize)>,
    /// Per GPU: when it is free for appending (append), or its ready time (insertion).
    pub(super) free: Vec<f64>,
    pub(super) preds: Vec<(f64, GpuId, f64)>,
    pub(super) candidates: Vec<Candidate>,
    /// Per GPU: the stamp of the last task with a predecessor on it.
    pub(super) host: Vec<u32>,
    /// Per machine: (stamp, data-ready time on its non-host GPUs).
    pub(super) machine: Vec<(u32, f64)>,
    pub(super) stamp: u32,
    /// With gang tasks: every GPU's current key (a mirror of the class index's).
    pub(super) keys: Vec<f64>,
    /// With gang tasks: window candidates per class of the current gang task.
    pub(super) class_count: Vec<u32>,
}

impl WindowScratch {
    /// Starts task `task` (every predecessor placed in `partial`); returns the latest
    /// predecessor finish, a lower bound of its data-ready time on any GPU (0 without
    /// predecessors).
    ///
    /// # Panics
    /// If a predecessor is not placed.
    pub(super) fn start(
        &mut self,
        p: &Problem,
        task: TaskId,
        partial: &PartialSchedule<'_>,
    ) -> f64 {
        if self.stamp == u32::MAX {
            self.host.fill(0);
            self.machine.fill((0, 0.0));
            self.stamp = 0;
        }
        self.stamp += 1;
        self.preds.clear();
        let mut latest = 0.0f64;
        for nb in p.graph().preds(task) {
            let (Some(f), Some(g)) = (partial.finish(nb.task), partial.gpu_of(nb.task)) else {
                panic!("predecessors are placed before their successors");
            };
            latest = larger(latest, f);
            self.host[g.index()] = self.stamp;
            self.preds.push((f, g, nb.bytes));
        }
        latest
    }

    /// The data-ready time of the current task on `gpu` (in machine `machine`): exactly
    /// `PartialSchedule::data_ready_time`.
    #[inline]
    pub(super) fn data_ready_time(&mut self, p: &Problem, gpu: GpuId, machine: usize) -> f64 {
        let direct = |preds: &[(f64, GpuId, f64)]| {
            preds.iter().fold(0.0f64, |d, &(f, u, bytes)| {
                larger(d, f + p.comm_time(bytes, u, gpu))
            })
        };
        if self.host[gpu.index()] == self.stamp {
            return direct(&self.preds);
        }
        let (stamp, value) = self.machine[machine];
        if stamp == self.stamp {
            return value;
        }
        let value = direct(&self.preds);
        self.machine[machine] = (self.stamp, value);
        value
    }
}
