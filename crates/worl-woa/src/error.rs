//! The crate's error type: every way a configuration, a bound box or an initial population can
//! be rejected before the engine starts.

use thiserror::Error;

/// Why [`Woa::run`](crate::Woa::run), [`minimize`](crate::minimize) or
/// [`Bounds::new`](crate::Bounds::new) refused their input.
///
/// Every variant names the offending item (the field, the dimension, the initial whale's index).
/// The engine never panics on user input; it returns one of these before the first evaluation.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum WoaError {
    /// `WoaConfig::whales` is 0: a population needs at least one whale.
    #[error("the population must hold at least one whale (whales = 0)")]
    ZeroWhales,
    /// `WoaConfig::iterations` is 0 and `WoaConfig::max_evaluations` is `None`: the run would
    /// have no stopping rule and no horizon for the `a` schedule.
    #[error("no stopping rule: iterations = 0 and no evaluation budget (max_evaluations = None)")]
    NoStoppingRule,
    /// `WoaConfig::max_evaluations` is below `WoaConfig::whales`: the initial population alone
    /// costs one evaluation per whale.
    #[error(
        "evaluation budget {budget} is below the population size {whales} \
         (the initial population alone needs {whales} evaluations)"
    )]
    BudgetBelowPopulation {
        /// The configured budget (`max_evaluations`).
        budget: u64,
        /// The configured population size (`whales`).
        whales: usize,
    },
    /// The logarithmic-spiral shape constant `b` is NaN or infinite.
    #[error("spiral shape b = {b} is not finite")]
    InvalidSpiralShape {
        /// The rejected value.
        b: f64,
    },
    /// `ASchedule::Exponential { rate }` with a rate that is not finite and > 0.
    #[error("exponential a schedule: rate = {rate} must be finite and > 0")]
    InvalidScheduleRate {
        /// The rejected rate.
        rate: f64,
    },
    /// `EarlyStop::patience` is 0 (it would stop before the first iteration).
    #[error("early stop: patience must be at least 1 iteration (patience = 0)")]
    ZeroPatience,
    /// `EarlyStop::tolerance` is negative, NaN or infinite.
    #[error("early stop: tolerance = {tolerance} must be finite and >= 0")]
    InvalidTolerance {
        /// The rejected tolerance.
        tolerance: f64,
    },
    /// `WoaConfig::target_fitness` is NaN.
    #[error("target_fitness is NaN")]
    InvalidTargetFitness,
    /// More user-supplied initial whales than the population holds.
    #[error("{given} initial whales exceed the population size {whales}")]
    TooManyInitialWhales {
        /// How many initial whales were supplied.
        given: usize,
        /// The configured population size.
        whales: usize,
    },
    /// A problem rejected a user-supplied initial whale
    /// ([`WhaleProblem::check_initial_whale`](crate::WhaleProblem::check_initial_whale)).
    #[error("initial whale {index} is invalid: {reason}")]
    InvalidInitialWhale {
        /// Index of the whale in the supplied initial list.
        index: usize,
        /// The problem's explanation.
        reason: String,
    },
    /// A bound box with zero dimensions.
    #[error("bounds have no dimension (empty lower and upper vectors)")]
    EmptyBounds,
    /// The lower and upper bound vectors differ in length.
    #[error("bounds: lower has {lower} entries, upper has {upper}")]
    BoundsLengthMismatch {
        /// Length of the lower-bound vector.
        lower: usize,
        /// Length of the upper-bound vector.
        upper: usize,
    },
    /// A dimension whose bounds are not finite or have `lo > hi`.
    #[error("bounds of dimension {dimension}: lo = {lo}, hi = {hi} (need finite lo <= hi)")]
    InvalidBounds {
        /// The offending dimension (0-based).
        dimension: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A continuous initial whale whose length differs from the bounds' dimension.
    #[error("initial whale {index} has {found} coordinates, the bounds have {expected}")]
    DimensionMismatch {
        /// Index of the whale in the supplied initial list.
        index: usize,
        /// Dimension of the bounds.
        expected: usize,
        /// Length of the supplied position.
        found: usize,
    },
    /// A continuous initial whale with a coordinate outside its bounds or not finite.
    #[error(
        "initial whale {index}, dimension {dimension}: value {value} is outside [{lo}, {hi}] \
         or not finite"
    )]
    OutOfBounds {
        /// Index of the whale in the supplied initial list.
        index: usize,
        /// The offending dimension (0-based).
        dimension: usize,
        /// The rejected coordinate.
        value: f64,
        /// Lower bound of that dimension.
        lo: f64,
        /// Upper bound of that dimension.
        hi: f64,
    },
}
