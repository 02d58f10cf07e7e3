//! Replaying static plans: without noise, contention, failures or releases the simulation
//! reproduces the plan evaluator bit for bit, for every scheduler of the registry; under
//! fair contention it is never faster than the plan.

mod common;

use proptest::prelude::*;
use worl_cluster::{Evaluator, Policy, Problem, Schedule};
use worl_sched::testing::{ClusterKind, problems, quick_schedulers, random_problem};
use worl_sched::{Registry, RunContext};
use worl_sim::policies::AsPlanned;
use worl_sim::{Contention, SimConfig, SimResult, Simulation, check_log};

fn simulate(p: &Problem, s: &Schedule, contention: Contention) -> SimResult {
    let cfg = SimConfig {
        contention,
        record_events: true,
        ..SimConfig::default()
    };
    let mut policy = AsPlanned::new(p, s).unwrap();
    let r = Simulation::new(p, cfg)
        .unwrap()
        .run(&mut policy, 3)
        .unwrap();
    if let Err(v) = check_log(p, &r) {
        panic!("{} violations, first: {}", v.len(), v[0]);
    }
    r
}

/// Checks the replay of every scheduler's plan on `p` against the evaluator.
fn replay_matches_the_evaluator(p: &Problem, seed: u64) -> Result<(), TestCaseError> {
    for mut s in quick_schedulers() {
        let name = s.name().to_owned();
        let (schedule, planned) = common::schedule_and_timing(&name, s.as_mut(), p, seed)?;
        let r = simulate(p, &schedule, Contention::None);
        common::same_as_planned(&name, &r, &planned)?;
        for sim in &r.tasks {
            prop_assert_eq!(sim.attempts, 1);
        }
        prop_assert_eq!(r.metrics.contention_delay, 0.0);
        prop_assert_eq!(r.metrics.replans, 0.0);
    }
    Ok(())
}

#[test]
fn every_scheduler_replays_exactly_on_every_cluster_kind() {
    // Every scheduler built without burn: the list, search and exact families.
    let names: Vec<String> = quick_schedulers()
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    assert!(names.len() >= 13, "{names:?}");
    eprintln!("schedulers: {names:?}");
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        let p = random_problem(25, 5, 0.2, kind, 1.0, 300 + i as u64);
        replay_matches_the_evaluator(&p, 7).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn every_scheduler_replays_exactly_on_random_problems(p in problems(20, 6), seed in 0u64..100) {
        replay_matches_the_evaluator(&p, seed)?;
    }

    /// Communication-heavy problems (edges up to 2 GB, density up to 0.6, tiny works):
    /// fair sharing only slows transfers down, and a fixed per-GPU order makes every time a
    /// non-decreasing function of the transfer times, so the replay is never faster than
    /// the plan (up to the rounding of `t + L + d / r` against `t + (L + d / B)`).
    #[test]
    fn fair_contention_never_beats_the_plan(
        n in 2usize..40,
        m in 2usize..8,
        density in 0.1f64..0.6,
        kind in 0..ClusterKind::ALL.len(),
        seed in any::<u64>(),
    ) {
        let p = random_problem(n, m, density, ClusterKind::ALL[kind], 0.0, seed);
        for spec in ["heft", "round-robin", "random"] {
            let mut s = Registry::with_builtins().build_spec(spec).unwrap();
            let schedule = s.schedule(&p, &mut RunContext::new(seed)).unwrap();
            let plan = schedule.to_plan(&p);
            let planned = Evaluator::new(&p).schedule(&plan, Policy::Append).unwrap();
            let r = simulate(&p, &schedule, Contention::Fair);
            let tol = 1e-9 * planned.makespan().max(1.0);
            prop_assert!(r.metrics.makespan >= planned.makespan() - tol,
                "{}: {} < {}", spec, r.metrics.makespan, planned.makespan());
            for (sim, ev) in r.tasks.iter().zip(planned.tasks()) {
                prop_assert!(sim.start >= ev.start - tol, "{}: {} < {}", spec, sim.start, ev.start);
            }
            prop_assert!(r.metrics.contention_delay >= 0.0);
        }
    }
}
