//! [`PositionCodec`]: the one "continuous position -> plan -> makespan" path shared by the
//! WOA, PSO and GA baselines.

use rand::Rng;
use rayon::prelude::*;
use worl_cluster::{GpuId, Policy, Problem, Schedule};
use worl_dag::TaskId;

use super::plan::{FeasibleGpus, PlanEvaluator};
use crate::error::Result;

/// The continuous search space of the position-based baselines and its decoding.
///
/// A position has one coordinate `x_v ∈ [0, m]` per task (`m` GPUs). Coordinate `x_v`
/// selects the GPU `F_v[⌊x_v · |F_v| / m⌋]` (the last one for `x_v = m`), `F_v` being the
/// GPUs task `v` fits in id order ([`FeasibleGpus`]). When `v` fits every GPU this is plain
/// flooring, `⌊x_v⌋`; otherwise the GPUs `v` does not fit are skipped and the range is
/// shared evenly among the others (flooring and then moving to the next fitting GPU would
/// give the GPU after a run of non-fitting ones that run's share). Tasks are placed in
/// topological order and the plan evaluated by [`PlanEvaluator`].
#[derive(Clone, Debug)]
pub struct PositionCodec<'p> {
    problem: &'p Problem,
    feasible: FeasibleGpus,
    policy: Policy,
}

impl<'p> PositionCodec<'p> {
    /// The codec of `problem`, evaluating under `policy`.
    pub fn new(problem: &'p Problem, policy: Policy) -> Self {
        PositionCodec {
            problem,
            feasible: FeasibleGpus::new(problem),
            policy,
        }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Dimension of a position: the number of tasks.
    pub fn dim(&self) -> usize {
        self.problem.n_tasks()
    }

    /// Upper bound `m` of every coordinate (the lower bound is 0).
    pub fn upper(&self) -> f64 {
        self.problem.n_gpus() as f64
    }

    /// The GPU coordinate `x` selects for `task` (NaN counts as 0).
    #[inline]
    pub fn gpu_at(&self, task: TaskId, x: f64) -> GpuId {
        let list = self.feasible.of(task);
        let k = (x.max(0.0) * list.len() as f64 / self.upper()) as usize;
        list[k.min(list.len() - 1)]
    }

    /// Decodes a position (one coordinate per task, by task index) into `out`.
    pub fn decode(&self, x: &[f64], out: &mut [GpuId]) {
        for (v, (g, &xv)) in out.iter_mut().zip(x).enumerate() {
            *g = self.gpu_at(TaskId::new(v), xv);
        }
    }

    /// A uniform random position in `[0, m)^n`.
    pub fn random_position(&self, rng: &mut impl Rng, out: &mut Vec<f64>) {
        let m = self.upper();
        out.clear();
        out.extend((0..self.dim()).map(|_| rng.random::<f64>() * m));
    }

    /// Clamps a position into `[0, m]` (NaN to 0).
    pub fn clamp(&self, x: &mut [f64]) {
        let m = self.upper();
        for v in x {
            *v = if v.is_nan() { 0.0 } else { v.clamp(0.0, m) };
        }
    }

    /// A scratch for [`makespan`](Self::makespan); one per thread.
    pub fn scratch(&self) -> PositionScratch<'p> {
        PositionScratch {
            evaluator: PlanEvaluator::new(self.problem, self.policy),
            gpu: vec![GpuId::new(0); self.dim()],
        }
    }

    /// The makespan of the plan position `x` decodes to, s.
    pub fn makespan(&self, x: &[f64], scratch: &mut PositionScratch<'p>) -> f64 {
        self.decode(x, &mut scratch.gpu);
        scratch.evaluator.makespan(&scratch.gpu)
    }

    /// The schedule of the plan position `x` decodes to.
    ///
    /// Errors: the evaluator's (none for a position of the right length).
    pub fn schedule(&self, x: &[f64]) -> Result<Schedule> {
        let mut gpu = vec![GpuId::new(0); self.dim()];
        self.decode(x, &mut gpu);
        PlanEvaluator::new(self.problem, self.policy).schedule(&gpu)
    }

    /// Runs `f(i, &mut items[i], scratch)` for every item: on the rayon pool with one scratch
    /// per work split when `parallel`, else in index order with `scratch`. `f` must depend on
    /// its arguments only (not on the scratch contents) for both to agree.
    pub fn for_each<T: Send>(
        &self,
        items: &mut [T],
        parallel: bool,
        scratch: &mut PositionScratch<'p>,
        f: impl Fn(usize, &mut T, &mut PositionScratch<'p>) + Sync,
    ) {
        if parallel {
            items
                .par_iter_mut()
                .enumerate()
                .for_each_init(|| self.scratch(), |s, (i, item)| f(i, item, s));
        } else {
            for (i, item) in items.iter_mut().enumerate() {
                f(i, item, scratch);
            }
        }
    }
}

/// Per-thread buffers of a [`PositionCodec`].
#[derive(Clone, Debug)]
pub struct PositionScratch<'p> {
    evaluator: PlanEvaluator<'p>,
    gpu: Vec<GpuId>,
}

/// NaN makespans rank as `+∞`.
pub(crate) fn sanitize(f: f64) -> f64 {
    if f.is_nan() { f64::INFINITY } else { f }
}
