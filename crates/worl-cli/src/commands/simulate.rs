//! `worl simulate`: execute workloads on a cluster under arrivals, runtime noise, shared
//! links and GPU failures, with static plans and online policies.

use crate::{Result, outln};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl::experiment::simulation::{SimOutcome, SimStudy, realised_schedule, write_event_log};
use worl::experiment::{GroupBy, plot, report};
use worl::sched::{Budget, Registry};
use worl::sim::arrivals::Arrivals;
use worl::sim::spec::{DEFAULT_POLICIES, PolicySpec};
use worl::sim::{Contention, Failures, RuntimeNoise, SimConfig};

/// Most seeds (`--seeds`).
const MAX_SEEDS: u64 = 10_000;

/// Arguments of `worl simulate`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Workload files (any format worl reads); each is one problem. Job release times come
    /// from the file where it has them (Alibaba v2018, worl's JSON) with `--arrivals trace`.
    #[arg(required = true)]
    workloads: Vec<PathBuf>,
    /// The cluster: a cluster file or a description (see `worl cluster --help`).
    #[arg(long)]
    cluster: String,
    /// Policies, comma- or semicolon-separated: `plan:SCHEDULER` (a registered scheduler's
    /// static plan replayed as planned), `replan:SCHEDULER` (the scheduler re-run on the
    /// tasks not yet started at each arrival or failure), `online:dqn[...]`/`online:mdts[...]`
    /// (the deep-RL agent, trained or loaded by one batch run, dispatching online, frozen;
    /// MDTS places a job's ready tasks jointly), `eft` (online earliest finish time),
    /// `least-connection`, `round-robin`. Default:
    /// plan:heft,plan:ils,replan:heft,eft,least-connection,round-robin.
    #[arg(long)]
    policy: Vec<String>,
    /// How jobs arrive: `trace` (the workload's release times; 0 where it has none),
    /// `batch` (all at 0) or `poisson:R` (R jobs per hour, in job order, seeded).
    #[arg(long, default_value = "trace")]
    arrivals: String,
    /// Runtime noise: `none`, `lognormal:CV` (mean 1) or `uniform:LO..HI`; actual run time =
    /// estimate × a factor drawn per attempt.
    #[arg(long, default_value = "none")]
    noise: String,
    /// Network contention: `fair` (concurrent transfers share NICs and links max-min
    /// fairly) or `none` (every transfer takes latency + bytes / bandwidth).
    #[arg(long, default_value = "fair")]
    contention: String,
    /// GPU failures: `none`, `mtbf:HOURS` (repair 600 s), `mtbf:HOURS:REPAIR_S`, scripted
    /// outages `outages:GPU@FROM+DURATION[;GPU@FROM+DURATION...]` (GPU an index such as `3`
    /// or `g3`, times in seconds; quote the `;` in a shell) or `script:FILE` (a CSV file with
    /// the header `gpu,from,to`, one outage per row).
    #[arg(long, default_value = "none")]
    failures: String,
    /// Seeds 1..=N (arrivals, noise, failures, planners).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// CPU-time budget of each planning call (`plan:` once per run, `replan:` per
    /// decision), seconds.
    #[arg(long)]
    time: Option<f64>,
    /// Plan-evaluation budget of each planning call.
    #[arg(long)]
    evaluations: Option<u64>,
    /// Charge each decision's wall-clock time as scheduler latency in simulated time (runs
    /// then depend on the host's speed).
    #[arg(long)]
    charge_decision_time: bool,
    /// Output directory: simulation.md, sim.csv (every measure per run), runs.csv and
    /// results.json (realised makespans in `worl compare`'s format), jct-cdf.svg, and per
    /// policy the realised Gantt chart of the first workload and seed (with the plan's for
    /// `plan:` policies; not with --results, whose lines keep measures and job completion
    /// times but not the tasks).
    #[arg(long, conflicts_with = "shard")]
    out: Option<PathBuf>,
    /// Also write each policy's event log of the first workload and seed as CSV into --out
    /// (not with --results).
    #[arg(long, requires = "out", conflicts_with = "results")]
    events: bool,
    /// Run only shard K of N of the study (runs whose index in the canonical order,
    /// workload then seed then policy, is K mod N), appending to --results; join the
    /// shards' files with `worl merge`.
    #[arg(long, value_name = "K/N", requires = "results")]
    shard: Option<String>,
    /// Resumable results file (JSON lines): each finished run is appended; runs already in
    /// it are skipped, a partial last line is redone. Without --shard the whole study runs
    /// into it, then --out is written from it (without Gantt charts).
    #[arg(long, value_name = "FILE.jsonl")]
    results: Option<PathBuf>,
    /// No progress on stderr (a bar on a terminal, else one line per run as it starts) and
    /// no closing note.
    #[arg(long, short)]
    quiet: bool,
}

/// A file-name-safe form of a policy label (`plan:ils[a=1]` → `plan-ils-a-1`).
fn file_stem(label: &str) -> String {
    let mut s: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    s.trim_matches('-').to_owned()
}

