//! Small hand-made clusters and problems shared by the tests of this crate and of the
//! schedulers' crate (worl-sched), so that a case whose schedule a test computes by hand is
//! written once: GPUs of one unit model ([`unit_model`]) on machines linked uniformly
//! ([`uniform_cluster`]), the two 4-GPU machines of the gang tests
//! ([`two_four_gpu_machines`]) and the issue-21 case "a 4-GPU task among 1-GPU tasks on two
//! 4-GPU machines" ([`four_gpu_among_singles`]). Plain builders, no test framework: every
//! figure is fixed here and documented, the tests assert on them. [`entry`] and [`gpu_set`]
//! write schedule entries and gang GPU sets by index.

use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterBuilder};
use crate::error::Result;
use crate::ids::GpuId;
use crate::network::{Link, Network};
use crate::problem::Problem;
use crate::schedule::{GpuSet, ScheduledTask};
use std::sync::Arc;
use worl_dag::{GangParams, TaskId, Workload, WorkloadBuilder};

/// The GPU model of the hand-made clusters: `S1`, relative speed 1.0 (a task of work `w`
/// runs `w` s), 32 GiB.
///
/// # Panics
/// Never: the figures are fixed and valid.
pub fn unit_model() -> GpuModel {
    GpuModel::custom("S1", 1.0, 32.0).expect("S1 (speed 1, 32 GiB) is a valid model")
}

/// The cluster `name` of one machine per name of `machines` (in order), each holding
/// `gpus_per_machine` GPUs of [`unit_model`] (GPU ids machine by machine: machine `i` holds
/// `g(i·n)..g(i·n + n − 1)`), linked by `intra` within a machine and `inter` between
/// machines ([`Network::uniform`]), with the busy windows `busy` = `(GPU index, from, to)`
/// in s.
///
/// Errors: the [`ClusterBuilder`]'s: an empty or repeated machine name, no GPU, a window
/// that is inverted, overlaps another or names a GPU the cluster lacks
/// ([`ClusterError`](crate::ClusterError), naming the GPU).
pub fn uniform_cluster(
    name: &str,
    machines: &[&str],
    gpus_per_machine: usize,
    intra: Link,
    inter: Link,
    busy: &[(usize, f64, f64)],
) -> Result<Cluster> {
    let mut c = ClusterBuilder::new(name);
    let model = unit_model();
    for &m in machines {
        let id = c.add_machine(m);
        for _ in 0..gpus_per_machine {
            c.add_gpu(id, &model)?;
        }
    }
    c.network(Network::uniform(intra, inter));
    for &(k, from, to) in busy {
        c.add_busy(GpuId::new(k), from, to)?;
    }
    c.build()
}

/// The cluster `uniform` of the gang tests: machines `a` (g0..g3) and `b` (g4..g7) of 4
/// [`unit_model`] GPUs; links within a machine 1 GB/s with 0.25 s latency, between the
/// machines 0.1 GB/s with 1 s; the busy windows `busy` ([`uniform_cluster`]).
///
/// Errors: as [`uniform_cluster`], for a bad window.
pub fn two_four_gpu_machines(busy: &[(usize, f64, f64)]) -> Result<Cluster> {
    uniform_cluster(
        "uniform",
        &["a", "b"],
        4,
        Link::new(1e9, 0.25)?,
        Link::new(1e8, 1.0)?,
        busy,
    )
}

/// The workload `w` of one job `j`: tasks `a` (work 2) → `G` (work 8, 4 GPUs, span
/// machine, efficiency 1, no all-reduce) → `c` (1), and `x` (3) alone (ids 0..3 in that
/// order); 0-byte edges.
///
/// # Panics
/// Never: the figures are fixed and valid.
pub fn four_gpu_among_singles_workload() -> Workload {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").expect("a fresh job");
    let mut task = |name: &str, work: f64| b.add_task(j, name, work, None).expect("a new task");
    let (a, g, c) = (task("a", 2.0), task("G", 8.0), task("c", 1.0));
    task("x", 3.0);
    b.add_edge(a, g, 0.0).expect("a new edge");
    b.add_edge(g, c, 0.0).expect("a new edge");
    b.set_gang(g, 4, GangParams::default())
        .expect("4 GPUs with default parameters");
    b.build().expect("an acyclic workload")
}

/// Issue 21's hand-computed case, a 4-GPU task among 1-GPU tasks on two 4-GPU machines:
/// [`four_gpu_among_singles_workload`] on [`two_four_gpu_machines`] without windows.
///
/// # Panics
/// Never: the figures are fixed and valid.
pub fn four_gpu_among_singles() -> Problem {
    let c = two_four_gpu_machines(&[]).expect("a valid cluster");
    Problem::new(Arc::new(four_gpu_among_singles_workload()), Arc::new(c))
        .expect("every task fits a GPU")
}

/// A schedule entry: task on GPU `gpu` (an index) over `[start, finish)`, s.
pub fn entry(gpu: usize, start: f64, finish: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: GpuId::new(gpu),
        start,
        finish,
    }
}

/// The GPU set `gpus` (indices, lead first) of task `task` (an index).
pub fn gpu_set(task: usize, gpus: &[usize]) -> GpuSet {
    GpuSet {
        task: TaskId::new(task),
        gpus: gpus.iter().map(|&k| GpuId::new(k)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use worl_dag::TaskId;

    #[test]
    fn the_shared_cases_have_their_documented_figures() {
        let p = four_gpu_among_singles();
        let c = p.cluster();
        assert_eq!(
            (c.name(), c.n_gpus(), c.machines()),
            ("uniform", 8, &["a".to_owned(), "b".to_owned()][..])
        );
        assert_eq!(c.gpu(GpuId::new(5)).machine.index(), 1);
        let g = p.graph();
        let names: Vec<(&str, f64, u32)> = g
            .tasks()
            .map(|(_, t)| (t.name.as_str(), t.work, t.gpus))
            .collect();
        assert_eq!(
            names,
            [("a", 2.0, 1), ("G", 8.0, 4), ("c", 1.0, 1), ("x", 3.0, 1)]
        );
        assert_eq!(g.n_edges(), 2);
        // 0 bytes cost the latency: 0.25 s within a machine, 1 s across.
        assert_eq!(p.comm_time(0.0, GpuId::new(0), GpuId::new(1)), 0.25);
        assert_eq!(p.comm_time(0.0, GpuId::new(0), GpuId::new(4)), 1.0);
        assert_eq!(p.exec_time(TaskId::new(3), GpuId::new(7)), 3.0);
        let busy = two_four_gpu_machines(&[(6, 1.0, 2.0)]).unwrap();
        assert_eq!(busy.busy(GpuId::new(6)).len(), 1);
        let e = two_four_gpu_machines(&[(8, 1.0, 2.0)]).unwrap_err();
        assert!(e.to_string().contains('8'), "{e}");
    }
}
