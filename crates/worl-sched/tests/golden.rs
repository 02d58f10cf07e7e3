//! Golden makespans and schedules of the baselines, all in one place.
//!
//! * Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, Fig. 2: 10 tasks on 3 unrelated
//!   processors (the W matrix), comm = edge cost between different processors (bytes = cost
//!   at 1 B/s, latency 0), 0 on the same processor. HEFT 80 with the published schedule,
//!   CPOP 86 with the critical path T1, T2, T9, T10 on P2 (Topcuoglu et al. 2002, Fig. 2).
//! * dslab-dag (`crates/dslab-dag/src/tests.rs`, `test_4`): same topology, work 64, 76, 52,
//!   32, 56, 64, 60, 44, 48, 28 flops, 4 related resources of speed 1, 2, 4, 4, bandwidth 1,
//!   latency 0. HEFT 98, PEFT 95 (the latter with dslab's `original_network_estimation`,
//!   the paper's OCT definition).
//!
//! Definitions that reproduce them (nothing instance-specific was tuned):
//! * mean execution cost = mean over the GPUs (dslab: `flops · mean(1 / speed)`, the same);
//!   mean communication cost = mean over ordered pairs of *distinct* GPUs of `comm`, i.e.
//!   the edge cost here (dslab averages over all pairs including a resource with itself, but
//!   its constant-bandwidth network gives the same 1 s per byte for every pair);
//! * communication counts only between different GPUs (dslab's `Direct` transfer mode);
//! * ties: equal ranks by smaller task id (T3 before T4, rank_u 80 both), equal EFT /
//!   O_EFT by smaller GPU id (dslab takes the first resource with a strictly smaller value,
//!   the same rule); insertion = earliest idle gap after the data-ready time (dslab's
//!   `find_earliest_slot` on single-core resources, the same rule);
//! * PEFT: `OCT(v, p)` charges `c̄` when the successor's processor differs from `p`,
//!   `rank_oct` = mean of `OCT(v, ·)` over all GPUs, O_EFT = EFT + OCT.

mod common;

use common::{dslab, t, topcuoglu};
use worl_cluster::{GpuId, Policy, Problem, Schedule};
use worl_sched::schedulers::list::{downward_ranks, upward_ranks};
use worl_sched::schedulers::{Cpop, Heft, MaxMin, MinMin, OptimisticCostTable, Peft};
use worl_sched::{RunContext, Scheduler};

fn run(s: &mut dyn Scheduler, p: &Problem) -> Schedule {
    let sched = s.schedule(p, &mut RunContext::new(0)).unwrap();
    assert!(sched.validate(p).is_empty(), "{:?}", sched.validate(p));
    sched
}

/// `(task, gpu, start, finish)` of every task, 1-based tasks and GPUs.
fn table(s: &Schedule) -> Vec<(usize, usize, f64, f64)> {
    s.tasks()
        .iter()
        .enumerate()
        .map(|(i, e)| (i + 1, e.gpu.index() + 1, e.start, e.finish))
        .collect()
}

