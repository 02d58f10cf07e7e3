//! Random problems for property tests (feature `test-support`): the DAGs and clusters this
//! crate's own property and conformance tests draw from, as plain functions and as proptest
//! strategies, so that a downstream scheduler gets the same test in one line:
//!
//! ```
//! use proptest::prelude::*;
//! use worl_sched::{check_scheduler, testing, Registry};
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
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};

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
    build(n, m, density, kind, work_min, seed, false, false)
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
    build(n, m, density, kind, work_min, seed, true, false)
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

#[allow(clippy::too_many_arguments)]
fn build(
    n: usize,
    m: usize,
    density: f64,
    kind: ClusterKind,
    work_min: f64,
    seed: u64,
    windows: bool,
    gangs: bool,
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
    let w = if gangs {
        Arc::new(add_gangs(&w, &cluster, seed))
    } else {
        w
    };
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

/// The drawn arguments `(n, m, density, kind, seed)` of the `problems*` strategies.
fn arguments(
    max_tasks: usize,
    max_gpus: usize,
) -> impl Strategy<Value = (usize, usize, f64, ClusterKind, u64)> {
    (
        1..=max_tasks.max(1),
        1..=max_gpus.max(1),
        0.0f64..0.4,
        0..ClusterKind::ALL.len(),
        any::<u64>(),
    )
        .prop_map(|(n, m, density, kind, seed)| (n, m, density, ClusterKind::ALL[kind], seed))
}

/// [`problems`] with busy windows: [`random_problem_with_windows`] with drawn arguments.
pub fn problems_with_windows(max_tasks: usize, max_gpus: usize) -> impl Strategy<Value = Problem> {
    arguments(max_tasks, max_gpus).prop_map(|(n, m, density, kind, seed)| {
        random_problem_with_windows(n, m, density, kind, 0.0, seed)
    })
}

/// Random problems of up to `max_tasks` tasks (at least 1) on up to `max_gpus` GPUs (at
/// least 1), edge density in `[0, 0.4)`, every [`ClusterKind`]: [`random_problem`] with
/// drawn arguments.
pub fn problems(max_tasks: usize, max_gpus: usize) -> impl Strategy<Value = Problem> {
    arguments(max_tasks, max_gpus)
        .prop_map(|(n, m, density, kind, seed)| random_problem(n, m, density, kind, 0.0, seed))
}

/// [`random_problem`] (with busy windows when `windows`, [`random_problem_with_windows`])
/// with gang tasks (issue 21): each task, with probability 0.3 (task 0 always, when some
/// set can hold it), needs `g` GPUs, `g` uniform in `2..=4` and at most what can hold it:
/// span `machine` (with probability 1/2, when a machine has two GPUs that fit the task) with
/// `g` at most the largest machine's fitting GPUs, else span `cluster` with `g` at most the
/// cluster's fitting GPUs; parallel efficiency in `[0.6, 1]`, all-reduce bytes in
/// `[0, 1e9)` and half the time 0 to 3 synchronisation steps. The gangs come from their own
/// random stream: the workload's DAG, works, memory, the cluster, windows and execution
/// times are exactly those of the problem without gangs. Tasks no set can hold (a 14 GiB
/// task on a cluster with one such GPU) stay on one GPU.
///
/// # Panics
/// As [`random_problem`].
pub fn random_problem_with_gangs(
    n: usize,
    m: usize,
    density: f64,
    kind: ClusterKind,
    work_min: f64,
    seed: u64,
    windows: bool,
) -> Problem {
    build(n, m, density, kind, work_min, seed, windows, true)
}

/// The gangs of [`random_problem_with_gangs`] on `w`, drawn from their own stream.
fn add_gangs(
    w: &worl_dag::Workload,
    cluster: &worl_cluster::Cluster,
    seed: u64,
) -> worl_dag::Workload {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6a6e_6773_0000_0021);
    let mut b = w.to_builder();
    for (v, t) in w.graph().tasks() {
        let need = t.mem_gib.unwrap_or(0.0);
        let fits = |k: &worl_cluster::GpuId| need <= cluster.gpus()[k.index()].mem_gib;
        let per_machine = (0..cluster.machines().len())
            .map(|mc| {
                cluster
                    .gpus_of(worl_cluster::MachineId::new(mc))
                    .iter()
                    .filter(|k| fits(k))
                    .count()
            })
            .max()
            .unwrap_or(0);
        let total = cluster.gpu_ids().filter(|k| fits(k)).count();
        let span_draw = rng.random_bool(0.5);
        let chosen = v.index() == 0 || rng.random_bool(0.3);
        let g = rng.random_range(2..=4usize);
        let params = GangParams {
            span: Span::Machine,
            efficiency: rng.random_range(0.6..=1.0),
            sync_bytes: rng.random_range(0.0..1e9),
            sync_steps: if rng.random_bool(0.5) {
                0.0
            } else {
                rng.random_range(0.0..3.0)
            },
        };
        if !chosen || total < 2 {
            continue;
        }
        let (span, most) = if per_machine >= 2 && span_draw {
            (Span::Machine, per_machine)
        } else {
            (Span::Cluster, total)
        };
        b.set_gang(v, g.min(most) as u32, GangParams { span, ..params })
            .expect("a valid gang");
    }
    b.build().expect("the same workload with gangs")
}

