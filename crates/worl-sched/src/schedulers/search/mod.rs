//! What every plan-based search of this crate shares, and the searches that use nothing
//! more: plain WOA, PSO and GA.
//!
//! | module | holds |
//! |---|---|
//! | [`plan`] | [`TaskOrder`], [`FeasibleGpus`], [`PlanEvaluator`] (GPU per task -> makespan), [`running_times`] |
//! | [`codec`] | [`SearchSpace`] (chosen by [`SearchDecoderConfig`]): continuous position -> schedule, shared by WOA, PSO and GA; [`PositionCodec`] (one coordinate per task floored to a GPU) |
//! | [`list_decoder`] | [`ListDecoder`]: random keys -> list schedule (perturbed HEFT order, near-minimum-EFT GPU), the default space |
//! | [`options`] | option parsing shared by the searches (counts, ranges, WOA's `a` schedule) |
//! | [`woa`], [`pso`], [`ga`] | [`PlainWoa`], [`Pso`], [`Ga`] |
//!
//! RTGS ([`super::rtgs`]) and WORL-RTGS build on [`plan`] and the engine driver
//! `run_engine` (crate-private).

/// The constructors of a scheduler that wraps one config struct (a struct with one field
/// `config: $config`, where `$config` has `from_options(Options) -> Result<$config>` and
/// the declarations `OPTIONS` of the options it reads): `NAME` (registry name `$name`),
/// `BUILTIN` (its registration, family `$family`, quick options `$quick`, description
/// `$about`), `new`, `from_options` and `config`.
macro_rules! config_scheduler {
    ($ty:ident, $config:ident, $name:literal, $label:literal, $family:ident, $quick:literal, $about:literal) => {
        impl $ty {
            /// Registry name.
            pub const NAME: &'static str = $name;

            /// Its registration: name, description, family, declared options.
            pub const BUILTIN: $crate::Builtin = $crate::Builtin {
                name: $name,
                description: $about,
                family: $crate::Family::$family,
                quick: $quick,
                options: $config::OPTIONS,
                build: |o| $crate::builtin::boxed(Self::from_options(o)),
            };

            #[doc = concat!($label, " with `config`.")]
            pub fn new(config: $config) -> Self {
                Self { config }
            }

            #[doc = concat!("From registry options (see [`", stringify!($config), "::from_options`]).")]
            ///
            #[doc = concat!("Errors: as [`", stringify!($config), "::from_options`].")]
            pub fn from_options(opts: $crate::options::Options) -> $crate::Result<Self> {
                Ok(Self::new($config::from_options(opts)?))
            }

            /// The configuration.
            pub fn config(&self) -> &$config {
                &self.config
            }
        }
    };
}
pub(crate) use config_scheduler;

pub mod codec;
pub mod ga;
pub mod list_decoder;
pub mod options;
pub mod plan;
pub mod pso;
pub mod woa;

pub use codec::{
    PositionCodec, PositionScratch, SearchDecoderConfig, SearchDecoderKind, SearchSpace,
    SpaceScratch,
};
pub use ga::{Ga, GaConfig};
pub use list_decoder::{ListDecoder, ListDecoderConfig, ListPriority, ListScratch};
pub use plan::{FeasibleGpus, PlanEvaluator, TaskOrder, running_times};
pub use pso::{Pso, PsoConfig};
pub use woa::{PlainWoa, PlainWoaConfig, PositionProblem};

use worl_woa::{WhaleProblem, Woa, WoaConfig, WoaResult};

use crate::error::Result;
use crate::scheduler::{Progress, RunContext};

/// Runs the WOA engine on a plan problem, reporting [`Progress`] to `ctx` after every
/// iteration (step 0 = the initial population) and stopping when `ctx` asks to (observer
/// break or CPU-time budget), or after an iteration in which no whale moved. Under a
/// CPU-time budget without an evaluation budget the run is driven by the time
/// ([`RunContext::time_clock`]): `a` follows the share of the time spent and the iteration
/// count no longer stops it.
///
/// No move means a fixed point: under elitist truncation only whales with a fitness other
/// than the leader's move, and an iteration without a mover leaves population, fitness and
/// leader as they were, so every later iteration would be the same empty one. Such
/// iterations spend no evaluation, so without this stop a run whose whales all tie with the
/// leader would go on for all its `iterations` whatever its evaluation budget (and the
/// engine's per-iteration history with it). With it a run does at most one iteration more
/// than it has evaluations after the initial population, and its result is the same.
pub(crate) fn run_engine<P: WhaleProblem>(
    problem: &P,
    config: WoaConfig,
    initial: Vec<P::Whale>,
    ctx: &mut RunContext<'_>,
) -> Result<WoaResult<P::Whale>> {
    let total = config.horizon() as u64;
    let clock = ctx.time_clock();
    let fraction = move || clock.map_or(0.0, |c| c.fraction());
    let mut woa = Woa::new(problem, config).with_initial_whales(initial);
    if clock.is_some() {
        woa = woa.with_clock(&fraction);
    }
    let result = woa.run_with(|stats, _| {
        let flow = ctx.report(Progress {
            step: stats.iteration as u64,
            total_steps: total,
            evaluations: stats.evaluations,
            best_makespan: stats.best_fitness,
        });
        if stats.iteration > 0 && stats.moves.moved() == 0 {
            return std::ops::ControlFlow::Break(());
        }
        flow
    })?;
    Ok(result)
}