#[test]
fn topcuoglu_upward_and_downward_ranks() {
    let p = topcuoglu();
    let up = upward_ranks(&p);
    let expected = [
        108.0, 77.0, 80.0, 80.0, 69.0, 63.333, 42.667, 35.667, 44.333, 14.667,
    ];
    for (i, (&r, e)) in up.iter().zip(expected).enumerate() {
        assert!((r - e).abs() < 1e-3, "rank_u T{}: {r} vs {e}", i + 1);
    }
    // rank_d by hand: T1 0; T2 = 13 + 18 = 31; T3 = 13 + 12 = 25; T4 = 13 + 9 = 22;
    // T5 = 13 + 11 = 24; T6 = 13 + 14 = 27; T7 = 25 + 43/3 + 23; T8 = max(T2 + 50/3 + 19,
    // T4 + 38/3 + 27, T6 + 38/3 + 15); T9 = max(T2 + 50/3 + 16, T4 + 38/3 + 23, T5 + 35/3
    // + 13); T10 = max(T7 + 11 + 17, T8 + 10 + 11, T9 + 50/3 + 13).
    let down = downward_ranks(&p);
    let t2 = 31.0;
    let t7 = 25.0 + 43.0 / 3.0 + 23.0;
    let t8 =
        f64::max(t2 + 50.0 / 3.0 + 19.0, 22.0 + 38.0 / 3.0 + 27.0).max(27.0 + 38.0 / 3.0 + 15.0);
    let t9 =
        f64::max(t2 + 50.0 / 3.0 + 16.0, 22.0 + 38.0 / 3.0 + 23.0).max(24.0 + 35.0 / 3.0 + 13.0);
    let t10 = f64::max(t7 + 11.0 + 17.0, t8 + 10.0 + 11.0).max(t9 + 50.0 / 3.0 + 13.0);
    let expected = [0.0, t2, 25.0, 22.0, 24.0, 27.0, t7, t8, t9, t10];
    for (i, (&r, e)) in down.iter().zip(expected).enumerate() {
        assert!((r - e).abs() < 1e-9, "rank_d T{}: {r} vs {e}", i + 1);
    }
}

