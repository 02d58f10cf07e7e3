//! Hyper-parameters of the agent, as one serde-serialisable [`AgentConfig`].
//!
//! Defaults follow the usual DQN practice (Mnih et al., *Human-level control through deep
//! reinforcement learning*, Nature 518, 2015; van Hasselt, Guez & Silver, *Deep Reinforcement
//! Learning with Double Q-learning*, AAAI 2016) scaled to the small MLPs a list scheduler needs;
//! the WORL-RTGS paper (Du et al., *Big Data and Cognitive Computing* 9(11):284, 2025) does not
//! publish its values, so they are ours.

use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result};
use crate::exploration::EpsilonSchedule;

/// Most hidden layers of the Q-network ([`AgentConfig::validate`]).
pub const MAX_HIDDEN_LAYERS: usize = 8;

/// Widest hidden layer of the Q-network ([`AgentConfig::validate`]).
pub const MAX_HIDDEN_WIDTH: usize = 4096;

/// Largest mini-batch ([`AgentConfig::validate`]).
pub const MAX_BATCH_SIZE: usize = 4096;

/// Most `batch_size × Σ hidden widths`: the hidden activations of one training step per
/// candidate action (a mini-batch scores every candidate of every sampled transition, so
/// activations are this times the candidates, times 4 bytes). 2¹⁸ keeps a step's
/// activations with 64 candidates under 64 MiB (measured before this bound: batch 512 ×
/// one layer of 4096 with 64 candidates, 2²¹ per candidate, peaked at 570 MB).
pub const MAX_BATCH_ACTIVATIONS: usize = 1 << 18;

/// Most parameters of the hidden layers (`Σ h_i·h_{i+1} + Σ h_i`: the weights between
/// hidden layers and their biases, which dominate; the input and output layers add at most
/// `(inputs + branches) × widest` more). 2²³ ≈ 8.4 million: `8 × 1024` or `2 × 2048` fit,
/// `3 × 2048` and `8 × 4096` (117 million, 2.9 GB with Adam and the target network) do
/// not. The agent keeps about 8 f32 copies of every parameter
/// ([`AgentConfig::memory_estimate`]), so this caps them near 270 MB.
pub const MAX_HIDDEN_PARAMETERS: usize = 1 << 23;

/// Most memory an agent may be estimated to need ([`AgentConfig::memory_estimate`]), bytes:
/// 512 MiB, so a scheduler run stays well under 1 GB.
pub const MAX_AGENT_MEMORY: u64 = 512 << 20;

/// The hidden-layer parameters [`MAX_HIDDEN_PARAMETERS`] bounds: `Σ h_i·h_{i+1} + Σ h_i`
/// (saturating).
///
/// ```
/// use worl_ddqn::config::hidden_parameters;
/// assert_eq!(hidden_parameters(&[64, 32]), 64 * 32 + 64 + 32);
/// assert_eq!(hidden_parameters(&[4096; 8]), 7 * 4096 * 4096 + 8 * 4096);
/// ```
pub fn hidden_parameters(hidden: &[usize]) -> usize {
    let weights = hidden.windows(2).fold(0usize, |acc, w| {
        acc.saturating_add(w[0].saturating_mul(w[1]))
    });
    hidden.iter().fold(weights, |acc, &h| acc.saturating_add(h))
}

/// Largest replay buffer, transitions ([`AgentConfig::validate`]; the buffer is allocated
/// whole when the agent is made).
pub const MAX_REPLAY_CAPACITY: usize = 1_000_000;

