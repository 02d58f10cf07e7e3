//! What the Python module does, without Python: reading workloads (saga / dag-bench problem
//! instances included) and clusters (files or the `worl` command line's short
//! descriptions), building schedulers from a spec and keyword options, scheduling, writing
//! and checking schedule files, and comparing schedulers. Every function returns the
//! library's own errors, so the Python exceptions carry exactly the messages `worl` prints.
//!
//! Kept free of PyO3 so that it builds, is tested and can be timed (`examples/heft_timing.rs`)
//! on a machine without Python.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl::cluster::{Cluster, GpuModel, Problem, Schedule, presets};
use worl::dag::Workload;
use worl::experiment::simulation::{SimOutcome, SimStudy};
use worl::experiment::spec::specs_or_all;
use worl::experiment::{Experiment, KeepSchedules, NamedProblem, ProblemSet, Results};
use worl::io::{ScheduleFile, ScheduleMeta};
use worl::sched::registry::Spec;
use worl::sched::{Budget, Registry, RunContext, Scheduler};
use worl::sim::arrivals::Arrivals;
use worl::sim::spec::PolicySpec;
use worl::sim::{Contention, Failures, RuntimeNoise, SimConfig};

pub use worl::{Error, Result};

pub use worl::io::Loaded;

/// Reads the workload at `path`, the format picked as `worl` picks it
/// ([`worl::io::load_workload`]): a `.json` holding a `"task_graph"` is a saga / dag-bench
/// problem instance (workload and network); anything else by extension and content
/// (Alibaba v2018 / GPU v2023 / PAI CSV, WfCommons JSON, Pegasus DAX, STG, DOT, worl's
/// workload JSON).
///
/// Errors: the loaders' (`DagError` / `ClusterError`), naming the file, line and item.
pub fn load_workload(path: &Path) -> Result<Loaded> {
    Ok(worl::io::load_workload(path)?)
}

/// The keys a Python schedule row may have (`worl.SCHEDULE_ROW_KEYS`): the columns of the
/// CSV schedule reader, [`CSV_COLUMNS`](worl::io::schedule_file::CSV_COLUMNS) and last
/// the optional [`GPUS_COLUMN`](worl::io::schedule_file::GPUS_COLUMN) `gpus` (a gang
/// task's GPU set, lead first; a CSV file has that column only when some task runs on
/// several GPUs, and a row dict has that key only for such a task), so a row dict and a CSV
/// line take the same names; besides them the readers' other names
/// ([`SCHEDULE_ROW_ALIASES`]).
pub const SCHEDULE_ROW_KEYS: [&str; 10] = {
    let columns = worl::io::schedule_file::CSV_COLUMNS;
    let mut keys = [worl::io::schedule_file::GPUS_COLUMN; 10];
    let mut i = 0;
    while i < columns.len() {
        keys[i] = columns[i];
        i += 1;
    }
    keys
};

/// The rows of the schedule file `file` as JSON objects, one per task in row order: the
/// [`ScheduleRow`](worl::io::ScheduleRow) fields (`task_id`, `task`, `job`, `gpu_id`,
/// `machine`, `gpu_index`, `model`, `start`, `finish`) and, for a gang task run on several
/// GPUs, `gpus`: its GPU set's ids, lead (`gpu_id`) first. A row on one GPU has no `gpus`
/// key, so the rows of a workload without gang tasks are what they were before sets.
///
/// Errors: a row that cannot be written as JSON (none can: every time is finite).
pub fn schedule_rows(file: &ScheduleFile) -> Result<serde_json::Value> {
    let mut rows = Vec::with_capacity(file.rows.len());
    for (i, r) in file.rows.iter().enumerate() {
        let mut row = serde_json::to_value(r)?;
        if let (Some(set), Some(o)) = (file.gpu_sets.get(&i), row.as_object_mut()) {
            o.insert(
                worl::io::schedule_file::GPUS_COLUMN.to_owned(),
                serde_json::Value::from(set.clone()),
            );
        }
        rows.push(row);
    }
    Ok(serde_json::Value::Array(rows))
}

