//! The `Workload` class.

use super::cluster::Cluster;
use super::convert::{number, py_str};
use super::errors::{ok, py_err};
use super::scheduling::cluster_of;
use crate::core::{self, Loaded};
use pyo3::exceptions::{PyImportError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;
use worl::cluster::Cluster as RCluster;
use worl::dag::formats::native;
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::dag::{TaskId, Workload as RWorkload, WorkloadBuilder};

/// A workload: jobs of tasks with dependencies, each task with its work (reference
/// GPU-seconds: seconds on a V100), an optional memory need (GiB), each dependency with the
/// bytes it carries. Immutable.
///
/// Make one with `Workload.load(path)` (any format worl reads), `Workload.from_saga(path)`,
/// `Workload.from_networkx(G)` or `Workload.layered(n_tasks)`.
#[pyclass(frozen, module = "worl", name = "Workload")]
pub struct Workload {
    pub(crate) inner: Arc<RWorkload>,
    pub(crate) network: Option<Arc<RCluster>>,
    notes: String,
}

impl Workload {
    fn of(l: Loaded) -> Self {
        Self {
            inner: Arc::new(l.workload),
            network: l.network.map(Arc::new),
            notes: if l.report.entries.is_empty() {
                String::new()
            } else {
                l.report.to_string()
            },
        }
    }

    fn plain(w: RWorkload) -> Self {
        Self {
            inner: Arc::new(w),
            network: None,
            notes: String::new(),
        }
    }
}

/// The keys of a node's `gang` dict (`Workload.from_networkx`).
pub(super) const GANG_KEYS: [&str; 4] = ["span", "efficiency", "sync_bytes", "sync_steps"];

/// The gang demand of a networkx node from its attributes `gpus` and `gang` (attribute
/// names as given; `None` ignores the attribute): `None` when neither is there (an ordinary
/// task), else the GPU count (default 1) and the parameters (`core::gang_params`). `label`
/// names the node.
///
/// Raises `ValueError` naming the node for a `gpus` that is not an int >= 0, a `gang` that
/// is not a dict, has another key or a non-numeric value; `LoadError` for an unknown span.
pub(super) fn gang_demand(
    attrs: &Bound<'_, PyDict>,
    gpus: Option<&str>,
    gang: Option<&str>,
    label: &dyn Fn() -> String,
) -> PyResult<Option<(u32, worl::dag::GangParams)>> {
    let get = |key: Option<&str>| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(match key {
            Some(k) => attrs.get_item(k)?.filter(|v| !v.is_none()),
            None => None,
        })
    };
    let (count, params) = (get(gpus)?, get(gang)?);
    if count.is_none() && params.is_none() {
        return Ok(None);
    }
    let g = match count {
        Some(v) if !v.is_instance_of::<PyBool>() => v.extract::<u32>().map_err(|_| {
            PyValueError::new_err(format!(
                "{}: attribute `{}` is not a GPU count (an int >= 1)",
                label(),
                gpus.unwrap_or_default()
            ))
        })?,
        Some(_) => {
            return Err(PyValueError::new_err(format!(
                "{}: attribute `{}` is not a GPU count (an int >= 1)",
                label(),
                gpus.unwrap_or_default()
            )));
        }
        None => 1,
    };
    let key = gang.unwrap_or_default();
    let mut span = None;
    let mut values = [None; 3];
    if let Some(d) = params {
        let d = d.cast::<PyDict>().map_err(|_| {
            PyValueError::new_err(format!(
                "{}: attribute `{key}` is not a dict (keys {})",
                label(),
                GANG_KEYS.join(", ")
            ))
        })?;
        for (k, v) in d.iter() {
            let k = py_str(&k)?;
            match GANG_KEYS.iter().position(|g| *g == k) {
                Some(0) => span = Some(py_str(&v)?),
                Some(i) => {
                    values[i - 1] = Some(number(&v, &|| {
                        format!("{}: attribute `{key}`: `{k}`", label())
                    })?);
                }
                None => {
                    return Err(PyValueError::new_err(format!(
                        "{}: attribute `{key}`: unknown key `{k}` (known: {})",
                        label(),
                        GANG_KEYS.join(", ")
                    )));
                }
            }
        }
    }
    let [efficiency, sync_bytes, sync_steps] = values;
    let params = core::gang_params(
        &label(),
        span.as_deref(),
        efficiency,
        sync_bytes,
        sync_steps,
    )
    .map_err(py_err)?;
    Ok(Some((g, params)))
}

