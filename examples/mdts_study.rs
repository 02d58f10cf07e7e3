//! The comparison of MDTS (*Multi-task Deep Reinforcement Learning for Scalable Parallel Task
//! Scheduling*) on Alibaba v2018 jobs: MDTS against the plain Double DQN list scheduler (the
//! study's "raw DRL"), least-connection and PSO on job execution time, load imbalance and
//! cost, with HEFT and WORL-RTGS on the same runs.
//!
//! ```sh
//! cargo run --release --example mdts_study                 # the study (a few minutes)
//! cargo run --release --example mdts_study -- --quick      # a smoke test
//! cargo run --release --example mdts_study -- --write-docs # also writes its sections of docs/results.md
//! cargo run --release --example mdts_study -- --online-only --write-docs # pre-training and part 5 only
//! ```
//!
//! Instances: `--tasks` tasks (300) of whole DAG jobs of the Alibaba cluster-trace-v2018
//! `batch_task` table (`--trace`, default the shared data's head-50k extract), drawn with
//! the instance seed (`Workload::sample_jobs`), edge bytes set for CCR 1 at 1 Gbit/s, on
//! `--gpus` (16) GPUs of the PAI mix, one per machine, links up to 1 Gbit/s
//! (`presets::paper_pool`), busy (the WORL-RTGS paper's background utilisation 58–85 %).
//! Test instances use seeds `0..instances`; pre-training instances seeds `1000..`.
//!
//! 1. **Pre-training.** A DQN agent and an MDTS agent (4 branches) each train for
//!    `--rounds` passes over the `--train` pre-training instances (`--episodes` episodes per
//!    instance and pass), are saved with `worl::ddqn::save_checkpoint` to
//!    `target/worl/mdts_study/{dqn,mdts}.bpk`, and are reloaded from there by the runs.
//! 2. **Runs.** Every scheduler on every test instance with `--seeds` seeds. The searches —
//!    MDTS and DQN (pre-trained agents, learning on), PSO and WORL-RTGS — get the same CPU
//!    time per run (`--time`, 1 s); HEFT and least-connection are one-pass list schedulers.
//!    Pre-training time is reported but not counted in the runs' budget.
//! 3. **Measures** (the harness's `RunRecord`): mean job execution time (a job's last finish;
//!    every job is released at 0), load imbalance (coefficient of variation of the GPUs' busy
//!    time), cost (busy GPU-seconds at on-demand prices, `worl::cluster::gpu_hour_price`) and
//!    makespan, averaged over instances and seeds.
//! 4. **Claims.** The direction of each of MDTS's reported results is checked: job execution
//!    time −15.3 % vs least-connection and −39.8 % vs PSO; against raw DRL job execution time
//!    −42.8 %, load imbalance −47.5 % and cost −59.0 %.
//! 5. **Online** (section `mdts-online`; skipped with `--online-instances 0`). MDTS dispatches
//!    *arriving* jobs, so the same kind of instances (`--online-instances`, 2, seeds `0..`)
//!    are executed by the simulator (`worl::experiment::simulation::SimStudy`) with each job
//!    released at its trace time (the loader's `Job::release`, kept by `sample_jobs`, shifted
//!    so that the first job arrives at 0), max-min fair network sharing
//!    (`Contention::Fair`), no noise or failures, `--online-seeds` (1) seeds: `replan:mdts`
//!    and `replan:dqn` with the pre-trained checkpoints, `least-connection`, `replan:pso`,
//!    `eft`, `replan:heft` and `replan:worl-rtgs`, every re-planning decision of a search
//!    given `--decision-time` (0.1) CPU s; and MDTS's own setting, the pre-trained agents as
//!    frozen online dispatchers (`online:mdts[agent=…,learn=false]`, MDTS placing an arriving
//!    job's ready child tasks jointly, and `online:dqn[…]`). Measures: mean JCT (finish −
//!    arrival), load imbalance, cost and makespan of the realised execution, and the five
//!    claims again for both forms of MDTS (re-planning and online dispatch).

use clap::Parser;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::ccr::with_ccr;
use worl::dag::formats::alibaba::{self, AlibabaOptions};
use worl::dag::{JobId, Workload};
use worl::ddqn::{Agent, ComputeDevice, save_checkpoint};
use worl::experiment::simulation::SimStudy;
use worl::experiment::{Experiment, NamedProblem, ProblemSet, Results, SchedulerSpec, report};
use worl::sched::schedulers::drl::{DrlConfig, run_drl};
use worl::sched::{Budget, RunContext};
use worl::sim::arrivals::Arrivals;
use worl::sim::spec::PolicySpec;
use worl::sim::{Contention, SimConfig};

