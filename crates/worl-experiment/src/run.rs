//! Running an experiment: [`Experiment`] (problems × schedulers × seeds) → [`Results`]
//! ([`RunRecord`] per run).

use crate::error::{ExperimentError, Result};
use crate::problems::{NamedProblem, ProblemSet};
use crate::spec::SchedulerSpec;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use worl_cluster::Schedule;
use worl_sched::Registry;
use worl_sched::{Budget, Progress, RunContext, Scheduler};

// Sharded, resumable grids (a child module: it runs single runs of an experiment).
#[path = "shard.rs"]
pub mod shard;

/// One point of a convergence curve: a [`Progress`] event of the run.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvergencePoint {
    /// Steps done (iterations for a metaheuristic).
    pub step: u64,
    /// Plan evaluations so far.
    pub evaluations: u64,
    /// Best makespan so far, s.
    pub best_makespan: f64,
    /// CPU time of the process since the run started, s (0 in results written before it was
    /// recorded).
    #[serde(default)]
    pub cpu_seconds: f64,
}

impl RunRecord {
    /// Clears what a clock measured (`wall_time_s` and each convergence point's
    /// `cpu_seconds`), leaving what the run computed: two runs of the same scheduler, problem
    /// and seed agree on the rest, bit for bit (a deterministic or seeded scheduler without a
    /// time budget).
    pub fn clear_timings(&mut self) {
        self.wall_time_s = 0.0;
        for c in &mut self.convergence {
            c.cpu_seconds = 0.0;
        }
    }
}

impl ConvergencePoint {
    /// The point of progress event `p`, `cpu_seconds` into the run.
    pub fn new(p: &Progress, cpu_seconds: f64) -> Self {
        Self {
            step: p.step,
            evaluations: p.evaluations,
            best_makespan: p.best_makespan,
            cpu_seconds,
        }
    }
}

/// The outcome of one run (one scheduler on one problem with one seed). Every recorded run's
/// schedule passed [`Schedule::validate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The problem's name.
    pub problem: String,
    /// The problem's tags.
    pub tags: BTreeMap<String, String>,
    /// Number of tasks of the problem.
    pub tasks: usize,
    /// Number of GPUs of the problem.
    pub gpus: usize,
    /// The scheduler's label.
    pub scheduler: String,
    /// Whether the scheduler is stochastic (a deterministic one runs once per problem).
    pub stochastic: bool,
    /// The seed of the run ([`RunContext::seed`]).
    pub seed: u64,
    /// Makespan, s.
    pub makespan: f64,
    /// Schedule length ratio.
    pub slr: f64,
    /// Speedup over the best single GPU.
    pub speedup: f64,
    /// Speedup over the number of GPUs.
    pub efficiency: f64,
    /// Mean GPU utilisation in `[0, 1]`.
    pub utilisation: f64,
    /// The problem's makespan lower bound, s.
    pub lower_bound: f64,
    /// `makespan / lower_bound`.
    pub gap: f64,
    /// Mean job execution time (last finish of a job's tasks; jobs released at 0), s.
    /// NaN when read from results written before the field existed.
    #[serde(default = "not_recorded")]
    pub mean_job_time: f64,
    /// Load imbalance: coefficient of variation of the GPUs' busy time.
    #[serde(default = "not_recorded")]
    pub load_imbalance: f64,
    /// Total cost of the busy GPU-seconds at on-demand prices, US dollars
    /// (`worl_cluster::gpu_hour_price`).
    #[serde(default = "not_recorded")]
    pub cost: f64,
    /// Wall time of the scheduler's `schedule` call, s (not validation or metrics).
    pub wall_time_s: f64,
    /// Plan evaluations: those of the last progress event (0 if the scheduler reports none).
    pub evaluations: u64,
    /// Convergence curve: the run's progress events, thinned to at most
    /// [`Experiment::max_curve_points`] (first and last kept). Thinned as the run goes, so
    /// a run reporting millions of events holds at most twice that many points.
    pub convergence: Vec<ConvergencePoint>,
}

/// The value of a measure absent from older results files.
fn not_recorded() -> f64 {
    f64::NAN
}

