//! Gang tasks in the cluster model (issue 21): run time on a GPU set, the refusals of
//! `Problem::new`, placement on GPU sets, schedules and their validation, the lower bound.
//! Every figure below is computed by hand in the comments.

use std::sync::Arc;
use worl_cluster::{ClusterBuilder, ClusterError, GpuId, GpuModel, Link, Network, Problem};
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
