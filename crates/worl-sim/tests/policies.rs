//! Tests of the online policies: hand-computed placements and finish times, and the
//! property that every policy completes every task of random problems with a consistent
//! event log.

mod common;

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Network, Problem};
use worl_dag::{TaskId, Workload, WorkloadBuilder};
use worl_sched::schedulers::Heft;
use worl_sched::testing::{ClusterKind, problems, random_problem};
use worl_sched::{Budget, RunContext, Scheduler};
use worl_sim::policies::{LeastConnection, OnlineEft, Replan, RoundRobin};
use worl_sim::spec::PolicySpec;
use worl_sim::{
    Contention, Failures, OnlinePolicy, Outage, SimConfig, SimResult, Simulation, check_log,
};

/// GPUs of the given speeds, one per machine; every link 1 GB/s without latency (a
/// transfer of `d` bytes takes `d / 1e9` s).
fn cluster(speeds: &[f64]) -> Arc<worl_cluster::Cluster> {
    let mut b = ClusterBuilder::new("c");
    for (i, &s) in speeds.iter().enumerate() {
        let m = b.add_machine(format!("n{i}"));
        let g = b.add_gpu(m, &GpuModel::v100_16gb()).unwrap();
        b.set_speed(g, s).unwrap();
    }
    let link = Link::new(1e9, 0.0).unwrap();
    b.network(Network::uniform(link, link));
    Arc::new(b.build().unwrap())
}

/// One job `j` of tasks with the given works, in id order, and edges `(from, to, bytes)`.
fn workload(works: &[f64], edges: &[(usize, usize, f64)]) -> Workload {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = works
        .iter()
        .enumerate()
        .map(|(i, &w)| b.add_task(j, format!("t{i}"), w, None).unwrap())
        .collect();
    for &(u, v, d) in edges {
        b.add_edge(ids[u], ids[v], d).unwrap();
    }
    b.build().unwrap()
}

fn run(p: &Problem, config: SimConfig, policy: &mut dyn OnlinePolicy) -> SimResult {
    let config = SimConfig {
        record_events: true,
        ..config
    };
    let r = Simulation::new(p, config).unwrap().run(policy, 1).unwrap();
    if let Err(v) = check_log(p, &r) {
        panic!("{}: {v:?}", policy.name());
    }
    r
}

/// `(gpu index, start, finish)` per task.
fn placements(r: &SimResult) -> Vec<(usize, f64, f64)> {
    r.tasks
        .iter()
        .map(|t| (t.gpu.index(), t.start, t.finish))
        .collect()
}

fn heft() -> Box<dyn Scheduler> {
    Box::new(Heft::new())
}

fn all_policies() -> Vec<Box<dyn OnlinePolicy>> {
    vec![
        Box::new(RoundRobin::new()),
        Box::new(LeastConnection::new()),
        Box::new(OnlineEft::new()),
        Box::new(Replan::new(heft(), Budget::default())),
    ]
}

#[test]
fn two_independent_tasks_on_two_gpus() {
    // Works 4 and 2 on GPUs of speed 1 and 2. Round-robin and least-connection ignore
    // speeds: t0 -> g0 (4 s), t1 -> g1 (1 s). Online EFT takes t0 first (rank (4 + 2) / 2
    // = 3 > 1.5) to g1 (finish 2 < 4), then t1 to g0 (finish 2 < 2 + 1); HEFT re-planning
    // makes the same plan.
    let p = Problem::new(Arc::new(workload(&[4.0, 2.0], &[])), cluster(&[1.0, 2.0])).unwrap();
    for (policy, expected, makespan) in [
        (
            Box::new(RoundRobin::new()) as Box<dyn OnlinePolicy>,
            [(0, 0.0, 4.0), (1, 0.0, 1.0)],
            4.0,
        ),
        (
            Box::new(LeastConnection::new()),
            [(0, 0.0, 4.0), (1, 0.0, 1.0)],
            4.0,
        ),
        (
            Box::new(OnlineEft::new()),
            [(1, 0.0, 2.0), (0, 0.0, 2.0)],
            2.0,
        ),
        (
            Box::new(Replan::new(heft(), Budget::default())),
            [(1, 0.0, 2.0), (0, 0.0, 2.0)],
            2.0,
        ),
    ] {
        let mut policy = policy;
        let r = run(&p, SimConfig::default(), policy.as_mut());
        assert_eq!(placements(&r), expected, "{}", policy.name());
        assert_eq!(r.metrics.makespan, makespan, "{}", policy.name());
    }
}

