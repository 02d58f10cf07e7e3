//! Every registered scheduler on the WfCommons workflow instances of the shared data.
//!
//! ```sh
//! cargo run --release --example wfcommons
//! cargo run --release --example wfcommons -- --dir path/to/wfinstances --seeds 5 --gpus 32
//! ```
//!
//! Each `*.json` WfFormat instance of `--dir` (default: `wfcommons-wfinstances/` of the
//! shared data; real Pegasus and Makeflow executions on Chameleon Cloud, 41–301 tasks) is
//! loaded with its recorded run times and file sizes (`docs/formats.md`), and scheduled on
//! `presets::pai_mix(--gpus, seed 7)` (the Alibaba PAI GPU mix, 25 Gbit/s between machines)
//! idle and busy (the paper's background utilisation 58–85 %). Deterministic schedulers run
//! once per problem, stochastic ones once per seed. Prints one table per GPU state (means
//! over the instances), the reduction of the best hybrid present over each scheduler, and
//! the Friedman test with the Nemenyi critical difference over all problems; writes
//! `runs.csv` and `cd.svg` under `target/worl/wfcommons/`.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::REFERENCE_BANDWIDTH;
use worl::experiment::spec::specs_or_all;
use worl::experiment::{
    Alpha, Experiment, GroupBy, NamedProblem, ProblemSet, SchedulerSpec, plot, report,
};
use worl::sched::Registry;

type BoxError = Box<dyn std::error::Error>;

/// Seed of the cluster and of its busy loads.
const CLUSTER_SEED: u64 = 7;

#[derive(Parser, Debug)]
#[command(about = "Scheduler comparison on the WfCommons instances of the shared data")]
struct Args {
    /// Directory of WfFormat `.json` instances (default: the shared data's).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// GPUs of the cluster.
    #[arg(long, default_value_t = 16)]
    gpus: usize,
    /// Seeds per stochastic scheduler.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Comma-separated scheduler specs, a spec keeping its own options (e.g.
    /// `heft,rtgs:whales=10,iterations=5`; default: every registered scheduler).
    #[arg(long)]
    schedulers: Vec<String>,
    /// Output directory of runs.csv and cd.svg.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run on the rayon pool (wall times then include contention).
    #[arg(long)]
    parallel: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn instance_dir(args: &Args) -> Result<PathBuf, BoxError> {
    if let Some(d) = &args.dir {
        return Ok(d.clone());
    }
    match worl::dag::datasets::shared_data_dir()? {
        Some(d) => Ok(d.join("wfcommons-wfinstances")),
        None => Err(format!(
            "the shared data directory is absent: give --dir, or set {}",
            worl::dag::datasets::DATA_DIR_ENV
        )
        .into()),
    }
}

fn run(args: &Args) -> Result<(), BoxError> {
    let started = Instant::now();
    let dir = instance_dir(args)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .json instance in {}", dir.display()).into());
    }
    let idle = Arc::new(presets::pai_mix(args.gpus, CLUSTER_SEED)?);
    let mut busy = (*idle).clone();
    busy.apply_load(&LoadState::paper_busy(), CLUSTER_SEED)?;
    let busy = Arc::new(busy);
    println!("cluster {}: {:?}\n", idle.name(), idle.gpu_counts());
    println!(
        "| instance | tasks | edges | depth | total work (s) | CCR @ 10 Gbit/s |\n|---|---:|---:|---:|---:|---:|"
    );
    let mut problems = ProblemSet::new();
    for f in &files {
        let (w, _) = worl::dag::load_path(f)?;
        let s = w.stats(REFERENCE_BANDWIDTH)?;
        println!(
            "| {} | {} | {} | {} | {:.0} | {:.3} |",
            w.name(),
            s.tasks,
            s.edges,
            s.depth,
            s.total_work,
            s.ccr
        );
        let w = Arc::new(w);
        for (state, c) in [("idle", &idle), ("busy", &busy)] {
            let name = format!("{} ({state})", w.name());
            problems.push(
                NamedProblem::new(name, Problem::new(w.clone(), c.clone())?)
                    .tag("state", state)
                    // idle and busy runs of one workflow are one block of the rank test
                    .block(w.name()),
            )?;
        }
    }
    let registry = Registry::with_builtins();
    let specs: Vec<SchedulerSpec> = specs_or_all(&registry, &args.schedulers)?;
    let experiment = Experiment::new(problems)
        .with_registry(registry)
        .schedulers(specs)
        .seeds(1..=args.seeds.max(1))
        .parallel(args.parallel)
        .quiet(args.quiet);
    println!(
        "\n{} problems, {} runs\n",
        experiment.problems().len(),
        experiment.n_runs()?
    );
    let results = experiment.run()?;
    let reference = results.default_reference();
    println!(
        "{}",
        report::markdown_table(&results, &GroupBy::tag("state"), reference.as_deref())?
    );
    let normalised = results.normalised(results.default_baseline().as_deref())?;
    println!("{}", report::markdown_normalised(&normalised));
    let test = match results.rank_test_note(&|_| true) {
        Some(note) => {
            println!("{note}");
            None
        }
        None => {
            let test = results.rank_test(&|_| true, Alpha::P05)?;
            println!("{}", report::markdown_rank_test(&test));
            Some(test)
        }
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/wfcommons"));
    results.write_csv(out.join("runs.csv"))?;
    report::write_normalised_csv(out.join("normalised.csv"), &normalised)?;
    if let Some(test) = &test {
        plot::cd_diagram(
            test,
            "WfCommons workflows: average ranks by makespan",
            out.join("cd.svg"),
        )?;
    }
    println!(
        "wrote {}/{{runs.csv,normalised.csv,cd.svg}} in {:.1} s",
        out.display(),
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