/// Which schedules [`Experiment::run`] keeps in the [`Results`] (for Gantt charts).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeepSchedules {
    /// None (default): only records.
    #[default]
    None,
    /// Per problem, the schedule of the run with the smallest makespan (first such run).
    BestPerProblem,
    /// Every run's schedule.
    All,
}

/// A grid of runs: every problem × every scheduler × every seed (a deterministic scheduler,
/// [`Scheduler::is_stochastic`] `false`, runs once per problem, with the first seed).
///
/// Each run gets a fresh scheduler (unless its spec [`reuse`](SchedulerSpec::reuse)s one), a
/// [`RunContext`] with the seed, the experiment's [`Budget`] and an observer recording the
/// convergence curve; its wall time covers `schedule` only. **Every schedule is validated**:
/// a scheduler error or a schedule violating a constraint stops the experiment with an
/// [`ExperimentError`] naming scheduler, problem, seed and the first violation.
///
/// Runs are sequential by default, so wall times are not disturbed by other runs. With
/// [`parallel`](Self::parallel) they run on the rayon pool; every result except wall time is
/// then identical to the sequential run (each run depends only on its problem, scheduler and
/// seed), and the records keep the same order.
///
/// A progress bar (indicatif, redrawn every 250 ms so its clock runs during a long run) is
/// drawn on stderr unless [`quiet`](Self::quiet) is set or stderr is not a terminal (tests,
/// pipes, CI); there, with [`progress_lines`](Self::progress_lines), one plain line per run
/// is printed instead, as the run starts.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuModel, PartialSchedule, Policy, Problem, Schedule};
/// use worl_dag::generators::shapes;
/// use worl_experiment::{Experiment, GroupBy, NamedProblem, ProblemSet, SchedulerSpec};
/// use worl_sched::{RunContext, Scheduler};
///
/// /// Every task, in topological order, on GPU 0.
/// struct OneGpu;
/// impl Scheduler for OneGpu {
///     fn name(&self) -> &str { "one-gpu" }
///     fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
///         let mut s = PartialSchedule::new(p);
///         for &t in p.graph().topo_order() {
///             s.place(t, worl_cluster::GpuId::new(0), Policy::Append)?;
///         }
///         Ok(s.to_schedule()?)
///     }
/// }
///
/// let cluster = Arc::new(presets::homogeneous(4, &GpuModel::v100_16gb())?);
/// let problems = ProblemSet::new()
///     .with(NamedProblem::new("fork-join", Problem::new(Arc::new(shapes::fork_join(8, 10.0, 0.0)?), cluster.clone())?))?
///     .with(NamedProblem::new("chain", Problem::new(Arc::new(shapes::chain(4, 10.0, 0.0)?), cluster)?))?;
/// let results = Experiment::new(problems)
///     .scheduler(SchedulerSpec::factory("one-gpu", || Ok(Box::new(OneGpu))))
///     .quiet(true)
///     .run()?;
/// assert_eq!(results.records().len(), 2);
/// assert_eq!(results.records()[1].makespan, 40.0); // the chain: 4 × 10 s
/// let summary = &results.summaries(&GroupBy::All)[0];
/// assert_eq!(summary.makespan.mean, (100.0 + 40.0) / 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Experiment {
    problems: ProblemSet,
    schedulers: Vec<SchedulerSpec>,
    seeds: Vec<u64>,
    budget: Budget,
    parallel: bool,
    quiet: bool,
    lines: bool,
    keep: KeepSchedules,
    max_curve_points: usize,
    registry: Registry,
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("problems", &self.problems.len())
            .field("schedulers", &self.schedulers)
            .field("seeds", &self.seeds)
            .field("budget", &self.budget)
            .field("parallel", &self.parallel)
            .field("quiet", &self.quiet)
            .field("keep", &self.keep)
            .finish()
    }
}

/// A scheduler resolved for a run: label and stochasticity from a probe instance.
struct Resolved {
    spec: SchedulerSpec,
    label: String,
    stochastic: bool,
}

/// One run to do: indices into problems and resolved schedulers, and the seed.
#[derive(Copy, Clone)]
struct RunKey {
    problem: usize,
    scheduler: usize,
    seed: u64,
}

/// Runs executed together: one run with a fresh scheduler, or every run of a reused one.
struct Job {
    scheduler: usize,
    runs: Vec<usize>,
}

