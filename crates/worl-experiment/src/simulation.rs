//! Simulation studies: policies × problems × seeds executed by the discrete-event simulator
//! (`worl-sim`), each run recorded twice: as a [`RunRecord`] (realised makespan, SLR, gap,
//! mean JCT, ...; so that [`Results`]' tables, Friedman/Nemenyi tests, CSV and JSON work
//! unchanged) and with every [`SimMetrics`] measure ([`SimRun`]).
//!
//! Per seed, the problem's jobs get their release times from the study's [`Arrivals`]
//! (trace times, a Poisson process or all at 0), then every policy runs on the same released
//! workload with the same seed (common random numbers: the same noise and failure draws for
//! every policy that makes the same attempts).

use crate::error::{ExperimentError, Result};
use crate::problems::ProblemSet;
use crate::run::{Results, RunRecord};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use worl_cluster::{Problem, Schedule, ScheduledTask};
use worl_rtgs::{Budget, Registry};
use worl_sim::arrivals::Arrivals;
use worl_sim::spec::PolicySpec;
use worl_sim::{SimConfig, SimMetrics, SimResult, Simulation};

/// One simulated run: a policy on a problem with a seed.
#[derive(Clone, Debug)]
pub struct SimRun {
    /// The problem's name.
    pub problem: String,
    /// The policy's label ([`PolicySpec::label`]).
    pub policy: String,
    /// The seed (arrivals, noise, failures and the planning scheduler's seed).
    pub seed: u64,
    /// The planned makespan of a `plan:` policy's schedule (every job at 0, no noise or
    /// contention), s; `None` for online policies.
    pub planned_makespan: Option<f64>,
    /// The simulation's measures.
    pub metrics: SimMetrics,
    /// The run as the harness records it (`makespan` = realised makespan, `mean_job_time`
    /// = mean JCT, `wall_time_s` = the policy's median decision latency).
    pub record: RunRecord,
}

/// What a run keeps for plots: the simulation's result and, for `plan:`, the plan.
#[derive(Clone, Debug)]
pub struct KeptRun {
    /// Index of the run in [`SimOutcome::runs`].
    pub run: usize,
    /// The problem as simulated (with the seed's release times).
    pub problem: Arc<Problem>,
    /// The full result (tasks, jobs, event log if recorded).
    pub result: SimResult,
    /// The planned schedule of a `plan:` policy.
    pub planned: Option<Schedule>,
}

/// The outcome of [`SimStudy::run`].
#[derive(Clone, Debug, Default)]
pub struct SimOutcome {
    /// Every run, in problem, seed, policy order.
    pub runs: Vec<SimRun>,
    /// The runs of the first seed of every problem, with their full results.
    pub kept: Vec<KeptRun>,
}

/// A grid of simulations. Build it, then [`run`](Self::run).
pub struct SimStudy {
    problems: ProblemSet,
    policies: Vec<PolicySpec>,
    seeds: Vec<u64>,
    config: SimConfig,
    arrivals: Arrivals,
    registry: Registry,
    budget: Budget,
}

impl SimStudy {
    /// A study of `policies` on `problems` with seed 1, the problems' own release times
    /// ([`Arrivals::Trace`]), the default [`SimConfig`] (no noise, contention or failures)
    /// and the built-in registry.
    pub fn new(problems: ProblemSet, policies: Vec<PolicySpec>) -> Self {
        Self {
            problems,
            policies,
            seeds: vec![1],
            config: SimConfig::default(),
            arrivals: Arrivals::Trace,
            registry: Registry::with_builtins(),
            budget: Budget::default(),
        }
    }

    /// The seeds (each runs every policy on every problem).
    pub fn seeds(mut self, seeds: impl IntoIterator<Item = u64>) -> Self {
        self.seeds = seeds.into_iter().collect();
        self
    }

    /// What the simulation models (noise, contention, failures, event log).
    pub fn config(mut self, config: SimConfig) -> Self {
        self.config = config;
        self
    }