#[test]
fn round_robin_keeps_its_cursor_least_connection_counts_tasks() {
    // Two GPUs of speed 1; tasks t0 (1 s), t1 (10 s), t2 (1 s), and t3 (1 s) a child of t0
    // with an empty edge. At 0 the ready tasks t0, t1, t2 go g0, g1, g0 under both rules
    // (least connection: loads 0/0, 1/0, 1/1 -> ties to g0). At 1, t0 finishes and t3 is
    // ready: round-robin's cursor is at g1, where t3 waits for t1 (10 -> 11); least
    // connection sees one task on each GPU (t2 started at 1 on g0, t1 on g1) and takes g0:
    // t3 runs after t2, 2 -> 3.
    let p = Problem::new(
        Arc::new(workload(&[1.0, 10.0, 1.0, 1.0], &[(0, 3, 0.0)])),
        cluster(&[1.0, 1.0]),
    )
    .unwrap();
    let r = run(&p, SimConfig::default(), &mut RoundRobin::new());
    assert_eq!(
        placements(&r),
        [
            (0, 0.0, 1.0),
            (1, 0.0, 10.0),
            (0, 1.0, 2.0),
            (1, 10.0, 11.0)
        ]
    );
    assert_eq!(r.metrics.makespan, 11.0);
    let r = run(&p, SimConfig::default(), &mut LeastConnection::new());
    assert_eq!(
        placements(&r),
        [(0, 0.0, 1.0), (1, 0.0, 10.0), (0, 1.0, 2.0), (0, 2.0, 3.0)]
    );
    assert_eq!(r.metrics.makespan, 10.0);
    // Online EFT: ranks t1 10, t0 1 + 1 = 2, t2 1, t3 1. t1 -> g0 (tie to the lower index),
    // t0 -> g1 (1 < 11), t2 -> g1 (2 < 11); at 1 t3 goes to g1 where its input is (EFT
    // max(2, 1) + 1 = 3 against 11).
    let r = run(&p, SimConfig::default(), &mut OnlineEft::new());
    assert_eq!(
        placements(&r),
        [(1, 0.0, 1.0), (0, 0.0, 10.0), (1, 1.0, 2.0), (1, 2.0, 3.0)]
    );
}

#[test]
fn online_eft_counts_the_transfer_from_the_parent_gpu() {
    // t0 (2 s) -> t2 (1 s) with 3 GB (3 s between GPUs), t1 (4 s) independent, two GPUs of
    // speed 1. Ranks: t0 = 2 + 3 + 1 = 6, t1 = 4, t2 = 1. t0 -> g0 [0, 2]; t1 -> g1 (4 < 6)
    // [0, 4]. At 2, t2: on g0 max(2, 2 + 0) + 1 = 3, on g1 max(4, 2 + 3) + 1 = 6: g0.
    let p = Problem::new(
        Arc::new(workload(&[2.0, 4.0, 1.0], &[(0, 2, 3e9)])),
        cluster(&[1.0, 1.0]),
    )
    .unwrap();
    let mut eft = OnlineEft::new();
    let r = run(&p, SimConfig::default(), &mut eft);
    assert_eq!(
        placements(&r),
        [(0, 0.0, 2.0), (1, 0.0, 4.0), (0, 2.0, 3.0)]
    );
    assert_eq!(eft.ranks(), [6.0, 4.0, 1.0]);
    assert_eq!(r.metrics.bytes_moved, 0.0);
    // Round-robin sends t2 to g0 too (cursor back at g0), least connection to g0 (loads
    // 0 and 1): the same plan here.
    for mut policy in all_policies() {
        let r = run(&p, SimConfig::default(), policy.as_mut());
        assert_eq!(r.tasks[2].finish, 3.0, "{}", policy.name());
    }
}