type Outcome = Result<(RunRecord, Schedule)>;

impl Experiment {
    /// An experiment on `problems`, with no scheduler yet, seed `[0]`, no budget, the
    /// built-in [`Registry`], sequential, progress bar on a terminal, no schedules kept, at
    /// most 500 points per convergence curve.
    pub fn new(problems: ProblemSet) -> Self {
        Self {
            problems,
            schedulers: Vec::new(),
            seeds: vec![0],
            budget: Budget::default(),
            parallel: false,
            quiet: false,
            lines: false,
            keep: KeepSchedules::None,
            max_curve_points: 500,
            registry: Registry::with_builtins(),
        }
    }

    /// Uses `registry` to build registry specs (e.g. one holding your own schedulers).
    pub fn with_registry(mut self, registry: Registry) -> Self {
        self.registry = registry;
        self
    }

    /// Adds a scheduler (a spec string converts: `.scheduler("heft")`).
    pub fn scheduler(mut self, spec: impl Into<SchedulerSpec>) -> Self {
        self.schedulers.push(spec.into());
        self
    }

    /// Adds schedulers.
    pub fn schedulers<S: Into<SchedulerSpec>>(
        mut self,
        specs: impl IntoIterator<Item = S>,
    ) -> Self {
        self.schedulers.extend(specs.into_iter().map(Into::into));
        self
    }

    /// Sets the seeds of every problem without its own ([`NamedProblem::with_seeds`]).
    pub fn seeds(mut self, seeds: impl IntoIterator<Item = u64>) -> Self {
        self.seeds = seeds.into_iter().collect();
        self
    }

