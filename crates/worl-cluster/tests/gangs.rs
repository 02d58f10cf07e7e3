//! Gang tasks in the cluster model (issue 21): run time on a GPU set, the refusals of
//! `Problem::new`, placement on GPU sets, schedules and their validation, the lower bound.
//! Every figure below is computed by hand in the comments.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, ClusterError, Evaluator, GpuId, GpuModel, GpuSet, Link, Network,
    PartialSchedule, Plan, Policy, Problem, Schedule, ScheduledTask, Violation, testing,
};
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};

fn g(k: usize) -> GpuId {
    GpuId::new(k)
}

fn gs(ks: &[usize]) -> Vec<GpuId> {
    ks.iter().map(|&k| GpuId::new(k)).collect()
}

/// Two machines of 4 GPUs: `a` holds g0..g3 (speed 1, 32 GiB), `b` holds g4..g7 (speed 2,
/// 16 GiB). Intra-machine links: 1 GB/s, 0.25 s; between the machines: 0.1 GB/s, 1 s.
fn two_machines() -> Arc<worl_cluster::Cluster> {
    let mut c = ClusterBuilder::new("two");
    let s1 = GpuModel::custom("S1", 1.0, 32.0).unwrap();
    let s2 = GpuModel::custom("S2", 2.0, 16.0).unwrap();
    for (name, model) in [("a", &s1), ("b", &s2)] {
        let m = c.add_machine(name);
        for _ in 0..4 {
            c.add_gpu(m, model).unwrap();
        }
    }
    c.network(Network::uniform(
        Link::new(1e9, 0.25).unwrap(),
        Link::new(1e8, 1.0).unwrap(),
    ));
    Arc::new(c.build().unwrap())
}

/// One task `j/t` of `work` demanding `gpus` GPUs with `params`, memory `mem`.
fn one_gang(work: f64, gpus: u32, params: GangParams, mem: Option<f64>) -> Arc<worl_dag::Workload> {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let t = b.add_task(j, "t", work, mem).unwrap();
    b.set_gang(t, gpus, params).unwrap();
    Arc::new(b.build().unwrap())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn exec_time_on_a_set_follows_the_formula() {
    let params = GangParams {
        span: Span::Cluster,
        efficiency: 0.5,
        sync_bytes: 4e9,
        sync_steps: 2.0,
    };
    let p = Problem::new(one_gang(8.0, 4, params, None), two_machines()).unwrap();
    let t = TaskId::new(0);
    assert!(p.has_gangs());
    assert_eq!(p.gpus(t), 4);
    // on a: slowest 8 s / (4 · 0.5) = 4 s; AR = 2·3/4 · 4e9 / 1e9 + 2·3 · 0.25 = 6 + 1.5 =
    // 7.5 s per step, 2 steps: 15 s; total 19 s
    assert!(close(p.exec_time_on(t, &gs(&[0, 1, 2, 3])), 19.0));
    // on b: slowest 4 s / 2 = 2 s, same intra link: 17 s
    assert!(close(p.exec_time_on(t, &gs(&[4, 5, 6, 7])), 17.0));
    // across both machines: the slowest GPU is on a (8 s → 4 s); the slow link paces the
    // ring: 2·3/4 · 4e9 / 1e8 + 2·3 · 1 = 60 + 6 = 66 s per step, 132 s; total 136 s
    assert!(close(p.exec_time_on(t, &gs(&[0, 1, 4, 5])), 136.0));
    // the order of the set does not matter
    assert!(close(p.exec_time_on(t, &gs(&[5, 0, 4, 1])), 136.0));
    // one GPU: exactly the single-GPU time, efficiency and all-reduce ignored
    assert_eq!(p.exec_time_on(t, &gs(&[4])), p.exec_time(t, g(4)));
    assert_eq!(p.exec_time_on(t, &gs(&[4])), 4.0);
    assert_eq!(p.exec_time_on(t, &[]), 0.0);
    // without synchronisation steps only the compute share counts: 8 / (2 · 0.5) = 8 s
    let quiet = GangParams {
        sync_steps: 0.0,
        ..params
    };
    let p = Problem::new(one_gang(8.0, 2, quiet, None), two_machines()).unwrap();
    assert_eq!(p.exec_time_on(t, &gs(&[0, 4])), 8.0);
    assert_eq!(p.machine_of(g(5)).index(), 1);
}

#[test]
fn single_gpu_workloads_have_no_gangs() {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let t = b.add_task(j, "t", 3.0, None).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), two_machines()).unwrap();
    assert!(!p.has_gangs());
    assert_eq!(p.gpus(t), 1);
}

