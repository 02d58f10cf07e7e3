//! Simulation studies on many machines: `SimStudy::shard(k, n).run_into(file)` for every
//! shard, then `simulation::merge`, equals one `SimStudy::run` (same runs in canonical
//! order, same numbers but decision latencies); resumption redoes a killed run; files of
//! other grids, or of an experiment, are refused naming the files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use worl_cluster::{GpuModel, Problem, presets};
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::shapes;
use worl_experiment::simulation::{self, SimLine, SimOutcome, SimStudy};
use worl_experiment::{Experiment, ExperimentError, NamedProblem, ProblemSet, shard};
use worl_sched::Budget;
use worl_sim::arrivals::Arrivals;
use worl_sim::spec::PolicySpec;
use worl_sim::{Contention, Failures, RuntimeNoise, SimConfig, SimMetrics};

/// Two multi-job workloads (4 and 5 jobs of 2..6 tasks) on a 3-GPU V100 cluster.
fn problems() -> ProblemSet {
    let cluster = Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).unwrap());
    let mut set = ProblemSet::new();
    for (jobs, seed) in [(4, 7), (5, 8)] {
        let w = alibaba_like(&AlibabaLikeParams::new(jobs).task_range(2, 6), seed).unwrap();
        let p = Problem::new(Arc::new(w), cluster.clone()).unwrap();
        set.push(NamedProblem::new(format!("ali-{jobs}"), p))
            .unwrap();
    }
    set
}

fn config(cv: f64) -> SimConfig {
    SimConfig {
        noise: RuntimeNoise::LogNormal { cv },
        contention: Contention::Fair,
        failures: "mtbf:0.05:30".parse::<Failures>().unwrap(),
        record_events: false,
        charge_decision_time: false,
    }
}

/// 2 problems x 2 seeds x 3 policies = 12 runs, with noise, contention, failures and
/// Poisson arrivals (so every seed draws differently).
fn study() -> SimStudy {
    SimStudy::new(
        problems(),
        PolicySpec::parse_list("plan:heft,eft,round-robin").unwrap(),
    )
    .seeds([3, 11])
    .config(config(0.3))
    .arrivals(Arrivals::Poisson {
        rate_per_hour: 1800.0,
    })
    .quiet(true)
}

/// Runs of `a` and `b` equal: same identity and order, records equal bit for bit but
/// `wall_time_s`, measures equal but decision latencies, same plan and JCTs.
fn same(a: &SimOutcome, b: &SimOutcome) {
    assert_eq!(a.runs.len(), b.runs.len());
    for (x, y) in a.runs.iter().zip(&b.runs) {
        assert_eq!(
            (&x.problem, &x.policy, x.seed),
            (&y.problem, &y.policy, y.seed)
        );
        let mut r = x.record.clone();
        r.wall_time_s = y.record.wall_time_s;
        assert_eq!(r, y.record);
        let (mut mx, my) = (x.metrics, y.metrics);
        mx.decision_latency_p50 = my.decision_latency_p50;
        mx.decision_latency_p99 = my.decision_latency_p99;
        assert_eq!(mx, my);
        assert_eq!(x.planned_makespan, y.planned_makespan);
        assert_eq!(x.jcts, y.jcts);
    }
}

fn shard_files(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n).map(|k| dir.join(format!("sim-{k}.jsonl"))).collect()
}