/// Checks the network and batch sizes against [`MAX_HIDDEN_LAYERS`],
/// [`MAX_HIDDEN_WIDTH`], [`MAX_HIDDEN_PARAMETERS`], [`MAX_BATCH_SIZE`] and
/// [`MAX_BATCH_ACTIVATIONS`]; the reason names the limit. Used by [`AgentConfig::validate`] and by option parsers that want the
/// user's option name in the error.
///
/// # Errors
/// `(field, reason)`: `"hidden"` or `"batch_size"` and why.
///
/// ```
/// use worl_ddqn::config::check_network_size;
/// assert!(check_network_size(&[64, 64], 32).is_ok());
/// let (field, why) = check_network_size(&[100_000_000], 32).unwrap_err();
/// assert_eq!(field, "hidden");
/// assert!(why.contains("4096"), "{why}");
/// // 8 layers of 4096: 117 million parameters.
/// let (field, why) = check_network_size(&[4096; 8], 1).unwrap_err();
/// assert_eq!(field, "hidden");
/// assert!(why.contains("8388608"), "{why}");
/// ```
pub fn check_network_size(
    hidden: &[usize],
    batch_size: usize,
) -> std::result::Result<(), (&'static str, String)> {
    if hidden.len() > MAX_HIDDEN_LAYERS {
        return Err((
            "hidden",
            format!(
                "{} hidden layers; at most {MAX_HIDDEN_LAYERS}",
                hidden.len()
            ),
        ));
    }
    if let Some((i, &w)) = hidden
        .iter()
        .enumerate()
        .find(|(_, w)| **w > MAX_HIDDEN_WIDTH)
    {
        return Err((
            "hidden",
            format!("layer {i} has width {w}; at most {MAX_HIDDEN_WIDTH}"),
        ));
    }
    let params = hidden_parameters(hidden);
    if params > MAX_HIDDEN_PARAMETERS {
        return Err((
            "hidden",
            format!(
                "{params} parameters between the hidden layers; at most {MAX_HIDDEN_PARAMETERS} (use fewer or narrower layers)"
            ),
        ));
    }
    if batch_size > MAX_BATCH_SIZE {
        return Err((
            "batch_size",
            format!("{batch_size}; at most {MAX_BATCH_SIZE}"),
        ));
    }
    let width: usize = hidden.iter().sum();
    if batch_size.saturating_mul(width) > MAX_BATCH_ACTIVATIONS {
        return Err((
            "hidden",
            format!(
                "batch {batch_size} × {width} hidden units = {} activations per candidate; at most {MAX_BATCH_ACTIVATIONS} (use a smaller batch or narrower layers)",
                batch_size.saturating_mul(width)
            ),
        ));
    }
    Ok(())
}
use crate::mlp::NetworkShape;

/// How the target network follows the online network (Mnih et al. 2015, "target network").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TargetUpdate {
    /// Copy the online weights into the target network every `every` training steps
    /// (Mnih et al. 2015, Algorithm 1: "every C steps reset Q̂ = Q").
    Hard {
        /// Period in training steps (>= 1).
        every: u64,
    },
    /// Polyak averaging after every training step: θ⁻ ← τ·θ + (1 − τ)·θ⁻
    /// (Lillicrap et al., ICLR 2016, "soft target updates").
    Soft {
        /// Interpolation weight τ in (0, 1].
        tau: f32,
    },
}

/// Which bootstrap target the loss regresses on.
///
/// Text form (WORL-RTGS's option `td`, serde, `FromStr`/`Display`): `double`, `vanilla`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TdTarget {
    /// Double DQN (van Hasselt et al. 2016, eq. 4): the online network chooses the next action,
    /// the target network values it. Computed by `target::double_dqn_target`.
    Double,
    /// Vanilla DQN (Mnih et al. 2015): max over the target network's values. Kept for
    /// ablations (WORL-RTGS's option `td=vanilla`). Computed by `target::dqn_target`.
    Vanilla,
}

serde_plain::derive_fromstr_from_deserialize!(TdTarget);
serde_plain::derive_display_from_serialize!(TdTarget);

/// Replay buffer sampling scheme.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReplayConfig {
    /// Uniform sampling with replacement (Mnih et al. 2015, "experience replay").
    Uniform,
    /// Proportional prioritized experience replay (Schaul, Quan, Antonoglou & Silver,
    /// *Prioritized Experience Replay*, ICLR 2016, §3.3 and Algorithm 1):
    /// p_i = (|δ_i| + ε)^α, P(i) = p_i / Σ_k p_k, importance weights
    /// w_i = (N·P(i))^(−β) / max_j w_j with β annealed linearly from `beta_start` to 1.
    Prioritized {
        /// Priority exponent α in [0, 1] (0 = uniform). Paper value 0.6.
        alpha: f32,
        /// Initial importance-sampling exponent β₀ in [0, 1]. Paper value 0.4.
        beta_start: f32,
        /// Training steps over which β reaches 1.
        beta_anneal_steps: u64,
        /// Small constant ε > 0 added to |δ| so no transition has zero priority.
        priority_epsilon: f32,
    },
}