#[test]
fn problem_refuses_gangs_no_set_can_hold() {
    let machine = GangParams::default();
    let cluster = GangParams {
        span: Span::Cluster,
        ..GangParams::default()
    };
    let refused = |gpus: u32, params: GangParams, mem: Option<f64>| -> String {
        let e = Problem::new(one_gang(1.0, gpus, params, mem), two_machines()).unwrap_err();
        assert!(matches!(e, ClusterError::GangTooLarge { .. }), "{e:?}");
        e.to_string()
    };
    assert_eq!(
        refused(5, machine, None),
        "gang task `j/t` needs 5 GPUs at once (span machine) but the largest machine has 4 \
         GPUs (largest machine `a`: 4 GPUs)"
    );
    assert_eq!(
        refused(9, cluster, None),
        "gang task `j/t` needs 9 GPUs at once (span cluster) but the cluster has 8 GPUs \
         (largest machine `a`: 4 GPUs)"
    );
    // 20 GiB fits only the 4 GPUs of `a`
    assert_eq!(
        refused(5, cluster, Some(20.0)),
        "gang task `j/t` needs 5 GPUs at once (span cluster) but only 4 GPUs of the cluster \
         have its 20 GiB of memory (largest machine `a`: 4 GPUs)"
    );
    // what fits is accepted: 4 on `a` with 20 GiB, 8 across both, 4 on one machine
    for (gpus, params, mem) in [
        (4, machine, Some(20.0)),
        (8, cluster, None),
        (4, machine, None),
    ] {
        Problem::new(one_gang(1.0, gpus, params, mem), two_machines()).unwrap();
    }
}

/// `t` (work 4, 2 GPUs, span machine, efficiency 1, no sync) → `s` (work 2) carrying 1 GB,
/// and an independent `u` (work 2), on [`two_machines`].
fn gang_then_single() -> Problem {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let t = b.add_task(j, "t", 4.0, None).unwrap();
    let s = b.add_task(j, "s", 2.0, None).unwrap();
    b.add_task(j, "u", 2.0, None).unwrap();
    b.add_edge(t, s, 1e9).unwrap();
    b.set_gang(t, 2, GangParams::default()).unwrap();
    Problem::new(Arc::new(b.build().unwrap()), two_machines()).unwrap()
}

#[test]
fn a_gang_schedule_validates_with_the_set_formulas() {
    let p = gang_then_single();
    let (t, s) = (TaskId::new(0), TaskId::new(1));
    // t on {g0, g1}: 4 / 2 = 2 s. s on g4 (speed 2: 1 s): its data leaves the nearer GPU of
    // t's set at 2 s and crosses the 0.1 GB/s link: 2 + 1 + 1e9 / 1e8 = 13 s. u on g2.
    let ok = Schedule::with_sets(
        8,
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(4, 13.0, 14.0),
            testing::entry(2, 0.0, 2.0),
        ],
        vec![testing::gpu_set(0, &[0, 1])],
    )
    .unwrap();
    assert_eq!(ok.validate(&p), vec![]);
    assert_eq!(ok.gpus(t), &gs(&[0, 1])[..]);
    assert_eq!(ok.gpus(s), &gs(&[4])[..]);
    assert_eq!(ok.timeline(g(1)), &[t][..]);
    assert_eq!(ok.busy_time(g(1)), 2.0);
    // one second early on g4: the set's data is ready at 13 s
    let early = Schedule::with_sets(
        8,
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(4, 12.0, 13.0),
            testing::entry(2, 0.0, 2.0),
        ],
        vec![testing::gpu_set(0, &[0, 1])],
    )
    .unwrap();
    assert_eq!(
        early.validate(&p),
        vec![Violation::Precedence {
            from: t,
            to: s,
            data_ready: 13.0,
            start: 12.0,
            amount: 1.0
        }]
    );
    // s on g1, a GPU of t's set: the data is there when t finishes (2 s, s runs 2 s there)
    let local = Schedule::with_sets(
        8,
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(1, 2.0, 4.0),
            testing::entry(2, 0.0, 2.0),
        ],
        vec![testing::gpu_set(0, &[0, 1])],
    )
    .unwrap();
    assert_eq!(local.validate(&p), vec![]);
    // u on g1 over [1, 3): overlaps t there (t's lead is g0, but t holds g1 too)
    let overlap = Schedule::with_sets(
        8,
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(4, 13.0, 14.0),
            testing::entry(1, 1.0, 3.0),
        ],
        vec![testing::gpu_set(0, &[0, 1])],
    )
    .unwrap();
    assert_eq!(
        overlap.validate(&p),
        vec![Violation::Overlap {
            gpu: g(1),
            first: t,
            second: TaskId::new(2),
            amount: 1.0
        }]
    );
}