/// The gang demand of a task added from Python: `gpus` GPUs at once (default 1), and the
/// [`GangParams`](worl::dag::GangParams) fields given (`span` `machine` or `cluster`,
/// `efficiency` in `(0, 1]`, `sync_bytes` and `sync_steps` finite and `>= 0`; the defaults
/// elsewhere). `label` names the task in errors. The values are checked when the builder
/// sets them ([`WorkloadBuilder::set_gang`](worl::dag::WorkloadBuilder::set_gang), whose
/// typed error names the task); here only the span's spelling.
///
/// Errors: ``<label>: gang span `<span>` is neither `machine` nor `cluster` ``.
pub fn gang_params(
    label: &str,
    span: Option<&str>,
    efficiency: Option<f64>,
    sync_bytes: Option<f64>,
    sync_steps: Option<f64>,
) -> Result<worl::dag::GangParams> {
    let mut p = worl::dag::GangParams::default();
    if let Some(s) = span {
        p.span = worl::dag::Span::parse(s).ok_or_else(|| Error::UnknownGangSpan {
            item: label.to_owned(),
            span: s.to_owned(),
        })?;
    }
    if let Some(e) = efficiency {
        p.efficiency = e;
    }
    if let Some(b) = sync_bytes {
        p.sync_bytes = b;
    }
    if let Some(n) = sync_steps {
        p.sync_steps = n;
    }
    Ok(p)
}

/// Other names of row keys, `(alias, key)`, as the CSV and JSON schedule readers take them:
/// `gpu` for `gpu_id` (`worl.SCHEDULE_ROW_ALIASES`).
pub const SCHEDULE_ROW_ALIASES: [(&str, &str); 1] = [("gpu", "gpu_id")];

/// The schedule-file key of key `key` of Python schedule row `row` (0-based): `key` itself
/// for one of [`SCHEDULE_ROW_KEYS`], the key an alias stands for ([`SCHEDULE_ROW_ALIASES`]).
///
/// Errors: ``row <row>: unknown key `<key>` (known: task_id, task, ..., finish; gpu for
/// gpu_id)``.
pub fn row_key(row: usize, key: &str) -> Result<&'static str> {
    if let Some(k) = SCHEDULE_ROW_KEYS.iter().find(|&&k| k == key) {
        return Ok(k);
    }
    if let Some((_, k)) = SCHEDULE_ROW_ALIASES.iter().find(|(a, _)| *a == key) {
        return Ok(k);
    }
    let aliases: Vec<String> = SCHEDULE_ROW_ALIASES
        .iter()
        .map(|(a, k)| format!("{a} for {k}"))
        .collect();
    Err(Error::UnknownRowKey {
        row,
        key: key.to_owned(),
        known: format!("{}; {}", SCHEDULE_ROW_KEYS.join(", "), aliases.join(", ")),
    })
}

/// Writes `w` to `path` in the format of its name, as `worl convert` does
/// ([`worl::io::save_workload`]; the endings: [`worl::io::WORKLOAD_SAVE_EXTENSIONS`]):
/// `.saga.json` a saga / dag-bench problem instance with `network` as its network.
///
/// Errors: `"<path>: a saga problem instance needs a network: give a cluster"`,
/// ``"<path>: cannot write workloads as `.<ext>` (writable: ...)"``, or the writers' errors
/// naming the file (a saga network with latencies is refused).
pub fn save_workload(w: &Workload, network: Option<&Cluster>, path: &Path) -> Result<()> {
    Ok(worl::io::save_workload(w, network, path)?)
}

/// Writes the schedule `s` of `problem` to `path` as `worl schedule --out` does
/// ([`worl::io::save_schedule`]; the endings: [`worl::io::SCHEDULE_SAVE_EXTENSIONS`]).
///
/// Errors: ``"<path>: cannot write schedules as `.<ext>` (writable: ...)"``; an
/// unwritable path, naming the file.
pub fn save_schedule(problem: &Problem, s: &Scheduled, path: &Path) -> Result<()> {
    Ok(worl::io::save_schedule(
        problem,
        &s.schedule,
        s.meta.clone(),
        path,
    )?)
}

/// A cluster from `arg` exactly as `worl --cluster` reads it: an existing cluster file, else a
/// description of a preset (`pai-mix:M[:SEED]`, `homogeneous:M:MODEL`, `dgx:NODES:MODEL`,
/// `paper-pool:M:MBIT[:SEED]`, `MxG:MODEL[:INTER[:INTRA]]`; grammar:
/// `worl_cluster::description`).
///
/// Errors: ``cluster `<arg>`: <why> (expected ...)`` for a malformed description (unknown
/// preset, GPU model or link, a count that is not a whole number, too many fields), or the
/// file's or the preset's own error.
pub fn parse_cluster(arg: &str) -> Result<Cluster> {
    Ok(worl::io::load_cluster(arg)?)
}

