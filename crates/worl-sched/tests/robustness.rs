//! Robustness of RTGS, WORL-RTGS and the plan-based searches on degenerate inputs: extreme
//! works and edge sizes, extreme hope factors, tiny budgets and degenerate options. Each
//! input either gives a valid schedule or a typed error, never a panic.

use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuModel, Problem, Schedule};
use worl_dag::WorkloadBuilder;
use worl_sched::{Budget, Registry, RunContext, ScheduleError};

/// One machine holding one GPU of each model.
fn one_machine(models: &[GpuModel]) -> worl_cluster::Cluster {
    let mut cb = ClusterBuilder::new("robustness");
    let m = cb.add_machine("node-0");
    for model in models {
        cb.add_gpu(m, model).unwrap();
    }
    cb.build().unwrap()
}

fn v100_t4() -> worl_cluster::Cluster {
    one_machine(&[GpuModel::v100_16gb(), GpuModel::t4()])
}

fn two_v100() -> worl_cluster::Cluster {
    one_machine(&[GpuModel::v100_16gb(), GpuModel::v100_16gb()])
}

/// Tasks of the given works; `edges[i]` (if any) is the bytes of edge `i -> i + 1`.
fn tasks(works: &[f64], edges: &[f64]) -> worl_dag::Workload {
    let mut wb = WorkloadBuilder::new("robustness");
    let j = wb.add_job("j").unwrap();
    let ids: Vec<_> = works
        .iter()
        .enumerate()
        .map(|(i, &w)| wb.add_task(j, format!("t{i}"), w, None).unwrap())
        .collect();
    for (i, &bytes) in edges.iter().enumerate() {
        wb.add_edge(ids[i], ids[i + 1], bytes).unwrap();
    }
    wb.build().unwrap()
}

