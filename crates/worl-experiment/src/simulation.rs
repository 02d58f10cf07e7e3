//! Simulation studies: policies × problems × seeds executed by the discrete-event simulator
//! (`worl-sim`), each run recorded twice: as a [`RunRecord`] (realised makespan, SLR, gap,
//! mean JCT, ...; so that [`Results`]' tables, Friedman/Nemenyi tests, CSV and JSON work
//! unchanged) and with every [`SimMetrics`] measure ([`SimRun`]).
//!
//! Per seed, the problem's jobs get their release times from the study's [`Arrivals`]
//! (trace times, a Poisson process or all at 0), then every policy runs on the same released
//! workload with the same seed (common random numbers: the same noise and failure draws for
//! every policy that makes the same attempts).
//!
//! **Many machines.** [`SimStudy::shard`] splits a study like
//! [`Experiment::shard`](crate::Experiment::shard) splits an experiment, with the same
//! results files ([`ShardLine`]s carrying a [`SimLine`]) and resumption rules (see the
//! [`shard`] module); [`merge`] joins the files into the [`SimOutcome`] of a
//! single [`SimStudy::run`] (same runs, same order, same numbers but decision latencies),
//! without [`SimOutcome::kept`]: a merged outcome has each first-seed run's job completion
//! times ([`SimRun::jcts`]) but not its full [`SimResult`].
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuModel, Problem};
//! use worl_dag::generators::shapes;
//! use worl_experiment::{simulation, NamedProblem, ProblemSet};
//! use worl_sim::spec::PolicySpec;
//!
//! let cluster = Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?);
//! let mut problems = ProblemSet::new();
//! let w = Arc::new(shapes::fork_join(4, 10.0, 0.0)?);
//! problems.push(NamedProblem::new("fj-4", Problem::new(w, cluster)?))?;
//! let study = simulation::SimStudy::new(problems, PolicySpec::parse_list("plan:heft,eft")?)
//!     .seeds([1, 2])
//!     .quiet(true);
//! let dir = tempfile::tempdir()?;
//! let files: Vec<_> = (0..3).map(|k| dir.path().join(format!("{k}.jsonl"))).collect();
//! for (k, f) in files.iter().enumerate() {
//!     study.shard(k, 3)?.run_into(f)?; // on three machines, say
//! }
//! let merged = simulation::merge(&files)?;
//! let single = study.run(&mut |_, _, _, _| {})?;
//! assert_eq!(merged.runs.len(), 4);
//! for (a, b) in merged.runs.iter().zip(&single.runs) {
//!     assert_eq!((&a.problem, &a.policy, a.seed), (&b.problem, &b.policy, b.seed));
//!     assert_eq!(a.metrics.makespan, b.metrics.makespan);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ExperimentError, Result};
use crate::problems::{NamedProblem, ProblemSet};
use crate::run::shard::{self, RunId, ShardLine, ShardReport};
use crate::run::{Results, RunProgress, RunRecord};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use worl_cluster::{Problem, Schedule, ScheduledTask};
use worl_sched::{Budget, Registry};
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
    /// The job completion times, s, in job id order, for runs of a problem's first seed
    /// (those of [`SimOutcome::kept`], and what a merged outcome draws CDFs from); `None`
    /// for the other seeds.
    pub jcts: Option<Vec<f64>>,
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

/// The outcome of [`SimStudy::run`] (or of [`merge`]).
#[derive(Clone, Debug, Default)]
pub struct SimOutcome {
    /// Every run, in problem, seed, policy order.
    pub runs: Vec<SimRun>,
    /// The runs of the first seed of every problem, with their full results; empty after
    /// [`merge`] (results files keep the measures and job completion times, not the
    /// tasks).
    pub kept: Vec<KeptRun>,
}

/// What a results file's line ([`ShardLine::sim`]) holds of a simulated run besides its
/// [`RunRecord`].
///
/// As JSON: `{"planned_makespan": 12.5 | null, "metrics": {"makespan": ..., ...},
/// "jcts": [...]}`, the metrics keyed by [`SimMetrics::NAMES`] (a non-finite value as the
/// string `"NaN"`, `"inf"` or `"-inf"`), `jcts` only for a problem's first seed. Floats
/// read back bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimLine {
    /// [`SimRun::planned_makespan`], s.
    pub planned_makespan: Option<f64>,
    /// [`SimRun::metrics`].
    #[serde(serialize_with = "metrics_out", deserialize_with = "metrics_in")]
    pub metrics: SimMetrics,
    /// [`SimRun::jcts`], s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jcts: Option<Vec<f64>>,
}

