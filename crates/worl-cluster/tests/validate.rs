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

// ----- issue 20: a tolerance that no shift of the time origin can fool -----

/// `problem()` with every ready time moved by `offset` s.
fn problem_shifted(offset: f64) -> Problem {
    let p = problem();
    let mut c = p.cluster().clone();
    for k in 0..c.n_gpus() {
        let r = c.gpu(g(k)).ready_time;
        c.set_ready_time(g(k), r + offset).unwrap();
    }
    Problem::new(p.workload_arc().clone(), Arc::new(c)).unwrap()
}

fn shifted(s: &Schedule, offset: f64) -> Schedule {
    let tasks = s
        .tasks()
        .iter()
        .map(|x| e(x.gpu.index(), x.start + offset, x.finish + offset))
        .collect();
    Schedule::new(s.n_gpus(), tasks).unwrap()
}

fn kinds(v: &[Violation]) -> Vec<&'static str> {
    let mut k: Vec<_> = v.iter().map(Violation::constraint).collect();
    k.sort_unstable();
    k.dedup();
    k
}

#[test]
fn zero_durations_shifted_to_1e12_are_refused() {
    // Every task at start = finish = 1e12, b on another GPU than its parent a: the old
    // tolerance (1e-9 · makespan = 1000 s there) called this valid. f64 numbers at 1e12
    // are 0.12 ms apart: far finer than the 1 to 3 s that are missing.
    let p = problem();
    let s = Schedule::new(
        2,
        vec![e(0, 1e12, 1e12), e(1, 1e12, 1e12), e(0, 1e12, 1e12)],
    )
    .unwrap();
    let v = s.validate(&p);
    assert_eq!(kinds(&v), ["duration", "precedence"], "{v:?}");
    for (task, gpu, expected) in [(0, 0, 2.0), (1, 1, 3.0), (2, 0, 1.0)] {
        assert!(
            v.contains(&Violation::Duration {
                task: t(task),
                gpu: g(gpu),
                expected,
                actual: 0.0
            }),
            "{v:?}"
        );
    }
    // b needs a's 4 bytes: 1 s latency + 4 B at 2 B/s after a's finish
    assert!(v.contains(&Violation::Precedence {
        from: t(0),
        to: t(1),
        data_ready: 1e12 + 3.0,
        start: 1e12,
        amount: 3.0,
    }));
}

#[test]
fn a_feasible_schedule_computed_at_4e9_s_is_valid() {
    // A task of 2^32 s, then tasks of 26 s and 0 s after it on one GPU, times computed in
    // f64 (as HEFT does): f64 numbers there are 4.8e-7 s apart, more than the 1.26e-7 s
    // tolerance of the 26 s task, so only the rounding allowance keeps a correct schedule
    // valid; x running 10 µs long (more than the 1.9 µs of 4 spacings) is still found.
    let w = workload(
        &[
            ("big", 4_294_967_296.0, None),
            ("x", 26.0, None),
            ("z", 0.0, None),
        ],
        &[],
    );
    let c = single_gpu_machines(&[1.0], Link::new(1e9, 1e-6).unwrap());
    let p = Problem::new(w, Arc::new(c)).unwrap();
    let f0 = 4_294_967_296.0;
    let f1 = f0 + 26.0;
    let s = Schedule::new(1, vec![e(0, 0.0, f0), e(0, f0, f1), e(0, f1, f1)]).unwrap();
    assert_eq!(s.validate(&p), vec![]);
    let z = f1 + 1e-5;
    let long = Schedule::new(1, vec![e(0, 0.0, f0), e(0, f0, z), e(0, z, z)]).unwrap();
    assert_eq!(kinds(&long.validate(&p)), ["duration"]);
}