/// [`problems`] with gang tasks and, half the time, busy windows:
/// [`random_problem_with_gangs`] with drawn arguments.
pub fn problems_with_gangs(max_tasks: usize, max_gpus: usize) -> impl Strategy<Value = Problem> {
    (arguments(max_tasks, max_gpus), any::<bool>()).prop_map(
        |((n, m, density, kind, seed), windows)| {
            random_problem_with_gangs(n, m, density, kind, 0.0, seed, windows)
        },
    )
}

/// Every registered scheduler that builds without burn (`BUILTINS`), built by a
/// [`Registry`](crate::Registry) from `name[quick options]` (small budgets for tests).
///
/// # Panics
/// If a built-in's quick specification does not build (a defect of the registry).
pub fn quick_schedulers() -> Vec<Box<dyn crate::Scheduler>> {
    let registry = crate::Registry::with_builtins();
    crate::schedulers::BUILTINS
        .iter()
        .map(|b| {
            let spec = if b.quick.is_empty() {
                b.name.to_owned()
            } else {
                format!("{}[{}]", b.name, b.quick)
            };
            registry
                .build_spec(&spec)
                .unwrap_or_else(|e| panic!("{spec}: {e}"))
        })
        .collect()
}

/// The registry names of the built-in schedulers that place gang tasks
/// ([`Scheduler::supports_gangs`](crate::Scheduler::supports_gangs)): the 8 list
/// schedulers, WOA, PSO, GA, ILS, exact, RTGS and, with the `ddqn` feature, both WORL-RTGS
/// presets. Spelled out (not read from the registry) so that a test fails when one stops.
pub fn gang_schedulers() -> Vec<&'static str> {
    let mut names = vec![
        "heft",
        "cpop",
        "peft",
        "min-min",
        "max-min",
        "least-connection",
        "round-robin",
        "random",
        "woa",
        "pso",
        "ga",
        "ils",
        "exact",
        "rtgs",
    ];
    if cfg!(feature = "ddqn") {
        names.extend(["worl-rtgs", "worl-rtgs-paper"]);
    }
    names
}

/// HEFT's makespan on `p` (the registry's `heft`, default options), s.
///
/// # Panics
/// If HEFT fails on `p` (it places every valid problem).
pub fn heft_makespan(p: &Problem) -> f64 {
    crate::Registry::with_builtins()
        .build_spec("heft")
        .and_then(|mut s| s.schedule(p, &mut crate::RunContext::new(0)))
        .unwrap_or_else(|e| panic!("HEFT: {e}"))
        .makespan()
}

/// Whether `schedule`, made by `scheduler` for `p`, is what its own plan decodes to: the
/// [`Evaluator`](worl_cluster::Evaluator) placing its tasks in start order on the same GPUs
/// (sets kept), each at its earliest append start (past data, the GPU's previous task and
/// its busy windows), gives back its makespan within `1e-9` relative.
///
/// Errors: a one-line message naming the scheduler, for a plan that does not decode or
/// decodes to another makespan.
pub fn plan_decodes_to_makespan(
    scheduler: &str,
    p: &Problem,
    schedule: &worl_cluster::Schedule,
) -> Result<(), String> {
    let plan = schedule.to_plan(p);
    let decoded = worl_cluster::Evaluator::new(p)
        .makespan(&plan, worl_cluster::Policy::Append)
        .map_err(|e| format!("{scheduler}: {e}"))?;
    let m = schedule.makespan();
    if (decoded - m).abs() > 1e-9 * m.max(1.0) {
        return Err(format!(
            "{scheduler}: makespan {m} s but its plan decodes to {decoded} s"
        ));
    }
    Ok(())
}

/// Every GPU set task `v` may run on, found by brute force, independently of any
/// scheduler: for a task on one GPU each GPU that fits it; for a gang of `g` every
/// `g`-subset of the GPUs whose GPUs all fit and, for span `machine`, share a machine, in
/// ascending order of their bit masks (GPU `k` is bit `k`). Fewer than 32 GPUs.
pub fn all_sets(p: &Problem, v: TaskId) -> Vec<Vec<worl_cluster::GpuId>> {
    let g = p.gpus(v) as usize;
    let m = p.n_gpus();
    let span = p.graph().task(v).gang.span;
    (1u32..1 << m)
        .filter(|mask| mask.count_ones() as usize == g)
        .map(|mask| {
            (0..m)
                .filter(|k| mask & (1 << k) != 0)
                .map(worl_cluster::GpuId::new)
                .collect::<Vec<_>>()
        })
        .filter(|set| {
            set.iter().all(|&k| p.fits(v, k))
                && (g == 1
                    || span == Span::Cluster
                    || set.iter().all(|&k| p.machine_of(k) == p.machine_of(set[0])))
        })
        .collect()
}
