//! Plain **WOA** scheduling baseline (S. Mirjalili & A. Lewis, *The Whale Optimization
//! Algorithm*, Advances in Engineering Software 95:51–67, 2016): canonical continuous WOA
//! over one coordinate per task, decoded to a plan by flooring. The naive baseline RTGS
//! improves on.
//!
//! Also home of [`PositionCodec`], the one "continuous position → plan → makespan" path
//! shared by the WOA, [PSO](super::pso) and [GA](super::ga) baselines.

use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use worl_cluster::{GpuId, Policy, Problem, Schedule};
use worl_dag::TaskId;
use worl_woa::{ASchedule, Move, MoveKind, Target, WhaleProblem, WhaleRng, WoaConfig};

use super::list::take_policy;
use super::rtgs::options::{take_a_schedule, take_count};
use super::rtgs::{FeasibleGpus, PlanEvaluator, run_engine};
use crate::error::Result;
use crate::registry::{Options, Registry};
use crate::scheduler::{RunContext, Scheduler};

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

/// Canonical continuous WOA on a [`PositionCodec`] space, as a [`WhaleProblem`]: uniform
/// random initial positions, the canonical coordinate updates
/// ([`Move::apply_component`]), clamping into `[0, m]`, fitness = makespan of the decoded
/// plan.
pub struct PositionProblem<'p> {
    codec: PositionCodec<'p>,
}

impl<'p> PositionProblem<'p> {
    /// The WOA problem over `codec`'s space.
    pub fn new(codec: PositionCodec<'p>) -> Self {
        PositionProblem { codec }
    }

    /// The codec.
    pub fn codec(&self) -> &PositionCodec<'p> {
        &self.codec
    }
}

impl<'p> WhaleProblem for PositionProblem<'p> {
    type Whale = Vec<f64>;
    type Scratch = PositionScratch<'p>;

    fn scratch(&self) -> PositionScratch<'p> {
        self.codec.scratch()
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut PositionScratch<'p>) -> Vec<f64> {
        let mut x = Vec::with_capacity(self.codec.dim());
        self.codec.random_position(rng, &mut x);
        x
    }

    fn fitness(&self, x: &Vec<f64>, scratch: &mut PositionScratch<'p>) -> f64 {
        self.codec.makespan(x, scratch)
    }

    fn moved(
        &self,
        x: &Vec<f64>,
        target: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut PositionScratch<'p>,
    ) -> Vec<f64> {
        let mut out = Vec::with_capacity(x.len());
        self.move_into(x, target, mv, rng, scratch, &mut out);
        out
    }

    fn move_into(
        &self,
        x: &Vec<f64>,
        target: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        _: &mut PositionScratch<'p>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        if mv.kind() == MoveKind::Search {
            for (j, &xj) in x.iter().enumerate() {
                out.push(mv.apply_component(xj, target.component_whale(rng)[j]));
            }
        } else {
            let t = target.whale();
            out.extend(x.iter().zip(t).map(|(&xj, &tj)| mv.apply_component(xj, tj)));
        }
        self.codec.clamp(out);
    }

    fn check_initial_whale(
        &self,
        index: usize,
        x: &Vec<f64>,
    ) -> std::result::Result<(), worl_woa::WoaError> {
        if x.len() != self.codec.dim() {
            return Err(worl_woa::WoaError::DimensionMismatch {
                index,
                expected: self.codec.dim(),
                found: x.len(),
            });
        }
        Ok(())
    }
}

/// Configuration of the plain [`PlainWoa`] baseline.
///
/// Defaults: 30 whales, 100 iterations (as [`RtgsConfig`](super::rtgs::RtgsConfig)), the
/// canonical WOA ([`WoaConfig::new`]: canonical move rule and replacement, a random whale
/// per coordinate in search moves, `b = 1`, linear `a`), append policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlainWoaConfig {
    /// Population size (option `whales`, at least 1).
    pub whales: usize,
    /// Iterations (option `iterations`, at least 1).
    pub iterations: usize,
    /// Spiral shape constant `b` (option `b`).
    pub spiral_b: f64,
    /// `a` schedule (option `a-schedule`).
    pub a_schedule: ASchedule,
    /// Placement policy (option `policy`).
    pub policy: Policy,
    /// Parallel evaluation (option `parallel`).
    pub parallel: bool,
}

impl Default for PlainWoaConfig {
    fn default() -> Self {
        PlainWoaConfig {
            whales: 30,
            iterations: 100,
            spiral_b: 1.0,
            a_schedule: ASchedule::Linear,
            policy: Policy::Append,
            parallel: false,
        }
    }
}

impl PlainWoaConfig {
    /// Reads `whales`, `iterations`, `b`, `a-schedule`, `policy`, `parallel`.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = PlainWoaConfig::default();
        let config = PlainWoaConfig {
            whales: take_count(&mut opts, "whales", d.whales, 1)?,
            iterations: take_count(&mut opts, "iterations", d.iterations, 1)?,
            spiral_b: {
                let b: f64 = opts.take_or("b", d.spiral_b)?;
                if !b.is_finite() {
                    return Err(opts.invalid("b", b, "must be finite"));
                }
                b
            },
            a_schedule: take_a_schedule(&mut opts, "a-schedule", d.a_schedule)?,
            policy: take_policy(&mut opts, d.policy)?,
            parallel: opts.take_or("parallel", d.parallel)?,
        };
        opts.finish()?;
        Ok(config)
    }
}

/// The plain WOA scheduler (registered as `woa`).
#[derive(Clone, Debug, Default)]
pub struct PlainWoa {
    config: PlainWoaConfig,
}

impl PlainWoa {
    /// Plain WOA with `config`.
    pub fn new(config: PlainWoaConfig) -> Self {
        PlainWoa { config }
    }

    /// From registry options (see [`PlainWoaConfig::from_options`]).
    ///
    /// Errors: as [`PlainWoaConfig::from_options`].
    pub fn from_options(opts: Options) -> Result<Self> {
        Ok(PlainWoa::new(PlainWoaConfig::from_options(opts)?))
    }

    /// The configuration.
    pub fn config(&self) -> &PlainWoaConfig {
        &self.config
    }
}

impl Scheduler for PlainWoa {
    fn name(&self) -> &str {
        "WOA"
    }

    /// Errors: [`ScheduleError::Woa`](crate::ScheduleError::Woa) if the evaluation budget is
    /// below the population size.
    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let c = &self.config;
        let space = PositionProblem::new(PositionCodec::new(problem, c.policy));
        let mut woa = WoaConfig::new(c.whales, c.iterations)
            .with_seed(ctx.seed())
            .with_spiral_b(c.spiral_b)
            .with_a_schedule(c.a_schedule)
            .with_parallel(c.parallel);
        woa.max_evaluations = ctx.budget().max_evaluations;
        let result = run_engine(&space, woa, Vec::new(), ctx)?;
        space.codec().schedule(&result.best)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

/// Registers `woa`.
pub(crate) fn register(registry: &mut Registry) {
    registry.register(
        "woa",
        "plain WOA (Mirjalili & Lewis 2016): continuous positions floored to GPUs",
        |opts| Ok(Box::new(PlainWoa::from_options(opts)?)),
    );
}
