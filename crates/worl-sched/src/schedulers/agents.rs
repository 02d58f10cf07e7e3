//! The agent plumbing shared by WORL-RTGS ([`super::worl_rtgs`]) and the deep-RL list
//! schedulers ([`super::drl`]): the registry options of a Double DQN agent, the device its
//! training runs on, the start of a run (a fresh agent or a pre-trained checkpoint), and the
//! scaling of their features (per-task units, [`squash`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use worl_ddqn::{
    Agent, AgentConfig, ComputeDevice, DeviceChoice, load_checkpoint_expecting, select_device,
};

use crate::error::Result;
use crate::options::{OptionDoc, Options};
use crate::schedulers::list::upward_ranks;
use worl_cluster::Problem;
use worl_dag::TaskId;

/// `sign(x)·ln(1 + |x|)`: one scale for features of very different sizes (a gap of 0.1 or of
/// 1,000 mean execution times) that a small network handles. Always finite (the agent
/// refuses NaN and infinities): NaN (e.g. `∞ − ∞` on extreme inputs) is 0 and `±∞` is
/// `±ln(1 + f64::MAX) ≈ ±709.8`.
#[inline]
pub(crate) fn squash(x: f64) -> f32 {
    if x.is_nan() {
        return 0.0;
    }
    let y = x.abs().ln_1p().min(f64::MAX.ln_1p());
    (if x < 0.0 { -y } else { y }) as f32
}

/// Per-task scales of the agents' features: each task's mean execution time `w̄_v` (the unit
/// of its time features, so features are comparable across tasks, GPU models and workloads;
/// 1 where it is 0) and its upward rank, raw and over the largest (0 where not finite).
#[derive(Clone, Debug)]
pub(crate) struct TaskScales {
    /// `w̄_v`, s (`> 0`).
    pub unit: Vec<f64>,
    /// `rank_u(v)`, s.
    pub rank: Vec<f64>,
    /// `rank_u(v) / max_u rank_u(u)`.
    pub rank_norm: Vec<f32>,
}

impl TaskScales {
    /// The scales of `problem` (`O(n + e)` plus the upward ranks).
    pub(crate) fn new(problem: &Problem) -> Self {
        let rank = upward_ranks(problem);
        let max = rank.iter().copied().fold(0.0f64, f64::max);
        TaskScales {
            unit: (0..problem.n_tasks())
                .map(|v| {
                    let w = problem.mean_exec_time(TaskId::new(v));
                    if w > 0.0 { w } else { 1.0 }
                })
                .collect(),
            rank_norm: rank
                .iter()
                .map(|&r| {
                    let v = r / max;
                    if v.is_finite() { v as f32 } else { 0.0 }
                })
                .collect(),
            rank,
        }
    }
}

/// Where a run's agent comes from, whether it learns, and where it trains: the options
/// `agent`, `learn` and `device` of WORL-RTGS, `dqn` and `mdts`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentStart {
    /// Learn during the run (option `learn`; default true). `false` with a checkpoint runs a
    /// frozen pre-trained policy.
    pub learn: bool,
    /// Start from this pre-trained agent (option `agent`, a checkpoint path written by
    /// [`worl_ddqn::save_checkpoint`]; default none: a fresh agent seeded by the run).
    pub checkpoint: Option<PathBuf>,
    /// Device of the agent's training (option `device`: `auto`, `wgpu`, `flex`). Default
    /// `None`: `WORL_DEVICE` when set, else flex — the agents' networks are tiny, so a GPU's
    /// dispatch latency outweighs its arithmetic (a WORL-RTGS training step takes 1.0–1.5 ms
    /// on flex, 27.5 ms on wgpu over lavapipe; see `worl-ddqn`'s benchmark).
    pub device: Option<DeviceChoice>,
}

impl Default for AgentStart {
    fn default() -> Self {
        AgentStart {
            learn: true,
            checkpoint: None,
            device: None,
        }
    }
}

