//! [`Problem`]: a workload bound to a cluster, with the cost model every scheduler queries.

use crate::cluster::Cluster;
use crate::error::{ClusterError, Result, num};
use crate::ids::{ClassId, GpuId, MachineId};
use ndarray::Array2;
use std::collections::HashMap;
use std::sync::Arc;
use worl_dag::{Span, TaskGraph, TaskId, Workload};

/// Latency (s) and inverse bandwidth (s/byte) of one machine pair.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct LinkCost {
    latency: f64,
    inv_bandwidth: f64,
}

/// Link costs between machines, in the most compact form the network allows: most clusters
/// (every preset but the paper's random links, every trace loader) have one inter-machine
/// link, and a lookup in a per-machine vector stays in L1 where a `[M, M]` matrix does not.
#[derive(Clone, Debug)]
enum LinkCosts {
    /// `intra[a]` inside machine `a`, `inter` between any two machines.
    UniformInter {
        intra: Vec<LinkCost>,
        inter: LinkCost,
    },
    /// A link per ordered machine pair, shape `[M, M]`.
    Matrix(Array2<LinkCost>),
}

impl LinkCosts {
    fn new(net: &crate::Network, nm: usize) -> Self {
        let cost = |a: usize, b: usize| LinkCost {
            latency: net.latency(a, b),
            inv_bandwidth: 1.0 / net.bandwidth(a, b),
        };
        let intra: Vec<LinkCost> = (0..nm).map(|a| cost(a, a)).collect();
        if nm < 2 {
            return Self::UniformInter {
                intra,
                inter: LinkCost::default(),
            };
        }
        if let crate::Network::Uniform { .. } = net {
            // O(M) rather than the O(M²) comparison below.
            return Self::UniformInter {
                intra,
                inter: cost(0, 1),
            };
        }
        let inter = cost(0, 1);
        let uniform = (0..nm).all(|a| (0..nm).all(|b| a == b || cost(a, b) == inter));
        if uniform {
            Self::UniformInter { intra, inter }
        } else {
            Self::Matrix(Array2::from_shape_fn((nm, nm), |(a, b)| cost(a, b)))
        }
    }

    #[inline]
    fn get(&self, a: usize, b: usize) -> LinkCost {
        match self {
            Self::UniformInter { intra, inter } => {
                if a == b {
                    intra[a]
                } else {
                    *inter
                }
            }
            Self::Matrix(m) => m[[a, b]],
        }
    }
}

/// How execution times are obtained.
#[derive(Clone, Debug)]
enum ExecModel {
    /// Related machines: `exec(v, k) = w_v / (s_k (1 − u_k))`.
    Related {
        /// `w_v`, reference GPU-seconds, per task.
        work: Vec<f64>,
    },
    /// Unrelated machines: `exec(v, k) = T[v, k] / (1 − u_k)`, shape `[n_tasks, n_gpus]`
    /// (already divided).
    Unrelated { time: Array2<f64> },
}

