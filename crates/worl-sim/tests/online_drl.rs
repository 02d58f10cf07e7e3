//! Tests of online dispatch by the deep-RL agents (`online:dqn`, `online:mdts`, feature
//! `ddqn`): MDTS's joint decision on a hand-checkable fork, log consistency, reproducibility,
//! the features shared with the static episode, and the typed errors of bad specs.
#![cfg(feature = "ddqn")]

mod common;

use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Network, Problem};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_sched::schedulers::drl::{DrlConfig, first_decision};
use worl_sched::testing::{ClusterKind, random_problem};
use worl_sched::worl_ddqn::{Agent, AgentConfig, ComputeDevice};
use worl_sched::{Budget, Registry};
use worl_sim::policies::OnlineDrl;
use worl_sim::spec::PolicySpec;
use worl_sim::{Contention, RuntimeNoise, SimConfig, SimError, SimResult, Simulation, check_log};

/// `m` GPUs of speed 1, one per machine; links 1 GB/s with 0.5 s latency.
fn cluster(m: usize) -> Arc<worl_cluster::Cluster> {
    let mut b = ClusterBuilder::new("c");
    for i in 0..m {
        let mach = b.add_machine(format!("n{i}"));
        let g = b.add_gpu(mach, &GpuModel::v100_16gb()).unwrap();
        b.set_speed(g, 1.0).unwrap();
    }
    let link = Link::new(1e9, 0.5).unwrap();
    b.network(Network::uniform(link, link));
    Arc::new(b.build().unwrap())
}

/// A fresh (untrained) agent of `config`'s sizes, seed 3.
fn agent(config: &DrlConfig) -> Agent {
    let c = AgentConfig {
        seed: 3,
        ..config.agent_config(1)
    };
    Agent::new(c, &ComputeDevice::flex()).unwrap()
}

fn run_checked(p: &Problem, config: SimConfig, policy: &mut OnlineDrl, seed: u64) -> SimResult {
    let config = SimConfig {
        record_events: true,
        ..config
    };
    let r = Simulation::new(p, config)
        .unwrap()
        .run(policy, seed)
        .unwrap();
    if let Err(v) = check_log(p, &r) {
        panic!("{v:?}");
    }
    r
}

