//! `worl simulate`: execute workloads on a cluster under arrivals, runtime noise, shared
//! links and GPU failures, with static plans and online policies.

use crate::{Result, inputs, outln};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use worl::experiment::simulation::{SimStudy, realised_schedule, write_event_log};
use worl::experiment::{GroupBy, NamedProblem, ProblemSet, plot, report};
use worl::rtgs::{Budget, Registry};
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
    /// tasks not yet started at each arrival or failure), `eft` (online earliest finish
    /// time), `least-connection`, `round-robin`. Default:
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
    /// GPU failures: `none`, `mtbf:HOURS` (repair 600 s) or `mtbf:HOURS:REPAIR_S`.
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
    /// `plan:` policies).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write each policy's event log of the first workload and seed as CSV into --out.
    #[arg(long, requires = "out")]
    events: bool,
    /// No progress lines on stderr.
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
        return Err(format!("--seeds {}: must be in 1..={MAX_SEEDS}", args.seeds).into());
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
    let written: Vec<PathBuf> = args.out.as_deref().map_or_else(Vec::new, |d| {
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
    });
    let outputs: Vec<(&str, Option<&Path>)> = written
        .iter()
        .map(|p| ("--out", Some(p.as_path())))
        .collect();
    let mut given: Vec<(&str, Option<&Path>)> = vec![("--cluster", Some(Path::new(&args.cluster)))];
    given.extend(
        args.workloads
            .iter()
            .map(|w| ("a workload", Some(w.as_path()))),
    );
    inputs::distinct_files(&outputs, &given)?;
    let cluster = Arc::new(inputs::cluster(&args.cluster)?);
    let mut problems = ProblemSet::new();
    for path in &args.workloads {
        let w = inputs::workload(path)?;
        let p = worl::cluster::Problem::new(Arc::new(w), cluster.clone())?;
        problems.push(NamedProblem::new(
            super::compare::problem_name(path, &args.workloads),
            p,
        ))?;
    }
    let study = SimStudy::new(problems, policies)
        .seeds(1..=args.seeds)
        .config(config)
        .arrivals(arrivals)
        .with_registry(Registry::with_builtins())
        .budget(budget);
    let total = study.n_runs();
    let quiet = args.quiet;
    let outcome = study.run(&mut |i, problem, policy, seed| {
        if !quiet {
            crate::errln!("[{}/{total}] {problem}: {policy}, seed {seed}", i + 1);
        }
    })?;
    let results = outcome.results();
    let mut md = String::from("## Simulated execution: mean over workloads and seeds\n\n");
    md.push_str(&outcome.markdown());
    md.push_str("\n## Realised makespan per workload (mean ± std over seeds)\n\n");
    md.push_str(&report::markdown_table(&results, &GroupBy::Problem, None)?);
    outln!("{md}")?;
    let Some(out) = &args.out else {
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    report::write_text(out.join("simulation.md"), &md)?;
    outcome.write_csv(out.join("sim.csv"))?;
    results.write_csv(out.join("runs.csv"))?;
    results.write_json(out.join("results.json"))?;
    let first_problem = outcome.runs.first().map(|r| r.problem.clone());
    let mut cdf = Vec::new();
    for kept in &outcome.kept {
        let run = &outcome.runs[kept.run];
        if Some(&run.problem) != first_problem.as_ref() {
            continue;
        }
        let stem = file_stem(&run.policy);
        let jcts = kept.result.jobs.iter().map(|j| j.jct).collect();
        cdf.push((run.policy.clone(), jcts));
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
        if args.events {
            write_event_log(
                &kept.problem,
                &kept.result,
                out.join(format!("events-{stem}.csv")),
            )?;
        }
    }
    plot::cdf(
        &cdf,
        &format!(
            "Job completion time, {} (seed 1)",
            first_problem.unwrap_or_default()
        ),
        "JCT (s)",
        out.join("jct-cdf.svg"),
    )?;
    if !quiet {
        crate::errln!(
            "wrote {}/{{simulation.md,sim.csv,runs.csv,results.json,jct-cdf.svg,gantt-*.svg{}}}",
            out.display(),
            if args.events { ",events-*.csv" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
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
