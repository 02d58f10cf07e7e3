//! saga problem instances (and the curated dag-bench set, whose `graph.json` files are saga
//! instances): a task graph with task costs and dependency sizes, and a network with node
//! speeds and link speeds, read into a [`Workload`] and a [`Cluster`] and written back.
//!
//! The schema is the JSON of saga's `ProblemInstance` model (saga, Coleman and
//! Krishnamachari, "PISA: An Adversarial Approach To Comparing Task Graph Scheduling
//! Algorithms", arXiv:2403.07120; the dag-bench workflows store one per `graph.json`):
//!
//! ```json
//! {
//!   "name": "synthetic.diamond",
//!   "task_graph": {
//!     "tasks": [{"name": "A", "cost": 2.0}, {"name": "B", "cost": 3.0}],
//!     "dependencies": [{"source": "A", "target": "B", "size": 4.0}]
//!   },
//!   "network": {
//!     "nodes": [{"name": "n0", "speed": 1.0}, {"name": "n1", "speed": 2.0}],
//!     "edges": [
//!       {"source": "n0", "target": "n1", "speed": 2.0},
//!       {"source": "n1", "target": "n0", "speed": 2.0},
//!       {"source": "n0", "target": "n0", "speed": 1e9},
//!       {"source": "n1", "target": "n1", "speed": null}
//!     ]
//!   }
//! }
//! ```
//!
//! # The mapping
//!
//! saga's cost model: task `t` runs `cost(t) / speed(v)` on node `v`; a dependency `t1 -> t2`
//! takes `size(t1, t2) / speed(v1, v2)` from node `v1` to node `v2`, and nothing on one node.
//! worl's ([`Problem`](worl_cluster::Problem)): `work / speed` on a GPU and `L + bytes / B` between
//! GPUs of different machines, 0 on one GPU. So:
//!
//! * the task graph becomes a workload of **one job**, both named after the instance; each
//!   task keeps its name, `cost` becomes its work (no memory need) and each dependency's
//!   `size` its bytes;
//! * each node becomes a **machine with one GPU**, both named after the node, of a custom
//!   GPU model of the same name ([`GpuModel::custom`]) whose relative speed is the node's
//!   `speed` and whose memory is [`NODE_MEM_GIB`];
//! * the links become a [`Network::PerMachinePair`] with bandwidth = the link's `speed` and
//!   latency 0, so that worl's `L + bytes / B` is saga's `size / speed`.
//!
//! **Units pass through unchanged**: a saga cost is read as reference GPU-seconds, a size as
//! bytes and a speed as bytes/s, so the times worl computes are saga's times in saga's time
//! unit. Nothing is rescaled.
//!
//! saga's network is undirected (one speed per node pair): a file may list a pair in one
//! direction or in both (saga writes both), with one speed. A self link (`v -> v`) costs
//! nothing in either model; its speed is kept as the machine's intra-machine bandwidth (never
//! used, since each machine holds one GPU), [`SELF_LINK_SPEED`] where it is `null` (saga's
//! JSON for an infinite speed), `0` (which saga turns into infinity on a self link) or absent.
//! An edge without `speed` has saga's default, [`MISSING_EDGE_SPEED`]. Fields other than
//! those above are ignored.
//!
//! # What cannot be read
//!
//! Each a [`ClusterError::Parse`] naming the file and the item (line 0, except for malformed
//! JSON, where serde's line is given):
//!
//! * a link between two **distinct** nodes whose speed is `null` (infinite), `0`, negative or
//!   otherwise not a finite number `> 0`: worl's bandwidths are finite, so a free link cannot
//!   be represented;
//! * a node whose speed is not a finite number `> 0` (`null`, infinite, zero, negative);
//! * a pair of distinct nodes without a link, or a pair listed with two different speeds;
//! * a task cost or dependency size that is not a finite number `>= 0`, a task or node listed
//!   twice, a dependency or link naming an unknown task or node, a repeated dependency or a
//!   cycle, an empty task list or network.
//!
//! More than [`MAX_PAIR_MACHINES`] nodes (4,096: each node is a machine of a
//! per-machine-pair network, whose matrices take `16 n²` bytes) is a
//! [`ClusterError::TooManyGpus`] naming the cluster and the file, reported before anything
//! is allocated for them.
//!
//! saga's instances are always related (one cost per task, one speed per node); there is no
//! per-task-per-node time in the schema. JSON's non-standard `Infinity` token (Python's
//! `json.dumps` of an infinite float) is not JSON and is reported as malformed.
//!
//! # Writing
//!
//! [`to_string`] / [`save`] write the same schema for a workload and cluster that map back:
//! one job whose tasks have no memory need; one GPU per machine, machine names unique, ready
//! times and background utilisation 0; every link between distinct machines of latency 0 and
//! the same bandwidth both ways. Otherwise [`ClusterError::InvalidParameter`] says what cannot
//! be expressed. Edges are written for every ordered machine pair, self links included (as
//! saga does), with the GPU's speed as node speed; the GPU memory and model are not written.
//! Reading what was written gives the same workload and cluster. A cluster of more than
//! [`MAX_WRITTEN_PAIR_MACHINES`] machines (1,024: a million links, about 120 MB) is refused
//! ([`ClusterError::InvalidParameter`]), as cluster files with per-pair links are.
//! Every refusal is checked before any output is made, and the text is streamed to its
//! writer or file (memory does not grow with the output, about 120 bytes per machine pair
//! and 100 per dependency).

