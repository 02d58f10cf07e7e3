//! The Double DQN agent: online and target networks, replay buffer, epsilon-greedy acting and
//! the training step (Mnih et al., Nature 2015, Algorithm 1, with the Double DQN target of
//! van Hasselt et al., AAAI 2016).

use burn::module::Module;
use burn::nn::loss::HuberLossConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::batch::CandidateBatch;
use crate::config::{AgentConfig, ReplayConfig, TargetUpdate, TdTarget};
use crate::device::ComputeDevice;
use crate::env::{Environment, Observation, Step, Transition};
use crate::error::{DdqnError, Result, check_finite, check_len};
use crate::network::{QNetwork, read_f32};
use crate::replay::{ReplayBuffer, SampledBatch};
use crate::snapshot::{PolicySnapshot, SnapshotScratch};
use crate::target::{double_dqn_target, dqn_target};

/// ChaCha8 stream ids of the agent's random number generators (one seed, independent streams).
const STREAM_EXPLORE: u64 = 1;
const STREAM_REPLAY: u64 = 2;
const STREAM_EPISODES: u64 = 3;

/// Statistics of one training step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainStats {
    /// Importance-weighted mean Huber loss of the mini-batch.
    pub loss: f32,
    /// Mean |δ| = |y − Q_online(s, a)| over the mini-batch.
    pub mean_abs_td: f32,
}

/// Summary of [`Agent::train`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainReport {
    /// Undiscounted return of every episode finished during the call, in order.
    pub episode_returns: Vec<f64>,
    /// Environment steps taken in the call.
    pub env_steps: u64,
    /// Training steps taken in the call.
    pub train_steps: u64,
    /// Statistics of the last training step, if any.
    pub last_stats: Option<TrainStats>,
}

/// A Double DQN agent over an [`Environment`] with per-step candidate sets.
///
/// Holds the online network (parameters on the autodiff device), the target network (plain
/// device), Adam, the replay buffer and seeded ChaCha8 streams for exploration, replay sampling
/// and episode seeds. Acting uses a cached [`PolicySnapshot`] of the online network, refreshed
/// lazily after each training step, so a decision costs microseconds instead of a burn call.
pub struct Agent {
    config: AgentConfig,
    device: ComputeDevice,
    train_device: Device,
    online: QNetwork,
    target: QNetwork,
    optimizer: ModuleOptimizer,
    replay: ReplayBuffer,
    explore_rng: ChaCha8Rng,
    replay_rng: ChaCha8Rng,
    episode_rng: ChaCha8Rng,
    env_steps: u64,
    train_steps: u64,
    snapshot: Option<PolicySnapshot>,
    scratch: SnapshotScratch,
    sampled: SampledBatch,
    valid_buf: Vec<f32>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.config)
            .field("device", &self.device.description())
            .field("env_steps", &self.env_steps)
            .field("train_steps", &self.train_steps)
            .field("replay_len", &self.replay.len())
            .finish()
    }
}

fn adam(config: &AgentConfig) -> ModuleOptimizer {
    AdamConfig::new()
        .with_beta_1(config.adam_beta1)
        .with_beta_2(config.adam_beta2)
        .with_epsilon(config.adam_epsilon)
        .init()
}

fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

impl Agent {
    /// A fresh agent: online network initialised from `config.seed`, target network a copy of
    /// it, empty replay buffer, step counters at 0.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] if `config` fails [`AgentConfig::validate`].
    pub fn new(config: AgentConfig, device: &ComputeDevice) -> Result<Self> {
        config.validate()?;
        let spec = config.network_spec();
        let train_device = device.device().clone().autodiff();
        let online = QNetwork::new(&spec, config.seed, &train_device)?;
        Self::assemble(config, device, online, None, 0, 0)
    }

