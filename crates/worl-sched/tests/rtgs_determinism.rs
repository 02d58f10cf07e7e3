//! The metaheuristic schedulers (RTGS, plain WOA, PSO, GA): same seed, same schedule, with
//! and without parallel evaluation and on different thread counts; registry construction;
//! budgets and progress reports.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;
use worl_cluster::{Problem, Schedule, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sched::schedulers::rtgs::{GreedyDecoder, Lookahead, RtgsConfig, run_rtgs};
use worl_sched::schedulers::search::TaskOrder;
use worl_sched::{Budget, Options, Progress, Registry, RunContext, ScheduleError, Scheduler};

fn problem() -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(120), 4).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(12, 4).unwrap())).unwrap()
}

/// The four schedulers from the registry with small populations, sequential or parallel.
fn specs(parallel: bool) -> Vec<String> {
    [
        "rtgs:whales=12,iterations=15",
        "rtgs:whales=12,iterations=15,preset=paper,policy=insertion",
        "rtgs:whales=12,iterations=15,window=1,order=topological,hope=authors,policy=insertion",
        "woa:whales=12,iterations=15",
        "pso:particles=12,iterations=15",
        "ga:population=12,generations=15",
    ]
    .iter()
    .map(|s| format!("{s},parallel={parallel}"))
    .collect()
}

fn run(spec: &str, p: &Problem, seed: u64) -> Schedule {
    let mut s = Registry::with_builtins().build_spec(spec).unwrap();
    assert!(s.is_stochastic());
    let schedule = s.schedule(p, &mut RunContext::new(seed)).unwrap();
    assert!(schedule.validate(p).is_empty(), "{spec}");
    schedule
}

#[test]
fn same_seed_same_schedule_with_and_without_parallel_evaluation() {
    let p = problem();
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    for (seq, par) in specs(false).iter().zip(specs(true)) {
        let a = run(seq, &p, 7);
        assert_eq!(a, run(seq, &p, 7), "{seq}");
        assert_eq!(a, pool(1).install(|| run(&par, &p, 7)), "{par}");
        assert_eq!(a, pool(3).install(|| run(&par, &p, 7)), "{par}");
        let other = run(seq, &p, 8);
        assert_ne!(a, other, "{seq}: seeds 7 and 8 gave the same schedule");
    }
}

