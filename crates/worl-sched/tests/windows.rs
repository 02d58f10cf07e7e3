//! Busy windows (issue 21) in every scheduler: registry-driven conformance on random
//! problems whose GPUs have 1–3 busy windows, and hand-computed HEFT placements around a
//! window that splits a gap and a task that must wait for a window.

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Policy, Problem, Schedule};
use worl_dag::WorkloadBuilder;
use worl_sched::schedulers::{BUILTINS, Heft};
use worl_sched::testing::{
    self, ClusterKind, problems_with_windows, quick_schedulers, random_problem,
    random_problem_with_windows,
};
use worl_sched::{Registry, RunContext, Scheduler, check_scheduler};

/// `check_scheduler` (valid, windows included; at least the lower bound; same seed same
/// schedule), and the schedule is the evaluator's decoding of its own plan: appending its
/// tasks in start order to the same GPUs, each at its earliest start past the windows,
/// gives back the same makespan (every scheduler places each task as early as its data,
/// its GPU's previous task and the GPU's windows allow).
fn conforms(s: &mut dyn Scheduler, p: &Problem, seed: u64) -> Result<Schedule, String> {
    let schedule = check_scheduler(s, p, seed).map_err(|e| e.to_string())?;
    testing::plan_decodes_to_makespan(s.name(), p, &schedule)?;
    Ok(schedule)
}

#[test]
fn the_window_generator_keeps_the_problem_and_adds_windows() {
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        let seed = 300 + i as u64;
        let plain = random_problem(20, 5, 0.2, kind, 1.0, seed);
        let busy = random_problem_with_windows(20, 5, 0.2, kind, 1.0, seed);
        assert!(!plain.has_windows() && busy.has_windows(), "{kind:?}");
        assert!(!busy.busy(GpuId::new(0)).is_empty(), "{kind:?}");
        for k in busy.cluster().gpu_ids() {
            let w = busy.busy(k);
            assert!(w.len() <= 3, "{kind:?} {k:?}: {w:?}");
            for x in w {
                assert!(x.0 >= 0.0 && x.1 - x.0 >= 5.0 && x.1 - x.0 < 80.0, "{w:?}");
            }
            for k2 in 0..plain.n_tasks() {
                let v = worl_dag::TaskId::new(k2);
                assert_eq!(plain.exec_time(v, k), busy.exec_time(v, k));
            }
        }
        assert_eq!(plain.n_tasks(), busy.n_tasks());
        assert_eq!(plain.graph().n_edges(), busy.graph().n_edges());
    }
}

#[test]
fn every_registered_scheduler_conforms_with_windows_on_every_cluster_kind() {
    let mut delayed = 0;
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        for seed in [100 + i as u64, 200 + i as u64] {
            let p = random_problem_with_windows(25, 5, 0.2, kind, 1.0, seed);
            let free = random_problem(25, 5, 0.2, kind, 1.0, seed);
            for (mut s, mut t) in quick_schedulers().into_iter().zip(quick_schedulers()) {
                let with = conforms(s.as_mut(), &p, 7).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
                let without = t.schedule(&free, &mut RunContext::new(7)).unwrap();
                delayed += usize::from(with != without);
            }
        }
    }
    // the windows change most schedules (else the test would not test them)
    let runs = 2 * ClusterKind::ALL.len() * BUILTINS.len();
    assert!(delayed * 2 > runs, "{delayed} of {runs}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn every_registered_scheduler_conforms_on_random_problems_with_windows(
        p in problems_with_windows(20, 6),
        seed in 0u64..100,
    ) {
        for mut s in quick_schedulers() {
            conforms(s.as_mut(), &p, seed).map_err(TestCaseError::fail)?;
        }
    }
}

/// Two GPUs of speed 1, each on its own machine, linked at 1 GB/s without latency (an edge
/// of `x`·10⁹ bytes costs `x` s between the GPUs, 0 on one GPU); GPU 0 busy over
/// `window` when given. Tasks (one job `j`): a (2 s), b (2 s), c (4 s), d (3 s), e (2 s);
/// edges a → c 8 GB, b → c 7 GB, a → d 5 GB, a → e 5 GB.
fn split_gap_problem(window: Option<(f64, f64)>) -> Problem {
    let mut w = WorkloadBuilder::new("split");
    let j = w.add_job("j").unwrap();
    let ids: Vec<_> = [("a", 2.0), ("b", 2.0), ("c", 4.0), ("d", 3.0), ("e", 2.0)]
        .into_iter()
        .map(|(name, work)| w.add_task(j, name, work, None).unwrap())
        .collect();
    for (u, v, gb) in [(0, 2, 8.0), (1, 2, 7.0), (0, 3, 5.0), (0, 4, 5.0)] {
        w.add_edge(ids[u], ids[v], gb * 1e9).unwrap();
    }
    let busy: Vec<(usize, f64, f64)> = window.map(|(from, to)| (0, from, to)).into_iter().collect();
    let c = worl_cluster::testing::uniform_cluster(
        "two",
        &["node-0", "node-1"],
        1,
        Link::NVLINK2,
        Link::new(1e9, 0.0).unwrap(),
        &busy,
    )
    .unwrap();
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c)).unwrap()
}

/// (GPU, start, finish) of every task.
fn placements(s: &Schedule) -> Vec<(usize, f64, f64)> {
    s.tasks()
        .iter()
        .map(|t| (t.gpu.index(), t.start, t.finish))
        .collect()
}