impl ReplayConfig {
    /// The paper's proportional-PER settings: α = 0.6, β₀ = 0.4 annealed over 100,000 steps,
    /// ε = 1e-6 (Schaul et al. 2016, Table 3).
    pub fn prioritized_default() -> Self {
        ReplayConfig::Prioritized {
            alpha: 0.6,
            beta_start: 0.4,
            beta_anneal_steps: 100_000,
            priority_epsilon: 1e-6,
        }
    }
}

/// Every hyper-parameter of an `Agent`; JSON round-trips through serde.
///
/// Missing fields take their defaults when deserialising (`#[serde(default)]`), so a config
/// file may name only what it changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentConfig {
    /// Length of the state feature vector (default 4). Must be >= 1.
    pub state_dim: usize,
    /// Length of each candidate action's feature vector (default 4). Must be >= 1.
    pub action_dim: usize,
    /// Widths of the hidden ReLU layers of the Q-network (default `[64, 64]`); may be empty
    /// (a linear Q-function).
    pub hidden: Vec<usize>,
    /// Output branches of the Q-network (default 1; see [`NetworkShape::branches`]): with
    /// `B >= 2` the last `B` candidate features are the branch code, so each transition is
    /// scored, and bootstrapped, by the head its action row names — per-branch TD targets
    /// over one shared replay buffer.
    pub branches: usize,
    /// Discount factor γ in [0, 1] (default 0.9, the value hinted by the WORL-RTGS code).
    pub gamma: f32,
    /// Adam learning rate (default 1e-3).
    pub learning_rate: f64,
    /// Adam β₁ (default 0.9).
    pub adam_beta1: f32,
    /// Adam β₂ (default 0.999).
    pub adam_beta2: f32,
    /// Adam ε (default 1e-8).
    pub adam_epsilon: f32,
    /// Mini-batch size (default 64).
    pub batch_size: usize,
    /// Replay buffer capacity in transitions (default 10,000); the oldest is overwritten.
    pub replay_capacity: usize,
    /// Replay sampling scheme (default uniform).
    pub replay: ReplayConfig,
    /// Transitions stored before the first training step (default 256, at least `batch_size`
    /// are always required).
    pub learning_starts: usize,
    /// Environment steps per training step in `Agent::train` (default 1).
    pub train_every: u64,
    /// Target network update rule (default hard copy every 100 training steps).
    pub target_update: TargetUpdate,
    /// Bootstrap target (default Double DQN).
    pub td_target: TdTarget,
    /// Exploration schedule of the epsilon-greedy policy (default linear 1.0 → 0.05 over
    /// 10,000 steps).
    pub epsilon: EpsilonSchedule,
    /// Huber loss threshold δ (default 1.0, the gradient clipping of Mnih et al. 2015).
    pub huber_delta: f32,
    /// Clip the global L2 norm of the gradient (all parameters together) to this value;
    /// `None` disables clipping (default `Some(10.0)`).
    pub grad_clip_norm: Option<f32>,
    /// Seed of the weight initialisation, exploration and replay sampling (default 0).
    pub seed: u64,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            state_dim: 4,
            action_dim: 4,
            hidden: vec![64, 64],
            branches: 1,
            gamma: 0.9,
            learning_rate: 1e-3,
            adam_beta1: 0.9,
            adam_beta2: 0.999,
            adam_epsilon: 1e-8,
            batch_size: 64,
            replay_capacity: 10_000,
            replay: ReplayConfig::Uniform,
            learning_starts: 256,
            train_every: 1,
            target_update: TargetUpdate::Hard { every: 100 },
            td_target: TdTarget::Double,
            epsilon: EpsilonSchedule::Linear {
                start: 1.0,
                end: 0.05,
                decay_steps: 10_000,
            },
            huber_delta: 1.0,
            grad_clip_norm: Some(10.0),
            seed: 0,
        }
    }
}

impl AgentConfig {
    /// A default config for the given feature sizes.
    pub fn new(state_dim: usize, action_dim: usize) -> Self {
        AgentConfig {
            state_dim,
            action_dim,
            ..AgentConfig::default()
        }
    }

