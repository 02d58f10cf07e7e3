//! Hand-computed schedules and costs: communication, fork-join, insertion, ready times,
//! background utilisation, construction and plan errors.

mod common;

use common::{single_gpu_machines, t, workload};
use ndarray::Array2;
use std::sync::Arc;
use worl_cluster::{
    ClassId, ClusterBuilder, ClusterError, Evaluator, GpuId, GpuModel, Link, Network, Plan, Policy,
    Problem,
};

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

/// 1 GB/s, 0.5 s latency between machines.
const SLOW: Link = Link {
    bandwidth: 1.0e9,
    latency: 0.5,
};

#[test]
fn chain_across_two_gpus_pays_latency_plus_bytes_over_bandwidth() {
    // a (4 s) -> b (6 s) carrying 2 GB.
    let w = workload(&[("a", 4.0, None), ("b", 6.0, None)], &[(0, 1, 2.0e9)]);
    let p = Problem::new(w, Arc::new(single_gpu_machines(&[1.0, 1.0], SLOW))).unwrap();
    assert_eq!(p.comm_time(2.0e9, g(0), g(1)), 0.5 + 2.0);
    assert_eq!(p.comm_time(2.0e9, g(1), g(1)), 0.0);
    let mut ev = Evaluator::new(&p);
    for policy in [Policy::Append, Policy::Insertion] {
        let split = ev
            .schedule(&Plan::new(vec![g(0), g(1)], vec![t(0), t(1)]), policy)
            .unwrap();
        assert_eq!(
            (split.task(t(1)).start, split.task(t(1)).finish),
            (6.5, 12.5)
        );
        assert_eq!(split.makespan(), 12.5);
        assert!(split.validate(&p).is_empty());
        let together = ev
            .schedule(&Plan::new(vec![g(1), g(1)], vec![t(0), t(1)]), policy)
            .unwrap();
        assert_eq!(
            (together.task(t(1)).start, together.task(t(1)).finish),
            (4.0, 10.0)
        );
    }
}

#[test]
fn intra_machine_link_is_used_between_gpus_of_one_machine() {
    let w = workload(&[("a", 4.0, None), ("b", 6.0, None)], &[(0, 1, 2.0e9)]);
    let mut b = ClusterBuilder::new("one-box");
    let m = b.add_machine("box");
    b.add_gpus(m, &GpuModel::v100_32gb(), 2).unwrap();
    b.network(Network::uniform(Link::new(4.0e9, 0.1).unwrap(), SLOW));
    let p = Problem::new(w, Arc::new(b.build().unwrap())).unwrap();
    let mut ev = Evaluator::new(&p);
    let ms = ev
        .makespan(
            &Plan::new(vec![g(0), g(1)], vec![t(0), t(1)]),
            Policy::Append,
        )
        .unwrap();
    assert!((ms - (4.0 + 0.1 + 0.5 + 6.0)).abs() < 1e-12);
    // mean over the two ordered pairs (both intra): 0.1 + bytes / 4e9
    assert!((p.mean_comm_time(2.0e9) - 0.6).abs() < 1e-12);
}

#[test]
fn fork_join_hand_schedule() {
    // src(2) -> left(3), right(5) -> sink(1); 1 GB per edge; 1 GB/s, no latency.
    let w = workload(
        &[
            ("src", 2.0, None),
            ("left", 3.0, None),
            ("right", 5.0, None),
            ("sink", 1.0, None),
        ],
        &[(0, 1, 1.0e9), (0, 2, 1.0e9), (1, 3, 1.0e9), (2, 3, 1.0e9)],
    );
    let p = Problem::new(
        w,
        Arc::new(single_gpu_machines(
            &[1.0, 1.0],
            Link::new(1.0e9, 0.0).unwrap(),
        )),
    )
    .unwrap();
    let plan = Plan::new(vec![g(0), g(0), g(1), g(0)], vec![t(0), t(1), t(2), t(3)]);
    let s = Evaluator::new(&p).schedule(&plan, Policy::Append).unwrap();
    let got: Vec<(f64, f64)> = s.tasks().iter().map(|e| (e.start, e.finish)).collect();
    assert_eq!(got, vec![(0.0, 2.0), (2.0, 5.0), (3.0, 8.0), (9.0, 10.0)]);
    assert_eq!(s.timeline(g(0)), &[t(0), t(1), t(3)]);
    assert_eq!(s.timeline(g(1)), &[t(2)]);
    assert!(s.validate(&p).is_empty());
    let m = s.metrics(&p);
    assert_eq!(m.makespan, 10.0);
    // CP_MIN = src + right + sink = 8; sequential = 11
    assert_eq!(m.slr, 10.0 / 8.0);
    assert_eq!(m.speedup, 11.0 / 10.0);
    assert_eq!(m.efficiency, 11.0 / 20.0);
    assert_eq!(m.utilisation, 11.0 / 20.0);
    // LB = max(CP 8, area 11 / 2)
    assert_eq!(m.lower_bound, 8.0);
    assert_eq!(m.gap, 10.0 / 8.0);
    // MDTS's service measures: one job finishing at 10; busy g0 = 2 + 3 + 1, g1 = 5
    // (μ = 5.5, σ = 0.5); custom models of speed 1 are priced at the V100's 3.06 $/h.
    assert_eq!(m.mean_job_time, 10.0);
    assert!((m.load_imbalance - 0.5 / 5.5).abs() < 1e-15);
    assert_eq!(
        worl_cluster::gpu_hour_price(p.cluster().model_of(g(0))),
        3.06
    );
    assert!((m.cost - 11.0 / 3600.0 * 3.06).abs() < 1e-15);
}