use ndarray::Array2;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::Read;
use std::path::Path;
use worl_cluster::formats::native::MAX_WRITTEN_PAIR_MACHINES;
use worl_cluster::{
    Cluster, ClusterBuilder, ClusterError, GpuModel, MAX_PAIR_MACHINES, MachineId, Network, Result,
};
use worl_dag::error::num;
use worl_dag::{TaskId, Workload, WorkloadBuilder};

/// Memory of every GPU read from a saga instance, GiB: saga has no memory model, so this is
/// only a large value that no task (they have no memory need) exceeds.
pub const NODE_MEM_GIB: f64 = 1024.0;

/// Intra-machine bandwidth, bytes/s, given for a self link whose speed is `null`, `0` or
/// absent (saga: infinite). It is never used in a cost (one GPU per machine); `1e9` is the
/// value saga gives self links it adds and dag-bench writes for `null` ones.
pub const SELF_LINK_SPEED: f64 = 1e9;

/// Speed of an edge listed without `speed`: saga's default, `1e-9` (a link that is all but
/// absent).
pub const MISSING_EDGE_SPEED: f64 = 1e-9;

/// A saga `ProblemInstance`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga ProblemInstance object")]
struct Instance {
    #[serde(default)]
    name: Option<String>,
    task_graph: TaskGraphJson,
    network: NetworkJson,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga TaskGraph object")]
struct TaskGraphJson {
    tasks: Vec<TaskJson>,
    #[serde(default)]
    dependencies: Vec<DependencyJson>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga TaskGraphNode object")]
struct TaskJson {
    name: String,
    cost: f64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga TaskGraphEdge object")]
struct DependencyJson {
    source: String,
    target: String,
    size: f64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga Network object")]
struct NetworkJson {
    nodes: Vec<NodeJson>,
    #[serde(default)]
    edges: Vec<EdgeJson>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga NetworkNode object")]
struct NodeJson {
    name: String,
    /// `None` for `null` (saga: infinite) or absent.
    speed: Option<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "a saga NetworkEdge object")]
struct EdgeJson {
    source: String,
    target: String,
    /// `None` for `null` (saga: infinite); [`MISSING_EDGE_SPEED`] when absent.
    #[serde(default = "missing_edge_speed")]
    speed: Option<f64>,
}

fn missing_edge_speed() -> Option<f64> {
    Some(MISSING_EDGE_SPEED)
}

/// A parse error of `file` about an item (line 0: the item is named instead).
fn item_err(file: &str, message: String) -> ClusterError {
    ClusterError::Parse {
        file: file.to_owned(),
        line: 0,
        message,
    }
}

/// A speed as written in the message: `null (infinite)` for `None`.
fn speed_text(speed: Option<f64>) -> String {
    speed.map_or_else(|| "null (infinite)".to_owned(), num)
}

/// Reads a saga problem instance from `reader`; `source` names it in errors (a path, or
/// `<memory>`).
///
/// Returns the workload (one job, named after the instance, tasks in file order) and the
/// cluster (one machine with one GPU per node, in file order, per-machine-pair network with
/// latency 0); see the [module documentation](self) for the mapping and units.
///
/// Errors: [`ClusterError::Parse`] naming `source` and the task, dependency, node or link, as
/// listed in the module documentation; [`ClusterError::TooManyGpus`]; [`ClusterError::Io`]
/// if reading fails.
///
/// ```
/// use std::sync::Arc;
/// use worl_io::saga;
/// use worl_cluster::{GpuId, Problem};
/// use worl_dag::TaskId;
///
/// let text = r#"{"name": "two",
///   "task_graph": {"tasks": [{"name": "a", "cost": 6}], "dependencies": []},
///   "network": {"nodes": [{"name": "n0", "speed": 2}, {"name": "n1", "speed": 3}],
///               "edges": [{"source": "n0", "target": "n1", "speed": 4}]}}"#;
/// let (w, c) = saga::read(text.as_bytes(), "<memory>")?;
/// assert_eq!(c.machines(), ["n0", "n1"]);
/// let p = Problem::new(Arc::new(w), Arc::new(c))?;
/// assert_eq!(p.exec_time(TaskId::new(0), GpuId::new(1)), 2.0); // cost 6 / speed 3
/// assert_eq!(p.comm_time(8.0, GpuId::new(0), GpuId::new(1)), 2.0); // size 8 / speed 4
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn read(reader: impl Read, source: &str) -> Result<(Workload, Cluster)> {
    let mut reader = reader;
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|e| ClusterError::Io {
            path: source.into(),
            source: e,
        })?;
    let inst: Instance = serde_json::from_str(&text).map_err(|e| ClusterError::Parse {
        file: source.to_owned(),
        line: e.line(),
        message: e.to_string(),
    })?;
    let name = inst.name.clone().unwrap_or_else(|| "saga".to_owned());
    let workload = read_workload(&inst.task_graph, &name, source)?;
    let cluster = read_cluster(&inst.network, &name, source)?;
    Ok((workload, cluster))
}

fn read_workload(tg: &TaskGraphJson, name: &str, file: &str) -> Result<Workload> {
    let dag = |e: worl_dag::DagError| item_err(file, e.to_string());
    let mut b = WorkloadBuilder::new(name);
    let job = b.add_job(name).map_err(dag)?;
    let mut ids: HashMap<&str, TaskId> = HashMap::with_capacity(tg.tasks.len());
    for t in &tg.tasks {
        if !(t.cost.is_finite() && t.cost >= 0.0) {
            return Err(item_err(
                file,
                format!(
                    "task `{}`: cost {} is not a finite number >= 0",
                    t.name,
                    num(t.cost)
                ),
            ));
        }
        match ids.entry(t.name.as_str()) {
            Entry::Occupied(_) => {
                return Err(item_err(file, format!("task `{}` is listed twice", t.name)));
            }
            Entry::Vacant(e) => {
                e.insert(
                    b.add_task(job, t.name.as_str(), t.cost, None)
                        .map_err(dag)?,
                );
            }
        }
    }
    for d in &tg.dependencies {
        let what = || format!("dependency `{}` -> `{}`", d.source, d.target);
        let find = |task: &str| {
            ids.get(task)
                .copied()
                .ok_or_else(|| item_err(file, format!("{}: unknown task `{task}`", what())))
        };
        let (from, to) = (find(&d.source)?, find(&d.target)?);
        if !(d.size.is_finite() && d.size >= 0.0) {
            return Err(item_err(
                file,
                format!(
                    "{}: size {} is not a finite number >= 0",
                    what(),
                    num(d.size)
                ),
            ));
        }
        b.add_edge(from, to, d.size).map_err(dag)?;
    }
    b.build().map_err(dag)
}

fn read_cluster(net: &NetworkJson, name: &str, file: &str) -> Result<Cluster> {
    let n = net.nodes.len();
    if n == 0 {
        return Err(item_err(file, "the network has no node".to_owned()));
    }
    if n > MAX_PAIR_MACHINES {
        return Err(ClusterError::TooManyGpus {
            item: format!("cluster `{name}` in {file} (nodes of a per-machine-pair network)"),
            count: n,
            limit: MAX_PAIR_MACHINES,
        });
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(n);
    for (i, node) in net.nodes.iter().enumerate() {
        if index.insert(node.name.as_str(), i).is_some() {
            return Err(item_err(
                file,
                format!("node `{}` is listed twice", node.name),
            ));
        }
        match node.speed {
            Some(s) if s.is_normal() && s > 0.0 => {}
            other => {
                return Err(item_err(
                    file,
                    format!(
                        "node `{}`: speed {} is not a finite number > 0",
                        node.name,
                        speed_text(other)
                    ),
                ));
            }
        }
    }
    // Speed per unordered node pair (a <= b), as read.
    let mut links: HashMap<(usize, usize), f64> = HashMap::new();
    for e in &net.edges {
        let what = || format!("link `{}` -> `{}`", e.source, e.target);
        let find = |node: &str| {
            index
                .get(node)
                .copied()
                .ok_or_else(|| item_err(file, format!("{}: unknown node `{node}`", what())))
        };
        let (a, b) = (find(&e.source)?, find(&e.target)?);
        let speed = if a == b {
            match e.speed {
                None => SELF_LINK_SPEED,
                Some(s) if s == 0.0 || s == f64::INFINITY => SELF_LINK_SPEED,
                Some(s) if s.is_normal() && s > 0.0 => s,
                Some(s) => {
                    return Err(item_err(
                        file,
                        format!(
                            "{}: speed {} is not a number > 0 (or null or 0: infinite)",
                            what(),
                            num(s)
                        ),
                    ));
                }
            }
        } else {
            match e.speed {
                Some(s) if s.is_normal() && s > 0.0 => s,
                other => {
                    return Err(item_err(
                        file,
                        format!(
                            "{}: speed {} cannot be represented (worl needs a finite \
                             bandwidth > 0 between distinct nodes)",
                            what(),
                            speed_text(other)
                        ),
                    ));
                }
            }
        };
        match links.entry((a.min(b), a.max(b))) {
            Entry::Vacant(v) => {
                v.insert(speed);
            }
            Entry::Occupied(o) if *o.get() == speed => {}
            Entry::Occupied(o) => {
                return Err(item_err(
                    file,
                    format!(
                        "{}: speeds {} and {} given for one node pair (saga's network is \
                         undirected: one speed per pair)",
                        what(),
                        num(*o.get()),
                        num(speed)
                    ),
                ));
            }
        }
    }
    // Every pair of distinct nodes needs a link; the first missing pair is found before the
    // matrix is allocated, so a short file cannot ask for a huge matrix.
    for a in 0..n {
        for b in a + 1..n {
            if !links.contains_key(&(a, b)) {
                return Err(item_err(
                    file,
                    format!(
                        "no link between nodes `{}` and `{}` (saga needs one between every \
                         pair of distinct nodes)",
                        net.nodes[a].name, net.nodes[b].name
                    ),
                ));
            }
        }
    }
    let mut bandwidth = Array2::from_elem((n, n), SELF_LINK_SPEED);
    for (&(a, b), &s) in &links {
        bandwidth[[a, b]] = s;
        bandwidth[[b, a]] = s;
    }
    let wrap = |e: ClusterError| match e {
        e @ ClusterError::Parse { .. } => e,
        e => item_err(file, e.to_string()),
    };
    let mut cb = ClusterBuilder::new(name);
    for node in &net.nodes {
        let m = cb.add_machine(node.name.as_str());
        let speed = node.speed.expect("checked above");
        let model = GpuModel::custom(node.name.as_str(), speed, NODE_MEM_GIB).map_err(wrap)?;
        cb.add_gpu(m, &model).map_err(wrap)?;
    }
    cb.network(Network::from_matrices(bandwidth, Array2::zeros((n, n))));
    cb.build().map_err(wrap)
}

/// Reads the saga problem instance at `path` (see [`read`]).
///
/// Errors: [`ClusterError::Io`] naming the path; those of [`read`], naming the path.
pub fn load(path: impl AsRef<Path>) -> Result<(Workload, Cluster)> {
    let path = path.as_ref();
    let io = |source| ClusterError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = std::fs::File::open(path)
        .map(std::io::BufReader::new)
        .map_err(io)?;
    worl_dag::formats::skip_bom(&mut reader).map_err(io)?;
    read(reader, &path.display().to_string())
}

/// Why `workload` and `cluster` cannot be written as a saga instance.
fn cannot(name: &'static str, reason: String) -> ClusterError {
    ClusterError::InvalidParameter { name, reason }
}

/// The saga problem instance of `workload` on `cluster`, pretty-printed JSON (the schema of
/// the [module documentation](self)), named after the workload. [`write()`] and [`save`]
/// write the same text without holding it in memory.
///
/// Everything that can be refused is checked first, in `O(tasks + machines)` (plus
/// `O(machines²)` comparisons for a per-machine-pair network), before any output is made.
///
/// Errors: [`ClusterError::InvalidParameter`] (parameter `workload` or `cluster`) when saga's
/// model cannot express them: a workload of several jobs, a task with a memory need, a
/// machine without exactly one GPU, two machines of one name, a GPU with a ready time,
/// background utilisation or busy windows, a link between distinct machines with a latency, or with
/// different bandwidths in the two directions, or more than [`MAX_WRITTEN_PAIR_MACHINES`]
/// machines (the network lists every ordered machine pair, about 120 bytes each).
pub fn to_string(workload: &Workload, cluster: &Cluster) -> Result<String> {
    let mut buf = Vec::new();
    write(workload, cluster, &mut buf)?;
    Ok(String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

/// Writes [`to_string`]'s text to `writer`, streamed (buffered); nothing is written when
/// the instance is refused.
///
/// Errors: those of [`to_string`]; [`ClusterError::Io`] (path `<writer>`) if writing fails.
pub fn write(workload: &Workload, cluster: &Cluster, writer: impl std::io::Write) -> Result<()> {
    check(workload, cluster)?;
    emit(workload, cluster, writer, Path::new("<writer>"))
}

/// Writes the saga problem instance of `workload` on `cluster` to `path` (see
/// [`to_string`]), streamed; the file is not created when the instance is refused.
///
/// Errors: those of [`to_string`]; [`ClusterError::Io`] naming the path.
pub fn save(workload: &Workload, cluster: &Cluster, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    check(workload, cluster)?;
    let file = std::fs::File::create(path).map_err(|source| ClusterError::Io {
        path: path.to_owned(),
        source,
    })?;
    emit(workload, cluster, file, path)
}

/// The refusals of [`to_string`], checked before anything is built.
fn check(workload: &Workload, cluster: &Cluster) -> Result<()> {
    check_workload(workload)?;
    check_cluster(cluster)
}

/// Whether [`to_string`] accepts `workload` (one job, no memory need), in `O(tasks)`.
///
/// Errors: [`ClusterError::InvalidParameter`] (`workload`), as [`to_string`].
pub fn check_workload(workload: &Workload) -> Result<()> {
    if workload.n_jobs() != 1 {
        return Err(cannot(
            "workload",
            format!(
                "workload `{}` has {} jobs; a saga instance holds one task graph",
                workload.name(),
                workload.n_jobs()
            ),
        ));
    }
    let g = workload.graph();
    for (id, t) in g.tasks() {
        if let Some(m) = t.mem_gib {
            return Err(cannot(
                "workload",
                format!(
                    "task `{}` needs {} GiB of GPU memory; saga has no memory model",
                    workload.task_label(id),
                    num(m)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether [`to_string`] accepts `cluster` (at most [`MAX_WRITTEN_PAIR_MACHINES`] machines
/// of one GPU each, unique names, no ready time, background or busy window, links without latency and the same
/// bandwidth both ways), in `O(machines)` for a uniform network and `O(machines²)`
/// comparisons for a per-machine-pair one: a caller can refuse before reading a workload.
///
/// Errors: [`ClusterError::InvalidParameter`] (`cluster`), as [`to_string`].
pub fn check_cluster(cluster: &Cluster) -> Result<()> {
    let machines = cluster.machines();
    let n = machines.len();
    if n > MAX_WRITTEN_PAIR_MACHINES {
        return Err(cannot(
            "cluster",
            format!(
                "cluster `{}` has {n} machines; a saga network lists every ordered machine \
                 pair ({} links, about 120 bytes each), and at most {MAX_WRITTEN_PAIR_MACHINES} \
                 machines are written",
                cluster.name(),
                (n as u128) * (n as u128)
            ),
        ));
    }
    let mut seen: HashMap<&str, ()> = HashMap::with_capacity(n);
    for (m, machine) in machines.iter().enumerate() {
        if seen.insert(machine.as_str(), ()).is_some() {
            return Err(cannot(
                "cluster",
                format!("two machines are named `{machine}`; saga nodes need unique names"),
            ));
        }
        let gpus = cluster.gpus_of(MachineId::new(m));
        if gpus.len() != 1 {
            return Err(cannot(
                "cluster",
                format!(
                    "machine `{machine}` has {} GPUs; a saga node is one processor, so \
                     each machine needs exactly one GPU",
                    gpus.len()
                ),
            ));
        }
        let gpu = cluster.gpu(gpus[0]);
        if gpu.ready_time != 0.0 || gpu.background != 0.0 {
            return Err(cannot(
                "cluster",
                format!(
                    "the GPU of machine `{machine}` has ready time {} s and background \
                     utilisation {}; saga has neither",
                    num(gpu.ready_time),
                    num(gpu.background)
                ),
            ));
        }
        if let Some(&(from, to)) = gpu.busy.first() {
            return Err(cannot(
                "cluster",
                format!(
                    "the GPU of machine `{machine}` ({machine}/{}) has {} busy window(s), the \
                     first [{}, {}) s; saga cannot express busy windows (its processors are \
                     always available)",
                    gpus[0],
                    gpu.busy.len(),
                    num(from),
                    num(to)
                ),
            ));
        }
    }
    let net = cluster.network();
    // A uniform network has one inter-machine link: the pair (0, 1) stands for all.
    let pairs = match net {
        Network::Uniform { .. } => n.min(2),
        Network::PerMachinePair { .. } => n,
    };
    for a in 0..pairs {
        for b in 0..pairs {
            if a == b {
                continue;
            }
            let bw = net.bandwidth(a, b);
            let latency = net.latency(a, b);
            if latency != 0.0 {
                return Err(cannot(
                    "cluster",
                    format!(
                        "link `{}` -> `{}` has latency {} s; saga's links have none",
                        machines[a],
                        machines[b],
                        num(latency)
                    ),
                ));
            }
            let back = net.bandwidth(b, a);
            if back != bw {
                return Err(cannot(
                    "cluster",
                    format!(
                        "link `{}` -> `{}` has bandwidth {} B/s but {} B/s the other way; \
                         saga's network is undirected",
                        machines[a],
                        machines[b],
                        num(bw),
                        num(back)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A JSON array whose items `.0` yields afresh when serialised: lists are written as they
/// are produced, never collected.
struct Lazy<F>(F);

impl<F, I> Serialize for Lazy<F>
where
    F: Fn() -> I,
    I: IntoIterator,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// [`Instance`] by reference, for writing.
#[derive(Serialize)]
struct OutInstance<'a, T, D, N, E> {
    name: &'a str,
    task_graph: OutTaskGraph<T, D>,
    network: OutNetwork<N, E>,
}

#[derive(Serialize)]
struct OutTaskGraph<T, D> {
    tasks: T,
    dependencies: D,
}

#[derive(Serialize)]
struct OutNetwork<N, E> {
    nodes: N,
    edges: E,
}

#[derive(Serialize)]
struct OutTask<'a> {
    name: &'a str,
    cost: f64,
}

#[derive(Serialize)]
struct OutDependency<'a> {
    source: &'a str,
    target: &'a str,
    size: f64,
}

#[derive(Serialize)]
struct OutNode<'a> {
    name: &'a str,
    speed: f64,
}

#[derive(Serialize)]
struct OutEdge<'a> {
    source: &'a str,
    target: &'a str,
    speed: f64,
}

/// Serialises the (checked) instance to `writer`, buffered; `path` names it in errors.
fn emit(
    workload: &Workload,
    cluster: &Cluster,
    writer: impl std::io::Write,
    path: &Path,
) -> Result<()> {
    let g = workload.graph();
    let machines = cluster.machines();
    let net = cluster.network();
    let n = machines.len();
    let inst = OutInstance {
        name: workload.name(),
        task_graph: OutTaskGraph {
            tasks: Lazy(move || {
                g.tasks().map(|(_, t)| OutTask {
                    name: &t.name,
                    cost: t.work,
                })
            }),
            dependencies: Lazy(move || {
                g.edges().map(move |e| OutDependency {
                    source: &g.task(e.from).name,
                    target: &g.task(e.to).name,
                    size: e.bytes,
                })
            }),
        },
        network: OutNetwork {
            nodes: Lazy(move || {
                (0..n).map(move |m| OutNode {
                    name: &machines[m],
                    speed: cluster.gpu(cluster.gpus_of(MachineId::new(m))[0]).speed,
                })
            }),
            edges: Lazy(move || {
                (0..n * n).map(move |i| {
                    let (a, b) = (i / n, i % n);
                    OutEdge {
                        source: &machines[a],
                        target: &machines[b],
                        speed: net.bandwidth(a, b),
                    }
                })
            }),
        },
    };
    let io = |source: std::io::Error| ClusterError::Io {
        path: path.to_owned(),
        source,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, writer);
    serde_json::to_writer_pretty(&mut out, &inst).map_err(|e| match e.io_error_kind() {
        Some(kind) => io(std::io::Error::new(kind, e)),
        None => cannot("workload", format!("cannot write JSON: {e}")),
    })?;
    std::io::Write::flush(&mut out).map_err(io)
}
