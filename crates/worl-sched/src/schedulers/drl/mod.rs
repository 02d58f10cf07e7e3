//! Deep-RL list schedulers: a plain Double DQN list scheduler (`dqn`) and **MDTS**, the
//! multi-task deep RL scheduler of *Multi-task Deep Reinforcement Learning for Scalable
//! Parallel Task Scheduling* (`mdts`), both on the agent of [`worl_ddqn`].
//!
//! ## The MDP both share
//! An episode builds one schedule. Tasks are placed in **upward-rank order**
//! (Topcuoglu et al. 2002): each decision takes the ready task of highest `rank_u` and, for
//! MDTS, the other ready tasks of its job, by rank, up to `branches` (the job's *parallel
//! child tasks*; those beyond go to later decisions). For each task of the decision the
//! candidates are the `candidates` GPUs (default 8) of smallest earliest finish time (EFT) in
//! the partial schedule that fit it, so the network never depends on the number of GPUs.
//!
//! * **State** (4 numbers): tasks placed / n, `ln(1 + ready/m)`, tasks in the decision /
//!   branches, `ln(1 + partial makespan / LB)`.
//! * **Candidate features** (8 numbers, times in units of the task's mean execution time,
//!   `sign(x)·ln(1 + |x|)`): EFT − smallest EFT, execution time, idle time the placement
//!   leaves on the GPU, wait for data (data-ready − latest predecessor finish), GPU free time
//!   − latest predecessor finish (its backlog), EFT rank / k, the task's `rank_u` / the
//!   largest, tasks on the GPU over the mean per GPU. MDTS appends the one-hot code of the
//!   branch (the task's position in the decision).
//!   One implementation computes both ([`DecisionContext::state`],
//!   [`DecisionContext::push_rows`], from [`CandidateTimes`] and the problem's [`Statics`]):
//!   the static episode and online dispatchers (worl-sim's `online:dqn`/`online:mdts`)
//!   share it; [`first_decision`] shows a problem's first decision.
//! * **Reward** of a task: `−ΔC / LB`, the growth of the partial makespan its placement
//!   caused over the problem's lower bound, so an episode's return is `−makespan / LB`.
//! * **Placement**: the chosen GPU at the task's earliest slot (option `policy`, default
//!   insertion, as HEFT).
//!
//! ## `dqn`: the plain Double DQN list scheduler (MDTS's "raw DRL")
//! One task per decision; the action-in network (Q of `state ⧺ candidate`, [`QNetwork`])
//! scores each candidate GPU. Double DQN (van Hasselt et al., AAAI 2016) with replay and a
//! target network (Mnih et al., Nature 2015).
//!
//! ## `mdts`: the multi-task decision
//! What MDTS's abstract states: a job's parallel child tasks are assigned to nodes **jointly**
//! by one decision whose network has **one output branch per child task**, the branches
//! sharing layers that capture the tasks' competition for resources. Built here as:
//!
//! * **Network**: the action-branching architecture (Tavakoli, Pardo & Kormushev, AAAI 2018)
//!   in [`NetworkShape::branches`]: a shared ReLU trunk and one linear head per branch; the
//!   candidate rows of branch `b` carry its one-hot code, which selects head `b`.
//! * **Joint decision**: every branch chooses its GPU from the **same state** — the partial
//!   schedule before any task of the decision is placed — then the tasks are placed in branch
//!   order, so two branches that pick the same GPU queue on it. Avoiding such collisions is
//!   what the heads must learn together (head 2 learning to take the second-best GPU, say);
//!   sequential decisions would hide the competition from the network.
//! * **Learning**: per-branch transitions into **one shared replay buffer**; the target of
//!   branch `b` is the Double DQN target of head `b` in the next decision (of its first
//!   branch when the next decision has fewer tasks). Per-branch rewards: each task's own
//!   makespan growth, placed in branch order. Exploration is ε-greedy per branch.
//!
//! ### Choices the abstract leaves open, and why
//! * **Which tasks share a decision**: the ready tasks of the job of the highest-rank ready
//!   task. "Parallel child tasks of a job" are its tasks that can run at the same time;
//!   ready tasks are exactly those, and rank order keeps the critical path first.
//! * **Up to `branches` (default 4) per decision**: a network has a fixed number of heads;
//!   Alibaba v2018 jobs rarely have more than 4 ready tasks at once. More wait for the next
//!   decision.
//! * **Candidates are the k GPUs of smallest EFT**, not every node: the abstract's point is
//!   scalability, and a per-GPU output layer would tie the network to one cluster size.
//! * **Reward = makespan growth**: the abstract reports job execution time, load imbalance
//!   and cost; the makespan growth is the common objective of our baselines, and the sum
//!   of the rewards is the final makespan, so no weighting of the three had to be invented.
//! * **Online, then optionally pre-trained**: each run trains `episodes` ε-greedy episodes
//!   on the problem (ε from `epsilon-start` to `epsilon-end`, linear over the run's
//!   decisions), then runs one greedy episode, and returns the best schedule of all episodes.
//!   A pre-trained agent (`agent=PATH`) starts from its checkpoint; `learn=false` runs its
//!   greedy episode only.
//!
//! ## Budgets and sizes
//! * **Evaluations.** One evaluation is one decoded schedule: every episode, training or
//!   greedy, counts one. A run makes at most `max_evaluations − 1` training episodes, then
//!   the greedy one ([`training_episodes`]), and ε falls over the training episodes the
//!   budget leaves. A run's training work is thus at most `(max_evaluations − 1) × n`
//!   task placements and as many over `train-every` gradient steps.
//! * **CPU time.** Checked before every episode, decision and gradient step. Once spent, the
//!   agent is no longer asked: the remaining tasks of the episode in progress and of the
//!   greedy episode go to their smallest-EFT candidate, so the run ends about one HEFT pass
//!   later with a complete schedule.
//! * **Cost.** The ready set is kept in decision order (a heap, and per-job ordered sets
//!   for MDTS), so choosing a decision's tasks costs `O(log ready + branches)` and a
//!   placement `O(log ready)`; each task of a decision makes one slot query per GPU that
//!   fits it, through HEFT's gap index ([`GapIndex`](crate::schedulers::list::GapIndex)).
//!   Once the CPU-time budget is spent a task costs what it costs in HEFT: one slot query
//!   per GPU, no features.
//! * **Memory.** Options are refused before any allocation when the network or the batch is
//!   too large ([`worl_ddqn::config::check_network_size`]: at most 2²³ hidden-layer
//!   parameters, batch × Σ hidden ≤ 2¹⁸) or when the agent's
//!   [memory estimate](worl_ddqn::AgentConfig::memory_estimate) with `candidates` — weights,
//!   gradients, Adam's moments, target network, a training step's activations and the full
//!   replay buffer — passes [`worl_ddqn::config::MAX_AGENT_MEMORY`] (512 MiB); the error
//!   names the option (`hidden`, `batch` or `candidates`). `hidden=4096-4096-…` (8 layers)
//!   is refused naming `hidden`.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Problem};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_sched::{Registry, RunContext};
//!
//! let w = Arc::new(layered(&LayeredParams::new(40), 1)?);
//! let p = Problem::new(w, Arc::new(presets::pai_mix(8, 1)?))?;
//! let registry = Registry::with_builtins();
//! for spec in ["dqn:episodes=3", "mdts:episodes=3,branches=4"] {
//!     let s = registry.build_spec(spec)?.schedule(&p, &mut RunContext::new(7))?;
//!     assert!(s.validate(&p).is_empty());
//!     assert!(s.makespan() >= p.lower_bound().value);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`QNetwork`]: worl_ddqn::QNetwork
//! [`NetworkShape::branches`]: worl_ddqn::NetworkShape::branches

