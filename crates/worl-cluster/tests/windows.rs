//! Busy windows (issue 21) in the decoders and the validator: hand-computed placements.

mod common;

use common::t;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, Evaluator, GpuId, GpuModel, Link, Network, PartialSchedule, Plan, Policy,
    Problem, Schedule, ScheduledTask, Violation,
};
use worl_dag::WorkloadBuilder;

/// Two single-GPU machines of speed 1 linked with no latency (0-byte edges cost 0), GPU 0
/// busy over `[10, 20)`; tasks a..g of work 2, 6, 5, 2, 0, 15, 0 (one job), edges d -> e
/// and f -> g of 0 bytes.
fn problem() -> Problem {
    let mut w = WorkloadBuilder::new("w");
    let j = w.add_job("j").unwrap();
    let mut ids = Vec::new();
    for (name, work) in [
        ("a", 2.0),
        ("b", 6.0),
        ("c", 5.0),
        ("d", 2.0),
        ("e", 0.0),
        ("f", 15.0),
        ("g", 0.0),
    ] {
        ids.push(w.add_task(j, name, work, None).unwrap());
    }
    w.add_edge(ids[3], ids[4], 0.0).unwrap();
    w.add_edge(ids[5], ids[6], 0.0).unwrap();
    let mut c = ClusterBuilder::new("c");
    let model = GpuModel::custom("S1", 1.0, 32.0).unwrap();
    for i in 0..2 {
        let m = c.add_machine(format!("node-{i}"));
        c.add_gpu(m, &model).unwrap();
    }
    c.network(Network::uniform(
        Link::NVLINK2,
        Link::new(1e9, 0.0).unwrap(),
    ));
    c.add_busy(GpuId::new(0), 10.0, 20.0).unwrap();
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

fn at(s: &PartialSchedule<'_>, i: usize) -> (f64, f64) {
    (s.start(t(i)).unwrap(), s.finish(t(i)).unwrap())
}

#[test]
fn a_window_splits_a_gap_under_insertion() {
    let p = problem();
    let (g0, g1) = (GpuId::new(0), GpuId::new(1));
    let mut s = PartialSchedule::new(&p);
    let ins = Policy::Insertion;
    s.place(t(0), g0, ins).unwrap(); // a: [0, 2)
    s.place(t(1), g0, ins).unwrap(); // b (6): [2, 8) fits before the window
    assert_eq!(at(&s, 1), (2.0, 8.0));
    // c (5) does not fit in [8, 10): after the window
    assert_eq!(s.slot(t(2), g0, ins).unwrap().start(), 20.0);
    s.place(t(2), g0, ins).unwrap();
    assert_eq!(at(&s, 2), (20.0, 25.0));
    // d (2) fits exactly in [8, 10), touching the window
    s.place(t(3), g0, ins).unwrap();
    assert_eq!(at(&s, 3), (8.0, 10.0));
    // e (0 s) after d: at the window's start edge (S == from is allowed)
    s.place(t(4), g0, ins).unwrap();
    assert_eq!(at(&s, 4), (10.0, 10.0));
    // f (15) on g1: [0, 15); g (0 s) after it on g0 would start inside the window at 15:
    // pushed to its end, 20, before c (a zero-length gap before c's start)
    s.place(t(5), g1, ins).unwrap();
    s.place(t(6), g0, ins).unwrap();
    assert_eq!(at(&s, 6), (20.0, 20.0));
    let order: Vec<usize> = s.timeline(g0).map(|v| v.index()).collect();
    assert_eq!(order, vec![0, 1, 3, 4, 6, 2]);
    let sched = s.to_schedule().unwrap();
    assert_eq!(sched.validate(&p), vec![]);
    assert_eq!(sched.makespan(), 25.0);
    // the same plan through the evaluator gives the same schedule
    let plan = Plan::new(vec![g0, g0, g0, g0, g0, g1, g0], (0..7).map(t).collect());
    assert_eq!(Evaluator::new(&p).schedule(&plan, ins).unwrap(), sched);
}

#[test]
fn append_moves_past_a_window() {
    let p = problem();
    let g0 = GpuId::new(0);
    let mut s = PartialSchedule::new(&p);
    let app = Policy::Append;
    s.place(t(0), g0, app).unwrap(); // a: [0, 2)
    // b (6) after a: [2, 8) does not meet [10, 20)
    s.place(t(1), g0, app).unwrap();
    assert_eq!(at(&s, 1), (2.0, 8.0));
    // c (5) after b would run [8, 13): past the window, [20, 25)
    s.place(t(2), g0, app).unwrap();
    assert_eq!(at(&s, 2), (20.0, 25.0));
    // d (2) appends after c: [25, 27) even though [8, 10) is free (append keeps order)
    s.place(t(3), g0, app).unwrap();
    assert_eq!(at(&s, 3), (25.0, 27.0));
    // slot_after: right after b is [8, 10) for d's twin e (0 s) — at 8, not in the window
    let sched = {
        s.place(t(4), g0, app).unwrap();
        s.place(t(5), GpuId::new(1), app).unwrap();
        s.place(t(6), g0, app).unwrap();
        s.to_schedule().unwrap()
    };
    assert_eq!(sched.validate(&p), vec![]);
    assert_eq!(sched.makespan(), 27.0);
}

#[test]
fn slot_after_moves_past_a_window_or_refuses() {
    let p = problem();
    let g0 = GpuId::new(0);
    let mut s = PartialSchedule::new(&p);
    s.place(t(0), g0, Policy::Insertion).unwrap(); // a: [0, 2)
    s.place(t(2), g0, Policy::Append).unwrap(); // c: [2, 7)
    // b (6) right after c: [7, 13) meets the window, so [20, 26)
    let slot = s.slot_after(t(1), g0, Some(t(2))).unwrap();
    assert_eq!((slot.start(), slot.finish()), (20.0, 26.0));
    s.commit(slot).unwrap();
    // d (2) right after a would start at 2 but c holds [2, 7): refused
    assert!(s.slot_after(t(3), g0, Some(t(0))).is_err());
}

#[test]
fn the_validator_reports_tasks_in_windows() {
    let p = problem();
    let g0 = GpuId::new(0);
    let entry = |start: f64, work: f64| ScheduledTask {
        gpu: g0,
        start,
        finish: start + work,
    };
    let mut tasks = vec![
        entry(5.0, 2.0),  // a: [5, 7) fine
        entry(30.0, 6.0), // b: [30, 36) fine
        entry(17.0, 5.0), // c: [17, 22) meets [10, 20) by 3 s
        entry(0.0, 2.0),  // d: [0, 2) fine
        entry(10.0, 0.0), // e at the window's start edge: fine
        ScheduledTask {
            gpu: GpuId::new(1),
            start: 0.0,
            finish: 15.0,
        },
        entry(16.0, 0.0), // g (0 s) strictly inside: 4 s from the nearer edge
    ];
    let v = Schedule::new(2, tasks.clone()).unwrap().validate(&p);
    assert_eq!(
        v,
        vec![
            Violation::Window {
                task: t(2),
                gpu: g0,
                from: 10.0,
                to: 20.0,
                start: 17.0,
                finish: 22.0,
                amount: 3.0,
            },
            Violation::Window {
                task: t(6),
                gpu: g0,
                from: 10.0,
                to: 20.0,
                start: 16.0,
                finish: 16.0,
                amount: 4.0,
            },
        ]
    );
    assert_eq!(
        v[0].to_string(),
        "window: t2 runs [17, 22) s on GPU g0, which is busy over [10, 20) s (3 s inside)"
    );
    let s = Schedule::new(2, tasks.clone()).unwrap();
    assert_eq!(
        v[0].explain(&p, &s).to_string(),
        "window: `j/c` (t2) runs [17 s, 22 s) on g0 (S1 on `node-0`), which is busy over [10 s, 20 s) (3 s inside)"
    );
    // ending exactly at the window's start and starting at its end are fine
    tasks[0] = entry(0.0, 2.0); // a: [0, 2)
    tasks[3] = entry(2.0, 2.0); // d: [2, 4)
    tasks[1] = entry(4.0, 6.0); // b: [4, 10) ends at the window's start
    tasks[6] = entry(20.0, 0.0); // g (0 s) at the window's end
    tasks[2] = entry(20.0, 5.0); // c: [20, 25) starts at the window's end
    assert_eq!(Schedule::new(2, tasks).unwrap().validate(&p), vec![]);
}