/// Runs the simulations, prints the tables and writes the files.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    if !(1..=MAX_SEEDS).contains(&args.seeds) {
        let reason = format!("must be in 1..={MAX_SEEDS}");
        return Err(worl::Error::invalid_argument("--seeds", args.seeds, reason).into());
    }
    let policies = if args.policy.is_empty() {
        PolicySpec::parse_list(DEFAULT_POLICIES)?
    } else {
        let mut all = Vec::new();
        for list in &args.policy {
            all.extend(PolicySpec::parse_list(list)?);
        }
        all
    };
    let config = SimConfig {
        noise: args.noise.parse::<RuntimeNoise>()?,
        contention: args.contention.parse::<Contention>()?,
        failures: args.failures.parse::<Failures>()?,
        record_events: args.events,
        charge_decision_time: args.charge_decision_time,
    };
    let arrivals: Arrivals = args.arrivals.parse()?;
    let budget = Budget {
        max_evaluations: args.evaluations,
        max_time: args.time.map(super::schedule::seconds).transpose()?,
    };
    let written = output_files(args.out.as_deref());
    let problems = super::compare::grid_problems(
        &args.cluster,
        &args.workloads,
        args.results.as_deref(),
        &written,
    )?;
    let study = SimStudy::new(problems, policies)
        .seeds(1..=args.seeds)
        .config(config)
        .arrivals(arrivals)
        .with_registry(Registry::with_builtins())
        .budget(budget);
    let study = study.quiet(args.quiet).progress_lines(true);
    let outcome = match (&args.shard, &args.results) {
        (Some(spec), Some(file)) => {
            let (k, n) = super::compare::parse_shard(spec)?;
            let report = study.shard(k, n)?.run_into(file)?;
            if !args.quiet {
                crate::errln!("{}", super::compare::shard_summary(k, n, &report, file));
            }
            return Ok(ExitCode::SUCCESS);
        }
        (None, Some(file)) => study.run_resumable(file)?,
        _ => study.run(&mut |_, _, _, _| {})?,
    };
    write_outputs(&outcome, args.out.as_deref(), args.events, args.quiet)?;
    Ok(ExitCode::SUCCESS)
}

/// The files [`write_outputs`] writes into `out` whatever the runs (none without `out`).
pub(crate) fn output_files(out: Option<&Path>) -> Vec<PathBuf> {
    out.map(|d| {
        [
            "simulation.md",
            "sim.csv",
            "runs.csv",
            "results.json",
            "jct-cdf.svg",
        ]
        .iter()
        .map(|f| d.join(f))
        .collect()
    })
    .unwrap_or_default()
}

/// Prints the tables and, with `out`, writes `simulation.md`, `sim.csv`, `runs.csv`,
/// `results.json` and `jct-cdf.svg` (from [`SimRun::jcts`](worl::experiment::simulation::SimRun::jcts)
/// of the first workload's first seed), and for the runs kept with full results (a single
/// run, not a merge) the Gantt charts and, with `events`, the event logs: the outputs of
/// `worl simulate` and of `worl merge` on simulation shards; then, unless `quiet`, a note
/// of the files written on stderr.
pub(crate) fn write_outputs(
    outcome: &SimOutcome,
    out: Option<&Path>,
    events: bool,
    quiet: bool,
) -> Result<()> {
    let results = outcome.results();
    let mut md = String::from("## Simulated execution: mean over workloads and seeds\n\n");
    md.push_str(&outcome.markdown());
    md.push_str("\n## Realised makespan per workload (mean ± std over seeds)\n\n");
    md.push_str(&report::markdown_table(&results, &GroupBy::Problem, None)?);
    outln!("{md}")?;
    let Some(out) = out else {
        return Ok(());
    };
    std::fs::create_dir_all(out).map_err(|e| worl::Error::io(out, e))?;
    report::write_text(out.join("simulation.md"), &md)?;
    outcome.write_csv(out.join("sim.csv"))?;
    results.write_csv(out.join("runs.csv"))?;
    results.write_json(out.join("results.json"))?;
    let first = outcome.runs.first().map(|r| (r.problem.clone(), r.seed));
    let is_first = |problem: &str, seed: u64| {
        first
            .as_ref()
            .is_some_and(|(p, s)| p == problem && *s == seed)
    };
    let cdf: Vec<(String, Vec<f64>)> = outcome
        .runs
        .iter()
        .filter(|r| is_first(&r.problem, r.seed))
        .filter_map(|r| Some((r.policy.clone(), r.jcts.clone()?)))
        .collect();
    let mut gantts = false;
    for kept in &outcome.kept {
        let run = &outcome.runs[kept.run];
        if !is_first(&run.problem, run.seed) {
            continue;
        }
        gantts = true;
        let stem = file_stem(&run.policy);
        let realised = realised_schedule(&kept.problem, &kept.result)?;
        plot::gantt(
            &kept.problem,
            &realised,
            &format!(
                "{}: {} realised (seed {})",
                run.problem, run.policy, run.seed
            ),
            out.join(format!("gantt-{stem}.svg")),
        )?;
        if let Some(plan) = &kept.planned {
            plot::gantt(
                &kept.problem,
                plan,
                &format!("{}: {} planned", run.problem, run.policy),
                out.join(format!("gantt-{stem}-planned.svg")),
            )?;
        }
        if events {
            write_event_log(
                &kept.problem,
                &kept.result,
                out.join(format!("events-{stem}.csv")),
            )?;
        }
    }
    let (problem, seed) = first.unwrap_or_default();
    plot::cdf(
        &cdf,
        &format!("Job completion time, {problem} (seed {seed})"),
        "JCT (s)",
        out.join("jct-cdf.svg"),
    )?;
    if !quiet {
        crate::errln!(
            "wrote {}/{{simulation.md,sim.csv,runs.csv,results.json,jct-cdf.svg{}{}}}",
            out.display(),
            if gantts { ",gantt-*.svg" } else { "" },
            if gantts && events {
                ",events-*.csv"
            } else {
                ""
            }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn policy_labels_become_safe_file_stems() {
        assert_eq!(
            file_stem("plan:ils[restarts=2,x=\"a/b\"]"),
            "plan-ils-restarts-2-x-a-b"
        );
        assert_eq!(file_stem("../round-robin"), "round-robin");
    }
}
