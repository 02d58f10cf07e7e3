//! Golden test: the 10-task / 3-processor DAG of Topcuoglu, Hariri and Wu, "Performance-
//! effective and low-complexity task scheduling for heterogeneous computing", IEEE TPDS
//! 13(3), 2002, Fig. 2 and its computation costs table. Unrelated execution costs (the W
//! matrix); communication = edge cost on different processors (bytes = cost, 1 B/s,
//! latency 0).

mod common;

use common::t;
use ndarray::Array2;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, Evaluator, GpuId, GpuModel, Link, Network, PartialSchedule, Plan, Policy,
    Problem,
};
use worl_dag::generators::shapes::topcuoglu_2002;

/// W: rows T1..T10, columns P1..P3.
const W: [[f64; 3]; 10] = [
    [14.0, 16.0, 9.0],
    [13.0, 19.0, 18.0],
    [11.0, 13.0, 19.0],
    [13.0, 8.0, 17.0],
    [12.0, 13.0, 10.0],
    [13.0, 16.0, 9.0],
    [7.0, 15.0, 11.0],
    [5.0, 11.0, 14.0],
    [18.0, 12.0, 20.0],
    [21.0, 7.0, 16.0],
];

fn problem() -> Problem {
    let w = Arc::new(topcuoglu_2002([0.0; 10]).unwrap());
    let mut cb = ClusterBuilder::new("3 processors");
    for i in 1..=3 {
        let m = cb.add_machine(format!("P{i}"));
        cb.add_gpu(m, &GpuModel::custom(format!("P{i}"), 1.0, 1.0).unwrap())
            .unwrap();
    }
    let unit = Link::new(1.0, 0.0).unwrap();
    cb.network(Network::uniform(unit, unit));
    let exec = Array2::from_shape_fn((10, 3), |(v, k)| W[v][k]);
    Problem::with_exec_times(w, Arc::new(cb.build().unwrap()), exec).unwrap()
}

/// HEFT's published order (rank_u, tie T3 = T4 taken as in the paper) and processors.
fn heft_plan() -> Plan {
    let order = [1, 3, 4, 2, 5, 6, 9, 7, 8, 10].map(|i| t(i - 1)).to_vec();
    // processor (1-based) of T1..T10
    let proc = [3, 1, 3, 2, 3, 2, 3, 1, 2, 2];
    Plan::new(proc.map(|k| GpuId::new(k - 1)).to_vec(), order)
}

/// HEFT's schedule: (task, processor, start, finish), 1-based.
const HEFT: [(usize, usize, f64, f64); 10] = [
    (1, 3, 0.0, 9.0),
    (2, 1, 27.0, 40.0),
    (3, 3, 9.0, 28.0),
    (4, 2, 18.0, 26.0),
    (5, 3, 28.0, 38.0),
    (6, 2, 26.0, 42.0),
    (7, 3, 38.0, 49.0),
    (8, 1, 57.0, 62.0),
    (9, 2, 56.0, 68.0),
    (10, 2, 73.0, 80.0),
];

#[test]
fn insertion_evaluator_reproduces_heft_schedule_exactly() {
    let p = problem();
    let mut ev = Evaluator::new(&p);
    let s = ev.schedule(&heft_plan(), Policy::Insertion).unwrap();
    for (i, k, start, finish) in HEFT {
        let e = s.task(t(i - 1));
        assert_eq!(
            (e.gpu.index() + 1, e.start, e.finish),
            (k, start, finish),
            "T{i}"
        );
    }
    assert_eq!(s.makespan(), 80.0);
    assert_eq!(ev.makespan(&heft_plan(), Policy::Insertion).unwrap(), 80.0);
    assert_eq!(s.timeline(GpuId::new(0)), &[t(1), t(7)]);
    assert_eq!(s.timeline(GpuId::new(1)), &[t(3), t(5), t(8), t(9)]);
    assert_eq!(s.timeline(GpuId::new(2)), &[t(0), t(2), t(4), t(6)]);
    assert!(s.validate(&p).is_empty(), "{:?}", s.validate(&p));
    // HEFT filled no idle gap on this instance (every task goes after its processor's
    // last one), so the append policy yields the same schedule.
    assert_eq!(ev.schedule(&heft_plan(), Policy::Append).unwrap(), s);
}

#[test]
fn heft_metrics_match_reference() {
    let p = problem();
    let s = Evaluator::new(&p)
        .schedule(&heft_plan(), Policy::Insertion)
        .unwrap();
    assert_eq!(p.min_critical_path(), 41.0);
    assert_eq!(p.sequential_time(), 127.0);
    let m = s.metrics(&p);
    assert_eq!(m.makespan, 80.0);
    assert_eq!(m.slr, 80.0 / 41.0);
    assert!((m.slr - 1.951).abs() < 1e-3);
    assert_eq!(m.speedup, 1.5875);
    assert!((m.efficiency - 0.529).abs() < 1e-3);
    // busy time: 13+5 + 8+16+12+7 + 9+19+10+11 = 110 over 3 · 80
    assert_eq!(m.utilisation, 110.0 / 240.0);
    // LB: CP_MIN 41 vs Σ min exec / 3 = (9+13+11+8+10+9+7+5+12+7) / 3 = 91 / 3
    let lb = p.lower_bound();
    assert_eq!(
        (lb.critical_path, lb.area, lb.value),
        (41.0, 91.0 / 3.0, 41.0)
    );
    assert_eq!(m.gap, 80.0 / 41.0);
}

#[test]
fn upward_ranks_from_mean_costs_match_the_paper() {
    let p = problem();
    let g = p.graph();
    let rank = g.bottom_levels(
        |v| p.mean_exec_time(v),
        |_, _, bytes| p.mean_comm_time(bytes),
    );
    let expected = [
        108.0, 77.0, 80.0, 80.0, 69.0, 63.333, 42.667, 35.667, 44.333, 14.667,
    ];
    for (i, (&r, e)) in rank.iter().zip(expected).enumerate() {
        assert!((r - e).abs() < 1e-3, "T{}: {r} vs {e}", i + 1);
    }
}

/// HEFT written against the incremental API: tasks in rank order, each on the GPU of
/// minimum EFT under insertion. It must choose the published processors.
#[test]
fn heft_on_the_incremental_api_chooses_the_published_processors() {
    let p = problem();
    let mut s = PartialSchedule::new(&p);
    for &v in &heft_plan().order {
        let best = p
            .cluster()
            .gpu_ids()
            .map(|k| s.slot(v, k, Policy::Insertion).unwrap())
            .min_by(|a, b| a.finish().total_cmp(&b.finish()))
            .unwrap();
        s.commit(best).unwrap();
    }
    let sched = s.to_schedule().unwrap();
    for (i, k, start, finish) in HEFT {
        let e = sched.task(t(i - 1));
        assert_eq!(
            (e.gpu.index() + 1, e.start, e.finish),
            (k, start, finish),
            "T{i}"
        );
    }
    // The schedule's own plan (start order) decodes to the same schedule.
    let again = Evaluator::new(&p)
        .schedule(&sched.to_plan(&p), Policy::Insertion)
        .unwrap();
    assert_eq!(again, sched);
}