/// The catalog GPU model `name` ([`GpuModel::by_name`]), or the known names joined by `", "`.
pub fn gpu_model(name: &str) -> std::result::Result<GpuModel, String> {
    GpuModel::by_name(name).ok_or_else(|| {
        let known: Vec<String> = GpuModel::catalog().into_iter().map(|m| m.name).collect();
        known.join(", ")
    })
}

/// The named link `name` ([`presets::link_by_name`]), or the known names joined by `", "`.
pub fn named_link(name: &str) -> std::result::Result<worl::cluster::Link, String> {
    presets::link_by_name(name).ok_or_else(|| {
        let known: Vec<&str> = presets::NAMED_LINKS.iter().map(|l| l.name).collect();
        known.join(", ")
    })
}

/// The spec `spec` (`heft`, `rtgs[whales=10]`, `rtgs:whales=10`) with `options` appended, in
/// the canonical bracket form (`rtgs[whales=10,iterations=5]`), checked by the spec grammar
/// ([`Spec`]).
///
/// Errors: `ScheduleError::InvalidSpec` naming the spec for a malformed spec, or a key given
/// both in `spec` and in `options` (or twice).
pub fn spec_with_options(spec: &str, options: &[(String, String)]) -> Result<Spec> {
    let mut s: Spec = spec.parse()?;
    if options.is_empty() {
        return Ok(s);
    }
    s.options.extend(options.iter().cloned());
    // the grammar's checks (repeated keys, empty keys) on the whole spec
    Ok(s.to_string().parse()?)
}

/// The scheduler of `spec` from the built-in registry ([`Registry::with_builtins`]).
///
/// Errors: `ScheduleError::UnknownScheduler` (listing the registered names), or the
/// scheduler's own option errors.
pub fn build_scheduler(spec: &Spec) -> Result<Box<dyn Scheduler>> {
    Ok(Registry::with_builtins().build(&spec.name, spec.to_options())?)
}

/// A budget of at most `time` seconds of wall time and `max_evaluations` plan evaluations.
///
/// Errors: `"time <t>: expected a finite number of seconds >= 0"`.
pub fn budget(time: Option<f64>, max_evaluations: Option<u64>) -> Result<Budget> {
    let max_time = time
        .map(|s| {
            Duration::try_from_secs_f64(s).map_err(|_| {
                Error::invalid_argument("time", s, "expected a finite number of seconds >= 0")
            })
        })
        .transpose()?;
    Ok(Budget {
        max_evaluations,
        max_time,
    })
}

/// A schedule and who made it.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// The schedule.
    pub schedule: Schedule,
    /// The scheduler's label, spec and seed, as written in schedule files.
    pub meta: ScheduleMeta,
    /// Wall time of the scheduler's `schedule` call, s.
    pub wall_time_s: f64,
}

/// Schedules `problem` with the scheduler of `spec` and seed `seed` under `budget`, as
/// `worl schedule` does.
///
/// Errors: [`build_scheduler`]'s, or the scheduler's `ScheduleError`.
pub fn schedule(problem: &Problem, spec: &Spec, seed: u64, budget: Budget) -> Result<Scheduled> {
    let mut scheduler = build_scheduler(spec)?;
    let started = Instant::now();
    let schedule = scheduler.schedule(problem, &mut RunContext::new(seed).with_budget(budget))?;
    let wall_time_s = started.elapsed().as_secs_f64();
    Ok(Scheduled {
        schedule,
        meta: ScheduleMeta {
            scheduler: scheduler.name().to_owned(),
            options: spec.to_string(),
            seed: Some(seed),
        },
        wall_time_s,
    })
}

/// The problem of `workload` on `cluster`.
///
/// Errors: `ClusterError` when a task fits no GPU's memory.
pub fn problem(workload: Arc<Workload>, cluster: Arc<Cluster>) -> Result<Problem> {
    Ok(Problem::new(workload, cluster)?)
}

/// The schedule file of `s` on `problem` (the file `worl schedule` writes).
///
/// Errors: `ClusterError::ShapeMismatch` if `s` is not of `problem`.
pub fn schedule_file(problem: &Problem, s: &Scheduled) -> Result<ScheduleFile> {
    Ok(ScheduleFile::new(problem, &s.schedule, s.meta.clone())?)
}