    /// Build from parts (used by [`Agent::new`] and checkpoint loading).
    pub(crate) fn assemble(
        config: AgentConfig,
        device: &ComputeDevice,
        online: QNetwork,
        target: Option<QNetwork>,
        env_steps: u64,
        train_steps: u64,
    ) -> Result<Self> {
        config.validate()?;
        let train_device = device.device().clone().autodiff();
        let target = match target {
            Some(t) => t.valid(),
            None => online.valid(),
        };
        let replay = ReplayBuffer::new(
            config.replay_capacity,
            config.state_dim,
            config.action_dim,
            config.replay,
        )?;
        let seed = config.seed;
        let sampled = SampledBatch::new(config.state_dim, config.action_dim);
        Ok(Agent {
            optimizer: adam(&config),
            device: device.clone(),
            train_device,
            online,
            target,
            replay,
            explore_rng: rng(seed, STREAM_EXPLORE),
            replay_rng: rng(seed, STREAM_REPLAY),
            episode_rng: rng(seed, STREAM_EPISODES),
            env_steps,
            train_steps,
            snapshot: None,
            scratch: SnapshotScratch::default(),
            sampled,
            valid_buf: Vec::new(),
            config,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The compute device.
    pub fn device(&self) -> &ComputeDevice {
        &self.device
    }

    /// Acting steps taken so far (the clock of the epsilon schedule).
    pub fn env_steps(&self) -> u64 {
        self.env_steps
    }

    /// Training steps taken so far (the clock of target updates and β annealing).
    pub fn train_steps(&self) -> u64 {
        self.train_steps
    }

    /// Current exploration rate ε(env_steps).
    pub fn epsilon(&self) -> f64 {
        self.config.epsilon.epsilon(self.env_steps)
    }

    /// Transitions in the replay buffer.
    pub fn replay_len(&self) -> usize {
        self.replay.len()
    }

    /// The replay buffer.
    pub fn replay(&self) -> &ReplayBuffer {
        &self.replay
    }

    /// A plain-device (inference) copy of the online network.
    pub fn online_network(&self) -> QNetwork {
        self.online.valid()
    }

    /// A copy of the target network.
    pub fn target_network(&self) -> QNetwork {
        self.target.clone()
    }

    /// A [`PolicySnapshot`] of the current online network (for fast inference elsewhere).
    ///
    /// # Errors
    /// [`DdqnError::Backend`] if reading the weights back fails.
    pub fn snapshot(&mut self) -> Result<PolicySnapshot> {
        Ok(self.cached_snapshot()?.clone())
    }

    fn cached_snapshot(&mut self) -> Result<&PolicySnapshot> {
        if self.snapshot.is_none() {
            self.snapshot = Some(self.online.snapshot()?);
        }
        // Just filled above.
        self.snapshot
            .as_ref()
            .ok_or_else(|| DdqnError::Backend("snapshot cache empty".into()))
    }

    /// Number of candidates of `obs` after checking it against the config.
    fn check_observation(&self, obs: &Observation) -> Result<usize> {
        let (s, a) = (self.config.state_dim, self.config.action_dim);
        check_len("state", s, obs.state.len())?;
        if !obs.candidates.len().is_multiple_of(a) {
            return Err(DdqnError::DimensionMismatch {
                what: "candidates",
                expected: obs.candidates.len().div_ceil(a) * a,
                found: obs.candidates.len(),
            });
        }
        let k = obs.candidates.len() / a;
        if !obs.mask.is_empty() {
            check_len("mask", k, obs.mask.len())?;
        }
        let valid = if obs.mask.is_empty() {
            k
        } else {
            obs.mask.iter().filter(|&&m| m).count()
        };
        if valid == 0 {
            return Err(DdqnError::NoCandidates {
                what: "observation",
                row: 0,
            });
        }
        check_finite("state", &obs.state)?;
        check_finite("candidates", &obs.candidates)?;
        Ok(k)
    }

    /// Epsilon-greedy action for `obs` (a row index of its candidates), advancing the epsilon
    /// clock by one step. With probability ε(env_steps) a uniformly random valid candidate,
    /// otherwise the valid candidate of highest Q_online (lowest index on ties).
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`], [`DdqnError::NonFinite`] or
    /// [`DdqnError::NoCandidates`] for a malformed observation; [`DdqnError::Backend`].
    pub fn act(&mut self, obs: &Observation) -> Result<usize> {
        let k = self.check_observation(obs)?;
        let eps = self.epsilon();
        self.env_steps += 1;
        if eps > 0.0 && self.explore_rng.random::<f64>() < eps {
            let n_valid = if obs.mask.is_empty() {
                k
            } else {
                obs.mask.iter().filter(|&&m| m).count()
            };
            let pick = self.explore_rng.random_range(0..n_valid);
            let chosen = (0..k)
                .filter(|&i| obs.mask.is_empty() || obs.mask[i])
                .nth(pick)
                .unwrap_or(0);
            return Ok(chosen);
        }
        self.greedy_action(obs)
    }

    /// Greedy action for `obs` (no exploration, clocks unchanged).
    ///
    /// # Errors
    /// As [`act`](Self::act).
    pub fn greedy_action(&mut self, obs: &Observation) -> Result<usize> {
        self.check_observation(obs)?;
        self.cached_snapshot()?;
        let Agent {
            snapshot, scratch, ..
        } = self;
        let snap = snapshot
            .as_ref()
            .ok_or_else(|| DdqnError::Backend("snapshot cache empty".into()))?;
        snap.greedy_masked(&obs.state, &obs.candidates, &obs.mask, scratch)
    }

    /// Q-values of every candidate of every decision point of `batch` from one burn forward
    /// call on the agent's device (`[Σ kᵢ]`, in the batch's candidate order).
    ///
    /// # Errors
    /// See [`QNetwork::q_values_batch`].
    pub fn q_values_batch(&self, batch: &CandidateBatch) -> Result<Vec<f32>> {
        self.online.valid().q_values_batch(batch)
    }

    /// Greedy action of every decision point of `batch` from one burn forward call.
    ///
    /// # Errors
    /// See [`QNetwork::greedy_batch`].
    pub fn greedy_batch(&self, batch: &CandidateBatch) -> Result<Vec<usize>> {
        self.online.valid().greedy_batch(batch)
    }

    /// Store a transition in the replay buffer.
    ///
    /// # Errors
    /// See [`ReplayBuffer::push`].
    pub fn remember(&mut self, transition: &Transition<'_>) -> Result<()> {
        self.replay.push(transition).map(|_| ())
    }

    /// Store the transition (obs, action, step, next_obs): the action's features are row
    /// `action` of `obs.candidates`, the next candidates are the valid rows of `next_obs`
    /// (ignored when `step.done`).
    ///
    /// # Errors
    /// [`DdqnError::InvalidAction`] if `action` is not a valid candidate of `obs`, and the
    /// errors of [`ReplayBuffer::push`].
    pub fn remember_step(
        &mut self,
        obs: &Observation,
        action: usize,
        step: Step,
        next_obs: &Observation,
    ) -> Result<()> {
        let a = self.config.action_dim;
        if !obs.is_valid(action, a) {
            return Err(DdqnError::InvalidAction {
                action,
                candidates: obs.num_candidates(a),
            });
        }
        let action_features = obs.candidate(action, a).unwrap_or(&[]);
        self.valid_buf.clear();
        if !step.done {
            if next_obs.mask.is_empty() {
                self.valid_buf.extend_from_slice(&next_obs.candidates);
            } else {
                check_len("next mask", next_obs.num_candidates(a), next_obs.mask.len())?;
                for (row, &m) in next_obs.candidates.chunks_exact(a).zip(&next_obs.mask) {
                    if m {
                        self.valid_buf.extend_from_slice(row);
                    }
                }
            }
        }
        let t = Transition {
            state: &obs.state,
            action: action_features,
            reward: step.reward,
            next_state: if step.done { &[] } else { &next_obs.state },
            next_candidates: &self.valid_buf,
            done: step.done,
        };
        self.replay.push(&t).map(|_| ())
    }

    /// Current importance-sampling exponent β (PER; 1 for uniform replay).
    fn beta(&self) -> f64 {
        match self.config.replay {
            ReplayConfig::Uniform => 1.0,
            ReplayConfig::Prioritized {
                beta_start,
                beta_anneal_steps,
                ..
            } => {
                let frac = (self.train_steps as f64 / beta_anneal_steps.max(1) as f64).min(1.0);
                beta_start as f64 + (1.0 - beta_start as f64) * frac
            }
        }
    }

    /// One gradient step on a sampled mini-batch, if the buffer holds at least
    /// `max(learning_starts, batch_size)` transitions (else `Ok(None)`).
    ///
    /// Loss: mean_i w_i · Huber_δ(y_i − Q_online(s_i, a_i)) with y from
    /// [`double_dqn_target`] (or [`dqn_target`]), w the PER importance weights (1 for uniform);
    /// the global gradient L2 norm is clipped to `grad_clip_norm`; Adam updates the online
    /// network; PER priorities are set to |δ| + ε; the target network is then updated (hard
    /// copy every `every` steps, or Polyak with τ).
    ///
    /// # Errors
    /// [`DdqnError::Backend`] on a device failure.
    pub fn train_step(&mut self) -> Result<Option<TrainStats>> {
        let needed = self.config.learning_starts.max(self.config.batch_size);
        if self.replay.len() < needed {
            return Ok(None);
        }
        let beta = self.beta();
        self.replay.sample(
            self.config.batch_size,
            beta,
            &mut self.replay_rng,
            &mut self.sampled,
        )?;
        let batch = &self.sampled;
        let b = batch.len();
        let (s, a) = (self.config.state_dim, self.config.action_dim);
        let plain = self.device.device().clone();

        // Q_online(s, a) with gradients.
        let mut rows = Vec::with_capacity(b * (s + a));
        for i in 0..b {
            rows.extend_from_slice(&batch.states[i * s..(i + 1) * s]);
            rows.extend_from_slice(&batch.actions[i * a..(i + 1) * a]);
        }
        let inputs = Tensor::<2>::from_data(TensorData::new(rows, [b, s + a]), &self.train_device);
        let q = self.online.forward(inputs);

        // TD target without gradients.
        let online_valid = self.online.valid();
        let next = batch.next.padded_inputs(&plain);
        let rewards = Tensor::<1>::from_data(TensorData::new(batch.rewards.clone(), [b]), &plain);
        let dones = Tensor::<1>::from_data(TensorData::new(batch.dones.clone(), [b]), &plain);
        let gamma = self.config.gamma;
        let y = match self.config.td_target {
            TdTarget::Double => {
                double_dqn_target(&online_valid, &self.target, &next, rewards, dones, gamma)
            }
            TdTarget::Vanilla => dqn_target(&self.target, &next, rewards, dones, gamma),
        };
        let y = y.autodiff();

        let residual = y - q;
        let weights = Tensor::<1>::from_data(
            TensorData::new(batch.weights.clone(), [b]),
            &self.train_device,
        );
        let huber = HuberLossConfig::new(self.config.huber_delta).init();
        let loss = (huber.forward_residuals(residual.clone()) * weights).mean();
        let td = read_f32(residual.detach())?;

        let grads = loss.backward();
        let mut grads = GradientsParams::from_grads(grads, &self.online);
        if let Some(max_norm) = self.config.grad_clip_norm {
            clip_global_norm(&self.online, &mut grads, max_norm);
        }
        let online = self.online.clone();
        self.online = self
            .optimizer
            .step(self.config.learning_rate, online, grads);
        self.snapshot = None;

        let delta = self.config.huber_delta;
        let mut loss_sum = 0.0f64;
        let mut abs_sum = 0.0f64;
        for (d, w) in td.iter().zip(&self.sampled.weights) {
            let ad = d.abs();
            let h = if ad <= delta {
                0.5 * d * d
            } else {
                delta * (ad - 0.5 * delta)
            };
            loss_sum += (h * w) as f64;
            abs_sum += ad as f64;
        }
        if self.replay.is_prioritized() {
            let indices = std::mem::take(&mut self.sampled.indices);
            let r = self.replay.update_priorities(&indices, &td);
            self.sampled.indices = indices;
            r?;
        }

        self.train_steps += 1;
        match self.config.target_update {
            TargetUpdate::Hard { every } => {
                if self.train_steps.is_multiple_of(every) {
                    self.update_target();
                }
            }
            TargetUpdate::Soft { tau } => {
                let target = self.target.clone();
                self.target = target.polyak_towards(&self.online.valid(), tau);
            }
        }
        Ok(Some(TrainStats {
            loss: (loss_sum / b as f64) as f32,
            mean_abs_td: (abs_sum / b as f64) as f32,
        }))
    }

    /// Copy the online weights into the target network now (hard update).
    pub fn update_target(&mut self) {
        self.target = self.online.valid();
    }

    /// Interact with `env` for `steps` environment steps: epsilon-greedy acting, storing every
    /// transition, and one [`train_step`](Self::train_step) every `train_every` steps. Episodes
    /// end on `done` or after `max_episode_len` steps (a time limit: the last transition is then
    /// stored as non-terminal); each new episode is reset with a seed drawn from the agent's
    /// episode stream.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] if the environment's dimensions differ from the
    /// config's, any error of [`act`](Self::act), [`remember_step`](Self::remember_step) or
    /// [`train_step`](Self::train_step).
    pub fn train<E: Environment + ?Sized>(
        &mut self,
        env: &mut E,
        steps: u64,
        max_episode_len: usize,
    ) -> Result<TrainReport> {
        check_len("env.state_dim", self.config.state_dim, env.state_dim())?;
        check_len("env.action_dim", self.config.action_dim, env.action_dim())?;
        let mut report = TrainReport::default();
        let mut obs = Observation::default();
        let mut next = Observation::default();
        env.reset(self.episode_rng.random(), &mut obs);
        let mut ep_return = 0.0f64;
        let mut ep_len = 0usize;
        for _ in 0..steps {
            let action = self.act(&obs)?;
            let step = env.step(action, &mut next);
            self.remember_step(&obs, action, step, &next)?;
            report.env_steps += 1;
            ep_return += step.reward as f64;
            ep_len += 1;
            if self.env_steps.is_multiple_of(self.config.train_every)
                && let Some(stats) = self.train_step()?
            {
                report.train_steps += 1;
                report.last_stats = Some(stats);
            }
            if step.done || ep_len >= max_episode_len {
                report.episode_returns.push(ep_return);
                ep_return = 0.0;
                ep_len = 0;
                env.reset(self.episode_rng.random(), &mut obs);
            } else {
                std::mem::swap(&mut obs, &mut next);
            }
        }
        Ok(report)
    }

    /// Undiscounted return of one greedy episode (no exploration, nothing stored, clocks
    /// unchanged), reset with `seed`, cut after `max_episode_len` steps.
    ///
    /// # Errors
    /// As [`train`](Self::train).
    pub fn evaluate_episode<E: Environment + ?Sized>(
        &mut self,
        env: &mut E,
        seed: u64,
        max_episode_len: usize,
    ) -> Result<f64> {
        check_len("env.state_dim", self.config.state_dim, env.state_dim())?;
        check_len("env.action_dim", self.config.action_dim, env.action_dim())?;
        let mut obs = Observation::default();
        let mut next = Observation::default();
        env.reset(seed, &mut obs);
        let mut total = 0.0;
        for _ in 0..max_episode_len {
            let action = self.greedy_action(&obs)?;
            let step = env.step(action, &mut next);
            total += step.reward as f64;
            if step.done {
                break;
            }
            std::mem::swap(&mut obs, &mut next);
        }
        Ok(total)
    }

    /// Parts for checkpointing.
    pub(crate) fn parts(&self) -> (&AgentConfig, &QNetwork, &QNetwork) {
        (&self.config, &self.online, &self.target)
    }
}

/// Scale every gradient by min(1, max_norm / ‖g‖₂) with ‖g‖₂ the L2 norm of all gradients of
/// `module` together (global-norm clipping, Pascanu, Mikolov & Bengio, ICML 2013), on device.
fn clip_global_norm(module: &QNetwork, grads: &mut GradientsParams, max_norm: f32) {
    let ids = module.param_ids();
    let mut sq: Option<Tensor<1>> = None;
    for &(id, rank) in &ids {
        let part = match rank {
            2 => grads.get::<2>(id).map(|g| g.square().sum()),
            _ => grads.get::<1>(id).map(|g| g.square().sum()),
        };
        if let Some(p) = part {
            sq = Some(match sq {
                Some(acc) => acc + p,
                None => p,
            });
        }
    }
    let Some(sq) = sq else { return };
    let coef = sq
        .sqrt()
        .add_scalar(1e-6)
        .recip()
        .mul_scalar(max_norm)
        .clamp_max(1.0); // [1]
    for &(id, rank) in &ids {
        match rank {
            2 => {
                if let Some(g) = grads.remove::<2>(id) {
                    grads.register(id, g * coef.clone().reshape([1, 1]));
                }
            }
            _ => {
                if let Some(g) = grads.remove::<1>(id) {
                    grads.register(id, g * coef.clone());
                }
            }
        }
    }
}
