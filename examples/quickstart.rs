//! worl quickstart: every registered scheduler on one communication-bound workload and an
//! 8-GPU heterogeneous cluster, every search with the same CPU time per run, compared in one
//! table, with where each schedule came from, the gaps to the best known makespan, a Gantt
//! chart of the best schedule and convergence curves.
//!
//! ```sh
//! cargo run --release --example quickstart
//! cargo run --release --example quickstart -- ../shared/data/stg/robot.stg Montage_25.xml
//! cargo run --release --example quickstart -- --seeds 5 --time 1 --schedulers heft,ils,worl-rtgs
//! ```
//!
//! Without files, the workload is built in: 25 jobs shaped like the Alibaba v2018 batch
//! DAGs (seed 2025, 87 tasks) at CCR 5 at 500 Mbit/s: communication-bound, where
//! placing tasks well pays and search matters. Trace files given on the command line replace
//! it, one problem each (format from the extension: `.csv` Alibaba v2018 `batch_task`,
//! `.json` WfCommons or worl's native JSON, `.xml`/`.dax` Pegasus DAX, `.stg` Standard Task
//! Graph; see `docs/formats.md`), scaled to the same CCR. The cluster is
//! `presets::paper_pool(8, 500, seed)`: 8 GPUs of the Alibaba PAI mix, one per machine, links
//! of up to 500 Mbit/s (the WORL-RTGS paper's pool).
//!
//! Deterministic schedulers run once; stochastic ones once per seed. Every scheduler gets the
//! same budget: `--time` CPU seconds per run (default 0.5; runs go one at a time so that
//! each has the process to itself), which cuts the searches short (WORL-RTGS, RTGS, ILS,
//! WOA, PSO, GA, exact); the list schedulers take milliseconds. The table lists WORL-RTGS
//! and RTGS first when registered, and the reduction of the mean makespan of the best
//! hybrid present (WORL-RTGS, else RTGS) over each scheduler; the "source" table says which
//! runs found a schedule better than HEFT's and PEFT's (search) and which returned one of
//! theirs (fallback); the gap table measures every scheduler against the best makespan any
//! run found. Files written under `target/worl/quickstart/`: `gantt.svg` (best schedule),
//! `convergence.svg` (each search's best makespan ÷ the best known against CPU time, log
//! scale, first seed), `runs.csv`, `summary.md`.

use clap::Parser;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::dag::REFERENCE_BANDWIDTH;
use worl::dag::ccr::with_ccr;
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::experiment::GapTable;
use worl::experiment::plot;
use worl::experiment::spec::specs_or_all;
use worl::experiment::{KeepSchedules, report};
use worl::prelude::*;
use worl::sched::Budget;
use worl::sched::schedulers::Exact;

/// Seed of the built-in workload and of the cluster.
const SEED: u64 = 2025;