#[test]
fn heft_reproduces_the_published_schedule_makespan_80() {
    let p = topcuoglu();
    let s = run(&mut Heft::new(), &p);
    // P1: T2 27–40, T8 57–62; P2: T4 18–26, T6 26–42, T9 56–68, T10 73–80;
    // P3: T1 0–9, T3 9–28, T5 28–38, T7 38–49.
    let expected = vec![
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
    assert_eq!(table(&s), expected);
    assert_eq!(s.makespan(), 80.0);
    // No gap is filled on this instance: append gives the same schedule.
    assert_eq!(run(&mut Heft::new().with_policy(Policy::Append), &p), s);
    // SLR 80 / 41 (Topcuoglu et al. 2002, Fig. 2).
    assert_eq!(s.metrics(&p).slr, 80.0 / 41.0);
}

#[test]
fn cpop_makespan_86_with_the_critical_path_on_p2() {
    let p = topcuoglu();
    let cpop = Cpop::new();
    let (priority, cp) = cpop.critical_path(&p);
    assert_eq!(cp.tasks, vec![t(0), t(1), t(8), t(9)]);
    assert_eq!(cp.gpu, GpuId::new(1)); // P2: 16 + 19 + 12 + 7 = 54 (P1 57, P3 63)
    assert!((cp.length - 108.0).abs() < 1e-9); // |CP| = rank_u(T1)
    assert!((priority[9] - 108.0).abs() < 1e-9);
    let s = run(&mut Cpop::new(), &p);
    assert_eq!(s.makespan(), 86.0);
    for v in &cp.tasks {
        assert_eq!(s.task(*v).gpu, GpuId::new(1));
    }
}

#[test]
fn dslab_variant_heft_98() {
    let p = dslab();
    let s = run(&mut Heft::new(), &p);
    assert_eq!(s.makespan(), 98.0);
    // dslab's trace (resources 0..3): A C B G on 2, E on 1, F D I H J on 3.
    let gpus: Vec<usize> = s.tasks().iter().map(|e| e.gpu.index()).collect();
    assert_eq!(gpus, [2, 2, 2, 3, 1, 3, 2, 3, 3, 3]);
    let times: Vec<(f64, f64)> = s.tasks().iter().map(|e| (e.start, e.finish)).collect();
    assert_eq!(
        times,
        [
            (0.0, 16.0),  // A
            (29.0, 48.0), // B
            (16.0, 29.0), // C
            (46.0, 54.0), // D
            (27.0, 55.0), // E
            (30.0, 46.0), // F
            (48.0, 63.0), // G
            (80.0, 91.0), // H
            (68.0, 80.0), // I
            (91.0, 98.0), // J
        ]
    );
}

#[test]
fn dslab_variant_peft_95() {
    let p = dslab();
    let s = run(&mut Peft::new(), &p);
    assert_eq!(s.makespan(), 95.0);
    // dslab's trace: A C B G I on 2, D E F H J on 3.
    let gpus: Vec<usize> = s.tasks().iter().map(|e| e.gpu.index()).collect();
    assert_eq!(gpus, [2, 2, 2, 3, 3, 3, 2, 3, 2, 3]);
}

#[test]
fn dslab_variant_optimistic_cost_table_by_hand() {
    let p = dslab();
    let oct = OptimisticCostTable::new(&p);
    // 3 classes: speed 1, speed 2, speed 4 (two GPUs).
    assert_eq!(oct.n_classes(), 3);
    let row = |v: usize| -> Vec<f64> { (0..4).map(|k| oct.get(t(v), GpuId::new(k))).collect() };
    // J (exit): 0.
    assert_eq!(row(9), [0.0; 4]);
    // I -> J (13 B): J takes 28, 14, 7, 7. On p: min(own class, best other class + 13).
    // speed 1: min(28, 7 + 13) = 20; speed 2: min(14, 20) = 14; speed 4: min(7, 14 + 13) = 7
    // (the other speed-4 GPU would cost 7 + 13: the same class is free only on p itself).
    assert_eq!(row(8), [20.0, 14.0, 7.0, 7.0]);
    assert_eq!(oct.rank(t(8)), 12.0);
    // G -> J (17 B): speed 1: min(28, 7 + 17) = 24; speed 2: 14; speed 4: 7.
    assert_eq!(row(6), [24.0, 14.0, 7.0, 7.0]);
    // C -> G (23 B): X(G) = OCT(G) + w(G) = 24 + 60, 14 + 30, 7 + 15 = 84, 44, 22.
    // speed 1: min(84, 22 + 23) = 45; speed 2: min(44, 45) = 44; speed 4: min(22, 44 + 23).
    assert_eq!(row(2), [45.0, 44.0, 22.0, 22.0]);
}

#[test]
fn min_min_and_max_min_first_steps_on_the_topcuoglu_instance_by_hand() {
    // No published value: the first steps computed by hand (append policy).
    // Both start with T1 on P3 (0–9, MCT 9). Then T2..T6 are ready with MCTs
    // (P1, P2, P3; remote data costs the edge):
    //   T2: 9+18+13 = 40, 9+18+19 = 46, 9+18 = 27  -> 27 on P3
    //   T3: 9+12+11 = 32, 9+12+13 = 34, 9+19 = 28  -> 28 on P3
    //   T4: 9+9+13 = 31,  9+9+8 = 26,   9+17 = 26  -> 26 on P2 (tie with P3: smaller id)
    //   T5: 9+11+12 = 32, 9+11+13 = 33, 9+10 = 19  -> 19 on P3
    //   T6: 9+14+13 = 36, 9+14+16 = 39, 9+9 = 18   -> 18 on P3
    // Min-Min takes T6 (P3 9–18); then T5 on P3 28, T4 26 on P2: T4 (P2 18–26); then T5
    // (P3 18–28, P1 32, P2 26+13 = 39).
    let p = topcuoglu();
    let s = run(&mut MinMin::new(), &p);
    let at = |v: usize| {
        let e = s.task(t(v));
        (e.gpu.index() + 1, e.start, e.finish)
    };
    assert_eq!(at(0), (3, 0.0, 9.0));
    assert_eq!(at(5), (3, 9.0, 18.0));
    assert_eq!(at(3), (2, 18.0, 26.0));
    assert_eq!(at(4), (3, 18.0, 28.0));
    // Max-Min takes the largest MCT first: T3 (P3 9–28).
    let s = run(&mut MaxMin::new(), &p);
    assert_eq!(
        (s.task(t(2)).gpu, s.task(t(2)).start, s.task(t(2)).finish),
        (GpuId::new(2), 9.0, 28.0)
    );
}
