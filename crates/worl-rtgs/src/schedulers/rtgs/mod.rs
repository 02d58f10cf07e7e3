//! **RTGS**, the Running Time Gap Strategy (N. Du, Y. Ji, C. Wu, A. Hou, W. Nie, *Scheduling
//! DAG-structured workloads based on whale optimization algorithm*, J. Supercomputing
//! 81:911, 2025), as implemented in the authors' `WORLRTGS.java` (PAPER.md §1.2, §2.4,
//! §3.2): a whale optimisation algorithm whose whales are scheduling plans.
//!
//! * **Whale** ([`RtgsWhale`]): a GPU per task; tasks are placed in the graph's topological
//!   order. Its **position** is the running-time vector `RT_v` = total busy time of the GPU
//!   hosting task `v` (plus the GPU's ready time, see [`running_times`]).
//! * **Move**: the WOA engine ([`worl_woa`], configured as the authors' code:
//!   [`WoaConfig::authors_rtgs`], explore-first move rule and elitist truncation) draws the
//!   move; the hope of each task is `hope_v = RT_v(T) + s_v·F·(RT_v(T) − RT_v(X))` with a
//!   random sign `s_v = ±1` (standing in for `C`) and `F` = `A` or `e^{bl}cos(2πl)`
//!   ([`Move::step_factor`](worl_woa::Move::step_factor)).
//! * **Plan generation** ([`PlanDecoder`]): RTGS's [`GreedyDecoder`] gives each task, in
//!   order, the GPU whose running time after taking it is nearest its hope. By default the
//!   GPU's running time includes what the target plan still puts on it ([`Lookahead`]):
//!   the authors' code compares a partial running time with the (final) hope, which piles
//!   the first tasks onto one GPU; `lookahead=none` reproduces it exactly.
//! * **Fitness**: the makespan of the plan ([`PlanEvaluator`]: append policy by default,
//!   insertion as an option).
//!
//! **What to expect.** On layered DAGs on a 16-GPU PAI mix, RTGS beats random plans and the
//! look-ahead beats the authors' decoder, but plain WOA ([`PlainWoa`](super::PlainWoa))
//! reaches makespans 2–3× lower and is not less stable (`tests/rtgs_stability.rs`): the
//! running-time vector does not say which GPU a task is on, and on heterogeneous GPUs that
//! matters most. The papers' claims (RTGS better and more stable than WOA) are not
//! reproduced in this model.
//!
//! ## The split, for WORL-RTGS
//! [`RtgsProblem`] is generic over the decoder: it owns the representation, the running-time
//! vectors, the hope computation, the fitness and the engine hooks; a [`PlanDecoder`] only
//! maps a hope vector to a plan. WORL-RTGS is [`run_rtgs`] with a Double DQN decoder in
//! place of [`GreedyDecoder`] (see [`PlanDecoder`] for a decoder that simulates placement
//! with a [`PartialSchedule`](worl_cluster::PartialSchedule) as it goes, and the hooks a
//! learning decoder uses).
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Problem};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_rtgs::schedulers::rtgs::{Rtgs, RtgsConfig};
//! use worl_rtgs::{RunContext, Scheduler};
//!
//! let workload = Arc::new(layered(&LayeredParams::new(100), 1)?);
//! let problem = Problem::new(workload, Arc::new(presets::pai_mix(8, 1)?))?;
//! let mut rtgs = Rtgs::new(RtgsConfig { whales: 10, iterations: 20, ..RtgsConfig::default() });
//! let schedule = rtgs.schedule(&problem, &mut RunContext::new(42))?;
//! assert!(schedule.validate(&problem).is_empty());
//! assert!(schedule.makespan() >= problem.lower_bound().value);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod class_index;
mod decoder;
mod greedy;
pub(crate) mod options;
mod plan;
mod treap;
mod whale;

pub use decoder::{DecodeInput, PlanDecoder};
pub use greedy::{GreedyDecoder, GreedyScratch, Lookahead};
pub use plan::{FeasibleGpus, PlanEvaluator, running_times};
pub use whale::{RtgsProblem, RtgsScratch, RtgsWhale};

use serde::{Deserialize, Serialize};
use worl_cluster::{Policy, Problem, Schedule};
use worl_woa::{ASchedule, WhaleProblem, Woa, WoaConfig, WoaResult};

