//! Budgets and sizes of the deep-RL list schedulers (`dqn`, `mdts`): an evaluation budget
//! caps a run with a larger network (one evaluation per decoded schedule), a spent CPU-time
//! budget stops the agent inside its episode, and oversized networks or agents are typed
//! errors naming the option before anything is allocated.
#![cfg(feature = "ddqn")]

use std::sync::Arc;
use std::time::Duration;

use worl_cluster::{Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_ddqn::{Agent, ComputeDevice, DdqnError};
use worl_sched::schedulers::drl::{DrlConfig, run_drl, training_episodes};
use worl_sched::schedulers::{Dqn, Mdts};
use worl_sched::{Budget, Options, Progress, Registry, RunContext, ScheduleError, Scheduler};

/// A 6-task layered DAG on 8 heterogeneous GPUs.
fn problem() -> Problem {
    let w = layered(&LayeredParams::new(6).fat(0.6), 4).unwrap();
    Problem::new(Arc::new(w), Arc::new(presets::pai_mix(8, 2).unwrap())).unwrap()
}

/// Options of `scheduler` from `key=value` pairs separated by commas.
fn options(scheduler: &str, pairs: &str) -> Options {
    pairs.split(',').fold(Options::new(scheduler), |o, kv| {
        let (k, v) = kv.split_once('=').unwrap();
        o.with(k, v)
    })
}

/// Runs `scheduler` with `pairs` on `p` under `budget`; returns the schedule's makespan,
/// the largest and the last evaluation count the run reported, and its agent's
/// (env steps, train steps).
fn run(scheduler: &str, pairs: &str, p: &Problem, budget: Budget) -> (f64, u64, u64, (u64, u64)) {
    let opts = options(scheduler, pairs);
    let mut most = 0;
    let mut last = 0;
    let mut observer = |pr: &Progress| {
        most = most.max(pr.evaluations);
        last = pr.evaluations;
        std::ops::ControlFlow::Continue(())
    };
    let mut ctx = RunContext::new(9)
        .with_budget(budget)
        .with_observer(&mut observer);
    let (s, agent) = if scheduler == "mdts" {
        let mut m = Mdts::from_options(opts).unwrap();
        let s = m.schedule(p, &mut ctx).unwrap();
        let a = m.last_agent().unwrap();
        (s, (a.env_steps(), a.train_steps()))
    } else {
        let mut d = Dqn::from_options(opts).unwrap();
        let s = d.schedule(p, &mut ctx).unwrap();
        let a = d.last_agent().unwrap();
        (s, (a.env_steps(), a.train_steps()))
    };
    assert!(s.validate(p).is_empty(), "{scheduler}[{pairs}]");
    (s.makespan(), most, last, agent)
}

#[test]
fn an_evaluation_budget_caps_a_larger_network_run() {
    let p = problem();
    for (name, pairs) in [
        ("dqn", "hidden=256-256,batch=16,episodes=100000"),
        ("mdts", "hidden=256-256,batch=16,episodes=100000,branches=2"),
    ] {
        let spec = format!("{name}[{pairs}]");
        let (_, most, last, (env_steps, train_steps)) =
            run(name, pairs, &p, Budget::evaluations(200));
        // 199 training episodes and the greedy one: exactly the budget.
        assert_eq!((most, last), (200, 200), "{spec}");
        // Every training episode places the 6 tasks (acting advances the clock once per
        // task); the greedy episode does not.
        assert_eq!(env_steps, 199 * 6, "{spec}");
        // A gradient step every 2 placements once 64 transitions are stored.
        assert!(
            train_steps > 0 && train_steps <= 199 * 6 / 2,
            "{spec}: {train_steps}"
        );
    }
}

#[test]
fn training_episodes_leave_the_last_evaluation_to_the_greedy_episode() {
    let c = DrlConfig {
        episodes: 30,
        ..DrlConfig::default()
    };
    assert_eq!(training_episodes(&c, &Budget::default()), 30);
    assert_eq!(training_episodes(&c, &Budget::evaluations(200)), 30);
    assert_eq!(training_episodes(&c, &Budget::evaluations(10)), 9);
    assert_eq!(training_episodes(&c, &Budget::evaluations(1)), 0);
    assert_eq!(training_episodes(&c, &Budget::evaluations(u64::MAX)), 30);
    let frozen = DrlConfig {
        start: worl_sched::schedulers::AgentStart {
            learn: false,
            ..Default::default()
        },
        ..c
    };
    assert_eq!(training_episodes(&frozen, &Budget::evaluations(200)), 0);
}

#[test]
fn a_spent_time_budget_stops_the_agent_and_still_returns_a_schedule() {
    let p = problem();
    // A wide network: 3 layers of 1024 (2.1 million hidden-layer parameters).
    for name in ["dqn", "mdts"] {
        let spec = format!("{name}[hidden=1024-1024-1024,episodes=1000]");
        let (makespan, most, last, agent) = run(
            name,
            "hidden=1024-1024-1024,episodes=1000",
            &p,
            Budget::cpu_time(Duration::ZERO),
        );
        // No training episode starts; the greedy one places every task on its
        // smallest-EFT candidate without asking the agent.
        assert_eq!((most, last), (1, 1), "{spec}");
        assert_eq!(agent, (0, 0), "{spec}: the agent was never asked");
        assert!(makespan >= p.lower_bound().value);
    }
    // Both then place every task, in upward-rank order, on its smallest-EFT GPU at its
    // earliest (insertion) slot: HEFT's schedule.
    let heft = worl_sched::testing::heft_makespan(&p);
    for name in ["dqn", "mdts"] {
        let (m, ..) = run(name, "episodes=5", &p, Budget::cpu_time(Duration::ZERO));
        assert_eq!(m, heft, "{name}");
    }
}

#[test]
fn oversized_networks_are_typed_errors_naming_the_option() {
    let registry = Registry::with_builtins();
    for (spec, key) in [
        // 8 × 4096: 117 million parameters, 2.9 GB with Adam and the target network.
        (
            "dqn[hidden=4096-4096-4096-4096-4096-4096-4096-4096]",
            "hidden",
        ),
        (
            "mdts[hidden=4096-4096-4096-4096-4096-4096-4096-4096]",
            "hidden",
        ),
        // 3 × 2048: 8,394,752 hidden-layer parameters, over 2^23.
        ("dqn[hidden=2048-2048-2048]", "hidden"),
        // batch × Σ hidden over 2^18.
        ("dqn[hidden=4096,batch=512]", "hidden"),
        ("mdts[hidden=513,batch=512]", "hidden"),
    ] {
        match registry.build_spec(spec).err() {
            Some(ScheduleError::InvalidOption { key: k, reason, .. }) => {
                assert_eq!(k, key, "{spec}: {reason}");
                assert!(reason.contains("at most"), "{spec}: {reason}");
            }
            other => panic!("{spec}: expected an invalid `{key}`, got {other:?}"),
        }
    }
    // At the limits: accepted.
    for spec in [
        "dqn[hidden=1024-1024-1024-1024-1024-1024-1024-1024]",
        "dqn[hidden=512,batch=512]",
        "mdts[hidden=2048-2048,candidates=64,branches=16]",
    ] {
        assert!(registry.build_spec(spec).is_ok(), "{spec}");
    }
}

#[test]
fn an_agent_over_the_memory_bound_is_refused_before_running() {
    // A fresh agent whose replay buffer would hold 300,000 transitions of 64 candidates
    // (about 640 MB when full): refused by run_drl, naming the field.
    let p = problem();
    let config = DrlConfig {
        candidates: 64,
        ..DrlConfig::default()
    };
    let agent_config = worl_ddqn::AgentConfig {
        replay_capacity: 300_000,
        ..config.agent_config(p.n_tasks())
    };
    let agent = Agent::new(agent_config, &ComputeDevice::flex()).unwrap();
    match run_drl(&p, &config, agent, &mut RunContext::new(1)).err() {
        Some(ScheduleError::Ddqn(DdqnError::InvalidConfig { field, reason })) => {
            assert_eq!(field, "replay_capacity");
            assert!(reason.contains("512 MiB"), "{reason}");
        }
        other => panic!(
            "expected an InvalidConfig, got {:?}",
            other.map(|e| e.to_string())
        ),
    }
    // The same agent with the default 20,000 transitions runs.
    let agent = Agent::new(config.agent_config(p.n_tasks()), &ComputeDevice::flex()).unwrap();
    let out = run_drl(
        &p,
        &config,
        agent,
        &mut RunContext::new(1).with_budget(Budget::evaluations(3)),
    )
    .unwrap();
    assert_eq!(out.episodes, 3);
}