mod episode;

pub use episode::{CandidateTimes, Decision, DecisionContext, FEATURE_DIM, STATE_DIM, Statics};

use serde::{Deserialize, Serialize};
use worl_cluster::{Policy, Problem, Schedule};
use worl_ddqn::{
    Agent, AgentConfig, ComputeDevice, EpsilonSchedule, Observation, TargetUpdate, Transition,
};

use crate::builtin::{Builtin, Family, boxed};
use crate::error::Result;
use crate::options::{OptionDoc, Options, POLICY_INSERTION};
use crate::scheduler::{Budget, Progress, RunContext, Scheduler};
use crate::schedulers::agents::{AGENT_OPTIONS, AgentStart, take_agent_options};
use crate::schedulers::search::options::{MAX_ITERATIONS, take_count, take_in_range};
use episode::Episode;

/// Configuration of [`Dqn`] and [`Mdts`]; defaults in the field docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DrlConfig {
    /// Tasks per decision and output branches of the network: 1 for `dqn`; for `mdts`
    /// option `branches`, 2..=16, default 4.
    pub branches: usize,
    /// Candidate GPUs per task, the `k` of smallest EFT (option `candidates`, 2..=64;
    /// default 8).
    pub candidates: usize,
    /// Training episodes per run before the greedy one (option `episodes`, at least 1;
    /// default 30). Each episode, the greedy one included, is one plan evaluation of the
    /// budget ([`run_drl`]).
    pub episodes: usize,
    /// Placement of a task on its GPU (option `policy`; default insertion).
    pub policy: Policy,
    /// The agent (sizes from [`STATE_DIM`], [`FEATURE_DIM`] and `branches`; options `hidden`
    /// (default `32-32`), `gamma` (0.99), `learning-rate` (1e-3), `batch` (32), `td`).
    pub agent: AgentConfig,
    /// Task placements (branch choices: an MDTS decision of 4 tasks is 4) per gradient step
    /// (option `train-every`, at least 1; default 2).
    pub train_every: u64,
    /// ε at the start of a fresh agent's run (option `epsilon-start`, in [0, 1]; default
    /// 0.5); falls linearly to `epsilon-end` (not above it) over 70 % of the run's training
    /// task placements.
    pub epsilon_start: f64,
    /// ε at the end (option `epsilon-end`, in [0, 1]; default 0.02).
    pub epsilon_end: f64,
    /// The agent's start, learning and device (options `agent`, `learn` — `false` runs the
    /// starting agent's greedy episode only — and `device`).
    #[serde(flatten)]
    pub start: AgentStart,
}