impl SimLine {
    /// The fields two lines of one run must agree on, as `(name, JSON)`: all but the
    /// decision latencies (wall-clock times).
    pub(crate) fn comparable(&self) -> Vec<(String, serde_json::Value)> {
        let mut out = vec![(
            "planned_makespan".to_owned(),
            serde_json::to_value(self.planned_makespan).expect("a number serialises"),
        )];
        for (name, x) in SimMetrics::NAMES.iter().zip(self.metrics.values()) {
            if !name.starts_with("decision_latency") {
                out.push(((*name).to_owned(), number_out(x)));
            }
        }
        out.push((
            "jcts".to_owned(),
            serde_json::to_value(&self.jcts).expect("numbers serialise"),
        ));
        out
    }
}

/// `x` as JSON: a number, or `"NaN"`, `"inf"`, `"-inf"`.
fn number_out(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x)
        .map_or_else(|| serde_json::Value::String(x.to_string()), Into::into)
}

fn metrics_out<S: Serializer>(m: &SimMetrics, s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(SimMetrics::NAMES.len()))?;
    for (name, x) in SimMetrics::NAMES.iter().zip(m.values()) {
        map.serialize_entry(name, &number_out(x))?;
    }
    map.end()
}

fn metrics_in<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<SimMetrics, D::Error> {
    use serde::de::Error;
    let map = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
    let mut v = [0.0; 14];
    for (slot, name) in v.iter_mut().zip(SimMetrics::NAMES) {
        *slot = match map.get(name) {
            Some(serde_json::Value::Number(n)) => n.as_f64(),
            Some(serde_json::Value::String(t)) => t.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| D::Error::custom(format!("metrics: no number `{name}`")))?;
    }
    if let Some(k) = map
        .keys()
        .find(|k| !SimMetrics::NAMES.contains(&k.as_str()))
    {
        return Err(D::Error::custom(format!("metrics: unknown measure `{k}`")));
    }
    Ok(SimMetrics {
        makespan: v[0],
        mean_jct: v[1],
        p50_jct: v[2],
        p99_jct: v[3],
        mean_slowdown: v[4],
        mean_wait: v[5],
        utilisation: v[6],
        load_imbalance: v[7],
        bytes_moved: v[8],
        contention_delay: v[9],
        lost_time: v[10],
        replans: v[11],
        decision_latency_p50: v[12],
        decision_latency_p99: v[13],
    })
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
    quiet: bool,
    lines: bool,
}

