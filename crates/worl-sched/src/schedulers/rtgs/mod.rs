//! **RTGS**, the Running Time Gap Strategy (N. Du, Y. Ji, C. Wu, A. Hou, W. Nie, *Scheduling
//! DAG-structured workloads based on whale optimization algorithm*, J. Supercomputing
//! 81:911, 2025), after the authors' `WORLRTGS.java`: a whale
//! optimisation algorithm whose whales are scheduling plans, corrected where the authors'
//! code does not search (measurements below; [`RtgsConfig::paper`] is their code).
//!
//! * **Whale** ([`RtgsWhale`]): a GPU per task. Its **position** is the running-time vector
//!   `RT_v` = total busy time of the GPU hosting task `v` (plus the GPU's ready time, see
//!   [`running_times`](crate::schedulers::search::running_times)).
//! * **Move**: the WOA engine ([`worl_woa`], configured as the authors' code:
//!   [`WoaConfig::authors_rtgs`], explore-first move rule and elitist truncation) draws the
//!   move `(A, C, l)` and its target `T` (the leader, or a random whale); each task gets a
//!   hope ([`HopeRule`]): by default the canonical WOA update in running-time space,
//!   `hope_v = RT_v(T) − A·|C·RT_v(T) − RT_v(X)|` (spiral:
//!   `|RT_v(T) − RT_v(X)|·e^{bl}cos(2πl) + RT_v(T)`).
//! * **Plan generation** ([`PlanDecoder`]): RTGS's [`GreedyDecoder`] visits the tasks in
//!   [`TaskOrder`] (upward rank by default) and gives each a GPU whose running time after
//!   taking it is near its hope: by default, among the GPUs within `ω = 2` mean execution
//!   times of the smallest running-time gap (at most 16 per GPU class, the nearest), the one
//!   with the earliest finish time in the schedule built so far; the running time includes
//!   what the target still puts on the GPU ([`Lookahead::Target`]).
//! * **Fitness**: the makespan of the plan, tasks placed in the same order
//!   ([`PlanEvaluator`]: append policy by default, insertion as an option).
//! * **Gang tasks** (a task needing `g > 1` GPUs at once; only when
//!   [`Problem::has_gangs`], so results without them are unchanged bit for bit): a whale's
//!   GPU for a gang task is the lead of its set (random whales draw only GPUs that can lead
//!   it); the decoder places the gang on the set around its lead, as the evaluator decodes
//!   the plan, and a gang counts on every GPU of its set in the running times
//!   ([`gang_running_times`], [`RtgsWhale::gang_sets`]; see [`GreedyDecoder`], "Gang
//!   tasks", for the decoder and its cost).
//!
//! ## Deviations from the authors' code, and why
//!
//! Measured on layered DAGs (generator defaults, CCR 1) on 16 PAI-mix GPUs (K80s ten times
//! slower than V100s), seeds 0..10, 30 whales × 100 iterations, mean ± std of the makespan
//! in s (`tests/rtgs_stability.rs`; plain WOA with the same budget: 200 tasks 4112 ± 235,
//! 500 tasks 9202 ± 1240; HEFT 2310 and 4468; random plans 15247 and 33934):
//!
//! | variant | 200 tasks | 500 tasks |
//! |---|---|---|
//! | authors' code ([`RtgsConfig::paper`], option `preset=paper`) | 11506 ± 576 | 29663 ± 920 |
//! | … + target look-ahead (the previous default) | 9295 ± 697 | 27396 ± 1427 |
//! | … authors' code with only the canonical hope (`preset=paper,hope=canonical`) | 3566 ± 50 | 6847 ± 79 |
//! | canonical hope + look-ahead, no window, topological order | 4666 ± 538 | 9349 ± 1524 |
//! | default without the window (`window=0`) | 4048 ± 303 | 9188 ± 532 |
//! | default with topological order (`order=topological`) | 2429 ± 21 | 4729 ± 30 |
//! | default without look-ahead (`lookahead=none`) | 2613 ± 48 | 5362 ± 60 |
//! | default with the authors' hope (`hope=authors`) | 2287 ± 18 | 18777 ± 4907 |
//! | default, `window=1` | 2366 ± 68 | 4945 ± 272 |
//! | **default** | **2278 ± 13** | **4641 ± 95** |
//! | default, `window=4` | 2255 ± 9 | 4509 ± 27 |
//! | default, `policy=insertion` | 2264 ± 16 | 4523 ± 20 |
//! | default, `seed-with-heft=true` | 2273 ± 24 | 4518 ± 20 |
//!
//! 1. **Hope: canonical `C` instead of a random sign** ([`HopeRule`], option `hope`). The
//!    authors replace WOA's `C ∈ [0, 2]` by a random `±1` per task:
//!    `hope = RT_T ± F·(RT_T − RT_X)`. Once whales are near the leader the gap vanishes,
//!    the hope is the leader's running time, and the decoded plan is the leader's again:
//!    the search stalls (the authors' code never improves on its best random initial plan
//!    above). With `C = 2r` even a whale on its target is moved, by an amount `A` shrinks
//!    over the run. This single change makes the authors' code beat plain WOA, with a
//!    fraction of its spread (also on 16 V100s, 1662 ± 35 vs 1891 ± 45, and on
//!    Alibaba-like jobs, 1653 ± 8 vs 2303 ± 158).
//! 2. **An earliest-finish-time window in the decoder** (option `window`, `ω`; see
//!    [`GreedyDecoder`]). A running-time vector does not say which GPU a task is on, nor when
//!    it can start; on heterogeneous GPUs many GPUs match a hope about equally well. Among
//!    the GPUs within `ω` mean execution times of the best gap, the decoder takes the one
//!    with the earliest finish time. The hope still decides: fed uniform random hopes
//!    instead, the same runs end at 2661 and 6019 instead of 2283 and 4627 (seeds 0..5),
//!    and the best plan of the first decoded generation is 1.6× and 2× the final one
//!    (`tests/rtgs_stability.rs`). `ω = 0`
//!    is the pure rule; larger `ω` leans towards EFT list scheduling (`ω = 4` is slightly
//!    better here; `ω = 2` keeps the hope in charge of more of the placement). At most 16
//!    candidates per GPU class (the nearest the hope) keep a task's cost bounded on large
//!    clusters.
//! 3. **Target look-ahead** ([`Lookahead`], option `lookahead`): the running time a GPU
//!    ends with if the remaining tasks follow the target. With the window it helps (above);
//!    with the pure rule and the canonical hope it does not (4666 vs 3566), so
//!    `preset=paper,hope=canonical` keeps the authors' decoder.
//! 4. **Upward-rank order** ([`TaskOrder`], option `order`): tasks on long remaining paths
//!    are decoded and placed first (HEFT's order); the authors place them in index order.
//! 5. **Ready times** start the running times (busy clusters; the authors' model has none,
//!    see [`running_times`](crate::schedulers::search::running_times)).
//!
//! The engine keeps the authors' rules (explore-first moves, elitist truncation). Their
//! elitism does not move whales tied with the leader: on workloads whose makespan is fixed
//! by one long chain (Alibaba-like jobs) a run then spends as few as 342 of its 2,930
//! evaluations, with the same result (HEFT's) as with canonical replacement.
//!
//! **Tried and not kept** (same setting, relative to 2275 ± 22 / 4626 ± 80 of the default
//! under canonical replacement): `C` drawn per task instead of per whale (2271 ± 15 /
//! 4610 ± 74); a spiral radius shrinking with `a` (2272 ± 12 / 4623 ± 78); spiral distance
//! `|C·RT_T − RT_X|` (2279 ± 20 / 4660 ± 105); re-perturbing moves that decode to the
//! target's or the moving whale's plan (duplicates are 0–3.5 % of moves: 2276 ± 20 /
//! 4627 ± 80); the canonical move rule (2276 ± 14 / 4626 ± 74); quadratic `a` (2266 ± 14 /
//! 4635 ± 70); keeping the target's GPU whenever it is in the window, for locality
//! (3181 ± 204 / 7175 ± 639: the window's EFT choice is what improves plans); a window
//! growing or shrinking with `a` (within noise); the window in units of the fastest
//! execution time (2546 ± 78 / 5412 ± 453).
//!
//! **Cost.** A decoding is `O(Σ_c log m_c)` per task without the window, plus at most 16
//! candidates per class and one EFT (`O(|preds|)`) per candidate not excluded by a lower
//! bound with it: about 4 of 13 candidates on 1,000 tasks / 50 GPUs. A default run of
//! 30 × 100 on 1,000 tasks / 50 GPUs takes about 1.8 s on one core (`benches/rtgs.rs`).
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
//! use worl_sched::schedulers::rtgs::{Rtgs, RtgsConfig};
//! use worl_sched::{RunContext, Scheduler};
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
mod hope;
mod treap;
mod whale;