#[test]
fn replan_plans_each_arrival_and_each_loss() {
    // Job a: x (work 6); job b: y (work 2), released at 5. GPUs of speed 1 and 2.
    let mut b = WorkloadBuilder::new("w");
    let ja = b.add_job("a").unwrap();
    let jb = b.add_job("b").unwrap();
    b.add_task(ja, "x", 6.0, None).unwrap();
    b.add_task(jb, "y", 2.0, None).unwrap();
    b.set_release(jb, 5.0).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), cluster(&[1.0, 2.0])).unwrap();
    let mut replan = Replan::new(heft(), Budget::default());
    let r = run(&p, SimConfig::default(), &mut replan);
    // At 0: x to the fast g1 [0, 3]. At 5: y alone, both GPUs free: g1 [5, 6].
    assert_eq!(placements(&r), [(1, 0.0, 3.0), (1, 5.0, 6.0)]);
    let rec = replan.records();
    assert_eq!(rec.len(), 2);
    assert_eq!((rec[0].time, rec[0].tasks), (0.0, 1));
    assert_eq!((rec[1].time, rec[1].tasks), (5.0, 1));
    assert_eq!(
        (rec[0].planned_makespan, rec[1].planned_makespan),
        (3.0, 1.0)
    );
    assert_eq!(r.jobs[1].jct, 1.0);
    // g1 fails at 1 until 100: x is lost after 1 s and re-planned at 1. The failed g1 is
    // offered after the horizon (latest up GPU ready 0 + x's slowest run 6), so it would
    // finish x at 6 + 3 = 9 against 6 on g0: x runs on g0 [1, 7]. At 5, y: g0 is free at
    // 7 (2 from now; finish 2 + 2 = 4), g1 offered at 2 + 2 (+ 1 = 5): g0 [7, 9].
    let failures = Failures::Script(vec![Outage::new(GpuId::new(1), 1.0, 100.0)]);
    let config = SimConfig {
        failures,
        ..SimConfig::default()
    };
    let mut replan = Replan::new(heft(), Budget::default());
    let r = run(&p, config.clone(), &mut replan);
    assert_eq!(placements(&r), [(0, 1.0, 7.0), (0, 7.0, 9.0)]);
    assert_eq!((r.tasks[0].attempts, r.tasks[0].lost_time), (2, 1.0));
    assert_eq!(r.metrics.lost_time, 1.0);
    let times: Vec<f64> = replan.records().iter().map(|x| x.time).collect();
    assert_eq!(times, [0.0, 1.0, 5.0]);
    // Online EFT makes the same decisions (the failed g1 is not eligible).
    let r = run(&p, config.clone(), &mut OnlineEft::new());
    assert_eq!(placements(&r), [(0, 1.0, 7.0), (0, 7.0, 9.0)]);
    assert_eq!(r.tasks[0].attempts, 2);
    // Round-robin and least connection put x on g0 at 0 (not lost); y skips the failed g1.
    for mut policy in [
        Box::new(LeastConnection::new()) as Box<dyn OnlinePolicy>,
        Box::new(RoundRobin::new()),
    ] {
        let r = run(&p, config.clone(), policy.as_mut());
        assert_eq!(
            placements(&r),
            [(0, 0.0, 6.0), (0, 6.0, 8.0)],
            "{}",
            policy.name()
        );
        assert_eq!(r.metrics.lost_time, 0.0);
    }
}

