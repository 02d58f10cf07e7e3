//! Seeded workload generators.
//!
//! | module | generates |
//! |---|---|
//! | [`shapes`] | fixed small shapes for tests: chain, fork-join, wide, single task, disconnected jobs, many entries and exits |
//! | [`layered`] | random layered DAGs, DAGGEN-style (size, fat, density, regularity, jump, CCR, work distribution) |
//! | [`daggen`] | DAGGEN's random DAGs with its parameters, defaults and level/parent rules ([`DaggenConfig`]) |
//! | [`alibaba_like`] | jobs whose sizes, shapes and durations follow the Alibaba v2018 batch trace |
//! | [`nn_training`] | NN-training iterations: pipeline-parallel stages over micro-batches, data-parallel replicas, all-reduce |
//!
//! Every stochastic generator takes a `seed` and draws from `ChaCha8Rng::seed_from_u64(seed)`:
//! the same parameters and seed give the same workload on every platform.
//! `docs/generators.md` describes the models and their parameters.

pub mod alibaba_like;
pub mod daggen;
pub mod layered;
pub mod nn_training;
pub mod shapes;

pub use daggen::DaggenConfig;

use crate::error::{DagError, Result};
use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use serde::{Deserialize, Serialize};

/// Distribution of task work, in reference GPU-seconds.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WorkDistribution {
    /// Every task has this work.
    Constant(f64),
    /// Uniform on `[min, max]`.
    Uniform {
        /// Lower bound (`>= 0`).
        min: f64,
        /// Upper bound (`>= min`).
        max: f64,
    },
    /// `exp(N(mu, sigma^2))`: the natural log of work is normal with mean `mu` and standard
    /// deviation `sigma`.
    LogNormal {
        /// Mean of `ln(work)`.
        mu: f64,
        /// Standard deviation of `ln(work)` (`>= 0`).
        sigma: f64,
    },
}

impl Default for WorkDistribution {
    /// Uniform on `[1, 100]` reference GPU-seconds.
    fn default() -> Self {
        WorkDistribution::Uniform {
            min: 1.0,
            max: 100.0,
        }
    }
}

impl WorkDistribution {
    /// Checks the parameters.
    ///
    /// Errors: [`DagError::InvalidParameter`] (`work`) for a negative or non-finite value,
    /// `min > max`, or a negative `sigma`.
    pub fn validate(&self) -> Result<()> {
        let ok = match *self {
            WorkDistribution::Constant(w) => w.is_finite() && w >= 0.0,
            WorkDistribution::Uniform { min, max } => {
                min.is_finite() && max.is_finite() && min >= 0.0 && min <= max
            }
            WorkDistribution::LogNormal { mu, sigma } => {
                mu.is_finite() && sigma.is_finite() && sigma >= 0.0
            }
        };
        if ok {
            Ok(())
        } else {
            Err(DagError::InvalidParameter {
                name: "work",
                reason: format!("{self:?} is not a valid work distribution"),
            })
        }
    }

    /// One draw, reference GPU-seconds. Call [`validate`](Self::validate) first.
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        match *self {
            WorkDistribution::Constant(w) => w,
            WorkDistribution::Uniform { min, max } => {
                if min < max {
                    rng.random_range(min..=max)
                } else {
                    min
                }
            }
            WorkDistribution::LogNormal { mu, sigma } => LogNormal::new(mu, sigma)
                .map(|d| d.sample(rng))
                .unwrap_or(f64::NAN),
        }
    }
}

/// Checks that `value` is finite and `>= 0` (or `> 0` when `positive`).
pub(crate) fn check_nonneg(name: &'static str, value: f64, positive: bool) -> Result<()> {
    if value.is_finite() && (value > 0.0 || (!positive && value == 0.0)) {
        Ok(())
    } else {
        Err(DagError::InvalidParameter {
            name,
            reason: format!(
                "{value} is not a finite number {}",
                if positive { "> 0" } else { ">= 0" }
            ),
        })
    }
}

/// Checks that `value` lies in `[0, 1]`.
pub(crate) fn check_unit(name: &'static str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(DagError::InvalidParameter {
            name,
            reason: format!("{value} is not in [0, 1]"),
        })
    }
}

/// Seed of the edge-byte draw of a generator, derived from its seed so that the two streams
/// differ.
pub(crate) fn bytes_seed(seed: u64) -> u64 {
    seed ^ 0x9E37_79B9_7F4A_7C15
}