    /// Sets the budget of every run.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Runs on the rayon pool (default `false`; see the type docs).
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Never draws a progress bar nor prints progress lines (default `false`: a bar is
    /// drawn when stderr is a terminal).
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// When stderr is not a terminal (a log file, a pipe, CI), print one plain line per run
    /// to stderr as it starts, `run K/N: LABEL · PROBLEM · seed S`, instead of nothing
    /// (default `false`; [`quiet`](Self::quiet) wins). What a command-line tool wants; a
    /// library's tests and examples keep the default.
    pub fn progress_lines(mut self, lines: bool) -> Self {
        self.lines = lines;
        self
    }

    /// Which schedules to keep in the results.
    pub fn keep_schedules(mut self, keep: KeepSchedules) -> Self {
        self.keep = keep;
        self
    }

    /// Most points kept per convergence curve (`>= 2`; default 500): longer curves are
    /// thinned to evenly spaced events, keeping the first and the last.
    pub fn max_curve_points(mut self, n: usize) -> Self {
        self.max_curve_points = n.max(2);
        self
    }

    /// The problems.
    pub fn problems(&self) -> &ProblemSet {
        &self.problems
    }

    fn resolve(&self) -> Result<Vec<Resolved>> {
        if self.problems.is_empty() {
            return Err(ExperimentError::Missing {
                what: "the experiment".into(),
                missing: "problem",
            });
        }
        if self.schedulers.is_empty() {
            return Err(ExperimentError::Missing {
                what: "the experiment".into(),
                missing: "scheduler",
            });
        }
        if self.seeds.is_empty() {
            return Err(ExperimentError::Missing {
                what: "the experiment".into(),
                missing: "seed",
            });
        }
        if let Some(p) = self
            .problems
            .iter()
            .find(|p| p.seeds.as_ref().is_some_and(Vec::is_empty))
        {
            return Err(ExperimentError::Missing {
                what: format!("problem `{}`", p.name),
                missing: "seed",
            });
        }
        let mut out: Vec<Resolved> = Vec::with_capacity(self.schedulers.len());
        for spec in &self.schedulers {
            let probe = spec
                .build(&self.registry)
                .map_err(|source| ExperimentError::Spec {
                    spec: spec.to_string(),
                    source: Box::new(source),
                })?;
            let label = spec.resolve_label(probe.as_ref());
            if out.iter().any(|r| r.label == label) {
                return Err(ExperimentError::Duplicate {
                    what: "scheduler",
                    name: label,
                });
            }
            out.push(Resolved {
                spec: spec.clone(),
                label,
                stochastic: probe.is_stochastic(),
            });
        }
        Ok(out)
    }

    /// The labels of the schedulers, in order, as they will appear in the results.
    ///
    /// Errors: as [`run`](Self::run) before any run starts (bad spec, duplicate label, nothing
    /// to run).
    pub fn labels(&self) -> Result<Vec<String>> {
        Ok(self.resolve()?.into_iter().map(|r| r.label).collect())
    }

    /// Number of rank-test blocks of the problems: distinct block names
    /// ([`NamedProblem::block`]; a problem without one is a block of its own).
    pub fn n_blocks(&self) -> usize {
        crate::summary::count_distinct(self.problems.iter().map(|p| {
            p.tags
                .get(crate::problems::BLOCK_TAG)
                .map_or(p.name.as_str(), String::as_str)
        }))
    }

    /// Before running: why a Friedman test over all the results will not be possible (fewer
    /// than 2 schedulers or 2 blocks; [`rank_test_note`](crate::stats::rank_test_note)), or
    /// `None` when it will. A one-scheduler or one-problem experiment still runs and reports
    /// its tables; callers skip the test and print this note.
    ///
    /// Errors: as [`labels`](Self::labels).
    pub fn rank_test_note(&self) -> Result<Option<String>> {
        Ok(crate::stats::rank_test_note(
            self.labels()?.len(),
            self.n_blocks(),
        ))
    }

    /// Number of runs the experiment will do.
    ///
    /// Errors: as [`labels`](Self::labels).
    pub fn n_runs(&self) -> Result<usize> {
        let resolved = self.resolve()?;
        Ok(self.enumerate(&resolved).len())
    }

    fn enumerate(&self, resolved: &[Resolved]) -> Vec<RunKey> {
        let mut keys = Vec::new();
        for (pi, p) in self.problems.iter().enumerate() {
            let seeds = p.seeds.as_deref().unwrap_or(&self.seeds);
            for (si, s) in resolved.iter().enumerate() {
                let seeds = if s.stochastic { seeds } else { &seeds[..1] };
                for &seed in seeds {
                    keys.push(RunKey {
                        problem: pi,
                        scheduler: si,
                        seed,
                    });
                }
            }
        }
        keys
    }

    /// Runs every run (see the type docs).
    ///
    /// Errors: [`ExperimentError::Missing`] for an experiment without problem, scheduler or
    /// seed; [`ExperimentError::Spec`] for a spec that does not build;
    /// [`ExperimentError::Duplicate`] for two schedulers with one label;
    /// [`ExperimentError::RunFailed`] for a run whose scheduler failed and
    /// [`ExperimentError::InvalidSchedule`] for a run whose schedule violates a constraint
    /// (the first such run in record order).
    pub fn run(&self) -> Result<Results> {
        let resolved = self.resolve()?;
        let keys = self.enumerate(&resolved);
        let mut jobs: Vec<Job> = Vec::new();
        let mut reused: HashMap<usize, usize> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            if resolved[k.scheduler].spec.is_reused() {
                match reused.get(&k.scheduler) {
                    Some(&j) => jobs[j].runs.push(i),
                    None => {
                        reused.insert(k.scheduler, jobs.len());
                        jobs.push(Job {
                            scheduler: k.scheduler,
                            runs: vec![i],
                        });
                    }
                }
            } else {
                jobs.push(Job {
                    scheduler: k.scheduler,
                    runs: vec![i],
                });
            }
        }
        let bar = self.progress_bar(keys.len() as u64);
        let exec = |job: &Job| -> Vec<(usize, Outcome)> {
            let r = &resolved[job.scheduler];
            let mut sched = match r.spec.build(&self.registry) {
                Ok(s) => s,
                Err(source) => {
                    let e = ExperimentError::Spec {
                        spec: r.spec.to_string(),
                        source: Box::new(source),
                    };
                    return vec![(job.runs[0], Err(e))];
                }
            };
            let mut out = Vec::with_capacity(job.runs.len());
            for &i in &job.runs {
                let k = keys[i];
                let p = self.problems.at(k.problem);
                bar.start(format!("{} · {} · seed {}", r.label, p.name, k.seed));
                let outcome = self.execute(sched.as_mut(), r, p, k.seed);
                bar.done();
                let failed = outcome.is_err();
                out.push((i, outcome));
                if failed {
                    break;
                }
            }
            out
        };
        let mut slots: Vec<Option<(RunRecord, Schedule)>> = (0..keys.len()).map(|_| None).collect();
        let mut first_error: Option<(usize, ExperimentError)> = None;
        if self.parallel {
            let batches: Vec<Vec<(usize, Outcome)>> = jobs.par_iter().map(exec).collect();
            for batch in batches {
                store(batch, &mut slots, &mut first_error);
            }
        } else {
            for job in &jobs {
                store(exec(job), &mut slots, &mut first_error);
                if first_error.is_some() {
                    break;
                }
            }
        }
        bar.finish_and_clear();
        if let Some((_, e)) = first_error {
            return Err(e);
        }
        let mut records = Vec::with_capacity(keys.len());
        let mut schedules = BTreeMap::new();
        for (i, slot) in slots.into_iter().enumerate() {
            let (rec, sched) = slot.expect("every run without error has a result");
            if self.keep != KeepSchedules::None {
                schedules.insert(i, sched);
            }
            records.push(rec);
        }
        let mut results = Results {
            schedulers: resolved.into_iter().map(|r| r.label).collect(),
            records,
            schedules,
        };
        if self.keep == KeepSchedules::BestPerProblem {
            results.prune_to_best();
        }
        Ok(results)
    }