use crate::error::Result;
use crate::registry::{Options, Registry};
use crate::scheduler::{Progress, RunContext, Scheduler};
use crate::schedulers::heft::Heft;
use crate::schedulers::list::take_policy;
use options::{take_a_schedule, take_count};

/// Configuration of [`Rtgs`] (and of [`run_rtgs`] with any decoder).
///
/// Defaults: 30 whales, 100 iterations (the authors' demo uses 10 × 50; their experiment
/// values are unknown, PAPER.md §3.2), `b = 1` (hard-coded in the authors' code), linear
/// `a`, target look-ahead in the greedy decoder (a deviation from the authors' code, see
/// [`GreedyDecoder`]; `lookahead=none` restores it), append policy, no HEFT seed,
/// sequential evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RtgsConfig {
    /// Population size (option `whales`, at least 1).
    pub whales: usize,
    /// WOA iterations after the initial population (option `iterations`, at least 1).
    pub iterations: usize,
    /// Spiral shape constant `b` (option `b`, finite).
    pub spiral_b: f64,
    /// How `a` falls from 2 to 0 (option `a-schedule`: `linear`, `quadratic`, `cosine`,
    /// `exponential:RATE`).
    pub a_schedule: ASchedule,
    /// What the greedy decoder adds to a GPU's running time before comparing it with a hope
    /// (option `lookahead`: `target`, our default, or `none`, the authors' code); see
    /// [`GreedyDecoder`]. Ignored by [`run_rtgs`] with another decoder.
    pub lookahead: Lookahead,
    /// Placement policy of the fitness and of the returned schedule (option `policy`:
    /// `append` or `insertion`).
    pub policy: Policy,
    /// Put HEFT's plan into the initial population (option `seed-with-heft`, default
    /// `false`: the authors start from random plans). HEFT's GPU choices are kept; the
    /// tasks are placed in topological order under [`policy`](Self::policy), so the seeded
    /// whale's makespan can differ from HEFT's own schedule.
    pub seed_with_heft: bool,
    /// Evaluate whales on the rayon thread pool (option `parallel`); same result as
    /// sequential for the same seed.
    pub parallel: bool,
}

impl Default for RtgsConfig {
    fn default() -> Self {
        RtgsConfig {
            whales: 30,
            iterations: 100,
            spiral_b: 1.0,
            a_schedule: ASchedule::Linear,
            lookahead: Lookahead::Target,
            policy: Policy::Append,
            seed_with_heft: false,
            parallel: false,
        }
    }
}

impl RtgsConfig {
    /// Reads the options `whales`, `iterations`, `b`, `a-schedule`, `lookahead`, `policy`,
    /// `seed-with-heft`, `parallel` (absent ones keep their default) and rejects any other.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = RtgsConfig::default();
        let config = RtgsConfig {
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
            lookahead: match opts.take::<String>("lookahead")? {
                None => d.lookahead,
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "target" => Lookahead::Target,
                    "none" => Lookahead::None,
                    _ => return Err(opts.invalid("lookahead", v, "expected `target` or `none`")),
                },
            },
            policy: take_policy(&mut opts, d.policy)?,
            seed_with_heft: opts.take_or("seed-with-heft", d.seed_with_heft)?,
            parallel: opts.take_or("parallel", d.parallel)?,
        };
        opts.finish()?;
        Ok(config)
    }

    /// The WOA configuration of a run seeded with `seed` under an evaluation budget:
    /// [`WoaConfig::authors_rtgs`] with this configuration's fields.
    pub fn woa_config(&self, seed: u64, max_evaluations: Option<u64>) -> WoaConfig {
        let mut c = WoaConfig::authors_rtgs(self.whales, self.iterations)
            .with_seed(seed)
            .with_spiral_b(self.spiral_b)
            .with_a_schedule(self.a_schedule)
            .with_parallel(self.parallel);
        c.max_evaluations = max_evaluations;
        c
    }
}

/// The outcome of [`run_rtgs`]: the schedule of the best plan and the WOA run (leader,
/// history for convergence curves, final population).
#[derive(Clone, Debug)]
pub struct RtgsOutcome {
    /// The schedule of the leader under the configured policy.
    pub schedule: Schedule,
    /// The WOA run.
    pub result: WoaResult<RtgsWhale>,
}