    /// Check every field against its documented range.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] naming the first offending field.
    pub fn validate(&self) -> Result<()> {
        fn bad(field: &'static str, reason: impl Into<String>) -> Result<()> {
            Err(DdqnError::InvalidConfig {
                field,
                reason: reason.into(),
            })
        }
        if self.state_dim == 0 {
            return bad("state_dim", "must be >= 1");
        }
        if self.action_dim == 0 {
            return bad("action_dim", "must be >= 1");
        }
        if let Some(i) = self.hidden.iter().position(|&h| h == 0) {
            return bad("hidden", format!("layer {i} has width 0"));
        }
        if let Err((field, reason)) = check_network_size(&self.hidden, self.batch_size) {
            return bad(field, reason);
        }
        if self.replay_capacity > MAX_REPLAY_CAPACITY {
            return bad(
                "replay_capacity",
                format!("{}; at most {MAX_REPLAY_CAPACITY}", self.replay_capacity),
            );
        }
        self.network_spec().validate()?;
        if !(0.0..=1.0).contains(&self.gamma) {
            return bad("gamma", format!("{} is outside [0, 1]", self.gamma));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(
                "learning_rate",
                format!("{} is not > 0", self.learning_rate),
            );
        }
        if !(0.0..1.0).contains(&self.adam_beta1) {
            return bad(
                "adam_beta1",
                format!("{} is outside [0, 1)", self.adam_beta1),
            );
        }
        if !(0.0..1.0).contains(&self.adam_beta2) {
            return bad(
                "adam_beta2",
                format!("{} is outside [0, 1)", self.adam_beta2),
            );
        }
        if !(self.adam_epsilon.is_finite() && self.adam_epsilon > 0.0) {
            return bad("adam_epsilon", format!("{} is not > 0", self.adam_epsilon));
        }
        if self.batch_size == 0 {
            return bad("batch_size", "must be >= 1");
        }
        if self.replay_capacity < self.batch_size {
            return bad(
                "replay_capacity",
                format!(
                    "{} is smaller than batch_size {}",
                    self.replay_capacity, self.batch_size
                ),
            );
        }
        if self.train_every == 0 {
            return bad("train_every", "must be >= 1");
        }
        match self.target_update {
            TargetUpdate::Hard { every: 0 } => return bad("target_update.every", "must be >= 1"),
            TargetUpdate::Soft { tau } if !(tau > 0.0 && tau <= 1.0) => {
                return bad("target_update.tau", format!("{tau} is outside (0, 1]"));
            }
            _ => {}
        }
        if let ReplayConfig::Prioritized {
            alpha,
            beta_start,
            priority_epsilon,
            ..
        } = self.replay
        {
            if !(0.0..=1.0).contains(&alpha) {
                return bad("replay.alpha", format!("{alpha} is outside [0, 1]"));
            }
            if !(0.0..=1.0).contains(&beta_start) {
                return bad(
                    "replay.beta_start",
                    format!("{beta_start} is outside [0, 1]"),
                );
            }
            if !(priority_epsilon.is_finite() && priority_epsilon > 0.0) {
                return bad(
                    "replay.priority_epsilon",
                    format!("{priority_epsilon} is not > 0"),
                );
            }
        }
        self.epsilon.validate()?;
        if !(self.huber_delta.is_finite() && self.huber_delta > 0.0) {
            return bad("huber_delta", format!("{} is not > 0", self.huber_delta));
        }
        if let Some(c) = self.grad_clip_norm
            && !(c.is_finite() && c > 0.0)
        {
            return bad("grad_clip_norm", format!("{c} is not > 0"));
        }
        Ok(())
    }

    /// Serialise to pretty JSON.
    ///
    /// # Errors
    /// [`DdqnError::Json`] (not expected for a valid config).
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// Parse from JSON and [`validate`](Self::validate).
    ///
    /// # Errors
    /// [`DdqnError::Json`] for malformed JSON or unknown fields, [`DdqnError::InvalidConfig`]
    /// for out-of-range values.
    pub fn from_json(json: &str) -> Result<Self> {
        let config: AgentConfig = serde_json::from_str(json)?;
        config.validate()?;
        Ok(config)
    }

