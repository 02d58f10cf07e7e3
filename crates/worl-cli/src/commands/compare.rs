//! `worl compare`: several schedulers on several workloads, normalised to HEFT.

use crate::inputs::InputError;
use crate::{Result, inputs, outln};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use worl::experiment::spec::{all_registered, specs_or_all};
use worl::experiment::{
    Experiment, KeepSchedules, NamedProblem, ProblemSet, Results, SchedulerSpec, ShardReport, plot,
    report,
};
use worl::sched::schedulers::Exact;
use worl::sched::{Budget, Registry};

/// Arguments of `worl compare`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Workload files (any format worl reads); each is one problem.
    #[arg(required = true)]
    workloads: Vec<PathBuf>,
    /// The cluster: a cluster file or a preset description (see `worl cluster --help`).
    #[arg(long)]
    cluster: String,
    /// Scheduler specs, comma- or semicolon-separated (`heft,rtgs[whales=10],peft`); all
    /// registered schedulers if absent, `exact` with a budget of a million nodes and only
    /// on workloads of at most 12 tasks and 16 GPUs (else left out, with a notice).
    #[arg(long)]
    schedulers: Vec<String>,
    /// Seeds per stochastic scheduler: 1..=N (at most 10,000).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// CPU-time budget per search run, seconds (CPU time of the process: with `--parallel`
    /// concurrent runs share it, so equal-time comparisons run without `--parallel`).
    #[arg(long)]
    time: Option<f64>,
    /// Plan-evaluation budget per search run (reproducible, unlike --time).
    #[arg(long)]
    evaluations: Option<u64>,
    /// Run the runs in parallel (rayon).
    #[arg(long)]
    parallel: bool,
    /// Output directory: summary.md, normalised.csv, runs.csv, results.json, cd.svg.
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    out: Option<PathBuf>,
    /// Run only shard K of N of the grid (runs whose index in the canonical order, problem
    /// then scheduler then seed, is K mod N), appending to --results; join the shards'
    /// files with `worl merge`.
    #[arg(long, value_name = "K/N", requires = "results")]
    shard: Option<String>,
    /// Resumable results file (JSON lines): each finished run is appended; runs already in
    /// it are skipped, a partial last line is redone.
    #[arg(long, value_name = "FILE.jsonl")]
    results: Option<PathBuf>,
    /// No progress on stderr (a bar on a terminal, else one line per run as it starts) and
    /// no closing note; errors and notices about the schedulers run still go to stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// Most seeds per stochastic scheduler (`--seeds`): the grid's runs are listed up front.
const MAX_SEEDS: u64 = 10_000;

/// The largest workload on which the default scheduler set runs `exact`.
const EXACT_DEFAULT_MAX_TASKS: usize = 12;

/// The largest cluster on which the default scheduler set runs `exact` (a search node
/// costs `O(n · m²)`).
const EXACT_DEFAULT_MAX_GPUS: usize = 16;

/// The spec of `exact` in the default scheduler set: a node budget of a million, a few
/// seconds per workload (measured on 12-task fork-joins: 0.6 s on 4 GPUs, 3.5 s on 16;
/// its default of 50 million nodes took 30 s to 3 minutes there without always finishing).
const EXACT_DEFAULT_SPEC: &str = "exact[nodes=1000000]";

/// The default scheduler set: every registered scheduler, `exact` with the node budget of
/// [`EXACT_DEFAULT_SPEC`], and without `exact` when a problem is larger than
/// [`EXACT_DEFAULT_MAX_TASKS`] tasks or [`EXACT_DEFAULT_MAX_GPUS`] GPUs; then the notice to
/// print.
fn default_specs(
    registry: &Registry,
    problems: &ProblemSet,
) -> (Vec<SchedulerSpec>, Option<String>) {
    let is_exact = |s: &SchedulerSpec| s.to_string().eq_ignore_ascii_case(Exact::NAME);
    let all = all_registered(registry);
    if !all.iter().any(is_exact) {
        return (all, None);
    }
    let too_large = problems.iter().find(|p| {
        p.problem.n_tasks() > EXACT_DEFAULT_MAX_TASKS || p.problem.n_gpus() > EXACT_DEFAULT_MAX_GPUS
    });
    let Some(p) = too_large else {
        let specs = all
            .into_iter()
            .map(|s| {
                if is_exact(&s) {
                    SchedulerSpec::registry(EXACT_DEFAULT_SPEC)
                } else {
                    s
                }
            })
            .collect();
        return (specs, None);
    };
    let notice = format!(
        "note: `exact` is left out of the default schedulers: `{}` has {} tasks on {} GPUs, and by default it runs (as `{EXACT_DEFAULT_SPEC}`) on workloads of at most {EXACT_DEFAULT_MAX_TASKS} tasks on at most {EXACT_DEFAULT_MAX_GPUS} GPUs; name it in --schedulers to run it anyway, with a node budget (`{EXACT_DEFAULT_SPEC}`) or --time",
        p.name,
        p.problem.n_tasks(),
        p.problem.n_gpus()
    );
    (
        all.into_iter().filter(|s| !is_exact(s)).collect(),
        Some(notice),
    )
}

/// The name of the problem of workload file `path` among `all`: its file name, or the whole
/// path where two workloads share a file name.
pub(crate) fn problem_name(path: &Path, all: &[PathBuf]) -> String {
    let file_name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match file_name(path) {
        Some(n)
            if all
                .iter()
                .filter(|q| file_name(q).as_ref() == Some(&n))
                .count()
                == 1 =>
        {
            n
        }
        _ => path.display().to_string(),
    }
}