pub use decoder::{DecodeInput, PlanDecoder};
#[cfg(feature = "ddqn")]
pub(crate) use greedy::ScoredCandidate;
pub use greedy::{GreedyDecoder, GreedyScratch, Lookahead};
pub use hope::HopeRule;
pub use whale::{RtgsProblem, RtgsScratch, RtgsWhale, gang_running_times};

use serde::{Deserialize, Serialize};
use worl_cluster::{Policy, Problem, Schedule};
use worl_woa::{ASchedule, Replacement, WoaConfig, WoaResult};

use crate::error::Result;
use crate::options::{OptionDoc, Options, PARALLEL, POLICY_APPEND};
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::Heft;
use crate::schedulers::search::PlainWoaConfig;
use crate::schedulers::search::options::{MAX_ITERATIONS, MAX_POPULATION, take_count};
use crate::schedulers::search::{PlanEvaluator, TaskOrder, config_scheduler, run_engine};

/// The starting point of [`RtgsConfig::from_options`] (option `preset`): `default` (our
/// corrected RTGS, [`RtgsConfig::default`]) or `paper` (RTGS as published: the authors' code,
/// [`RtgsConfig::paper`]; `authors` is read too). "Paper" means "as published" for every
/// scheduler that has such a preset (WORL-RTGS's `preset=paper` likewise). Text form as the other option enums (serde, `FromStr`,
/// `Display`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtgsPreset {
    /// [`RtgsConfig::default`].
    #[default]
    Default,
    /// [`RtgsConfig::paper`].
    #[serde(alias = "authors")]
    Paper,
}

