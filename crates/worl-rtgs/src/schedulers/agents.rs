//! The agent plumbing shared by WORL-RTGS ([`super::worl_rtgs`]) and the deep-RL list
//! schedulers ([`super::drl`]): the registry options of a Double DQN agent, the device its
//! training runs on, and the start of a run (a fresh agent or a pre-trained checkpoint).

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use worl_ddqn::{
    Agent, AgentConfig, ComputeDevice, DeviceChoice, load_checkpoint_expecting, select_device,
};

use crate::error::Result;
use crate::registry::Options;

/// Reads the agent options `hidden` (widths like `16-16`), `td` (`double` or `vanilla`),
/// `gamma`, `learning-rate` and `batch` over `agent`, and validates the result.
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
    agent.learning_rate = opts.take_or("learning-rate", agent.learning_rate)?;
    agent.batch_size = opts.take_or("batch", agent.batch_size)?;
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