/// One run of the study: indices into problems, seeds and policies.
#[derive(Copy, Clone, PartialEq, Eq)]
struct SimKey {
    problem: usize,
    seed: usize,
    policy: usize,
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
            quiet: false,
            lines: false,
        }
    }

    /// Never draws a progress bar nor prints progress lines (default `false`: a bar is
    /// drawn on stderr when it is a terminal, as [`Experiment::quiet`](crate::Experiment::quiet)).
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// When stderr is not a terminal, print one plain line per run to stderr as it
    /// starts, `run K/N: POLICY · PROBLEM · seed S`, instead of nothing (default `false`;
    /// [`quiet`](Self::quiet) wins), as
    /// [`Experiment::progress_lines`](crate::Experiment::progress_lines).
    pub fn progress_lines(mut self, lines: bool) -> Self {
        self.lines = lines;
        self
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
    /// (for progress, besides the bar of [`quiet`](Self::quiet)).
    ///
    /// Errors: [`ExperimentError::Missing`] without problems, policies or seeds;
    /// [`ExperimentError::Spec`] for a policy's unknown scheduler or bad options, before
    /// any run; [`ExperimentError::Simulation`] naming the problem, policy and seed of a
    /// failed run; [`ExperimentError::SimulationSetup`] for settings or arrivals refused for
    /// a problem.
    pub fn run(&self, on_start: &mut dyn FnMut(usize, &str, &str, u64)) -> Result<SimOutcome> {
        self.check()?;
        let bar = RunProgress::new(self.n_runs() as u64, self.quiet, self.lines);
        let out = self.run_all(&bar, on_start);
        bar.finish_and_clear();
        out
    }

    fn run_all(
        &self,
        bar: &RunProgress,
        on_start: &mut dyn FnMut(usize, &str, &str, u64),
    ) -> Result<SimOutcome> {
        let mut out = SimOutcome::default();
        let mut index = 0;
        for named in self.problems.iter() {
            for (si, &seed) in self.seeds.iter().enumerate() {
                let problem = self.released(named, seed)?;
                let sim = Simulation::new(&problem, self.config.clone())
                    .map_err(|e| fail_setup(named, "simulation settings", seed, e))?;
                for spec in &self.policies {
                    let label = spec.label();
                    on_start(index, &named.name, &label, seed);
                    index += 1;
                    bar.start(format!("{label} · {} · seed {seed}", named.name));
                    let (run, result, planned) =
                        self.run_one(named, &problem, &sim, spec, seed, si == 0)?;
                    bar.done();
                    out.runs.push(run);
                    if si == 0 {
                        out.kept.push(KeptRun {
                            run: out.runs.len() - 1,
                            problem: problem.clone(),
                            result,
                            planned,
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// Refuses an empty grid, and a policy whose scheduler is unknown or has bad options
    /// ([`PolicySpec::validate`]: every scheduler built once, nothing run) before any run.
    fn check(&self) -> Result<()> {
        if self.problems.is_empty() || self.policies.is_empty() || self.seeds.is_empty() {
            return Err(ExperimentError::Missing {
                what: "the simulation study".into(),
                missing: "problem, policy or seed (it needs one of each at least)",
            });
        }
        for spec in &self.policies {
            spec.validate(&self.registry).map_err(|e| match e {
                worl_sim::SimError::Scheduler(source) => ExperimentError::Spec {
                    spec: spec.to_string(),
                    source: Box::new(source),
                },
                other => ExperimentError::Policy {
                    spec: spec.to_string(),
                    source: Box::new(other),
                },
            })?;
        }
        Ok(())
    }

    /// The problem with the jobs released as the study's arrivals say for `seed` (the
    /// trace's releases are the problem's own; other processes re-time jobs).
    fn released(&self, named: &NamedProblem, seed: u64) -> Result<Arc<Problem>> {
        let base = &named.problem;
        if self.arrivals == Arrivals::Trace {
            return Ok(base.clone());
        }
        let workload = self
            .arrivals
            .apply(base.workload(), seed)
            .map_err(|e| fail_setup(named, "arrival process", seed, e))?;
        Ok(Arc::new(
            Problem::new(Arc::new(workload), base.cluster_arc().clone())
                .map_err(worl_sched::ScheduleError::from)?,
        ))
    }

    /// One policy's run; with `first_seed`, the run keeps its job completion times.
    fn run_one(
        &self,
        named: &NamedProblem,
        problem: &Arc<Problem>,
        sim: &Simulation<'_>,
        spec: &PolicySpec,
        seed: u64,
        first_seed: bool,
    ) -> Result<(SimRun, SimResult, Option<Schedule>)> {
        let label = spec.label();
        let mut built = spec
            .build(problem, &self.registry, &self.budget, seed)
            .map_err(|e| fail(named, &label, seed, e))?;
        let result = sim
            .run(built.policy.as_mut(), seed)
            .map_err(|e| fail(named, &label, seed, e))?;
        let record = record_of(problem, &named.name, &named.tags, &label, seed, &result)?;
        let run = SimRun {
            problem: named.name.clone(),
            policy: label,
            seed,
            planned_makespan: built.planned.as_ref().map(Schedule::makespan),
            metrics: result.metrics,
            jcts: first_seed.then(|| result.jobs.iter().map(|j| j.jct).collect()),
            record,
        };
        Ok((run, result, built.planned.take()))
    }

    /// Every run in canonical order: problems, then seeds, then policies.
    fn keys(&self) -> Vec<SimKey> {
        let mut keys = Vec::with_capacity(self.n_runs());
        for problem in 0..self.problems.len() {
            for seed in 0..self.seeds.len() {
                for policy in 0..self.policies.len() {
                    keys.push(SimKey {
                        problem,
                        seed,
                        policy,
                    });
                }
            }
        }
        keys
    }

    /// The grid's fingerprint: FNV-1a (64 bits, hex) of the problem names, sizes and
    /// content digests (as [`Shard::grid`](crate::shard::Shard::grid)), the policy specs and labels, the seeds, the simulation settings that decide results
    /// (noise, contention, failures, arrivals, whether decision time is charged) and the
    /// budget.
    fn fingerprint(&self) -> String {
        let mut text = String::from("simulation study\n");
        for p in self.problems.iter() {
            let _ = writeln!(
                text,
                "problem\t{}\t{}\t{}\t{}",
                p.name,
                p.problem.n_tasks(),
                p.problem.n_gpus(),
                shard::problem_digest(&p.problem)
            );
        }
        for spec in &self.policies {
            let _ = writeln!(text, "policy\t{spec:?}\t{}", spec.label());
        }
        let c = &self.config;
        let _ = writeln!(text, "seeds\t{:?}", self.seeds);
        let _ = writeln!(
            text,
            "config\t{:?}\t{:?}\t{:?}\tcharge={}",
            c.noise, c.contention, c.failures, c.charge_decision_time
        );
        let _ = writeln!(text, "arrivals\t{:?}", self.arrivals);
        let _ = writeln!(
            text,
            "budget\t{:?}\t{:?}",
            self.budget.max_evaluations, self.budget.max_time
        );
        shard::fnv1a(&text)
    }

    /// Shard `k` of `n` (`0 <= k < n`) of the study: the runs whose index `i` in canonical
    /// order (problems, then seeds, then policies, as [`run`](Self::run) records them) has
    /// `i % n == k`; see the [`shard`] module for the results file.
    ///
    /// Errors: [`ExperimentError::BadShard`] for `n == 0` or `k >= n`, [`ExperimentError::Missing`]
    /// for an empty grid, [`ExperimentError::Repeated`] for two
    /// policies with one label or a repeated seed (a results file tells runs apart by
    /// problem, policy label and seed).
    pub fn shard(&self, k: usize, n: usize) -> Result<SimShard<'_>> {
        if n == 0 || k >= n {
            return Err(ExperimentError::BadShard { k, n });
        }
        self.check()?;
        let mut labels = HashSet::new();
        if let Some(p) = self.policies.iter().find(|p| !labels.insert(p.label())) {
            return Err(ExperimentError::Repeated {
                what: format!("policy `{}`", p.label()),
                kind: "policy labels",
            });
        }
        let mut seeds = HashSet::new();
        if let Some(s) = self.seeds.iter().find(|s| !seeds.insert(**s)) {
            return Err(ExperimentError::Repeated {
                what: format!("seed {s}"),
                kind: "seeds",
            });
        }
        Ok(SimShard { study: self, k, n })
    }

    /// Runs the whole study resumably into `path` ([`SimShard::run_into`] of shard 0 of
    /// 1), then reads the file back ([`merge`]): the outcome of [`run`](Self::run) without
    /// [`SimOutcome::kept`], where a killed process's finished runs are not done again.
    ///
    /// Errors: as [`SimShard::run_into`] and [`merge`].
    pub fn run_resumable(&self, path: impl AsRef<Path>) -> Result<SimOutcome> {
        self.shard(0, 1)?.run_into(path.as_ref())?;
        merge(&[path.as_ref()])
    }
}

/// The error of a failed policy run (`label`: the policy's label).
fn fail(
    named: &NamedProblem,
    label: &str,
    seed: u64,
    source: worl_sim::SimError,
) -> ExperimentError {
    ExperimentError::Simulation {
        problem: named.name.clone(),
        policy: label.to_owned(),
        seed,
        source: Box::new(source),
    }
}

/// The error of refused settings (`what`: `simulation settings` or `arrival process`).
fn fail_setup(
    named: &NamedProblem,
    what: &'static str,
    seed: u64,
    source: worl_sim::SimError,
) -> ExperimentError {
    ExperimentError::SimulationSetup {
        problem: named.name.clone(),
        what,
        seed,
        source: Box::new(source),
    }
}

/// Shard `k` of `n` of a [`SimStudy`]; made by [`SimStudy::shard`].
pub struct SimShard<'a> {
    study: &'a SimStudy,
    k: usize,
    n: usize,
}

impl std::fmt::Debug for SimShard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimShard")
            .field("k", &self.k)
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}

impl SimShard<'_> {
    /// `(k, n)`.
    pub fn position(&self) -> (usize, usize) {
        (self.k, self.n)
    }

    /// The grid's fingerprint (16 hex digits): FNV-1a of the problem names, sizes and
    /// content digests (tasks, jobs, edges, GPUs, network), the policies, the seeds, the noise, contention, failures, arrivals, whether decision
    /// time is charged, and the budget. Files of another grid are refused.
    pub fn grid(&self) -> String {
        self.study.fingerprint()
    }

    /// The shard's runs, in canonical order ([`RunId::scheduler`] is the policy label).
    pub fn runs(&self) -> Vec<RunId> {
        let s = self.study;
        s.keys()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k)
            .map(|(index, key)| RunId {
                index,
                problem: s.problems.at(key.problem).name.clone(),
                scheduler: s.policies[key.policy].label(),
                seed: s.seeds[key.seed],
            })
            .collect()
    }

    /// Runs the shard's runs that `path` does not hold yet, in canonical order, appending
    /// one [`ShardLine`] (with its [`SimLine`]) per finished run; the file is created if
    /// missing, a partial last line is cut off first (see the [`shard`]
    /// module). Progress as in [`SimStudy::run`].
    ///
    /// Errors: [`ExperimentError::Io`] reading or writing `path`;
    /// [`ExperimentError::ResultsLine`] for a line of `path` that is not a [`ShardLine`] or
    /// belongs to another grid (naming the file and line); the errors of
    /// [`SimStudy::run`] for the first failing run (runs finished before it stay in the
    /// file).
    pub fn run_into(&self, path: impl AsRef<Path>) -> Result<ShardReport> {
        let path = path.as_ref();
        let s = self.study;
        let keys = s.keys();
        let ids: Vec<RunId> = SimShard {
            study: s,
            k: 0,
            n: 1,
        }
        .runs();
        let canonical: Vec<(&str, &str, u64)> = ids
            .iter()
            .map(|r| (r.problem.as_str(), r.scheduler.as_str(), r.seed))
            .collect();
        let resumed = shard::resume(path, &s.fingerprint(), &canonical, [self.k, self.n])?;
        let mine: Vec<usize> = (0..keys.len()).filter(|i| i % self.n == self.k).collect();
        let todo: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|&i| {
                let k = keys[i];
                !resumed.holds(
                    &s.problems.at(k.problem).name,
                    &s.policies[k.policy].label(),
                    s.seeds[k.seed],
                )
            })
            .collect();
        let bar = RunProgress::new(todo.len() as u64, s.quiet, s.lines);
        let done = self.run_todo(&keys, &todo, &resumed.appender, &bar);
        bar.finish_and_clear();
        done?;
        Ok(ShardReport {
            runs: mine.len(),
            skipped: mine.len() - todo.len(),
            ran: todo.len(),
            cut_partial_line: resumed.cut_partial_line,
        })
    }

    /// Runs `todo` (canonical indices, ascending), appending each run's line.
    fn run_todo(
        &self,
        keys: &[SimKey],
        todo: &[usize],
        appender: &shard::Appender,
        bar: &RunProgress,
    ) -> Result<()> {
        let s = self.study;
        // the runs of one problem and seed are adjacent: release and set up once for them
        for group in todo
            .chunk_by(|&a, &b| (keys[a].problem, keys[a].seed) == (keys[b].problem, keys[b].seed))
        {
            let first = keys[group[0]];
            let named = s.problems.at(first.problem);
            let seed = s.seeds[first.seed];
            let problem = s.released(named, seed)?;
            let sim = Simulation::new(&problem, s.config.clone())
                .map_err(|e| fail_setup(named, "simulation settings", seed, e))?;
            for &i in group {
                let spec = &s.policies[keys[i].policy];
                bar.start(format!("{} · {} · seed {seed}", spec.label(), named.name));
                let (run, _, _) = s.run_one(named, &problem, &sim, spec, seed, first.seed == 0)?;
                bar.done();
                let line = SimLine {
                    planned_makespan: run.planned_makespan,
                    metrics: run.metrics,
                    jcts: run.jcts,
                };
                appender.append(i, run.record, Some(line))?;
            }
        }
        Ok(())
    }
}

/// Joins results files of the shards of one [`SimStudy`] into its [`SimOutcome`]: every
/// run once, in canonical order (problems, seeds, policies), with the records and measures
/// of a single [`SimStudy::run`] bit for bit, decision latencies (and `wall_time_s`, their
/// median) aside; [`SimOutcome::kept`] is empty, [`SimRun::jcts`] kept for first seeds.
/// Duplicate lines, partial last lines and missing runs are handled as by
/// [`shard::merge`].
///
/// Errors: as [`shard::merge`]; an experiment's line (`worl compare
/// --shard`) is [`ExperimentError::ResultsLine`] naming its file and line.
pub fn merge<P: AsRef<Path>>(paths: &[P]) -> Result<SimOutcome> {
    Ok(SimOutcome::from_lines(shard::merge_lines(
        paths,
        Some(true),
    )?))
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
    Ok(Schedule::new(problem.n_gpus(), tasks).map_err(worl_sched::ScheduleError::from)?)
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
    /// The outcome of merged lines (canonical order; lines without [`SimLine`] are left
    /// out, [`shard::merge_lines`] refuses them before).
    pub(crate) fn from_lines(lines: Vec<ShardLine>) -> Self {
        let runs = lines
            .into_iter()
            .filter_map(|l| {
                let sim = l.sim?;
                Some(SimRun {
                    problem: l.record.problem.clone(),
                    policy: l.record.scheduler.clone(),
                    seed: l.record.seed,
                    planned_makespan: sim.planned_makespan,
                    metrics: sim.metrics,
                    jcts: sim.jcts,
                    record: l.record,
                })
            })
            .collect();
        Self {
            runs,
            kept: Vec::new(),
        }
    }

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