impl Default for DrlConfig {
    fn default() -> Self {
        DrlConfig {
            branches: 1,
            candidates: 8,
            episodes: 30,
            policy: Policy::Insertion,
            agent: AgentConfig {
                hidden: vec![32, 32],
                gamma: 0.99,
                learning_rate: 1e-3,
                batch_size: 32,
                replay_capacity: 20_000,
                learning_starts: 64,
                target_update: TargetUpdate::Hard { every: 100 },
                ..AgentConfig::new(STATE_DIM, FEATURE_DIM)
            },
            train_every: 2,
            epsilon_start: 0.5,
            epsilon_end: 0.02,
            start: AgentStart::default(),
        }
    }
}

impl DrlConfig {
    /// MDTS's `branches` option.
    pub const BRANCH_OPTIONS: [OptionDoc; 1] = [OptionDoc::new(
        "branches",
        "2..=16",
        "4",
        "tasks per decision, one network head each",
    )];

    /// The options DQN and MDTS read besides `branches` and the agent's.
    pub const DRL_OPTIONS: [OptionDoc; 5] = [
        OptionDoc::new(
            "candidates",
            "2..=64",
            "8",
            "minimum-EFT GPUs a task chooses among",
        ),
        OptionDoc::new("episodes", "1..=1000000", "30", "training episodes per run"),
        OptionDoc::new("train-every", ">= 1", "2", "decisions per gradient step"),
        OptionDoc::new(
            "epsilon-start",
            "[0, 1]",
            "0.5",
            "exploration rate of the first episode",
        ),
        OptionDoc::new(
            "epsilon-end",
            "[0, epsilon-start]",
            "0.02",
            "exploration rate of the last episode",
        ),
    ];

    /// The agent options with the deep-RL list schedulers' defaults.
    pub const AGENT_OPTIONS: [OptionDoc; 5] = OptionDoc::with_defaults(
        AGENT_OPTIONS,
        &[("hidden", "32-32"), ("gamma", "0.99"), ("batch", "32")],
    );