#[test]
fn insertion_fills_an_idle_gap_that_append_cannot() {
    // x (1 s) on g1 -> y (2 s) on g0 with 5 GB at 1 GB/s: y waits until 6;
    // z (3 s), independent, placed after y on g0.
    let w = workload(
        &[("x", 1.0, None), ("y", 2.0, None), ("z", 3.0, None)],
        &[(0, 1, 5.0e9)],
    );
    let p = Problem::new(
        w,
        Arc::new(single_gpu_machines(
            &[1.0, 1.0],
            Link::new(1.0e9, 0.0).unwrap(),
        )),
    )
    .unwrap();
    let plan = Plan::new(vec![g(1), g(0), g(0)], vec![t(0), t(1), t(2)]);
    let mut ev = Evaluator::new(&p);
    let app = ev.schedule(&plan, Policy::Append).unwrap();
    assert_eq!((app.task(t(2)).start, app.makespan()), (8.0, 11.0));
    let ins = ev.schedule(&plan, Policy::Insertion).unwrap();
    assert_eq!((ins.task(t(2)).start, ins.task(t(2)).finish), (0.0, 3.0));
    assert_eq!(ins.makespan(), 8.0);
    assert_eq!(ins.timeline(g(0)), &[t(2), t(1)]);
    assert!(ins.validate(&p).is_empty() && app.validate(&p).is_empty());
    // a gap too short (z of 7 s) is skipped
    let w = workload(
        &[("x", 1.0, None), ("y", 2.0, None), ("z", 7.0, None)],
        &[(0, 1, 5.0e9)],
    );
    let p = Problem::new(
        w,
        Arc::new(single_gpu_machines(
            &[1.0, 1.0],
            Link::new(1.0e9, 0.0).unwrap(),
        )),
    )
    .unwrap();
    let ins = Evaluator::new(&p)
        .schedule(&plan, Policy::Insertion)
        .unwrap();
    assert_eq!(ins.task(t(2)).start, 8.0);
}

#[test]
fn busy_gpu_ready_times_are_respected() {
    let w = workload(&[("a", 2.0, None), ("b", 1.0, None)], &[]);
    let mut c = single_gpu_machines(&[1.0, 1.0], SLOW);
    c.set_ready_time(g(0), 5.0).unwrap();
    let p = Problem::new(w, Arc::new(c)).unwrap();
    assert_eq!(p.ready_time(g(0)), 5.0);
    let mut ev = Evaluator::new(&p);
    for policy in [Policy::Append, Policy::Insertion] {
        let s = ev
            .schedule(&Plan::new(vec![g(0), g(0)], vec![t(0), t(1)]), policy)
            .unwrap();
        // no insertion before the ready time
        assert_eq!(
            (s.task(t(0)).start, s.task(t(1)).start, s.makespan()),
            (5.0, 7.0, 8.0)
        );
        assert!(s.validate(&p).is_empty());
    }
    // the lower bound knows: both tasks on the free GPU take 3 s; area: 3 units, g1 from 0
    let lb = p.lower_bound();
    assert_eq!(lb.area, 3.0);
    assert_eq!(lb.critical_path, 2.0);
}

#[test]
fn background_utilisation_slows_execution() {
    let w = workload(&[("a", 4.0, None)], &[]);
    let mut c = single_gpu_machines(&[2.0, 2.0], SLOW);
    c.set_background(g(1), 0.75).unwrap();
    let p = Problem::new(w, Arc::new(c)).unwrap();
    assert_eq!(p.exec_time(t(0), g(0)), 2.0);
    assert_eq!(p.exec_time(t(0), g(1)), 8.0);
    assert_eq!(p.effective_speed(g(1)), 0.5);
    assert_eq!(p.n_classes(), 2);
    assert_eq!(p.mean_exec_time(t(0)), 5.0);
    assert_eq!(p.min_exec_time(t(0)), 2.0);
    let ms = Evaluator::new(&p)
        .makespan(&Plan::new(vec![g(1)], vec![t(0)]), Policy::Append)
        .unwrap();
    assert_eq!(ms, 8.0);
}

