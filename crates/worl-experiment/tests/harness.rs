//! The experiment harness runs every problem × scheduler × seed, validates every schedule,
//! and is identical in parallel.

mod common;

use common::{Broken, Counter, Eft, Failing, OneGpu, RandomSearch, small_set};
use worl_experiment::ExperimentError;
use worl_experiment::{
    Experiment, GroupBy, KeepSchedules, NamedProblem, ProblemSet, RunRecord, SchedulerSpec,
};

fn cheap() -> Experiment {
    cheap_on(small_set())
}

fn cheap_on(set: ProblemSet) -> Experiment {
    Experiment::new(set)
        .scheduler(SchedulerSpec::factory("one-gpu", || Ok(Box::new(OneGpu))))
        .scheduler(SchedulerSpec::factory("eft", || Ok(Box::new(Eft))))
        .scheduler(SchedulerSpec::factory("random-search", || {
            Ok(Box::new(RandomSearch { iterations: 20 }))
        }))
        .seeds([1, 2, 3])
        .quiet(true)
}

#[test]
fn every_problem_scheduler_and_seed_is_recorded_with_hand_checked_makespans() {
    let results = cheap().run().unwrap();
    assert_eq!(results.schedulers(), ["one-gpu", "eft", "random-search"]);
    // per problem: one-gpu 1 run, eft 1 run (deterministic), random-search 3 seeds
    assert_eq!(results.records().len(), 2 * (1 + 1 + 3));
    let key: Vec<(&str, &str, u64)> = results
        .records()
        .iter()
        .map(|r| (r.problem.as_str(), r.scheduler.as_str(), r.seed))
        .collect();
    assert_eq!(
        key,
        [
            ("chain", "one-gpu", 1),
            ("chain", "eft", 1),
            ("chain", "random-search", 1),
            ("chain", "random-search", 2),
            ("chain", "random-search", 3),
            ("fork", "one-gpu", 1),
            ("fork", "eft", 1),
            ("fork", "random-search", 1),
            ("fork", "random-search", 2),
            ("fork", "random-search", 3),
        ]
    );
    let get = |p: &str, s: &str| -> &RunRecord { results.runs(p, s).next().unwrap() };
    // chain of 4 × 10 s on one GPU: 40 s; lower bound = critical path = 40
    for s in ["one-gpu", "eft"] {
        let r = get("chain", s);
        assert_eq!(
            (r.makespan, r.lower_bound, r.gap, r.slr),
            (40.0, 40.0, 1.0, 1.0),
            "{s}"
        );
    }
    // random search may split the chain over GPUs, paying 10 µs PCIe latency per hop
    for r in results.runs("chain", "random-search") {
        assert!(
            r.makespan >= 40.0 && r.makespan <= 40.0 + 3.0 * 10e-6,
            "{}",
            r.makespan
        );
    }
    // fork-join of width 4 (6 tasks, 60 s of work) on 3 GPUs: on one GPU 60 s; EFT puts the
    // 4 branches on 3 GPUs -> 10 + 20 + 10 = 40 s; lower bound max(CP 30, area 60/3 = 20)
    let one = get("fork", "one-gpu");
    assert_eq!(
        (one.makespan, one.lower_bound, one.tasks, one.gpus),
        (60.0, 30.0, 6, 3)
    );
    assert_eq!(one.utilisation, 60.0 / (3.0 * 60.0));
    assert_eq!((one.speedup, one.efficiency), (1.0, 1.0 / 3.0));
    assert_eq!(get("fork", "eft").makespan, 40.0);
    assert_eq!(get("fork", "eft").gap, 40.0 / 30.0);
    for r in results.records() {
        assert!(r.wall_time_s >= 0.0 && r.wall_time_s < 10.0);
        assert_eq!(
            r.tags["shape"],
            if r.problem == "chain" {
                "line"
            } else {
                "diamond"
            }
        );
        assert_eq!(r.stochastic, r.scheduler == "random-search");
        if r.scheduler == "random-search" {
            // one progress event per iteration, non-increasing, ending at the makespan
            assert_eq!(r.convergence.len(), 20);
            assert_eq!(r.evaluations, 20);
            assert!(
                r.convergence
                    .windows(2)
                    .all(|w| w[1].best_makespan <= w[0].best_makespan)
            );
            assert_eq!(r.convergence.last().unwrap().best_makespan, r.makespan);
        } else {
            assert!(r.convergence.is_empty());
            assert_eq!(r.evaluations, 0);
        }
    }
}

