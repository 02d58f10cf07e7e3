//! The validator reports every violated constraint; the incremental API's contracts;
//! serde of plans and schedules.

mod common;

use common::{single_gpu_machines, t, workload};
use std::sync::Arc;
use worl_cluster::{
    ClusterError, Evaluator, GpuId, Link, PartialSchedule, Plan, Policy, Problem, Schedule,
    ScheduledTask, Violation,
};

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

fn e(gpu: usize, start: f64, finish: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: g(gpu),
        start,
        finish,
    }
}

/// a(2 s, 8 GiB) -> b(3 s) with 4 bytes at 2 B/s + 1 s latency; c(1 s) independent.
/// g0 ready at 1; GPUs of 32 GiB except g1 with 4 GiB.
fn problem() -> Problem {
    let w = workload(
        &[("a", 2.0, Some(8.0)), ("b", 3.0, None), ("c", 1.0, None)],
        &[(0, 1, 4.0)],
    );
    let mut c = single_gpu_machines(&[1.0, 1.0], Link::new(2.0, 1.0).unwrap());
    c.set_ready_time(g(0), 1.0).unwrap();
    let mut data: serde_json::Value = serde_json::from_str(&c.to_json_string()).unwrap();
    data["gpus"][1]["mem_gib"] = serde_json::json!(4.0);
    let c = worl_cluster::Cluster::from_json_str(&data.to_string()).unwrap();
    Problem::new(w, Arc::new(c)).unwrap()
}

#[test]
fn a_feasible_schedule_has_no_violation() {
    let p = problem();
    // a on g0 [1,3]; b on g1 needs 3 + 1 + 2 = 6 -> [6,9]; c on g0 [3,4]
    let s = Schedule::new(2, vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 3.0, 4.0)]).unwrap();
    assert_eq!(s.validate(&p), vec![]);
    assert!(s.is_valid(&p));
    assert_eq!(s.busy_time(g(0)), 3.0);
}

#[test]
fn every_kind_of_violation_is_reported_with_amounts() {
    let p = problem();
    let s = Schedule::new(
        2,
        vec![
            e(0, 0.5, 2.5), // before g0's ready time 1 by 0.5
            e(1, 5.0, 8.0), // data ready at 2.5 + 1 + 2 = 5.5: 0.5 early
            e(0, 2.0, 4.0), // overlaps a by 0.5, runs 2 instead of 1
        ],
    )
    .unwrap();
    let v = s.validate(&p);
    let expected = vec![
        Violation::BeforeReady {
            task: t(0),
            gpu: g(0),
            ready_time: 1.0,
            start: 0.5,
            amount: 0.5,
        },
        Violation::Precedence {
            from: t(0),
            to: t(1),
            data_ready: 5.5,
            start: 5.0,
            amount: 0.5,
        },
        Violation::Duration {
            task: t(2),
            gpu: g(0),
            expected: 1.0,
            actual: 2.0,
        },
        Violation::Overlap {
            gpu: g(0),
            first: t(0),
            second: t(2),
            amount: 0.5,
        },
    ];
    assert_eq!(v, expected);
    assert!(v[3].to_string().contains("before t0 finishes"), "{}", v[3]);
}

#[test]
fn memory_unknown_gpu_missing_and_extra_tasks() {
    let p = problem();
    // a on g1 (4 GiB < 8 GiB)
    let s = Schedule::new(2, vec![e(1, 0.0, 2.0), e(1, 5.0, 8.0)]).unwrap();
    let v = s.validate(&p);
    assert!(v.contains(&Violation::Memory {
        task: t(0),
        gpu: g(1),
        need_gib: 8.0,
        have_gib: 4.0
    }));
    assert!(v.contains(&Violation::MissingTask { task: t(2) }));
    let s = Schedule::new(
        3,
        vec![
            e(0, 1.0, 3.0),
            e(2, 6.0, 9.0),
            e(0, 3.0, 4.0),
            e(0, 4.0, 5.0),
        ],
    )
    .unwrap();
    let v = s.validate(&p);
    assert!(v.contains(&Violation::UnknownGpu {
        task: t(1),
        gpu: g(2)
    }));
    assert!(v.contains(&Violation::UnknownTask { task: t(3) }));
}