/// Every violation of the schedule `file` on `problem`, each explained on one line
/// (the lines `worl validate` prints after the file name), and the makespan of the rows.
///
/// Errors: the `MatchError` of a file that does not belong to `problem` (an unknown task,
/// a GPU the cluster lacks, a row without GPU), naming the row.
pub fn check_file(problem: &Problem, file: &ScheduleFile) -> Result<(Vec<String>, f64)> {
    let (violations, schedule) = file.validate_with_schedule(problem)?;
    let lines = violations
        .iter()
        .map(|v| v.explain(problem, &schedule).to_string())
        .collect();
    Ok((lines, schedule.makespan()))
}

/// The options of [`compare`].
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Scheduler specs or comma/semicolon-separated spec lists; all registered if empty.
    pub schedulers: Vec<String>,
    /// Seeds `1..=seeds` per stochastic scheduler (at least 1).
    pub seeds: u64,
    /// The budget of each search run.
    pub budget: Budget,
    /// Runs in parallel (rayon).
    pub parallel: bool,
}

/// Runs every scheduler of `options` on every problem, as `worl compare` does, and returns
/// the results (records of every run; each run's schedule was validated).
///
/// Errors: `"seeds must be at least 1"`, `ExperimentError` for a bad spec or a failed run.
pub fn compare(problems: Vec<(String, Problem)>, options: &CompareOptions) -> Result<Results> {
    if options.seeds == 0 {
        return Err(Error::invalid_argument("seeds", 0, "must be at least 1"));
    }
    let mut set = ProblemSet::new();
    for (name, p) in problems {
        set.push(NamedProblem::new(name, p))?;
    }
    let registry = Registry::with_builtins();
    let specs = specs_or_all(&registry, &options.schedulers)?;
    Ok(Experiment::new(set)
        .with_registry(registry)
        .schedulers(specs)
        .seeds(1..=options.seeds)
        .budget(options.budget.clone())
        .parallel(options.parallel)
        .keep_schedules(KeepSchedules::None)
        .run()?)
}

/// The policies [`simulate`] runs when none are named: the `worl simulate` command's default
/// (static plans of HEFT and ILS, HEFT re-planning, and the three online rules).
pub use worl::sim::spec::DEFAULT_POLICIES;

/// Most seeds [`simulate`] takes (as `worl simulate --seeds`).
pub const MAX_SIM_SEEDS: u64 = 10_000;

/// The options of [`simulate`], as the Python function and `worl simulate` take them: every
/// setting a specification string.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    /// Policy specs or comma/semicolon-separated spec lists (`plan:heft`, `replan:ils`,
    /// `online:mdts[episodes=20]`, `eft`, `least-connection`, `round-robin`);
    /// [`DEFAULT_POLICIES`] if empty.
    pub policies: Vec<String>,
    /// How jobs arrive: `trace`, `batch` or `poisson:R` (jobs per hour).
    pub arrivals: String,
    /// Runtime noise: `none`, `lognormal:CV` or `uniform:LO..HI`.
    pub noise: String,
    /// Network contention: `fair` or `none`.
    pub contention: String,
    /// GPU failures: `none`, `mtbf:HOURS`, `mtbf:HOURS:REPAIR_S`, scripted outages
    /// `outages:GPU@FROM+DURATION[;...]` (GPU index, seconds) or `script:FILE` (a CSV file
    /// with the header `gpu,from,to`); see [`Failures`].
    pub failures: String,
    /// Seeds `1..=seeds` (arrivals, noise, failures, planners), in `1..=`[`MAX_SIM_SEEDS`].
    pub seeds: u64,
    /// The budget of each planning call (`plan:` once per run, `replan:` per decision).
    pub budget: Budget,
}

impl Default for SimulateOptions {
    /// The Python function's defaults: the default policies, `trace` arrivals, no noise,
    /// `fair` contention, no failures, 3 seeds, no budget.
    fn default() -> Self {
        Self {
            policies: Vec::new(),
            arrivals: "trace".into(),
            noise: "none".into(),
            contention: "fair".into(),
            failures: "none".into(),
            seeds: 3,
            budget: Budget::default(),
        }
    }
}