    fn progress_bar(&self, len: u64) -> RunProgress {
        RunProgress::new(len, self.quiet, self.lines)
    }

    fn execute(
        &self,
        sched: &mut dyn Scheduler,
        r: &Resolved,
        p: &NamedProblem,
        seed: u64,
    ) -> Outcome {
        // Every `stride`-th event; when the buffer fills, every other point is dropped and
        // the stride doubles: memory stays below `cap` points however long the run.
        let cap = 2 * self.max_curve_points.max(2);
        let mut curve: Vec<ConvergencePoint> = Vec::new();
        let (mut stride, mut seen) = (1u64, 0u64);
        let mut last: Option<ConvergencePoint> = None;
        let cpu = cpu_time::ProcessTime::now();
        let mut observer = |pr: &Progress| {
            let point = ConvergencePoint::new(pr, cpu.elapsed().as_secs_f64());
            if seen.is_multiple_of(stride) {
                curve.push(point);
                last = None;
                if curve.len() >= cap {
                    let mut i = 0usize;
                    curve.retain(|_| {
                        i += 1;
                        i % 2 == 1
                    });
                    stride *= 2;
                }
            } else {
                last = Some(point);
            }
            seen += 1;
            ControlFlow::Continue(())
        };
        let mut ctx = RunContext::new(seed)
            .with_budget(self.budget.clone())
            .with_observer(&mut observer);
        let started = Instant::now();
        let result = sched.schedule(&p.problem, &mut ctx);
        let wall = started.elapsed().as_secs_f64();
        curve.extend(last);
        let schedule = result.map_err(|source| ExperimentError::RunFailed {
            scheduler: r.label.clone(),
            problem: p.name.clone(),
            seed,
            source: Box::new(source),
        })?;
        let violations = schedule.validate(&p.problem);
        if let Some(first) = violations.first() {
            return Err(ExperimentError::InvalidSchedule {
                scheduler: r.label.clone(),
                problem: p.name.clone(),
                seed,
                violations: violations.len(),
                first: first.to_string(),
            });
        }
        let m = schedule.metrics(&p.problem);
        let evaluations = curve.last().map_or(0, |c| c.evaluations);
        let record = RunRecord {
            problem: p.name.clone(),
            tags: p.tags.clone(),
            tasks: p.problem.n_tasks(),
            gpus: p.problem.n_gpus(),
            scheduler: r.label.clone(),
            stochastic: r.stochastic,
            seed,
            makespan: m.makespan,
            slr: m.slr,
            speedup: m.speedup,
            efficiency: m.efficiency,
            utilisation: m.utilisation,
            lower_bound: m.lower_bound,
            gap: m.gap,
            mean_job_time: m.mean_job_time,
            load_imbalance: m.load_imbalance,
            cost: m.cost,
            wall_time_s: wall,
            evaluations,
            convergence: thin(curve, self.max_curve_points),
        };
        Ok((record, schedule))
    }
}