#[test]
fn memory_restricts_gpus_and_mean_costs() {
    // speeds 1, 2, 4 with 32, 32, 8 GiB; task a needs 10 GiB.
    let w = workload(&[("a", 8.0, Some(10.0)), ("b", 8.0, None)], &[]);
    let mut b = ClusterBuilder::new("mem");
    let m = b.add_machine("box");
    b.add_gpu(m, &GpuModel::custom("s1", 1.0, 32.0).unwrap())
        .unwrap();
    b.add_gpu(m, &GpuModel::custom("s2", 2.0, 32.0).unwrap())
        .unwrap();
    b.add_gpu(m, &GpuModel::custom("s4", 4.0, 8.0).unwrap())
        .unwrap();
    let p = Problem::new(w, Arc::new(b.build().unwrap())).unwrap();
    assert!(p.fits(t(0), g(1)) && !p.fits(t(0), g(2)) && p.fits(t(1), g(2)));
    assert_eq!(p.mean_exec_time(t(0)), (8.0 + 4.0) / 2.0);
    assert_eq!(p.min_exec_time(t(0)), 4.0);
    assert_eq!(p.mean_exec_time(t(1)), (8.0 + 4.0 + 2.0) / 3.0);
    assert_eq!(p.min_exec_time(t(1)), 2.0);
    assert_eq!(p.class_mem(p.class_of(g(2))), 8.0);
    assert_eq!(p.class_speed(ClassId::new(1)), 2.0);
    let err = Evaluator::new(&p)
        .makespan(
            &Plan::new(vec![g(2), g(0)], vec![t(0), t(1)]),
            Policy::Append,
        )
        .unwrap_err();
    assert!(
        matches!(&err, ClusterError::MemoryInfeasible { task, gpu, .. } if task == "j/a" && *gpu == g(2)),
        "{err}"
    );
}

#[test]
fn mean_comm_time_averages_ordered_pairs_of_distinct_gpus() {
    // machine A: g0, g1 (intra 10 B/s, 1 s); machine B: g2 (inter 5 B/s, 2 s)
    let w = workload(&[("a", 1.0, None)], &[]);
    let mut b = ClusterBuilder::new("pairs");
    let ma = b.add_machine("A");
    let mb = b.add_machine("B");
    b.add_gpus(ma, &GpuModel::t4(), 2).unwrap();
    b.add_gpu(mb, &GpuModel::t4()).unwrap();
    b.network(Network::uniform(
        Link::new(10.0, 1.0).unwrap(),
        Link::new(5.0, 2.0).unwrap(),
    ));
    let p = Problem::new(w, Arc::new(b.build().unwrap())).unwrap();
    // pairs: 2 intra (1 + 6/10), 4 inter (2 + 6/5): (2·1.6 + 4·3.2) / 6
    assert!((p.mean_comm_time(6.0) - (2.0 * 1.6 + 4.0 * 3.2) / 6.0).abs() < 1e-12);
    assert_eq!(p.n_classes(), 1);
    assert_eq!(p.class_gpus(ClassId::new(0)).len(), 3);
    // a single GPU has no pair
    let w = workload(&[("a", 1.0, None)], &[]);
    let p1 = Problem::new(w, Arc::new(single_gpu_machines(&[1.0], SLOW))).unwrap();
    assert_eq!(p1.mean_comm_time(1.0e9), 0.0);
}