#[test]
fn wrong_sets_are_violations_naming_task_and_gpus() {
    let p = gang_then_single();
    let t = TaskId::new(0);
    let tasks = || {
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(4, 13.0, 14.0),
            testing::entry(2, 0.0, 2.0),
        ]
    };
    // no set: t runs on g0 alone, 1 GPU short, and there its run time is 4 s, not 2
    let alone = Schedule::new(8, tasks()).unwrap();
    let v = alone.validate(&p);
    assert_eq!(
        v,
        vec![
            Violation::GangSize {
                task: t,
                gpus: gs(&[0]),
                expected: 2
            },
            Violation::Duration {
                task: t,
                gpu: g(0),
                expected: 4.0,
                actual: 2.0
            }
        ]
    );
    assert_eq!(
        v[0].to_string(),
        "gang size: t0 runs on 1 GPUs (g0), it needs 2"
    );
    // g0 twice
    let twice = Schedule::with_sets(8, tasks(), vec![testing::gpu_set(0, &[0, 0])]).unwrap();
    let v = twice.validate(&p);
    assert_eq!(v, vec![Violation::GangRepeated { task: t, gpu: g(0) }]);
    assert_eq!(
        v[0].explain(&p, &twice).to_string(),
        "gang set: `j/t` (t0) lists g0 (S1 on `a`) more than once in its set"
    );
    assert_eq!(twice.timeline(g(0)), &[t][..]);
    // g0 and g5 on two machines, span machine (run time max(4, 2) / 2 = 2 s: no duration
    // violation); s's data is then on g5 of b, 2 + 0.25 + 1 = 3.25 s
    let split = Schedule::with_sets(8, tasks(), vec![testing::gpu_set(0, &[0, 5])]).unwrap();
    let v = split.validate(&p);
    assert_eq!(
        v,
        vec![Violation::GangSpan {
            task: t,
            lead: g(0),
            other: g(5)
        }]
    );
    assert_eq!(
        v[0].to_string(),
        "gang span: t0 must run on one machine but its GPUs g0 and g5 are on different machines"
    );
    // a GPU of the set the cluster lacks
    let unknown = Schedule::with_sets(9, tasks(), vec![testing::gpu_set(0, &[0, 8])]).unwrap();
    assert_eq!(
        unknown.validate(&p),
        vec![Violation::UnknownGpu { task: t, gpu: g(8) }]
    );
}

#[test]
fn schedule_sets_round_trip_through_json_and_old_json_reads() {
    let s = Schedule::with_sets(
        8,
        vec![
            testing::entry(0, 0.0, 2.0),
            testing::entry(4, 13.0, 14.0),
            testing::entry(2, 0.0, 2.0),
        ],
        vec![testing::gpu_set(0, &[0, 1]), testing::gpu_set(1, &[4])],
    )
    .unwrap();
    // the one-GPU set is the entry itself and is not kept
    assert_eq!(s.sets().count(), 1);
    let json = s.to_json_string();
    assert!(json.contains("\"sets\""), "{json}");
    let back = Schedule::from_json_str(&json).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.gpus(TaskId::new(0)), &gs(&[0, 1])[..]);
    // without sets nothing is written, and a file without the field reads
    let plain = Schedule::new(1, vec![testing::entry(0, 0.0, 1.0)]).unwrap();
    assert!(!plain.to_json_string().contains("sets"));
    let old = r#"{"n_gpus": 1, "tasks": [{"gpu": 0, "start": 0.0, "finish": 1.0}]}"#;
    assert_eq!(Schedule::from_json_str(old).unwrap(), plain);
    // a set whose lead is not the entry's GPU, or a task given two sets, is refused
    let e = Schedule::with_sets(
        8,
        vec![testing::entry(0, 0.0, 2.0)],
        vec![testing::gpu_set(0, &[1, 0])],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "GPU set of task `t0` {g1,g0}: its first GPU must be the task's GPU g0"
    );
    let e = Schedule::with_sets(
        8,
        vec![testing::entry(0, 0.0, 2.0)],
        vec![testing::gpu_set(0, &[0, 1]), testing::gpu_set(0, &[0, 2])],
    )
    .unwrap_err();
    assert!(matches!(e, ClusterError::InvalidGpuSet { .. }), "{e}");
}

/// Two machines `a` (g0..g3) and `b` (g4..g7) of 4 GPUs of speed 1, 32 GiB; links as in
/// [`two_machines`]; GPU windows `busy` (gpu, from, to): the shared
/// [`testing::two_four_gpu_machines`].
fn two_uniform(busy: &[(usize, f64, f64)]) -> Arc<worl_cluster::Cluster> {
    Arc::new(testing::two_four_gpu_machines(busy).unwrap())
}

/// a (2) → G (8, 4 GPUs, span machine) → c (1), and x (3) alone; 0-byte edges, on
/// [`two_uniform`] without windows: the shared [`testing::four_gpu_among_singles`].
fn four_gpu_among_singles() -> Problem {
    testing::four_gpu_among_singles()
}