/// Puts each outcome into its slot, remembering the error of the smallest run index.
fn store(
    batch: Vec<(usize, Outcome)>,
    slots: &mut [Option<(RunRecord, Schedule)>],
    first_error: &mut Option<(usize, ExperimentError)>,
) {
    for (i, o) in batch {
        match o {
            Ok(v) => slots[i] = Some(v),
            Err(e) => {
                if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                    *first_error = Some((i, e));
                }
            }
        }
    }
}

/// The progress shown while an experiment runs: an indicatif bar (hidden when quiet or not
/// on a terminal) or plain lines on stderr ([`Experiment::progress_lines`]).
pub(crate) struct RunProgress {
    bar: ProgressBar,
    lines: bool,
    total: u64,
    started: AtomicU64,
}

impl RunProgress {
    /// Progress over `len` runs: a bar on a terminal stderr unless `quiet`; else, with
    /// `lines` and not `quiet`, one plain stderr line per run as it starts; else nothing.
    pub(crate) fn new(len: u64, quiet: bool, lines: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let mut progress = Self {
            bar: ProgressBar::hidden(),
            lines: lines && !quiet && !terminal,
            total: len,
            started: AtomicU64::new(0),
        };
        if quiet || !terminal {
            return progress;
        }
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} runs (eta {eta}) {msg}",
        )
        .expect("a valid progress template")
        .progress_chars("=> ");
        progress.bar = ProgressBar::new(len).with_style(style);
        progress.bar.enable_steady_tick(Duration::from_millis(250));
        progress
    }

    /// A run starts: `what` is its scheduler, problem and seed.
    pub(crate) fn start(&self, what: String) {
        if self.lines {
            let k = self.started.fetch_add(1, Ordering::Relaxed) + 1;
            // a closed stderr loses the line, nothing else
            let _ = writeln!(std::io::stderr(), "run {k}/{}: {what}", self.total);
        } else {
            self.bar.set_message(what);
        }
    }

    /// A run ended.
    pub(crate) fn done(&self) {
        self.bar.inc(1);
    }

    /// The experiment ended: the bar is cleared.
    pub(crate) fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// At most `max` points of `curve`, evenly spaced by index, first and last kept.
fn thin(curve: Vec<ConvergencePoint>, max: usize) -> Vec<ConvergencePoint> {
    let n = curve.len();
    if n <= max {
        return curve;
    }
    (0..max).map(|i| curve[(i * (n - 1)) / (max - 1)]).collect()
}

/// The records of an experiment, in run order (problem, then scheduler, then seed), and the
/// schedules kept ([`KeepSchedules`]).
///
/// Serialises (JSON) without the schedules. Summaries, comparisons and rank tests:
/// [`summaries`](Self::summaries), [`compare`](Self::compare),
/// [`rank_test`](Self::rank_test); tables, CSV, JSON: the `report` functions; plots: the
/// `plot` module.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Results {
    schedulers: Vec<String>,
    records: Vec<RunRecord>,
    #[serde(skip)]
    schedules: BTreeMap<usize, Schedule>,
}

impl Results {
    /// Results from `records` (e.g. read back from CSV); schedulers are ordered by first
    /// appearance.
    pub fn from_records(records: Vec<RunRecord>) -> Self {
        let mut schedulers: Vec<String> = Vec::new();
        for r in &records {
            if !schedulers.contains(&r.scheduler) {
                schedulers.push(r.scheduler.clone());
            }
        }
        Self {
            schedulers,
            records,
            schedules: BTreeMap::new(),
        }
    }

    /// Scheduler labels in experiment order.
    pub fn schedulers(&self) -> &[String] {
        &self.schedulers
    }

    /// Every record in run order.
    pub fn records(&self) -> &[RunRecord] {
        &self.records
    }

    /// Problem names in order of first appearance.
    pub fn problems(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.records {
            if out.last() != Some(&r.problem.as_str()) && !out.contains(&r.problem.as_str()) {
                out.push(&r.problem);
            }
        }
        out
    }