#[derive(Parser, Debug)]
#[command(about = "Compare every registered scheduler on one workload (worl quickstart)")]
struct Args {
    /// Trace files to schedule instead of the built-in workload (one problem each).
    files: Vec<PathBuf>,
    /// Seeds per stochastic scheduler.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// CPU seconds per run, the same for every scheduler (0: no time budget; each search
    /// then runs to its own iteration limit).
    #[arg(long, default_value_t = 0.5)]
    time: f64,
    /// Number of GPUs of the cluster.
    #[arg(long, default_value_t = 8)]
    gpus: usize,
    /// Jobs of the built-in Alibaba-like workload.
    #[arg(long, default_value_t = 25)]
    jobs: usize,
    /// Communication-to-computation ratio of the workloads at 500 Mbit/s.
    #[arg(long, default_value_t = 5.0)]
    ccr: f64,
    /// Comma-separated scheduler specs, a spec keeping its own options (e.g.
    /// `heft,rtgs:whales=10,iterations=5`; default: every registered scheduler).
    #[arg(long)]
    schedulers: Vec<String>,
    /// Output directory of the SVG and CSV files.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run schedulers in parallel (wall times then include contention; needs `--time 0`,
    /// since a CPU-time budget counts the whole process).
    #[arg(long)]
    parallel: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// The bandwidth at which the workloads' CCR is set: 500 Mbit/s, the pool's fastest link.
const CCR_BANDWIDTH: f64 = 500.0e6 / 8.0;

fn cluster(gpus: usize) -> Result<Cluster, Box<dyn std::error::Error>> {
    Ok(presets::paper_pool(gpus, 500.0, SEED)?)
}

fn workloads(args: &Args) -> Result<Vec<Workload>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    if args.files.is_empty() {
        let w = alibaba_like(&AlibabaLikeParams::new(args.jobs), SEED)?;
        out.push(w.renamed(format!("alibaba-like-{}jobs-seed{SEED}", args.jobs))?);
    }
    for path in &args.files {
        let (w, load) = load_path(path)?;
        println!("== {}: {}", path.display(), load);
        out.push(w);
    }
    out.into_iter()
        .map(|w| Ok(with_ccr(&w, args.ccr, CCR_BANDWIDTH, SEED)?.renamed(w.name())?))
        .collect()
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
        "== cluster {}: {} GPUs {:?}, one per machine, links up to 500 Mbit/s\n",
        cluster.name(),
        cluster.n_gpus(),
        cluster.gpu_counts()
    );
    if args.parallel && args.time > 0.0 {
        return Err("--parallel needs --time 0: a CPU-time budget counts the whole process".into());
    }
    let budget = Budget::from_cpu_seconds(args.time).ok_or("--time: expected seconds >= 0")?;

    let registry = Registry::with_builtins();
    let specs: Vec<SchedulerSpec> = specs_or_all(&registry, &args.schedulers)?;
    if specs.is_empty() {
        return Err("no scheduler is registered".into());
    }
    let experiment = Experiment::new(problems)
        .with_registry(registry)
        .schedulers(specs.iter().cloned())
        .seeds(1..=args.seeds.max(1))
        .budget(budget.clone())
        .parallel(args.parallel)
        .quiet(args.quiet)
        .keep_schedules(KeepSchedules::BestPerProblem);
    println!(
        "running {} runs ({} schedulers, {} seeds per stochastic one, {})...\n",
        experiment.n_runs()?,
        specs.len(),
        args.seeds.max(1),
        if args.time > 0.0 {
            format!("{} CPU s per run", args.time)
        } else {
            "no time budget".to_owned()
        }
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
    if results
        .schedulers()
        .iter()
        .any(|s| s == "DQN" || s == "MDTS")
    {
        println!(
            "DQN, MDTS: fresh agents, trained online on this instance for their 30 episodes \
             (agents pre-trained on other instances did worse frozen: docs/algorithms.md §10)."
        );
    }

    println!("\n{}", sources(&results));
    let mut optima = BTreeMap::new();
    for np in experiment.problems().iter() {
        let exact = Exact::new();
        let mut ctx = RunContext::new(0).with_budget(budget.clone());
        let outcome = exact.solve(&np.problem, &mut ctx)?;
        if outcome.proven_optimal {
            println!(
                "exact: {} has the proven optimum {:.2} s",
                np.name,
                outcome.schedule.makespan()
            );
            optima.insert(np.name.clone(), outcome.schedule.makespan());
        } else {
            println!(
                "exact: {} ({} tasks) not proven optimal within the budget ({} nodes); its optimum lies in [{:.2}, {:.2}] s",
                np.name,
                np.problem.n_tasks(),
                outcome.nodes,
                outcome.lower_bound,
                outcome.schedule.makespan()
            );
        }
    }
    println!(
        "\nGap of each scheduler's mean makespan to the best any run found (to the proven optimum in parentheses):\n\n{}",
        GapTable::new(&results, &optima).to_markdown()
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
        let curves = results.relative_convergence_curves(&np.name, 1);
        plot::convergence(
            &curves,
            &format!(
                "{}: the searches' best makespan over CPU time (seed 1)",
                np.name
            ),
            "CPU time (s)",
            "best makespan ÷ best known",
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

/// Per scheduler: how many runs returned a schedule better than both HEFT's and PEFT's
/// (found by the search) and how many returned one of theirs (a fallback, or a search that
/// found nothing better), as a Markdown table.
fn sources(results: &worl::experiment::Results) -> String {
    let mut out = String::from(
        "Where each run's schedule came from (search: better than HEFT's and PEFT's; fallback: one of theirs or no better):\n\n| scheduler | search | fallback | runs |\n|---|---:|---:|---:|\n",
    );
    for s in results.schedulers() {
        let (mut search, mut fallback) = (0, 0);
        for r in results.records().iter().filter(|r| &r.scheduler == s) {
            let of = |name: &str| {
                results
                    .records()
                    .iter()
                    .find(|x| x.problem == r.problem && x.scheduler == name)
                    .map(|x| x.makespan)
            };
            let reference = [of("HEFT"), of("PEFT")]
                .into_iter()
                .flatten()
                .fold(f64::INFINITY, f64::min);
            if r.makespan < reference * (1.0 - 1e-9) {
                search += 1;
            } else {
                fallback += 1;
            }
        }
        out.push_str(&format!(
            "| {s} | {search} | {fallback} | {} |\n",
            search + fallback
        ));
    }
    out
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