#[test]
fn a_4_gpu_task_among_1_gpu_tasks_on_two_4_gpu_machines() {
    let p = four_gpu_among_singles();
    let (a, gg, c, x) = (
        TaskId::new(0),
        TaskId::new(1),
        TaskId::new(2),
        TaskId::new(3),
    );
    let order = vec![a, x, gg, c];
    for policy in [Policy::Append, Policy::Insertion] {
        let mut ev = Evaluator::new(&p);
        // a on g0 [0, 2], x on g1 [0, 3]. G around lead g0: its share 8 / 4 = 2 s could start
        // at 2.25 on g2 and g3 (a's data over the 0.25 s intra link) and at 3 on g1 (after
        // x): set {g0, g2, g3, g1}, start max(2 (g0), 2.25, 3) = 3, finish 3 + 8 / 4 = 5.
        // c on g4: G's data crosses the inter link (1 s): [6, 7].
        let plan = Plan::new(gs(&[0, 0, 4, 1]), order.clone());
        let sched = ev.schedule(&plan, policy).unwrap();
        assert_eq!(sched.gpus(gg), &gs(&[0, 2, 3, 1])[..], "{policy}");
        assert_eq!((sched.task(gg).start, sched.task(gg).finish), (3.0, 5.0));
        assert_eq!((sched.task(c).start, sched.task(c).finish), (6.0, 7.0));
        assert_eq!(sched.makespan(), 7.0);
        assert_eq!(ev.makespan(&plan, policy).unwrap(), 7.0);
        assert_eq!(sched.validate(&p), vec![]);
        for k in [0, 1, 2, 3] {
            assert!(sched.timeline(g(k)).contains(&gg), "g{k}");
        }
        // the same set given explicitly decodes to the same schedule
        let explicit = Plan::new(gs(&[0, 0, 4, 1]), order.clone()).with_set(gg, gs(&[0, 2, 3, 1]));
        assert_eq!(ev.schedule(&explicit, policy).unwrap(), sched);
        // to_plan keeps the set and decodes back to the schedule
        let back = sched.to_plan(&p);
        assert_eq!(back.gangs.get(&gg), Some(&gs(&[0, 2, 3, 1])));
        assert_eq!(ev.schedule(&back, policy).unwrap(), sched);
        // lead g4: all of b is free at 2 + 1 = 3 (a's data crosses machines): G [3, 5] on
        // {g4, g5, g6, g7}, and c on g4 gets its data locally: [5, 6], makespan 6
        let on_b = Plan::new(gs(&[0, 4, 4, 1]), order.clone());
        let sched = ev.schedule(&on_b, policy).unwrap();
        assert_eq!(sched.gpus(gg), &gs(&[4, 5, 6, 7])[..]);
        assert_eq!((sched.task(c).start, sched.makespan()), (5.0, 6.0));
        assert_eq!(sched.validate(&p), vec![]);
    }
}

#[test]
fn explicit_sets_are_checked_when_decoded() {
    let p = four_gpu_among_singles();
    let gg = TaskId::new(1);
    let order = vec![TaskId::new(0), TaskId::new(3), gg, TaskId::new(2)];
    let mut ev = Evaluator::new(&p);
    let mut err = |plan: Plan| ev_err(&mut ev, &plan);
    fn ev_err(ev: &mut Evaluator<'_>, plan: &Plan) -> String {
        ev.makespan(plan, Policy::Append).unwrap_err().to_string()
    }
    let base = || Plan::new(gs(&[0, 0, 4, 1]), order.clone());
    assert_eq!(
        err(base().with_set(gg, gs(&[0, 1, 2]))),
        "GPU set of task `j/G` {g0,g1,g2}: 3 GPUs given, the task needs 4"
    );
    assert_eq!(
        err(base().with_set(gg, gs(&[0, 1, 2, 1]))),
        "GPU set of task `j/G` {g0,g1,g2,g1}: GPU g1 is repeated"
    );
    assert_eq!(
        err(base().with_set(gg, gs(&[0, 1, 2, 4]))),
        "GPU set of task `j/G` {g0,g1,g2,g4}: span machine, but g4 is on another machine than g0"
    );
    let mut wrong_lead = base().with_set(gg, gs(&[0, 1, 2, 3]));
    wrong_lead.gpu[1] = g(2);
    assert_eq!(
        err(wrong_lead),
        "GPU set of task `j/G` {g0,g1,g2,g3}: the plan's GPU of the task is g2, not the set's first"
    );
}

/// G (2 GPUs, span machine) of `work` alone, g0 busy over [0, 1) and [4, 5), g1 over [2, 3).
fn windowed_gang(work: f64) -> Problem {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let gg = b.add_task(j, "G", work, None).unwrap();
    b.set_gang(gg, 2, GangParams::default()).unwrap();
    let c = two_uniform(&[(0, 0.0, 1.0), (0, 4.0, 5.0), (1, 2.0, 3.0)]);
    Problem::new(Arc::new(b.build().unwrap()), c).unwrap()
}