/// `K/N` with `0 <= K < N` (`--shard` of `worl compare` and `worl simulate`).
pub(crate) fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let bad = || {
        worl::Error::invalid_argument(
            "--shard",
            format!("`{s}`"),
            "expected K/N with 0 <= K < N, e.g. 0/4",
        )
    };
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k >= n {
        return Err(bad().into());
    }
    Ok((k, n))
}

/// Runs the comparison, prints the tables and writes the files.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    if !(1..=MAX_SEEDS).contains(&args.seeds) {
        let reason = format!("must be in 1..={MAX_SEEDS}");
        return Err(worl::Error::invalid_argument("--seeds", args.seeds, reason).into());
    }
    let written = output_files(args.out.as_deref());
    let problems = grid_problems(
        &args.cluster,
        &args.workloads,
        args.results.as_deref(),
        &written,
    )?;
    let registry = Registry::with_builtins();
    let specs = if args.schedulers.is_empty() {
        let (specs, notice) = default_specs(&registry, &problems);
        if let Some(n) = notice {
            crate::errln!("{n}");
        }
        specs
    } else {
        specs_or_all(&registry, &args.schedulers)?
    };
    let budget = Budget {
        max_evaluations: args.evaluations,
        max_time: args.time.map(super::schedule::seconds).transpose()?,
    };
    let experiment = Experiment::new(problems)
        .with_registry(registry)
        .schedulers(specs)
        .seeds(1..=args.seeds)
        .budget(budget)
        .parallel(args.parallel)
        .quiet(args.quiet)
        .progress_lines(true)
        .keep_schedules(KeepSchedules::None);
    let results = match (&args.shard, &args.results) {
        (Some(s), Some(file)) => {
            let (k, n) = parse_shard(s)?;
            let report = experiment.shard(k, n)?.run_into(file)?;
            if args.quiet {
                return Ok(ExitCode::SUCCESS);
            }
            crate::errln!("{}", shard_summary(k, n, &report, file));
            return Ok(ExitCode::SUCCESS);
        }
        (None, Some(file)) => experiment.run_resumable(file)?,
        _ => experiment.run()?,
    };
    let out = args.out.as_deref().ok_or(InputError::NoOut)?;
    write_outputs(&results, out, args.quiet)?;
    Ok(ExitCode::SUCCESS)
}

/// The one-line summary of a shard run into `file` (`worl compare` and `worl simulate`).
pub(crate) fn shard_summary(k: usize, n: usize, report: &ShardReport, file: &Path) -> String {
    format!(
        "shard {k}/{n}: {} runs, {} already in {}, {} done now{}",
        report.runs,
        report.skipped,
        file.display(),
        report.ran,
        if report.cut_partial_line {
            " (a partial last line was cut off and redone)"
        } else {
            ""
        }
    )
}

/// The files [`write_outputs`] writes into `out`.
const OUTPUT_FILES: [&str; 5] = [
    "summary.md",
    "normalised.csv",
    "runs.csv",
    "results.json",
    "cd.svg",
];

/// The problems of a grid (`worl compare`, `worl simulate`): every workload on the cluster
/// `cluster`, named by [`problem_name`], after checking that no output (`--results`, the
/// files `written` into `--out`) is one of the inputs.
///
/// Errors: an output that is an input, a cluster or workload that does not load, a task no
/// GPU fits, or two workloads of one name.
pub(crate) fn grid_problems(
    cluster: &str,
    workloads: &[PathBuf],
    results: Option<&Path>,
    written: &[PathBuf],
) -> Result<ProblemSet> {
    let mut outputs: Vec<(&str, Option<&Path>)> = vec![("--results", results)];
    outputs.extend(written.iter().map(|p| ("--out", Some(p.as_path()))));
    let mut given: Vec<(&str, Option<&Path>)> = vec![("--cluster", Some(Path::new(cluster)))];
    given.extend(workloads.iter().map(|w| ("a workload", Some(w.as_path()))));
    inputs::distinct_files(&outputs, &given)?;
    let cluster = Arc::new(inputs::cluster(cluster)?);
    let mut problems = ProblemSet::new();
    for path in workloads {
        let w = inputs::workload(path)?;
        let p = worl::cluster::Problem::new(Arc::new(w), cluster.clone())?;
        problems.push(NamedProblem::new(problem_name(path, workloads), p))?;
    }
    Ok(problems)
}

/// The paths of the files [`write_outputs`] writes into `out` (none without `out`).
pub(crate) fn output_files(out: Option<&Path>) -> Vec<PathBuf> {
    out.map(|d| OUTPUT_FILES.iter().map(|f| d.join(f)).collect())
        .unwrap_or_default()
}

/// Prints the tables and writes `summary.md`, `normalised.csv`, `runs.csv`, `results.json`
/// and (with a rank test) `cd.svg` into `out`: the outputs of `worl compare` and `worl merge`;
/// then, unless `quiet`, a note of the files written on stderr.
pub(crate) fn write_outputs(results: &Results, out: &Path, quiet: bool) -> Result<()> {
    let report::ComparisonReport {
        normalised,
        markdown: md,
        rank_test: test,
    } = report::comparison_report(results)?;
    outln!("{md}")?;
    report::write_text(out.join("summary.md"), &md)?;
    report::write_normalised_csv(out.join("normalised.csv"), &normalised)?;
    results.write_csv(out.join("runs.csv"))?;
    results.write_json(out.join("results.json"))?;
    if let Some(t) = &test {
        plot::cd_diagram(t, "Average ranks by makespan", out.join("cd.svg"))?;
    }
    if quiet {
        return Ok(());
    }
    crate::errln!(
        "wrote {}/{{summary.md,normalised.csv,runs.csv,results.json{}}}",
        out.display(),
        if test.is_some() { ",cd.svg" } else { "" }
    );
    Ok(())
}