#[test]
fn schedule_construction_checks_its_own_invariants() {
    assert!(matches!(
        Schedule::new(1, vec![e(1, 0.0, 1.0)]),
        Err(ClusterError::UnknownId { kind: "GPU", .. })
    ));
    assert!(matches!(
        Schedule::new(1, vec![e(0, 2.0, 1.0)]),
        Err(ClusterError::InvalidInterval { .. })
    ));
    assert!(matches!(
        Schedule::new(1, vec![e(0, f64::NAN, 1.0)]),
        Err(ClusterError::InvalidInterval { .. })
    ));
    let s = Schedule::new(2, vec![e(0, 3.0, 4.0), e(0, 1.0, 2.0), e(1, 0.0, 0.0)]).unwrap();
    assert_eq!(s.timeline(g(0)), &[t(1), t(0)]);
    assert_eq!(s.makespan(), 4.0);
}

#[test]
fn plans_and_schedules_round_trip_through_json() {
    let p = problem();
    let plan = Plan::new(vec![g(0), g(0), g(1)], vec![t(0), t(2), t(1)]);
    let json = serde_json::to_string(&plan).unwrap();
    assert_eq!(json, r#"{"gpu":[0,0,1],"order":[0,2,1]}"#);
    assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
    let s = Evaluator::new(&p)
        .schedule(&plan, Policy::Insertion)
        .unwrap();
    let back = Schedule::from_json_str(&s.to_json_string()).unwrap();
    assert_eq!(back, s);
    assert!(
        Schedule::from_json_str(r#"{"n_gpus":1,"tasks":[{"gpu":3,"start":0,"finish":1}]}"#)
            .is_err()
    );
    let m = s.metrics(&p);
    let mj: worl_cluster::Metrics =
        serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    assert_eq!(mj, m);
}

#[test]
fn partial_schedule_queries_and_contracts() {
    let p = problem();
    let mut s = PartialSchedule::new(&p);
    assert_eq!(s.available(g(0)), 1.0);
    // b before a: not topological
    assert!(matches!(
        s.est(t(1), g(0), Policy::Append),
        Err(ClusterError::NotTopological { .. })
    ));
    // a does not fit g1
    assert!(matches!(
        s.eft(t(0), g(1), Policy::Append),
        Err(ClusterError::MemoryInfeasible { .. })
    ));
    assert_eq!(s.eft(t(0), g(0), Policy::Append).unwrap(), 3.0);
    let stale = s.slot(t(2), g(0), Policy::Append).unwrap();
    s.place(t(0), g(0), Policy::Append).unwrap();
    assert!(matches!(
        s.commit(stale),
        Err(ClusterError::StaleSlot { .. })
    ));
    assert!(matches!(
        s.place(t(0), g(0), Policy::Append),
        Err(ClusterError::DuplicateTask { .. })
    ));
    assert_eq!(s.data_ready_time(t(1), g(1)).unwrap(), 3.0 + 1.0 + 2.0);
    assert_eq!(s.data_ready_time(t(1), g(0)).unwrap(), 3.0);
    assert_eq!(s.est(t(1), g(1), Policy::Insertion).unwrap(), 6.0);
    assert!(matches!(
        s.to_schedule(),
        Err(ClusterError::Incomplete { missing: 2, .. })
    ));
    assert!(matches!(
        s.est(t(2), g(5), Policy::Append),
        Err(ClusterError::UnknownId { .. })
    ));
    s.place(t(1), g(1), Policy::Append).unwrap();
    s.place(t(2), g(0), Policy::Insertion).unwrap();
    assert_eq!(s.timeline(g(0)).collect::<Vec<_>>(), vec![t(0), t(2)]);
    assert_eq!(
        (s.gpu_of(t(2)), s.start(t(2)), s.finish(t(2))),
        (Some(g(0)), Some(3.0), Some(4.0))
    );
    assert!(s.is_complete() && s.makespan() == 9.0);
    let sched = s.to_schedule().unwrap();
    assert!(sched.validate(&p).is_empty());
    s.reset();
    assert_eq!((s.n_placed(), s.makespan(), s.gpu_of(t(0))), (0, 0.0, None));
}
