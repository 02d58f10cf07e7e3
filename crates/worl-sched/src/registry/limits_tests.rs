//! Budgets and option limits of every search, through the registry as a user reaches them.

use crate::error::ScheduleError;
use crate::{Budget, Progress, Registry, RunContext};
use std::ops::ControlFlow;
use std::sync::Arc;
use worl_cluster::{GpuModel, Problem, presets};
use worl_dag::generators::shapes;

/// A chain on identical GPUs without data: every plan has the same makespan, so every
/// whale ties with the leader (the case where an elitist search moved no whale and spent
/// no evaluation, iteration after iteration).
fn all_plans_tie() -> Problem {
    let w = Arc::new(shapes::chain(6, 10.0, 0.0).unwrap());
    Problem::new(
        w,
        Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).unwrap()),
    )
    .unwrap()
}

/// A fork-join on a mixed cluster: plans differ.
fn plans_differ() -> Problem {
    let w = Arc::new(shapes::fork_join(8, 10.0, 1.0e6).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(6, 1).unwrap())).unwrap()
}

/// Runs `spec` with an evaluation budget: (progress events, last reported evaluations).
fn run_with_budget(spec: &str, problem: &Problem, evaluations: u64) -> (u64, u64) {
    let mut sched = Registry::with_builtins().build_spec(spec).unwrap();
    let (mut events, mut last) = (0u64, 0u64);
    let mut observer = |p: &Progress| {
        events += 1;
        last = p.evaluations;
        ControlFlow::Continue(())
    };
    let mut ctx = RunContext::new(3)
        .with_budget(Budget::evaluations(evaluations))
        .with_observer(&mut observer);
    let s = sched.schedule(problem, &mut ctx).unwrap();
    assert!(s.validate(problem).is_empty(), "{spec}");
    (events, last)
}

#[test]
fn evaluation_budget_caps_rtgs_iterations() {
    // a million iterations asked, 200 evaluations allowed: the run stops at once when no
    // whale can move (was: a million empty iterations, ~100 MB of history)
    let (events, evals) = run_with_budget("rtgs[iterations=1000000]", &all_plans_tie(), 200);
    assert!(evals <= 200, "{evals}");
    assert!(events < 20, "{events} progress events");
    let (events, evals) = run_with_budget("rtgs[iterations=1000000]", &plans_differ(), 200);
    assert!(evals <= 200, "{evals}");
    assert!(events <= 200, "{events}");
}

#[test]
fn evaluation_budget_caps_every_search() {
    for spec in [
        "rtgs[iterations=1000000]",
        "rtgs[iterations=1000000,replacement=canonical]",
        "rtgs[preset=paper,iterations=1000000]",
        "woa[iterations=1000000]",
        "pso[iterations=1000000]",
        "ga[generations=1000000]",
        "ils[steps=1000000000]",
        "exact[nodes=1000000000]",
    ] {
        for problem in [all_plans_tie(), plans_differ()] {
            let (events, evals) = run_with_budget(spec, &problem, 300);
            assert!(evals <= 300, "{spec}: {evals} evaluations");
            assert!(events <= 302, "{spec}: {events} progress events");
        }
    }
    // a budget-capped exact search stops after that many nodes without a proof
    let exact = crate::schedulers::Exact::new();
    let p = Problem::new(
        Arc::new(shapes::fork_join(9, 10.0, 1.0e6).unwrap()),
        Arc::new(presets::pai_mix(4, 2).unwrap()),
    )
    .unwrap();
    let mut ctx = RunContext::new(0).with_budget(Budget::evaluations(50));
    let out = exact.solve(&p, &mut ctx).unwrap();
    assert!(out.nodes <= 50, "{}", out.nodes);
}

/// The key of an [`ScheduleError::InvalidOption`], or a panic.
fn invalid_key(spec: &str) -> String {
    match Registry::with_builtins().build_spec(spec) {
        Err(ScheduleError::InvalidOption { key, .. }) => key,
        Err(e) => panic!("{spec}: {e}"),
        Ok(_) => panic!("{spec}: accepted"),
    }
}

#[test]
fn huge_nan_and_overflowing_option_values_are_typed_errors_naming_the_option() {
    for (spec, key) in [
        ("rtgs[iterations=18446744073709551616]", "iterations"),
        ("rtgs[iterations=10000000]", "iterations"),
        ("rtgs[whales=100000000]", "whales"),
        ("rtgs[whales=1e400]", "whales"),
        ("rtgs[b=1e400]", "b"),
        ("rtgs[b=NaN]", "b"),
        ("rtgs[window=NaN]", "window"),
        ("rtgs[window=inf]", "window"),
        ("rtgs[evaluations=18446744073709551616]", "evaluations"),
        ("rtgs[time=1e400]", "time"),
        ("rtgs[time=NaN]", "time"),
        ("woa[iterations=99999999999999999999999]", "iterations"),
        ("pso[particles=1000000]", "particles"),
        ("pso[w-start=NaN]", "w-start"),
        ("pso[vmax=NaN]", "vmax"),
        ("ga[generations=1e9]", "generations"),
        ("ga[population=4294967296]", "population"),
        ("ga[mutation=NaN]", "mutation"),
        ("ils[kick=10000000000]", "kick"),
        ("ils[restart=NaN]", "restart"),
        ("exact[nodes=-1]", "nodes"),
        ("exact[nodes=1e400]", "nodes"),
        ("cpop[tolerance=NaN]", "tolerance"),
        ("cpop[tolerance=1e400]", "tolerance"),
    ] {
        assert_eq!(invalid_key(spec), key, "{spec}");
    }
    let e = Registry::with_builtins()
        .build_spec("rtgs[iterations=10000000]")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("at most 1000000"), "{e}");
}

#[cfg(feature = "ddqn")]
#[test]
fn network_sizes_are_bounded_at_parse_time() {
    for (spec, key) in [
        ("dqn[hidden=100000000]", "hidden"),
        ("dqn[hidden=64-64-64-64-64-64-64-64-64]", "hidden"),
        ("dqn[hidden=4096-4096,batch=4096]", "hidden"),
        ("dqn[batch=100000]", "batch"),
        ("dqn[episodes=100000000]", "episodes"),
        ("mdts[hidden=18446744073709551616]", "hidden"),
        ("worl-rtgs[hidden=100000]", "hidden"),
        ("worl-rtgs[burst=100000000]", "burst"),
        ("worl-rtgs[whales=1000000]", "whales"),
        ("worl-rtgs[learning-rate=NaN]", "learning-rate"),
        ("dqn[gamma=NaN]", "gamma"),
        ("dqn[epsilon-start=NaN]", "epsilon-start"),
        ("worl-rtgs[hope-weight=1e400]", "hope-weight"),
    ] {
        assert_eq!(invalid_key(spec), key, "{spec}");
    }
    let e = Registry::with_builtins()
        .build_spec("dqn[hidden=100000000]")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("4096"), "{e}");
    assert!(
        Registry::with_builtins()
            .build_spec("dqn[hidden=256-256,batch=256]")
            .is_ok()
    );
}