    /// How jobs arrive.
    pub fn arrivals(mut self, arrivals: Arrivals) -> Self {
        self.arrivals = arrivals;
        self
    }

    /// The registry `plan:` and `replan:` build schedulers from.
    pub fn with_registry(mut self, registry: Registry) -> Self {
        self.registry = registry;
        self
    }

    /// The budget of each planning call (`plan:` once per run, `replan:` per decision).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Number of runs: problems × seeds × policies.
    pub fn n_runs(&self) -> usize {
        self.problems.len() * self.seeds.len() * self.policies.len()
    }

    /// Runs the grid; `on_start(index, problem, policy, seed)` is called before each run
    /// (for progress).
    ///
    /// Errors: [`ExperimentError::Invalid`] without problems, policies or seeds;
    /// [`ExperimentError::Simulation`] naming the problem, policy and seed of a failed run.
    pub fn run(&self, on_start: &mut dyn FnMut(usize, &str, &str, u64)) -> Result<SimOutcome> {
        if self.problems.is_empty() || self.policies.is_empty() || self.seeds.is_empty() {
            return Err(ExperimentError::Invalid(
                "a simulation study needs at least one problem, one policy and one seed".into(),
            ));
        }
        let mut out = SimOutcome::default();
        let mut index = 0;
        for named in self.problems.iter() {
            let base = &named.problem;
            for (si, &seed) in self.seeds.iter().enumerate() {
                let fail = |policy: &str, source: worl_sim::SimError| ExperimentError::Simulation {
                    problem: named.name.clone(),
                    policy: policy.to_owned(),
                    seed,
                    source: Box::new(source),
                };
                // the trace's releases are the problem's own; other processes re-time jobs
                let problem = if self.arrivals == Arrivals::Trace {
                    base.clone()
                } else {
                    let workload = self
                        .arrivals
                        .apply(base.workload(), seed)
                        .map_err(|e| fail("arrivals", e))?;
                    Arc::new(
                        Problem::new(Arc::new(workload), base.cluster_arc().clone())
                            .map_err(worl_rtgs::ScheduleError::from)?,
                    )
                };
                let sim = Simulation::new(&problem, self.config.clone())
                    .map_err(|e| fail("simulation", e))?;
                for spec in &self.policies {
                    let label = spec.label();
                    on_start(index, &named.name, &label, seed);
                    index += 1;
                    let mut built = spec
                        .build(&problem, &self.registry, &self.budget, seed)
                        .map_err(|e| fail(&label, e))?;
                    let result = sim
                        .run(built.policy.as_mut(), seed)
                        .map_err(|e| fail(&label, e))?;
                    let record =
                        record_of(&problem, &named.name, &named.tags, &label, seed, &result)?;
                    out.runs.push(SimRun {
                        problem: named.name.clone(),
                        policy: label,
                        seed,
                        planned_makespan: built.planned.as_ref().map(Schedule::makespan),
                        metrics: result.metrics,
                        record,
                    });
                    if si == 0 {
                        out.kept.push(KeptRun {
                            run: out.runs.len() - 1,
                            problem: problem.clone(),
                            result,
                            planned: built.planned.take(),
                        });
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The realised execution as a [`Schedule`]: each task's last (successful) attempt.
///
/// Errors: those of [`Schedule::new`] (never for a finished simulation).
pub fn realised_schedule(problem: &Problem, result: &SimResult) -> Result<Schedule> {
    let tasks = result
        .tasks
        .iter()
        .map(|t| ScheduledTask {
            gpu: t.gpu,
            start: t.start,
            finish: t.finish,
        })
        .collect();
    Ok(Schedule::new(problem.n_gpus(), tasks).map_err(worl_rtgs::ScheduleError::from)?)
}

/// The harness record of a simulated run: the realised schedule's metrics, with the mean
/// JCT as `mean_job_time` and the policy's median decision latency as `wall_time_s`.
fn record_of(
    problem: &Problem,
    name: &str,
    tags: &BTreeMap<String, String>,
    policy: &str,
    seed: u64,
    result: &SimResult,
) -> Result<RunRecord> {
    let m = realised_schedule(problem, result)?.metrics(problem);
    Ok(RunRecord {
        problem: name.to_owned(),
        tags: tags.clone(),
        tasks: problem.n_tasks(),
        gpus: problem.n_gpus(),
        scheduler: policy.to_owned(),
        stochastic: true,
        seed,
        makespan: m.makespan,
        slr: m.slr,
        speedup: m.speedup,
        efficiency: m.efficiency,
        utilisation: result.metrics.utilisation,
        lower_bound: m.lower_bound,
        gap: m.gap,
        mean_job_time: result.metrics.mean_jct,
        load_imbalance: m.load_imbalance,
        cost: m.cost,
        wall_time_s: result.metrics.decision_latency_p50,
        evaluations: 0,
        convergence: Vec::new(),
    })
}

impl SimOutcome {
    /// The runs as harness [`Results`] (realised makespans), for the comparison tables and
    /// rank tests of [`crate::report`].
    pub fn results(&self) -> Results {
        Results::from_records(self.runs.iter().map(|r| r.record.clone()).collect())
    }

    /// The policies in first-run order.
    pub fn policies(&self) -> Vec<&str> {
        let mut seen: Vec<&str> = Vec::new();
        for r in &self.runs {
            if !seen.contains(&r.policy.as_str()) {
                seen.push(&r.policy);
            }
        }
        seen
    }

    /// One Markdown table, a row per policy, each measure the mean over problems and seeds:
    /// realised makespan, realised ÷ planned (for `plan:`), mean and p99 JCT, slowdown, wait,
    /// utilisation, load imbalance, GB moved, contention delay, time lost to failures,
    /// re-planning decisions and decision latency (p50, p99).
    pub fn markdown(&self) -> String {
        let mut md = String::from(
            "| policy | makespan (s) | realised ÷ planned | mean JCT (s) | p99 JCT (s) | slowdown | wait (s) | utilisation | imbalance | GB moved | contention delay (s) | lost to failures (s) | replans | decision p50 (ms) | decision p99 (ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for policy in self.policies() {
            let runs: Vec<&SimRun> = self.runs.iter().filter(|r| r.policy == policy).collect();
            let mean = |f: &dyn Fn(&SimRun) -> f64| {
                runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64
            };
            let ratio: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.planned_makespan.map(|p| ratio(r.metrics.makespan, p)))
                .collect();
            let ratio = if ratio.is_empty() {
                "–".to_owned()
            } else {
                format!("{:.4}", ratio.iter().sum::<f64>() / ratio.len() as f64)
            };
            let f = crate::report::fmt_num;
            let _ = writeln!(
                md,
                "| {policy} | {} | {ratio} | {} | {} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {:.1} | {:.3} | {:.3} |",
                f(mean(&|r| r.metrics.makespan)),
                f(mean(&|r| r.metrics.mean_jct)),
                f(mean(&|r| r.metrics.p99_jct)),
                mean(&|r| r.metrics.mean_slowdown),
                f(mean(&|r| r.metrics.mean_wait)),
                mean(&|r| r.metrics.utilisation),
                mean(&|r| r.metrics.load_imbalance),
                mean(&|r| r.metrics.bytes_moved) / 1e9,
                f(mean(&|r| r.metrics.contention_delay)),
                f(mean(&|r| r.metrics.lost_time)),
                mean(&|r| r.metrics.replans),
                mean(&|r| r.metrics.decision_latency_p50) * 1e3,
                mean(&|r| r.metrics.decision_latency_p99) * 1e3,
            );
        }
        md
    }

    /// Writes one CSV row per run with every [`SimMetrics`] measure and the planned
    /// makespan (empty for online policies).
    ///
    /// Errors: [`ExperimentError::Csv`] / [`ExperimentError::Io`].
    pub fn write_csv(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        let mut w = csv::Writer::from_path(path).map_err(|e| ExperimentError::csv(path, e))?;
        let header = ["problem", "policy", "seed", "planned_makespan"]
            .into_iter()
            .chain(SimMetrics::NAMES);
        w.write_record(header)
            .map_err(|e| ExperimentError::csv(path, e))?;
        for r in &self.runs {
            let mut row = vec![
                r.problem.clone(),
                r.policy.clone(),
                r.seed.to_string(),
                r.planned_makespan
                    .map(|p| p.to_string())
                    .unwrap_or_default(),
            ];
            row.extend(r.metrics.values().map(|x| x.to_string()));
            w.write_record(&row)
                .map_err(|e| ExperimentError::csv(path, e))?;
        }
        w.flush().map_err(|e| ExperimentError::io(path, e))
    }
}

/// `a / b`, 1 when both are 0.
fn ratio(a: f64, b: f64) -> f64 {
    if a == b { 1.0 } else { a / b }
}

/// Writes the event log of `result` as CSV: `time,event,job,task,gpu,peer_task` (task and
/// peer as `job/task` labels, the GPU as `g3`; empty where an event has none), one row per
/// event in processing order. Names are written by the `csv` crate, quoted as needed.
///
/// Errors: [`ExperimentError::Csv`] / [`ExperimentError::Io`].
pub fn write_event_log(
    problem: &Problem,
    result: &SimResult,
    path: impl AsRef<std::path::Path>,
) -> Result<()> {
    use worl_sim::Event;
    let path = path.as_ref();
    let mut w = csv::Writer::from_path(path).map_err(|e| ExperimentError::csv(path, e))?;
    w.write_record(["time", "event", "job", "task", "gpu", "peer_task"])
        .map_err(|e| ExperimentError::csv(path, e))?;
    let label = |t: worl_dag::TaskId| problem.task_label(t);
    let job_of = |t: worl_dag::TaskId| {
        problem
            .workload()
            .job(problem.graph().task(t).job)
            .name
            .clone()
    };
    for e in &result.events {
        let (kind, job, task, gpu, peer) = match *e {
            Event::Released { job, .. } => (
                "released",
                problem.workload().job(job).name.clone(),
                String::new(),
                String::new(),
                String::new(),
            ),
            Event::Dispatched { task, gpu, .. } => (
                "dispatched",
                job_of(task),
                label(task),
                gpu.to_string(),
                String::new(),
            ),
            Event::Started { task, gpu, .. } => (
                "started",
                job_of(task),
                label(task),
                gpu.to_string(),
                String::new(),
            ),
            Event::Finished { task, gpu, .. } => (
                "finished",
                job_of(task),
                label(task),
                gpu.to_string(),
                String::new(),
            ),
            Event::Lost { task, gpu, .. } => (
                "lost",
                job_of(task),
                label(task),
                gpu.to_string(),
                String::new(),
            ),
            Event::TransferStarted {
                from_task, to_task, ..
            } => (
                "transfer-started",
                job_of(to_task),
                label(to_task),
                String::new(),
                label(from_task),
            ),
            Event::TransferFinished {
                from_task, to_task, ..
            } => (
                "transfer-finished",
                job_of(to_task),
                label(to_task),
                String::new(),
                label(from_task),
            ),
            Event::GpuDown { gpu, .. } => (
                "gpu-down",
                String::new(),
                String::new(),
                gpu.to_string(),
                String::new(),
            ),
            Event::GpuUp { gpu, .. } => (
                "gpu-up",
                String::new(),
                String::new(),
                gpu.to_string(),
                String::new(),
            ),
        };
        w.write_record([e.time().to_string(), kind.to_owned(), job, task, gpu, peer])
            .map_err(|e| ExperimentError::csv(path, e))?;
    }
    w.flush().map_err(|e| ExperimentError::io(path, e))
}
