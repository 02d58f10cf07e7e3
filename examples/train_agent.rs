//! Pre-train the WORL-RTGS Double DQN agent offline on a set of generated workloads, save it,
//! and compare a fresh agent with the pre-trained one on held-out problems.
//!
//! ```sh
//! cargo run --release --example train_agent
//! cargo run --release --example train_agent -- --workloads 12 --tasks 400 --out agent.bpk
//! # then use it:
//! cargo run --release --example quickstart -- --schedulers heft,worl-rtgs,worl-rtgs:agent=target/worl/agent.bpk,learn=false
//! ```
//!
//! Training problems alternate Alibaba-like jobs and layered DAGs on PAI-mix clusters of
//! 8 to 64 GPUs (busy), each with its own seed; one agent learns across all of them
//! (`run_worl_rtgs` hands the trained agent back), then is written atomically with
//! `worl::ddqn::save_checkpoint` (Burnpack weights + JSON manifest). The evaluation runs
//! WORL-RTGS (`paper` preset, so the agent's effect is not hidden by the HEFT/PEFT seeds)
//! with a fresh agent and with the pre-trained one, frozen and learning, on held-out
//! problems (seeds the training never saw), five seeds each.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::ddqn::{ComputeDevice, DeviceChoice, save_checkpoint, select_device};
use worl::rtgs::RunContext;
use worl::rtgs::schedulers::worl_rtgs::{WorlRtgsConfig, run_worl_rtgs};

#[derive(Parser, Debug)]
#[command(about = "Pre-train the WORL-RTGS agent and save it (worl train_agent)")]
struct Args {
    /// Training problems.
    #[arg(long, default_value_t = 8)]
    workloads: u64,
    /// Approximate tasks per problem.
    #[arg(long, default_value_t = 300)]
    tasks: usize,
    /// WOA iterations per training problem.
    #[arg(long, default_value_t = 60)]
    iterations: usize,
    /// Checkpoint path.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Device of the agent: flex (CPU, the default: the network is tiny), wgpu or auto.
    #[arg(long, default_value = "flex")]
    device: String,
}

fn problem(i: u64, tasks: usize) -> Result<Problem, Box<dyn std::error::Error>> {
    let gpus = [8, 16, 32, 64][(i % 4) as usize];
    let workload = if i.is_multiple_of(2) {
        // Alibaba-like jobs average about 3.6 tasks.
        alibaba_like(&AlibabaLikeParams::new((tasks / 4).max(1)), i)?
    } else {
        layered(&LayeredParams::new(tasks), i)?
    };
    let mut cluster = presets::pai_mix(gpus, i)?;
    cluster.apply_load(&LoadState::paper_busy(), i)?;
    Ok(Problem::new(Arc::new(workload), Arc::new(cluster))?)
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let device: ComputeDevice = select_device(args.device.parse::<DeviceChoice>()?)?;
    println!("agent device: {}", device.description());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/agent.bpk"));
    let mut config = WorlRtgsConfig::paper();
    config.rtgs.iterations = args.iterations;

    let mut agent = config.fresh_agent(0, &device)?;
    println!(
        "training on {} problems of ~{} tasks ({} iterations each)",
        args.workloads, args.tasks, args.iterations
    );
    for i in 0..args.workloads {
        let p = problem(i, args.tasks)?;
        let t = Instant::now();
        let outcome = run_worl_rtgs(&p, &config, agent, &mut RunContext::new(i))?;
        agent = outcome.agent;
        println!(
            "  problem {i}: {:>5} tasks on {:>2} GPUs  makespan {:>10.1} s  (LB {:>10.1})  {} gradient steps so far  {:.1} s",
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
        "saved {} ({} train steps, {})\n",
        out.display(),
        manifest.train_steps,
        manifest.spec.describe()
    );

    println!("held-out problems, paper preset, mean makespan over seeds 0..5:");
    println!(
        "| problem | fresh agent | pre-trained, frozen | pre-trained, learning |\n|---|---:|---:|---:|"
    );
    for i in [1000, 1001] {
        let p = problem(i, args.tasks)?;
        let mut means = [0.0f64; 3];
        for seed in 0..5u64 {
            let fresh = config.fresh_agent(seed, &device)?;
            means[0] += run_worl_rtgs(&p, &config, fresh, &mut RunContext::new(seed))?
                .schedule
                .makespan();
            for (slot, learn) in [(1, false), (2, true)] {
                let loaded = worl::ddqn::load_checkpoint(&out, &device)?;
                let mut c = config.clone();
                c.start.learn = learn;
                means[slot] += run_worl_rtgs(&p, &c, loaded, &mut RunContext::new(seed))?
                    .schedule
                    .makespan();
            }
        }
        println!(
            "| {} tasks / {} GPUs | {:.1} | {:.1} | {:.1} |",
            p.n_tasks(),
            p.n_gpus(),
            means[0] / 5.0,
            means[1] / 5.0,
            means[2] / 5.0
        );
    }
    println!("\ndone in {:.1} s", started.elapsed().as_secs_f64());
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