/// The overflow checks of [`Problem`] construction (see its documentation): every execution
/// and communication time finite, the total work and the worst-case schedule length finite.
/// `O(n · m)` for unrelated machines, `O(n + |E| + m)` otherwise (plus `O(M²)` over machine
/// pairs, only on the error path).
fn check_costs(
    workload: &Workload,
    cluster: &Cluster,
    exec: &ExecModel,
    speed: &[f64],
    machine_of: &[u32],
    links: &LinkCosts,
    (max_latency, max_inv_bandwidth): (f64, f64),
) -> Result<()> {
    let g = workload.graph();
    let overflow = |what: &'static str, task: String| ClusterError::Overflow { what, task };
    // The slowest GPU (first in id order) gives every task its largest execution time.
    let slowest = (0..speed.len())
        .min_by(|&a, &b| speed[a].total_cmp(&speed[b]))
        .expect("a cluster has a GPU");
    let max_exec = |v: usize| -> (f64, usize) {
        match exec {
            ExecModel::Related { work } => (work[v] / speed[slowest], slowest),
            ExecModel::Unrelated { time } => {
                time.row(v)
                    .iter()
                    .enumerate()
                    .fold(
                        (0.0f64, 0usize),
                        |best, (k, &x)| {
                            if x > best.0 { (x, k) } else { best }
                        },
                    )
            }
        }
    };
    // Busy windows end by MAX_HORIZON: a task they delay starts no later than the end of
    // the last one, so that end counts like a ready time.
    let mut horizon = cluster
        .gpus()
        .iter()
        .map(|gpu| gpu.ready_time.max(gpu.busy.last().map_or(0.0, |w| w.1)))
        .fold(0.0f64, f64::max);
    let mut total_work = 0.0f64;
    for (t, task) in g.tasks() {
        let (mut e, k) = max_exec(t.index());
        if task.is_gang() {
            // The largest `exec(v, S)` over sets: the slowest GPU's share plus the all-reduce
            // over the worst link between distinct GPUs.
            let gg = f64::from(task.gpus);
            let p = task.gang;
            e = e / (gg * p.efficiency)
                + p.sync_steps
                    * (2.0 * (gg - 1.0) / gg * p.sync_bytes * max_inv_bandwidth
                        + 2.0 * (gg - 1.0) * max_latency);
        }
        if !e.is_finite() {
            return Err(ClusterError::NonFiniteCost {
                what: "execution",
                task: workload.task_label(t),
                gpu: if task.is_gang() {
                    format!("a set of {} GPUs", task.gpus)
                } else {
                    GpuId::new(k).to_string()
                },
                value: e,
            });
        }
        horizon += e;
        if !horizon.is_finite() {
            return Err(overflow(
                "worst-case schedule length",
                workload.task_label(t),
            ));
        }
        if let ExecModel::Related { .. } = exec {
            total_work += task.work;
            if !total_work.is_finite() {
                return Err(overflow("total work", workload.task_label(t)));
            }
        }
    }
    for edge in g.edges() {
        let label = || {
            format!(
                "{} -> {}",
                workload.task_label(edge.from),
                workload.task_label(edge.to)
            )
        };
        let worst = max_latency + edge.bytes * max_inv_bandwidth;
        if !worst.is_finite() {
            // Name a GPU pair whose time is not finite, if one is (the bound combines the
            // largest latency and inverse bandwidth, which may come from different pairs).
            let m = machine_of.len();
            let mut first_of = vec![usize::MAX; cluster.n_machines()];
            let mut second_of = vec![usize::MAX; cluster.n_machines()];
            for k in (0..m).rev() {
                let a = machine_of[k] as usize;
                second_of[a] = first_of[a];
                first_of[a] = k;
            }
            for a in 0..first_of.len() {
                for b in 0..first_of.len() {
                    let (k, l) = if a == b {
                        (first_of[a], second_of[a])
                    } else {
                        (first_of[a], first_of[b])
                    };
                    if k == usize::MAX || l == usize::MAX {
                        continue;
                    }
                    let c = links.get(a, b);
                    let value = c.latency + edge.bytes * c.inv_bandwidth;
                    if !value.is_finite() {
                        return Err(ClusterError::NonFiniteCost {
                            what: "communication",
                            task: label(),
                            gpu: format!("{} -> {}", GpuId::new(k), GpuId::new(l)),
                            value,
                        });
                    }
                }
            }
        }
        horizon += worst;
        if !horizon.is_finite() {
            return Err(overflow("worst-case schedule length", label()));
        }
    }
    Ok(())
}