#[test]
fn mdts_places_the_ready_children_of_a_fork_jointly_in_one_decision() {
    // Job j: root r (4 s), then 3 children a, b, c (6 s each; r -> child 1e9 bytes, 1 s
    // over a link + 0.5 s latency); 4 GPUs. After r finishes at 4 s on GPU g, each child's
    // estimated EFT is 4 + 6 = 10 s on g and 4 + 1.5 + 6 = 11.5 s elsewhere: with 2
    // candidates, its candidates are g and the lowest other GPU index.
    let mut b = WorkloadBuilder::new("fork");
    let j = b.add_job("j").unwrap();
    let r = b.add_task(j, "r", 4.0, None).unwrap();
    let kids: Vec<TaskId> = ["a", "b", "c"]
        .iter()
        .map(|n| b.add_task(j, *n, 6.0, None).unwrap())
        .collect();
    for &k in &kids {
        b.add_edge(r, k, 1e9).unwrap();
    }
    let p = Problem::new(Arc::new(b.build().unwrap()), cluster(4)).unwrap();
    let config = DrlConfig {
        candidates: 2,
        ..DrlConfig::mdts()
    };
    let mut policy = OnlineDrl::new(agent(&config), &config, "mdts")
        .unwrap()
        .record_decisions(true);
    let res = run_checked(&p, SimConfig::default(), &mut policy, 1);
    let recs = policy.records();
    assert_eq!(recs.len(), 2, "{recs:?}");
    // First decision: r alone at time 0; both candidates tie at 4 s, GPUs 0 and 1.
    assert_eq!(recs[0].tasks, [r]);
    assert_eq!(recs[0].gpus, [vec![GpuId::new(0), GpuId::new(1)]]);
    let g = recs[0].gpus[0][recs[0].actions[0]];
    assert_eq!(res.tasks[r.index()].finish, 4.0);
    // Second: the three children in one decision (one decide call), equal ranks so id order.
    let d = &recs[1];
    assert_eq!(d.tasks, kids);
    assert_eq!(d.time, 4.0);
    assert!(d.call > recs[0].call);
    let other = GpuId::new(if g.index() == 0 { 1 } else { 0 });
    for (bi, &kid) in kids.iter().enumerate() {
        // Jointly: every branch scored from the same free times, so the same candidates
        // (had branch 0 been dispatched first, g would be busy until 10 s for branch 1).
        assert_eq!(d.gpus[bi], [g, other], "branch {bi}");
        let landed = res.tasks[kid.index()].gpu;
        assert_eq!(landed, d.gpus[bi][d.actions[bi]]);
        assert!(landed == g || landed == other);
    }
    // State: 1 of 4 placed, 3 ready on 4 GPUs, 3 of 4 branches, partial makespan 0: r's
    // estimated finish (4 s) is now.
    let expect = [0.25f32, (1.0f64 + 0.75).ln() as f32, 0.75, 0.0];
    for (x, y) in d.state.iter().zip(expect) {
        assert!((x - y).abs() < 1e-6, "{:?} vs {expect:?}", d.state);
    }
    // Rows: 8 features + 4-hot branch code; the branch code of branch b is set at b.
    for (bi, rows) in d.rows.iter().enumerate() {
        assert_eq!(rows.len(), 2 * 12);
        for row in rows.chunks(12) {
            let code: Vec<f32> = (0..4).map(|c| f32::from(u8::from(c == bi))).collect();
            assert_eq!(&row[8..], code.as_slice());
        }
        // EFT − smallest EFT over the task's mean execution time (6 s): 0, then 1.5/6.
        assert_eq!(rows[0], 0.0);
        assert!((rows[12] - (1.25f64).ln() as f32).abs() < 1e-6);
    }
    // All three dispatched at 4 s, so none starts before 4 s and the run ends by 4 + 3·6 + 1.5.
    for &k in &kids {
        assert!(res.tasks[k.index()].start >= 4.0);
    }
    assert!(res.metrics.makespan <= 4.0 + 18.0 + 1.5);
}

#[test]
fn dqn_decides_one_task_at_a_time() {
    let p = random_problem(12, 3, 0.3, ClusterKind::PaiMix, 1.0, 5);
    let config = DrlConfig::default();
    let mut policy = OnlineDrl::new(agent(&config), &config, "dqn")
        .unwrap()
        .record_decisions(true);
    run_checked(&p, SimConfig::default(), &mut policy, 2);
    assert_eq!(policy.records().len(), 12);
    assert!(policy.records().iter().all(|d| d.tasks.len() == 1));
}

/// Problems of two jobs arriving apart (Poisson arrivals), on every cluster kind.
fn arriving(kind: ClusterKind, seed: u64) -> Problem {
    let p = random_problem(16, 4, 0.25, kind, 1.0, seed);
    let q = random_problem(10, 4, 0.3, kind, 1.0, seed + 100);
    common::streamed(&p, &q, 60.0, seed)
}

fn configs() -> Vec<SimConfig> {
    vec![SimConfig::default(), common::noisy()]
}