type BoxError = Box<dyn std::error::Error>;

#[derive(Parser, Debug)]
#[command(
    about = "MDTS vs raw DRL, least-connection, PSO, HEFT and WORL-RTGS on Alibaba v2018 jobs"
)]
struct Args {
    /// Alibaba v2018 batch_task CSV (default: the shared data's head-50k extract).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Tasks per instance.
    #[arg(long, default_value_t = 300)]
    tasks: usize,
    /// Test instances (seeds 0..instances).
    #[arg(long, default_value_t = 6)]
    instances: u64,
    /// Pre-training instances (seeds 1000..).
    #[arg(long, default_value_t = 6)]
    train: u64,
    /// Pre-training passes over the pre-training instances.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Episodes per pre-training instance and pass.
    #[arg(long, default_value_t = 10)]
    episodes: usize,
    /// Run seeds per scheduler and instance.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// CPU seconds per search run (MDTS, DQN, PSO, WORL-RTGS).
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// GPUs of the cluster.
    #[arg(long, default_value_t = 16)]
    gpus: usize,
    /// A small, fast version (2 instances of 60 tasks, 1 seed, 0.2 s per run).
    #[arg(long)]
    quick: bool,
    /// Write the study's sections of docs/results.md.
    #[arg(long)]
    write_docs: bool,
    /// Skip part 1's batch runs: pre-train, then run only the online part.
    #[arg(long)]
    online_only: bool,
    /// Online part: test instances (seeds 0..online-instances); 0 skips the part.
    #[arg(long, default_value_t = 2)]
    online_instances: u64,
    /// Online part: simulation seeds per policy and instance.
    #[arg(long, default_value_t = 1)]
    online_seeds: u64,
    /// Online part: CPU seconds per re-planning decision of every search.
    #[arg(long, default_value_t = 0.1)]
    decision_time: f64,
}

/// CCR 1 at 1 Gbit/s, the pool's fastest link.
const BANDWIDTH: f64 = 1.0e9 / 8.0;

/// MDTS's reported reductions: (baseline label, measure, reduction in %).
const CLAIMS: [(&str, Measure, f64); 5] = [
    ("least-connection", Measure::JobTime, 15.3),
    ("PSO", Measure::JobTime, 39.8),
    ("DQN", Measure::JobTime, 42.8),
    ("DQN", Measure::Imbalance, 47.5),
    ("DQN", Measure::Cost, 59.0),
];

#[derive(Clone, Copy, Debug)]
enum Measure {
    JobTime,
    Imbalance,
    Cost,
    Makespan,
}

impl Measure {
    fn label(self) -> &'static str {
        match self {
            Measure::JobTime => "job execution time",
            Measure::Imbalance => "load imbalance",
            Measure::Cost => "cost",
            Measure::Makespan => "makespan",
        }
    }

    fn of(self, r: &worl::experiment::RunRecord) -> f64 {
        match self {
            Measure::JobTime => r.mean_job_time,
            Measure::Imbalance => r.load_imbalance,
            Measure::Cost => r.cost,
            Measure::Makespan => r.makespan,
        }
    }
}

fn instance(pool: &Workload, args: &Args, seed: u64) -> Result<Problem, BoxError> {
    let w = pool.sample_jobs(args.tasks, seed, format!("alibaba-{}-s{seed}", args.tasks))?;
    let w = with_ccr(&w, 1.0, BANDWIDTH, seed)?;
    let mut c = presets::paper_pool(args.gpus, 1000.0, seed)?;
    c.apply_load(&LoadState::paper_busy(), seed)?;
    Ok(Problem::new(Arc::new(w), Arc::new(c))?)
}

