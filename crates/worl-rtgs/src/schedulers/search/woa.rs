//! Plain **WOA** scheduling baseline (S. Mirjalili & A. Lewis, *The Whale Optimization
//! Algorithm*, Advances in Engineering Software 95:51–67, 2016): canonical continuous WOA
//! over one coordinate per task, decoded to a plan by flooring. The naive baseline RTGS
//! improves on. Positions are decoded by the [`PositionCodec`] shared with PSO and GA.

use serde::{Deserialize, Serialize};
use worl_cluster::{Policy, Problem, Schedule};
use worl_woa::{ASchedule, Move, MoveKind, Target, WhaleProblem, WhaleRng, WoaConfig};

use super::codec::{PositionCodec, PositionScratch};
use super::options::take_count;
use super::run_engine;
use crate::error::Result;
use crate::registry::Options;
use crate::scheduler::{RunContext, Scheduler};

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
/// Defaults: 30 whales, 100 iterations (as [`RtgsConfig`](crate::schedulers::rtgs::RtgsConfig)), the
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
            a_schedule: opts.take_or("a-schedule", d.a_schedule)?,
            policy: opts.take_or("policy", d.policy)?,
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

config_scheduler!(PlainWoa, PlainWoaConfig, "woa", "Plain WOA");

impl Scheduler for PlainWoa {
    fn name(&self) -> &str {
        "WOA"
    }

    /// Errors: [`ScheduleError::BudgetBelowPopulation`](crate::ScheduleError::BudgetBelowPopulation)
    /// if the evaluation budget is below the population size.
    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.whales)?;
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