serde_plain::derive_fromstr_from_deserialize!(RtgsPreset);
serde_plain::derive_display_from_serialize!(RtgsPreset);

/// Configuration of [`Rtgs`] (and of [`run_rtgs`] with any decoder).
///
/// Defaults: 30 whales, 100 iterations (the authors' demo uses 10 × 50; their experiment
/// values are unknown), `b = 1` (hard-coded in the authors' code), linear
/// `a`, the authors' engine rules ([`WoaConfig::authors_rtgs`]: explore-first moves,
/// elitist truncation), and our corrections of the move and the decoder (see the
/// [module docs](self) for why and the measurements): canonical hope, target look-ahead,
/// EFT window `ω = 2`, tasks in upward-rank order; append policy, no HEFT seed, sequential
/// evaluation. [`RtgsConfig::paper`] is the authors' code.
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
    /// How running times become hopes (option `hope`: `canonical`, our default, or
    /// `authors`); see [`HopeRule`].
    pub hope: HopeRule,
    /// What the greedy decoder adds to a GPU's running time before comparing it with a hope
    /// (option `lookahead`: `target`, our default, or `none`, the authors' code); see
    /// [`GreedyDecoder`]. Ignored by [`run_rtgs`] with another decoder.
    pub lookahead: Lookahead,
    /// The greedy decoder's earliest-finish-time window `ω`, in units of each task's mean
    /// execution time (option `window`, finite, `>= 0`; default 2; 0 = the pure
    /// running-time-gap rule of the authors); see [`GreedyDecoder`]. Ignored by
    /// [`run_rtgs`] with another decoder.
    pub window: f64,
    /// The order in which tasks are decoded and placed (option `order`: `rank`, our
    /// default, or `topological`, the authors'); see [`TaskOrder`].
    pub order: TaskOrder,
    /// How moved whales replace the population (option `replacement`: `elitist`, the
    /// authors' elitist truncation and our default, or `canonical`, Mirjalili's: every whale
    /// replaced, the leader kept aside); see [`Replacement`].
    pub replacement: Replacement,
    /// Placement policy of the fitness, of the window's EFTs and of the returned schedule
    /// (option `policy`: `append` or `insertion`).
    pub policy: Policy,
    /// Put HEFT's plan into the initial population (option `seed-with-heft`, default
    /// `false`: the authors start from random plans). HEFT's GPU choices are kept; the
    /// tasks are placed in [`order`](Self::order) under [`policy`](Self::policy), so the
    /// seeded whale's makespan can differ from HEFT's own schedule.
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
            hope: HopeRule::Canonical,
            lookahead: Lookahead::Target,
            window: 2.0,
            order: TaskOrder::UpwardRank,
            replacement: Replacement::ElitistTruncation,
            policy: Policy::Append,
            seed_with_heft: false,
            parallel: false,
        }
    }
}

