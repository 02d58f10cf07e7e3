//! The registry-driven conformance test: every entry of the registration table
//! (`schedulers::BUILTINS`), with its quick options, passes `check_scheduler` (valid schedule,
//! makespan at least the lower bound, same seed same schedule) on random problems of every
//! cluster kind. A scheduler added to the table is tested here with no list to edit.

use proptest::prelude::*;
use worl_sched::schedulers::BUILTINS;
use worl_sched::testing::{ClusterKind, problems, quick_schedulers, random_problem};
use worl_sched::{ConformanceError, Registry, Scheduler, check_scheduler};

#[test]
fn the_registry_holds_exactly_the_registration_table() {
    let registry = Registry::with_builtins();
    let mut table: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
    table.sort_unstable();
    assert_eq!(registry.names().collect::<Vec<_>>(), table);
    assert!(table.len() >= 13, "{table:?}");
    for b in BUILTINS {
        assert!(!b.description.is_empty(), "{}", b.name);
    }
}

#[test]
fn every_registered_scheduler_conforms_on_every_cluster_kind() {
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        let p = random_problem(25, 5, 0.2, kind, 1.0, 100 + i as u64);
        for mut s in quick_schedulers() {
            if let Err(e) = check_scheduler(s.as_mut(), &p, 7) {
                panic!("{kind:?}: {e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn every_registered_scheduler_conforms_on_random_problems(p in problems(20, 6), seed in 0u64..100) {
        for mut s in quick_schedulers() {
            check_scheduler(s.as_mut(), &p, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}

/// A scheduler that breaks each rule in turn, so the check is seen to fail.
struct Broken {
    rule: u8,
    calls: u64,
}

impl Scheduler for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn schedule(
        &mut self,
        p: &worl_cluster::Problem,
        ctx: &mut worl_sched::RunContext<'_>,
    ) -> worl_sched::Result<worl_cluster::Schedule> {
        self.calls += 1;
        let mut heft = Registry::with_builtins().build_spec("heft")?;
        let s = heft.schedule(p, ctx)?;
        let mut tasks = s.tasks().to_vec();
        match self.rule {
            0 => tasks[0].finish = tasks[0].start, // wrong duration
            _ => {
                // a second run shifts everything by one second
                for t in &mut tasks {
                    t.start += self.calls as f64;
                    t.finish += self.calls as f64;
                }
            }
        }
        Ok(worl_cluster::Schedule::new(p.n_gpus(), tasks)?)
    }
}

#[test]
fn the_check_fails_on_invalid_and_irreproducible_schedulers() {
    let p = random_problem(12, 3, 0.3, ClusterKind::Homogeneous, 10.0, 5);
    let mut invalid = Broken { rule: 0, calls: 0 };
    assert!(matches!(
        check_scheduler(&mut invalid, &p, 1),
        Err(ConformanceError::Invalid { .. })
    ));
    let mut shifting = Broken { rule: 1, calls: 0 };
    assert!(matches!(
        check_scheduler(&mut shifting, &p, 1),
        Err(ConformanceError::NotReproducible { .. })
    ));
}