/// A scheduling problem: a [`Workload`] on a [`Cluster`], with the cost model.
///
/// Costs (`docs/model.md`, "Costs"):
/// * execution, **related machines** ([`Problem::new`]): `exec(v, k) = w_v / (s_k (1 − u_k))`
///   seconds, `w_v` the task's work in reference GPU-seconds, `s_k` the GPU's relative
///   speed, `u_k` its background utilisation;
/// * execution, **unrelated machines** ([`Problem::with_exec_times`]): an explicit matrix
///   `T[v, k]` of run times on idle GPUs, `exec(v, k) = T[v, k] / (1 − u_k)` (the form of
///   Topcuoglu et al. 2002's examples);
/// * communication: `comm(bytes, k, l) = 0` if `k = l`, else `L(k, l) + bytes / B(k, l)`
///   with the latency and bandwidth of the link between the GPUs' machines.
///
/// * a **gang task** (`g =` [`Task::gpus`](worl_dag::Task::gpus) `> 1`) on a GPU set `S`:
///   [`exec_time_on`](Problem::exec_time_on) (slowest GPU's share times `1 / (g · e_v)`
///   plus a ring all-reduce per synchronisation step over the set's slowest link).
///
/// Construction rejects what cannot be scheduled: a gang task no GPU set can hold
/// ([`ClusterError::GangTooLarge`]: with span `machine`, more GPUs, or more GPUs with its
/// memory, than the largest machine has; more than the cluster has); a task whose memory need fits no GPU
/// ([`ClusterError::TaskFitsNoGpu`]), a matrix of the wrong shape
/// ([`ClusterError::ShapeMismatch`]) or with a negative or non-finite entry
/// ([`ClusterError::InvalidValue`]). (Empty clusters and zero, negative, non-finite or
/// subnormal speeds and bandwidths cannot exist: [`Cluster`] rejects them when built.)
///
/// It also rejects costs that overflow though each input is valid, so that every time a
/// scheduler computes is finite:
/// * an execution time `exec(v, k)` or communication time `comm(bytes, k, l)` that is not
///   finite for some task (edge) and GPU (pair): [`ClusterError::NonFiniteCost`] naming
///   them;
/// * a total work `Σ_v w_v` (related machines) or a worst-case schedule length
///   `max_k max(r_k, end of k's last busy window) + Σ_v max_k exec(v, k) +
///   Σ_{(u,v)} max_{k≠l} comm(bytes_uv, k, l)` that is not finite: [`ClusterError::Overflow`] naming the task or edge at which the sum
///   overflows. That length bounds the makespan of every plan any list decoder
///   ([`PartialSchedule`](crate::PartialSchedule), [`Evaluator`](crate::Evaluator)) can
///   produce, and the [lower bound](Problem::lower_bound), so both are always finite.
///
/// Memory: related-machine costs need `O(n + m)` (work per task, effective speed per GPU:
/// no per-task × per-GPU table), plus `O(n + M²)` for per-task mean/min costs and the
/// machine-pair network matrix (`M` machines); unrelated costs hold the given `[n, m]`
/// matrix. 10,000 tasks on 500 GPUs in 100 machines take about 0.5 MB. The network is held
/// as a per-machine vector of intra-machine links plus one inter-machine link when the
/// network has a single inter-machine link, as a `[M, M]` ndarray matrix otherwise.
///
/// All queries are `O(1)`; the hot ones are `#[inline]`.
///
/// GPU classes group GPUs that are interchangeable for the cost model: same effective speed
/// and memory for related machines (each GPU is its own class for unrelated machines).
/// Ready times differ within a class.
#[derive(Clone, Debug)]
pub struct Problem {
    workload: Arc<Workload>,
    cluster: Arc<Cluster>,
    exec: ExecModel,
    /// Effective speed `s_k (1 − u_k)` per GPU.
    speed: Vec<f64>,
    /// Memory need per task, GiB (0 when unknown).
    mem_need: Vec<f64>,
    /// Memory per GPU, GiB.
    gpu_mem: Vec<f64>,
    /// Ready time per GPU, s.
    ready: Vec<f64>,
    /// Machine index per GPU.
    machine_of: Vec<u32>,
    /// `L(a, b)` and `1 / B(a, b)` per machine pair.
    links: LinkCosts,
    class_of: Vec<ClassId>,
    class_gpus: Vec<Vec<GpuId>>,
    mean_exec: Vec<f64>,
    min_exec: Vec<f64>,
    mean_latency: f64,
    mean_inv_bandwidth: f64,
    /// Whether the workload has a gang task ([`Workload::has_gangs`]).
    gangs: bool,
}

/// The refusals of gang tasks no GPU set can hold (see [`Problem`]): `O(m)` per gang task
/// with a memory need, `O(M)` once otherwise.
fn check_gangs(
    workload: &Workload,
    cluster: &Cluster,
    mem_need: &[f64],
    gpu_mem: &[f64],
) -> Result<()> {
    let nm = cluster.n_machines();
    let m = cluster.n_gpus();
    let largest = (0..nm)
        .map(MachineId::new)
        .fold(MachineId::new(0), |best, a| {
            if cluster.gpus_of(a).len() > cluster.gpus_of(best).len() {
                a
            } else {
                best
            }
        });
    let largest_gpus = cluster.gpus_of(largest).len();
    for (t, task) in workload.graph().tasks() {
        if !task.is_gang() {
            continue;
        }
        let g = task.gpus as usize;
        let machine = task.gang.span == Span::Machine;
        let need = mem_need[t.index()];
        let reason = if g > m {
            Some(format!("the cluster has {m} GPUs"))
        } else if machine && g > largest_gpus {
            Some(format!("the largest machine has {largest_gpus} GPUs"))
        } else if need > 0.0 {
            let fit = |gpus: &mut dyn Iterator<Item = usize>| {
                gpus.filter(|&k| need <= gpu_mem[k]).count()
            };
            if machine {
                let most = (0..nm)
                    .map(|a| fit(&mut cluster.gpus_of(MachineId::new(a)).iter().map(|k| k.index())))
                    .max()
                    .unwrap_or(0);
                (most < g).then(|| {
                    format!(
                        "at most {most} GPUs of one machine have its {} GiB of memory",
                        num(need)
                    )
                })
            } else {
                let all = fit(&mut (0..m));
                (all < g).then(|| {
                    format!(
                        "only {all} GPUs of the cluster have its {} GiB of memory",
                        num(need)
                    )
                })
            }
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(ClusterError::GangTooLarge {
                task: workload.task_label(t),
                gpus: task.gpus,
                span: task.gang.span.as_str(),
                reason,
                largest_machine: cluster.machines()[largest.index()].clone(),
                largest_gpus,
            });
        }
    }
    Ok(())
}