impl AgentStart {
    /// The options it is read from (`learn`, `agent`, `device`).
    pub const OPTIONS: [OptionDoc; 3] = [
        OptionDoc::new(
            "learn",
            "true|false",
            "true",
            "learn during the run (false with `agent` runs a frozen policy)",
        ),
        OptionDoc::new(
            "agent",
            "PATH",
            "(none: a fresh agent)",
            "pre-trained checkpoint to start from (written by worl_ddqn::save_checkpoint; must exist)",
        ),
        OptionDoc::new(
            "device",
            "auto|wgpu|flex",
            "(WORL_DEVICE, else flex)",
            "device of the agent's training",
        ),
    ];

    /// Reads the options `learn`, `agent` and `device` over `defaults`.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption).
    pub(crate) fn take(opts: &mut Options, defaults: &AgentStart) -> Result<Self> {
        let checkpoint = opts.take::<PathBuf>("agent")?;
        if let Some(path) = &checkpoint
            && !path.is_file()
        {
            let why = if path.as_os_str().is_empty() {
                "expected the path of a checkpoint file"
            } else if path.is_dir() {
                "is a directory, not a checkpoint file"
            } else {
                "no such checkpoint file"
            };
            return Err(opts.invalid("agent", path.display(), why));
        }
        Ok(AgentStart {
            learn: opts.take_or("learn", defaults.learn)?,
            checkpoint: checkpoint.or_else(|| defaults.checkpoint.clone()),
            device: opts.take::<DeviceChoice>("device")?.or(defaults.device),
        })
    }

    /// The training device ([`agent_device`]).
    ///
    /// Errors: as [`agent_device`].
    pub(crate) fn device(&self) -> Result<ComputeDevice> {
        agent_device(self.device)
    }

    /// The agent a run seeded with `seed` starts from ([`start_agent`] with this checkpoint).
    ///
    /// Errors: as [`start_agent`].
    pub(crate) fn agent(
        &self,
        config: &AgentConfig,
        seed: u64,
        device: &ComputeDevice,
    ) -> Result<Agent> {
        start_agent(config, self.checkpoint.as_deref(), seed, device)
    }
}

/// The agent options [`take_agent_options`] reads, with WORL-RTGS's defaults (the deep-RL list
/// schedulers override them with [`OptionDoc::with_defaults`]).
pub(crate) const AGENT_OPTIONS: [OptionDoc; 5] = [
    OptionDoc::new(
        "hidden",
        "widths like 16-16",
        "16-16",
        "hidden layer widths of the Q-network",
    ),
    OptionDoc::new(
        "td",
        "double|vanilla",
        "double",
        "TD target: Double DQN, or the DQN target (an ablation)",
    ),
    OptionDoc::new("gamma", "[0, 1]", "0.9", "discount factor"),
    OptionDoc::new("learning-rate", "> 0", "0.001", "Adam learning rate"),
    OptionDoc::new("batch", ">= 1", "64", "minibatch size of a gradient step"),
];