#[pymethods]
impl Workload {
    /// Reads the workload at `path`, the format picked by extension or content as the `worl`
    /// command picks it: Alibaba v2018 batch_task CSV, Alibaba GPU v2023 pod lists
    /// (`openb_pod_list_*.csv`, one gang task per pod) and the PAI v2020 derived case (CSVs
    /// told apart by their header), WfCommons JSON, Pegasus DAX, STG, DOT,
    /// worl's workload JSON, or a saga / dag-bench problem instance (a `.json` with a
    /// `task_graph`), whose network is kept as `network`.
    ///
    /// Raises `LoadError` (the Rust message, naming the file, line and item).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let l = ok(py.detach(|| core::load_workload(&path)))?;
        Ok(Self::of(l))
    }

    /// Reads a saga / dag-bench problem instance (JSON with `task_graph` and `network`):
    /// the task graph as a one-job workload (cost -> work, size -> bytes) and its network as
    /// `network` (one GPU per node, speed = the node's speed, links of the given speed and
    /// latency 0), so that worl's times are saga's.
    ///
    /// Raises `LoadError`.
    #[staticmethod]
    fn from_saga(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let (w, c) = py.detach(|| worl::io::saga::load(&path)).map_err(py_err)?;
        Ok(Self {
            inner: Arc::new(w),
            network: Some(Arc::new(c)),
            notes: String::new(),
        })
    }

    /// A workload from a `networkx.DiGraph`: one task per node, one dependency per edge.
    ///
    /// Node attribute `work` (reference GPU-seconds, required), `memory` (GiB, optional:
    /// no memory need when absent), `job` (the job's name; default the graph's name) and
    /// `name` (the task's name in its job; default `str(node)`); edge attribute `bytes`
    /// (required). A gang task (several GPUs at once, `docs/model.md`) has node attribute
    /// `gpus` (an int >= 1; default 1) and optionally `gang`, a dict of `span` (`"machine"`,
    /// the default, or `"cluster"`), `efficiency` (in (0, 1], default 1), `sync_bytes` and
    /// `sync_steps` (the all-reduce per step and the step count, default 0). Pass other
    /// attribute names as keywords (`work="cost"`); `memory=None` ignores memory,
    /// `bytes=None` makes every edge carry 0 bytes, `gpus=None` / `gang=None` ignore those
    /// attributes. The workload is named `G.graph["name"]`, else `"networkx"`.
    ///
    /// Raises `ValueError` naming the node or edge for a missing or non-numeric attribute
    /// (a `gpus` that is not an int, a `gang` that is not a dict or has another key),
    /// `TypeError` for an undirected graph, `LoadError` for what worl refuses (negative
    /// work, a cycle, a task name repeated in a job, `gpus` 0, a gang span that is neither
    /// `machine` nor `cluster`, an efficiency outside (0, 1]).
    #[staticmethod]
    #[pyo3(signature = (graph, work = "work", memory = Some("memory"), bytes = Some("bytes"), job = "job", name = "name", gpus = Some("gpus"), gang = Some("gang")))]
    #[allow(clippy::too_many_arguments)]
    fn from_networkx(
        graph: &Bound<'_, PyAny>,
        work: &str,
        memory: Option<&str>,
        bytes: Option<&str>,
        job: &str,
        name: &str,
        gpus: Option<&str>,
        gang: Option<&str>,
    ) -> PyResult<Self> {
        let py = graph.py();
        if !graph.call_method0("is_directed")?.is_truthy()? {
            return Err(PyTypeError::new_err(
                "from_networkx: the graph is undirected; give a networkx.DiGraph",
            ));
        }
        let wname = match graph.getattr("graph")?.get_item("name") {
            Ok(n) => py_str(&n)?,
            Err(_) => "networkx".to_owned(),
        };
        let mut b = WorkloadBuilder::new(wname.clone());
        let kw = PyDict::new(py);
        kw.set_item("data", true)?;
        let ids = PyDict::new(py);
        for item in graph.getattr("nodes")?.call((), Some(&kw))?.try_iter()? {
            let (node, attrs): (Bound<'_, PyAny>, Bound<'_, PyDict>) = item?.extract()?;
            let label = || {
                format!(
                    "node `{}`",
                    node.str().map(|s| s.to_string()).unwrap_or_default()
                )
            };
            let w = match attrs.get_item(work)? {
                Some(v) => number(&v, &|| format!("{}: attribute `{work}`", label()))?,
                None => {
                    return Err(PyValueError::new_err(format!(
                        "{} has no `{work}` attribute (its work in reference GPU-seconds; \
                         name another attribute with work=...)",
                        label()
                    )));
                }
            };
            let mem = match memory.map(|m| attrs.get_item(m)).transpose()?.flatten() {
                Some(v) if !v.is_none() => Some(number(&v, &|| {
                    format!("{}: attribute `{}`", label(), memory.unwrap_or_default())
                })?),
                _ => None,
            };
            let jname = match attrs.get_item(job)? {
                Some(j) => py_str(&j)?,
                None => wname.clone(),
            };
            let tname = match attrs.get_item(name)? {
                Some(n) => py_str(&n)?,
                None => py_str(&node)?,
            };
            let jid = match b.job_id(&jname) {
                Some(j) => j,
                None => b.add_job(jname).map_err(py_err)?,
            };
            let demand = gang_demand(&attrs, gpus, gang, &label)?;
            let t = b.add_task(jid, tname, w, mem).map_err(py_err)?;
            if let Some((g, params)) = demand {
                b.set_gang(t, g, params).map_err(py_err)?;
            }
            ids.set_item(&node, t.index())?;
        }
        for item in graph.getattr("edges")?.call((), Some(&kw))?.try_iter()? {
            let (u, v, attrs): (Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyDict>) =
                item?.extract()?;
            let label = || {
                format!(
                    "edge `{}` -> `{}`",
                    u.str().map(|s| s.to_string()).unwrap_or_default(),
                    v.str().map(|s| s.to_string()).unwrap_or_default()
                )
            };
            let data = match bytes {
                None => 0.0,
                Some(key) => match attrs.get_item(key)? {
                    Some(x) => number(&x, &|| format!("{}: attribute `{key}`", label()))?,
                    None => {
                        return Err(PyValueError::new_err(format!(
                            "{} has no `{key}` attribute (the bytes it carries; name another \
                             attribute with bytes=..., or bytes=None for none)",
                            label()
                        )));
                    }
                },
            };
            let id = |n: &Bound<'_, PyAny>| -> PyResult<TaskId> {
                let i: usize = ids
                    .get_item(n)?
                    .ok_or_else(|| PyValueError::new_err(format!("{}: unknown node", label())))?
                    .extract()?;
                Ok(TaskId::new(i))
            };
            b.add_edge(id(&u)?, id(&v)?, data).map_err(py_err)?;
        }
        let w = b.build().map_err(py_err)?;
        Ok(Self::plain(w))
    }

    /// A random layered DAG of `n_tasks` tasks (one job), seeded: the generator of worl's
    /// synthetic benchmarks (`worl::dag::generators::layered`, default shape).
    ///
    /// Raises `LoadError` for `n_tasks == 0`.
    #[staticmethod]
    #[pyo3(signature = (n_tasks, seed = 1))]
    fn layered(py: Python<'_>, n_tasks: usize, seed: u64) -> PyResult<Self> {
        let w = py
            .detach(|| layered(&LayeredParams::new(n_tasks), seed))
            .map_err(py_err)?;
        Ok(Self::plain(w))
    }

    /// Writes the workload by its file name, as `worl convert` does: `.json` worl's workload
    /// JSON, `.wf.json` / `.wfformat.json` WfCommons WfFormat 1.5, `.dot` / `.gv` Graphviz,
    /// `.saga.json` a saga problem instance whose network is `cluster` (a `Cluster` or a
    /// description; default the workload's own `network`). `Workload.load` reads each back
    /// as the same workload.
    ///
    /// Raises `LoadError` for another extension, a saga file without network or with link
    /// latencies, or an unwritable path.
    #[pyo3(signature = (path, cluster = None))]
    fn save(
        &self,
        py: Python<'_>,
        path: PathBuf,
        cluster: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let network = match cluster {
            Some(c) if !c.is_none() => Some(cluster_of(py, self, Some(c))?),
            _ => self.network.clone(),
        };
        let w = self.inner.clone();
        ok(py.detach(|| core::save_workload(&w, network.as_deref(), &path)))
    }

    /// The workload as worl's workload JSON text.
    fn to_json(&self) -> PyResult<String> {
        native::to_string(&self.inner).map_err(py_err)
    }

    /// The workload as a `networkx.DiGraph`: node = task id (0..n_tasks), with attributes
    /// `name`, `job`, `work`, (where given) `memory`, and for a gang task `gpus` (when not 1)
    /// and `gang` (a dict of `span`, `efficiency`, `sync_bytes`, `sync_steps`, when not the
    /// defaults); edge attribute `bytes`; graph attribute `name`. `Workload.from_networkx`
    /// reads it back equal. Attribute names as in `from_networkx`.
    #[pyo3(signature = (work = "work", memory = "memory", bytes = "bytes", job = "job", name = "name", gpus = "gpus", gang = "gang"))]
    #[allow(clippy::too_many_arguments)]
    fn to_networkx<'py>(
        &self,
        py: Python<'py>,
        work: &str,
        memory: &str,
        bytes: &str,
        job: &str,
        name: &str,
        gpus: &str,
        gang: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let nx = py.import("networkx").map_err(|_| {
            PyImportError::new_err(
                "to_networkx() needs networkx, which is not installed: pip install networkx",
            )
        })?;
        let g = nx.getattr("DiGraph")?.call0()?;
        g.getattr("graph")?.set_item("name", self.inner.name())?;
        let w = &self.inner;
        let add_node = g.getattr("add_node")?;
        for (id, t) in w.graph().tasks() {
            let a = PyDict::new(py);
            a.set_item(name, &t.name)?;
            a.set_item(job, &w.job(t.job).name)?;
            a.set_item(work, t.work)?;
            if let Some(m) = t.mem_gib {
                a.set_item(memory, m)?;
            }
            if t.gpus != 1 {
                a.set_item(gpus, t.gpus)?;
            }
            if !t.gang.is_default() {
                let d = PyDict::new(py);
                d.set_item("span", t.gang.span.as_str())?;
                d.set_item("efficiency", t.gang.efficiency)?;
                d.set_item("sync_bytes", t.gang.sync_bytes)?;
                d.set_item("sync_steps", t.gang.sync_steps)?;
                a.set_item(gang, d)?;
            }
            add_node.call((id.index(),), Some(&a))?;
        }
        let add_edge = g.getattr("add_edge")?;
        for e in w.graph().edges() {
            let a = PyDict::new(py);
            a.set_item(bytes, e.bytes)?;
            add_edge.call((e.from.index(), e.to.index()), Some(&a))?;
        }
        Ok(g)
    }

    /// The tasks in id order: dicts `id`, `name`, `job`, `work` (reference GPU-seconds),
    /// `memory` (GiB or None), `gpus` (GPUs the task needs at once: 1 but for gang tasks).
    fn tasks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        let w = &self.inner;
        for (id, t) in w.graph().tasks() {
            let d = PyDict::new(py);
            d.set_item("id", id.index())?;
            d.set_item("name", &t.name)?;
            d.set_item("job", &w.job(t.job).name)?;
            d.set_item("work", t.work)?;
            d.set_item("memory", t.mem_gib)?;
            d.set_item("gpus", t.gpus)?;
            l.append(d)?;
        }
        Ok(l)
    }

    /// The dependencies: dicts `source`, `target` (task ids) and `bytes`.
    fn edges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for e in self.inner.graph().edges() {
            let d = PyDict::new(py);
            d.set_item("source", e.from.index())?;
            d.set_item("target", e.to.index())?;
            d.set_item("bytes", e.bytes)?;
            l.append(d)?;
        }
        Ok(l)
    }

    /// The jobs' release (arrival) times, s from the start, in job order (the names of
    /// `jobs`); 0 for a batch workload. `simulate(arrivals="trace")` releases each job then.
    #[getter]
    fn releases(&self) -> Vec<f64> {
        self.inner.jobs().iter().map(|j| j.release).collect()
    }

    /// The workload's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Number of tasks.
    #[getter]
    fn n_tasks(&self) -> usize {
        self.inner.graph().n_tasks()
    }

    /// Number of dependencies (edges).
    #[getter]
    fn n_edges(&self) -> usize {
        self.inner.graph().n_edges()
    }

    /// Number of jobs.
    #[getter]
    fn n_jobs(&self) -> usize {
        self.inner.n_jobs()
    }

    /// The jobs' names, in id order.
    #[getter]
    fn jobs(&self) -> Vec<String> {
        self.inner.jobs().iter().map(|j| j.name.clone()).collect()
    }

    /// Total work of all tasks, reference GPU-seconds.
    #[getter]
    fn total_work(&self) -> f64 {
        self.inner.graph().tasks().map(|(_, t)| t.work).sum()
    }

    /// The network of a saga / dag-bench problem instance (a `Cluster`), else None.
    #[getter]
    fn network(&self) -> Option<Cluster> {
        self.network.clone().map(|c| Cluster { inner: c })
    }

    /// The loader's notes (dropped rows, repaired references), empty if none.
    #[getter]
    fn notes(&self) -> &str {
        &self.notes
    }

    fn __len__(&self) -> usize {
        self.n_tasks()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Workload>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(Arc::ptr_eq(&self.inner, &o.inner) || self.to_json()? == o.to_json()?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Workload({:?}, {} tasks, {} edges, {} jobs)",
            self.inner.name(),
            self.n_tasks(),
            self.n_edges(),
            self.n_jobs()
        )
    }
}

// ------------------------------------------------------------------ Cluster
