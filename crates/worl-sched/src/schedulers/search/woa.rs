//! Plain **WOA** scheduling baseline (S. Mirjalili & A. Lewis, *The Whale Optimization
//! Algorithm*, Advances in Engineering Software 95:51–67, 2016): canonical continuous WOA
//! over a [`SearchSpace`] shared with PSO and GA. By default positions are random keys
//! decoded by a list scheduler ([`ListDecoder`](super::ListDecoder)) and one whale starts at
//! HEFT's position, so the result is never worse than HEFT; `decoder=position` keeps the
//! original baseline (one coordinate per task floored to a GPU, [`PositionCodec`](super::PositionCodec)).

use serde::{Deserialize, Serialize};
use worl_cluster::{Problem, Schedule};
use worl_woa::{ASchedule, Move, MoveKind, Target, WhaleProblem, WhaleRng, WoaConfig};

use super::codec::{SearchDecoderConfig, SearchSpace, SpaceScratch};
use super::list_decoder::ListDecoderConfig;
use super::options::{MAX_ITERATIONS, MAX_POPULATION, take_count};
use super::run_engine;
use crate::error::Result;
use crate::options::{OptionDoc, Options, PARALLEL};
use crate::scheduler::{RunContext, Scheduler};

/// Canonical continuous WOA on a [`SearchSpace`], as a [`WhaleProblem`]: uniform random
/// initial positions, the canonical coordinate updates ([`Move::apply_component`]),
/// clamping into the space's box, fitness = makespan of the decoded schedule.
pub struct PositionProblem<'p> {
    space: SearchSpace<'p>,
}

impl<'p> PositionProblem<'p> {
    /// The WOA problem over `space`.
    pub fn new(space: SearchSpace<'p>) -> Self {
        PositionProblem { space }
    }

    /// The search space.
    pub fn space(&self) -> &SearchSpace<'p> {
        &self.space
    }
}

impl<'p> WhaleProblem for PositionProblem<'p> {
    type Whale = Vec<f64>;
    type Scratch = SpaceScratch<'p>;

    fn scratch(&self) -> SpaceScratch<'p> {
        self.space.scratch()
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut SpaceScratch<'p>) -> Vec<f64> {
        let mut x = Vec::with_capacity(self.space.dim());
        self.space.random_position(rng, &mut x);
        x
    }

    fn fitness(&self, x: &Vec<f64>, scratch: &mut SpaceScratch<'p>) -> f64 {
        self.space.makespan(x, scratch)
    }

    fn moved(
        &self,
        x: &Vec<f64>,
        target: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut SpaceScratch<'p>,
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
        _: &mut SpaceScratch<'p>,
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
        self.space.clamp(out);
    }

    fn check_initial_whale(
        &self,
        index: usize,
        x: &Vec<f64>,
    ) -> std::result::Result<(), worl_woa::WoaError> {
        if x.len() != self.space.dim() {
            return Err(worl_woa::WoaError::DimensionMismatch {
                index,
                expected: self.space.dim(),
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
/// per coordinate in search moves, `b = 1`, linear `a`), the default [`SearchDecoderConfig`]
/// (list decoder, insertion, HEFT seed).
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
    /// Decoder, placement policy and HEFT seed (options `decoder`, `policy`, `heft-seed`,
    /// `priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    pub decoding: SearchDecoderConfig,
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
            decoding: SearchDecoderConfig::default(),
            parallel: false,
        }
    }
}

impl PlainWoaConfig {
    /// The whale options, shared with RTGS and WORL-RTGS.
    pub const WHALE_OPTIONS: [OptionDoc; 4] = [
        OptionDoc::new("whales", "1..=10000", "30", "population size"),
        OptionDoc::new(
            "iterations",
            "1..=1000000",
            "100",
            "iterations (a time budget overrides them)",
        ),
        OptionDoc::new("b", "finite", "1", "spiral constant of the bubble-net move"),
        OptionDoc::new(
            "a-schedule",
            "linear|quadratic|cosine|exponential:RATE",
            "linear",
            "how `a` falls from 2 to 0 over the run",
        ),
    ];

    /// Every option [`from_options`](Self::from_options) reads.
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::WHALE_OPTIONS,
        &SearchDecoderConfig::OPTIONS,
        &ListDecoderConfig::OPTIONS,
        &PARALLEL,
    ];

    /// Reads `whales`, `iterations`, `b`, `a-schedule`, `parallel` and the decoding options
    /// ([`SearchDecoderConfig`]: `decoder`, `policy`, `heft-seed`, `priority`, `sigma`,
    /// `gpu-threshold`, `gpu-choices`).
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = PlainWoaConfig::default();
        let config = PlainWoaConfig {
            whales: take_count(&mut opts, "whales", d.whales, 1, MAX_POPULATION)?,
            iterations: take_count(&mut opts, "iterations", d.iterations, 1, MAX_ITERATIONS)?,
            spiral_b: {
                let b: f64 = opts.take_or("b", d.spiral_b)?;
                if !b.is_finite() {
                    return Err(opts.invalid("b", b, "must be finite"));
                }
                b
            },
            a_schedule: opts.take_or("a-schedule", d.a_schedule)?,
            decoding: SearchDecoderConfig::take(&mut opts)?,
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

config_scheduler!(
    PlainWoa,
    PlainWoaConfig,
    "woa",
    "Plain WOA",
    Search,
    "whales=4,iterations=3",
    "plain WOA (Mirjalili & Lewis 2016) over random keys decoded by a list scheduler (perturbed rank_u order, min-EFT GPU), one whale at HEFT's position"
);

impl Scheduler for PlainWoa {
    fn name(&self) -> &str {
        "WOA"
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    /// Errors: [`ScheduleError::BudgetBelowPopulation`](crate::ScheduleError::BudgetBelowPopulation)
    /// if the evaluation budget is below the population size.
    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.whales)?;
        let c = &self.config;
        let space = PositionProblem::new(c.decoding.space(problem));
        let seeds = c.decoding.seeds(space.space())?;
        let mut woa = WoaConfig::new(c.whales, c.iterations)
            .with_seed(ctx.seed())
            .with_spiral_b(c.spiral_b)
            .with_a_schedule(c.a_schedule)
            .with_parallel(c.parallel);
        woa.max_evaluations = ctx.budget().max_evaluations;
        let result = run_engine(&space, woa, seeds, ctx)?;
        space.space().schedule(&result.best)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}