    /// The records of `scheduler` on `problem`, in seed order.
    pub fn runs<'a>(
        &'a self,
        problem: &str,
        scheduler: &str,
    ) -> impl Iterator<Item = &'a RunRecord> + use<'a> {
        let (problem, scheduler) = (problem.to_owned(), scheduler.to_owned());
        self.records
            .iter()
            .filter(move |r| r.problem == problem && r.scheduler == scheduler)
    }

    /// The schedule kept for record `index` (see [`KeepSchedules`]).
    pub fn schedule(&self, index: usize) -> Option<&Schedule> {
        self.schedules.get(&index)
    }

    /// The kept schedule of the smallest makespan on `problem` (first such run), with its
    /// record.
    pub fn best_schedule(&self, problem: &str) -> Option<(&RunRecord, &Schedule)> {
        let mut best: Option<(&RunRecord, &Schedule)> = None;
        for (&i, s) in &self.schedules {
            let r = &self.records[i];
            if r.problem == problem && best.is_none_or(|(b, _)| r.makespan < b.makespan) {
                best = Some((r, s));
            }
        }
        best
    }

    /// Appends `other`'s records and kept schedules (e.g. grids run one after another);
    /// schedulers new to `self` go last.
    pub fn extend(&mut self, other: Results) {
        let base = self.records.len();
        for s in other.schedulers {
            if !self.schedulers.contains(&s) {
                self.schedulers.push(s);
            }
        }
        self.records.extend(other.records);
        self.schedules
            .extend(other.schedules.into_iter().map(|(i, s)| (base + i, s)));
    }

    fn prune_to_best(&mut self) {
        let mut best: HashMap<&str, usize> = HashMap::new();
        for &i in self.schedules.keys() {
            let r = &self.records[i];
            match best.get(r.problem.as_str()) {
                Some(&b) if self.records[b].makespan <= r.makespan => {}
                _ => {
                    best.insert(&r.problem, i);
                }
            }
        }
        let keep: std::collections::HashSet<usize> = best.into_values().collect();
        self.schedules.retain(|i, _| keep.contains(i));
    }
}

#[cfg(test)]
mod curve_tests {
    use super::*;
    use std::sync::Arc;
    use worl_cluster::{GpuModel, PartialSchedule, Policy, Problem, presets};
    use worl_dag::generators::shapes;

    /// Reports `events` progress events, then places every task on GPU 0.
    struct Chatty {
        events: u64,
    }

    impl Scheduler for Chatty {
        fn name(&self) -> &str {
            "chatty"
        }
        fn schedule(
            &mut self,
            p: &Problem,
            ctx: &mut RunContext<'_>,
        ) -> worl_sched::Result<Schedule> {
            for e in 0..self.events {
                let _ = ctx.report(Progress {
                    step: e,
                    total_steps: self.events,
                    evaluations: e + 1,
                    best_makespan: 1.0e6 / (e + 1) as f64,
                });
            }
            let mut s = PartialSchedule::new(p);
            for &t in p.graph().topo_order() {
                s.place(t, worl_cluster::GpuId::new(0), Policy::Append)?;
            }
            Ok(s.to_schedule()?)
        }
    }

    #[test]
    fn convergence_curve_of_a_long_run_is_thinned_as_it_goes() {
        let cluster = Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb()).unwrap());
        let w = Arc::new(shapes::chain(3, 10.0, 0.0).unwrap());
        let problems = ProblemSet::new()
            .with(NamedProblem::new(
                "chain",
                Problem::new(w, cluster).unwrap(),
            ))
            .unwrap();
        let events = 1_000_003;
        let results = Experiment::new(problems)
            .scheduler(SchedulerSpec::factory("chatty", move || {
                Ok(Box::new(Chatty { events }))
            }))
            .max_curve_points(100)
            .quiet(true)
            .run()
            .unwrap();
        let r = &results.records()[0];
        assert_eq!(r.convergence.len(), 100);
        assert_eq!(r.convergence[0].step, 0);
        assert_eq!(r.convergence[99].step, events - 1);
        assert_eq!(r.evaluations, events);
        assert!(r.convergence.windows(2).all(|w| w[0].step < w[1].step));
        // short curves are kept whole
        let short: Vec<ConvergencePoint> = (0..7)
            .map(|i| ConvergencePoint {
                step: i,
                evaluations: i,
                best_makespan: 1.0,
                cpu_seconds: 0.0,
            })
            .collect();
        assert_eq!(thin(short.clone(), 100), short);
    }
}