    /// An upper estimate of the memory the agent needs with at most `candidates` candidate
    /// actions per decision, bytes, by component (f32 = 4 bytes, `P` parameters of
    /// [`NetworkShape::num_params`], `B` the batch size, `k = candidates`):
    ///
    /// * parameters, `32 · P`: eight copies (online weights, their gradients, the clipped
    ///   gradients, Adam's two moments, the updated weights, the target network, the host
    ///   snapshot acting reads);
    /// * activations of a training step, `8 · B · (k + 1) · Σ hidden`: Q of the `B` sampled
    ///   rows and of their next states' `k` candidates, a layer's input and output alive
    ///   together (measured: about half of this);
    /// * the replay buffer, `capacity · (4 · (2 · state_dim + action_dim + 1 + k ·
    ///   action_dim) + 25)` (state, action, reward, next state, next candidates, done flag,
    ///   the candidates' vector header), plus `32 · capacity` rounded up to a power of two
    ///   for prioritized replay's trees.
    ///
    /// ```
    /// use worl_ddqn::AgentConfig;
    /// let c = AgentConfig { hidden: vec![64], batch_size: 32, replay_capacity: 1000, ..AgentConfig::new(4, 8) };
    /// let m = c.memory_estimate(8);
    /// assert_eq!(m.parameters, 32 * ((12 * 64 + 64) + (64 + 1)));
    /// assert_eq!(m.activations, 8 * 32 * 9 * 64);
    /// assert_eq!(m.replay, 1000 * (4 * (8 + 8 + 1 + 64) + 25));
    /// assert_eq!(m.total(), m.parameters + m.activations + m.replay);
    /// ```
    pub fn memory_estimate(&self, candidates: usize) -> MemoryEstimate {
        let u = |x: usize| x as u64;
        let params = u(self.network_spec().num_params());
        let k = u(candidates);
        let width = self
            .hidden
            .iter()
            .fold(0u64, |a, &h| a.saturating_add(u(h)));
        let activations = 8u64
            .saturating_mul(u(self.batch_size))
            .saturating_mul(k.saturating_add(1))
            .saturating_mul(width);
        let per_transition = 4u64
            .saturating_mul(
                (2 * u(self.state_dim) + u(self.action_dim) + 1)
                    .saturating_add(k.saturating_mul(u(self.action_dim))),
            )
            .saturating_add(25);
        let mut replay = u(self.replay_capacity).saturating_mul(per_transition);
        if matches!(self.replay, ReplayConfig::Prioritized { .. }) {
            let leaves = u(self
                .replay_capacity
                .checked_next_power_of_two()
                .unwrap_or(usize::MAX));
            replay = replay.saturating_add(32u64.saturating_mul(leaves));
        }
        MemoryEstimate {
            parameters: 32u64.saturating_mul(params),
            activations,
            replay,
        }
    }

    /// Checks [`memory_estimate`](Self::memory_estimate) with `candidates` against
    /// [`MAX_AGENT_MEMORY`].
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] naming the field behind the largest component
    /// (`hidden` for the parameters, `batch_size` for the activations, `replay_capacity`
    /// for the replay buffer), with the estimate in the reason.
    ///
    /// ```
    /// use worl_ddqn::AgentConfig;
    /// let small = AgentConfig { hidden: vec![64, 64], ..AgentConfig::new(4, 8) };
    /// assert!(small.check_memory(64).is_ok());
    /// let big = AgentConfig { replay_capacity: 1_000_000, ..small };
    /// let e = big.check_memory(64).unwrap_err();
    /// assert!(e.to_string().contains("replay_capacity"), "{e}");
    /// ```
    pub fn check_memory(&self, candidates: usize) -> Result<()> {
        let m = self.memory_estimate(candidates);
        if m.total() <= MAX_AGENT_MEMORY {
            return Ok(());
        }
        Err(DdqnError::InvalidConfig {
            field: m.largest(),
            reason: m.describe(candidates),
        })
    }

    /// The network architecture this config describes.
    pub fn network_spec(&self) -> NetworkShape {
        NetworkShape {
            state_dim: self.state_dim,
            action_dim: self.action_dim,
            hidden: self.hidden.clone(),
            branches: self.branches,
        }
    }
}