impl RtgsConfig {
    /// The authors' code (`WORLRTGS.java`) with 30 whales × 100
    /// iterations: [`HopeRule::Authors`], [`Lookahead::None`], no window, tasks in
    /// [topological order](TaskOrder::Topological); other fields as the default. Also the
    /// registry option `preset=paper`.
    pub fn paper() -> Self {
        RtgsConfig {
            hope: HopeRule::Authors,
            lookahead: Lookahead::None,
            window: 0.0,
            order: TaskOrder::Topological,
            ..RtgsConfig::default()
        }
    }

    /// RTGS's options besides the whale options and `policy`, `parallel`; WORL-RTGS reads them
    /// too.
    pub const SEARCH_OPTIONS: [OptionDoc; 6] = [
        OptionDoc::new(
            "hope",
            "canonical|authors",
            "canonical",
            "how the WOA move becomes a running time per task: canonical C, or the authors' random sign",
        ),
        OptionDoc::new(
            "lookahead",
            "target|none",
            "target",
            "compare a GPU's running time after the task (target) or before it (none, the authors')",
        ),
        OptionDoc::new(
            "window",
            "finite, >= 0",
            "2",
            "EFT window ω of the decoder: GPUs whose EFT is within ω of the best compete on the running-time gap (0: the pure gap rule)",
        ),
        OptionDoc::new(
            "order",
            "upward-rank|topological",
            "upward-rank",
            "placement order of the decoder and the evaluation",
        ),
        OptionDoc::new(
            "replacement",
            "elitist-truncation|canonical",
            "elitist-truncation",
            "WOA replacement: the authors' elitist truncation, or Mirjalili's (every whale moves)",
        ),
        OptionDoc::new(
            "seed-with-heft",
            "true|false",
            "false",
            "HEFT's GPU choices as an initial whale, placed in RTGS's order and policy",
        ),
    ];

    /// Every option [`from_options`](Self::from_options) reads.
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &[OptionDoc::new(
            "preset",
            "default|paper",
            "default",
            "starting point read first, the other options override it: the defaults, or RTGS as published, the authors' code (authors hope, no look-ahead, no window, topological order); `authors` is read as `paper`",
        )],
        &PlainWoaConfig::WHALE_OPTIONS,
        &Self::SEARCH_OPTIONS,
        &POLICY_APPEND,
        &PARALLEL,
    ];

    /// Reads the options `preset` (`default` or `paper`, also read as `authors`: the starting point, see
    /// [`RtgsConfig::paper`]), then `whales`, `iterations`, `b`, `a-schedule`, `hope`,
    /// `lookahead`, `window`, `order`, `replacement`, `policy`, `seed-with-heft`, `parallel` (absent ones
    /// keep the preset's value) and rejects any other.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = match opts.take_or("preset", RtgsPreset::Default)? {
            RtgsPreset::Default => RtgsConfig::default(),
            RtgsPreset::Paper => RtgsConfig::paper(),
        };
        Self::from_options_over(d, opts)
    }

    /// Reads the options of [`from_options`](Self::from_options) except `preset`, absent
    /// ones keeping their value in `d` (WORL-RTGS starts from its own values).
    ///
    /// Errors: as [`from_options`](Self::from_options).
    pub fn from_options_over(d: RtgsConfig, mut opts: Options) -> Result<Self> {
        let config = RtgsConfig {
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
            hope: opts.take_or("hope", d.hope)?,
            lookahead: opts.take_or("lookahead", d.lookahead)?,
            window: {
                let w: f64 = opts.take_or("window", d.window)?;
                if !(w.is_finite() && w >= 0.0) {
                    return Err(opts.invalid("window", w, "must be a finite number >= 0"));
                }
                w
            },
            order: opts.take_or("order", d.order)?,
            replacement: opts.take_or("replacement", d.replacement)?,
            policy: opts.take_or("policy", d.policy)?,
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
        c.replacement = self.replacement;
        c.max_evaluations = max_evaluations;
        c
    }

    /// The greedy decoder of this configuration ([`lookahead`](Self::lookahead),
    /// [`window`](Self::window), [`policy`](Self::policy)).
    pub fn greedy_decoder<'p>(&self, problem: &'p Problem) -> GreedyDecoder<'p> {
        GreedyDecoder::new(problem, self.lookahead).with_window(self.window, self.policy)
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
/// wall-time budgets; reports [`Progress`](crate::Progress) after the initial population (step 0) and after
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
    run_rtgs_from(problem, decoder, config, Vec::new(), ctx)
}