#[test]
fn a_gang_waits_for_the_windows_of_all_its_gpus() {
    let gg = TaskId::new(0);
    for policy in [Policy::Append, Policy::Insertion] {
        // 1 s on {g0, g1}: g0 is free from 1, and g1 holds [1, 2) before its window
        let p = windowed_gang(2.0);
        let s = PartialSchedule::new(&p);
        let slot = s.slot_set(gg, &gs(&[0, 1]), policy).unwrap();
        assert_eq!((slot.start(), slot.finish()), (1.0, 2.0), "{policy}");
        // 1.5 s: from 1 g1 meets its window (→ 3), from 3 g0 meets [4, 5) (→ 5), and from
        // 5 both are free: the fixed point is 5
        let p = windowed_gang(3.0);
        let mut s = PartialSchedule::new(&p);
        let slot = s.place_set(gg, &gs(&[0, 1]), policy).unwrap();
        assert_eq!((slot.start(), slot.finish()), (5.0, 6.5), "{policy}");
        assert_eq!(s.gang_set(gg), Some(&gs(&[0, 1])[..]));
        let sched = s.to_schedule().unwrap();
        assert_eq!(sched.validate(&p), vec![]);
        // the same task 1 s earlier meets g0's window [4, 5) on g0 and g1's on nothing
        let early = Schedule::with_sets(
            8,
            vec![ScheduledTask {
                gpu: g(0),
                start: 4.0,
                finish: 5.5,
            }],
            vec![GpuSet {
                task: gg,
                gpus: gs(&[0, 1]),
            }],
        )
        .unwrap();
        let v = early.validate(&p);
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(matches!(v[0], Violation::Window { gpu, from: 4.0, to: 5.0, .. } if gpu == g(0)));
    }
}

#[test]
fn insertion_finds_the_common_gap_of_the_set() {
    // singles p (1) on g0, then q (2) and r (1) on g1 after p's data (2 GB edge p → q, 0.25 +
    // 2 = 2.25 s): g0 holds [0, 1), g1 holds q [3.25, 5.25) and r [5.25, 6.25) (r after q).
    // A gang G of 2 GPUs (work 2: 1 s) placed last with insertion: g0 is free from 1, g1
    // in [0, 3.25): the common gap starts at 1. With append it goes after g1's last task.
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let pt = b.add_task(j, "p", 1.0, None).unwrap();
    let q = b.add_task(j, "q", 2.0, None).unwrap();
    let r = b.add_task(j, "r", 1.0, None).unwrap();
    let gg = b.add_task(j, "G", 2.0, None).unwrap();
    b.add_edge(pt, q, 2e9).unwrap();
    b.add_edge(q, r, 0.0).unwrap();
    b.set_gang(gg, 2, GangParams::default()).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), two_uniform(&[])).unwrap();
    let mut s = PartialSchedule::new(&p);
    let ins = Policy::Insertion;
    s.place(pt, g(0), ins).unwrap();
    s.place(q, g(1), ins).unwrap();
    s.place(r, g(1), ins).unwrap();
    assert_eq!((s.start(q), s.start(r)), (Some(3.25), Some(5.25)));
    let slot = s.slot_set(gg, &gs(&[0, 1]), ins).unwrap();
    assert_eq!((slot.start(), slot.finish()), (1.0, 2.0));
    // from a lower bound the same slot; from 2.5 the common gap [2.5, 3.25) is too short for
    // 1 s, so after r on g1: 6.25
    assert_eq!(s.slot_set_from(gg, &gs(&[0, 1]), ins, 0.5).unwrap(), slot);
    assert_eq!(s.slot_set_from(gg, &gs(&[0, 1]), ins, 1.0).unwrap(), slot);
    let later = s.slot_set_from(gg, &gs(&[0, 1]), ins, 2.5).unwrap();
    assert_eq!((later.start(), later.finish()), (6.25, 7.25));
    let slot = s.slot_set(gg, &gs(&[1, 0]), Policy::Append).unwrap();
    assert_eq!((slot.start(), slot.finish()), (6.25, 7.25));
    // HEFT's step through `slot` with the lead only: around g0 the greedy rule ranks g1, g2
    // and g3 by the earliest start of G's 1 s share alone (insertion: 0 on each, g1 in its
    // gap before q) and takes the lowest id, so G runs [1, 2) on {g0, g1}
    let best = s.slot(gg, g(0), ins).unwrap();
    assert_eq!((best.gpu(), best.start(), best.finish()), (g(0), 1.0, 2.0));
    s.commit(best).unwrap();
    assert_eq!(s.gang_set(gg), Some(&gs(&[0, 1])[..]));
    assert_eq!(s.timeline(g(1)).collect::<Vec<_>>(), vec![gg, q, r]);
    assert_eq!(s.timeline(g(0)).collect::<Vec<_>>(), vec![pt, gg]);
    // under append the share on g1 starts after r (6.25): around g0 the rule takes g2
    let mut t = PartialSchedule::new(&p);
    let app = Policy::Append;
    t.place(pt, g(0), app).unwrap();
    t.place(q, g(1), app).unwrap();
    t.place(r, g(1), app).unwrap();
    let slot = t.place(gg, g(0), app).unwrap();
    assert_eq!((slot.start(), slot.finish()), (1.0, 2.0));
    assert_eq!(t.gang_set(gg), Some(&gs(&[0, 2])[..]));
    assert_eq!(t.to_schedule().unwrap().validate(&p), vec![]);
    let sched = s.to_schedule().unwrap();
    assert_eq!(sched.validate(&p), vec![]);
    assert_eq!(sched.makespan(), 6.25);
}