    /// Every option `dqn` reads.
    pub const DQN_OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::DRL_OPTIONS,
        &POLICY_INSERTION,
        &Self::AGENT_OPTIONS,
        &AgentStart::OPTIONS,
    ];

    /// Every option `mdts` reads.
    pub const MDTS_OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::BRANCH_OPTIONS,
        &Self::DRL_OPTIONS,
        &POLICY_INSERTION,
        &Self::AGENT_OPTIONS,
        &AgentStart::OPTIONS,
    ];

    /// The `mdts` defaults: [`DrlConfig::default`] with 4 branches.
    pub fn mdts() -> Self {
        DrlConfig {
            branches: 4,
            ..DrlConfig::default()
        }
    }

    /// Reads the options listed on the fields over `defaults` (`branches` only when
    /// `multi_task`) and rejects any other.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options, defaults: DrlConfig, multi_task: bool) -> Result<Self> {
        let d = defaults;
        let branches = if multi_task {
            let b: usize = opts.take_or("branches", d.branches)?;
            if !(2..=16).contains(&b) {
                return Err(opts.invalid("branches", b, "must be in 2..=16"));
            }
            b
        } else {
            1
        };
        let candidates: usize = opts.take_or("candidates", d.candidates)?;
        if !(2..=64).contains(&candidates) {
            return Err(opts.invalid("candidates", candidates, "must be in 2..=64"));
        }
        let config = DrlConfig {
            branches,
            candidates,
            episodes: take_count(&mut opts, "episodes", d.episodes, 1, MAX_ITERATIONS)?,
            policy: opts.take_or("policy", d.policy)?,
            agent: take_agent_options(&mut opts, &d.agent)?,
            train_every: take_count(
                &mut opts,
                "train-every",
                d.train_every as usize,
                1,
                usize::MAX,
            )? as u64,
            epsilon_start: take_in_range(&mut opts, "epsilon-start", d.epsilon_start, 0.0, 1.0)?,
            epsilon_end: take_in_range(&mut opts, "epsilon-end", d.epsilon_end, 0.0, 1.0)?,
            start: AgentStart::take(&mut opts, &d.start)?,
        };
        if config.epsilon_end > config.epsilon_start {
            return Err(opts.invalid(
                "epsilon-end",
                config.epsilon_end,
                format!("must not exceed epsilon-start = {}", config.epsilon_start),
            ));
        }
        // The agent's memory with this many candidates, before anything is allocated.
        if let Err(worl_ddqn::DdqnError::InvalidConfig { field, reason }) =
            config.agent_config(1).check_memory(config.candidates)
        {
            return Err(match field {
                "batch_size" => opts.invalid("batch", config.agent.batch_size, reason),
                "replay_capacity" => opts.invalid("candidates", config.candidates, reason),
                _ => {
                    let widths: Vec<String> = config
                        .agent
                        .hidden
                        .iter()
                        .map(ToString::to_string)
                        .collect();
                    opts.invalid("hidden", widths.join("-"), reason)
                }
            });
        }
        if !config.start.learn && config.start.checkpoint.is_none() {
            return Err(opts.invalid(
                "learn",
                false,
                "needs `agent=PATH`: without learning a fresh agent's greedy schedule is arbitrary",
            ));
        }
        opts.finish()?;
        Ok(config)
    }

    /// The agent configuration: [`agent`](Self::agent) with the sizes of the features
    /// (`action_dim = FEATURE_DIM + branches` for 2 or more branches), the branches, and an
    /// ε schedule over the training task placements of a run on `n_tasks` tasks.
    pub fn agent_config(&self, n_tasks: usize) -> AgentConfig {
        self.agent_config_for_runs(n_tasks, 1)
    }

    /// [`agent_config`](Self::agent_config) for an agent that trains over `runs` runs (e.g.
    /// pre-training over several problems and passes): ε falls from `epsilon-start` to
    /// `epsilon-end` over 70 % of `runs × episodes × n_tasks` task placements.
    pub fn agent_config_for_runs(&self, n_tasks: usize, runs: usize) -> AgentConfig {
        let selector = if self.branches >= 2 { self.branches } else { 0 };
        let decisions = (runs.max(1) * self.episodes * n_tasks.max(1)) as u64;
        AgentConfig {
            state_dim: STATE_DIM,
            action_dim: FEATURE_DIM + selector,
            branches: self.branches,
            train_every: self.train_every,
            epsilon: EpsilonSchedule::Linear {
                start: self.epsilon_start,
                end: self.epsilon_end,
                decay_steps: (decisions * 7 / 10).max(1),
            },
            ..self.agent.clone()
        }
    }
}

