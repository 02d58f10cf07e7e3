//! Epsilon-greedy exploration and its decay schedule.
//!
//! With probability ε the agent picks a uniformly random valid candidate, otherwise the
//! candidate of highest Q-value (Mnih et al. 2015, "ε-greedy policy"; Sutton & Barto,
//! *Reinforcement Learning*, 2nd ed., §2.2). ε decays with the number of acting steps t.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result};

/// How ε decays with the number of acting steps `t` (the agent's `env_steps`).
///
/// * `Linear`: ε(t) = end + (start − end) · max(0, 1 − t / decay_steps) — ε reaches `end` at
///   `t = decay_steps` and stays there (Mnih et al. 2015 anneal 1.0 → 0.1 over 10⁶ frames).
/// * `Exponential`: ε(t) = end + (start − end) · exp(−t / decay_steps) — `decay_steps` is the
///   time constant τ (ε has covered 63 % of the way after τ steps, 95 % after 3τ); the form of
///   the PyTorch DQN tutorial.
/// * `Constant`: ε(t) = value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EpsilonSchedule {
    /// Linear decay from `start` to `end` over `decay_steps` acting steps.
    Linear {
        /// ε at t = 0, in [0, 1].
        start: f64,
        /// Final ε, in [0, 1].
        end: f64,
        /// Steps to reach `end` (>= 1).
        decay_steps: u64,
    },
    /// Exponential decay from `start` towards `end` with time constant `decay_steps`.
    Exponential {
        /// ε at t = 0, in [0, 1].
        start: f64,
        /// Asymptotic ε, in [0, 1].
        end: f64,
        /// Time constant τ in steps (>= 1).
        decay_steps: u64,
    },
    /// A fixed ε.
    Constant {
        /// ε, in [0, 1].
        value: f64,
    },
}

impl EpsilonSchedule {
    /// ε after `t` acting steps (see the type's documentation for the formulas).
    pub fn epsilon(&self, t: u64) -> f64 {
        match *self {
            EpsilonSchedule::Linear {
                start,
                end,
                decay_steps,
            } => {
                let frac = (1.0 - t as f64 / decay_steps.max(1) as f64).max(0.0);
                end + (start - end) * frac
            }
            EpsilonSchedule::Exponential {
                start,
                end,
                decay_steps,
            } => end + (start - end) * (-(t as f64) / decay_steps.max(1) as f64).exp(),
            EpsilonSchedule::Constant { value } => value,
        }
    }

    /// Check the ranges documented on the variants.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] naming the field (`epsilon.start`, ...).
    pub fn validate(&self) -> Result<()> {
        let unit = |field: &'static str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(DdqnError::InvalidConfig {
                    field,
                    reason: format!("{v} is outside [0, 1]"),
                })
            }
        };
        match *self {
            EpsilonSchedule::Linear {
                start,
                end,
                decay_steps,
            }
            | EpsilonSchedule::Exponential {
                start,
                end,
                decay_steps,
            } => {
                unit("epsilon.start", start)?;
                unit("epsilon.end", end)?;
                if decay_steps == 0 {
                    return Err(DdqnError::InvalidConfig {
                        field: "epsilon.decay_steps",
                        reason: "must be >= 1".into(),
                    });
                }
                Ok(())
            }
            EpsilonSchedule::Constant { value } => unit("epsilon.value", value),
        }
    }
}

/// Epsilon-greedy choice over precomputed Q-values.
///
/// `q_values[i]` is the Q-value of candidate `i`; `mask` (empty = all valid) marks valid
/// candidates. With probability `epsilon` a uniformly random valid candidate is returned,
/// otherwise the valid candidate of highest Q-value (lowest index on ties). Returns `None` when
/// no candidate is valid. Allocation-free; usable with `PolicySnapshot`
/// Q-values in a scheduler's hot loop.
pub fn epsilon_greedy<R: Rng + ?Sized>(
    q_values: &[f32],
    mask: &[bool],
    epsilon: f64,
    rng: &mut R,
) -> Option<usize> {
    let valid = |i: usize| mask.is_empty() || mask[i];
    let n_valid = if mask.is_empty() {
        q_values.len()
    } else {
        mask.iter().take(q_values.len()).filter(|&&m| m).count()
    };
    if n_valid == 0 {
        return None;
    }
    if epsilon > 0.0 && rng.random::<f64>() < epsilon {
        let mut pick = rng.random_range(0..n_valid);
        for i in 0..q_values.len() {
            if valid(i) {
                if pick == 0 {
                    return Some(i);
                }
                pick -= 1;
            }
        }
    }
    argmax_valid(q_values, mask)
}

/// Index of the largest valid Q-value (lowest index on ties), `None` if nothing is valid.
pub(crate) fn argmax_valid(q_values: &[f32], mask: &[bool]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, &q) in q_values.iter().enumerate() {
        if !mask.is_empty() && !mask[i] {
            continue;
        }
        match best {
            Some((_, b)) if q <= b => {}
            _ => best = Some((i, q)),
        }
    }
    best.map(|(i, _)| i)
}