/// A random problem with gang tasks and (half the time) busy windows, and a random plan for
/// it (leads on machines big enough for their gang, explicit sets for some gangs), from
/// `seed`: 1–3 machines of 1–4 GPUs (speeds 0.5–2, ready times 0–5 s), 1–10 tasks with
/// edges `i → j` (`i < j`) of up to 1 GB, gangs of 2 GPUs up to the largest machine (span
/// machine) or the cluster (span cluster), efficiency 0.5–1, 0–3 sync steps of up to 100 MB.
fn random_case(seed: u64) -> (Problem, Plan) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut c = ClusterBuilder::new("random");
    let n_machines = rng.random_range(1..=3usize);
    let mut sizes = Vec::new();
    for a in 0..n_machines {
        let m = c.add_machine(format!("m{a}"));
        let k = rng.random_range(1..=4usize);
        sizes.push(k);
        for _ in 0..k {
            let speed = [0.5, 1.0, 2.0][rng.random_range(0..3usize)];
            let model = GpuModel::custom(format!("S{speed}"), speed, 32.0).unwrap();
            let id = c.add_gpu(m, &model).unwrap();
            if rng.random_bool(0.3) {
                c.set_ready_time(id, rng.random_range(0.0..5.0)).unwrap();
            }
        }
    }
    let m: usize = sizes.iter().sum();
    c.network(Network::uniform(
        Link::new(rng.random_range(1e9..1e10), rng.random_range(0.0..0.01)).unwrap(),
        Link::new(rng.random_range(1e8..1e9), rng.random_range(0.0..1.0)).unwrap(),
    ));
    if rng.random_bool(0.5) {
        for k in 0..m {
            let mut cursor = 0.0;
            for _ in 0..rng.random_range(0..3usize) {
                let from = cursor + rng.random_range(0.0..5.0);
                let to = from + rng.random_range(0.5..3.0);
                c.add_busy(g(k), from, to).unwrap();
                cursor = to;
            }
        }
    }
    let cluster = Arc::new(c.build().unwrap());
    let largest = *sizes.iter().max().unwrap();
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let n = rng.random_range(1..=10usize);
    let mut ids = Vec::new();
    for i in 0..n {
        let work = if rng.random_bool(0.1) {
            0.0
        } else {
            rng.random_range(0.1..10.0)
        };
        let t = b.add_task(j, format!("t{i}"), work, None).unwrap();
        for &u in &ids {
            if rng.random_bool(0.3) {
                b.add_edge(u, t, rng.random_range(0.0..1e9)).unwrap();
            }
        }
        ids.push(t);
        let span = if rng.random_bool(0.5) {
            Span::Machine
        } else {
            Span::Cluster
        };
        let most = if span == Span::Machine { largest } else { m };
        if most >= 2 && rng.random_bool(0.4) {
            let params = GangParams {
                span,
                efficiency: rng.random_range(0.5..=1.0),
                sync_bytes: rng.random_range(0.0..1e8),
                sync_steps: if rng.random_bool(0.5) {
                    0.0
                } else {
                    rng.random_range(0.0..3.0)
                },
            };
            b.set_gang(t, rng.random_range(2..=most as u32), params)
                .unwrap();
        }
    }
    let p = Problem::new(Arc::new(b.build().unwrap()), cluster).unwrap();
    // leads: any GPU, on a machine holding the gang for span machine
    let mut gpu = Vec::new();
    let mut sets = Vec::new();
    for v in p.graph().task_ids() {
        let need = p.gpus(v) as usize;
        let machine = p.graph().task(v).gang.span == Span::Machine;
        let leads: Vec<GpuId> = p
            .cluster()
            .gpu_ids()
            .filter(|&k| !machine || p.cluster().gpus_of(p.machine_of(k)).len() >= need)
            .collect();
        let lead = leads[rng.random_range(0..leads.len())];
        gpu.push(lead);
        if need > 1 && rng.random_bool(0.3) {
            let mut pool: Vec<GpuId> = p
                .cluster()
                .gpu_ids()
                .filter(|&k| k != lead && (!machine || p.machine_of(k) == p.machine_of(lead)))
                .collect();
            let mut set = vec![lead];
            while set.len() < need {
                set.push(pool.swap_remove(rng.random_range(0..pool.len())));
            }
            sets.push((v, set));
        }
    }
    // a random topological order (edges go from lower to higher ids)
    let mut indeg: Vec<usize> = p
        .graph()
        .task_ids()
        .map(|v| p.graph().preds(v).len())
        .collect();
    let mut free: Vec<TaskId> = p
        .graph()
        .task_ids()
        .filter(|v| indeg[v.index()] == 0)
        .collect();
    let mut order = Vec::new();
    while !free.is_empty() {
        let v = free.swap_remove(rng.random_range(0..free.len()));
        order.push(v);
        for nb in p.graph().succs(v) {
            indeg[nb.task.index()] -= 1;
            if indeg[nb.task.index()] == 0 {
                free.push(nb.task);
            }
        }
    }
    let mut plan = Plan::new(gpu, order);
    for (v, set) in sets {
        plan = plan.with_set(v, set);
    }
    (p, plan)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every decoded schedule of a random problem with gangs (and windows) validates, gives
    /// each gang a set of its size, is at least the lower bound, and its plan decodes again
    /// to a valid schedule.
    #[test]
    fn evaluated_gang_schedules_validate_and_respect_the_bound(seed in any::<u64>()) {
        let (p, plan) = random_case(seed);
        let lb = p.lower_bound();
        let mut ev = Evaluator::new(&p);
        for policy in [Policy::Append, Policy::Insertion] {
            let s = ev.schedule(&plan, policy).unwrap();
            prop_assert_eq!(s.validate(&p), vec![], "{}", policy);
            prop_assert_eq!(ev.makespan(&plan, policy).unwrap(), s.makespan());
            for v in p.graph().task_ids() {
                prop_assert_eq!(s.gpus(v).len(), p.gpus(v) as usize);
                if let Some(set) = plan.gangs.get(&v) {
                    prop_assert_eq!(s.gpus(v), &set[..]);
                }
            }
            prop_assert!(
                s.makespan() >= lb.value * (1.0 - 1e-12) - 1e-9,
                "makespan {} below the bound {:?}", s.makespan(), lb
            );
            let m = s.metrics(&p);
            prop_assert!(m.utilisation <= 1.0 + 1e-9, "{}", m.utilisation);
            let again = ev.schedule(&s.to_plan(&p), policy).unwrap();
            prop_assert_eq!(again.validate(&p), vec![]);
        }
    }
}

