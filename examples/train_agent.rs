//! Pre-train the learned components offline on a generated corpus and save them:
//! WORL-RTGS's move scorer (`--agent scorer`: the default preset with `moves=scored`), its
//! operator agent (`--agent operator`: the default preset's move kind per burst), or the
//! deep-RL list schedulers' agents (`--agent dqn`, `--agent mdts`). The checkpoints
//! under `assets/agents/` that the quickstart's DQN and MDTS rows load are this program's
//! output with the defaults of those agents.
//!
//! ```sh
//! cargo run --release --example train_agent                                  # the scorer
//! cargo run --release --example train_agent -- --agent operator             # the operator agent
//! cargo run --release --example train_agent -- --agent dqn --out assets/agents/dqn.bpk
//! cargo run --release --example train_agent -- --agent mdts --out assets/agents/mdts.bpk
//! # then use them:
//! cargo run --release --example quickstart -- --schedulers heft,worl-rtgs:moves=scored,agent=target/worl/scorer.bpk,learn=false
//! ```
//!
//! The corpus (`corpus_problem`) cycles through layered DAGs, DAGGEN DAGs and
//! Alibaba-like jobs of 100, 300 and 1,000 tasks (the deep-RL agents: 100 and 300) at
//! CCR 0.5 to 5 on four clusters, with seeds no evaluation uses (the quickstart's built-in
//! workload and `examples/equal_budget`'s are below 100); workflows (WfCommons, Pegasus),
//! STG graphs and traces are never seen, so they test transfer. One agent learns across the
//! problems in turn and is written atomically with `worl::ddqn::save_checkpoint` (Burnpack
//! weights and a JSON manifest):
//!
//! * **scorer**, **operator**: WORL-RTGS's default preset (`moves=scored`, or the default
//!   `moves=agent`) with online learning, `--evaluations` plan evaluations per problem, then
//!   `--extra-steps` Double DQN steps;
//! * **dqn**, **mdts**: `--episodes` training episodes per problem (ε from 1 to 0.05 over
//!   70 % of all of them), as `run_drl` runs them.
//!
//! Every budget is counted in evaluations or episodes, not time, so the same seed gives the
//! same checkpoint, bit for bit.

use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::REFERENCE_BANDWIDTH;
use worl::dag::ccr::with_ccr;
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::dag::generators::daggen::{self, DaggenParams};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::ddqn::{Agent, AgentConfig, ComputeDevice, DeviceChoice, save_checkpoint, select_device};
use worl::sched::schedulers::drl::{DrlConfig, run_drl};
use worl::sched::schedulers::worl_rtgs::{MoveChoice, WorlRtgsConfig, run_worl_rtgs};
use worl::sched::{Budget, RunContext};

/// Which agent to train.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Which {
    /// WORL-RTGS's move scorer (`worl-rtgs:moves=scored`).
    Scorer,
    /// WORL-RTGS's operator agent (`worl-rtgs`, `moves=agent`: a move kind per burst).
    Operator,
    /// The `dqn` list scheduler's agent.
    Dqn,
    /// The `mdts` scheduler's branching agent.
    Mdts,
}

#[derive(Parser, Debug)]
#[command(
    about = "Pre-train a learned component (WORL-RTGS's move scorer or operator agent, DQN, MDTS) and save it"
)]
struct Args {
    /// The agent to train.
    #[arg(long, value_enum, default_value_t = Which::Scorer)]
    agent: Which,
    /// Training problems (default: 72 for the scorer and the operator agent, 24 for DQN and
    /// MDTS).
    #[arg(long)]
    workloads: Option<u64>,
    /// Scorer, operator: plan evaluations of search (with online learning) per training
    /// problem.
    #[arg(long, default_value_t = 400_000)]
    evaluations: u64,
    /// Scorer, operator: Double DQN steps after each problem's search.
    #[arg(long, default_value_t = 200)]
    extra_steps: usize,
    /// DQN, MDTS: training episodes per problem.
    #[arg(long, default_value_t = 8)]
    episodes: usize,
    /// Seed of the agent and of the runs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Checkpoint path (default: `target/worl/<agent>.bpk`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Device of the agent: flex (CPU, the default: the network is tiny), wgpu or auto.
    #[arg(long, default_value = "flex")]
    device: String,
}