#[test]
fn heft_around_a_window_that_splits_a_gap() {
    // Ranks (mean exec = work, mean comm = bytes / 1e9 over the two ordered GPU pairs):
    //   rank(c) = 4, rank(d) = 3, rank(e) = 2 (exit tasks),
    //   rank(b) = 2 + (7 + 4) = 13,
    //   rank(a) = 2 + max(8 + 4, 5 + 3, 5 + 2) = 14.
    // HEFT order: a, b, c, d, e. GPU 0 busy over [4, 6).
    //   a: G0 [0, 2) EFT 2, G1 [0, 2) EFT 2: tie -> G0 [0, 2).
    //   b: G0 after a [2, 4) EFT 4 (touches the window, allowed), G1 [0, 2) EFT 2 -> G1.
    //   c: on G0 data from a at 2 (same GPU), from b at 2 + 7 = 9: [9, 13);
    //      on G1 from a at 2 + 8 = 10: [10, 14) -> G0 [9, 13).
    //      G0's gap [2, 9) is split by the window into [2, 4) and [6, 9).
    //   d (3 s): G0 data at 2; [2, 4) is too short, [6, 9) holds it exactly: EFT 9;
    //      G1 data at 2 + 5 = 7: [7, 10) EFT 10 -> G0 [6, 9).
    //   e (2 s): G0 [2, 4) holds it exactly: EFT 4; G1 [7, 9) EFT 9 -> G0 [2, 4).
    // Makespan 13.
    let p = split_gap_problem(Some((4.0, 6.0)));
    let ranks = worl_sched::schedulers::list::upward_ranks(&p);
    assert_eq!(ranks, vec![14.0, 13.0, 4.0, 3.0, 2.0]);
    let s = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
    assert_eq!(
        placements(&s),
        vec![
            (0, 0.0, 2.0),
            (1, 0.0, 2.0),
            (0, 9.0, 13.0),
            (0, 6.0, 9.0),
            (0, 2.0, 4.0)
        ]
    );
    assert_eq!(s.makespan(), 13.0);
    assert_eq!(s.validate(&p), vec![]);
    // Without the window d and e take the gap [2, 9) in turn: d [2, 5), e [5, 7).
    let free = split_gap_problem(None);
    let s = Heft::new()
        .schedule(&free, &mut RunContext::new(0))
        .unwrap();
    assert_eq!(
        placements(&s),
        vec![
            (0, 0.0, 2.0),
            (1, 0.0, 2.0),
            (0, 9.0, 13.0),
            (0, 2.0, 5.0),
            (0, 5.0, 7.0)
        ]
    );
    // The same placements through the registry (gang check, budget wrapper) and under the
    // append policy: c appends after a at [9, 13); d after c would run [13, 16) on G0 vs
    // [7, 10) on G1 -> G1; e after c [13, 15) on G0 vs after d [10, 12) on G1 -> G1.
    let via_registry = Registry::with_builtins()
        .build_spec("heft")
        .unwrap()
        .schedule(&p, &mut RunContext::new(0))
        .unwrap();
    assert_eq!(
        via_registry,
        Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap()
    );
    let append = Heft::new()
        .with_policy(Policy::Append)
        .schedule(&p, &mut RunContext::new(0))
        .unwrap();
    assert_eq!(
        placements(&append),
        vec![
            (0, 0.0, 2.0),
            (1, 0.0, 2.0),
            (0, 9.0, 13.0),
            (1, 7.0, 10.0),
            (1, 10.0, 12.0)
        ]
    );
    assert_eq!(append.validate(&p), vec![]);
}

/// x (5 s, 14 GiB) fits GPU 0 only (32 GiB; GPU 1 has 8 GiB), which is busy over [0, 30);
/// y (5 s, no memory need) fits both. Speed 1, no edges.
fn wait_problem() -> Problem {
    let mut w = WorkloadBuilder::new("wait");
    let j = w.add_job("j").unwrap();
    w.add_task(j, "x", 5.0, Some(14.0)).unwrap();
    w.add_task(j, "y", 5.0, None).unwrap();
    let mut c = ClusterBuilder::new("c");
    let m = c.add_machine("node-0");
    let big = c
        .add_gpu(m, &GpuModel::custom("big", 1.0, 32.0).unwrap())
        .unwrap();
    c.add_gpu(m, &GpuModel::custom("small", 1.0, 8.0).unwrap())
        .unwrap();
    c.add_busy(big, 0.0, 30.0).unwrap();
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

#[test]
fn a_task_whose_only_gpu_is_busy_waits_for_the_window_to_end() {
    let p = wait_problem();
    // HEFT: ranks 5 and 5, x first (smaller id): only G0 fits, busy until 30 -> [30, 35).
    // y: G0 would start after the window and x, [35, 40); G1 [0, 5) -> G1. Makespan 35.
    let s = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
    assert_eq!(placements(&s), vec![(0, 30.0, 35.0), (1, 0.0, 5.0)]);
    assert_eq!(s.makespan(), 35.0);
    // Every registered scheduler: x on G0, starting at 30 or later, and a valid schedule
    // of makespan at least 35 (x cannot finish earlier).
    for mut sch in quick_schedulers() {
        let s = conforms(sch.as_mut(), &p, 3).unwrap_or_else(|e| panic!("{e}"));
        let x = s.tasks()[0];
        assert_eq!(x.gpu, GpuId::new(0), "{}", sch.name());
        assert!(x.start >= 30.0, "{}: {x:?}", sch.name());
        assert!(s.makespan() >= 35.0, "{}", sch.name());
    }
    // The optimum is HEFT's: exact proves 35.
    let exact = worl_sched::schedulers::Exact::new();
    let out = exact.solve(&p, &mut RunContext::new(0)).unwrap();
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 35.0);
}
