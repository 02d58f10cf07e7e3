//! The `exact` scheduler through the public API: its registry entry, and on the random
//! problems of `worl_rtgs::testing` (every cluster kind) a proven optimum is no worse than
//! any registered list scheduler, and never below the lower bound.

use proptest::prelude::*;
use worl_rtgs::schedulers::{BUILTINS, Exact, Family};
use worl_rtgs::testing::problems;
use worl_rtgs::{Registry, RunContext, ScheduleError};

#[test]
fn the_registry_builds_exact_with_its_node_budget_and_rejects_unknown_options() {
    let r = Registry::with_builtins();
    let entry = BUILTINS.iter().find(|b| b.name == "exact").unwrap();
    assert_eq!(entry.family, Family::Exact);
    assert!(entry.description.contains("nodes"));
    let mut s = r.build_spec("exact[nodes=1000]").unwrap();
    assert_eq!(s.name(), "Exact");
    assert!(!s.is_stochastic());
    let p = worl_rtgs::testing::random_problem(
        6,
        2,
        0.3,
        worl_rtgs::testing::ClusterKind::PaiMix,
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