/// The outcome of [`run_drl`].
pub struct DrlOutcome {
    /// The best schedule of the run's episodes (ties: the earliest).
    pub schedule: Schedule,
    /// Makespan of the final greedy episode, s.
    pub greedy_makespan: f64,
    /// Episodes run, the greedy one included.
    pub episodes: usize,
    /// The agent after the run (trained on it when learning is on).
    pub agent: Agent,
}

/// How [`run_episode`] chooses its actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// ε-greedy, every transition stored, a gradient step every `train_every` placements.
    Train,
    /// The agent's greedy actions; nothing stored, clocks unchanged.
    Greedy,
}

/// Runs one episode in `mode` and returns its schedule and whether the CPU-time budget cut
/// it. The budget is checked before every decision and every gradient step: once it is
/// spent the agent is no longer asked (no acting, storing or training); the tasks of the
/// decision in progress take their candidate of smallest EFT (row 0), and the remaining
/// tasks are placed one at a time in upward-rank order on their GPU of smallest EFT
/// (HEFT's rule), so the episode still ends in a complete schedule.
fn run_episode(
    problem: &Problem,
    statics: &Statics,
    config: &DrlConfig,
    agent: &mut Agent,
    mode: Mode,
    ctx: &RunContext<'_>,
) -> Result<(Schedule, bool)> {
    let mut ep = Episode::new(problem, statics, config.policy, config.branches);
    let mut decision = Decision::default();
    let mut obs = Observation::default();
    let mut actions = Vec::new();
    let mut rewards = Vec::new();
    let mut cut = ctx.out_of_time();
    let train = mode == Mode::Train;
    // The previous decision's per-branch (state, chosen row, reward), waiting for its next
    // state.
    let mut prev_state: Vec<f32> = Vec::new();
    let mut prev_rows: Vec<Vec<f32>> = Vec::new();
    let mut prev_rewards: Vec<f32> = Vec::new();
    loop {
        cut = cut || ctx.out_of_time();
        if cut {
            // Once cut, one task at a time on its smallest-EFT GPU: HEFT's step (the
            // placement of a one-task decision's row 0), nothing stored.
            if ep.place_best()? {
                continue;
            }
            break;
        }
        let more = ep.next_decision(config.branches, config.candidates, &mut decision)?;
        if train {
            for (b, (row, &reward)) in prev_rows.iter().zip(&prev_rewards).enumerate() {
                let nb = b.min(decision.tasks.len().saturating_sub(1));
                agent.remember(&Transition {
                    state: &prev_state,
                    action: row,
                    reward,
                    next_state: if more { &decision.state } else { &[] },
                    next_candidates: if more { decision.rows(nb) } else { &[] },
                    done: !more,
                })?;
            }
        }
        if !more {
            break;
        }
        actions.clear();
        for b in 0..decision.tasks.len() {
            if cut {
                actions.push(0);
                continue;
            }
            obs.clear();
            obs.state.extend_from_slice(&decision.state);
            obs.candidates.extend_from_slice(decision.rows(b));
            let a = if train {
                let a = agent.act(&obs)?;
                if agent.env_steps().is_multiple_of(config.train_every) {
                    if ctx.out_of_time() {
                        cut = true;
                    } else {
                        agent.train_step()?;
                    }
                }
                a
            } else {
                agent.greedy_action(&obs)?
            };
            actions.push(a);
        }
        ep.apply(&decision, &actions, &mut rewards)?;
        if train && !cut {
            prev_state.clone_from(&decision.state);
            prev_rows.clear();
            prev_rows.extend(
                actions
                    .iter()
                    .enumerate()
                    .map(|(b, &a)| decision.row(b, a).to_vec()),
            );
            prev_rewards.clone_from(&rewards);
        }
    }
    Ok((ep.partial().to_schedule()?, cut))
}

/// Training episodes a run of `config` makes under `budget`: `episodes` when learning is
/// on (0 otherwise), but at most `max_evaluations − 1`, the greedy episode taking the
/// last evaluation (at least the greedy one is always run).
pub fn training_episodes(config: &DrlConfig, budget: &Budget) -> usize {
    let training = if config.start.learn {
        config.episodes
    } else {
        0
    };
    match budget.max_evaluations {
        Some(b) => training.min(usize::try_from(b.saturating_sub(1)).unwrap_or(usize::MAX)),
        None => training,
    }
}

