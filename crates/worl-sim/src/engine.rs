//! [`Simulation`]: the discrete-event engine, and its [`SimConfig`].

use crate::error::{Result, SimError};
use crate::failures::Failures;
use crate::network::Contention;
use crate::noise::RuntimeNoise;
use crate::policy::OnlinePolicy;
use crate::result::SimResult;
use worl_cluster::Problem;

/// What the simulation models besides the static cost model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimConfig {
    /// Runtime noise (default: none).
    pub noise: RuntimeNoise,
    /// Network contention (default: none).
    pub contention: Contention,
    /// GPU failures (default: none).
    pub failures: Failures,
    /// Whether to record the event log in [`SimResult::events`] (default: no).
    pub record_events: bool,
    /// Whether each decision's wall-clock time delays its dispatches in simulated time
    /// (default: no). Charging makes runs depend on the host's speed.
    pub charge_decision_time: bool,
}

/// A simulation of one problem under one configuration; run it with any number of
/// policies and seeds.
#[derive(Clone, Debug)]
pub struct Simulation<'p> {
    problem: &'p Problem,
    config: SimConfig,
}

impl<'p> Simulation<'p> {
    /// A simulation of `problem` under `config`.
    ///
    /// Errors: [`SimError::InvalidSpec`] / [`SimError::InvalidOutage`] for invalid noise or
    /// failure parameters.
    pub fn new(problem: &'p Problem, config: SimConfig) -> Result<Self> {
        config.noise.validate()?;
        config.failures.validate(problem.n_gpus())?;
        Ok(Self { problem, config })
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Runs `policy` to completion with every random draw from a ChaCha8 stream seeded
    /// with `seed`.
    pub fn run(&self, policy: &mut dyn OnlinePolicy, seed: u64) -> Result<SimResult> {
        let _ = (policy, seed);
        Err(SimError::NotImplemented("Simulation::run"))
    }
}
