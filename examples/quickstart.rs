//! worl quickstart: every registered scheduler on one workload and a 16-GPU mixed cluster,
//! compared in one table, with a Gantt chart of the best schedule and convergence curves.
//!
//! ```sh
//! cargo run --release --example quickstart
//! cargo run --release --example quickstart -- ../shared/data/stg/robot.stg Montage_25.xml
//! cargo run --release --example quickstart -- --seeds 5 --schedulers heft,rtgs,random
//! ```
//!
//! Without files, the workload is built in: 100 jobs shaped like the Alibaba v2018 batch
//! DAGs (seed 2025, a few hundred tasks, CCR 1 at 10 Gbit/s). Trace files given on the
//! command line replace it, one problem each (format from the extension: `.csv` Alibaba
//! v2018 `batch_task`, `.json` WfCommons or worl's native JSON, `.xml`/`.dax` Pegasus DAX,
//! `.stg` Standard Task Graph; see `docs/formats.md`). The cluster is
//! `presets::pai_mix(16, seed)` (the Alibaba PAI GPU mix) in the paper's busy state
//! (background utilisation 58–85 %).
//!
//! Deterministic schedulers run once; stochastic ones once per seed. The table lists
//! WORL-RTGS and RTGS first when registered, and the reduction of the mean makespan of the
//! best hybrid present (WORL-RTGS, else RTGS) over each scheduler. Files written under
//! `target/worl/quickstart/`: `gantt.svg` (best schedule), `convergence.svg` (best makespan
//! per iteration, first seed), `runs.csv`, `summary.md`.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::dag::REFERENCE_BANDWIDTH;
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::experiment::plot::{self, CurveAxis};
use worl::experiment::spec::specs_or_all;
use worl::experiment::{KeepSchedules, report};
use worl::prelude::*;

/// Seed of the built-in workload and of the cluster.
const SEED: u64 = 2025;

#[derive(Parser, Debug)]
#[command(about = "Compare every registered scheduler on one workload (worl quickstart)")]
struct Args {
    /// Trace files to schedule instead of the built-in workload (one problem each).
    files: Vec<PathBuf>,
    /// Seeds per stochastic scheduler.
    #[arg(long, default_value_t = 5)]
    seeds: u64,
    /// Number of GPUs of the cluster.
    #[arg(long, default_value_t = 16)]
    gpus: usize,
    /// Jobs of the built-in Alibaba-like workload.
    #[arg(long, default_value_t = 100)]
    jobs: usize,
    /// Comma-separated scheduler specs, a spec keeping its own options (e.g.
    /// `heft,rtgs:whales=10,iterations=5`; default: every registered scheduler).
    #[arg(long)]
    schedulers: Vec<String>,
    /// Output directory of the SVG and CSV files.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run schedulers in parallel (wall times then include contention).
    #[arg(long)]
    parallel: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn cluster(gpus: usize) -> Result<Cluster, Box<dyn std::error::Error>> {
    let mut c = presets::pai_mix(gpus, SEED)?;
    c.apply_load(&LoadState::paper_busy(), SEED)?;
    Ok(c)
}

fn workloads(args: &Args) -> Result<Vec<Workload>, Box<dyn std::error::Error>> {
    if args.files.is_empty() {
        let w = alibaba_like(&AlibabaLikeParams::new(args.jobs), SEED)?;
        return Ok(vec![
            w.renamed(format!("alibaba-like-{}jobs-seed{SEED}", args.jobs)),
        ]);
    }
    let mut out = Vec::new();
    for path in &args.files {
        let (w, load) = load_path(path)?;
        println!("== {}: {}", path.display(), load);
        out.push(w);
    }
    Ok(out)
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let out_dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/quickstart")
    });
    let cluster = Arc::new(cluster(args.gpus)?);
    let mut problems = ProblemSet::new();
    for w in workloads(args)? {
        println!("== workload {}", w.name());
        println!("{}\n", w.stats(REFERENCE_BANDWIDTH)?);
        let name = w.name().to_owned();
        problems.push(NamedProblem::new(
            name,
            Problem::new(Arc::new(w), cluster.clone())?,
        ))?;
    }
    println!(
        "== cluster {}: {} GPUs {:?}, busy (background utilisation 58-85 %)\n",
        cluster.name(),
        cluster.n_gpus(),
        cluster.gpu_counts()
    );

    let registry = Registry::with_builtins();
    let specs: Vec<SchedulerSpec> = specs_or_all(&registry, &args.schedulers)?;
    if specs.is_empty() {
        return Err("no scheduler is registered".into());
    }
    let experiment = Experiment::new(problems)
        .with_registry(registry)
        .schedulers(specs.iter().cloned())
        .seeds(1..=args.seeds.max(1))
        .parallel(args.parallel)
        .quiet(args.quiet)
        .keep_schedules(KeepSchedules::BestPerProblem);
    println!(
        "running {} runs ({} schedulers, {} seeds per stochastic one)...\n",
        experiment.n_runs()?,
        specs.len(),
        args.seeds.max(1)
    );
    let results = experiment.run()?;

    let reference = results.default_reference();
    let table = report::markdown_table(&results, &GroupBy::Problem, reference.as_deref())?;
    println!("{table}");
    if let Some(r) = &reference {
        println!(
            "\"{r} reduction\": mean makespan reduction of {r} over the row's scheduler \
             (positive: {r} is better); W/T/L: problems {r} wins/ties/loses."
        );
    }
    println!(
        "gap to LB: makespan / lower bound (max of critical path and work over capacity); \
         wall time: the scheduler's own time per run."
    );

    let normalised = results.normalised(results.default_baseline().as_deref())?;
    if normalised.rows.len() > 1 {
        println!(
            "\nMean makespan over seeds ÷ HEFT's, per workload (bold: best):\n\n{}",
            report::markdown_normalised(&normalised)
        );
    }
    report::write_normalised_csv(out_dir.join("normalised.csv"), &normalised)?;
    report::write_text(out_dir.join("summary.md"), &table)?;
    results.write_csv(out_dir.join("runs.csv"))?;
    for (i, np) in experiment.problems().iter().enumerate() {
        let suffix = if i == 0 {
            String::new()
        } else {
            format!("-{i}")
        };
        if let Some((best, schedule)) = results.best_schedule(&np.name) {
            let title = format!(
                "{}: best schedule ({}, seed {}, makespan {:.1} s)",
                np.name, best.scheduler, best.seed, best.makespan
            );
            plot::gantt(
                &np.problem,
                schedule,
                &title,
                out_dir.join(format!("gantt{suffix}.svg")),
            )?;
        }
        let curves = results.convergence_curves(&np.name, 1, CurveAxis::Step);
        plot::convergence(
            &curves,
            &format!("{}: best makespan per iteration (seed 1)", np.name),
            "iteration",
            out_dir.join(format!("convergence{suffix}.svg")),
        )?;
    }
    println!(
        "\nwrote {}/{{gantt,convergence}}.svg, runs.csv, normalised.csv, summary.md in {:.1} s",
        out_dir.display(),
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