/// Runs the deep-RL list scheduler of `config` on `problem` from `agent` (fresh or
/// pre-trained; its sizes must be those of [`DrlConfig::agent_config`]): the
/// [`training_episodes`] of the context's budget, then one greedy episode. Seeded by the
/// agent's seed; reproducible on flex without a time budget.
///
/// **Budget.** One evaluation is one decoded schedule, i.e. one episode (training or
/// greedy): a run spends at most `max_evaluations` (and at least 1, the greedy episode),
/// so its training work is at most `(max_evaluations − 1) × n_tasks` placements and as
/// many over `train_every` gradient steps. The CPU-time budget is checked before every
/// episode, decision and gradient step; once spent, the agent is no longer asked and the
/// remaining tasks of the episode in progress, then of the final greedy one, go one at a
/// time in upward-rank order to their GPU of smallest EFT (HEFT's rule), so a cut run
/// still returns a complete schedule about one HEFT pass after the budget. The observer
/// may stop training between episodes.
///
/// Errors: [`ScheduleError::Ddqn`](crate::ScheduleError::Ddqn) for an agent of other sizes,
/// one whose [memory estimate](worl_ddqn::AgentConfig::check_memory) with `candidates`
/// passes [`worl_ddqn::config::MAX_AGENT_MEMORY`] (e.g. a checkpoint's replay capacity), or
/// a training failure; [`ScheduleError::Cluster`](crate::ScheduleError::Cluster) for a task
/// no GPU fits.
pub fn run_drl(
    problem: &Problem,
    config: &DrlConfig,
    mut agent: Agent,
    ctx: &mut RunContext<'_>,
) -> Result<DrlOutcome> {
    let expected = config.agent_config(problem.n_tasks()).network_spec();
    let found = agent.config().network_spec();
    if expected != found {
        return Err(worl_ddqn::DdqnError::InvalidConfig {
            field: "agent",
            reason: format!(
                "the agent's network is `{}`, this scheduler needs `{}`",
                found.describe(),
                expected.describe()
            ),
        }
        .into());
    }
    agent.config().check_memory(config.candidates)?;
    let statics = Statics::new(problem);
    let training = training_episodes(config, ctx.budget()) as u64;
    let total = training + 1;
    let mut best: Option<Schedule> = None;
    let mut episodes = 0usize;
    for e in 0..training {
        if ctx.out_of_time() {
            break;
        }
        let (s, cut) = run_episode(problem, &statics, config, &mut agent, Mode::Train, ctx)?;
        episodes += 1;
        if best.as_ref().is_none_or(|b| s.makespan() < b.makespan()) {
            best = Some(s);
        }
        let progress = Progress {
            step: e + 1,
            total_steps: total,
            evaluations: e + 1,
            best_makespan: best.as_ref().map_or(f64::INFINITY, Schedule::makespan),
        };
        if ctx.report(progress).is_break() || cut {
            break;
        }
    }
    let (greedy, _) = run_episode(problem, &statics, config, &mut agent, Mode::Greedy, ctx)?;
    episodes += 1;
    let greedy_makespan = greedy.makespan();
    let schedule = match best {
        Some(b) if b.makespan() <= greedy_makespan => b,
        _ => greedy,
    };
    let _ = ctx.report(Progress {
        step: total,
        total_steps: total,
        evaluations: episodes as u64,
        best_makespan: schedule.makespan(),
    });
    Ok(DrlOutcome {
        schedule,
        greedy_makespan,
        episodes,
        agent,
    })
}

/// The first decision of a greedy episode of `config`'s scheduler on `problem` (nothing
/// placed yet): its tasks, state and candidate rows, exactly as [`run_drl`] computes them
/// before asking the agent. `None` for a problem without tasks. For inspection, and to
/// check that an online dispatcher computes the same features from the same state.
///
/// Errors: [`ScheduleError::Cluster`](crate::ScheduleError::Cluster) for a task of the
/// decision that no GPU fits.
pub fn first_decision(problem: &Problem, config: &DrlConfig) -> Result<Option<Decision>> {
    let statics = Statics::new(problem);
    let mut ep = Episode::new(problem, &statics, config.policy, config.branches);
    let mut decision = Decision::default();
    let more = ep.next_decision(config.branches, config.candidates, &mut decision)?;
    Ok(more.then_some(decision))
}

