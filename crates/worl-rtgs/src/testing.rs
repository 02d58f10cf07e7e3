//! Random problems for property tests (feature `test-support`): the DAGs and clusters this
//! crate's own property and conformance tests draw from, as plain functions and as proptest
//! strategies, so that a downstream scheduler gets the same test in one line:
//!
//! ```
//! use proptest::prelude::*;
//! use worl_rtgs::{check_scheduler, testing, Registry};
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig::with_cases(8))]
//!     // In a test file, put `#[test]` on the property.
//!     fn heft_conforms(p in testing::problems(30, 6)) {
//!         let mut heft = Registry::with_builtins().build_spec("heft").unwrap();
//!         check_scheduler(heft.as_mut(), &p, 7).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     }
//! }
//! heft_conforms();
//! ```

use ndarray::Array2;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuModel, LoadState, Problem, presets};
use worl_dag::{TaskId, WorkloadBuilder};

/// The kind of cluster of a [`random_problem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterKind {
    /// Identical V100-16GB GPUs ([`presets::homogeneous`]).
    Homogeneous,
    /// The Alibaba PAI GPU mix ([`presets::pai_mix`]).
    PaiMix,
    /// The PAI mix with background load and ready times (`LoadState::Busy`).
    BusyPaiMix,
    /// The busy PAI mix with unrelated execution times (work × a factor in `[0.2, 5)` per
    /// task and GPU, [`Problem::with_exec_times`]).
    Unrelated,
    /// A10 GPUs of equal speed, one per machine, with ready times in `[0, 50)` s.
    ReadyTimes,
}

impl ClusterKind {
    /// Every kind.
    pub const ALL: [ClusterKind; 5] = [
        ClusterKind::Homogeneous,
        ClusterKind::PaiMix,
        ClusterKind::BusyPaiMix,
        ClusterKind::Unrelated,
        ClusterKind::ReadyTimes,
    ];
}

/// A random problem: a DAG of `n` tasks (edge `i -> j`, `i < j`, with probability
/// `density`), work in `[work_min, 100)` reference GPU-seconds, edge sizes in `[0, 2e9)`
/// bytes, a fifth of the tasks needing 14 GiB; on `m ≥ 1` GPUs of `kind` (a cluster
/// without a 14 GiB GPU is replaced by T4s). Same arguments, same problem.
///
/// # Panics
/// If `m == 0` or `work_min` is not in `[0, 100)`.
pub fn random_problem(
    n: usize,
    m: usize,
    density: f64,
    kind: ClusterKind,
    work_min: f64,
    seed: u64,
) -> Problem {
    build_problem(n, m, density, kind, work_min, seed, false)
}

/// [`random_problem`] with busy windows (issue 21): GPU 0 and each other GPU with
/// probability 1/2 get 1 to 3 busy windows `[from, to)`, the first starting in `[0, 150)` s,
/// each 5 to 80 s long, 0 to 100 s apart (so they fall inside the schedule of a few dozen
/// tasks of up to 100 s). The windows come from their own random stream: the workload,
/// cluster and execution times are exactly [`random_problem`]'s with the same arguments.
///
/// # Panics
/// As [`random_problem`].
pub fn random_problem_with_windows(
    n: usize,
    m: usize,
    density: f64,
    kind: ClusterKind,
    work_min: f64,
    seed: u64,
) -> Problem {
    build_problem(n, m, density, kind, work_min, seed, true)
}

/// 1 to 3 sorted, non-overlapping busy windows drawn from `rng` (see
/// [`random_problem_with_windows`]).
fn random_windows(rng: &mut ChaCha8Rng) -> Vec<(f64, f64)> {
    let mut at = rng.random_range(0.0..150.0);
    (0..rng.random_range(1..=3))
        .map(|_| {
            let from = at;
            let to = from + rng.random_range(5.0..80.0);
            at = to + rng.random_range(0.0..100.0);
            (from, to)
        })
        .collect()
}