#[test]
fn replan_at_time_zero_plans_the_whole_problem() {
    // At 0 with every job released, the sub-problem is the problem itself (same run times,
    // related or unrelated, same ready times, memory and network): its HEFT plan has HEFT's
    // makespan on the problem.
    for kind in ClusterKind::ALL {
        for seed in 0..3 {
            let p = random_problem(20, 4, 0.2, kind, 1.0, seed);
            let heft_makespan = Heft::new()
                .schedule(&p, &mut RunContext::new(0))
                .unwrap()
                .makespan();
            let mut replan = Replan::new(heft(), Budget::default());
            let r = run(&p, SimConfig::default(), &mut replan);
            let rec = replan.records();
            assert_eq!((rec.len(), rec[0].tasks), (1, 20), "{kind:?} {seed}");
            let rel = (rec[0].planned_makespan - heft_makespan).abs() / heft_makespan;
            assert!(
                rel < 1e-12,
                "{kind:?} {seed}: {} vs {heft_makespan}",
                rec[0].planned_makespan
            );
            assert_eq!(r.metrics.replans, 0.0);
        }
    }
}

#[test]
fn policy_specs_build_the_online_policies() {
    // `worl simulate`'s specs: each builds its policy, which runs to the same placements as
    // the policy made by hand (two_independent_tasks_on_two_gpus).
    let p = Problem::new(Arc::new(workload(&[4.0, 2.0], &[])), cluster(&[1.0, 2.0])).unwrap();
    let registry = worl_sched::Registry::with_builtins();
    for (spec, name, gpus) in [
        ("replan:heft", "replan(HEFT)", [1, 0]),
        ("eft", "online-eft", [1, 0]),
        ("least-connection", "least-connection", [0, 1]),
        ("round-robin", "round-robin", [0, 1]),
    ] {
        let built = spec
            .parse::<PolicySpec>()
            .unwrap()
            .build(&p, &registry, &Budget::default(), 3)
            .unwrap();
        let mut policy = built.policy;
        assert_eq!(policy.name(), name);
        assert!(built.planned.is_none() && !built.stochastic, "{spec}");
        let r = run(&p, SimConfig::default(), policy.as_mut());
        let got: Vec<usize> = r.tasks.iter().map(|t| t.gpu.index()).collect();
        assert_eq!(got, gpus, "{spec}");
    }
}

#[test]
fn a_reused_policy_gives_the_same_run() {
    let p = Problem::new(
        Arc::new(workload(&[1.0, 10.0, 1.0, 1.0], &[(0, 3, 0.0)])),
        cluster(&[1.0, 1.0]),
    )
    .unwrap();
    for mut policy in all_policies() {
        let a = run(&p, SimConfig::default(), policy.as_mut());
        let b = run(&p, SimConfig::default(), policy.as_mut());
        assert_eq!(placements(&a), placements(&b), "{}", policy.name());
    }
}

fn configs() -> Vec<SimConfig> {
    vec![
        SimConfig::default(),
        common::noisy(),
        // Decision times charged: dispatches take effect after the policy's wall-clock
        // time (the run then depends on the host; the properties do not).
        SimConfig {
            contention: Contention::Fair,
            charge_decision_time: true,
            ..SimConfig::default()
        },
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_policy_completes_random_problems(p in problems(24, 5), q in problems(8, 5), seed in 0u64..1000) {
        // Every problem of `problems` has a GPU of 16 GiB or more for its 14 GiB tasks, so q's
        // workload fits p's cluster; an unrelated p keeps its own execution-time matrix
        // (the merged problem would lose it), so only p itself is run then.
        let mut problems = vec![p.clone()];
        if !p.is_unrelated() {
            problems.push(common::streamed(&p, &q, 10.0, seed));
        }
        for problem in &problems {
            for config in configs() {
                for mut policy in all_policies() {
                    let config = SimConfig { record_events: true, ..config.clone() };
                    let r = Simulation::new(problem, config).unwrap().run(policy.as_mut(), seed);
                    let r = match r {
                        Ok(r) => r,
                        Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", policy.name()))),
                    };
                    prop_assert_eq!(r.tasks.len(), problem.n_tasks());
                    for (v, t) in r.tasks.iter().enumerate() {
                        prop_assert!(t.finish >= t.start && t.start.is_finite(), "{} task {v}", policy.name());
                        prop_assert!(problem.fits(TaskId::new(v), t.gpu));
                    }
                    if let Err(v) = check_log(problem, &r) {
                        return Err(TestCaseError::fail(format!("{}: {v:?}", policy.name())));
                    }
                }
            }
        }
    }
}