/// Pre-trains an agent of `config` on `problems` and saves it to `path`; returns the seconds
/// it took.
fn pretrain(
    config: &DrlConfig,
    problems: &[Problem],
    rounds: usize,
    path: &Path,
) -> Result<f64, BoxError> {
    let started = Instant::now();
    let n = problems.iter().map(Problem::n_tasks).max().unwrap_or(1);
    let agent_config = worl::ddqn::AgentConfig {
        seed: 17,
        ..config.agent_config_for_runs(n, rounds * problems.len())
    };
    let mut agent = Agent::new(agent_config, &ComputeDevice::flex())?;
    for round in 0..rounds {
        let mut gaps = 0.0;
        for p in problems {
            let out = run_drl(p, config, agent, &mut RunContext::new(round as u64))?;
            gaps += out.greedy_makespan / p.lower_bound().value;
            agent = out.agent;
        }
        println!(
            "  round {}: greedy makespan / LB {:.3} (mean over {} instances)",
            round + 1,
            gaps / problems.len() as f64,
            problems.len()
        );
    }
    save_checkpoint(&agent, path)?;
    Ok(started.elapsed().as_secs_f64())
}

/// `x` as a percentage with its sign, `−12.3 %` or `+4.5 %`.
fn signed_percent(x: f64) -> String {
    if x < 0.0 {
        format!("−{:.1} %", -x)
    } else {
        format!("+{x:.1} %")
    }
}