#[test]
fn parallel_runs_equal_sequential_runs_except_wall_time() {
    let strip = |rs: &[RunRecord]| -> Vec<RunRecord> {
        rs.iter()
            .cloned()
            .map(|mut r| {
                r.clear_timings();
                r
            })
            .collect()
    };
    let seq = cheap().run().unwrap();
    let par = cheap().parallel(true).run().unwrap();
    assert_eq!(strip(seq.records()), strip(par.records()));
    // and the same seed gives the same random search
    let again = cheap().run().unwrap();
    assert_eq!(strip(seq.records()), strip(again.records()));
    let fork: Vec<f64> = seq
        .runs("fork", "random-search")
        .map(|r| r.makespan)
        .collect();
    assert_eq!(fork.len(), 3);
}

#[test]
fn fresh_schedulers_per_run_unless_reused() {
    let run = |reuse: bool, parallel: bool| {
        Experiment::new(small_set())
            .scheduler(
                SchedulerSpec::factory("counter", || Ok(Box::new(Counter { calls: 0 })))
                    .reuse(reuse),
            )
            .scheduler(SchedulerSpec::factory("eft", || Ok(Box::new(Eft))))
            .seeds([5, 6])
            .parallel(parallel)
            .quiet(true)
            .run()
            .unwrap()
            .records()
            .iter()
            .filter(|r| r.scheduler == "counter")
            .map(|r| r.convergence[0].step)
            .collect::<Vec<u64>>()
    };
    assert_eq!(run(false, false), [1, 1, 1, 1]);
    assert_eq!(run(true, false), [1, 2, 3, 4]);
    assert_eq!(run(true, true), [1, 2, 3, 4]);
}

