//! # worl-rtgs: WORL-RTGS and its baselines behind one `Scheduler` trait
//!
//! The facade of the worl workspace: the [`Scheduler`] trait, a [`Registry`] that builds
//! schedulers by name, WORL-RTGS (Du et al., *Big Data and Cognitive Computing* 9(11):284,
//! 2025), RTGS (Du et al., *J. Supercomputing* 81:911, 2025) and baselines.
//!
//! | module | holds |
//! |---|---|
//! | [`scheduler`] | [`Scheduler`], [`RunContext`], [`Budget`], [`Progress`] |
//! | [`registry`] | [`Registry`], [`Options`], scheduler specs |
//! | [`schedulers`] | one module per algorithm |
//! | [`study`] | the SPD–FTG correlation study behind RTGS |
//! | [`error`] | [`ScheduleError`] |
#![deny(missing_docs)]

pub mod error;
pub mod experiment;
pub mod registry;
pub mod scheduler;
pub mod schedulers;
pub mod study;

pub use error::{Result, ScheduleError};
pub use registry::{Options, Registry};
pub use scheduler::{Budget, Observer, Progress, RunContext, Scheduler};

pub use worl_cluster;
pub use worl_dag;
pub use worl_woa;
