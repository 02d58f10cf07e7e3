//! Pre-train the move scorer of WORL-RTGS's default preset (`moves=scored`: its Double DQN
//! agent scores candidate moves) offline on a generated corpus and save it.
//!
//! ```sh
//! cargo run --release --example train_agent
//! cargo run --release --example train_agent -- --workloads 120 --time 0.5 --out scorer.bpk
//! # then use it:
//! cargo run --release --example quickstart -- --schedulers heft,worl-rtgs:moves=scored,agent=scorer.bpk,learn=false
//! ```
//!
//! The corpus (`corpus_problem`) cycles through layered DAGs, DAGGEN DAGs and
//! Alibaba-like jobs of 100, 300 and 1,000 tasks at CCR 0.5 to 5 on four clusters, with
//! seeds no evaluation uses; workflows (WfCommons, Pegasus), STG graphs and traces are
//! never seen, so they test transfer. One agent runs WORL-RTGS's default preset
//! (`moves=scored`) with online learning on each problem in turn for `--time` CPU seconds, takes
//! `--extra-steps` more Double DQN steps after each, and is written atomically with
//! `worl::ddqn::save_checkpoint` (Burnpack weights and a JSON manifest). Same seed, same
//! checkpoint.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::REFERENCE_BANDWIDTH;
use worl::dag::ccr::with_ccr;
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::dag::generators::daggen::{self, DaggenConfig};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::ddqn::{ComputeDevice, DeviceChoice, save_checkpoint, select_device};
use worl::rtgs::schedulers::worl_rtgs::{MoveChoice, WorlRtgsConfig, run_worl_rtgs};
use worl::rtgs::{Budget, RunContext};

#[derive(Parser, Debug)]
#[command(about = "Pre-train WORL-RTGS's move scorer and save it")]
struct Args {
    /// Training problems.
    #[arg(long, default_value_t = 72)]
    workloads: u64,
    /// CPU seconds of search (with online learning) per training problem.
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// Double DQN steps after each problem's search.
    #[arg(long, default_value_t = 200)]
    extra_steps: usize,
    /// Seed of the agent and of the searches.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Checkpoint path.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Device of the agent: flex (CPU, the default: the network is tiny), wgpu or auto.
    #[arg(long, default_value = "flex")]
    device: String,
}

/// The training corpus of the default preset's move scorer, problem `i`: a layered DAG, a
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
            let d = DaggenConfig {
                fat: [0.3, 0.5, 0.7][(i / 9 % 3) as usize],
                density: [0.3, 0.5, 0.7][(i / 27 % 3) as usize],
                jump: 1 + (i % 3) as usize,
                ..DaggenConfig::new(n, seed)
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
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/move-scorer.bpk")
    });
    let config = WorlRtgsConfig {
        moves: MoveChoice::Scored,
        ..WorlRtgsConfig::default()
    };
    let mut agent = config.fresh_agent(args.seed, &device)?;
    println!(
        "training the move scorer on {} problems, {} s each, then {} gradient steps each",
        args.workloads, args.time, args.extra_steps
    );
    for i in 0..args.workloads {
        let p = corpus_problem(i)?;
        let t = Instant::now();
        let mut ctx = RunContext::new(args.seed ^ i)
            .with_budget(Budget::cpu_time(Duration::from_secs_f64(args.time)));
        let outcome = run_worl_rtgs(&p, &config, agent, &mut ctx)?;
        agent = outcome.agent;
        for _ in 0..args.extra_steps {
            agent.train_step()?;
        }
        println!(
            "  problem {i:>3}: {:>5} tasks on {:>2} GPUs  makespan {:>10.1} s  (LB {:>10.1})  {:>6} gradient steps so far  {:.1} s",
            p.n_tasks(),
            p.n_gpus(),
            outcome.schedule.makespan(),
            p.lower_bound().value,
            agent.train_steps(),
            t.elapsed().as_secs_f64()
        );
    }
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