impl Problem {
    /// A problem on **related machines**: `exec(v, k) = w_v / (s_k (1 − u_k))`.
    ///
    /// Errors: [`ClusterError::TaskFitsNoGpu`] naming the first task (in id order) whose
    /// memory need exceeds every GPU's memory; [`ClusterError::NonFiniteCost`] and
    /// [`ClusterError::Overflow`] for costs that overflow (see [`Problem`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use worl_cluster::{presets, GpuId, GpuModel, Problem};
    /// use worl_dag::WorkloadBuilder;
    /// let mut b = WorkloadBuilder::new("w");
    /// let j = b.add_job("j")?;
    /// let t = b.add_task(j, "t", 6.0, Some(20.0))?;
    /// let w = Arc::new(b.build()?);
    /// let c = Arc::new(presets::homogeneous(2, &GpuModel::v100_32gb())?);
    /// let p = Problem::new(w, c)?;
    /// assert_eq!(p.exec_time(t, GpuId::new(1)), 6.0);
    /// assert!(p.fits(t, GpuId::new(0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(workload: Arc<Workload>, cluster: Arc<Cluster>) -> Result<Self> {
        let work = workload.graph().tasks().map(|(_, t)| t.work).collect();
        Self::build(workload, cluster, ExecModel::Related { work })
    }

    /// A problem on **unrelated machines**: `times[[v, k]]` is the run time (s) of task `v`
    /// on idle GPU `k`; `exec(v, k) = times[[v, k]] / (1 − u_k)`. Task work and GPU speeds
    /// are ignored; memory, ready times, background utilisation and the network are the
    /// cluster's.
    ///
    /// Errors: [`ClusterError::ShapeMismatch`] unless the shape is `[n_tasks, n_gpus]`;
    /// [`ClusterError::InvalidValue`] naming `exec[task, gpu]` for a negative or non-finite
    /// entry; [`ClusterError::NonFiniteCost`] for an entry that overflows once divided by
    /// `1 − u_k`; [`ClusterError::TaskFitsNoGpu`]; [`ClusterError::Overflow`] (see
    /// [`Problem`]).
    pub fn with_exec_times(
        workload: Arc<Workload>,
        cluster: Arc<Cluster>,
        times: Array2<f64>,
    ) -> Result<Self> {
        let expected = (workload.graph().n_tasks(), cluster.n_gpus());
        if times.dim() != expected {
            return Err(ClusterError::ShapeMismatch {
                what: "execution-time matrix [n_tasks, n_gpus]",
                expected,
                actual: times.dim(),
            });
        }
        let mut time = times;
        for ((v, k), x) in time.indexed_iter_mut() {
            if !(x.is_finite() && *x >= 0.0) {
                return Err(ClusterError::InvalidValue {
                    item: format!(
                        "exec[{} `{}`, {}]",
                        TaskId::new(v),
                        workload.task_label(TaskId::new(v)),
                        GpuId::new(k)
                    ),
                    field: "execution time",
                    value: *x,
                    expected: "a finite number >= 0 (s)",
                });
            }
            *x /= 1.0 - cluster.gpus()[k].background;
            if !x.is_finite() {
                return Err(ClusterError::NonFiniteCost {
                    what: "execution",
                    task: workload.task_label(TaskId::new(v)),
                    gpu: GpuId::new(k).to_string(),
                    value: *x,
                });
            }
        }
        Self::build(workload, cluster, ExecModel::Unrelated { time })
    }

    fn build(workload: Arc<Workload>, cluster: Arc<Cluster>, exec: ExecModel) -> Result<Self> {
        let g = workload.graph();
        let n = g.n_tasks();
        let m = cluster.n_gpus();
        let speed: Vec<f64> = cluster.gpus().iter().map(|g| g.effective_speed()).collect();
        let gpu_mem: Vec<f64> = cluster.gpus().iter().map(|g| g.mem_gib).collect();
        let ready = cluster.gpus().iter().map(|g| g.ready_time).collect();
        let machine_of: Vec<u32> = cluster
            .gpus()
            .iter()
            .map(|g| g.machine.index() as u32)
            .collect();
        let mem_need: Vec<f64> = g.tasks().map(|(_, t)| t.mem_gib.unwrap_or(0.0)).collect();
        let max_mem = gpu_mem.iter().copied().fold(0.0f64, f64::max);
        if let Some(v) = (0..n).find(|&v| mem_need[v] > max_mem) {
            return Err(ClusterError::TaskFitsNoGpu {
                task: workload.task_label(TaskId::new(v)),
                need_gib: mem_need[v],
                max_gib: max_mem,
            });
        }

        let gangs = workload.has_gangs();
        if gangs {
            check_gangs(&workload, &cluster, &mem_need, &gpu_mem)?;
        }

        // GPU classes.
        let mut class_of = Vec::with_capacity(m);
        let mut class_gpus: Vec<Vec<GpuId>> = Vec::new();
        match exec {
            ExecModel::Related { .. } => {
                let mut index: HashMap<(u64, u64), usize> = HashMap::new();
                for k in 0..m {
                    let key = (speed[k].to_bits(), gpu_mem[k].to_bits());
                    let c = *index.entry(key).or_insert_with(|| {
                        class_gpus.push(Vec::new());
                        class_gpus.len() - 1
                    });
                    class_gpus[c].push(GpuId::new(k));
                    class_of.push(ClassId::new(c));
                }
            }
            ExecModel::Unrelated { .. } => {
                for k in 0..m {
                    class_gpus.push(vec![GpuId::new(k)]);
                    class_of.push(ClassId::new(k));
                }
            }
        }

        // Network matrices between machines.
        let net = cluster.network();
        let nm = cluster.n_machines();
        let links = LinkCosts::new(net, nm);
        let mut per_machine = vec![0usize; nm];
        for &a in &machine_of {
            per_machine[a as usize] += 1;
        }
        let used: Vec<usize> = (0..nm).filter(|&a| per_machine[a] > 0).collect();
        let (mut sum_lat, mut sum_inv, mut pairs) = (0.0, 0.0, 0.0);
        // The largest latency and inverse bandwidth over pairs of distinct GPUs: the worst
        // communication time of `bytes` is at most `max_latency + bytes · max_inv_bandwidth`.
        let (mut max_latency, mut max_inv_bandwidth) = (0.0f64, 0.0f64);
        let mut add = |w: f64, l: LinkCost| {
            if w > 0.0 {
                sum_lat += w * l.latency;
                sum_inv += w * l.inv_bandwidth;
                pairs += w;
                max_latency = max_latency.max(l.latency);
                max_inv_bandwidth = max_inv_bandwidth.max(l.inv_bandwidth);
            }
        };
        match &links {
            // One inter-machine link: O(M), not O(M²) (a 65,536-machine cluster took 16 s
            // here). Ordered GPU pairs on distinct machines: m² − Σ k_a².
            LinkCosts::UniformInter { intra, inter } => {
                let mut same = 0.0;
                for &a in &used {
                    let k = per_machine[a] as f64;
                    add(k * (k - 1.0), intra[a]);
                    same += k * k;
                }
                let all = m as f64;
                add(all * all - same, *inter);
            }
            LinkCosts::Matrix(_) => {
                for &a in &used {
                    for &b in &used {
                        let w = if a == b {
                            per_machine[a] as f64 * (per_machine[a] as f64 - 1.0)
                        } else {
                            per_machine[a] as f64 * per_machine[b] as f64
                        };
                        add(w, links.get(a, b));
                    }
                }
            }
        }
        let (mean_latency, mean_inv_bandwidth) = if pairs > 0.0 {
            (sum_lat / pairs, sum_inv / pairs)
        } else {
            (0.0, 0.0)
        };

        check_costs(
            &workload,
            &cluster,
            &exec,
            &speed,
            &machine_of,
            &links,
            (max_latency, max_inv_bandwidth),
        )?;

        let mut p = Self {
            workload,
            cluster,
            exec,
            speed,
            mem_need,
            gpu_mem,
            ready,
            machine_of,
            links,
            class_of,
            class_gpus,
            mean_exec: Vec::new(),
            min_exec: Vec::new(),
            mean_latency,
            mean_inv_bandwidth,
            gangs,
        };
        // Mean and min execution time over the GPUs that fit each task (one per class).
        let mut mean_exec = Vec::with_capacity(n);
        let mut min_exec = Vec::with_capacity(n);
        for v in 0..n {
            let t = TaskId::new(v);
            let (mut sum, mut count, mut min) = (0.0, 0usize, f64::INFINITY);
            for (c, gpus) in p.class_gpus.iter().enumerate() {
                let k = gpus[0];
                if p.fits(t, k) {
                    let e = p.exec_time(t, k);
                    sum += e * gpus.len() as f64;
                    count += gpus.len();
                    min = min.min(e);
                    debug_assert_eq!(p.class_of[k.index()].index(), c);
                }
            }
            let mut mean = sum / count as f64;
            if !mean.is_finite() {
                // Each time is finite (checked above) but their sum overflowed: average
                // with the weights divided first.
                mean = p
                    .class_gpus
                    .iter()
                    .filter(|gpus| p.fits(t, gpus[0]))
                    .map(|gpus| p.exec_time(t, gpus[0]) * (gpus.len() as f64 / count as f64))
                    .sum();
            }
            mean_exec.push(mean);
            min_exec.push(min);
        }
        p.mean_exec = mean_exec;
        p.min_exec = min_exec;
        Ok(p)
    }

    /// Number of tasks `n`.
    #[inline]
    pub fn n_tasks(&self) -> usize {
        self.mem_need.len()
    }

    /// Number of GPUs `m`.
    #[inline]
    pub fn n_gpus(&self) -> usize {
        self.speed.len()
    }

    /// The workload.
    #[inline]
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// The shared workload (to build another problem on it).
    pub fn workload_arc(&self) -> &Arc<Workload> {
        &self.workload
    }

    /// The cluster.
    #[inline]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The shared cluster.
    pub fn cluster_arc(&self) -> &Arc<Cluster> {
        &self.cluster
    }

    /// The task graph of the workload.
    #[inline]
    pub fn graph(&self) -> &TaskGraph {
        self.workload.graph()
    }

    /// Whether execution times come from an explicit matrix (unrelated machines).
    pub fn is_unrelated(&self) -> bool {
        matches!(self.exec, ExecModel::Unrelated { .. })
    }

    /// The task rendered as `job/task` for messages.
    pub fn task_label(&self, task: TaskId) -> String {
        self.workload.task_label(task)
    }

    /// Execution time `exec(v, k)` of `task` on `gpu`, s.
    ///
    /// # Panics
    /// If `task` or `gpu` is out of range.
    #[inline]
    pub fn exec_time(&self, task: TaskId, gpu: GpuId) -> f64 {
        match &self.exec {
            ExecModel::Related { work } => work[task.index()] / self.speed[gpu.index()],
            ExecModel::Unrelated { time } => time[[task.index(), gpu.index()]],
        }
    }

    /// Whether the workload has a gang task (a task needing more than one GPU at once,
    /// [`Workload::has_gangs`]); `O(1)`. Without one every cost, placement and bound is the
    /// single-GPU one.
    #[inline]
    pub fn has_gangs(&self) -> bool {
        self.gangs
    }

    /// The GPUs `task` needs at once, `g >= 1` ([`Task::gpus`](worl_dag::Task::gpus)).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn gpus(&self, task: TaskId) -> u32 {
        self.graph().task(task).gpus
    }

    /// Execution time of `task` on the GPU set `gpus` (`S`, `g = |S|`), s:
    ///
    /// `exec(v, S) = max_{k∈S} exec(v, k) / (g · e_v) + n_v · AR(S)`,
    /// `AR(S) = 2 (g − 1) / g · b_v / B_min(S) + 2 (g − 1) · L_max(S)`,
    ///
    /// with `e_v` the task's parallel efficiency, `n_v` its synchronisation steps and `b_v`
    /// the bytes all-reduced per step ([`GangParams`](worl_dag::GangParams)); `AR` is the
    /// time of a ring all-reduce of `b_v` bytes over `g` GPUs, `2 (g − 1)` steps each moving
    /// `b_v / g` bytes (Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
    /// clusters of workstations", J. Parallel Distrib. Comput. 69(2), 2009), paced by the
    /// slowest link: `B_min(S)` / `L_max(S)` are the smallest bandwidth and largest latency
    /// over pairs of distinct GPUs of `S` (the intra-machine link when all are on one
    /// machine). The all-reduce term is skipped when `n_v = 0`.
    ///
    /// For one GPU this is exactly [`exec_time`](Self::exec_time)`(task, k)`; an empty set
    /// gives 0. Repeated GPUs count as given (validation reports them). `O(g log g)` (plus
    /// the pairs of distinct machines of `S` on a network with several inter-machine links).
    ///
    /// # Panics
    /// If `task` or a GPU is out of range.
    pub fn exec_time_on(&self, task: TaskId, gpus: &[GpuId]) -> f64 {
        match gpus {
            [] => return 0.0,
            [k] => return self.exec_time(task, *k),
            _ => {}
        }
        let p = self.graph().task(task).gang;
        let g = gpus.len() as f64;
        let slowest = gpus
            .iter()
            .map(|&k| self.exec_time(task, k))
            .fold(0.0f64, f64::max);
        let compute = slowest / (g * p.efficiency);
        if p.sync_steps == 0.0 {
            return compute;
        }
        let (latency, inv_bandwidth) = self.worst_link(gpus);
        compute
            + p.sync_steps
                * (2.0 * (g - 1.0) / g * p.sync_bytes * inv_bandwidth + 2.0 * (g - 1.0) * latency)
    }

    /// The largest latency and inverse bandwidth (s, s/byte) over pairs of distinct GPUs of
    /// `gpus` (0, 0 for fewer than two GPUs; a repeated GPU pairs with itself over its
    /// machine's intra link).
    fn worst_link(&self, gpus: &[GpuId]) -> (f64, f64) {
        let mut machines: Vec<u32> = gpus.iter().map(|k| self.machine_of[k.index()]).collect();
        machines.sort_unstable();
        let (mut lat, mut inv) = (0.0f64, 0.0f64);
        let mut add = |c: LinkCost| {
            lat = lat.max(c.latency);
            inv = inv.max(c.inv_bandwidth);
        };
        // intra links of machines holding two or more GPUs of the set
        for w in machines.windows(2) {
            if w[0] == w[1] {
                add(self.links.get(w[0] as usize, w[0] as usize));
            }
        }
        machines.dedup();
        match &self.links {
            LinkCosts::UniformInter { inter, .. } => {
                if machines.len() > 1 {
                    add(*inter);
                }
            }
            LinkCosts::Matrix(_) => {
                for &a in &machines {
                    for &b in &machines {
                        if a != b {
                            add(self.links.get(a as usize, b as usize));
                        }
                    }
                }
            }
        }
        (lat, inv)
    }

    /// Whether `gpu` can lead a GPU set of `task`: it fits the task's memory and, for a gang
    /// task of span `machine`, its machine has at least `g` GPUs that fit it (for span
    /// `cluster` the cluster has them: [`Problem::new`] checked). A list scheduler that
    /// tries every GPU as the lead of a gang skips those where this is false
    /// ([`PartialSchedule::slot`](crate::PartialSchedule::slot) refuses them with
    /// [`ClusterError::InvalidGpuSet`]). `O(1)` for single-GPU tasks, `O(GPUs of the
    /// machine)` otherwise.
    ///
    /// # Panics
    /// If `task` or `gpu` is out of range.
    pub fn can_lead(&self, task: TaskId, gpu: GpuId) -> bool {
        if !self.fits(task, gpu) {
            return false;
        }
        let t = self.graph().task(task);
        if !t.is_gang() || t.gang.span == Span::Cluster {
            return true;
        }
        let home = self.machine_of(gpu);
        self.cluster
            .gpus_of(home)
            .iter()
            .filter(|&&k| self.fits(task, k))
            .count()
            >= t.gpus as usize
    }

    /// The machine of `gpu` (`O(1)`).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn machine_of(&self, gpu: GpuId) -> MachineId {
        MachineId::new(self.machine_of[gpu.index()] as usize)
    }

    /// Communication time of `bytes` from `from` to `to`, s: 0 if `from == to`, else
    /// `L + bytes / B` of the link between their machines.
    ///
    /// # Panics
    /// If a GPU is out of range.
    #[inline]
    pub fn comm_time(&self, bytes: f64, from: GpuId, to: GpuId) -> f64 {
        if from == to {
            return 0.0;
        }
        self.comm_time_between(
            bytes,
            MachineId::new(self.machine_of[from.index()] as usize),
            MachineId::new(self.machine_of[to.index()] as usize),
        )
    }

    /// Communication time of `bytes` from a GPU of machine `from` to another GPU of machine
    /// `to` (the same machine: its intra-machine link), s: `L + bytes / B` of the link
    /// between them, bit for bit [`comm_time`](Self::comm_time) between two distinct GPUs
    /// on those machines. For schedulers that take data-ready times per machine.
    ///
    /// # Panics
    /// If a machine is out of range.
    #[inline]
    pub fn comm_time_between(&self, bytes: f64, from: MachineId, to: MachineId) -> f64 {
        let l = self.links.get(from.index(), to.index());
        l.latency + bytes * l.inv_bandwidth
    }

    /// Whether `task`'s memory need fits `gpu`'s memory (`mem_v <= mem(k)`; tasks without a
    /// memory need fit every GPU).
    ///
    /// # Panics
    /// If `task` or `gpu` is out of range.
    #[inline]
    pub fn fits(&self, task: TaskId, gpu: GpuId) -> bool {
        self.mem_need[task.index()] <= self.gpu_mem[gpu.index()]
    }

    /// Ready time `r_k` of `gpu`, s.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn ready_time(&self, gpu: GpuId) -> f64 {
        self.ready[gpu.index()]
    }

    /// Ready times of all GPUs, s, indexed by [`GpuId::index`].
    pub fn ready_times(&self) -> &[f64] {
        &self.ready
    }

    /// The busy windows of `gpu` (half-open `[from, to)`, s, sorted; see
    /// [`Gpu::busy`](crate::Gpu::busy)).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    #[inline]
    pub fn busy(&self, gpu: GpuId) -> &[(f64, f64)] {
        self.cluster.busy(gpu)
    }

    /// Whether some GPU of the cluster has a busy window (`O(1)`).
    #[inline]
    pub fn has_windows(&self) -> bool {
        self.cluster.has_windows()
    }

    /// Effective speed `s_k (1 − u_k)` of `gpu`.
    #[inline]
    pub fn effective_speed(&self, gpu: GpuId) -> f64 {
        self.speed[gpu.index()]
    }

    /// Memory need of `task`, GiB (0 when the task has none).
    #[inline]
    pub fn mem_need(&self, task: TaskId) -> f64 {
        self.mem_need[task.index()]
    }

    /// Memory of `gpu`, GiB.
    #[inline]
    pub fn gpu_mem(&self, gpu: GpuId) -> f64 {
        self.gpu_mem[gpu.index()]
    }

    /// Mean execution time of `task` over the GPUs it fits, s: HEFT's `w̄_i` (Topcuoglu et al.
    /// 2002, §4.1) restricted to memory-feasible GPUs.
    #[inline]
    pub fn mean_exec_time(&self, task: TaskId) -> f64 {
        self.mean_exec[task.index()]
    }

    /// Minimum execution time of `task` over the GPUs it fits, s (SLR's `min_k w(v, k)`).
    #[inline]
    pub fn min_exec_time(&self, task: TaskId) -> f64 {
        self.min_exec[task.index()]
    }

    /// Mean communication time of `bytes` over all ordered pairs of distinct GPUs, s:
    /// `mean(L) + bytes · mean(1 / B)` — HEFT's mean communication cost `c̄_ij` (Topcuoglu et
    /// al. 2002, §4.1) taken as the exact average of `comm` (0 on a single GPU).
    #[inline]
    pub fn mean_comm_time(&self, bytes: f64) -> f64 {
        self.mean_latency + bytes * self.mean_inv_bandwidth
    }

    /// Number of GPU classes.
    #[inline]
    pub fn n_classes(&self) -> usize {
        self.class_gpus.len()
    }

    /// The class of `gpu`.
    #[inline]
    pub fn class_of(&self, gpu: GpuId) -> ClassId {
        self.class_of[gpu.index()]
    }

    /// The GPUs of class `class`, in id order (never empty).
    #[inline]
    pub fn class_gpus(&self, class: ClassId) -> &[GpuId] {
        &self.class_gpus[class.index()]
    }

    /// All class ids `0..n_classes`.
    pub fn class_ids(&self) -> impl ExactSizeIterator<Item = ClassId> + use<> {
        (0..self.n_classes()).map(ClassId::new)
    }

    /// Effective speed of the GPUs of `class` (of its GPU for unrelated machines).
    #[inline]
    pub fn class_speed(&self, class: ClassId) -> f64 {
        self.speed[self.class_gpus[class.index()][0].index()]
    }

    /// Memory of the GPUs of `class`, GiB.
    #[inline]
    pub fn class_mem(&self, class: ClassId) -> f64 {
        self.gpu_mem[self.class_gpus[class.index()][0].index()]
    }

    /// Execution time of `task` on any GPU of `class`, s.
    #[inline]
    pub fn class_exec_time(&self, task: TaskId, class: ClassId) -> f64 {
        self.exec_time(task, self.class_gpus[class.index()][0])
    }

    /// Checks that `gpu` exists. Errors: [`ClusterError::UnknownId`].
    #[inline]
    pub fn check_gpu(&self, gpu: GpuId) -> Result<()> {
        if gpu.index() < self.n_gpus() {
            Ok(())
        } else {
            Err(ClusterError::UnknownId {
                kind: "GPU",
                index: gpu.index(),
                len: self.n_gpus(),
            })
        }
    }

    /// Checks that `task` exists. Errors: [`ClusterError::UnknownId`].
    #[inline]
    pub fn check_task(&self, task: TaskId) -> Result<()> {
        if task.index() < self.n_tasks() {
            Ok(())
        } else {
            Err(ClusterError::UnknownId {
                kind: "task",
                index: task.index(),
                len: self.n_tasks(),
            })
        }
    }
}