#[test]
fn the_data_ready_time_of_a_machine_is_each_of_its_gpus_bit_for_bit() {
    // Random problems with gangs, tasks placed in topological order on random leads: at
    // every step, for every ready task and machine, the machine's value equals the
    // data-ready time on each of its GPUs that holds no predecessor's GPU, and `holds` says
    // whether one does.
    let (mut checked, mut held) = (0, 0);
    for seed in 0..200u64 {
        let (p, _) = random_case(seed);
        let mut s = PartialSchedule::new(&p);
        for &v in p.graph().topo_order() {
            for u in p.graph().task_ids().filter(|&u| !s.is_placed(u)) {
                let preds = p.graph().preds(u);
                if !preds.iter().all(|e| s.is_placed(e.task)) {
                    let m = worl_cluster::MachineId::new(0);
                    assert!(matches!(
                        s.data_ready_time_on_machine(u, m),
                        Err(ClusterError::NotTopological { .. })
                    ));
                    continue;
                }
                let sources: Vec<GpuId> = preds
                    .iter()
                    .flat_map(|e| match s.gang_set(e.task) {
                        Some(set) => set.to_vec(),
                        None => vec![s.gpu_of(e.task).unwrap()],
                    })
                    .collect();
                for m in (0..p.cluster().n_machines()).map(worl_cluster::MachineId::new) {
                    let (drt, holds) = s.data_ready_time_on_machine(u, m).unwrap();
                    let gpus = p.cluster().gpus_of(m);
                    assert_eq!(
                        holds,
                        gpus.iter().any(|k| sources.contains(k)),
                        "seed {seed}"
                    );
                    held += usize::from(holds);
                    for &k in gpus.iter().filter(|k| !sources.contains(k)) {
                        let want = s.data_ready_time_on(u, &[k]).unwrap();
                        assert_eq!(drt.to_bits(), want.to_bits(), "seed {seed}: {u:?} on {k:?}");
                        checked += 1;
                    }
                }
            }
            let n = p.cluster().n_machines();
            let err = s
                .data_ready_time_on_machine(v, worl_cluster::MachineId::new(n))
                .unwrap_err();
            assert!(
                matches!(
                    err,
                    ClusterError::UnknownId {
                        kind: "machine",
                        ..
                    }
                ),
                "{err}"
            );
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ v.index() as u64);
            let leads: Vec<GpuId> = p
                .cluster()
                .gpu_ids()
                .filter(|&k| p.can_lead(v, k))
                .collect();
            let lead = leads[rng.random_range(0..leads.len())];
            s.place(v, lead, Policy::Insertion).unwrap();
        }
    }
    assert!(checked > 1000 && held > 100, "{checked} {held}");
}

