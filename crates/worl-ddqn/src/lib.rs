//! # worl-ddqn — a Double DQN agent on burn for variable candidate sets
//!
//! The learning half of WORL-RTGS (Du et al., *Big Data and Cognitive Computing* 9(11):284,
//! 2025): for every task the
//! scheduler offers a state (where the task stands in the plan and the search) and a set of
//! candidate GPUs, each described by a feature vector (its finish time, running-time gap to
//! the task's hope, costs); the agent scores
//! every `state ⧺ candidate` row with one MLP and picks the best. Because the network scores
//! rows rather than emitting one output per action, **one trained network serves any number of
//! candidates** — clusters of 8 or 500 GPUs alike.
//!
//! Methods:
//! * DQN with experience replay and a target network — Mnih et al., *Human-level control
//!   through deep reinforcement learning*, Nature 518:529, 2015;
//! * the Double DQN target — van Hasselt, Guez & Silver, *Deep Reinforcement Learning with
//!   Double Q-learning*, AAAI 2016 ([`target::double_dqn_target`]);
//! * proportional prioritized replay (optional) — Schaul, Quan, Antonoglou & Silver,
//!   *Prioritized Experience Replay*, ICLR 2016 ([`ReplayConfig::Prioritized`]).
//!
//! Backends: burn 0.22's wgpu backend (GPU) or flex (pure-Rust CPU), chosen at run time
//! ([`select_device`], env `WORL_DEVICE=wgpu|flex|auto`). Hot-loop inference goes through
//! [`PolicySnapshot`], a plain-Rust copy of the network (no burn call, no allocation).
//!
//! ## Cargo features
//!
//! | feature | default | enables |
//! |---|---|---|
//! | `wgpu` | no | burn's wgpu backend (Vulkan / Metal / DX12, software adapters such as Mesa's lavapipe included) |
//!
//! flex is always compiled. Without the `wgpu` feature the crate builds without wgpu, cubecl
//! and naga (about 140 crates fewer, roughly half the cold build):
//! [`DeviceChoice::Auto`] then selects flex, and [`DeviceChoice::Wgpu`] (or
//! `WORL_DEVICE=wgpu`) returns [`DdqnError::FeatureDisabled`] instead of a device. The
//! networks are small (two hidden layers of tens of units), so flex trains them faster than
//! a GPU would: a training step takes about 1 ms on flex and 27 ms on wgpu over lavapipe.
//!
//! ## Example
//!
//! A contextual bandit: each step offers 2–4 candidates with features `x ∈ [0, 1]²` and pays
//! `x₀ − x₁`; a few hundred training steps on flex learn to pick the best.
//!
//! ```
//! use worl_ddqn::{Agent, AgentConfig, ComputeDevice, Environment, EpsilonSchedule,
//!                 Observation, Step, TargetUpdate};
//! use rand::{Rng, SeedableRng};
//! use rand_chacha::ChaCha8Rng;
//!
//! struct Bandit { rng: ChaCha8Rng, rewards: Vec<f32> }
//!
//! impl Bandit {
//!     fn fill(&mut self, obs: &mut Observation) {
//!         obs.clear();
//!         obs.state.push(1.0);
//!         self.rewards.clear();
//!         for _ in 0..self.rng.random_range(2..=4) {
//!             let (a, b) = (self.rng.random::<f32>(), self.rng.random::<f32>());
//!             obs.candidates.extend_from_slice(&[a, b]);
//!             self.rewards.push(a - b);
//!         }
//!     }
//! }
//!
//! impl Environment for Bandit {
//!     fn state_dim(&self) -> usize { 1 }
//!     fn action_dim(&self) -> usize { 2 }
//!     fn reset(&mut self, seed: u64, obs: &mut Observation) {
//!         self.rng = ChaCha8Rng::seed_from_u64(seed);
//!         self.fill(obs);
//!     }
//!     fn step(&mut self, action: usize, next: &mut Observation) -> Step {
//!         let reward = self.rewards[action];
//!         next.clear();
//!         Step { reward, done: true }
//!     }
//! }
//!
//! # fn main() -> Result<(), worl_ddqn::DdqnError> {
//! let config = AgentConfig {
//!     state_dim: 1,
//!     action_dim: 2,
//!     hidden: vec![16],
//!     batch_size: 32,
//!     learning_starts: 32,
//!     learning_rate: 1e-2,
//!     epsilon: EpsilonSchedule::Linear { start: 1.0, end: 0.05, decay_steps: 200 },
//!     target_update: TargetUpdate::Soft { tau: 0.05 },
//!     seed: 7,
//!     ..AgentConfig::default()
//! };
//! let device = ComputeDevice::flex();
//! let mut agent = Agent::new(config, &device)?;
//! let mut env = Bandit { rng: ChaCha8Rng::seed_from_u64(0), rewards: Vec::new() };
//! let report = agent.train(&mut env, 400, 1)?;
//! assert!(report.train_steps > 300);
//!
//! // Fast inference: a snapshot scores a state's candidates without burn.
//! let policy = agent.snapshot()?;
//! let mut scratch = policy.scratch();
//! let best = policy.greedy(&[1.0], &[0.1, 0.9, 0.9, 0.1, 0.5, 0.5], &mut scratch)?;
//! assert_eq!(best, 1); // x₀ − x₁ is largest for the second candidate
//! # Ok(())
//! # }
//! ```
//!
//! ## Module map
//!
//! In reading order: every module uses only modules above it (no cycles), so the table can be
//! read top to bottom.
//!
//! | module | holds | uses |
//! |---|---|---|
//! | [`error`] | [`DdqnError`] | — |
//! | [`env`](mod@env) | [`Environment`] trait, [`Observation`] (state + candidate rows + mask), [`Step`], [`Transition`] | — |
//! | [`exploration`] | [`EpsilonSchedule`] (linear / exponential / constant), [`epsilon_greedy`] | error |
//! | [`batch`] | [`CandidateBatch`] (states + candidates flattened with offsets), [`PaddedCandidates`] | error |
//! | [`mlp`] | [`NetworkShape`], [`LayerWeights`]: the network's architecture and host weights (no burn) | error |
//! | [`config`] | [`AgentConfig`] (serde), [`TargetUpdate`], [`TdTarget`], [`ReplayConfig`] | error, exploration, mlp |
//! | [`snapshot`] | [`PolicySnapshot`], [`SnapshotScratch`]: allocation-free plain-Rust inference | error, mlp |
//! | [`network`] | [`QNetwork`] (burn `Module`, ReLU MLP); reads its weights out as [`LayerWeights`] and a [`PolicySnapshot`] | error, batch, exploration, mlp, snapshot |
//! | [`replay`] | [`ReplayBuffer`] (uniform / proportional PER with a sum tree), [`SampledBatch`] | error, env, batch, config |
//! | [`target`] | [`target::double_dqn_target`], [`target::dqn_target`], [`target::td_targets`] | error, batch, config, network |
//! | [`device`] | [`DeviceChoice`], [`DeviceKind`], [`ComputeDevice`], [`select_device`], [`device_from_env`] | error |
//! | [`agent`] | [`Agent`]: acting, remembering, `train_step`, target updates, train / evaluate loops | error, env, batch, config, snapshot, network, replay, target, device |
//! | [`checkpoint`] | [`save_checkpoint`], [`load_checkpoint`], [`load_policy`], [`CheckpointManifest`] | error, config, mlp, snapshot, network, device, agent |
//!
//! ## Reproducibility
//!
//! Weights are initialised on the host from `ChaCha8Rng::seed_from_u64(config.seed)` (burn's
//! own initialiser draws from a process-global RNG that parallel tests would race on), and
//! exploration, replay sampling and episode seeds use independent ChaCha8 streams of the same
//! seed. On flex, the same config and environment give bit-identical weights.
#![deny(missing_docs)]

pub mod agent;
pub mod batch;
pub mod checkpoint;
pub mod config;
pub mod device;
pub mod env;
pub mod error;
pub mod exploration;
pub mod mlp;
pub mod network;
pub mod replay;
pub mod snapshot;
pub mod target;

pub use agent::{Agent, TrainReport, TrainStats};
pub use batch::{CandidateBatch, PaddedCandidates};
pub use checkpoint::{
    CheckpointManifest, load_checkpoint, load_checkpoint_expecting, load_policy, read_manifest,
    save_checkpoint,
};
pub use config::{AgentConfig, MemoryEstimate, ReplayConfig, TargetUpdate, TdTarget};
pub use device::{
    ComputeDevice, DEVICE_ENV_VAR, DeviceChoice, DeviceKind, device_from_env, select_device,
};
pub use env::{Environment, Observation, Step, Transition};
pub use error::{DdqnError, Result};
pub use exploration::{EpsilonSchedule, epsilon_greedy};
pub use mlp::{LayerWeights, NetworkShape};
pub use network::QNetwork;
pub use replay::{ReplayBuffer, SampledBatch};
pub use snapshot::{PolicySnapshot, SnapshotScratch};