#[test]
fn construction_rejects_what_cannot_be_scheduled() {
    let w = workload(
        &[("big", 1.0, Some(100.0)), ("b", 1.0, None)],
        &[(0, 1, 1.0)],
    );
    let c = Arc::new(single_gpu_machines(&[1.0, 1.0], SLOW));
    let err = Problem::new(w.clone(), c.clone()).unwrap_err();
    assert!(
        matches!(&err, ClusterError::TaskFitsNoGpu { task, need_gib, max_gib } if task == "j/big" && *need_gib == 100.0 && *max_gib == 32.0),
        "{err}"
    );
    let w = workload(&[("a", 1.0, None), ("b", 1.0, None)], &[(0, 1, 1.0)]);
    let err = Problem::with_exec_times(w.clone(), c.clone(), Array2::ones((2, 3))).unwrap_err();
    assert!(matches!(
        err,
        ClusterError::ShapeMismatch {
            expected: (2, 2),
            actual: (2, 3),
            ..
        }
    ));
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        let mut m = Array2::ones((2, 2));
        m[[1, 0]] = bad;
        let err = Problem::with_exec_times(w.clone(), c.clone(), m)
            .unwrap_err()
            .to_string();
        assert!(err.contains("j/b") && err.contains("g0"), "{err}");
    }
    // zero entries are allowed (dummy tasks)
    assert!(Problem::with_exec_times(w.clone(), c.clone(), Array2::zeros((2, 2))).is_ok());
    // speed, bandwidth, latency are checked by the cluster
    assert!(GpuModel::custom("z", 0.0, 8.0).is_err());
    assert!(Link::new(0.0, 0.0).is_err());
    assert!(Link::new(1.0, -1.0).is_err());
    assert!(Link::new(f64::NAN, 0.0).is_err());
    let mut b = ClusterBuilder::new("bad-speed");
    let m = b.add_machine("x");
    let gid = b.add_gpu(m, &GpuModel::t4()).unwrap();
    b.set_speed(gid, f64::INFINITY).unwrap();
    assert!(matches!(
        b.build(),
        Err(ClusterError::InvalidValue { field: "speed", .. })
    ));
    assert!(matches!(
        ClusterBuilder::new("none").build(),
        Err(ClusterError::EmptyCluster { .. })
    ));
}

#[test]
fn unrelated_costs_divide_by_idle_share() {
    let w = workload(&[("a", 1.0, None)], &[]);
    let mut c = single_gpu_machines(&[1.0, 1.0], SLOW);
    c.set_background(g(1), 0.5).unwrap();
    let mut m = Array2::zeros((1, 2));
    m[[0, 0]] = 3.0;
    m[[0, 1]] = 4.0;
    let p = Problem::with_exec_times(w, Arc::new(c), m).unwrap();
    assert!(p.is_unrelated());
    assert_eq!(p.exec_time(t(0), g(0)), 3.0);
    assert_eq!(p.exec_time(t(0), g(1)), 8.0);
    assert_eq!(p.n_classes(), 2);
    assert_eq!(p.class_exec_time(t(0), ClassId::new(1)), 8.0);
}

#[test]
fn bad_plans_are_typed_errors() {
    let w = workload(
        &[("a", 1.0, None), ("b", 1.0, None), ("c", 1.0, None)],
        &[(0, 1, 1.0), (1, 2, 1.0)],
    );
    let p = Problem::new(w, Arc::new(single_gpu_machines(&[1.0, 1.0], SLOW))).unwrap();
    let mut ev = Evaluator::new(&p);
    let order = vec![t(0), t(1), t(2)];
    let e = ev
        .makespan(&Plan::new(vec![g(0); 2], order.clone()), Policy::Append)
        .unwrap_err();
    assert!(matches!(
        e,
        ClusterError::PlanLength {
            field: "gpu",
            expected: 3,
            actual: 2
        }
    ));
    let e = ev
        .makespan(&Plan::new(vec![g(0); 3], vec![t(0), t(1)]), Policy::Append)
        .unwrap_err();
    assert!(matches!(e, ClusterError::PlanLength { field: "order", .. }));
    let e = ev
        .makespan(
            &Plan::new(vec![g(0), g(7), g(0)], order.clone()),
            Policy::Insertion,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            ClusterError::UnknownId {
                kind: "GPU",
                index: 7,
                len: 2
            }
        ),
        "{e}"
    );
    let e = ev
        .makespan(
            &Plan::new(vec![g(0); 3], vec![t(0), t(1), t(1)]),
            Policy::Append,
        )
        .unwrap_err();
    assert!(
        matches!(&e, ClusterError::DuplicateTask { task, position: 2 } if task == "j/b"),
        "{e}"
    );
    let e = ev
        .makespan(
            &Plan::new(vec![g(0); 3], vec![t(0), t(2), t(1)]),
            Policy::Append,
        )
        .unwrap_err();
    assert!(
        matches!(&e, ClusterError::NotTopological { task, pred } if task == "j/c" && pred == "j/b"),
        "{e}"
    );
    let e = ev
        .makespan(
            &Plan::new(vec![g(0); 3], vec![t(0), t(1), t(9)]),
            Policy::Append,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            ClusterError::UnknownId {
                kind: "task",
                index: 9,
                ..
            }
        ),
        "{e}"
    );
    // the evaluator recovers after errors
    assert_eq!(
        ev.makespan(&Plan::new(vec![g(0); 3], order), Policy::Append)
            .unwrap(),
        3.0
    );
}