#[test]
fn every_online_drl_simulation_passes_the_log_check() {
    let registry = Registry::with_builtins();
    let budget = Budget::default();
    for spec in [
        "online:dqn[episodes=2]",
        "online:mdts[episodes=2,branches=3]",
    ] {
        let spec: PolicySpec = spec.parse().unwrap();
        for kind in [
            ClusterKind::Homogeneous,
            ClusterKind::BusyPaiMix,
            ClusterKind::Unrelated,
        ] {
            // Unrelated times do not survive merging jobs: run its single-job problem.
            let p = if kind == ClusterKind::Unrelated {
                random_problem(20, 4, 0.25, kind, 1.0, 7)
            } else {
                arriving(kind, 7)
            };
            for (i, config) in configs().into_iter().enumerate() {
                let mut built = spec.build(&p, &registry, &budget, 11).unwrap();
                assert!(built.stochastic);
                let config = SimConfig {
                    record_events: true,
                    ..config
                };
                let r = Simulation::new(&p, config)
                    .unwrap()
                    .run(built.policy.as_mut(), 3)
                    .unwrap();
                if let Err(v) = check_log(&p, &r) {
                    panic!("{spec} on {kind:?}, config {i}: {v:?}");
                }
                assert!(r.tasks.iter().all(|t| t.finish.is_finite()));
                let want = if spec.label().starts_with("online:dqn") {
                    "online(dqn)"
                } else {
                    "online(mdts)"
                };
                assert_eq!(built.policy.name(), want);
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let registry = Registry::with_builtins();
    let p = arriving(ClusterKind::PaiMix, 3);
    let config = SimConfig {
        noise: RuntimeNoise::LogNormal { cv: 0.2 },
        contention: Contention::Fair,
        ..SimConfig::default()
    };
    for spec in ["online:mdts[episodes=3]", "online:dqn[episodes=3]"] {
        let spec: PolicySpec = spec.parse().unwrap();
        let once = |seed: u64| {
            let mut built = spec.build(&p, &registry, &Budget::default(), seed).unwrap();
            Simulation::new(&p, config.clone())
                .unwrap()
                .run(built.policy.as_mut(), seed)
                .unwrap()
        };
        let (a, b) = (once(5), once(5));
        assert_eq!(a.tasks, b.tasks, "{spec}");
        assert_eq!(a.metrics.makespan.to_bits(), b.metrics.makespan.to_bits());
    }
}

#[test]
fn the_first_online_decision_has_the_static_episodes_features() {
    // Every job at 0 and nothing dispatched: the online state and rows of the first
    // decision are those of the static episode, computed by the same functions.
    for (kind, seed) in [
        (ClusterKind::BusyPaiMix, 1),
        (ClusterKind::ReadyTimes, 2),
        (ClusterKind::Unrelated, 3),
    ] {
        let p = random_problem(25, 6, 0.15, kind, 1.0, seed);
        for config in [
            DrlConfig {
                candidates: 4,
                ..DrlConfig::default()
            },
            DrlConfig::mdts(),
        ] {
            let static_first = first_decision(&p, &config).unwrap().unwrap();
            let mut policy = OnlineDrl::new(agent(&config), &config, "x")
                .unwrap()
                .record_decisions(true);
            run_checked(&p, SimConfig::default(), &mut policy, 1);
            let online = &policy.records()[0];
            assert_eq!(online.time, 0.0);
            assert_eq!(online.tasks, static_first.tasks(), "{kind:?}");
            assert_eq!(online.state, static_first.state(), "{kind:?}");
            for b in 0..online.tasks.len() {
                assert_eq!(online.gpus[b], static_first.gpus(b), "{kind:?} branch {b}");
                assert_eq!(
                    online.rows[b].as_slice(),
                    static_first.rows(b),
                    "{kind:?} branch {b}"
                );
            }
        }
    }
}

#[test]
fn bad_online_specs_are_typed_errors() {
    for spec in [
        "online:heft",
        "online:",
        "online:  ",
        "online:ils[restarts=2]",
    ] {
        match spec.parse::<PolicySpec>() {
            Err(SimError::InvalidSpec { spec: s, .. }) => assert_eq!(s, spec),
            other => panic!("{spec}: {other:?}"),
        }
    }
    let registry = Registry::with_builtins();
    let p = random_problem(6, 2, 0.3, ClusterKind::Homogeneous, 1.0, 0);
    // A missing checkpoint and a bad option fail the build with the scheduler's error.
    for spec in [
        "online:mdts[agent=/nonexistent/agent.bpk,learn=false]",
        "online:dqn[episodes=0]",
        "online:mdts[branches=99]",
        "online:dqn[time=soon]",
    ] {
        let spec: PolicySpec = spec.parse().unwrap();
        let e = spec
            .build(&p, &registry, &Budget::default(), 0)
            .unwrap_err();
        assert!(matches!(e, SimError::Scheduler(_)), "{spec}: {e:?}");
    }
    // An agent of other sizes than the configuration's is refused, naming the policy.
    let dqn = agent(&DrlConfig::default());
    match OnlineDrl::new(dqn, &DrlConfig::mdts(), "mdts") {
        Err(SimError::PolicyMismatch { policy, .. }) => assert_eq!(policy, "online(mdts)"),
        other => panic!("{other:?}"),
    }
}