/// The settings of `options`, every spec parsed (so that a bad one is reported before any
/// problem is built): the policies (each list by [`PolicySpec::parse_list`]), arrivals,
/// noise, contention and failures, and the seed count checked.
///
/// Errors: `SimError::InvalidSpec` (``invalid noise `lognormal:x`: ...``) naming the spec
/// that does not parse; ``seeds <n>: must be in 1..=10000``.
pub fn sim_settings(options: &SimulateOptions) -> Result<SimSettings> {
    if !(1..=MAX_SIM_SEEDS).contains(&options.seeds) {
        return Err(Error::invalid_argument(
            "seeds",
            options.seeds,
            format!("must be in 1..={MAX_SIM_SEEDS}"),
        ));
    }
    let mut policies = Vec::new();
    if options.policies.is_empty() {
        policies = PolicySpec::parse_list(DEFAULT_POLICIES)?;
    } else {
        for list in &options.policies {
            policies.extend(PolicySpec::parse_list(list)?);
        }
    }
    let config = SimConfig {
        noise: options.noise.parse::<RuntimeNoise>()?,
        contention: options.contention.parse::<Contention>()?,
        failures: options.failures.parse::<Failures>()?,
        record_events: false,
        charge_decision_time: false,
    };
    Ok(SimSettings {
        policies,
        config,
        arrivals: options.arrivals.parse::<Arrivals>()?,
        seeds: options.seeds,
        budget: options.budget.clone(),
    })
}

/// Parsed [`SimulateOptions`] ([`sim_settings`]).
#[derive(Clone, Debug)]
pub struct SimSettings {
    /// The policies, in the order named.
    pub policies: Vec<PolicySpec>,
    /// Noise, contention and failures (no event log, decision time not charged).
    pub config: SimConfig,
    /// How jobs arrive.
    pub arrivals: Arrivals,
    /// Seeds `1..=seeds`.
    pub seeds: u64,
    /// The budget of each planning call.
    pub budget: Budget,
}

/// Simulates every policy of `settings` on every problem with seeds `1..=seeds`, as `worl
/// simulate` does (without its files): a [`SimStudy`] on the built-in registry.
///
/// Errors: `ExperimentError` for a repeated problem name, no problem, or a failed run
/// (naming the problem, policy and seed: an unknown scheduler in `plan:`, a policy not
/// written yet, a stalled simulation).
pub fn simulate(problems: Vec<(String, Problem)>, settings: &SimSettings) -> Result<SimOutcome> {
    let mut set = ProblemSet::new();
    for (name, p) in problems {
        set.push(NamedProblem::new(name, p))?;
    }
    let study = SimStudy::new(set, settings.policies.clone())
        .seeds(1..=settings.seeds)
        .config(settings.config.clone())
        .arrivals(settings.arrivals)
        .with_registry(Registry::with_builtins())
        .budget(settings.budget.clone());
    Ok(study.run(&mut |_, _, _, _| {})?)
}