#[test]
fn three_shards_merge_to_the_single_run() {
    let s = study();
    let single = s.run(&mut |_, _, _, _| {}).unwrap();
    assert_eq!(single.runs.len(), 12);
    // canonical order: problems, then seeds, then policies
    let order: Vec<(&str, u64, &str)> = single
        .runs
        .iter()
        .map(|r| (r.problem.as_str(), r.seed, r.policy.as_str()))
        .collect();
    assert_eq!(order[0], ("ali-4", 3, "plan:heft"));
    assert_eq!(order[2], ("ali-4", 3, "round-robin"));
    assert_eq!(order[3], ("ali-4", 11, "plan:heft"));
    assert_eq!(order[6], ("ali-5", 3, "plan:heft"));
    // JCTs kept for first seeds only, one per job
    assert_eq!(single.runs[0].jcts.as_ref().map(Vec::len), Some(4));
    assert_eq!(single.runs[3].jcts, None);
    assert_eq!(single.runs[6].jcts.as_ref().map(Vec::len), Some(5));
    // the seeds draw differently (arrivals, noise): a merge mixing them up would show
    assert_ne!(
        single.runs[0].metrics.makespan,
        single.runs[3].metrics.makespan
    );

    let dir = tempfile::tempdir().unwrap();
    let files = shard_files(dir.path(), 3);
    for (k, f) in files.iter().enumerate() {
        let sh = s.shard(k, 3).unwrap();
        let ids: Vec<usize> = sh.runs().iter().map(|r| r.index).collect();
        assert_eq!(ids, vec![k, k + 3, k + 6, k + 9]);
        let r = sh.run_into(f).unwrap();
        assert_eq!(
            (r.runs, r.skipped, r.ran, r.cut_partial_line),
            (4, 0, 4, false)
        );
        assert_eq!(shard::read_lines(f).unwrap().len(), 4);
    }
    // files in any order
    let rev: Vec<&PathBuf> = files.iter().rev().collect();
    let merged = simulation::merge(&rev).unwrap();
    same(&merged, &single);
    assert!(merged.kept.is_empty());
    // the same tables (decision latencies aside: both runs' are 0 ms at 3 decimals or not,
    // so compare the realised makespan column only) and the same harness results
    assert_eq!(merged.policies(), single.policies());
    assert_eq!(merged.results().schedulers(), single.results().schedulers());
    // merge_any sees a simulation study
    assert!(matches!(
        shard::merge_any(&files).unwrap(),
        shard::Merged::Simulation(o) if o.runs.len() == 12
    ));
    // resuming a finished shard runs nothing
    assert_eq!(s.shard(1, 3).unwrap().run_into(&files[1]).unwrap().ran, 0);
    // and a whole resumable run in one file
    let one = dir.path().join("all.jsonl");
    same(&s.run_resumable(&one).unwrap(), &single);
}

#[test]
fn a_truncated_last_line_is_redone_on_resume() {
    let s = study();
    let single = s.run(&mut |_, _, _, _| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = shard_files(dir.path(), 3);
    for (k, f) in files.iter().enumerate() {
        s.shard(k, 3).unwrap().run_into(f).unwrap();
    }
    // a killed writer: shard 2's last line (run 11) cut in half
    let text = std::fs::read_to_string(&files[2]).unwrap();
    let last = text.lines().last().unwrap();
    let keep = text.len() - last.len() / 2 - 1;
    std::fs::write(&files[2], &text[..keep]).unwrap();
    let e = simulation::merge(&files).unwrap_err().to_string();
    assert!(
        e.contains("1 of 12 runs missing; the first is run 12 of 12 (index 11), of shard 2/3"),
        "{e}"
    );
    let r = s.shard(2, 3).unwrap().run_into(&files[2]).unwrap();
    assert_eq!((r.skipped, r.ran, r.cut_partial_line), (3, 1, true));
    same(&simulation::merge(&files).unwrap(), &single);
    // the redone line is the same run: the file is whole lines again
    assert_eq!(shard::read_lines(&files[2]).unwrap().len(), 4);
}

#[test]
fn other_grids_and_experiment_shards_are_refused_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    study().shard(0, 2).unwrap().run_into(&a).unwrap();
    // another noise level: another grid
    let other = study().config(config(0.31));
    other.shard(1, 2).unwrap().run_into(&b).unwrap();
    let e = simulation::merge(&[&a, &b]).unwrap_err();
    assert!(
        matches!(e, ExperimentError::ResultsLine { line: 1, .. }),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("b.jsonl:1: a run of grid") && e.contains("a.jsonl holds grid"),
        "{e}"
    );
    assert!(e.contains("shards of different simulation studies"), "{e}");
    // appending another grid's runs to a file is refused
    let e = other
        .shard(0, 2)
        .unwrap()
        .run_into(&a)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a.jsonl:1: a run of another grid (a simulation study"),
        "{e}"
    );

    // an experiment's shard
    let cluster = Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb()).unwrap());
    let mut set = ProblemSet::new();
    let w = Arc::new(shapes::fork_join(3, 10.0, 0.0).unwrap());
    set.push(NamedProblem::new("fj", Problem::new(w, cluster).unwrap()))
        .unwrap();
    let x = dir.path().join("x.jsonl");
    Experiment::new(set)
        .schedulers(["heft"])
        .quiet(true)
        .shard(0, 1)
        .unwrap()
        .run_into(&x)
        .unwrap();
    let e = shard::merge_any(&[&a, &x]).unwrap_err();
    assert!(
        matches!(e, ExperimentError::ResultsLine { line: 1, .. }),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("x.jsonl:1: a run of an experiment, but ")
            && e.contains("a.jsonl holds runs of a simulation study"),
        "{e}"
    );
    let e = shard::merge_any(&[&x, &a]).unwrap_err().to_string();
    assert!(
        e.contains("a.jsonl:1: a run of a simulation study, but ")
            && e.contains("x.jsonl holds runs of an experiment"),
        "{e}"
    );
    // each kind's own merge refuses the other kind
    let e = shard::merge(&[&a]).unwrap_err().to_string();
    assert!(
        e.contains("a.jsonl:1: a run of a simulation study, not of an experiment"),
        "{e}"
    );
    let e = simulation::merge(&[&x]).unwrap_err().to_string();
    assert!(
        e.contains("x.jsonl:1: a run of an experiment, not of a simulation study"),
        "{e}"
    );
    // and the experiment's file still merges as before
    assert!(
        matches!(shard::merge_any(&[&x]).unwrap(), shard::Merged::Experiment(r) if r.records().len() == 1)
    );
}

