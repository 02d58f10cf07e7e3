//! The scheduler comparison grid on real Alibaba v2018 DAGs and generated DAGs.
//!
//! ```sh
//! cargo run --release --example alibaba                  # the full grid
//! cargo run --release --example alibaba -- --quick       # a smoke-test grid
//! cargo run --release --example alibaba -- --write-docs  # also writes docs/results.md
//! cargo run --release --example alibaba -- --sizes 100,1000,10000 --seeds 3 --kinds alibaba
//! ```
//!
//! Grid (defaults): workloads of `--sizes` tasks (1,000) of three kinds — `alibaba`: whole
//! DAG jobs of the Alibaba cluster-trace-v2018 `batch_task` table (`--trace`, default
//! `alibaba-v2018/batch_task_head50k.csv` of the shared data) drawn at random with the
//! instance seed and merged until the size is reached exactly; `layered`: DAGGEN-style
//! layered DAGs (`worl::dag::generators::layered`, defaults); `nn`: GPipe-style GPT-2
//! medium training (8 stages, 2 data-parallel replicas, micro-batches and iterations for the
//! size, edge bytes from the model scaled to the cell's CCR) — on 50 GPUs sampled from the Alibaba PAI v2020 machine table (`--machines`,
//! default `alibaba-pai-v2020/pai_machine_spec.csv`; whole machines, PCIe 3.0 inside) ×
//! the paper's two network scenarios (10 Gbit/s between machines with CCR 0.5; 500 Mbit/s
//! with CCR 5, the CCR taken at the scenario's bandwidth) × {idle, busy} GPUs (busy: the
//! paper's background utilisation 58–85 %) × `--seeds` instance seeds (10). Seed `s` draws
//! the jobs, the edge bytes, the GPU sample and the loads of its instance, and is the seed
//! of every stochastic scheduler's run on it (one run per instance).
//!
//! Every registered scheduler runs (WORL-RTGS and RTGS first when present). Output: a table
//! per workload kind and cell (makespan, gap to the lower bound, SLR, wall time, reduction
//! of the best hybrid present over each), Friedman/Iman–Davenport tests with Nemenyi CD over
//! all instances and per kind, `runs.csv` and `results.json` under `target/worl/alibaba/`;
//! with `--write-docs`, `docs/results.md` and three SVGs in `docs/results/`.
//!
//! Note: on the easy cell (10 Gbit/s, CCR 0.5) HEFT is already within about 0.1 %
//! of the lower bound, so no scheduler can do much better there; the 500 Mbit/s, CCR 5
//! cells are where schedulers differ.

use clap::Parser;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use worl::cluster::network::{gbit_per_s, mbit_per_s};
use worl::cluster::{Cluster, Link, LoadState, MachineTable, Problem, TableSample, formats::pai};
use worl::dag::Workload;
use worl::dag::ccr::with_ccr;
use worl::dag::formats::alibaba::{self, AlibabaOptions};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::dag::generators::nn_training::{Model, NnTrainingParams, nn_training};
use worl::experiment::plot::{self, CurveAxis};
use worl::experiment::spec::specs_or_all;
use worl::experiment::{
    Alpha, Experiment, GroupBy, Metric, NamedProblem, ProblemSet, Results, SchedulerSpec, report,
};
use worl::sched::{Budget, Registry};

type BoxError = Box<dyn std::error::Error>;

