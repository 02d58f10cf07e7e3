//! # worl-sched: the schedulers of worl behind one `Scheduler` trait
//!
//! The [`Scheduler`] trait every algorithm implements, a [`Registry`] that builds schedulers
//! from spec strings (`"rtgs[whales=30,iterations=100]"`), and the schedulers themselves,
//! grouped by family: list schedulers (HEFT, CPOP, PEFT, Min-Min, Max-Min, ...), plan-based
//! searches (plain WOA, PSO, GA), RTGS (Du et al., *J. Supercomputing* 81:911, 2025) and
//! WORL-RTGS (Du et al., *Big Data and Cognitive Computing* 9(11):284, 2025; feature `ddqn`).
//!
//! | module | holds |
//! |---|---|
//! | [`scheduler`] | [`Scheduler`], [`RunContext`], [`Budget`], [`Progress`], [`TimeClock`] |
//! | [`options`] | [`Options`] (a build's key-value settings), [`OptionDoc`] (an option a scheduler declares) |
//! | [`builtin`] | [`Builtin`] (a scheduler's name, description, family, declared options and builder), [`Family`] |
//! | [`registry`] | [`Registry`]: builtins by name, spec strings and spec lists |
//! | [`schedulers`] | every scheduler by family ([`list`](schedulers::list), [`search`](schedulers::search), [`rtgs`](schedulers::rtgs), `worl_rtgs`) and the registration table [`BUILTINS`](schedulers::BUILTINS) |
//! | [`conformance`] | [`check_scheduler`]: valid, above the lower bound, reproducible |
//! | `testing` (feature `test-support`) | proptest strategies for random problems |
//! | [`error`] | [`ScheduleError`] |
//!
//! Features: `ddqn` (default on) builds WORL-RTGS and its Double DQN agent on burn
//! ([`worl_ddqn`], re-exported); without it the crate needs no deep-learning dependency.
//! `test-support` adds the proptest strategies of `testing`.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Problem};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_sched::{Registry, RunContext};
//!
//! let problem = Problem::new(
//!     Arc::new(layered(&LayeredParams::new(200), 1)?),
//!     Arc::new(presets::pai_mix(16, 1)?),
//! )?;
//! let registry = Registry::with_builtins();
//! let heft = registry.build_spec("heft")?.schedule(&problem, &mut RunContext::new(7))?;
//! let rtgs = registry
//!     .build_spec("rtgs[whales=10,iterations=20,seed-with-heft=true]")?
//!     .schedule(&problem, &mut RunContext::new(7))?;
//! assert!(rtgs.validate(&problem).is_empty());
//! assert!(rtgs.makespan() <= heft.makespan()); // seeded with HEFT's plan, elitist
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod builtin;
pub mod conformance;
pub mod error;
pub mod options;
pub mod registry;
pub mod scheduler;
pub mod schedulers;
#[cfg(feature = "test-support")]
pub mod testing;

pub use builtin::{Builtin, Family};
pub use conformance::{ConformanceError, check_scheduler};
pub use error::{Result, ScheduleError};
pub use options::{OptionDoc, Options};
pub use registry::Registry;
pub use scheduler::{
    Budget, Observer, Progress, RunContext, Scheduler, TimeClock, check_supported,
};

pub use worl_cluster;
pub use worl_dag;
#[cfg(feature = "ddqn")]
pub use worl_ddqn;
pub use worl_woa;