#[test]
fn bad_shards_and_ambiguous_grids_are_refused() {
    let s = study();
    for (k, n) in [(3, 3), (0, 0), (5, 2)] {
        let e = s.shard(k, n).unwrap_err().to_string();
        assert!(
            e.contains(&format!("shard {k}/{n}: need 0 <= K < N")),
            "{e}"
        );
    }
    let twice = SimStudy::new(problems(), PolicySpec::parse_list("eft,eft").unwrap());
    assert!(
        twice
            .shard(0, 1)
            .unwrap_err()
            .to_string()
            .contains("policy `eft` twice")
    );
    let seeds = study().seeds([2, 2]);
    assert!(
        seeds
            .shard(0, 1)
            .unwrap_err()
            .to_string()
            .contains("seed 2 twice")
    );
    let empty = SimStudy::new(problems(), Vec::new());
    assert!(matches!(
        empty.shard(0, 1),
        Err(ExperimentError::Missing { missing, .. }) if missing.starts_with("problem, policy or seed")
    ));
}

#[test]
fn the_fingerprint_covers_every_setting_that_decides_results() {
    let base = study().shard(0, 1).unwrap().grid();
    assert_eq!(base.len(), 16);
    assert_eq!(
        study().shard(1, 2).unwrap().grid(),
        base,
        "one grid for all shards"
    );
    let mut charged = config(0.3);
    charged.charge_decision_time = true;
    let mut no_contention = config(0.3);
    no_contention.contention = Contention::None;
    let mut other_failures = config(0.3);
    other_failures.failures = "mtbf:0.05:31".parse().unwrap();
    let mut events = config(0.3);
    events.record_events = true;
    let variants: Vec<(&str, SimStudy)> = vec![
        ("noise", study().config(config(0.2))),
        ("contention", study().config(no_contention)),
        ("failures", study().config(other_failures)),
        ("charge", study().config(charged)),
        ("arrivals", study().arrivals(Arrivals::Batch)),
        (
            "policies",
            SimStudy::new(problems(), PolicySpec::parse_list("plan:heft,eft").unwrap())
                .seeds([3, 11])
                .config(config(0.3))
                .arrivals(Arrivals::Poisson {
                    rate_per_hour: 1800.0,
                }),
        ),
        ("seeds", study().seeds([3, 12])),
        (
            "budget",
            study().budget(Budget {
                max_evaluations: Some(10),
                max_time: None,
            }),
        ),
        (
            "problems",
            SimStudy::new(
                {
                    let mut p = problems();
                    let cluster =
                        Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).unwrap());
                    let w = alibaba_like(&AlibabaLikeParams::new(2), 1).unwrap();
                    p.push(NamedProblem::new(
                        "x",
                        Problem::new(Arc::new(w), cluster).unwrap(),
                    ))
                    .unwrap();
                    p
                },
                PolicySpec::parse_list("plan:heft,eft,round-robin").unwrap(),
            )
            .seeds([3, 11])
            .config(config(0.3))
            .arrivals(Arrivals::Poisson {
                rate_per_hour: 1800.0,
            }),
        ),
    ];
    let mut seen = std::collections::HashSet::from([base.clone()]);
    for (what, v) in &variants {
        assert!(
            seen.insert(v.shard(0, 1).unwrap().grid()),
            "{what} not in the fingerprint"
        );
    }
    // the event log decides no number: same grid
    let same_grid = study().config(events).shard(0, 1).unwrap().grid();
    assert_eq!(same_grid, base);
}

