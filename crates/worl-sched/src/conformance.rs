//! The conformance check every scheduler passes: on a problem, its schedule satisfies the
//! model's constraints, its makespan is at least the problem's lower bound, and the same seed
//! gives the same schedule ([`Scheduler`]'s contract). The registry-driven tests of this crate
//! run it on every entry of [`BUILTINS`](crate::schedulers::BUILTINS), on random problems
//! without and with GPU busy windows (`tests/conformance.rs`, `tests/windows.rs`: there each
//! schedule must also be the evaluator's decoding of its own plan); a downstream crate
//! checks its own scheduler in one line, e.g. over the random problems of
//! `worl_sched::testing` (feature `test-support`):
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuModel, Problem};
//! use worl_dag::generators::shapes;
//! use worl_sched::{check_scheduler, Registry};
//!
//! let w = Arc::new(shapes::fork_join(6, 10.0, 1.0e9)?);
//! let p = Problem::new(w, Arc::new(presets::homogeneous(3, &GpuModel::t4())?))?;
//! let mut heft = Registry::with_builtins().build_spec("heft")?;
//! let schedule = check_scheduler(heft.as_mut(), &p, 7)?;
//! assert!(schedule.makespan() >= p.lower_bound().value);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::ScheduleError;
use crate::scheduler::{RunContext, Scheduler};
use worl_cluster::{Problem, Schedule};

/// Relative tolerance of the lower-bound check: a makespan may fall below the bound by
/// `1e-9 · bound` (rounding of sums taken in different orders).
pub const LOWER_BOUND_TOLERANCE: f64 = 1e-9;

/// How a scheduler failed [`check_scheduler`]. Every variant names the scheduler.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConformanceError {
    /// The scheduler returned an error.
    #[error("{scheduler} failed: {source}")]
    Failed {
        /// The scheduler's name.
        scheduler: String,
        /// Its error (boxed: a [`ScheduleError`] is large).
        source: Box<ScheduleError>,
    },
    /// The schedule violates the model's constraints.
    #[error("{scheduler} returned an invalid schedule: {count} violation(s), first: {first}")]
    Invalid {
        /// The scheduler's name.
        scheduler: String,
        /// Number of violations.
        count: usize,
        /// The first violation, rendered.
        first: String,
    },
    /// The makespan is below the problem's lower bound (beyond [`LOWER_BOUND_TOLERANCE`]).
    #[error("{scheduler}: makespan {makespan} s is below the lower bound {lower_bound} s")]
    BelowLowerBound {
        /// The scheduler's name.
        scheduler: String,
        /// Its makespan, s.
        makespan: f64,
        /// The lower bound, s.
        lower_bound: f64,
    },
    /// Two runs with the same seed gave different schedules.
    #[error("{scheduler}: seed {seed} gave makespans {first} s and then {second} s")]
    NotReproducible {
        /// The scheduler's name.
        scheduler: String,
        /// The seed.
        seed: u64,
        /// Makespan of the first run, s.
        first: f64,
        /// Makespan of the second run, s (equal when only placements differ).
        second: f64,
    },
}

/// Runs `scheduler` on `problem` twice with `seed` (same instance, so a learning scheduler
/// must not let what it learned change a seeded result) and checks validity
/// ([`Schedule::validate`]), `makespan ≥ lower bound` ([`Problem::lower_bound`]) and equality
/// of the two schedules. Returns the first schedule.
///
/// Errors: the first [`ConformanceError`] found.
pub fn check_scheduler(
    scheduler: &mut dyn Scheduler,
    problem: &Problem,
    seed: u64,
) -> Result<Schedule, ConformanceError> {
    let run = |s: &mut dyn Scheduler| {
        s.schedule(problem, &mut RunContext::new(seed))
            .map_err(|source| ConformanceError::Failed {
                scheduler: s.name().to_owned(),
                source: Box::new(source),
            })
    };
    let first = run(scheduler)?;
    let violations = first.validate(problem);
    if let Some(v) = violations.first() {
        return Err(ConformanceError::Invalid {
            scheduler: scheduler.name().to_owned(),
            count: violations.len(),
            first: v.to_string(),
        });
    }
    let lower_bound = problem.lower_bound().value;
    if first.makespan() < lower_bound * (1.0 - LOWER_BOUND_TOLERANCE) {
        return Err(ConformanceError::BelowLowerBound {
            scheduler: scheduler.name().to_owned(),
            makespan: first.makespan(),
            lower_bound,
        });
    }
    let second = run(scheduler)?;
    if second != first {
        return Err(ConformanceError::NotReproducible {
            scheduler: scheduler.name().to_owned(),
            seed,
            first: first.makespan(),
            second: second.makespan(),
        });
    }
    Ok(first)
}