/// Reads the agent options `hidden` (widths like `16-16`), `td` (`double` or `vanilla`),
/// `gamma`, `learning-rate` and `batch` over `agent`, and validates the result; network
/// and batch sizes are bounded ([`worl_ddqn::config::check_network_size`]: at most 8
/// hidden layers of at most 4096 units and 2²³ hidden-layer parameters, batches of at most
/// 4096, batch × hidden units at most 2¹⁸).
///
/// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) naming the
/// option.
pub(crate) fn take_agent_options(opts: &mut Options, agent: &AgentConfig) -> Result<AgentConfig> {
    let mut agent = agent.clone();
    if let Some(h) = opts.take::<String>("hidden")? {
        let parsed: std::result::Result<Vec<usize>, _> =
            h.split('-').map(str::parse::<usize>).collect();
        match parsed {
            Ok(v) if !v.is_empty() && v.iter().all(|&x| x > 0) => agent.hidden = v,
            _ => return Err(opts.invalid("hidden", h, "expected widths like `16-16`")),
        }
    }
    agent.td_target = opts.take_or("td", agent.td_target)?;
    agent.gamma = opts.take_or("gamma", agent.gamma)?;
    if !(0.0..=1.0).contains(&agent.gamma) {
        return Err(opts.invalid("gamma", agent.gamma, "must be in [0, 1]"));
    }
    agent.learning_rate = opts.take_or("learning-rate", agent.learning_rate)?;
    if !(agent.learning_rate.is_finite() && agent.learning_rate > 0.0) {
        return Err(opts.invalid("learning-rate", agent.learning_rate, "must be > 0"));
    }
    agent.batch_size = opts.take_or("batch", agent.batch_size)?;
    if agent.batch_size == 0 {
        return Err(opts.invalid("batch", 0, "must be at least 1"));
    }
    // sizes checked here, before any allocation, with the option's own name
    if let Err((field, why)) =
        worl_ddqn::config::check_network_size(&agent.hidden, agent.batch_size)
    {
        return Err(if field == "batch_size" {
            opts.invalid("batch", agent.batch_size, why)
        } else {
            let widths: Vec<String> = agent.hidden.iter().map(ToString::to_string).collect();
            opts.invalid("hidden", widths.join("-"), why)
        });
    }
    if let Err(e) = agent.validate() {
        return Err(opts.invalid("agent", "(gamma, learning-rate, batch)", e.to_string()));
    }
    Ok(agent)
}

/// The device of an agent's training: `choice` when given, else `WORL_DEVICE` when set, else
/// flex. Selected once per process and choice (probing for a GPU adapter costs tens of
/// milliseconds and may log).
///
/// Errors: [`ScheduleError::Ddqn`](crate::ScheduleError::Ddqn) when the device is unavailable
/// or `WORL_DEVICE` does not parse.
pub(crate) fn agent_device(choice: Option<DeviceChoice>) -> Result<ComputeDevice> {
    static SELECTED: Mutex<Vec<(DeviceChoice, ComputeDevice)>> = Mutex::new(Vec::new());
    let choice = match (choice, std::env::var(worl_ddqn::DEVICE_ENV_VAR)) {
        (Some(c), _) => c,
        (None, Ok(v)) => v.parse::<DeviceChoice>()?,
        (None, Err(_)) => DeviceChoice::Flex,
    };
    let mut selected = SELECTED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, d)) = selected.iter().find(|(c, _)| *c == choice) {
        return Ok(d.clone());
    }
    let d = select_device(choice)?;
    selected.push((choice, d.clone()));
    Ok(d)
}

/// The agent a run starts from: the checkpoint at `checkpoint` (its architecture must be
/// `config`'s), else a fresh agent of `config` whose seed is mixed with the run's `seed`.
///
/// Errors: [`ScheduleError::Ddqn`](crate::ScheduleError::Ddqn) for a missing or mismatched
/// checkpoint or an invalid configuration.
pub(crate) fn start_agent(
    config: &AgentConfig,
    checkpoint: Option<&Path>,
    seed: u64,
    device: &ComputeDevice,
) -> Result<Agent> {
    Ok(match checkpoint {
        Some(path) => load_checkpoint_expecting(path, device, &config.network_spec())?,
        None => Agent::new(
            AgentConfig {
                seed: config.seed ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ..config.clone()
            },
            device,
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::squash;

    #[test]
    fn squash_is_odd_monotone_compressing_and_finite() {
        assert_eq!(squash(0.0), 0.0);
        assert!((squash(std::f64::consts::E - 1.0) - 1.0).abs() < 1e-6);
        assert_eq!(squash(-3.0), -squash(3.0));
        assert!(squash(1000.0) < 7.0 && squash(1000.0) > squash(999.0));
        assert_eq!(squash(f64::NAN), 0.0);
        assert!((squash(f64::INFINITY) - 709.78).abs() < 0.01);
        assert_eq!(squash(f64::NEG_INFINITY), -squash(f64::INFINITY));
    }
}
