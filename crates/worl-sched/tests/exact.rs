//! The `exact` scheduler through the public API: its registry entry, and on the random
//! problems of `worl_sched::testing` (every cluster kind) a proven optimum is no worse than
//! any registered list scheduler, and never below the lower bound; with gang tasks (issue
//! 21), it equals the optimum of every plan (topological order × GPU set per task) decoded
//! by the evaluator.

use proptest::prelude::*;
use worl_cluster::{Evaluator, GpuId, Plan, Policy, Problem};
use worl_dag::TaskId;
use worl_sched::schedulers::{BUILTINS, Exact, Family};
use worl_sched::testing::{
    ClusterKind, all_sets, problems, problems_with_gangs, random_problem_with_gangs,
};
use worl_sched::{Registry, RunContext, ScheduleError};

/// Every topological order of `p`'s tasks.
fn topological_orders(p: &Problem) -> Vec<Vec<TaskId>> {
    fn rec(p: &Problem, order: &mut Vec<TaskId>, out: &mut Vec<Vec<TaskId>>) {
        if order.len() == p.n_tasks() {
            out.push(order.clone());
            return;
        }
        for v in p.graph().task_ids() {
            if order.contains(&v)
                || p.graph()
                    .preds(v)
                    .iter()
                    .any(|nb| !order.contains(&nb.task))
            {
                continue;
            }
            order.push(v);
            rec(p, order, out);
            order.pop();
        }
    }
    let mut out = Vec::new();
    rec(p, &mut Vec::new(), &mut out);
    out
}

/// The least makespan over every plan: every topological order × every set per task
/// ([`all_sets`]), a gang's set given explicitly in [`Plan::gangs`], decoded by the
/// [`Evaluator`] under `policy`.
fn brute_force_plans(p: &Problem, policy: Policy) -> f64 {
    let sets: Vec<Vec<Vec<GpuId>>> = p.graph().task_ids().map(|v| all_sets(p, v)).collect();
    let orders = topological_orders(p);
    let mut eval = Evaluator::new(p);
    let mut best = f64::INFINITY;
    let mut pick = vec![0usize; p.n_tasks()];
    loop {
        let mut plan = Plan::new(
            pick.iter()
                .enumerate()
                .map(|(v, &c)| sets[v][c][0])
                .collect(),
            Vec::new(),
        );
        for (v, &c) in pick.iter().enumerate() {
            if sets[v][c].len() > 1 {
                plan = plan.with_set(TaskId::new(v), sets[v][c].clone());
            }
        }
        for order in &orders {
            plan.order.clone_from(order);
            best = best.min(eval.makespan(&plan, policy).unwrap());
        }
        // next assignment (odometer)
        let Some(v) = (0..pick.len()).find(|&v| pick[v] + 1 < sets[v].len()) else {
            return best;
        };
        pick[v] += 1;
        for x in &mut pick[..v] {
            *x = 0;
        }
    }
}

#[test]
fn exact_equals_the_best_evaluated_plan_on_160_tiny_gang_problems() {
    // 1 to 5 tasks on 2 to 4 GPUs of every cluster kind, with and without busy windows;
    // every plan decoded under append and under insertion.
    let (mut gangs, mut changed, mut below_heft) = (0, 0, 0);
    for seed in 0..160u64 {
        let n = 1 + (seed % 5) as usize;
        let m = 2 + (seed / 5 % 3) as usize;
        let kind = ClusterKind::ALL[(seed / 15 % 5) as usize];
        let windows = seed % 2 == 1;
        let p = random_problem_with_gangs(n, m, 0.3, kind, 1.0, seed, windows);
        let out = Exact::new().solve(&p, &mut RunContext::new(seed)).unwrap();
        assert!(out.proven_optimal, "seed {seed}");
        let ms = out.schedule.makespan();
        let append = brute_force_plans(&p, Policy::Append);
        let insertion = brute_force_plans(&p, Policy::Insertion);
        assert!(
            (ms - append).abs() <= 1e-9 * append,
            "seed {seed}: exact {ms} vs {append}"
        );
        assert!(
            (insertion - append).abs() <= 1e-9 * append,
            "seed {seed}: {insertion} vs {append}"
        );
        assert_eq!(out.schedule.validate(&p), vec![], "seed {seed}");
        let decoded = Evaluator::new(&p)
            .schedule(&out.schedule.to_plan(&p), Policy::Append)
            .unwrap();
        assert_eq!(decoded, out.schedule, "seed {seed}");
        if p.has_gangs() {
            gangs += 1;
            // the same problem with every task on one GPU
            let single = if windows {
                worl_sched::testing::random_problem_with_windows(n, m, 0.3, kind, 1.0, seed)
            } else {
                worl_sched::testing::random_problem(n, m, 0.3, kind, 1.0, seed)
            };
            let without = brute_force_plans(&single, Policy::Append);
            changed += usize::from((without - append).abs() > 1e-9 * append);
        }
        let heft = worl_sched::testing::heft_makespan(&p);
        below_heft += usize::from(ms < heft * (1.0 - 1e-9));
    }
    eprintln!(
        "{gangs} problems with gangs, the gangs change the optimum of {changed}, exact beats HEFT on {below_heft}"
    );
    assert!(gangs >= 100, "{gangs}");
    assert!(changed >= 50, "{changed}");
    assert!(below_heft >= 5, "{below_heft}");
}