#[test]
fn the_lower_bound_counts_gangs_by_their_share() {
    // G: work 8 on 4 GPUs, efficiency 0.5, span machine, on two machines of 4 GPUs of
    // speed 1. Critical path: 8 / (4 · 0.5) = 4 s. Area: 8 / 0.5 = 16 reference-seconds on
    // 8 GPUs: 2 s. With one more single task of 30 after G: path 4 + 30 = 34 s.
    let params = GangParams {
        efficiency: 0.5,
        ..GangParams::default()
    };
    let p = Problem::new(one_gang(8.0, 4, params, None), two_uniform(&[])).unwrap();
    let lb = p.lower_bound();
    assert_eq!((lb.critical_path, lb.area, lb.value), (4.0, 2.0, 4.0));
    assert_eq!(p.min_run_time(TaskId::new(0)), 4.0);
    assert_eq!(p.min_critical_path(), 4.0);
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let gg = b.add_task(j, "G", 8.0, None).unwrap();
    let s = b.add_task(j, "s", 30.0, None).unwrap();
    b.add_edge(gg, s, 0.0).unwrap();
    b.set_gang(gg, 4, params).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), two_uniform(&[])).unwrap();
    let lb = p.lower_bound();
    // area: (16 + 30) / 8 = 5.75 s
    assert_eq!((lb.critical_path, lb.area), (34.0, 5.75));
    // the schedule on {g0..g3}: G [0, 4), s on g0 [4, 34): makespan 34 = the bound;
    // utilisation (4 · 4 + 30) / (8 · 34)
    let mut ev = Evaluator::new(&p);
    let sched = ev
        .schedule(&Plan::new(gs(&[0, 0]), vec![gg, s]), Policy::Insertion)
        .unwrap();
    assert_eq!(sched.makespan(), 34.0);
    assert_eq!(sched.validate(&p), vec![]);
    let m = sched.metrics(&p);
    assert_eq!(m.utilisation, 46.0 / (8.0 * 34.0));
    assert_eq!(m.gap, 1.0);
}

#[test]
fn the_random_cases_exercise_gangs_sets_spans_and_windows() {
    let (mut gangs, mut sets, mut across, mut windows) = (0, 0, 0, 0);
    for seed in 0..200 {
        let (p, plan) = random_case(seed);
        gangs += usize::from(p.has_gangs());
        sets += usize::from(!plan.gangs.is_empty());
        windows += usize::from(p.has_windows());
        let s = Evaluator::new(&p)
            .schedule(&plan, Policy::Insertion)
            .unwrap();
        across += usize::from(
            s.sets()
                .any(|(_, set)| set.iter().any(|&k| p.machine_of(k) != p.machine_of(set[0]))),
        );
    }
    assert!(
        gangs > 100 && sets > 30 && across > 10 && windows > 60,
        "{gangs} {sets} {across} {windows}"
    );
}

#[test]
fn can_lead_tells_which_gpus_may_lead_a_gang() {
    // 4 GPUs of span machine with 20 GiB: only a's GPUs (32 GiB) fit; b's have 16 GiB
    let p = Problem::new(
        one_gang(1.0, 4, GangParams::default(), Some(20.0)),
        two_machines(),
    )
    .unwrap();
    let t = TaskId::new(0);
    assert!((0..4).all(|k| p.can_lead(t, g(k))));
    assert!((4..8).all(|k| !p.can_lead(t, g(k))));
    let s = PartialSchedule::new(&p);
    let e = s.slot(t, g(4), Policy::Append).unwrap_err();
    assert!(matches!(e, ClusterError::MemoryInfeasible { .. }), "{e}");
    // 3 GPUs of span machine on a cluster of machines with 4 and 2 GPUs: not on the small one
    let mut c = ClusterBuilder::new("uneven");
    let s1 = GpuModel::custom("S1", 1.0, 32.0).unwrap();
    for (name, k) in [("big", 4), ("small", 2)] {
        let m = c.add_machine(name);
        for _ in 0..k {
            c.add_gpu(m, &s1).unwrap();
        }
    }
    let p = Problem::new(
        one_gang(3.0, 3, GangParams::default(), None),
        Arc::new(c.build().unwrap()),
    )
    .unwrap();
    assert!(p.can_lead(t, g(0)) && !p.can_lead(t, g(4)));
    let s = PartialSchedule::new(&p);
    assert_eq!(
        s.slot(t, g(4), Policy::Append).unwrap_err().to_string(),
        "GPU set of task `j/t` {g4}: machine `small` has 1 other GPUs with its memory, the task needs 3 GPUs"
    );
    // on the big machine: 3 / 3 = 1 s on {g0, g1, g2}
    let slot = s.slot(t, g(0), Policy::Append).unwrap();
    assert_eq!((slot.gpu(), slot.start(), slot.finish()), (g(0), 0.0, 1.0));
}