/// The training corpus, problem `i`: a layered DAG, a
/// DAGGEN DAG or Alibaba-like jobs (in turn) of 100, 300 or 1,000 tasks, at CCR 0.5 to 5,
/// on the 500 Mbit/s heterogeneous pool, a busy 16-GPU PAI mix or a 50-GPU PAI mix; seeds
/// from 100 up, so no workload of `examples/equal_budget` (seeds below 100) is seen, and no
/// workflow, STG graph or trace at all (the held-apart families).
fn corpus_problem(i: u64) -> Result<Problem, Box<dyn std::error::Error>> {
    let n = [100, 300, 1000][(i / 3 % 3) as usize];
    let seed = 100 + i;
    let workload = match i % 3 {
        0 => layered(&LayeredParams::new(n), seed)?,
        1 => {
            let d = DaggenParams {
                fat: [0.3, 0.5, 0.7][(i / 9 % 3) as usize],
                density: [0.3, 0.5, 0.7][(i / 27 % 3) as usize],
                jump: 1 + (i % 3) as usize,
                ..DaggenParams::new(n, seed)
            };
            daggen::generate(&d)?
        }
        _ => alibaba_like(&AlibabaLikeParams::new(n * 2 / 7), seed)?,
    };
    let (cluster, ccr, bandwidth) = match i % 4 {
        0 => (presets::paper_pool(8, 500.0, seed)?, 5.0, 500.0e6 / 8.0),
        1 => {
            let mut c = presets::pai_mix(16, seed)?;
            c.apply_load(&LoadState::paper_busy(), seed)?;
            (c, 1.0, REFERENCE_BANDWIDTH)
        }
        2 => (presets::pai_mix(50, seed)?, 0.5, REFERENCE_BANDWIDTH),
        _ => (presets::paper_pool(16, 1000.0, seed)?, 2.0, 1000.0e6 / 8.0),
    };
    let workload = with_ccr(&workload, ccr, bandwidth, seed)?;
    Ok(Problem::new(Arc::new(workload), Arc::new(cluster))?)
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let device: ComputeDevice = select_device(args.device.parse::<DeviceChoice>()?)?;
    println!("agent device: {}", device.description());
    let name = format!("{:?}", args.agent).to_lowercase();
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/worl/{name}.bpk"))
    });
    let agent = match args.agent {
        Which::Scorer => train_search(args, MoveChoice::Scored, &device)?,
        Which::Operator => train_search(args, MoveChoice::Agent, &device)?,
        Which::Dqn => train_drl(args, DrlConfig::default(), &device)?,
        Which::Mdts => train_drl(args, DrlConfig::mdts(), &device)?,
    };
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let manifest = save_checkpoint(&agent, &out)?;
    println!(
        "saved {} ({} train steps, {}) in {:.1} s",
        out.display(),
        manifest.train_steps,
        manifest.spec.describe(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The agent of WORL-RTGS's default preset with move choice `moves` (the move scorer or
/// the operator agent), learning online on each problem in turn.
fn train_search(
    args: &Args,
    moves: MoveChoice,
    device: &ComputeDevice,
) -> Result<Agent, Box<dyn std::error::Error>> {
    let config = WorlRtgsConfig {
        moves,
        ..WorlRtgsConfig::default()
    };
    let mut agent = config.fresh_agent(args.seed, device)?;
    let workloads = args.workloads.unwrap_or(72);
    println!(
        "training the {} on {workloads} problems, {} evaluations each, then {} gradient steps each",
        if moves == MoveChoice::Scored {
            "move scorer"
        } else {
            "operator agent"
        },
        args.evaluations,
        args.extra_steps
    );
    for i in 0..workloads {
        let p = corpus_problem(i)?;
        let t = Instant::now();
        let mut ctx =
            RunContext::new(args.seed ^ i).with_budget(Budget::evaluations(args.evaluations));
        let outcome = run_worl_rtgs(&p, &config, agent, &mut ctx)?;
        agent = outcome.agent;
        for _ in 0..args.extra_steps {
            agent.train_step()?;
        }
        report(i, &p, outcome.schedule.makespan(), &agent, t);
    }
    Ok(agent)
}

/// The agent of `dqn` or `mdts` (`config`): `--episodes` training episodes on each problem of
/// at most 300 tasks of the corpus in turn.
fn train_drl(
    args: &Args,
    config: DrlConfig,
    device: &ComputeDevice,
) -> Result<Agent, Box<dyn std::error::Error>> {
    let config = DrlConfig {
        episodes: args.episodes,
        ..config
    };
    let workloads = args.workloads.unwrap_or(24) as usize;
    let problems: Vec<Problem> = (0..)
        .map(corpus_problem)
        .filter(|p| p.as_ref().map_or(true, |p| p.n_tasks() <= 300))
        .take(workloads)
        .collect::<Result<_, _>>()?;
    let agent_config = AgentConfig {
        seed: args.seed,
        ..config.agent_config_for_runs(300, problems.len())
    };
    let mut agent = Agent::new(agent_config, device)?;
    println!(
        "training the {} agent on {} problems, {} episodes each",
        if config.branches >= 2 { "MDTS" } else { "DQN" },
        problems.len(),
        args.episodes
    );
    for (i, p) in problems.iter().enumerate() {
        let t = Instant::now();
        let outcome = run_drl(
            p,
            &config,
            agent,
            &mut RunContext::new(args.seed ^ i as u64),
        )?;
        agent = outcome.agent;
        report(i as u64, p, outcome.greedy_makespan, &agent, t);
    }
    Ok(agent)
}

fn report(i: u64, p: &Problem, makespan: f64, agent: &Agent, t: Instant) {
    println!(
        "  problem {i:>3}: {:>5} tasks on {:>2} GPUs  makespan {:>10.1} s  (LB {:>10.1})  {:>6} gradient steps so far  {:.1} s",
        p.n_tasks(),
        p.n_gpus(),
        makespan,
        p.lower_bound().value,
        agent.train_steps(),
        t.elapsed().as_secs_f64()
    );
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