#[test]
fn an_invalid_schedule_fails_the_experiment_naming_scheduler_problem_seed_and_violation() {
    for parallel in [false, true] {
        let err = Experiment::new(small_set())
            .scheduler(SchedulerSpec::factory("eft", || Ok(Box::new(Eft))))
            .scheduler(SchedulerSpec::factory("broken", || Ok(Box::new(Broken))))
            .seeds([42])
            .parallel(parallel)
            .quiet(true)
            .run()
            .unwrap_err();
        match &err {
            ExperimentError::InvalidSchedule {
                scheduler,
                problem,
                seed,
                violations,
                first,
            } => {
                assert_eq!(
                    (scheduler.as_str(), problem.as_str(), *seed),
                    ("broken", "chain", 42)
                );
                assert!(*violations >= 3, "{violations}");
                assert!(!first.is_empty());
            }
            e => panic!("expected InvalidSchedule, got {e}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains("`broken`") && msg.contains("`chain`") && msg.contains("seed 42"),
            "{msg}"
        );
    }
}

#[test]
fn scheduler_errors_bad_specs_and_duplicates_are_errors() {
    // a registry spec that does not exist
    let e = Experiment::new(small_set())
        .scheduler("no-such-scheduler")
        .quiet(true)
        .run()
        .unwrap_err();
    assert!(
        matches!(e, ExperimentError::Spec { ref spec, .. } if spec == "no-such-scheduler"),
        "{e}"
    );
    // two schedulers with one label
    let e = Experiment::new(small_set())
        .scheduler(SchedulerSpec::factory("x", || Ok(Box::new(Eft))))
        .scheduler(SchedulerSpec::factory("x", || Ok(Box::new(OneGpu))))
        .run()
        .unwrap_err();
    assert!(matches!(e, ExperimentError::Duplicate { what: "scheduler", ref name } if name == "x"));
    // a duplicate problem name
    let mut set = small_set();
    let dup = set.get("chain").unwrap().clone();
    assert!(matches!(
        set.push(dup),
        Err(ExperimentError::Duplicate {
            what: "problem",
            ..
        })
    ));
    // nothing to run
    assert!(matches!(
        Experiment::new(small_set()).run(),
        Err(ExperimentError::Missing {
            missing: "scheduler",
            ..
        })
    ));
    assert!(matches!(
        cheap().seeds([]).run(),
        Err(ExperimentError::Missing {
            missing: "seed",
            ..
        })
    ));
    // a scheduler that returns an error: wrapped with scheduler, problem and seed
    let e = Experiment::new(small_set())
        .scheduler(SchedulerSpec::factory("failing", || Ok(Box::new(Failing))))
        .seeds([9])
        .quiet(true)
        .run()
        .unwrap_err();
    match e {
        ExperimentError::RunFailed {
            scheduler,
            problem,
            seed,
            ..
        } => {
            assert_eq!(
                (scheduler.as_str(), problem.as_str(), seed),
                ("failing", "chain", 9)
            );
        }
        e => panic!("expected Scheduler, got {e}"),
    }
    // a factory that cannot build
    let e = Experiment::new(small_set())
        .scheduler(SchedulerSpec::factory("bad-factory", || {
            Err(worl_sched::ScheduleError::InvalidSpec {
                spec: "x".into(),
                reason: "test".into(),
            })
        }))
        .run()
        .unwrap_err();
    assert!(matches!(e, ExperimentError::Spec { .. }), "{e}");
}

#[test]
fn per_problem_seeds_and_kept_schedules() {
    let mut set = small_set();
    let chain = set.get("chain").unwrap().problem.clone();
    set.push(
        NamedProblem::new("chain-again", (*chain).clone())
            .tag("shape", "line")
            .with_seeds([7, 8]),
    )
    .unwrap();
    let results = cheap_on(set.clone())
        .keep_schedules(KeepSchedules::BestPerProblem)
        .run()
        .unwrap();
    let seeds: Vec<u64> = results
        .runs("chain-again", "random-search")
        .map(|r| r.seed)
        .collect();
    assert_eq!(seeds, [7, 8]);
    assert_eq!(results.runs("chain", "random-search").count(), 3);
    for p in results.problems() {
        let (rec, sched) = results.best_schedule(p).unwrap();
        let min = results
            .records()
            .iter()
            .filter(|r| r.problem == p)
            .map(|r| r.makespan)
            .fold(f64::INFINITY, f64::min);
        assert_eq!((rec.makespan, sched.makespan()), (min, min));
    }
    // exactly one schedule kept per problem
    let kept = (0..results.records().len())
        .filter(|&i| results.schedule(i).is_some())
        .count();
    assert_eq!(kept, 3);
    let all = cheap_on(set)
        .keep_schedules(KeepSchedules::All)
        .run()
        .unwrap();
    assert!((0..all.records().len()).all(|i| all.schedule(i).is_some()));
    let none = cheap().run().unwrap();
    assert!(none.schedule(0).is_none());
    // summary grouping by tag puts both chains in one group
    let groups: Vec<String> = results
        .summaries(&GroupBy::tag("shape"))
        .into_iter()
        .map(|s| s.group)
        .collect();
    assert_eq!(
        groups,
        ["line", "line", "line", "diamond", "diamond", "diamond"]
    );
    let line = &results.summaries(&GroupBy::tag("shape"))[2];
    assert_eq!(
        (line.scheduler.as_str(), line.problems, line.runs),
        ("random-search", 2, 5)
    );
}

#[test]
fn registry_schedulers_run_through_the_harness() {
    // whatever the registry holds, each deterministic one runs once per problem, the
    // others once per seed, and every schedule is valid (the harness checks)
    let registry = worl_sched::Registry::with_builtins();
    let names: Vec<String> = registry.names().map(str::to_owned).collect();
    if names.is_empty() {
        eprintln!("note: no registered scheduler yet; skipping");
        return;
    }
    let cheap_names: Vec<&String> = names
        .iter()
        .filter(|n| ["heft", "round-robin", "random"].contains(&n.as_str()))
        .collect();
    if cheap_names.is_empty() {
        return;
    }
    let results = Experiment::new(small_set())
        .schedulers(cheap_names.iter().map(|n| n.as_str()))
        .seeds([1, 2])
        .quiet(true)
        .run()
        .unwrap();
    assert!(results.records().iter().all(|r| r.gap >= 1.0 - 1e-12));
}