#[test]
fn the_registry_runs_exact_on_gang_problems() {
    let r = Registry::with_builtins();
    let mut s = r.build_spec("exact[nodes=100000]").unwrap();
    assert!(s.supports_gangs());
    let p = random_problem_with_gangs(6, 4, 0.3, ClusterKind::PaiMix, 1.0, 3, true);
    assert!(p.has_gangs());
    let schedule = s.schedule(&p, &mut RunContext::new(0)).unwrap();
    assert_eq!(schedule.validate(&p), vec![]);
    assert!(schedule.has_sets());
}

#[test]
fn the_registry_builds_exact_with_its_node_budget_and_rejects_unknown_options() {
    let r = Registry::with_builtins();
    let entry = BUILTINS.iter().find(|b| b.name == "exact").unwrap();
    assert_eq!(entry.family, Family::Exact);
    assert!(
        entry
            .option_docs()
            .any(|d| d.key == "nodes" && d.default == "50000000")
    );
    let mut s = r.build_spec("exact[nodes=1000]").unwrap();
    assert_eq!(s.name(), "Exact");
    assert!(!s.is_stochastic());
    let p = worl_sched::testing::random_problem(
        6,
        2,
        0.3,
        worl_sched::testing::ClusterKind::PaiMix,
        1.0,
        9,
    );
    assert!(
        s.schedule(&p, &mut RunContext::new(0))
            .unwrap()
            .is_valid(&p)
    );
    assert!(matches!(
        r.build_spec("exact[depth=3]"),
        Err(ScheduleError::UnknownOption { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_proven_optimum_is_no_worse_than_any_list_scheduler(p in problems(8, 4), seed in 0u64..50) {
        let out = Exact::new()
            .with_max_nodes(300_000)
            .solve(&p, &mut RunContext::new(seed))
            .unwrap();
        prop_assert!(out.schedule.is_valid(&p));
        let lb = p.lower_bound().value;
        prop_assert!(out.schedule.makespan() >= lb * (1.0 - 1e-9));
        let r = Registry::with_builtins();
        for b in BUILTINS.iter().filter(|b| b.family == Family::List) {
            let ms = r
                .build_spec(b.name)
                .unwrap()
                .schedule(&p, &mut RunContext::new(seed))
                .unwrap()
                .makespan();
            if out.proven_optimal {
                prop_assert!(
                    out.schedule.makespan() <= ms * (1.0 + 1e-9),
                    "{}: {} < proven optimum {}",
                    b.name,
                    ms,
                    out.schedule.makespan()
                );
            } else if b.name == "heft" || b.name == "peft" {
                prop_assert!(out.schedule.makespan() <= ms);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn with_gangs_exact_is_valid_between_the_lower_bound_and_heft(p in problems_with_gangs(8, 4), seed in 0u64..50) {
        let out = Exact::new()
            .with_max_nodes(300_000)
            .solve(&p, &mut RunContext::new(seed))
            .unwrap();
        prop_assert_eq!(out.schedule.validate(&p), vec![]);
        let lb = p.lower_bound().value;
        prop_assert!(out.schedule.makespan() >= lb * (1.0 - 1e-9));
        prop_assert!(out.lower_bound >= lb * (1.0 - 1e-9));
        prop_assert!(out.lower_bound <= out.schedule.makespan());
        let heft = Registry::with_builtins()
            .build_spec("heft")
            .unwrap()
            .schedule(&p, &mut RunContext::new(seed))
            .unwrap()
            .makespan();
        prop_assert!(out.schedule.makespan() <= heft);
        prop_assert!(worl_sched::testing::plan_decodes_to_makespan("exact", &p, &out.schedule).is_ok());
    }
}
