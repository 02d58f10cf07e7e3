//! Helpers shared by the integration tests: the two golden instances, the clusters and
//! workloads of the invariant tests, the shared data directory.
#![allow(dead_code)]

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuModel, Link, LoadState, Network, Problem, presets};
use worl_dag::generators::shapes::topcuoglu_2002;
use worl_dag::generators::{alibaba_like, layered, shapes};
use worl_dag::{TaskId, Workload, WorkloadBuilder};
use worl_sched::schedulers::{BUILTINS, Family};
use worl_sched::{Registry, Scheduler};

/// The registry names of the list schedulers, from the registration table.
pub fn list_names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .filter(|b| b.family == Family::List)
        .map(|b| b.name)
        .collect()
}

/// Every list scheduler, with default options.
pub fn all_schedulers() -> Vec<Box<dyn Scheduler>> {
    let r = Registry::with_builtins();
    list_names()
        .iter()
        .map(|n| r.build(n, Default::default()).unwrap())
        .collect()
}

/// `t(i)`: the task id of index `i`.
pub fn t(i: usize) -> TaskId {
    TaskId::new(i)
}

/// W of Topcuoglu et al. 2002 Fig. 2: rows T1..T10, columns P1..P3.
pub const W: [[f64; 3]; 10] = [
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

/// The Fig. 2 topology with task work `work[i]` (names T1..T10).
fn fig2(work: [f64; 10]) -> Arc<Workload> {
    Arc::new(topcuoglu_2002(work).unwrap())
}

/// One GPU per machine with the given speeds, every link 1 B/s and latency 0: comm time =
/// bytes between different GPUs, 0 on the same GPU.
fn unit_network_cluster(speeds: &[f64]) -> worl_cluster::Cluster {
    let mut cb = ClusterBuilder::new("unit-network");
    for (i, &s) in speeds.iter().enumerate() {
        let m = cb.add_machine(format!("P{i}"));
        cb.add_gpu(m, &GpuModel::custom(format!("S{s}"), s, 1.0).unwrap())
            .unwrap();
    }
    let unit = Link::new(1.0, 0.0).unwrap();
    cb.network(Network::uniform(unit, unit));
    cb.build().unwrap()
}

/// Topcuoglu et al. 2002, Fig. 2: unrelated machines (W), comm = edge cost across GPUs.
pub fn topcuoglu() -> Problem {
    let exec = Array2::from_shape_fn((10, 3), |(v, k)| W[v][k]);
    Problem::with_exec_times(
        fig2([0.0; 10]),
        Arc::new(unit_network_cluster(&[1.0; 3])),
        exec,
    )
    .unwrap()
}

/// The dslab-dag variant (`crates/dslab-dag/src/tests.rs`, `test_4`): same topology, work
/// 64, 76, 52, 32, 56, 64, 60, 44, 48, 28 flops, related machines of speed 1, 2, 4, 4.
pub fn dslab() -> Problem {
    let work = [64.0, 76.0, 52.0, 32.0, 56.0, 64.0, 60.0, 44.0, 48.0, 28.0];
    Problem::new(
        fig2(work),
        Arc::new(unit_network_cluster(&[1.0, 2.0, 4.0, 4.0])),
    )
    .unwrap()
}

/// A copy of `w` in which task `i` needs memory `mems[i % mems.len()]` (GiB, `None` = no
/// need).
pub fn with_memory(w: &Workload, mems: &[Option<f64>]) -> Workload {
    let mut b = WorkloadBuilder::new(w.name());
    for j in w.jobs() {
        b.add_job(&j.name).unwrap();
    }
    for (id, task) in w.graph().tasks() {
        let job = worl_dag::JobId::new(task.job.index());
        b.add_task(job, &task.name, task.work, mems[id.index() % mems.len()])
            .unwrap();
    }
    for e in w.graph().edges() {
        b.add_edge(e.from, e.to, e.bytes).unwrap();
    }
    b.build().unwrap()
}

/// The clusters of the invariant tests, by name: homogeneous V100s, the PAI mix, the PAI mix
/// busy (ready times and background utilisation).
pub fn clusters(m: usize, seed: u64) -> Vec<(&'static str, Arc<worl_cluster::Cluster>)> {
    let mut busy = presets::pai_mix(m, seed).unwrap();
    busy.apply_load(
        &LoadState::Busy {
            utilisation: (0.2, 0.85),
            ready_time: (0.0, 500.0),
        },
        seed + 1,
    )
    .unwrap();
    vec![
        (
            "homogeneous",
            Arc::new(presets::homogeneous(m, &GpuModel::v100_16gb()).unwrap()),
        ),
        ("pai_mix", Arc::new(presets::pai_mix(m, seed).unwrap())),
        ("pai_mix_busy", Arc::new(busy)),
    ]
}

/// The problems of `w` on every cluster of [`clusters`], plus unrelated machines (a random
/// `[n, m]` matrix of 0.2–5× the task's work on a busy PAI mix).
pub fn problems(w: &Arc<Workload>, m: usize, seed: u64) -> Vec<(String, Problem)> {
    let mut out: Vec<(String, Problem)> = clusters(m, seed)
        .into_iter()
        .map(|(name, c)| (name.to_owned(), Problem::new(w.clone(), c).unwrap()))
        .collect();
    let c = clusters(m, seed).pop().unwrap().1;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xabcd);
    let g = w.graph();
    let exec = Array2::from_shape_fn((g.n_tasks(), m), |(v, _)| {
        g.task(t(v)).work * rng.random_range(0.2..5.0)
    });
    out.push((
        "unrelated".to_owned(),
        Problem::with_exec_times(w.clone(), c, exec).unwrap(),
    ));
    out
}

/// The generated workloads of the invariant tests, by name.
pub fn generated() -> Vec<(&'static str, Workload)> {
    let gb = 1.0e9;
    vec![
        ("single", shapes::single(12.0).unwrap()),
        ("single_zero_work", shapes::single(0.0).unwrap()),
        ("chain", shapes::chain(20, 5.0, gb).unwrap()),
        ("fork_join", shapes::fork_join(30, 8.0, 0.5 * gb).unwrap()),
        ("wide", shapes::wide(60, 3.0).unwrap()),
        ("disconnected", shapes::disconnected(6, 7, 4.0, gb).unwrap()),
        (
            "multi_entry_exit",
            shapes::multi_entry_exit(5, 4, 6.0, 2.0 * gb).unwrap(),
        ),
        ("zero_costs", shapes::fork_join(10, 0.0, 0.0).unwrap()),
        (
            "layered",
            layered::layered(
                &layered::LayeredParams::new(150)
                    .fat(0.5)
                    .density(0.4)
                    .ccr(1.0, worl_dag::REFERENCE_BANDWIDTH),
                3,
            )
            .unwrap(),
        ),
        (
            "alibaba_like",
            alibaba_like::alibaba_like(&alibaba_like::AlibabaLikeParams::new(15), 4).unwrap(),
        ),
    ]
}