/// The problem, or `None` when the cost model rejects it (a typed error is an acceptable
/// answer to a degenerate input).
fn problem(works: &[f64], edges: &[f64], cluster: worl_cluster::Cluster) -> Option<Problem> {
    match Problem::new(Arc::new(tasks(works, edges)), Arc::new(cluster)) {
        Ok(p) => Some(p),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

fn try_run(spec: &str, p: &Problem, seed: u64) -> Result<Schedule, ScheduleError> {
    let mut s = Registry::with_builtins().build_spec(spec).unwrap();
    s.schedule(p, &mut RunContext::new(seed))
}

/// `spec` on `p` gives a valid schedule.
fn valid(spec: &str, p: &Problem, seed: u64) -> Schedule {
    let s = try_run(spec, p, seed).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert!(s.validate(p).is_empty(), "{spec}: {:?}", s.validate(p));
    assert!(s.makespan() >= p.lower_bound().value, "{spec}");
    s
}

/// `spec` on `p` gives a valid schedule or a typed error (not a panic).
fn valid_or_typed_error(spec: &str, p: &Problem, seed: u64) {
    match try_run(spec, p, seed) {
        Ok(s) => assert!(s.validate(p).is_empty(), "{spec}: {:?}", s.validate(p)),
        Err(e) => assert!(!e.to_string().is_empty(), "{spec}"),
    }
}

/// `spec` is rejected as an invalid option naming `key`.
fn rejected(spec: &str, key: &str) {
    match Registry::with_builtins().build_spec(spec) {
        Err(ScheduleError::InvalidOption { key: k, .. }) => assert_eq!(k, key, "{spec}"),
        Err(e) => panic!("{spec}: expected InvalidOption for `{key}`, got {e}"),
        Ok(_) => panic!("{spec}: expected InvalidOption for `{key}`, got a scheduler"),
    }
}

// 1. Extreme hope factors `b` and works: hopes and positions that are not finite.

#[test]
fn rtgs_extreme_b_on_one_task_gives_a_valid_schedule() {
    let p = problem(&[1.0], &[], v100_t4()).unwrap();
    for b in ["1000", "1e308", "-1e308"] {
        let s = valid(&format!("rtgs:b={b}"), &p, 1);
        // One task of work 1: it runs alone, on whichever GPU, from time 0.
        assert_eq!(s.n_tasks(), 1);
    }
}

#[test]
fn rtgs_on_a_task_of_work_1e308_is_valid_or_a_typed_error() {
    if let Some(p) = problem(&[1e308], &[], two_v100()) {
        valid_or_typed_error("rtgs:b=1000", &p, 1);
        valid_or_typed_error("rtgs:whales=2,iterations=1", &p, 1);
        #[cfg(feature = "ddqn")]
        valid_or_typed_error("worl-rtgs:whales=2,iterations=1", &p, 1);
    }
}

// 2. WORL-RTGS decoder with extreme `b` and works.

#[cfg(feature = "ddqn")]
#[test]
fn worl_rtgs_extreme_b_on_isolated_tasks_gives_a_valid_schedule() {
    let p = problem(&[1.0, 1.0], &[], v100_t4()).unwrap();
    for b in ["1000", "1e308", "-1e308"] {
        let s = valid(&format!("worl-rtgs:b={b},whales=4,iterations=3"), &p, 1);
        assert_eq!(s.n_tasks(), 2);
    }
    valid("worl-rtgs:b=1000", &p, 1);
}

#[cfg(feature = "ddqn")]
#[test]
fn worl_rtgs_paper_on_a_task_of_work_1e308_is_valid_or_a_typed_error() {
    if let Some(p) = problem(&[1e308], &[], v100_t4()) {
        valid_or_typed_error("worl-rtgs-paper:whales=2,iterations=1", &p, 1);
        valid_or_typed_error("worl-rtgs:whales=2,iterations=1", &p, 1);
    }
}

// 3. RTGS's windowed greedy on a chain of huge works.

#[test]
fn rtgs_window_on_a_chain_of_huge_works_is_valid_or_a_typed_error() {
    if let Some(p) = problem(&[1e308, 1e308], &[1.0], v100_t4()) {
        for spec in [
            "rtgs:window=4,replacement=canonical,whales=2,iterations=1",
            "rtgs:window=4,whales=2,iterations=1",
            "rtgs:window=4,replacement=canonical,whales=4,iterations=3,b=1000",
        ] {
            valid_or_typed_error(spec, &p, 1);
        }
    }
}

// 4. Features stay finite on a chain of extreme works and edges.

#[test]
fn every_scheduler_schedules_a_chain_of_extreme_works_and_edges() {
    let p = problem(&[1e300, 1e-300, 0.0], &[0.0, 1e300], v100_t4()).unwrap();
    let registry = Registry::with_builtins();
    let mut names = 0;
    for name in registry.names() {
        let spec = match name {
            "worl-rtgs" | "worl-rtgs-paper" => format!("{name}:whales=4,iterations=3"),
            _ => name.to_string(),
        };
        valid(&spec, &p, 1);
        names += 1;
    }
    assert!(names >= 12, "{names} schedulers");
}

#[cfg(feature = "ddqn")]
#[test]
fn worl_rtgs_presets_schedule_a_chain_of_extreme_works_and_edges() {
    let p = problem(&[1e300, 1e-300, 0.0], &[0.0, 1e300], v100_t4()).unwrap();
    for spec in ["worl-rtgs", "worl-rtgs-paper"] {
        valid(spec, &p, 1);
    }
}

// 5. One rule for degenerate options and budgets: counts have documented minimums, relations
//    between options are checked, a malformed spec is refused, a budget below the initial
//    population is the same typed error for every search.

#[test]
fn degenerate_options_are_invalid_options_naming_the_key() {
    rejected("ga:tournament=1000", "tournament");
    rejected("ga:population=30,tournament=31", "tournament");
    rejected("ga:elites=30", "elites");
    rejected("woa:whales=0", "whales");
    rejected("pso:particles=0", "particles");
    #[cfg(feature = "ddqn")]
    {
        rejected("worl-rtgs:train-steps=0", "train-steps");
        rejected("worl-rtgs:recorded-steps=0", "recorded-steps");
    }
    // the largest tournament is the population
    assert!(
        Registry::with_builtins()
            .build_spec("ga:population=30,tournament=30")
            .is_ok()
    );
}

#[test]
fn malformed_specs_are_refused_not_read_leniently() {
    for spec in [
        "heft:",
        "heft[]",
        "rtgs:whales=3,whales=4",
        "rtgs[whales=3,whales=4]",
    ] {
        match Registry::with_builtins().build_spec(spec) {
            Err(ScheduleError::InvalidSpec { .. }) => {}
            Err(e) => panic!("{spec}: expected InvalidSpec, got {e}"),
            Ok(_) => panic!("{spec}: accepted"),
        }
    }
}

#[test]
fn a_zero_evaluation_budget_is_the_same_error_for_every_search() {
    let p = problem(&[1.0, 2.0, 3.0], &[10.0, 10.0], v100_t4()).unwrap();
    let mut specs = vec!["woa", "pso", "ga", "rtgs"];
    if cfg!(feature = "ddqn") {
        specs.extend(["worl-rtgs", "worl-rtgs-paper"]);
    }
    let budget = Budget {
        max_evaluations: Some(0),
        max_time: None,
    };
    for spec in specs {
        let mut s = Registry::with_builtins().build_spec(spec).unwrap();
        let err = s
            .schedule(&p, &mut RunContext::new(1).with_budget(budget.clone()))
            .unwrap_err();
        assert!(
            matches!(err, ScheduleError::BudgetBelowPopulation { budget: 0, .. }),
            "{spec}: {err}"
        );
        assert!(
            err.to_string().contains("budget of 0 plan evaluations"),
            "{err}"
        );
    }
    // list schedulers evaluate no plan: the budget does not concern them
    let mut heft = Registry::with_builtins().build_spec("heft").unwrap();
    heft.schedule(&p, &mut RunContext::new(1).with_budget(budget))
        .unwrap();
}