/// An agent's estimated memory by component, bytes ([`AgentConfig::memory_estimate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Copies of the parameters: weights, gradients, Adam's moments, target, snapshot.
    pub parameters: u64,
    /// Activations of one training step.
    pub activations: u64,
    /// The replay buffer when full.
    pub replay: u64,
}

impl MemoryEstimate {
    /// The sum of the components (saturating).
    pub fn total(&self) -> u64 {
        self.parameters
            .saturating_add(self.activations)
            .saturating_add(self.replay)
    }

    /// The config field behind the largest component: `hidden`, `batch_size` or
    /// `replay_capacity`.
    pub fn largest(&self) -> &'static str {
        if self.parameters >= self.activations && self.parameters >= self.replay {
            "hidden"
        } else if self.activations >= self.replay {
            "batch_size"
        } else {
            "replay_capacity"
        }
    }

    /// A sentence giving the estimate, its components and the limit, in MiB.
    pub fn describe(&self, candidates: usize) -> String {
        let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
        format!(
            "the agent would need about {:.0} MiB with {candidates} candidates (parameters {:.0}, training activations {:.0}, replay buffer {:.0}); at most {:.0} MiB",
            mib(self.total()),
            mib(self.parameters),
            mib(self.activations),
            mib(self.replay),
            mib(MAX_AGENT_MEMORY)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_layers_of_4096_are_refused_naming_hidden() {
        let (field, why) = check_network_size(&[4096; 8], 1).unwrap_err();
        assert_eq!(field, "hidden");
        assert!(
            why.contains(&format!("{}", 7 * 4096 * 4096 + 8 * 4096)),
            "{why}"
        );
        let c = AgentConfig {
            hidden: vec![4096; 8],
            batch_size: 1,
            replay_capacity: 1,
            learning_starts: 1,
            ..AgentConfig::new(4, 8)
        };
        match c.validate() {
            Err(DdqnError::InvalidConfig { field, .. }) => assert_eq!(field, "hidden"),
            other => panic!("expected InvalidConfig, got {other:?}"),
        }
    }

    #[test]
    fn hidden_parameters_are_bounded_at_the_limit() {
        // 2 × 2048: 2048² + 2·2048 = 4,198,400 parameters; 3 × 2048: 8,394,752 > 2²³.
        assert!(check_network_size(&[2048, 2048], 32).is_ok());
        assert_eq!(check_network_size(&[2048; 3], 32).unwrap_err().0, "hidden");
        assert!(check_network_size(&[1024; 8], 32).is_ok());
        assert_eq!(hidden_parameters(&[usize::MAX, usize::MAX]), usize::MAX);
        // batch × Σ hidden at the activation limit and one over.
        assert!(check_network_size(&[512], 512).is_ok());
        assert_eq!(check_network_size(&[513], 512).unwrap_err().0, "hidden");
    }

    #[test]
    fn the_largest_allowed_agent_fits_the_memory_bound_with_the_schedulers_replay() {
        // The widest network and step the size checks allow, 64 candidates, 20,000
        // transitions of replay (the deep-RL schedulers' default), as MDTS with 16 branches.
        let c = AgentConfig {
            hidden: vec![1024; 8],
            batch_size: 32,
            replay_capacity: 20_000,
            branches: 16,
            ..AgentConfig::new(4, 8 + 16)
        };
        assert!(check_network_size(&c.hidden, c.batch_size).is_ok());
        let m = c.memory_estimate(64);
        assert_eq!(m.parameters, 32 * c.network_spec().num_params() as u64);
        assert_eq!(m.activations, 8 * 32 * 65 * 8192);
        assert_eq!(m.replay, 20_000 * (4 * (8 + 24 + 1 + 64 * 24) + 25));
        assert!(m.total() <= MAX_AGENT_MEMORY, "{m:?}");
        assert!(c.check_memory(64).is_ok());
        // A full million-transition replay of 64 candidates would not.
        let big = AgentConfig {
            replay_capacity: 1_000_000,
            ..c
        };
        match big.check_memory(64) {
            Err(DdqnError::InvalidConfig { field, reason }) => {
                assert_eq!(field, "replay_capacity");
                assert!(reason.contains("at most 512 MiB"), "{reason}");
            }
            other => panic!("expected InvalidConfig, got {other:?}"),
        }
    }
}