/// The state both deep-RL schedulers keep between runs.
struct DrlRunner {
    config: DrlConfig,
    device: Option<ComputeDevice>,
    last_agent: Option<Agent>,
}

impl DrlRunner {
    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        if self.device.is_none() {
            self.device = Some(self.config.start.device()?);
        }
        let device = self.device.as_ref().expect("selected above");
        // ε falls over the training the budget leaves, not over episodes it cuts off.
        let budgeted = DrlConfig {
            episodes: training_episodes(&self.config, ctx.budget()).max(1),
            ..self.config.clone()
        };
        let agent = self.config.start.agent(
            &budgeted.agent_config(problem.n_tasks()),
            ctx.seed(),
            device,
        )?;
        let outcome = run_drl(problem, &self.config, agent, ctx)?;
        self.last_agent = Some(outcome.agent);
        Ok(outcome.schedule)
    }
}

macro_rules! drl_scheduler {
    ($ty:ident, $name:literal, $label:literal, $defaults:expr, $multi:expr, $options:expr, $about:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// Each [`schedule`](Scheduler::schedule) starts from a fresh agent seeded by the
        /// run's seed, or from the configured checkpoint; the agent after the last run is
        /// kept ([`last_agent`](Self::last_agent)) for saving. See the
        /// [module docs](self).
        pub struct $ty(DrlRunner);

        impl $ty {
            /// The registry name.
            pub const NAME: &'static str = $name;

            /// Its registration: name, description, family, declared options.
            pub const BUILTIN: Builtin = Builtin {
                name: $name,
                description: $about,
                family: Family::DeepRl,
                quick: "episodes=3",
                options: $options,
                build: |o| boxed(Self::from_options(o)),
            };

            /// The scheduler with `config`.
            pub fn new(config: DrlConfig) -> Self {
                $ty(DrlRunner {
                    config,
                    device: None,
                    last_agent: None,
                })
            }

            /// The scheduler from registry options ([`DrlConfig::from_options`]).
            ///
            /// Errors: as [`DrlConfig::from_options`].
            pub fn from_options(opts: Options) -> Result<Self> {
                Ok($ty::new(DrlConfig::from_options(opts, $defaults, $multi)?))
            }

            /// The configuration.
            pub fn config(&self) -> &DrlConfig {
                &self.0.config
            }

            /// The agent after the last [`schedule`](Scheduler::schedule) call, if any.
            pub fn last_agent(&self) -> Option<&Agent> {
                self.0.last_agent.as_ref()
            }

            /// Takes the agent after the last [`schedule`](Scheduler::schedule) call (e.g.
            /// to dispatch online with it), leaving none.
            pub fn take_last_agent(&mut self) -> Option<Agent> {
                self.0.last_agent.take()
            }
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty::new($defaults)
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("config", &self.0.config)
                    .finish_non_exhaustive()
            }
        }

        impl Scheduler for $ty {
            fn name(&self) -> &str {
                $label
            }

            fn schedule(
                &mut self,
                problem: &Problem,
                ctx: &mut RunContext<'_>,
            ) -> Result<Schedule> {
                ctx.check_budget($label, 1)?;
                self.0.schedule(problem, ctx)
            }

            fn is_stochastic(&self) -> bool {
                true
            }
        }
    };
}

drl_scheduler!(
    Dqn,
    "dqn",
    "DQN",
    DrlConfig::default(),
    false,
    DrlConfig::DQN_OPTIONS,
    "DQN list scheduler (Double DQN, Mnih et al. 2015, van Hasselt et al. 2016): rank_u order, the agent picks one of the k min-EFT GPUs, trained online for `episodes` then greedy",
    "The plain Double DQN list scheduler (one task per decision, upward-rank order), the \"raw DRL\" baseline of the MDTS study."
);

drl_scheduler!(
    Mdts,
    "mdts",
    "MDTS",
    DrlConfig::mdts(),
    true,
    DrlConfig::MDTS_OPTIONS,
    "MDTS (multi-task deep RL): a job's ready child tasks placed jointly by a branching Double DQN (shared trunk, one head per task)",
    "MDTS (Multi-task Deep Reinforcement Learning for Scalable Parallel Task Scheduling): one decision places a job's ready child tasks jointly, through a network with a shared trunk and one branch per task."
);
