//! Gang tasks in the cluster model (issue 21): run time on a GPU set, the refusals of
//! `Problem::new`, placement on GPU sets, schedules and their validation, the lower bound.
//! Every figure below is computed by hand in the comments.

use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, ClusterError, GpuId, GpuModel, GpuSet, Link, Network, Problem, Schedule,
    ScheduledTask, Violation,
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

fn entry(gpu: usize, start: f64, finish: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: g(gpu),
        start,
        finish,
    }
}

fn set(task: usize, gpus: &[usize]) -> GpuSet {
    GpuSet {
        task: TaskId::new(task),
        gpus: gs(gpus),
    }
}

#[test]
fn a_gang_schedule_validates_with_the_set_formulas() {
    let p = gang_then_single();
    let (t, s) = (TaskId::new(0), TaskId::new(1));
    // t on {g0, g1}: 4 / 2 = 2 s. s on g4 (speed 2: 1 s): its data leaves the nearer GPU of
    // t's set at 2 s and crosses the 0.1 GB/s link: 2 + 1 + 1e9 / 1e8 = 13 s. u on g2.
    let ok = Schedule::with_sets(
        8,
        vec![entry(0, 0.0, 2.0), entry(4, 13.0, 14.0), entry(2, 0.0, 2.0)],
        vec![set(0, &[0, 1])],
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
        vec![entry(0, 0.0, 2.0), entry(4, 12.0, 13.0), entry(2, 0.0, 2.0)],
        vec![set(0, &[0, 1])],
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
        vec![entry(0, 0.0, 2.0), entry(1, 2.0, 4.0), entry(2, 0.0, 2.0)],
        vec![set(0, &[0, 1])],
    )
    .unwrap();
    assert_eq!(local.validate(&p), vec![]);
    // u on g1 over [1, 3): overlaps t there (t's lead is g0, but t holds g1 too)
    let overlap = Schedule::with_sets(
        8,
        vec![entry(0, 0.0, 2.0), entry(4, 13.0, 14.0), entry(1, 1.0, 3.0)],
        vec![set(0, &[0, 1])],
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
    let tasks = || vec![entry(0, 0.0, 2.0), entry(4, 13.0, 14.0), entry(2, 0.0, 2.0)];
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
    let twice = Schedule::with_sets(8, tasks(), vec![set(0, &[0, 0])]).unwrap();
    let v = twice.validate(&p);
    assert_eq!(v, vec![Violation::GangRepeated { task: t, gpu: g(0) }]);
    assert_eq!(
        v[0].explain(&p, &twice).to_string(),
        "gang set: `j/t` (t0) lists g0 (S1 on `a`) more than once in its set"
    );
    assert_eq!(twice.timeline(g(0)), &[t][..]);
    // g0 and g5 on two machines, span machine (run time max(4, 2) / 2 = 2 s: no duration
    // violation); s's data is then on g5 of b, 2 + 0.25 + 1 = 3.25 s
    let split = Schedule::with_sets(8, tasks(), vec![set(0, &[0, 5])]).unwrap();
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
    let unknown = Schedule::with_sets(9, tasks(), vec![set(0, &[0, 8])]).unwrap();
    assert_eq!(
        unknown.validate(&p),
        vec![Violation::UnknownGpu { task: t, gpu: g(8) }]
    );
}

#[test]
fn schedule_sets_round_trip_through_json_and_old_json_reads() {
    let s = Schedule::with_sets(
        8,
        vec![entry(0, 0.0, 2.0), entry(4, 13.0, 14.0), entry(2, 0.0, 2.0)],
        vec![set(0, &[0, 1]), set(1, &[4])],
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
    let plain = Schedule::new(1, vec![entry(0, 0.0, 1.0)]).unwrap();
    assert!(!plain.to_json_string().contains("sets"));
    let old = r#"{"n_gpus": 1, "tasks": [{"gpu": 0, "start": 0.0, "finish": 1.0}]}"#;
    assert_eq!(Schedule::from_json_str(old).unwrap(), plain);
    // a set whose lead is not the entry's GPU, or a task given two sets, is refused
    let e = Schedule::with_sets(8, vec![entry(0, 0.0, 2.0)], vec![set(0, &[1, 0])]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "GPU set of task `t0` {g1,g0}: its first GPU must be the task's GPU g0"
    );
    let e = Schedule::with_sets(
        8,
        vec![entry(0, 0.0, 2.0)],
        vec![set(0, &[0, 1]), set(0, &[0, 2])],
    )
    .unwrap_err();
    assert!(matches!(e, ClusterError::InvalidGpuSet { .. }), "{e}");
}