#[test]
fn a_task_at_1e308_is_refused() {
    let p = problem();
    // a feasible schedule but for c, which runs at 1e308 for its 1 s (1e308 + 1 == 1e308)
    let s = Schedule::new(2, vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 1e308, 1e308)]).unwrap();
    let v = s.validate(&p);
    assert_eq!(
        v,
        vec![Violation::Precision {
            task: t(2),
            from: None,
            time: 1e308,
            spacing: worl_cluster::validate::spacing(1e308),
            tolerance: 1e-7 + 1e-9,
        }]
    );
    assert!(worl_cluster::validate::spacing(1e308) > 1e291);
    assert_eq!(worl_cluster::validate::spacing(f64::MAX), 2f64.powi(971));
    assert_eq!(
        v[0].explain(&p, &s).to_string(),
        "precision: `j/c` (t2) [1e308 s, 1e308 s] reaches 1e308 s, where f64 times are \
         1.99584030953472e292 s apart, too coarse to check it to its 1.0099999999999999e-7 s \
         tolerance (move the time origin nearer the schedule's start)"
    );
}

#[test]
fn a_start_5e_14_s_early_after_a_50_us_latency_is_valid() {
    // a(2 s) -> b(3 s) with 0 bytes over a link of 50 µs latency, as a Python scheduler
    // computes it: b starts at (finish + latency) rounded a few ulps low.
    let w = workload(&[("a", 2.0, None), ("b", 3.0, None)], &[(0, 1, 0.0)]);
    let c = single_gpu_machines(&[1.0, 1.0], Link::new(1e9, 5e-5).unwrap());
    let p = Problem::new(w, Arc::new(c)).unwrap();
    let fa = 12.345_678;
    let sb = fa + 5e-5 - 5e-14;
    let s = Schedule::new(2, vec![e(0, fa - 2.0, fa), e(1, sb, sb + 3.0)]).unwrap();
    assert_eq!(s.validate(&p), vec![]);
    // 1 µs early (10 times the absolute tolerance) is refused, at any time origin.
    for offset in [0.0, 1e3, 1e6, 3e7] {
        let sb = fa + offset + 5e-5 - 1e-6;
        let s = Schedule::new(
            2,
            vec![e(0, fa + offset - 2.0, fa + offset), e(1, sb, sb + 3.0)],
        )
        .unwrap();
        let v = s.validate(&p);
        assert_eq!(kinds(&v), ["precedence"], "offset {offset}: {v:?}");
        let Violation::Precedence { amount, .. } = v[0] else {
            unreachable!()
        };
        assert!((amount - 1e-6).abs() < 1e-8, "offset {offset}: {amount}");
    }
}

#[test]
fn validate_verdict_is_invariant_under_time_shift_of_hand_made_schedules() {
    // One valid schedule and one schedule per constraint broken by small amounts (1 µs to
    // 0.5 s), moved by offsets up to 2^26 s (two years): the violations stay the same kinds
    // on the same tasks.
    let valid = vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 3.0, 4.0)];
    let cases = [
        valid.clone(),
        vec![e(0, 1.0, 3.0), e(1, 6.0 - 1e-6, 9.0 - 1e-6), e(0, 3.0, 4.0)], // precedence
        vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 3.0 - 1e-6, 4.0 - 1e-6)], // overlap
        vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0 + 1e-6), e(0, 3.0, 4.0)],        // duration
        vec![e(0, 1.0 - 1e-6, 3.0 - 1e-6), e(1, 6.0, 9.0), e(0, 3.0, 4.0)], // ready time
        vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 3.0, 3.0)],               // zero duration
        vec![e(0, 1.0, 3.0), e(1, 6.0, 9.0), e(0, 2.5, 3.5)],               // 0.5 s overlap
    ];
    let p = problem();
    for (i, tasks) in cases.iter().enumerate() {
        let s = Schedule::new(2, tasks.clone()).unwrap();
        assert_eq!(s.is_valid(&p), i == 0, "case {i}: {:?}", s.validate(&p));
        for offset in [
            1e-3,
            0.1,
            7.0,
            1e3,
            86_400.0,
            1e6,
            3.1e7,
            2f64.powi(26) - 10.0,
        ] {
            let q = problem_shifted(offset);
            let v = shifted(&s, offset).validate(&q);
            assert_eq!(
                kinds(&v),
                kinds(&s.validate(&p)),
                "case {i}, offset {offset}: {v:?}"
            );
        }
    }
}