/// [`run_rtgs`] with `initial` whales in the first slots of the initial population (after
/// HEFT's when [`RtgsConfig::seed_with_heft`] is set; see [`plan_whale`]); the rest are
/// random plans.
///
/// Errors: as [`run_rtgs`]; [`ScheduleError::Woa`](crate::ScheduleError::Woa) also for more
/// initial whales than the population or a whale that is not a plan of `problem`.
pub fn run_rtgs_from<D: PlanDecoder>(
    problem: &Problem,
    decoder: D,
    config: &RtgsConfig,
    initial: Vec<RtgsWhale>,
    ctx: &mut RunContext<'_>,
) -> Result<RtgsOutcome> {
    let rtgs = RtgsProblem::new(problem, decoder, config.policy)
        .with_hope(config.hope)
        .with_order(config.order);
    let mut seeds = Vec::with_capacity(initial.len() + 1);
    if config.seed_with_heft {
        seeds.push(heft_whale(problem, ctx)?);
    }
    seeds.extend(initial);
    let initial = seeds;
    let woa = config.woa_config(ctx.seed(), ctx.budget().max_evaluations);
    let result = run_engine(&rtgs, woa, initial, ctx)?;
    let schedule = PlanEvaluator::new(problem, config.policy)
        .with_order(rtgs.order())
        .schedule(result.best.gpus())?;
    Ok(RtgsOutcome { schedule, result })
}

/// The whale of HEFT's plan (Topcuoglu et al. 2002, insertion policy): its GPU choices.
fn heft_whale(problem: &Problem, ctx: &RunContext<'_>) -> Result<RtgsWhale> {
    let schedule = Heft::new().schedule(problem, &mut RunContext::new(ctx.seed()))?;
    Ok(plan_whale(problem, &schedule))
}

/// The whale of a schedule's plan: its GPU per task (its order and start times are not
/// kept; RTGS places the tasks in its own [`TaskOrder`]). `schedule` must be a schedule of
/// `problem`.
pub fn plan_whale(problem: &Problem, schedule: &Schedule) -> RtgsWhale {
    RtgsWhale::from_assignment(problem, schedule.to_plan(problem).gpu)
}

/// The RTGS scheduler: [`run_rtgs`] with the [`GreedyDecoder`].
///
/// Registered as `rtgs`; options: see [`RtgsConfig::from_options`], e.g.
/// `rtgs:whales=30,iterations=100,b=1,a-schedule=linear,hope=canonical,lookahead=target,window=2,order=rank,policy=append,seed-with-heft=false,parallel=false`
/// (the defaults), `rtgs:preset=paper` (the authors' code) or
/// `rtgs:preset=paper,hope=canonical`.
#[derive(Clone, Debug, Default)]
pub struct Rtgs {
    config: RtgsConfig,
}

config_scheduler!(
    Rtgs,
    RtgsConfig,
    "rtgs",
    "RTGS",
    Rtgs,
    "whales=4,iterations=3",
    "RTGS (Du et al. 2025): WOA over running-time vectors, greedy running-time-gap decoding with an EFT window"
);

impl Scheduler for Rtgs {
    fn name(&self) -> &str {
        "RTGS"
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.whales)?;
        let decoder = self.config.greedy_decoder(problem);
        Ok(run_rtgs(problem, decoder, &self.config, ctx)?.schedule)
    }

    fn is_stochastic(&self) -> bool {
        true
    }

    /// Gang tasks: a whale's GPU for a gang task is the lead of its set (random whales
    /// draw only GPUs that can lead it), the decoder places the gang on the set around the
    /// lead and counts it on every GPU of the set (see [`GreedyDecoder`], "Gang tasks"), and
    /// the schedule is the [`Evaluator`](worl_cluster::Evaluator)'s decoding of the plan.
    fn supports_gangs(&self) -> bool {
        true
    }
}