/// Mean of `measure` over the runs of `scheduler`.
fn mean(results: &Results, scheduler: &str, measure: Measure) -> f64 {
    let v: Vec<f64> = results
        .records()
        .iter()
        .filter(|r| r.scheduler == scheduler)
        .map(|r| measure.of(r))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Parts 2–4: every scheduler on the batch instances (every job at 0), the `mdts-study`
/// section; returns whether each of [`CLAIMS`] reproduced.
fn batch_part(
    args: &Args,
    pool: &Workload,
    agents: &[(&str, PathBuf)],
    pretraining: &[(&str, f64)],
) -> Result<Vec<bool>, BoxError> {
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/mdts_study");
    let mut reproduced = Vec::new();
    let mut problems = ProblemSet::new();
    for seed in 0..args.instances {
        let p = instance(pool, args, seed)?;
        let name = format!("{} | seed {seed}", p.workload().name());
        problems.push(NamedProblem::new(name, p))?;
    }
    let budget = Budget::cpu_time(Duration::try_from_secs_f64(args.time)?);
    // Searches get `time` CPU s; an episode cap far above what fits in it.
    let mut specs = Vec::new();
    for (name, path) in agents {
        let label = if *name == "dqn" { "DQN" } else { "MDTS" };
        specs.push(
            SchedulerSpec::registry(format!("{name}:agent={},episodes=100000", path.display()))
                .with_label(label),
        );
    }
    for (spec, label) in [
        ("least-connection", "least-connection"),
        ("pso", "PSO"),
        ("heft", "HEFT"),
        ("worl-rtgs", "WORL-RTGS"),
    ] {
        specs.push(SchedulerSpec::registry(spec).with_label(label));
    }
    let experiment = Experiment::new(problems)
        .schedulers(specs)
        .seeds(1..=args.seeds.max(1))
        .budget(budget);
    println!(
        "running {} runs ({} CPU s per search run)...",
        experiment.n_runs()?,
        args.time
    );
    let results = experiment.run()?;
    results.write_csv(out_dir.join("runs.csv"))?;

    let measures = [
        Measure::JobTime,
        Measure::Imbalance,
        Measure::Cost,
        Measure::Makespan,
    ];
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## MDTS study: multi-task deep RL against raw DRL, least-connection and PSO\n\n\
         Generated by `cargo run --release --example mdts_study{}` (`examples/mdts_study.rs`); \
         do not edit by hand. {} test instances of {} tasks (whole DAG jobs of the Alibaba \
         v2018 trace), CCR 1 at 1 Gbit/s, {} busy GPUs of the PAI mix; {} seed(s) per \
         scheduler and instance; MDTS, DQN, PSO and WORL-RTGS get {} CPU s per run. \
         Pre-training (not in the runs' budget): {}.\n",
        if args.quick { " -- --quick" } else { "" },
        args.instances,
        args.tasks,
        args.gpus,
        args.seeds.max(1),
        args.time,
        pretraining
            .iter()
            .map(|(n, s)| format!("{n} {s:.0} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        md,
        "| scheduler | job execution time (s) | load imbalance (CV) | cost (US$) | makespan (s) |\n|---|---:|---:|---:|---:|"
    );
    for s in [
        "MDTS",
        "DQN",
        "least-connection",
        "PSO",
        "HEFT",
        "WORL-RTGS",
    ] {
        let v: Vec<f64> = measures.iter().map(|&m| mean(&results, s, m)).collect();
        let _ = writeln!(
            md,
            "| {s} | {:.1} | {:.3} | {:.3} | {:.1} |",
            v[0], v[1], v[2], v[3]
        );
    }
    let _ = writeln!(
        md,
        "\nMeans over instances and seeds. Job execution time: a job's last finish (jobs are \
         released at 0), averaged over jobs; load imbalance: coefficient of variation of the \
         GPUs' busy time; cost: busy GPU-seconds at on-demand prices per GPU model.\n"
    );
    let _ = writeln!(
        md,
        "| MDTS's claim | reported | measured | direction reproduced |\n|---|---:|---:|---|"
    );
    for (baseline, measure, reported) in CLAIMS {
        let (m, b) = (
            mean(&results, "MDTS", measure),
            mean(&results, baseline, measure),
        );
        let reduction = if b > 0.0 { (b - m) / b * 100.0 } else { 0.0 };
        reproduced.push(reduction > 0.0);
        let _ = writeln!(
            md,
            "| {} vs {baseline} | −{reported:.1} % | {} | {} |",
            measure.label(),
            signed_percent(-reduction),
            if reduction > 0.0 { "yes" } else { "no" }
        );
    }
    let _ = writeln!(
        md,
        "\n\"Measured\": MDTS's mean minus the baseline's, over the baseline's (negative: MDTS \
         is lower, as claimed)."
    );
    println!("\n{md}");
    if args.write_docs {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        report::write_section(root.join("docs/results.md"), "mdts-study", &md)?;
        println!("wrote the mdts-study section of docs/results.md");
    }
    Ok(reproduced)
}

/// A test instance of part 2: [`instance`] with each job released at its trace time,
/// shifted so that the instance's first job arrives at 0.
fn online_instance(pool: &Workload, args: &Args, seed: u64) -> Result<Problem, BoxError> {
    let p = instance(pool, args, seed)?;
    let w = p.workload();
    let t0 = w
        .jobs()
        .iter()
        .map(|j| j.release)
        .fold(f64::INFINITY, f64::min);
    let mut b = w.to_builder();
    for (j, job) in w.jobs().iter().enumerate() {
        b.set_release(JobId::new(j), job.release - t0)?;
    }
    let w = b.build()?;
    Ok(Problem::new(Arc::new(w), p.cluster_arc().clone())?)
}

/// Whether each of [`CLAIMS`] reproduced in the `mdts-study` section of `results` (the
/// batch part's last written outcome), read from its claims table; `None` when the file or
/// a row is missing.
fn batch_claims_from_docs(results: &Path) -> Option<Vec<bool>> {
    let text = std::fs::read_to_string(results).ok()?;
    let start = text.find("<!-- begin mdts-study -->")?;
    let end = text[start..].find("<!-- end mdts-study -->")? + start;
    let section = &text[start..end];
    CLAIMS
        .iter()
        .map(|(baseline, measure, _)| {
            let row = format!("| {} vs {baseline} |", measure.label());
            let line = section.lines().find(|l| l.starts_with(&row))?;
            Some(line.trim_end().ends_with("| yes |"))
        })
        .collect()
}

/// Part 5 (online): the policies executed by the simulator on the online instances (jobs arriving at
/// their trace times, fair network sharing), the `mdts-online` section.
fn online_part(
    args: &Args,
    pool: &Workload,
    agents: &[(&str, PathBuf)],
    pretraining: &[(&str, f64)],
    batch: Option<Vec<bool>>,
) -> Result<(), BoxError> {
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/mdts_study");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let batch = match batch {
        Some(b) => Some(b),
        None => batch_claims_from_docs(&root.join("docs/results.md")),
    };
    let mut problems = ProblemSet::new();
    let mut jobs = Vec::new();
    let mut spans = Vec::new();
    for seed in 0..args.online_instances {
        let p = online_instance(pool, args, seed)?;
        let w = p.workload();
        jobs.push(w.n_jobs());
        spans.push(w.jobs().iter().map(|j| j.release).fold(0.0, f64::max));
        let name = format!("{} | seed {seed}", w.name());
        problems.push(NamedProblem::new(name, p))?;
    }
    // (display label, policy): the searches re-plan with `decision_time` CPU s per decision.
    let mut policies: Vec<(&str, PolicySpec)> = Vec::new();
    for (name, path) in agents {
        let label = if *name == "dqn" { "DQN" } else { "MDTS" };
        let spec = format!("{name}:agent={},episodes=100000", path.display());
        policies.push((label, PolicySpec::Replan(spec)));
    }
    for (name, path) in agents {
        let label = if *name == "dqn" {
            "DQN online"
        } else {
            "MDTS online"
        };
        let spec = format!("{name}[agent={},learn=false]", path.display());
        policies.push((label, PolicySpec::Online(spec)));
    }
    policies.push(("least-connection", PolicySpec::LeastConnection));
    policies.push(("PSO", PolicySpec::Replan("pso".into())));
    policies.push(("online EFT", PolicySpec::OnlineEft));
    policies.push(("HEFT", PolicySpec::Replan("heft".into())));
    policies.push(("WORL-RTGS", PolicySpec::Replan("worl-rtgs".into())));
    let study = SimStudy::new(problems, policies.iter().map(|(_, p)| p.clone()).collect())
        .seeds(1..=args.online_seeds.max(1))
        .arrivals(Arrivals::Trace)
        .config(SimConfig {
            contention: Contention::Fair,
            ..SimConfig::default()
        })
        .budget(Budget::cpu_time(Duration::try_from_secs_f64(
            args.decision_time,
        )?));
    println!(
        "online part: {} simulations ({} CPU s per re-planning decision)...",
        study.n_runs(),
        args.decision_time
    );
    let started = Instant::now();
    let outcome = study.run(&mut |i, problem, policy, seed| {
        let policy = policies
            .iter()
            .find(|(_, p)| p.label() == policy)
            .map_or(policy, |(l, _)| l);
        println!("  [{}] {problem}, {policy}, seed {seed}", i + 1);
    })?;
    let wall = started.elapsed().as_secs_f64();
    let mut results = outcome.results();
    results.write_csv(out_dir.join("online-runs.csv"))?;
    // Tables by display label.
    let relabelled: Vec<_> = results
        .records()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if let Some((l, _)) = policies.iter().find(|(_, p)| p.label() == r.scheduler) {
                r.scheduler = (*l).to_owned();
            }
            r
        })
        .collect();
    results = Results::from_records(relabelled);
    // Mean over the runs of policy `label` of one simulation measure.
    let mean_metric = |label: &str, of: fn(&worl::sim::SimMetrics) -> f64| {
        let spec = policies
            .iter()
            .find(|(l, _)| *l == label)
            .map(|(_, p)| p.label());
        let v: Vec<f64> = outcome
            .runs
            .iter()
            .filter(|r| Some(&r.policy) == spec.as_ref())
            .map(|r| of(&r.metrics))
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };

    let mut md = String::new();
    let _ = writeln!(
        md,
        "## MDTS study online: jobs arriving at their trace times\n\n\
         Generated by `cargo run --release --example mdts_study{}` (`examples/mdts_study.rs`); \
         do not edit by hand. MDTS is an online dispatcher of arriving jobs, so this part \
         executes the policies in the simulator (`worl-sim`) instead of planning a batch: \
         {} test instances (seeds 0..{}) of {} tasks built as in the batch study (whole DAG \
         jobs of the Alibaba v2018 trace, CCR 1 at 1 Gbit/s, {} busy GPUs of the PAI mix), \
         each job released at its trace time (its first task's start in the trace; the \
         instance's first job at 0; {} jobs per instance, the last arriving at {} s), \
         max-min fair network sharing (`--contention fair`), no runtime noise, no failures; \
         {} simulation seed(s) per policy and instance. MDTS and DQN are the pre-trained \
         agents of the batch study ({}) re-planning the not-yet-started tasks at every job \
         arrival (`replan:mdts`, `replan:dqn`, learning on), as are PSO, HEFT and WORL-RTGS \
         (`replan:pso`, `replan:heft`, `replan:worl-rtgs`); every re-planning decision of a \
         search (MDTS, DQN, PSO, WORL-RTGS) gets {} CPU s. \"MDTS online\" and \"DQN \
         online\" are MDTS's own setting: the same pre-trained agents, frozen \
         (`learn=false`), dispatching the ready tasks of arrived jobs at every event \
         (`online:mdts`, `online:dqn`): MDTS places the ready child tasks of a job jointly, \
         one decision for up to 4 of them, each to one of its 8 GPUs of smallest estimated \
         finish, with the static MDP's features computed from the simulator's state; no \
         learning from realised rewards. Least-connection and online EFT dispatch ready \
         tasks as GPUs free. The grid took {:.0} s of wall time.\n",
        {
            let a: Vec<String> = std::env::args().skip(1).collect();
            if a.is_empty() {
                String::new()
            } else {
                format!(" -- {}", a.join(" "))
            }
        },
        args.online_instances,
        args.online_instances,
        args.tasks,
        args.gpus,
        jobs.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        spans
            .iter()
            .map(|s| format!("{s:.0}"))
            .collect::<Vec<_>>()
            .join(", "),
        args.online_seeds.max(1),
        pretraining
            .iter()
            .map(|(n, s)| format!("pre-trained {n} {s:.0} s"))
            .collect::<Vec<_>>()
            .join(", "),
        args.decision_time,
        wall
    );
    let _ = writeln!(
        md,
        "| policy | spec | mean JCT (s) | load imbalance (CV) | cost (US$) | makespan (s) | decisions | decision p50 / p99 (ms) |\n|---|---|---:|---:|---:|---:|---:|---:|"
    );
    for (label, spec) in &policies {
        let spec = match spec {
            PolicySpec::Replan(s) if s.contains("agent=") => {
                format!("replan:{}", s.split(':').next().unwrap_or(s))
            }
            PolicySpec::Online(s) => {
                let name = s.split('[').next().unwrap_or(s);
                format!("online:{name}[agent={name}.bpk,learn=false]")
            }
            other => other.label(),
        };
        let _ = writeln!(
            md,
            "| {label} | `{spec}` | {:.1} | {:.3} | {:.3} | {:.1} | {:.1} | {:.3} / {:.3} |",
            mean(&results, label, Measure::JobTime),
            mean(&results, label, Measure::Imbalance),
            mean(&results, label, Measure::Cost),
            mean(&results, label, Measure::Makespan),
            mean_metric(label, |m| m.replans),
            mean_metric(label, |m| m.decision_latency_p50 * 1e3),
            mean_metric(label, |m| m.decision_latency_p99 * 1e3)
        );
    }
    let _ = writeln!(
        md,
        "\nMeans over instances and seeds of the realised execution. Mean JCT: a job's last \
         finish minus its arrival, averaged over jobs; load imbalance: coefficient of \
         variation of the GPUs' busy time; cost: busy GPU-seconds at on-demand prices per \
         GPU model; makespan: the last finish (the first job arrives at 0); decisions: decision \
         points after time 0 at which the policy dispatched (the re-plannings of `replan:`); decision p50 / \
         p99: median and 99th percentile wall-clock time of one decision (the host's; the \
         batch run that trains or loads an `online:` agent is not in it).\n"
    );
    let _ = writeln!(
        md,
        "| MDTS's claim | reported | measured, re-planning | reproduced, re-planning | measured, online dispatch | reproduced, online dispatch |\n|---|---:|---:|---|---:|---|"
    );
    let mut online = Vec::new();
    let mut reductions = Vec::new();
    let mut dispatch = Vec::new();
    let reduction_of = |mdts: &str, baseline: &str, measure: Measure| {
        let (m, b) = (
            mean(&results, mdts, measure),
            mean(&results, baseline, measure),
        );
        if b > 0.0 { (b - m) / b * 100.0 } else { 0.0 }
    };
    for (baseline, measure, reported) in CLAIMS {
        let reduction = reduction_of("MDTS", baseline, measure);
        online.push(reduction > 0.0);
        reductions.push(reduction);
        // Online dispatch against the online DQN dispatcher (like for like); the other
        // baselines as above.
        let b2 = if baseline == "DQN" {
            "DQN online"
        } else {
            baseline
        };
        let r2 = reduction_of("MDTS online", b2, measure);
        dispatch.push(r2 > 0.0);
        let _ = writeln!(
            md,
            "| {} vs {baseline} | −{reported:.1} % | {} | {} | {} | {} |",
            measure.label(),
            signed_percent(-reduction),
            if reduction > 0.0 { "yes" } else { "no" },
            signed_percent(-r2),
            if r2 > 0.0 { "yes" } else { "no" }
        );
    }
    let claim = |i: usize| {
        let (b, m, _) = CLAIMS[i];
        format!("{} vs {b}", m.label())
    };
    let listed = |want: bool| {
        let v: Vec<String> = (0..CLAIMS.len())
            .filter(|&i| online[i] == want)
            .map(claim)
            .collect();
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(
        md,
        "\n\"Measured\": MDTS's mean minus the baseline's, over the baseline's (negative: \
         MDTS is lower, as claimed); re-planning is `replan:mdts`, online dispatch is MDTS \
         online against the same baselines, except raw DRL, which is DQN online there. \
         Re-planning, the direction of {}; {}. Online dispatch, the direction of {}. The \
         arrivals spread over up to {:.1} days.",
        if online.iter().all(|&r| r) {
            "all five claims reproduces".to_owned()
        } else {
            format!(
                "{} reproduces, that of {} does not",
                listed(true),
                listed(false)
            )
        },
        {
            let small: Vec<String> = (0..CLAIMS.len())
                .filter(|&i| reductions[i].abs() < 5.0)
                .map(|i| format!("{} ({})", claim(i), signed_percent(-reductions[i])))
                .collect();
            if small.is_empty() {
                "every margin is 5 % or more".to_owned()
            } else {
                format!("margins below 5 %: {}", small.join(", "))
            }
        },
        {
            let yes: Vec<String> = (0..CLAIMS.len())
                .filter(|&i| dispatch[i])
                .map(claim)
                .collect();
            let no: Vec<String> = (0..CLAIMS.len())
                .filter(|&i| !dispatch[i])
                .map(claim)
                .collect();
            match (yes.is_empty(), no.is_empty()) {
                (_, true) => "all five claims reproduces".to_owned(),
                (true, _) => "none of the five claims reproduces".to_owned(),
                _ => format!(
                    "{} reproduces, that of {} does not",
                    yes.join(", "),
                    no.join(", ")
                ),
            }
        },
        spans.iter().copied().fold(0.0, f64::max) / 86_400.0
    );
    if let Some(batch) = &batch {
        let v: Vec<String> = (0..CLAIMS.len())
            .filter(|&i| batch.get(i) == Some(&true))
            .map(claim)
            .collect();
        let _ = writeln!(
            md,
            "In the batch setting (section `mdts-study`, every job at 0) the direction of {} \
             reproduced.",
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        );
    }
    println!("\n{md}");
    if args.write_docs {
        report::write_section(root.join("docs/results.md"), "mdts-online", &md)?;
        println!("wrote the mdts-online section of docs/results.md");
    }
    Ok(())
}

fn run(args: &mut Args) -> Result<(), BoxError> {
    if args.quick {
        args.tasks = 60;
        args.instances = 2;
        args.train = 2;
        args.rounds = 2;
        args.episodes = 4;
        args.seeds = 1;
        args.time = 0.2;
        args.online_instances = args.online_instances.min(1);
        args.decision_time = 0.05;
    }
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/worl/mdts_study");
    std::fs::create_dir_all(&out_dir)?;
    let trace = match &args.trace {
        Some(p) => p.clone(),
        None => worl::dag::datasets::data_file("alibaba-v2018/batch_task_head50k.csv")?
            .ok_or_else(|| {
                format!(
                    "the shared data directory is absent: give --trace, or set {}",
                    worl::dag::datasets::DATA_DIR_ENV
                )
            })?,
    };
    let (pool, _) = alibaba::load(&trace, &AlibabaOptions::default().ccr(0.0))?;
    println!(
        "trace {}: {} jobs, {} tasks",
        trace.display(),
        pool.n_jobs(),
        pool.graph().n_tasks()
    );
    let train: Vec<Problem> = (1000..1000 + args.train)
        .map(|s| instance(&pool, args, s))
        .collect::<Result<_, _>>()?;

    let mut agents = Vec::new();
    let mut pretraining = Vec::new();
    for (name, branches) in [("dqn", 1), ("mdts", 4)] {
        let config = DrlConfig {
            branches,
            episodes: args.episodes,
            ..DrlConfig::default()
        };
        let path = out_dir.join(format!("{name}.bpk"));
        println!(
            "pre-training {name} ({} instances × {} rounds × {} episodes)...",
            train.len(),
            args.rounds,
            args.episodes
        );
        let secs = pretrain(&config, &train, args.rounds, &path)?;
        println!("  {secs:.1} s; saved {}", path.display());
        pretraining.push((name, secs));
        agents.push((name, path));
    }

    let batch = if args.online_only {
        None
    } else {
        Some(batch_part(args, &pool, &agents, &pretraining)?)
    };
    if args.online_instances > 0 {
        online_part(args, &pool, &agents, &pretraining, batch)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut args = Args::parse();
    match run(&mut args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
