//! Small environments with known optimal policies, shared by the integration tests.
#![allow(dead_code)]

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use worl_ddqn::{
    Agent, AgentConfig, ComputeDevice, DeviceChoice, Environment, EpsilonSchedule, Observation,
    Step, TargetUpdate, select_device,
};

/// Contextual bandit with a variable number of candidates (2..=8).
///
/// State: `[c, 1]` with context c ∈ {−1, +1}. Candidate features x ∈ [0, 1]³. Reward of a
/// candidate: `x₀ − 0.5·x₂` if c = +1, `x₁ − 0.5·x₂` if c = −1. One step per episode.
pub struct VariableBandit {
    rng: ChaCha8Rng,
    rewards: Vec<f32>,
}

impl VariableBandit {
    pub fn new() -> Self {
        VariableBandit {
            rng: ChaCha8Rng::seed_from_u64(0),
            rewards: Vec::new(),
        }
    }

    fn fill(&mut self, obs: &mut Observation) {
        obs.clear();
        let c: f32 = if self.rng.random::<bool>() { 1.0 } else { -1.0 };
        obs.state.extend_from_slice(&[c, 1.0]);
        self.rewards.clear();
        let k = self.rng.random_range(2..=8);
        for _ in 0..k {
            let x: [f32; 3] = [self.rng.random(), self.rng.random(), self.rng.random()];
            obs.candidates.extend_from_slice(&x);
            let r = if c > 0.0 { x[0] } else { x[1] } - 0.5 * x[2];
            self.rewards.push(r);
        }
    }

    /// Best reward available in the current observation.
    pub fn best_reward(&self) -> f32 {
        self.rewards.iter().cloned().fold(f32::MIN, f32::max)
    }

    /// Mean reward of a uniformly random choice in the current observation.
    pub fn mean_reward(&self) -> f32 {
        self.rewards.iter().sum::<f32>() / self.rewards.len() as f32
    }
}

impl Environment for VariableBandit {
    fn state_dim(&self) -> usize {
        2
    }
    fn action_dim(&self) -> usize {
        3
    }
    fn reset(&mut self, seed: u64, obs: &mut Observation) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.fill(obs);
    }
    fn step(&mut self, action: usize, next: &mut Observation) -> Step {
        let reward = self.rewards[action];
        next.clear();
        Step { reward, done: true }
    }
}

/// Chain walk: positions 0..N, start at 2. Each step offers "left", "right" and 0..=2 "stay"
/// candidates in random order (features one-hot `[left, right]`, stay = `[0, 0]`). Reaching 0
/// pays 0.1 and ends the episode, reaching N−1 pays 1.0 and ends it; other steps pay 0.
/// Optimal undiscounted return: 1.0 (walk right); the trap: 0.1.
pub struct ChainWalk {
    pub n: usize,
    pos: usize,
    rng: ChaCha8Rng,
    moves: Vec<i32>,
}

impl ChainWalk {
    pub fn new(n: usize) -> Self {
        ChainWalk {
            n,
            pos: 2,
            rng: ChaCha8Rng::seed_from_u64(0),
            moves: Vec::new(),
        }
    }

    fn fill(&mut self, obs: &mut Observation) {
        obs.clear();
        obs.state.resize(self.n, 0.0);
        obs.state[self.pos] = 1.0;
        self.moves.clear();
        self.moves.extend_from_slice(&[-1, 1]);
        for _ in 0..self.rng.random_range(0..=2) {
            self.moves.push(0);
        }
        self.moves.shuffle(&mut self.rng);
        for &m in &self.moves {
            obs.candidates.extend_from_slice(match m {
                -1 => &[1.0, 0.0],
                1 => &[0.0, 1.0],
                _ => &[0.0, 0.0],
            });
        }
    }
}

impl Environment for ChainWalk {
    fn state_dim(&self) -> usize {
        self.n
    }
    fn action_dim(&self) -> usize {
        2
    }
    fn reset(&mut self, seed: u64, obs: &mut Observation) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.pos = 2;
        self.fill(obs);
    }
    fn step(&mut self, action: usize, next: &mut Observation) -> Step {
        let m = self.moves[action];
        self.pos = (self.pos as i32 + m) as usize;
        if self.pos == 0 {
            next.clear();
            return Step {
                reward: 0.1,
                done: true,
            };
        }
        if self.pos == self.n - 1 {
            next.clear();
            return Step {
                reward: 1.0,
                done: true,
            };
        }
        self.fill(next);
        Step {
            reward: 0.0,
            done: false,
        }
    }
}

/// Config used by the bandit learning tests.
pub fn bandit_config(seed: u64) -> AgentConfig {
    AgentConfig {
        state_dim: 2,
        action_dim: 3,
        hidden: vec![32, 32],
        learning_rate: 3e-3,
        batch_size: 32,
        learning_starts: 64,
        replay_capacity: 5_000,
        epsilon: EpsilonSchedule::Linear {
            start: 1.0,
            end: 0.05,
            decay_steps: 800,
        },
        target_update: TargetUpdate::Hard { every: 50 },
        seed,
        ..AgentConfig::default()
    }
}

/// Config used by the chain-walk learning tests.
pub fn chain_config(n: usize, seed: u64) -> AgentConfig {
    AgentConfig {
        state_dim: n,
        action_dim: 2,
        hidden: vec![32, 32],
        gamma: 0.9,
        learning_rate: 3e-3,
        batch_size: 32,
        learning_starts: 64,
        replay_capacity: 5_000,
        epsilon: EpsilonSchedule::Linear {
            start: 1.0,
            end: 0.05,
            decay_steps: 1_000,
        },
        target_update: TargetUpdate::Hard { every: 50 },
        seed,
        ..AgentConfig::default()
    }
}

/// Greedy bandit return over `episodes` fresh contexts: (greedy, optimal, random) sums.
pub fn evaluate_bandit(agent: &mut Agent, episodes: u64) -> (f64, f64, f64) {
    let mut env = VariableBandit::new();
    let mut obs = Observation::default();
    let mut next = Observation::default();
    let (mut got, mut best, mut random) = (0.0, 0.0, 0.0);
    for ep in 0..episodes {
        env.reset(1_000_000 + ep, &mut obs);
        best += env.best_reward() as f64;
        random += env.mean_reward() as f64;
        let a = agent.greedy_action(&obs).expect("valid observation");
        got += env.step(a, &mut next).reward as f64;
    }
    (got, best, random)
}

/// The wgpu device for tests, or `None` (skip) when `WORL_SKIP_WGPU=1`. Panics with a clear
/// message when no adapter can be created and the skip is not requested.
pub fn wgpu_or_skip(test: &str) -> Option<ComputeDevice> {
    if std::env::var("WORL_SKIP_WGPU").as_deref() == Ok("1") {
        eprintln!("{test}: skipped (WORL_SKIP_WGPU=1)");
        return None;
    }
    match select_device(DeviceChoice::Wgpu) {
        Ok(d) => {
            eprintln!("{test}: running on {}", d.description());
            Some(d)
        }
        Err(e) => panic!(
            "{test}: no wgpu adapter could be created ({e}). Install a Vulkan driver (e.g. Mesa's \
             lavapipe: apt-get install mesa-vulkan-drivers) or set WORL_SKIP_WGPU=1 to skip."
        ),
    }
}