#[test]
fn sim_lines_round_trip_non_finite_measures_bit_for_bit() {
    let mut m = SimMetrics {
        makespan: 0.1 + 0.2,
        mean_jct: f64::NAN,
        p99_jct: f64::INFINITY,
        mean_wait: f64::NEG_INFINITY,
        bytes_moved: 1e300,
        ..SimMetrics::default()
    };
    m.replans = 3.0;
    let line = SimLine {
        planned_makespan: Some(1.0 / 3.0),
        metrics: m,
        jcts: Some(vec![2.5, 1e-17]),
    };
    let text = serde_json::to_string(&line).unwrap();
    assert!(
        text.contains("\"mean_jct\":\"NaN\"") && text.contains("\"p99_jct\":\"inf\""),
        "{text}"
    );
    let back: SimLine = serde_json::from_str(&text).unwrap();
    for (a, b) in back.metrics.values().iter().zip(m.values()) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
    assert_eq!(
        (back.planned_makespan, &back.jcts),
        (line.planned_makespan, &line.jcts)
    );
    // a measure missing, or one unknown, is refused by name
    let e = serde_json::from_str::<SimLine>(&text.replace("\"replans\"", "\"replanz\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no number `replans`"), "{e}");
}

#[test]
fn a_run_twice_counts_once_unless_its_measures_differ() {
    let s = study();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    s.shard(0, 1).unwrap().run_into(&a).unwrap();
    let (_, first) = shard::read_lines(&a).unwrap().remove(0);
    // the same run again with other decision latencies (wall-clock times): one run
    let mut again = first.clone();
    again.record.wall_time_s += 1.0;
    let sim = again.sim.as_mut().unwrap();
    sim.metrics.decision_latency_p50 += 1.0;
    sim.metrics.decision_latency_p99 += 2.0;
    let b = dir.path().join("b.jsonl");
    std::fs::write(&b, format!("{}\n", serde_json::to_string(&again).unwrap())).unwrap();
    assert_eq!(simulation::merge(&[&a, &b]).unwrap().runs.len(), 12);
    // another mean JCT: refused, naming both lines and the measure
    let mut other = first.clone();
    other.sim.as_mut().unwrap().metrics.mean_jct += 0.5;
    std::fs::write(&b, format!("{}\n", serde_json::to_string(&other).unwrap())).unwrap();
    let e = simulation::merge(&[&a, &b]).unwrap_err().to_string();
    assert!(
        e.contains("b.jsonl:1 and ")
            && e.contains("a.jsonl:1: two different records of run 1 (index 0;"),
        "{e}"
    );
    assert!(e.contains("`sim.mean_jct`"), "{e}");
    // other job completion times: refused, naming the field without printing the lists
    let mut other = first;
    other.sim.as_mut().unwrap().jcts.as_mut().unwrap()[0] += 1.0;
    std::fs::write(&b, format!("{}\n", serde_json::to_string(&other).unwrap())).unwrap();
    let e = simulation::merge(&[&a, &b]).unwrap_err().to_string();
    assert!(e.contains("`sim.jcts` differs"), "{e}");
}