#[test]
fn registry_knows_the_metaheuristics_and_rejects_bad_options() {
    let r = Registry::with_builtins();
    for name in ["rtgs", "woa", "pso", "ga"] {
        assert!(r.names().any(|n| n == name), "{name}");
        assert!(r.description(name).is_some());
    }
    let names: Vec<String> = ["rtgs", "woa", "pso", "ga"]
        .iter()
        .map(|n| r.build(n, Options::new(*n)).unwrap().name().to_owned())
        .collect();
    assert_eq!(names, ["RTGS", "WOA", "PSO", "GA"]);
    for bad in [
        "rtgs:whales=0",
        "rtgs:lookahead=sideways",
        "rtgs:window=-1",
        "rtgs:window=nan",
        "rtgs:order=random",
        "rtgs:hope=sign",
        "rtgs:preset=published",
        "rtgs:a-schedule=exponential:0",
        "rtgs:b=inf",
        "rtgs:policy=random",
        "rtgs:speed=3",
        "woa:iterations=0",
        "pso:c1=9",
        "pso:vmax=0",
        "ga:population=1",
        "ga:elites=30",
        "ga:mutation=1.5",
    ] {
        let err = r
            .build_spec(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(
            matches!(
                err,
                ScheduleError::InvalidOption { .. } | ScheduleError::UnknownOption { .. }
            ),
            "{bad}: {err}"
        );
    }
    assert!(
        r.build_spec("rtgs:whales=5,iterations=3,b=0.5,a-schedule=cosine,seed-with-heft=true")
            .is_ok()
    );
    // A preset is the starting point; other options override it.
    let authors = RtgsConfig::from_options(Options::new("rtgs").with("preset", "authors"));
    assert_eq!(authors.unwrap(), RtgsConfig::paper());
    let mixed = RtgsConfig::from_options(
        Options::new("rtgs")
            .with("preset", "authors")
            .with("window", 3)
            .with("order", "rank"),
    )
    .unwrap();
    assert_eq!(
        mixed,
        RtgsConfig {
            window: 3.0,
            order: TaskOrder::UpwardRank,
            ..RtgsConfig::paper()
        }
    );
    assert_eq!(
        RtgsConfig::from_options(Options::new("rtgs")).unwrap(),
        RtgsConfig::default()
    );
}

/// Every scheduler reports step 0 (initial population) and one event per iteration with
/// non-increasing best makespans, and returns a schedule of the best makespan reported.
#[test]
fn progress_is_reported_once_per_iteration_and_matches_the_result() {
    let p = problem();
    for spec in specs(false) {
        let mut events: Vec<Progress> = Vec::new();
        let mut observer = |e: &Progress| {
            events.push(*e);
            ControlFlow::Continue(())
        };
        let mut s = Registry::with_builtins().build_spec(&spec).unwrap();
        let schedule = s
            .schedule(&p, &mut RunContext::new(3).with_observer(&mut observer))
            .unwrap();
        assert_eq!(events.len(), 16, "{spec}");
        for (k, e) in events.iter().enumerate() {
            assert_eq!(e.step, k as u64, "{spec}");
            assert_eq!(e.total_steps, 15, "{spec}");
        }
        for w in events.windows(2) {
            assert!(w[1].best_makespan <= w[0].best_makespan, "{spec}");
            assert!(w[1].evaluations >= w[0].evaluations, "{spec}");
        }
        assert_eq!(events[0].evaluations, 12, "{spec}");
        let last = events.last().unwrap();
        assert!(
            (schedule.makespan() - last.best_makespan).abs() <= 1e-9 * last.best_makespan,
            "{spec}: {} vs {}",
            schedule.makespan(),
            last.best_makespan
        );
    }
}

#[test]
fn evaluation_budget_caps_the_search_and_an_observer_can_stop_it() {
    let p = problem();
    for spec in specs(false) {
        let mut last = 0;
        let mut observer = |e: &Progress| {
            last = e.evaluations;
            ControlFlow::Continue(())
        };
        let budget = Budget {
            max_evaluations: Some(50),
            max_time: None,
        };
        let mut s = Registry::with_builtins().build_spec(&spec).unwrap();
        let mut ctx = RunContext::new(1)
            .with_budget(budget)
            .with_observer(&mut observer);
        let schedule = s.schedule(&p, &mut ctx).unwrap();
        assert!(schedule.validate(&p).is_empty());
        assert_eq!(last, 50, "{spec}");

        let mut steps = 0;
        let mut stop_after_two = |_: &Progress| {
            steps += 1;
            if steps == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut s = Registry::with_builtins().build_spec(&spec).unwrap();
        let schedule = s
            .schedule(
                &p,
                &mut RunContext::new(1).with_observer(&mut stop_after_two),
            )
            .unwrap();
        assert!(schedule.validate(&p).is_empty());
        assert_eq!(steps, 3, "{spec}");

        // A spent wall-time budget stops after the initial population.
        let budget = Budget {
            max_evaluations: None,
            max_time: Some(Duration::ZERO),
        };
        let mut s = Registry::with_builtins().build_spec(&spec).unwrap();
        let schedule = s
            .schedule(&p, &mut RunContext::new(1).with_budget(budget))
            .unwrap();
        assert!(schedule.validate(&p).is_empty());
    }
}

/// HEFT's plan in the initial population: the run can only end at or below it.
#[test]
fn seeding_with_heft_starts_from_hefts_plan() {
    let p = problem();
    let heft = worl_sched::schedulers::Heft::new()
        .schedule(&p, &mut RunContext::new(0))
        .unwrap();
    // RTGS places tasks in upward-rank order (its default): HEFT's GPUs, placed that way.
    let order = TaskOrder::UpwardRank.tasks(&p);
    let mut eval =
        worl_sched::schedulers::search::PlanEvaluator::new(&p, worl_cluster::Policy::Append)
            .with_order(&order);
    let seeded = eval.makespan(&heft.to_plan(&p).gpu);
    let config = RtgsConfig {
        whales: 10,
        iterations: 5,
        seed_with_heft: true,
        ..RtgsConfig::default()
    };
    let out = run_rtgs(
        &p,
        GreedyDecoder::new(&p, Lookahead::Target),
        &config,
        &mut RunContext::new(2),
    )
    .unwrap();
    assert!(out.result.history.iterations[0].best_fitness <= seeded);
    assert!(out.schedule.makespan() <= seeded);
    // Without the seed, the random initial population is far worse than HEFT's plan.
    let plain = run_rtgs(
        &p,
        GreedyDecoder::new(&p, Lookahead::Target),
        &RtgsConfig {
            seed_with_heft: false,
            ..config
        },
        &mut RunContext::new(2),
    )
    .unwrap();
    assert!(plain.result.history.iterations[0].best_fitness > seeded);
}

#[test]
fn an_evaluation_budget_below_the_population_is_the_same_error_for_every_search() {
    let p = problem();
    let mut specs = vec![
        "rtgs:whales=12",
        "woa:whales=12",
        "pso:particles=12",
        "ga:population=12",
    ];
    if cfg!(feature = "ddqn") {
        specs.push("worl-rtgs:whales=12");
    }
    for budget in [0, 5, 11] {
        let budget = Budget {
            max_evaluations: Some(budget),
            max_time: None,
        };
        for spec in &specs {
            let mut s = Registry::with_builtins().build_spec(spec).unwrap();
            let err = s
                .schedule(&p, &mut RunContext::new(0).with_budget(budget.clone()))
                .unwrap_err();
            match err {
                ScheduleError::BudgetBelowPopulation {
                    budget: b,
                    population: 12,
                    ..
                } => assert_eq!(Some(b), budget.max_evaluations, "{spec}"),
                e => panic!("{spec}: {e}"),
            }
        }
    }
    // A budget equal to the population is honoured exactly: the initial population only.
    for spec in &specs {
        let mut s = Registry::with_builtins().build_spec(spec).unwrap();
        let budget = Budget {
            max_evaluations: Some(12),
            max_time: None,
        };
        let mut evaluations = 0;
        let mut observer = |pr: &worl_sched::Progress| {
            evaluations = evaluations.max(pr.evaluations);
            std::ops::ControlFlow::Continue(())
        };
        let sched = s
            .schedule(
                &p,
                &mut RunContext::new(0)
                    .with_budget(budget)
                    .with_observer(&mut observer),
            )
            .unwrap();
        assert!(sched.validate(&p).is_empty(), "{spec}");
        assert!(evaluations <= 12, "{spec}: {evaluations} evaluations");
    }
}