/// Runs RTGS on `problem` with any plan decoder: the greedy one ([`Rtgs`]) or a learned one
/// (WORL-RTGS). Seeded by [`RunContext::seed`]; honours the context's evaluation and
/// wall-time budgets; reports [`Progress`] after the initial population (step 0) and after
/// every iteration.
///
/// Errors: [`ScheduleError::Woa`](crate::ScheduleError::Woa) for a configuration the engine
/// rejects (e.g. an evaluation budget below the population size); the evaluator's errors
/// for the final schedule (none for plans this search builds).
pub fn run_rtgs<D: PlanDecoder>(
    problem: &Problem,
    decoder: D,
    config: &RtgsConfig,
    ctx: &mut RunContext<'_>,
) -> Result<RtgsOutcome> {
    let rtgs = RtgsProblem::new(problem, decoder, config.policy);
    let mut initial = Vec::new();
    if config.seed_with_heft {
        initial.push(heft_whale(problem, ctx)?);
    }
    let woa = config.woa_config(ctx.seed(), ctx.budget().max_evaluations);
    let result = run_engine(&rtgs, woa, initial, ctx)?;
    let schedule = PlanEvaluator::new(problem, config.policy).schedule(result.best.gpus())?;
    Ok(RtgsOutcome { schedule, result })
}

/// The whale of HEFT's plan (Topcuoglu et al. 2002, insertion policy): its GPU choices.
fn heft_whale(problem: &Problem, ctx: &RunContext<'_>) -> Result<RtgsWhale> {
    let schedule = Heft::new().schedule(problem, &mut RunContext::new(ctx.seed()))?;
    Ok(RtgsWhale::from_assignment(
        problem,
        schedule.to_plan(problem).gpu,
    ))
}

/// Runs the WOA engine on a plan problem, reporting [`Progress`] to `ctx` after every
/// iteration (step 0 = the initial population) and stopping when `ctx` asks to (observer
/// break or wall-time budget).
pub(crate) fn run_engine<P: WhaleProblem>(
    problem: &P,
    config: WoaConfig,
    initial: Vec<P::Whale>,
    ctx: &mut RunContext<'_>,
) -> Result<WoaResult<P::Whale>> {
    let total = config.horizon() as u64;
    let result = Woa::new(problem, config)
        .with_initial_whales(initial)
        .run_with(|stats, _| {
            ctx.report(Progress {
                step: stats.iteration as u64,
                total_steps: total,
                evaluations: stats.evaluations,
                best_makespan: stats.best_fitness,
            })
        })?;
    Ok(result)
}

/// The RTGS scheduler: [`run_rtgs`] with the [`GreedyDecoder`].
///
/// Registered as `rtgs`; options: see [`RtgsConfig::from_options`], e.g.
/// `rtgs:whales=30,iterations=100,b=1,a-schedule=linear,lookahead=target,policy=append,seed-with-heft=false,parallel=true`.
#[derive(Clone, Debug, Default)]
pub struct Rtgs {
    config: RtgsConfig,
}

impl Rtgs {
    /// RTGS with `config`.
    pub fn new(config: RtgsConfig) -> Self {
        Rtgs { config }
    }

    /// RTGS from registry options (see [`RtgsConfig::from_options`]).
    ///
    /// Errors: as [`RtgsConfig::from_options`].
    pub fn from_options(opts: Options) -> Result<Self> {
        Ok(Rtgs::new(RtgsConfig::from_options(opts)?))
    }

    /// The configuration.
    pub fn config(&self) -> &RtgsConfig {
        &self.config
    }
}

impl Scheduler for Rtgs {
    fn name(&self) -> &str {
        "RTGS"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        let decoder = GreedyDecoder::new(problem, self.config.lookahead);
        Ok(run_rtgs(problem, decoder, &self.config, ctx)?.schedule)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

/// Registers `rtgs`.
pub(crate) fn register(registry: &mut Registry) {
    registry.register(
        "rtgs",
        "RTGS (Du et al. 2025): WOA over running-time vectors with greedy running-time-gap decoding",
        |opts| Ok(Box::new(Rtgs::from_options(opts)?)),
    );
}