#[derive(Parser, Debug)]
#[command(
    about = "Scheduler comparison on Alibaba v2018 DAGs and generated DAGs (Alibaba v2018 and generated DAGs on 50 PAI GPUs)"
)]
struct Args {
    /// Alibaba v2018 batch_task CSV (default: the shared data's head-50k extract).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// PAI v2020 machine table (default: the shared data's pai_machine_spec.csv).
    #[arg(long)]
    machines: Option<PathBuf>,
    /// Workload sizes in tasks (100..=10000).
    #[arg(long, value_delimiter = ',', default_values_t = [1000])]
    sizes: Vec<usize>,
    /// Instance seeds per cell: 0..seeds.
    #[arg(long, default_value_t = 10)]
    seeds: u64,
    /// Workload kinds: alibaba, layered, nn.
    #[arg(long, value_delimiter = ',', default_values_t = ["alibaba".to_owned(), "layered".to_owned(), "nn".to_owned()])]
    kinds: Vec<String>,
    /// GPUs per cluster.
    #[arg(long, default_value_t = 50)]
    gpus: usize,
    /// Smoke-test grid: sizes 200, 2 seeds (overrides --sizes and --seeds).
    #[arg(long)]
    quick: bool,
    /// Comma-separated scheduler specs, a spec keeping its own options (e.g.
    /// `heft,rtgs:whales=10,iterations=5`; default: every registered scheduler).
    #[arg(long)]
    schedulers: Vec<String>,
    /// Write docs/results.md and its SVGs in docs/results/.
    #[arg(long)]
    write_docs: bool,
    /// Output directory of runs.csv and results.json.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run on the rayon pool (wall times then include contention; needs `--time 0`).
    #[arg(long)]
    parallel: bool,
    /// CPU seconds per run, the same for every search (0: each search's own default
    /// budget; list schedulers finish in milliseconds either way).
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// A network scenario of the paper: inter-machine bandwidth and the CCR at that bandwidth.
struct Scenario {
    name: &'static str,
    bandwidth: f64,
    ccr: f64,
}

fn scenarios() -> [Scenario; 2] {
    [
        Scenario {
            name: "10 Gbit/s, CCR 0.5",
            bandwidth: gbit_per_s(10.0),
            ccr: 0.5,
        },
        Scenario {
            name: "500 Mbit/s, CCR 5",
            bandwidth: mbit_per_s(500.0),
            ccr: 5.0,
        },
    ]
}

fn data_file(arg: &Option<PathBuf>, relative: &str) -> Result<PathBuf, BoxError> {
    if let Some(p) = arg {
        return Ok(p.clone());
    }
    match worl::dag::datasets::data_file(relative)? {
        Some(p) => Ok(p),
        None => Err(format!(
            "the shared data directory is absent: give the file with an option, or set {}",
            worl::dag::datasets::DATA_DIR_ENV
        )
        .into()),
    }
}

/// Whole jobs of `pool` drawn in a seeded random order, DAG jobs (>= 2 tasks) first, merged
/// until exactly `n` tasks (`Workload::sample_jobs`).
fn merged_jobs(pool: &Workload, n: usize, seed: u64) -> Result<Workload, BoxError> {
    Ok(pool.sample_jobs(n, seed, format!("alibaba-{n}-s{seed}"))?)
}

/// GPipe GPT-2 medium training of about `n` tasks: 8 stages, 2 data-parallel replicas,
/// `m <= 8` micro-batches of 8 samples and `it` iterations (tasks `it · (32m + 8)`), `m` and
/// `it` chosen for the closest size (1,000 → 6 micro-batches × 5 iterations, exact). Few
/// micro-batches keep each stage's stashed activations within a 16 GB GPU.
fn nn_workload(n: usize) -> Result<Workload, BoxError> {
    let (m, it) = (1..=8usize)
        .map(|m| {
            (
                m,
                (n as f64 / (32 * m + 8) as f64).round().max(1.0) as usize,
            )
        })
        .min_by_key(|&(m, it)| ((it * (32 * m + 8)).abs_diff(n), it))
        .expect("non-empty range");
    let p = NnTrainingParams::new(Model::gpt2_medium())
        .pipeline(8, m)
        .replicas(2)
        .iterations(it);
    Ok(nn_training(&p)?)
}

/// `w` with every edge's bytes scaled so that its CCR at `bandwidth` is `ccr` (keeps the
/// proportions between edges; edges without data stay without).
fn scaled_to_ccr(w: &Workload, ccr: f64, bandwidth: f64) -> Result<Workload, BoxError> {
    let now = w.graph().ccr(bandwidth)?;
    if now <= 0.0 {
        return Ok(with_ccr(w, ccr, bandwidth, 0)?);
    }
    let f = ccr / now;
    let mut b = w.to_builder();
    b.set_edge_bytes(|e| e.bytes * f)?;
    Ok(b.build()?)
}

fn cluster(
    table: &MachineTable,
    m: usize,
    s: &Scenario,
    busy: bool,
    seed: u64,
) -> Result<Cluster, BoxError> {
    let sample = TableSample {
        n_gpus: Some(m),
        seed,
        intra: Link::PCIE3_X16,
        inter: Link::new(s.bandwidth, Link::ETHERNET_10G.latency)?,
    };
    let mut c = table.to_cluster(&sample)?;
    if busy {
        c.apply_load(&LoadState::paper_busy(), seed)?;
    }
    Ok(c)
}

fn build_problems(args: &Args, sizes: &[usize], seeds: u64) -> Result<ProblemSet, BoxError> {
    let kinds = &args.kinds;
    for k in kinds {
        if !["alibaba", "layered", "nn"].contains(&k.as_str()) {
            return Err(format!("unknown workload kind `{k}` (alibaba, layered, nn)").into());
        }
    }
    let table = pai::load_pai_machine_spec(data_file(
        &args.machines,
        "alibaba-pai-v2020/pai_machine_spec.csv",
    )?)?;
    let pool = if kinds.iter().any(|k| k == "alibaba") {
        let path = data_file(&args.trace, "alibaba-v2018/batch_task_head50k.csv")?;
        let (w, report) = alibaba::load(&path, &AlibabaOptions::default().ccr(0.0))?;
        println!(
            "trace {}: {} jobs, {} tasks kept ({} report entries)",
            path.display(),
            w.n_jobs(),
            w.graph().n_tasks(),
            report.entries.len()
        );
        Some(w)
    } else {
        None
    };
    let mut set = ProblemSet::new();
    for kind in kinds {
        for &n in sizes {
            let nn = if kind == "nn" {
                Some(nn_workload(n)?)
            } else {
                None
            };
            for sc in scenarios() {
                for busy in [false, true] {
                    let state = if busy { "busy" } else { "idle" };
                    for seed in 0..seeds {
                        let w = match kind.as_str() {
                            "alibaba" => {
                                let w = merged_jobs(pool.as_ref().expect("loaded"), n, seed)?;
                                with_ccr(&w, sc.ccr, sc.bandwidth, seed)?
                            }
                            "layered" => {
                                layered(&LayeredParams::new(n).ccr(sc.ccr, sc.bandwidth), seed)?
                            }
                            _ => scaled_to_ccr(nn.as_ref().expect("built"), sc.ccr, sc.bandwidth)?,
                        };
                        let c = cluster(&table, args.gpus, &sc, busy, seed)?;
                        let cell = format!("{}, {state}", sc.name);
                        let name = format!("{kind}-{n} | {cell} | seed {seed}");
                        let p = Problem::new(Arc::new(w), Arc::new(c))?;
                        set.push(
                            NamedProblem::new(name, p)
                                .tag("kind", kind)
                                .tag("cell", &cell)
                                .tag("kind_cell", format!("{kind}, {cell}"))
                                .tag("size", n)
                                // the idle and busy variants of an instance share its DAG:
                                // one block of the rank tests
                                .block(format!("{kind}-{n} | {} | seed {seed}", sc.name))
                                .with_seeds([seed]),
                        )?;
                    }
                }
            }
        }
    }
    Ok(set)
}

fn rank_section(
    out: &mut String,
    results: &Results,
    title: &str,
    filter: &dyn Fn(&worl::experiment::RunRecord) -> bool,
) {
    let _ = writeln!(out, "### {title}\n");
    if let Some(note) = results.rank_test_note(filter) {
        let _ = writeln!(out, "{note}\n");
        return;
    }
    match results.rank_test(filter, Alpha::P05) {
        Ok(t) => out.push_str(&report::markdown_rank_test(&t)),
        Err(e) => {
            let _ = writeln!(out, "(no rank test: {e})");
        }
    }
    out.push('\n');
}

fn run(args: &Args) -> Result<(), BoxError> {
    let started = Instant::now();
    let (sizes, seeds) = if args.quick {
        (vec![200], 2)
    } else {
        (args.sizes.clone(), args.seeds)
    };
    if let Some(&n) = sizes.iter().find(|&&n| !(100..=10_000).contains(&n)) {
        return Err(format!("size {n} is outside 100..=10000").into());
    }
    if seeds == 0 {
        return Err("--seeds must be at least 1".into());
    }
    if args.parallel && args.time > 0.0 {
        return Err("--parallel needs --time 0: a CPU-time budget counts the whole process".into());
    }
    let budget = Budget::from_cpu_seconds(args.time).ok_or("--time: expected seconds >= 0")?;
    let problems = build_problems(args, &sizes, seeds)?;
    let registry = Registry::with_builtins();
    let specs: Vec<SchedulerSpec> = specs_or_all(&registry, &args.schedulers)?;
    let experiment = Experiment::new(problems)
        .with_registry(registry)
        .schedulers(specs)
        .budget(budget)
        .parallel(args.parallel)
        .quiet(args.quiet);
    let labels = experiment.labels()?;
    println!(
        "grid: kinds {:?} × sizes {:?} × 2 scenarios × 2 states × {} seeds = {} problems on {} GPUs; {} schedulers ({}); {} runs",
        args.kinds,
        sizes,
        seeds,
        experiment.problems().len(),
        args.gpus,
        labels.len(),
        labels.join(", "),
        experiment.n_runs()?
    );
    let built = started.elapsed().as_secs_f64();
    let results = experiment.run()?;
    let ran = started.elapsed().as_secs_f64() - built;
    let reference = results.default_reference();

    let mut md = String::new();
    let _ = writeln!(md, "## Makespan per workload kind and cell\n");
    let _ = writeln!(
        md,
        "Means over the {seeds} instances of each cell (one run per instance and scheduler). \
         Gap to LB: makespan / lower bound. Reduction: mean over instances of the makespan \
         reduction of {} over the row's scheduler; W/T/L: instances it wins/ties/loses.\n",
        reference.as_deref().unwrap_or("-")
    );
    md.push_str(&report::markdown_table(
        &results,
        &GroupBy::tag("kind_cell"),
        reference.as_deref(),
    )?);
    let _ = writeln!(
        md,
        "\n## Mean makespan ÷ HEFT's per instance (bold: best)\n\n{}",
        report::markdown_normalised(&results.normalised(results.default_baseline().as_deref())?)
    );
    let _ = writeln!(
        md,
        "\n## Friedman test and Nemenyi critical difference (α = 0.05)\n\n\
         Blocks: instances, the idle and busy variants of one DAG merged (geometric mean).\n"
    );
    rank_section(&mut md, &results, "All instances", &|_| true);
    for kind in &args.kinds {
        rank_section(&mut md, &results, &format!("{kind} instances"), &|r| {
            &r.tags["kind"] == kind
        });
    }
    println!("\n{md}");
    println!(
        "grid built in {built:.1} s, {} runs in {ran:.1} s ({:.1} s in total)",
        results.records().len(),
        started.elapsed().as_secs_f64()
    );

    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/alibaba"));
    results.write_csv(out_dir.join("runs.csv"))?;
    results.write_json(out_dir.join("results.json"))?;
    report::write_summaries_csv(
        out_dir.join("summaries.csv"),
        &results.summaries(&GroupBy::tag("kind_cell")),
    )?;
    println!(
        "wrote {}/{{runs.csv,results.json,summaries.csv}}",
        out_dir.display()
    );

    if args.write_docs {
        write_docs(args, &results, &md, &sizes, seeds, ran)?;
    }
    Ok(())
}

fn write_docs(
    args: &Args,
    results: &Results,
    body: &str,
    sizes: &[usize],
    seeds: u64,
    ran: f64,
) -> Result<(), BoxError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("docs/results");
    if results.rank_test_note(&|_| true).is_none() {
        let all = results.rank_test(&|_| true, Alpha::P05)?;
        plot::cd_diagram(
            &all,
            "Average ranks by makespan, all instances (Nemenyi, α = 0.05)",
            dir.join("cd-all.svg"),
        )?;
    }
    // convergence on the first instance of the hardest cell of the first kind
    let kind = &args.kinds[0];
    let hard = format!("{kind}-{} | 500 Mbit/s, CCR 5, busy | seed 0", sizes[0]);
    let curves = results.convergence_curves(&hard, 0, CurveAxis::Evaluations);
    plot::convergence(
        &curves,
        &format!("{hard}: best makespan"),
        "plan evaluations",
        "best makespan (s)",
        dir.join("convergence.svg"),
    )?;
    let mut svgs = vec!["cd-all.svg", "convergence.svg"];
    if sizes.len() > 1 {
        plot::mean_std_lines(
            &results.size_series(Metric::Gap),
            "gap to the lower bound against size (mean ± std over cells and seeds)",
            "tasks",
            Metric::Gap.label(),
            dir.join("size.svg"),
        )?;
        svgs.push("size.svg");
    }
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Results: scheduler comparison (Alibaba v2018 and generated DAGs on 50 PAI GPUs)\n"
    );
    let _ = writeln!(
        md,
        "Generated by `cargo run --release --example alibaba -- --write-docs{}` (`examples/alibaba.rs`); \
         do not edit by hand. Grid: workload kinds {} × sizes {:?} tasks × {{10 Gbit/s with CCR 0.5, \
         500 Mbit/s with CCR 5}} × {{idle, busy}} × {seeds} instance seeds, {} GPUs sampled from the \
         Alibaba PAI v2020 machine table; {}; {} runs of {} schedulers took {:.0} s of scheduler \
         time on a 2-core machine (sequential). The deep-RL schedulers (DQN, MDTS) start from \
         fresh agents and learn within that budget. See the example's documentation for how \
         each instance is drawn.\n",
        if args.quick { " --quick" } else { "" },
        args.kinds.join(", "),
        sizes,
        args.gpus,
        if args.time > 0.0 {
            format!("every search gets the same {} CPU s per run", args.time)
        } else {
            "every search runs with its own default budget (see the wall-time column)".to_owned()
        },
        results.records().len(),
        results.schedulers().len(),
        ran
    );
    let _ = writeln!(
        md,
        "On the 10 Gbit/s, CCR 0.5 cells HEFT is already close to the lower bound (measured \
         within 0.1 %), so no scheduler can improve much there.\n"
    );
    let _ = writeln!(md, "![critical difference diagram](results/cd-all.svg)\n");
    md.push_str(body);
    let _ = writeln!(md, "\n## Figures\n");
    for s in &svgs {
        let _ = writeln!(md, "- [`results/{s}`](results/{s})");
    }
    // The grid owns its section of docs/results.md; the MDTS study (examples/mdts_study.rs)
    // owns another.
    report::write_section(root.join("docs/results.md"), "alibaba-grid", &md)?;
    println!(
        "wrote docs/results.md and docs/results/{{{}}}",
        svgs.join(",")
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