/// The job completion times (s, job id order) of `policy` on the first problem with the
/// first seed, from [`SimOutcome::kept`]. `policy` is a label, or a spec whose label is one
/// up to ASCII case (` PLAN:HEFT` finds `plan:heft`, `online-eft` finds `eft`).
///
/// Errors: ``no policy `<policy>` in this simulation (policies: ...)``.
pub fn jcts(outcome: &SimOutcome, policy: &str) -> Result<Vec<f64>> {
    let label = policy
        .parse::<PolicySpec>()
        .map_or_else(|_| policy.trim().to_owned(), |s| s.label());
    let first = outcome.runs.first().map(|r| r.problem.as_str());
    for kept in &outcome.kept {
        let run = &outcome.runs[kept.run];
        if Some(run.problem.as_str()) == first && run.policy.eq_ignore_ascii_case(&label) {
            return Ok(kept.result.jobs.iter().map(|j| j.jct).collect());
        }
    }
    Err(Error::UnknownPolicy {
        policy: policy.to_owned(),
        known: outcome.policies().iter().map(ToString::to_string).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use worl::dag::WorkloadBuilder;

    /// The diamond `A -> {B, C} -> D` (work 2, 3, 4, 1 reference GPU-seconds, every edge
    /// 3.125e9 bytes), the instance of the Python test `test_heft_hand_computed`.
    fn diamond() -> Workload {
        let mut b = WorkloadBuilder::new("diamond");
        let j = b.add_job("diamond").unwrap();
        let a = b.add_task(j, "A", 2.0, Some(1.0)).unwrap();
        let bb = b.add_task(j, "B", 3.0, Some(1.0)).unwrap();
        let c = b.add_task(j, "C", 4.0, Some(1.0)).unwrap();
        let d = b.add_task(j, "D", 1.0, Some(1.0)).unwrap();
        for (f, t) in [(a, bb), (a, c), (bb, d), (c, d)] {
            b.add_edge(f, t, 3.125e9).unwrap();
        }
        b.build().unwrap()
    }

    /// HEFT on the diamond, two V100s on two machines over 25 GbE (3.125e9 B/s, 50 us): one
    /// transfer takes c = 50e-6 + 1 s. Upward ranks order A, C, B, D. A on g0 [0, 2]; C on g0
    /// [2, 6] (on g1 it would end at 2 + c + 4); B on g1 [2 + c, 5 + c] (on g0 it would end at
    /// 9); D on g1: C's data arrives at 6 + c, B's is there at 5 + c, so [6 + c, 7 + c]
    /// (on g0 it would start at 5 + 2c). Makespan 7 + c = 8.00005 s.
    #[test]
    fn heft_on_the_diamond_is_hand_computed() {
        let cluster = parse_cluster("2x1:V100-16GB:25GbE").unwrap();
        assert_eq!((cluster.n_machines(), cluster.n_gpus()), (2, 2));
        let p = problem(Arc::new(diamond()), Arc::new(cluster)).unwrap();
        let s = schedule(&p, &"heft".parse().unwrap(), 0, Budget::default()).unwrap();
        assert!(
            (s.schedule.makespan() - 8.00005).abs() < 1e-9,
            "{}",
            s.schedule.makespan()
        );
        let c = 1.0 + 50e-6;
        let want = [
            (0, 0.0, 2.0),
            (1, 2.0 + c, 5.0 + c),
            (0, 2.0, 6.0),
            (1, 6.0 + c, 7.0 + c),
        ];
        for (t, &(gpu, start, finish)) in s.schedule.tasks().iter().zip(&want) {
            assert_eq!(t.gpu.index(), gpu);
            assert!((t.start - start).abs() < 1e-9 && (t.finish - finish).abs() < 1e-9);
        }
        assert_eq!(s.meta.scheduler, "HEFT");
        assert!(s.schedule.validate(&p).is_empty());
    }

    /// `plan:heft` without contention, noise or failures replays HEFT's plan exactly: the
    /// diamond's realised makespan is the hand-computed 8.00005 s of every seed, and its one
    /// job completes at that time (released at 0).
    #[test]
    fn simulating_the_heft_plan_realises_its_makespan() {
        let cluster = Arc::new(parse_cluster("2x1:V100-16GB:25GbE").unwrap());
        let p = problem(Arc::new(diamond()), cluster).unwrap();
        let settings = sim_settings(&SimulateOptions {
            policies: vec!["plan:heft".into()],
            contention: "none".into(),
            seeds: 2,
            ..SimulateOptions::default()
        })
        .unwrap();
        let out = simulate(vec![("diamond".into(), p)], &settings).unwrap();
        assert_eq!(out.runs.len(), 2);
        for (r, seed) in out.runs.iter().zip(1..) {
            assert_eq!(
                (r.problem.as_str(), r.policy.as_str(), r.seed),
                ("diamond", "plan:heft", seed)
            );
            assert!(
                (r.metrics.makespan - 8.00005).abs() < 1e-9,
                "{}",
                r.metrics.makespan
            );
            assert!((r.planned_makespan.unwrap() - 8.00005).abs() < 1e-9);
            assert!((r.metrics.mean_jct - 8.00005).abs() < 1e-9);
        }
        let j = jcts(&out, " PLAN:HEFT").unwrap();
        assert_eq!(j.len(), 1);
        assert!((j[0] - 8.00005).abs() < 1e-9, "{j:?}");
        let e = jcts(&out, "eft").unwrap_err().to_string();
        assert_eq!(
            e,
            "no policy `eft` in this simulation (policies: plan:heft)"
        );
    }

    #[test]
    fn bad_simulation_specs_are_named() {
        let with = |f: &dyn Fn(&mut SimulateOptions)| {
            let mut o = SimulateOptions::default();
            f(&mut o);
            match sim_settings(&o) {
                Ok(_) => panic!("{o:?} accepted"),
                Err(e) => e.to_string(),
            }
        };
        let e = with(&|o| o.noise = "lognormal:abc".into());
        assert!(e.starts_with("invalid noise `lognormal:abc`"), "{e}");
        let e = with(&|o| o.contention = "unfair".into());
        assert!(e.contains("`unfair`"), "{e}");
        let e = with(&|o| o.failures = "mtbf:-1".into());
        assert!(e.contains("`mtbf:-1`"), "{e}");
        let e = with(&|o| o.arrivals = "poisson".into());
        assert!(e.contains("`poisson`"), "{e}");
        let e = with(&|o| o.policies = vec!["plan:heft,fastest".into()]);
        assert!(e.contains("`fastest`"), "{e}");
        let e = with(&|o| o.seeds = 0);
        assert_eq!(e, "seeds 0: must be in 1..=10000");
        // the defaults parse, and name the command's default policies
        let s = sim_settings(&SimulateOptions::default()).unwrap();
        let labels: Vec<String> = s.policies.iter().map(PolicySpec::label).collect();
        assert_eq!(labels.join(","), DEFAULT_POLICIES);
        assert_eq!(s.seeds, 3);
    }

    #[test]
    fn cluster_descriptions_match_the_command_line() {
        let c = parse_cluster("4x8:A100-80GB:100GbE").unwrap();
        assert_eq!((c.n_machines(), c.n_gpus()), (4, 32));
        assert_eq!(parse_cluster("homogeneous:10:T4").unwrap().n_gpus(), 10);
        let e = parse_cluster("homogeneous:ten:T4").unwrap_err().to_string();
        assert!(
            e.starts_with("cluster `homogeneous:ten:T4`: GPU count `ten` is not a whole number"),
            "{e}"
        );
        let e = parse_cluster("2x1:NoSuchGPU").unwrap_err().to_string();
        assert!(e.contains("unknown GPU model `NoSuchGPU` (known: "), "{e}");
        let e = parse_cluster("nowhere.toml").unwrap_err().to_string();
        assert!(e.starts_with("cluster `nowhere.toml`: no such file"), "{e}");
    }

    #[test]
    fn options_join_the_spec_and_repeats_are_refused() {
        let o = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        let s = spec_with_options("rtgs[whales=4]", &[o("iterations", "3")]).unwrap();
        assert_eq!(s.to_string(), "rtgs[whales=4,iterations=3]");
        assert!(spec_with_options("rtgs[whales=4]", &[o("whales", "3")]).is_err());
        let Err(e) = build_scheduler(&"nosuch".parse().unwrap()) else {
            panic!("`nosuch` built");
        };
        let e = e.to_string();
        assert!(
            e.contains("nosuch") && e.contains("heft") && e.contains("peft"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = load_workload(Path::new("/no/such/dir/w.json")).unwrap_err();
        assert!(worl::error_line(&e).contains("/no/such/dir/w.json"));
    }

    #[test]
    fn schedule_row_keys_and_aliases_are_the_csv_readers() {
        // the CSV columns, then the optional column of a gang's GPU set
        assert_eq!(
            SCHEDULE_ROW_KEYS[..9].to_vec(),
            worl::io::schedule_file::CSV_COLUMNS.to_vec()
        );
        assert_eq!(SCHEDULE_ROW_KEYS[9], "gpus");
        assert_eq!(SCHEDULE_ROW_KEYS[9], worl::io::schedule_file::GPUS_COLUMN);
        assert_eq!(row_key(0, "gpu_id").unwrap(), "gpu_id");
        assert_eq!(row_key(0, "gpu").unwrap(), "gpu_id");
        assert_eq!(row_key(0, "gpus").unwrap(), "gpus");
        let e = row_key(2, "Start").unwrap_err().to_string();
        assert_eq!(
            e,
            "row 2: unknown key `Start` (known: task_id, task, job, gpu_id, machine, gpu_index, \
             model, start, finish, gpus; gpu for gpu_id)"
        );
        // The readers take each alias as its key (CSV column and JSON field alike), and
        // refuse both given at once: the rule Python rows follow.
        for (alias, key) in SCHEDULE_ROW_ALIASES {
            let csv = format!("task,job,{alias},start,finish\na,j,1,0,1\n");
            let f = ScheduleFile::from_csv_str(&csv).unwrap();
            assert_eq!(f.rows[0].gpu_id, Some(1), "{key}");
            let json = format!(
                r#"{{"rows": [{{"task": "a", "job": "j", "{alias}": 1, "start": 0, "finish": 1}}]}}"#
            );
            assert_eq!(
                ScheduleFile::from_json_str(&json).unwrap().rows[0].gpu_id,
                Some(1)
            );
            let both = format!("task,job,{alias},{key},start,finish\na,j,1,1,0,1\n");
            assert!(ScheduleFile::from_csv_str(&both).is_err());
        }
    }

    /// Issue 21's case (`worl::cluster::testing::four_gpu_among_singles`: a (2) → G (8, 4
    /// GPUs) → c (1), x (3) on two machines of 4 unit GPUs): HEFT puts a on g0 [0, 2], G on
    /// {g0, g1, g2, g3} [2.25, 4.25] (a's data over the 0.25 s intra-machine link), x on g4
    /// [0, 3], c on g0 [4.25, 5.25] (the hand computation of worl-sched's `tests/gangs.rs`).
    /// The rows list G's set lead first, the others have no `gpus` key, and the rows given
    /// back validate.
    #[test]
    fn heft_rows_list_a_gang_tasks_gpu_set_and_read_back() {
        let p = worl::cluster::testing::four_gpu_among_singles();
        let s = schedule(&p, &"heft".parse().unwrap(), 0, Budget::default()).unwrap();
        assert_eq!(s.schedule.makespan(), 5.25);
        let f = schedule_file(&p, &s).unwrap();
        let rows = schedule_rows(&f).unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[1]["task"], "G");
        assert_eq!(rows[1]["gpus"], serde_json::json!([0, 1, 2, 3]));
        assert_eq!(rows[1]["gpu_id"], 0);
        assert_eq!(
            (&rows[1]["start"], &rows[1]["finish"]),
            (&2.25.into(), &4.25.into())
        );
        for v in [0, 2, 3] {
            let keys: Vec<&str> = rows[v]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut want = SCHEDULE_ROW_KEYS[..9].to_vec();
            want.sort_unstable();
            assert_eq!(keys, want, "row {v}");
        }
        assert_eq!(rows[3]["gpu_id"], 4);
        // given back as rows (what `worl.validate(w, c, rows)` builds), and with a wrong set
        let back =
            ScheduleFile::from_json_str(&serde_json::json!({ "rows": rows }).to_string()).unwrap();
        assert_eq!(back.gpu_sets.get(&1), Some(&vec![0, 1, 2, 3]));
        assert_eq!(check_file(&p, &back).unwrap(), (vec![], 5.25));
        let mut short = rows.clone();
        short[1]["gpus"] = serde_json::json!([0, 1]);
        let back =
            ScheduleFile::from_json_str(&serde_json::json!({ "rows": short }).to_string()).unwrap();
        let (violations, _) = check_file(&p, &back).unwrap();
        assert!(
            violations.iter().any(|v| v.contains("j/G")),
            "{violations:?}"
        );
        // without gangs: no `gpus` key anywhere
        let plain = problem(
            Arc::new(diamond()),
            Arc::new(parse_cluster("2x1:V100-16GB:25GbE").unwrap()),
        )
        .unwrap();
        let s = schedule(&plain, &"heft".parse().unwrap(), 0, Budget::default()).unwrap();
        let rows = schedule_rows(&schedule_file(&plain, &s).unwrap()).unwrap();
        assert!(
            rows.as_array()
                .unwrap()
                .iter()
                .all(|r| r.get("gpus").is_none())
        );
        assert_eq!(
            rows,
            serde_json::to_value(&schedule_file(&plain, &s).unwrap().rows).unwrap()
        );
    }

    #[test]
    fn gang_params_take_the_span_by_name_and_leave_the_rest_to_the_builder() {
        let p = gang_params("node `t`", Some("Cluster"), Some(0.9), None, Some(10.0)).unwrap();
        assert_eq!(p.span, worl::dag::Span::Cluster);
        assert_eq!((p.efficiency, p.sync_bytes, p.sync_steps), (0.9, 0.0, 10.0));
        assert_eq!(
            gang_params("node `t`", None, None, None, None).unwrap(),
            worl::dag::GangParams::default()
        );
        let e = gang_params("node `t`", Some("ring"), None, None, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "node `t`: gang span `ring` is neither `machine` nor `cluster`"
        );
        // the builder checks the values, naming the task
        let mut b = WorkloadBuilder::new("w");
        let j = b.add_job("j").unwrap();
        let t = b.add_task(j, "t", 1.0, None).unwrap();
        let bad = gang_params("node `t`", None, Some(1.5), None, None).unwrap();
        let e = b.set_gang(t, 2, bad).unwrap_err().to_string();
        assert!(e.contains("j/t") && e.contains("efficiency"), "{e}");
    }
}