/// A study of two fork-joins (4 and 6 branches, task work `work` s) on 3 GPUs of `model`.
fn study_on(model: &GpuModel, work: f64) -> SimStudy {
    let cluster = Arc::new(presets::homogeneous(3, model).unwrap());
    let mut set = ProblemSet::new();
    for n in [4, 6] {
        let w = Arc::new(shapes::fork_join(n, work, 1e6).unwrap());
        set.push(NamedProblem::new(
            format!("fj-{n}"),
            Problem::new(w, cluster.clone()).unwrap(),
        ))
        .unwrap();
    }
    SimStudy::new(set, PolicySpec::parse_list("plan:heft,eft").unwrap())
        .seeds([3, 11])
        .config(config(0.3))
        .quiet(true)
}

#[test]
fn the_grid_covers_the_cluster_and_the_tasks_work() {
    let grid = |s: &SimStudy| s.shard(0, 1).unwrap().grid();
    let base = grid(&study_on(&GpuModel::v100_16gb(), 4.0));
    // the same content built twice: the same grid
    assert_eq!(grid(&study_on(&GpuModel::v100_16gb(), 4.0)), base);
    // another cluster of the same size, another task work: another grid
    assert_ne!(grid(&study_on(&GpuModel::a100_80gb(), 4.0)), base);
    assert_ne!(grid(&study_on(&GpuModel::v100_16gb(), 400.0)), base);
    // so a results file of the old cluster does not resume into the new one
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.jsonl");
    study_on(&GpuModel::a100_80gb(), 4.0)
        .shard(0, 1)
        .unwrap()
        .run_into(&f)
        .unwrap();
    let e = study_on(&GpuModel::v100_16gb(), 4.0)
        .shard(0, 1)
        .unwrap()
        .run_into(&f)
        .unwrap_err()
        .to_string();
    assert!(e.contains("r.jsonl:1: a run of another grid"), "{e}");
}

#[test]
fn bad_policy_options_are_refused_before_any_run() {
    let policies = PolicySpec::parse_list("plan:heft,replan:ils[foo=1]").unwrap();
    let s = SimStudy::new(problems(), policies).quiet(true);
    let mut started = 0;
    let e = s.run(&mut |_, _, _, _| started += 1).unwrap_err();
    assert_eq!(started, 0, "no run started");
    assert!(
        matches!(&e, ExperimentError::Spec { spec, .. } if spec == "replan:ils[foo=1]"),
        "{e}"
    );
    assert!(e.to_string().contains("foo"), "{e}");
    // a shard refuses them before touching its file
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.jsonl");
    assert!(s.shard(0, 2).is_err());
    assert!(!f.exists());
    let unknown = SimStudy::new(problems(), PolicySpec::parse_list("eft,plan:nope").unwrap());
    let e = unknown.quiet(true).run_resumable(&f).unwrap_err();
    assert!(
        matches!(&e, ExperimentError::Spec { spec, .. } if spec == "plan:nope"),
        "{e}"
    );
    assert!(!f.exists());
}

#[test]
fn a_relabelled_sim_line_is_refused_by_merge() {
    let s = study();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.jsonl");
    s.shard(0, 1).unwrap().run_into(&f).unwrap();
    // index 1 is ali-4 · seed 3 · eft; make it claim round-robin (index 2's label)
    let text = std::fs::read_to_string(&f).unwrap();
    let edited: String = text
        .lines()
        .map(|l| {
            let mut x: shard::ShardLine = serde_json::from_str(l).unwrap();
            if x.index == 1 {
                x.record.scheduler = "round-robin".into();
            }
            format!("{}\n", serde_json::to_string(&x).unwrap())
        })
        .collect();
    std::fs::write(&f, edited).unwrap();
    let e = simulation::merge(&[&f]).unwrap_err().to_string();
    assert!(e.contains("does not fit the grid's canonical order"), "{e}");
    assert!(
        e.contains("(run index 2: ali-4 · round-robin · seed 3)"),
        "{e}"
    );
    let e = s.shard(0, 1).unwrap().run_into(&f).unwrap_err().to_string();
    assert!(
        e.contains(":2: run index 1 is ali-4 · eft · seed 3 in the grid's canonical order, but the line says ali-4 · round-robin · seed 3"),
        "{e}"
    );
}
