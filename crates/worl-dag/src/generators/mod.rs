//! Seeded workload generators.
//!
//! | module | generates |
//! |---|---|
//! | [`shapes`] | fixed small shapes for tests: chain, fork-join, wide, single task, disconnected jobs, many entries and exits |
//! | [`layered`] | random layered DAGs, DAGGEN-style (size, fat, density, regularity, jump, CCR, work distribution) |
//! | [`daggen`] | DAGGEN's random DAGs with its parameters, defaults and level/parent rules ([`DaggenParams`]) |
//! | [`alibaba_like`] | jobs whose sizes, shapes and durations follow the Alibaba v2018 batch trace |
//! | [`nn_training`] | NN-training iterations: pipeline-parallel stages over micro-batches, data-parallel replicas, all-reduce |
//! | [`gangs`] | a post-pass for any workload: a fraction of its tasks made gang tasks of uniformly drawn GPU counts |
//!
//! Every generator makes at most [`MAX_GENERATED_TASKS`] tasks and [`MAX_GENERATED_EDGES`]
//! edges: parameters asking for more are a [`DagError::InvalidParameter`] naming the
//! parameter, raised before the workload is allocated.
//!
//! Every stochastic generator takes a `seed` and draws from `ChaCha8Rng::seed_from_u64(seed)`:
//! the same parameters and seed give the same workload on every platform.
//! `docs/generators.md` describes the models and their parameters.

pub mod alibaba_like;
pub mod daggen;
pub mod gangs;
pub mod layered;
pub mod nn_training;
pub mod shapes;

pub use daggen::DaggenParams;

use crate::error::{DagError, Result};
use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use serde::{Deserialize, Serialize};

/// Most tasks a generator makes: every generator refuses parameters asking for more with
/// [`DagError::InvalidParameter`] naming the parameter, checked before anything is
/// allocated. One million tasks is about what a 10 MB workload file can describe (about
/// 10 bytes per task at least); a generated workload of that size holds a few hundred MB.
pub const MAX_GENERATED_TASKS: usize = 1_000_000;

/// Most edges a generator makes. Generators whose edge count follows from their parameters
/// ([`shapes`], [`nn_training`]) check it before allocating; random ones ([`layered`],
/// [`daggen`], [`alibaba_like`]) check the expected count of their parameters first, then
/// stop with the same error as soon as they would add one edge more (so they never hold
/// more than this many). The error names the parameter that makes edges grow: `density`
/// for the layered generators, `jobs` for Alibaba-like workloads, the largest count of
/// [`nn_training`], `exits` for [`shapes::multi_entry_exit`].
pub const MAX_GENERATED_EDGES: usize = 4_000_000;

/// Checks that a generator asking for `tasks` tasks stays within [`MAX_GENERATED_TASKS`].
///
/// Errors: [`DagError::InvalidParameter`] naming `name`, with `what` (how the count was
/// reached) in the reason.
pub(crate) fn check_task_count(name: &'static str, tasks: u128, what: &str) -> Result<()> {
    if tasks > MAX_GENERATED_TASKS as u128 {
        Err(DagError::InvalidParameter {
            name,
            reason: format!(
                "{what} makes {tasks} tasks; generators make at most {MAX_GENERATED_TASKS}"
            ),
        })
    } else {
        Ok(())
    }
}

/// Checks that a generator asking for `edges` edges stays within [`MAX_GENERATED_EDGES`].
///
/// Errors: [`DagError::InvalidParameter`] naming `name`, with `what` in the reason.
pub(crate) fn check_edge_count(name: &'static str, edges: u128, what: &str) -> Result<()> {
    if edges > MAX_GENERATED_EDGES as u128 {
        Err(DagError::InvalidParameter {
            name,
            reason: format!(
                "{what} makes {edges} edges; generators make at most {MAX_GENERATED_EDGES}"
            ),
        })
    } else {
        Ok(())
    }
}

/// Edge counter of a random generator: [`add`](Self::add) fails once more than
/// [`MAX_GENERATED_EDGES`] edges would be made.
pub(crate) struct EdgeCap {
    name: &'static str,
    made: usize,
}

impl EdgeCap {
    /// A counter whose error names `name`.
    pub(crate) fn new(name: &'static str) -> Self {
        EdgeCap { name, made: 0 }
    }

    /// Counts `k` more edges.
    ///
    /// Errors: [`DagError::InvalidParameter`] naming the parameter when the count passes
    /// [`MAX_GENERATED_EDGES`].
    pub(crate) fn add(&mut self, k: usize) -> Result<()> {
        self.made = self.made.saturating_add(k);
        if self.made > MAX_GENERATED_EDGES {
            Err(DagError::InvalidParameter {
                name: self.name,
                reason: format!(
                    "the parameters make more than {MAX_GENERATED_EDGES} edges (the most a generator makes)"
                ),
            })
        } else {
            Ok(())
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_cap_fails_one_edge_over_the_limit() {
        let mut cap = EdgeCap::new("density");
        assert!(cap.add(MAX_GENERATED_EDGES - 1).is_ok());
        assert!(cap.add(1).is_ok());
        match cap.add(1) {
            Err(DagError::InvalidParameter { name, .. }) => assert_eq!(name, "density"),
            other => panic!("expected InvalidParameter, got {other:?}"),
        }
        assert!(EdgeCap::new("jobs").add(usize::MAX).is_err());
    }

    #[test]
    fn counts_are_checked_at_the_limit() {
        assert!(check_task_count("n", MAX_GENERATED_TASKS as u128, "n").is_ok());
        assert!(check_task_count("n", MAX_GENERATED_TASKS as u128 + 1, "n").is_err());
        assert!(check_edge_count("exits", MAX_GENERATED_EDGES as u128, "e").is_ok());
        assert!(check_edge_count("exits", MAX_GENERATED_EDGES as u128 + 1, "e").is_err());
    }
}
