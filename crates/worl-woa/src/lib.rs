//! # worl-woa: the Whale Optimization Algorithm
//!
//! A generic, seeded, optionally parallel engine for the Whale Optimization Algorithm (WOA) of
//! S. Mirjalili and A. Lewis, *The Whale Optimization Algorithm*, Advances in Engineering
//! Software 95:51–67, 2016 (doi 10.1016/j.advengsoft.2016.01.008), following the authors'
//! reference MATLAB code, plus the variant used by the WORL-RTGS authors (N. Du et al., BDCC
//! 9(11):284, 2025; `WORLRTGS.java`). Continuous problems are one implementation of the
//! [`WhaleProblem`] trait; discrete problems (the RTGS scheduler's GPU-assignment plans)
//! implement the same trait and reuse the same loop.
//!
//! ## Example: sphere in 10 dimensions
//! ```
//! use worl_woa::{Bounds, WoaConfig, functions, minimize};
//!
//! let bounds = Bounds::uniform(10, -100.0, 100.0)?;
//! let config = WoaConfig::new(30, 200).with_seed(42);
//! let result = minimize(functions::sphere, &bounds, &config)?;
//! assert!(result.best_fitness < 1e-10);
//! assert_eq!(result.best.len(), 10);
//! assert_eq!(result.evaluations, 30 + 30 * 200);
//! assert_eq!(result.history.len(), 201); // initial population + 200 iterations
//! # Ok::<(), worl_woa::WoaError>(())
//! ```
//!
//! ## The algorithm
//! Population of `N` whales `X_i`, leader `X*` = best whale ever evaluated. For iteration
//! `t = 1..=T` with progress `τ = (t − 1)/T`: `a = a(τ)` falls from 2 to 0 ([`ASchedule`],
//! linear `2(1 − τ)` by default) and `a2 = −1 − τ`. For each whale, once per whale (as the
//! reference code does), draw `r1, r2, r, p ~ U(0,1)` and set
//!
//! * `A = 2a·r1 − a`, `C = 2·r2` (Eq. 2.3–2.4), `b` = spiral shape (1), `l = (a2 − 1)·r + 1 ~ U(a2, 1)`;
//! * [`MoveRule::Canonical`] (Eq. 2.6): if `p < 0.5` and `|A| >= 1`, **search for prey**
//!   `X' = X_rand − A·|C·X_rand − X|` (Eq. 2.8); if `p < 0.5` and `|A| < 1`, **encircle**
//!   `X' = X* − A·|C·X* − X|` (Eq. 2.2); if `p >= 0.5`, **spiral** bubble-net
//!   `X' = |X* − X|·e^{bl}·cos(2πl) + X*` (Eq. 2.5);
//! * [`MoveRule::ExploreFirst`] (WORL-RTGS code): `|A| >= 1` → search; else `p <= 0.5` →
//!   encircle, else spiral.
//!
//! **Per whale vs per dimension.** In the reference MATLAB code `r1, r2` (so `A`, `C`), `l` and
//! `p` are drawn once per whale before the `for j=1:dim` loop, while the random whale index
//! `floor(N·rand()+1)` is drawn inside it, i.e. once per coordinate. This crate does the same by
//! default ([`RandomWhaleDraw::PerDimension`]); [`RandomWhaleDraw::PerWhale`] draws one random
//! whale per move (the paper's Eq. 2.8 as written and the WORL-RTGS code).
//!
//! **Synchronous update.** The reference code overwrites positions in place, so a whale may
//! pick an already-moved whale as `X_rand`. Here all moves of an iteration read the population
//! as it was at the start of the iteration (required for parallel, thread-count-independent
//! results). Positions are clamped into the bounds after each move; the reference code clamps
//! before each evaluation, which is the same.
//!
//! **Replacement.** [`Replacement::Canonical`]: every whale is replaced by its moved version,
//! the leader is the best ever. [`Replacement::ElitistTruncation`] (WORL-RTGS code): the leader
//! and whales tied with it are carried, the others replaced, the population sorted by fitness.
//!
//! **Determinism.** Each whale's draws in iteration `t` come from its own ChaCha8 stream derived
//! from `(seed, t, whale index)` ([`whale_rng`]); with `parallel = true` the result is
//! bit-identical to the sequential one, whatever the rayon thread count.
//!
//! ## Module map
//! | module | holds |
//! |---|---|
//! | [`problem`] | [`WhaleProblem`], the extension point (whale type, scratch, random whale, fitness, move, distance) |
//! | [`moves`] | [`Move`] (kind + coefficients `A`, `C`, `l`, `b`), [`MoveKind`], [`Target`] |
//! | [`engine`] | [`Woa`], the main loop: population, leader, schedule, replacement, observer |
//! | [`config`] | [`WoaConfig`], [`ASchedule`], [`MoveRule`], [`Replacement`], [`RandomWhaleDraw`], [`EarlyStop`] |
//! | [`history`] | [`WoaResult`], [`History`], [`IterationStats`], [`MoveCounts`], [`StopReason`] |
//! | [`continuous`] | [`Bounds`], [`ContinuousProblem`], [`minimize`] |
//! | [`functions`] | benchmark objectives: sphere, Rosenbrock, Rastrigin, Ackley |
//! | [`rng`] | [`WhaleRng`], [`whale_rng`]: per-whale random streams |
//! | [`error`] | [`WoaError`] |
#![deny(missing_docs)]

pub mod config;
pub mod continuous;
pub mod engine;
pub mod error;
pub mod functions;
pub mod history;
pub mod moves;
pub mod problem;
pub mod rng;

pub use config::{ASchedule, EarlyStop, MoveRule, RandomWhaleDraw, Replacement, WoaConfig};
pub use continuous::{Bounds, ContinuousProblem, minimize};
pub use engine::Woa;
pub use error::WoaError;
pub use history::{History, IterationStats, MoveCounts, StopReason, WoaResult};
pub use moves::{Move, MoveKind, Target};
pub use problem::WhaleProblem;
pub use rng::{WhaleRng, whale_rng};
