//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;
use worl_cluster::{Cluster, ClusterBuilder, GpuModel, Link, Network};
use worl_dag::{TaskId, Workload, WorkloadBuilder};

/// A workload of one job from `(name, work, mem)` tasks and `(from, to, bytes)` edges
/// (indices into the task list).
pub fn workload(
    tasks: &[(&str, f64, Option<f64>)],
    edges: &[(usize, usize, f64)],
) -> Arc<Workload> {
    let mut b = WorkloadBuilder::new("test");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = tasks
        .iter()
        .map(|&(n, w, m)| b.add_task(j, n, w, m).unwrap())
        .collect();
    for &(u, v, d) in edges {
        b.add_edge(ids[u], ids[v], d).unwrap();
    }
    Arc::new(b.build().unwrap())
}

/// One GPU per machine with the given relative speeds (memory 32 GiB), linked by `inter`.
pub fn single_gpu_machines(speeds: &[f64], inter: Link) -> Cluster {
    let mut b = ClusterBuilder::new("single-gpu-machines");
    for (i, &s) in speeds.iter().enumerate() {
        let m = b.add_machine(format!("node-{i}"));
        let model = GpuModel::custom(format!("S{s}"), s, 32.0).unwrap();
        b.add_gpu(m, &model).unwrap();
    }
    b.network(Network::uniform(Link::NVLINK2, inter));
    b.build().unwrap()
}

/// `t(i)`: the task id of index `i`.
pub fn t(i: usize) -> TaskId {
    TaskId::new(i)
}