fn build_problem(
    n: usize,
    m: usize,
    density: f64,
    kind: ClusterKind,
    work_min: f64,
    seed: u64,
    windows: bool,
) -> Problem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = WorkloadBuilder::new("random");
    let j = b.add_job("j").expect("a fresh builder takes a job");
    let ids: Vec<TaskId> = (0..n)
        .map(|i| {
            let mem = rng.random_bool(0.2).then_some(14.0);
            b.add_task(j, format!("t{i}"), rng.random_range(work_min..100.0), mem)
                .expect("finite work and memory")
        })
        .collect();
    for v in 0..n {
        for u in 0..v {
            if rng.random_bool(density) {
                b.add_edge(ids[u], ids[v], rng.random_range(0.0..2.0e9))
                    .expect("a forward edge keeps the DAG acyclic");
            }
        }
    }
    let w = Arc::new(b.build().expect("a valid DAG"));
    let cluster = match kind {
        ClusterKind::Homogeneous => presets::homogeneous(m, &GpuModel::v100_16gb()),
        ClusterKind::ReadyTimes => {
            let mut cb = ClusterBuilder::new("same-speed");
            for i in 0..m {
                let mach = cb.add_machine(format!("n{i}"));
                let g = cb.add_gpu(mach, &GpuModel::a10()).expect("a catalog GPU");
                cb.set_ready_time(g, rng.random_range(0.0..50.0))
                    .expect("a finite ready time");
            }
            cb.build()
        }
        ClusterKind::PaiMix => presets::pai_mix(m, seed),
        ClusterKind::BusyPaiMix | ClusterKind::Unrelated => {
            presets::pai_mix(m, seed).and_then(|mut c| {
                c.apply_load(
                    &LoadState::Busy {
                        utilisation: (0.0, 0.8),
                        ready_time: (0.0, 200.0),
                    },
                    seed,
                )?;
                Ok(c)
            })
        }
    }
    .expect("m >= 1 GPUs");
    // Every cluster needs a GPU with 16 GiB or more for the 14 GiB tasks.
    let cluster = if cluster.gpus().iter().any(|g| g.mem_gib >= 14.0) {
        cluster
    } else {
        presets::homogeneous(m, &GpuModel::t4()).expect("m >= 1 GPUs")
    };
    let mut cluster = cluster;
    if windows {
        let mut wrng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_b05f_0000_0021);
        for k in cluster.gpu_ids().collect::<Vec<_>>() {
            if k.index() == 0 || wrng.random_bool(0.5) {
                cluster
                    .set_busy(k, random_windows(&mut wrng))
                    .expect("sorted, disjoint, finite windows");
            }
        }
    }
    let cluster = Arc::new(cluster);
    if kind == ClusterKind::Unrelated {
        let exec = Array2::from_shape_fn((n, m), |(v, _)| {
            w.graph().task(TaskId::new(v)).work * rng.random_range(0.2..5.0)
        });
        Problem::with_exec_times(w, cluster, exec).expect("positive finite times")
    } else {
        Problem::new(w, cluster).expect("every task fits a GPU")
    }
}

/// [`problems`] with busy windows: [`random_problem_with_windows`] with drawn arguments.
pub fn problems_with_windows(max_tasks: usize, max_gpus: usize) -> impl Strategy<Value = Problem> {
    (
        1..=max_tasks.max(1),
        1..=max_gpus.max(1),
        0.0f64..0.4,
        0..ClusterKind::ALL.len(),
        any::<u64>(),
    )
        .prop_map(|(n, m, density, kind, seed)| {
            random_problem_with_windows(n, m, density, ClusterKind::ALL[kind], 0.0, seed)
        })
}

/// Random problems of up to `max_tasks` tasks (at least 1) on up to `max_gpus` GPUs (at
/// least 1), edge density in `[0, 0.4)`, every [`ClusterKind`]: [`random_problem`] with
/// drawn arguments.
pub fn problems(max_tasks: usize, max_gpus: usize) -> impl Strategy<Value = Problem> {
    (
        1..=max_tasks.max(1),
        1..=max_gpus.max(1),
        0.0f64..0.4,
        0..ClusterKind::ALL.len(),
        any::<u64>(),
    )
        .prop_map(|(n, m, density, kind, seed)| {
            random_problem(n, m, density, ClusterKind::ALL[kind], 0.0, seed)
        })
}
