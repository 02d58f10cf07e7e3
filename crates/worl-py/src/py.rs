//! The Python module `worl` (native part `worl._worl`): classes `Workload`, `Cluster`,
//! `Schedule`, `Comparison`, `Simulation`, functions `schedule`, `validate`, `compare`,
//! `simulate`, `schedulers`, `scheduler_options`, `gpu_models`, `links`, and the exceptions,
//! chosen by the type of the Rust error: `WorlError` > `LoadError` (> `WorkloadError`,
//! `ClusterError`, `FileError`), `ScheduleError` (> `SimulationError`), `ArgumentError`.
//!
//! Every loading, scheduling, validating, comparing and simulating call releases the GIL
//! ([`Python::detach`]) while Rust works, so Python threads run meanwhile.

use crate::core::{self, Loaded, Scheduled};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyImportError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use worl::cluster::{Cluster as RCluster, Problem, ScheduleFile, presets};
use worl::dag::formats::native;
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::dag::{TaskId, Workload as RWorkload, WorkloadBuilder};
use worl::experiment::simulation::SimOutcome;
use worl::rtgs::Registry;
use worl::sim::SimMetrics;

create_exception!(
    worl,
    WorlError,
    PyException,
    "Base class of worl's errors; the message is the Rust library's, naming the file, line and item."
);
create_exception!(
    worl,
    LoadError,
    WorlError,
    "A workload, cluster or schedule file (or a cluster description) that cannot be read or written."
);
create_exception!(
    worl,
    ScheduleError,
    WorlError,
    "A scheduler that cannot be built (unknown name, bad option) or that failed, or a comparison that failed."
);
create_exception!(
    worl,
    WorkloadError,
    LoadError,
    "A workload that cannot be read, built or written (a malformed file, a cycle, a bad task or edge)."
);
create_exception!(
    worl,
    ClusterError,
    LoadError,
    "A cluster, problem or schedule the cost model rejects (a malformed cluster file, a task that fits no GPU)."
);
create_exception!(
    worl,
    FileError,
    LoadError,
    "A file that cannot be read or written (missing, unreadable, a directory)."
);
create_exception!(
    worl,
    SimulationError,
    ScheduleError,
    "A simulation that cannot be set up (a bad arrival, noise, contention or failure spec) or whose run failed."
);
create_exception!(
    worl,
    ArgumentError,
    WorlError,
    "An argument out of its range (seeds 0, a negative time)."
);

/// The Python exception of `e`, chosen by its type (see the class docs: under [`WorlError`],
/// [`LoadError`] with [`WorkloadError`], [`ClusterError`] and [`FileError`];
/// [`ScheduleError`] with [`SimulationError`]; [`ArgumentError`]), with the message of `e`
/// and its causes on one line.
fn py_err(e: impl Into<worl::Error>) -> PyErr {
    use worl::Error as E;
    let e = e.into();
    let msg = worl::error_line(&e);
    match e {
        E::Workload(_) | E::UnknownGangSpan { .. } => WorkloadError::new_err(msg),
        E::Cluster(_) => ClusterError::new_err(msg),
        E::Io { .. } => FileError::new_err(msg),
        E::ScheduleFile(_)
        | E::Json(_)
        | E::UnknownSaveFormat { .. }
        | E::NeedsNetwork { .. }
        | E::UnknownRowKey { .. } => LoadError::new_err(msg),
        E::Simulation(_) => SimulationError::new_err(msg),
        E::Schedule(_) | E::Search(_) | E::Experiment(_) => ScheduleError::new_err(msg),
        E::InvalidArgument { .. } | E::UnknownPolicy { .. } => ArgumentError::new_err(msg),
        _ => WorlError::new_err(msg),
    }
}

/// `Ok` of `r`, or its error as the Python exception of its type ([`py_err`]).
fn ok<T, E: Into<worl::Error>>(r: Result<T, E>) -> PyResult<T> {
    r.map_err(py_err)
}

/// A JSON value as Python objects (objects become dicts, arrays lists).
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// `pandas.DataFrame(rows)`, or an `ImportError` saying how to install pandas.
fn data_frame<'py>(py: Python<'py>, rows: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let pd = py.import("pandas").map_err(|_| {
        PyImportError::new_err(
            "to_pandas() needs pandas, which is not installed: pip install pandas",
        )
    })?;
    pd.getattr("DataFrame")?.call1((rows,))
}

/// `str(obj)`.
fn py_str(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(obj.str()?.to_string())
}

/// A number from a Python attribute value, or a `ValueError` naming `what`.
fn number(v: &Bound<'_, PyAny>, what: &dyn Fn() -> String) -> PyResult<f64> {
    let not_a_number = || -> PyResult<f64> {
        Err(PyValueError::new_err(format!(
            "{}: `{}` is not a number",
            what(),
            py_str(v)?
        )))
    };
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyString>() {
        return not_a_number();
    }
    match v.extract::<f64>() {
        Ok(x) => Ok(x),
        Err(_) => not_a_number(),
    }
}

// ------------------------------------------------------------------ Workload

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
            notes: l.notes,
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
const GANG_KEYS: [&str; 4] = ["span", "efficiency", "sync_bytes", "sync_steps"];

/// The gang demand of a networkx node from its attributes `gpus` and `gang` (attribute
/// names as given; `None` ignores the attribute): `None` when neither is there (an ordinary
/// task), else the GPU count (default 1) and the parameters (`core::gang_params`). `label`
/// names the node.
///
/// Raises `ValueError` naming the node for a `gpus` that is not an int >= 0, a `gang` that
/// is not a dict, has another key or a non-numeric value; `LoadError` for an unknown span.
fn gang_demand(
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
        let (w, c) = py
            .detach(|| worl::cluster::formats::saga::load(&path))
            .map_err(py_err)?;
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

/// A GPU cluster: machines of GPUs (model, relative speed with V100 = 1.0, memory in GiB)
/// and the network between them. Immutable.
///
/// Make one with `Cluster.parse("4x8:A100-80GB:100GbE")` (exactly what `worl --cluster`
/// accepts: a cluster file or a preset description), `Cluster.load(path)` or
/// `Cluster.from_spec(machines, gpus_per_machine, model)`.
#[pyclass(frozen, module = "worl", name = "Cluster")]
#[derive(Clone)]
pub struct Cluster {
    pub(crate) inner: Arc<RCluster>,
}

#[pymethods]
impl Cluster {
    /// A cluster from a file path (TOML or JSON cluster file) or a description:
    /// `pai-mix:M[:SEED]`, `homogeneous:M:MODEL`, `dgx:NODES:MODEL`,
    /// `paper-pool:M:MBIT[:SEED]`, `MxG:MODEL[:INTER[:INTRA]]` (`4x8:A100-80GB:100GbE`).
    ///
    /// Raises `LoadError` with the `worl` command's message.
    #[staticmethod]
    fn parse(py: Python<'_>, description: &str) -> PyResult<Self> {
        let c = ok(py.detach(|| core::parse_cluster(description)))?;
        Ok(Self { inner: Arc::new(c) })
    }

    /// Reads a cluster file: the compact TOML/JSON form (`machines`, `gpus_per_machine`,
    /// `model`, links, `[[machine]]` overrides) or the full one.
    ///
    /// Raises `LoadError` naming the file, line and item.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let c = py.detach(|| RCluster::load(&path)).map_err(py_err)?;
        Ok(Self { inner: Arc::new(c) })
    }

    /// `machines` machines of `gpus_per_machine` GPUs of catalog model `model`, with the
    /// named link `inter` between machines (default 25GbE) and `intra` inside them (default
    /// the model's own, e.g. NVLink), optionally named `name`: the compact cluster file in
    /// one call (`worl::cluster::presets::ClusterSpec`).
    ///
    /// Raises `LoadError` for an unknown model or link, or zero machines or GPUs.
    #[staticmethod]
    #[pyo3(signature = (machines, gpus_per_machine, model, inter = None, intra = None, name = None))]
    fn from_spec(
        machines: usize,
        gpus_per_machine: usize,
        model: &str,
        inter: Option<&str>,
        intra: Option<&str>,
        name: Option<&str>,
    ) -> PyResult<Self> {
        let m = core::gpu_model(model)
            .map_err(|k| LoadError::new_err(format!("unknown GPU model `{model}` (known: {k})")))?;
        let link = |n: &str| {
            core::named_link(n)
                .map_err(|k| LoadError::new_err(format!("unknown link `{n}` (known: {k})")))
        };
        let mut spec = presets::ClusterSpec::new(machines, gpus_per_machine, &m);
        if let Some(l) = inter {
            spec = spec.with_inter(link(l)?);
        }
        if let Some(l) = intra {
            spec = spec.with_intra(link(l)?);
        }
        if let Some(n) = name {
            spec = spec.with_name(n);
        }
        let c = presets::cluster(&spec).map_err(py_err)?;
        Ok(Self { inner: Arc::new(c) })
    }

    /// The cluster as a TOML cluster file (the compact form where it describes the cluster
    /// exactly, else the full one), as `worl cluster` prints it.
    fn to_toml(&self) -> PyResult<String> {
        self.inner.to_compact_toml_string().map_err(py_err)
    }

    /// The cluster as a JSON cluster file (same rule as `to_toml`).
    fn to_json(&self) -> String {
        self.inner.to_compact_json_string()
    }

    /// Writes the cluster file by extension (`.toml` or `.json`); `Cluster.load` reads it
    /// back equal.
    ///
    /// Raises `LoadError` for another extension or an unwritable path.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let text = match core::extension(&path).as_str() {
            "toml" => self.to_toml()?,
            "json" => self.to_json(),
            other => {
                return Err(LoadError::new_err(format!(
                    "{}: cannot write clusters as `.{other}` (writable: .toml, .json)",
                    path.display()
                )));
            }
        };
        std::fs::write(&path, text)
            .map_err(|e| LoadError::new_err(format!("{}: {e}", path.display())))
    }

    /// The GPUs in id order: dicts `id`, `machine` (name), `model`, `speed` (relative,
    /// V100 = 1.0), `memory` (GiB).
    fn gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        let c = &self.inner;
        for (i, g) in c.gpus().iter().enumerate() {
            let d = PyDict::new(py);
            d.set_item("id", i)?;
            d.set_item("machine", &c.machines()[g.machine.index()])?;
            d.set_item("model", &g.model)?;
            d.set_item("speed", g.speed)?;
            d.set_item("memory", g.mem_gib)?;
            l.append(d)?;
        }
        Ok(l)
    }

    /// The cluster's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Number of GPUs.
    #[getter]
    fn n_gpus(&self) -> usize {
        self.inner.n_gpus()
    }

    /// Number of machines.
    #[getter]
    fn n_machines(&self) -> usize {
        self.inner.n_machines()
    }

    /// The machines' names, in id order.
    #[getter]
    fn machines(&self) -> Vec<String> {
        self.inner.machines().to_vec()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Cluster>() {
            Ok(o) => *self.inner == *o.get().inner,
            Err(_) => false,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Cluster({:?}, {} machines, {} GPUs)",
            self.inner.name(),
            self.n_machines(),
            self.n_gpus()
        )
    }
}

// ------------------------------------------------------------------ Schedule

/// A schedule: the GPU, start and finish (seconds) of every task, and who made it.
#[pyclass(frozen, module = "worl", name = "Schedule")]
pub struct Schedule {
    problem: Arc<Problem>,
    made: Scheduled,
}

impl Schedule {
    fn file(&self) -> PyResult<ScheduleFile> {
        ok(core::schedule_file(&self.problem, &self.made))
    }
}

#[pymethods]
impl Schedule {
    /// The makespan (latest finish), s.
    #[getter]
    fn makespan(&self) -> f64 {
        self.made.schedule.makespan()
    }

    /// The problem's makespan lower bound, s (no schedule is shorter).
    #[getter]
    fn lower_bound(&self) -> f64 {
        self.problem.lower_bound().value
    }

    /// The scheduler's label (`HEFT`, `RTGS`, ...).
    #[getter]
    fn scheduler(&self) -> &str {
        &self.made.meta.scheduler
    }

    /// The spec the scheduler was built from, canonical (`rtgs[whales=10]`).
    #[getter]
    fn spec(&self) -> &str {
        &self.made.meta.options
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.made.meta.seed
    }

    /// Wall time of the scheduler's run, s (not loading or building the problem).
    #[getter]
    fn wall_time_s(&self) -> f64 {
        self.made.wall_time_s
    }

    /// Number of tasks.
    #[getter]
    fn n_tasks(&self) -> usize {
        self.made.schedule.n_tasks()
    }

    /// Every violated constraint (precedence with communication time, overlap on a GPU,
    /// memory, ready time), one line each naming tasks, GPUs and times; empty when valid.
    fn validate(&self, py: Python<'_>) -> Vec<String> {
        let (p, s) = (&self.problem, &self.made.schedule);
        py.detach(|| {
            s.validate(p)
                .iter()
                .map(|v| v.explain(p, s).to_string())
                .collect()
        })
    }

    /// One dict per task in id order, the rows of the schedule file: `task_id`, `task`
    /// (name), `job`, `gpu_id`, `machine`, `gpu_index` (in its machine), `model`, `start`,
    /// `finish` (s), and for a gang task run on several GPUs `gpus`, its GPU ids lead
    /// (`gpu_id`) first (no `gpus` key for a task on one GPU). `worl.validate` takes them back.
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.file()?;
        let v = core::schedule_rows(&f).map_err(|e| WorlError::new_err(e.to_string()))?;
        to_py(py, &v)
    }

    /// The rows as a `pandas.DataFrame` (raises ImportError without pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.rows(py)?;
        data_frame(py, rows)
    }

    /// The schedule file as JSON text (what `worl schedule --out x.json` writes).
    fn to_json(&self) -> PyResult<String> {
        Ok(self.file()?.to_json_string())
    }

    /// Writes the schedule file as JSON (the file `worl schedule --out x.json` writes and
    /// `worl validate` reads), whatever the extension.
    ///
    /// Raises `LoadError` for an unwritable path.
    fn write_json(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let f = self.file()?;
        py.detach(|| std::fs::write(&path, f.to_json_string()))
            .map_err(|e| LoadError::new_err(format!("{}: {e}", path.display())))
    }

    /// Writes the schedule file as CSV (`# key: value` header lines, then one row per task).
    ///
    /// Raises `LoadError` for an unwritable path.
    fn write_csv(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let f = self.file()?;
        py.detach(|| std::fs::write(&path, f.to_csv_string()))
            .map_err(|e| LoadError::new_err(format!("{}: {e}", path.display())))
    }

    /// Writes the schedule by its file name, as `worl schedule --out` does: `.json` or
    /// `.csv` schedule file, `.wf.json` / `.wfformat.json` WfCommons WfFormat with an
    /// `execution` section (machine, GPU, start, run time per task).
    ///
    /// Raises `LoadError` for another extension or an unwritable path.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let (p, s) = (&self.problem, &self.made);
        ok(py.detach(|| core::save_schedule(p, s, &path)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Schedule({}, makespan {:.6} s, lower bound {:.6} s, {} tasks)",
            self.made.meta.scheduler,
            self.makespan(),
            self.lower_bound(),
            self.n_tasks()
        )
    }
}

// ------------------------------------------------------------------ functions

/// The cluster of `cluster` (a `Cluster`, or a description / file path as `str`), else the
/// network of `workload` (saga instances), else an error.
fn cluster_of(
    py: Python<'_>,
    workload: &Workload,
    cluster: Option<&Bound<'_, PyAny>>,
) -> PyResult<Arc<RCluster>> {
    match cluster {
        Some(c) if !c.is_none() => {
            if let Ok(c) = c.cast::<Cluster>() {
                return Ok(c.get().inner.clone());
            }
            if let Ok(s) = c.extract::<String>() {
                return Ok(Cluster::parse(py, &s)?.inner);
            }
            if let Ok(p) = c.extract::<PathBuf>() {
                return Ok(Cluster::load(py, p)?.inner);
            }
            Err(PyTypeError::new_err(format!(
                "cluster: expected a worl.Cluster, a description or a path, got {}",
                c.get_type().name()?
            )))
        }
        _ => workload.network.clone().ok_or_else(|| {
            LoadError::new_err(format!(
                "{}: no cluster given (only a saga problem instance brings its own network)",
                workload.inner.name()
            ))
        }),
    }
}

/// A Python option value as spec text: `True`/`False` as `true`/`false`, numbers and
/// strings as `str()` gives them.
fn option_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_owned());
    }
    if v.is_instance_of::<PyInt>()
        || v.is_instance_of::<PyFloat>()
        || v.is_instance_of::<PyString>()
    {
        return py_str(v);
    }
    Err(PyTypeError::new_err(format!(
        "scheduler option value `{}` is a {}; give a number, a string or a bool",
        py_str(v)?,
        v.get_type().name()?
    )))
}

/// Schedules `workload` on `cluster` with the scheduler `scheduler` (a spec: `"heft"`,
/// `"rtgs[whales=10]"`; keyword `options` are appended, `worl.schedule(w, c, "rtgs",
/// whales=10, iterations=5)`), seed `seed`, and a budget of at most `time` seconds and
/// `max_evaluations` plan evaluations for searches. `cluster` is a `Cluster`, a
/// description or file path, or None for a saga instance's own network.
///
/// Raises `ScheduleError` for an unknown scheduler (listing the registered ones), a bad
/// option or a failed run; `LoadError` for a bad cluster or a task no GPU can hold.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the Python signature: keyword arguments with defaults
#[pyo3(signature = (workload, cluster = None, scheduler = "heft", seed = 0, time = None, max_evaluations = None, **options))]
fn schedule(
    py: Python<'_>,
    workload: &Workload,
    cluster: Option<&Bound<'_, PyAny>>,
    scheduler: &str,
    seed: u64,
    time: Option<f64>,
    max_evaluations: Option<u64>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Schedule> {
    let c = cluster_of(py, workload, cluster)?;
    let mut opts = Vec::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            opts.push((k.extract::<String>()?, option_text(&v)?));
        }
    }
    let spec = ok(core::spec_with_options(scheduler, &opts))?;
    let budget = ok(core::budget(time, max_evaluations))?;
    let w = workload.inner.clone();
    let (problem, made) = py.detach(|| -> PyResult<_> {
        let p = ok(core::problem(w, c))?;
        let s = ok(core::schedule(&p, &spec, seed, budget))?;
        Ok((p, s))
    })?;
    Ok(Schedule {
        problem: Arc::new(problem),
        made,
    })
}

/// The row key of a gang task's GPU set ([`core::SCHEDULE_ROW_KEYS`]' last).
const GPUS_KEY: &str = worl::cluster::schedule_file::GPUS_COLUMN;

/// A Python row dict as a schedule-file row (JSON object), keys as the CSV schedule reader
/// takes them ([`core::SCHEDULE_ROW_KEYS`]: `task_id`, `task` (name, or int id), `job`,
/// `gpu_id` (int id), `machine`, `gpu_index`, `model`, `start`, `finish`, `gpus` (a gang
/// task's GPU ids, lead first: a list of ints, else a `ValueError` naming the row); and
/// [`core::SCHEDULE_ROW_ALIASES`]: `gpu` for `gpu_id`); a row naming its task by id gets the
/// task's name and job filled in. Another key, or one key given twice (`gpu` and `gpu_id`,
/// an int `task` and `task_id`), is a `LoadError` naming the row.
fn row_json(w: &RWorkload, i: usize, row: &Bound<'_, PyAny>) -> PyResult<Value> {
    let d = row.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "row {i}: expected a dict, got {}",
            row.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let mut o = Map::new();
    for (k, v) in d.iter() {
        let given: String = k.extract()?;
        let key = core::row_key(i, &given).map_err(py_err)?;
        let twice = |key: &str| {
            LoadError::new_err(format!(
                "row {i}: `{key}` given twice (`gpu` is another name of `gpu_id`, an int \
                 `task` of `task_id`)"
            ))
        };
        if o.contains_key(key) {
            return Err(twice(key));
        }
        let val = if v.is_none() {
            Value::Null
        } else if key == GPUS_KEY {
            let ids: Vec<u64> = v
                .try_iter()
                .and_then(|it| it.map(|x| x?.extract::<u64>()).collect())
                .map_err(|_| {
                    PyValueError::new_err(format!(
                        "row {i}: `{GPUS_KEY}` is not a list of GPU ids (ints >= 0, lead first)"
                    ))
                })?;
            Value::from(ids)
        } else if v.is_instance_of::<PyBool>() {
            Value::Bool(v.extract()?)
        } else if v.is_instance_of::<PyInt>() {
            if key == "task" {
                if o.contains_key("task_id") {
                    return Err(twice("task_id"));
                }
                o.insert("task_id".into(), Value::from(v.extract::<u64>()?));
                continue;
            }
            Value::from(v.extract::<i64>()?)
        } else if v.is_instance_of::<PyFloat>()
            || v.hasattr("__float__")? && !v.is_instance_of::<PyString>()
        {
            serde_json::Number::from_f64(v.extract::<f64>()?)
                .map(Value::Number)
                .ok_or_else(|| PyValueError::new_err(format!("row {i}: `{key}` is not finite")))?
        } else {
            Value::String(py_str(&v)?)
        };
        o.insert(key.to_owned(), val);
    }
    if let Some(id) = o.get("task_id").and_then(Value::as_u64) {
        let id = id as usize;
        if id < w.graph().n_tasks() {
            let t = w.graph().task(TaskId::new(id));
            o.entry("task")
                .or_insert_with(|| Value::String(t.name.clone()));
            o.entry("job")
                .or_insert_with(|| Value::String(w.job(t.job).name.clone()));
        }
    }
    if !o.contains_key("job") && w.n_jobs() == 1 {
        o.insert("job".into(), Value::String(w.jobs()[0].name.clone()));
    }
    Ok(Value::Object(o))
}

/// Checks a schedule against `workload` on `cluster` with the validator `worl validate`
/// uses, and returns every violation, one line each (empty when valid). `schedule` is a
/// `Schedule`, a schedule file path (`.json` / `.csv`, from `worl schedule` or another tool),
/// or a list of row dicts (a Python scheduler's output) whose keys are the CSV schedule
/// file's columns (`worl.SCHEDULE_ROW_KEYS`, and `gpu` for `gpu_id` as the readers take
/// it): `task` (name or int id), `job` (needed with a task name when the workload has
/// several jobs), `gpu_id` (int id; or `machine` and `gpu_index`), `start`, `finish` (s),
/// and for a gang task `gpus` (its GPU ids, lead = `gpu_id` first). A task without a row, or
/// with several, is a violation; so is a gang whose set is short, repeats a GPU or breaks
/// its span.
///
/// Raises `LoadError` for an unreadable file, a row with an unknown key or one key given
/// twice, or rows that do not belong to the problem (unknown task or GPU), naming the row.
#[pyfunction]
#[pyo3(signature = (workload, cluster, schedule))]
fn validate(
    py: Python<'_>,
    workload: &Workload,
    cluster: Option<&Bound<'_, PyAny>>,
    schedule: &Bound<'_, PyAny>,
) -> PyResult<Vec<String>> {
    let c = cluster_of(py, workload, cluster)?;
    let file = if let Ok(s) = schedule.cast::<Schedule>() {
        s.get().file()?
    } else if schedule.is_instance_of::<PyString>() || schedule.hasattr("__fspath__")? {
        let path: PathBuf = schedule.extract()?;
        py.detach(|| ScheduleFile::read(&path)).map_err(py_err)?
    } else {
        let mut rows = Vec::new();
        for (i, r) in schedule.try_iter()?.enumerate() {
            rows.push(row_json(&workload.inner, i, &r?)?);
        }
        let mut doc = Map::new();
        doc.insert("rows".into(), Value::Array(rows));
        ScheduleFile::from_json_str(&Value::Object(doc).to_string()).map_err(py_err)?
    };
    let w = workload.inner.clone();
    py.detach(|| -> PyResult<Vec<String>> {
        let p = ok(core::problem(w, c))?;
        Ok(ok(core::check_file(&p, &file))?.0)
    })
}

/// The outcome of `worl.compare`: every run, the normalised table and the Markdown report.
#[pyclass(frozen, module = "worl", name = "Comparison")]
pub struct Comparison {
    runs: Value,
    /// Per problem, the `(column, value)` pairs in column order.
    table: Vec<Vec<(String, Value)>>,
    schedulers: Vec<String>,
    baseline: Option<String>,
    markdown: String,
}

#[pymethods]
impl Comparison {
    /// One dict per run: `problem`, `tasks`, `gpus`, `scheduler`, `stochastic`, `seed`,
    /// `makespan`, `slr`, `speedup`, `efficiency`, `utilisation`, `lower_bound`, `gap`,
    /// `mean_job_time`, `load_imbalance`, `cost`, `wall_time_s`, `evaluations`, `tags`
    /// (every schedule was validated).
    #[getter]
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.runs)
    }

    /// One dict per problem, keys in this order: `problem`, `best` (the best mean makespan,
    /// s), `baseline` (HEFT's mean makespan, s, or None), each scheduler's mean makespan
    /// over seeds (s) under its label, then each one's ratio to the baseline's under
    /// `<label>/baseline` (None without baseline).
    #[getter]
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let l = PyList::empty(py);
        for row in &self.table {
            let d = PyDict::new(py);
            for (k, v) in row {
                d.set_item(k, to_py(py, v)?)?;
            }
            l.append(d)?;
        }
        Ok(l.into_any())
    }

    /// The scheduler labels, in the order run.
    #[getter]
    fn schedulers(&self) -> Vec<String> {
        self.schedulers.clone()
    }

    /// The baseline's label (HEFT where it ran), or None.
    #[getter]
    fn baseline(&self) -> Option<String> {
        self.baseline.clone()
    }

    /// The report `worl compare` prints (normalised table, gaps to the best known makespans,
    /// per-workload table, rank test).
    #[getter]
    fn markdown(&self) -> &str {
        &self.markdown
    }

    /// The table as a `pandas.DataFrame` (raises ImportError without pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        data_frame(py, self.table(py)?)
    }

    /// The runs as a `pandas.DataFrame` (raises ImportError without pandas).
    fn runs_to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        data_frame(py, self.runs(py)?)
    }

    fn __str__(&self) -> &str {
        &self.markdown
    }

    fn __repr__(&self) -> String {
        format!(
            "Comparison({} problems x {} schedulers)",
            self.table.len(),
            self.schedulers.len()
        )
    }
}

/// The problems' workloads of `compare` and `simulate`: each item of `workloads` a
/// `Workload` (named after it) or a file path (loaded, named after the file name); a
/// repeated name becomes `name (2)`, `name (3)`, ...
///
/// Raises `LoadError` for a file that does not load, `TypeError` for another item.
fn named_workloads(
    py: Python<'_>,
    workloads: &Bound<'_, PyAny>,
) -> PyResult<Vec<(String, Arc<RWorkload>)>> {
    let mut problems: Vec<(String, Arc<RWorkload>)> = Vec::new();
    for item in workloads.try_iter()? {
        let item = item?;
        let (name, w) = if let Ok(w) = item.cast::<Workload>() {
            (w.get().inner.name().to_owned(), w.get().inner.clone())
        } else {
            let path: PathBuf = item.extract()?;
            let l = ok(py.detach(|| core::load_workload(&path)))?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            (name, Arc::new(l.workload))
        };
        // repeated names: the second is `name (2)`, and so on
        let mut unique = name.clone();
        let mut k = 1;
        while problems.iter().any(|(n, _)| *n == unique) {
            k += 1;
            unique = format!("{name} ({k})");
        }
        problems.push((unique, w));
    }
    Ok(problems)
}

/// The cluster of `compare` and `simulate`: a `Cluster`, or a description / file path as
/// `str` (`Cluster.parse`).
///
/// Raises `LoadError` for a bad description, `TypeError` for another type.
fn cluster_arg(py: Python<'_>, cluster: &Bound<'_, PyAny>) -> PyResult<Arc<RCluster>> {
    match cluster.cast::<Cluster>() {
        Ok(c) => Ok(c.get().inner.clone()),
        Err(_) => Ok(Cluster::parse(py, &cluster.extract::<String>()?)?.inner),
    }
}

/// Runs the schedulers `schedulers` (specs such as `"heft"`, `"rtgs[whales=10]"`; all
/// registered when None) on each workload on `cluster` with seeds 1..=`seeds` per
/// stochastic scheduler and at most `time` seconds per search run, as `worl compare` does,
/// in parallel when `parallel`. `workloads` holds `Workload`s or file paths; each is one
/// problem, named after the workload (paths: the file name).
///
/// Raises `ScheduleError` for a bad spec or a failed run, `LoadError` for bad inputs.
#[pyfunction]
#[pyo3(signature = (workloads, cluster, schedulers = None, seeds = 3, time = None, parallel = false))]
fn compare(
    py: Python<'_>,
    workloads: &Bound<'_, PyAny>,
    cluster: &Bound<'_, PyAny>,
    schedulers: Option<Vec<String>>,
    seeds: u64,
    time: Option<f64>,
    parallel: bool,
) -> PyResult<Comparison> {
    let problems = named_workloads(py, workloads)?;
    let c = cluster_arg(py, cluster)?;
    let options = core::CompareOptions {
        schedulers: schedulers.unwrap_or_default(),
        seeds,
        budget: ok(core::budget(time, None))?,
        parallel,
    };
    let (results, normalised, markdown) = py.detach(|| -> PyResult<_> {
        let mut ps = Vec::with_capacity(problems.len());
        for (name, w) in problems {
            ps.push((name, ok(core::problem(w, c.clone()))?));
        }
        let results = ok(core::compare(ps, &options))?;
        let r =
            ok(worl::experiment::report::comparison_report(&results).map_err(core::Error::from))?;
        Ok((results, r.normalised, r.markdown))
    })?;
    let runs: Vec<Value> = results
        .records()
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut v {
                o.remove("convergence");
            }
            v
        })
        .collect();
    let num = |x: Option<f64>| {
        x.and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    };
    let table: Vec<Vec<(String, Value)>> = normalised
        .rows
        .iter()
        .map(|r| {
            let mut o = vec![
                ("problem".to_owned(), Value::String(r.problem.clone())),
                ("best".to_owned(), num(Some(r.best))),
                ("baseline".to_owned(), num(r.baseline)),
            ];
            for (j, s) in normalised.schedulers.iter().enumerate() {
                o.push((s.clone(), num(r.makespan.get(j).copied().flatten())));
            }
            for (j, s) in normalised.schedulers.iter().enumerate() {
                o.push((format!("{s}/baseline"), num(r.to_baseline(j))));
            }
            o
        })
        .collect();
    Ok(Comparison {
        runs: Value::Array(runs),
        table,
        schedulers: normalised.schedulers.clone(),
        baseline: normalised.baseline.clone(),
        markdown,
    })
}

// ------------------------------------------------------------------ simulate

/// The outcome of `worl.simulate`: every run's measures, the job completion times of the
/// first workload and seed, and the Markdown table.
#[pyclass(frozen, module = "worl", name = "Simulation")]
pub struct Simulation {
    outcome: SimOutcome,
    n_problems: usize,
    n_seeds: u64,
}

#[pymethods]
impl Simulation {
    /// One dict per run (problem, seed, policy order): `problem`, `policy` (its label),
    /// `seed`, `planned_makespan` (s; the plan of a `plan:` policy with every job at 0, no
    /// noise or contention; None for the others), and every measure of the simulation:
    /// `makespan`, `mean_jct`, `p50_jct`, `p99_jct` (s), `mean_slowdown`, `mean_wait` (s),
    /// `utilisation` (0..1), `load_imbalance` (max / mean GPU busy time), `bytes_moved`
    /// (bytes), `contention_delay`, `lost_time` (s), `replans` (decision points after time 0
    /// that dispatched), `decision_latency_p50`, `decision_latency_p99` (wall-clock s).
    #[getter]
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for r in &self.outcome.runs {
            let d = PyDict::new(py);
            d.set_item("problem", &r.problem)?;
            d.set_item("policy", &r.policy)?;
            d.set_item("seed", r.seed)?;
            d.set_item("planned_makespan", r.planned_makespan)?;
            for (k, v) in SimMetrics::NAMES.into_iter().zip(r.metrics.values()) {
                d.set_item(k, v)?;
            }
            l.append(d)?;
        }
        Ok(l)
    }

    /// The policies' labels, in the order run (`plan:heft`, `eft`, ...).
    #[getter]
    fn policies(&self) -> Vec<String> {
        self.outcome
            .policies()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The table `worl simulate` prints first: a row per policy, each measure the mean over
    /// workloads and seeds (makespan, realised / planned, mean and p99 JCT, slowdown, wait,
    /// utilisation, imbalance, GB moved, contention delay, time lost to failures, replans,
    /// decision latency p50 and p99 in ms).
    #[getter]
    fn markdown(&self) -> String {
        self.outcome.markdown()
    }

    /// The job completion times (s, in job order) of `policy` on the first workload with
    /// seed 1: a label of `policies`, or a spec naming one up to case (`"PLAN:HEFT"`).
    ///
    /// Raises `ValueError` for a policy that was not simulated, listing those that were.
    fn jcts(&self, policy: &str) -> PyResult<Vec<f64>> {
        core::jcts(&self.outcome, policy).map_err(|e| PyValueError::new_err(worl::error_line(&e)))
    }

    /// The runs as a `pandas.DataFrame` (raises ImportError without pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        data_frame(py, self.runs(py)?.into_any())
    }

    fn __str__(&self) -> String {
        self.outcome.markdown()
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation({} problems x {} policies x {} seeds, {} runs)",
            self.n_problems,
            self.outcome.policies().len(),
            self.n_seeds,
            self.outcome.runs.len()
        )
    }
}

/// Executes each workload on `cluster` with the discrete-event simulator, as `worl simulate`
/// does: every policy of `policies` (spec strings, or one comma-separated string: `plan:heft`
/// replays HEFT's static plan, `replan:SCHEDULER` re-runs a scheduler at each arrival or
/// failure, `online:dqn[...]`/`online:mdts[...]` dispatch with the deep-RL agent trained by
/// one batch run (frozen), `eft`, `least-connection`, `round-robin` decide online; None:
/// the command's
/// default list) with seeds 1..=`seeds`, jobs released by `arrivals` (`trace`, `batch`,
/// `poisson:R`), runtime `noise` (`none`, `lognormal:CV`, `uniform:LO..HI`), network
/// `contention` (`fair`, `none`) and GPU `failures` (`none`, `mtbf:HOURS[:REPAIR_S]`,
/// scripted outages `outages:GPU@FROM+DURATION[;...]` with GPU an index such as `0` or `g0`
/// and times in seconds, or `script:FILE` for a CSV file with the header `gpu,from,to`); each
/// planning call within `time` seconds and `max_evaluations` plan evaluations. `workloads`
/// holds `Workload`s or file paths, `cluster` is a `Cluster` or a description / file path.
///
/// Raises `ScheduleError` for a bad spec (naming it), a seed count outside 1..=10000 or a
/// failed run (naming the problem, policy and seed); `LoadError` for bad inputs.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the Python signature: keyword arguments with defaults
#[pyo3(signature = (workloads, cluster, policies = None, arrivals = "trace", noise = "none", contention = "fair", failures = "none", seeds = 3, time = None, max_evaluations = None))]
fn simulate(
    py: Python<'_>,
    workloads: &Bound<'_, PyAny>,
    cluster: &Bound<'_, PyAny>,
    policies: Option<&Bound<'_, PyAny>>,
    arrivals: &str,
    noise: &str,
    contention: &str,
    failures: &str,
    seeds: u64,
    time: Option<f64>,
    max_evaluations: Option<u64>,
) -> PyResult<Simulation> {
    let policies = match policies {
        None => Vec::new(),
        Some(p) if p.is_none() => Vec::new(),
        Some(p) => match p.extract::<String>() {
            Ok(list) => vec![list],
            Err(_) => p.extract::<Vec<String>>()?,
        },
    };
    let options = core::SimulateOptions {
        policies,
        arrivals: arrivals.to_owned(),
        noise: noise.to_owned(),
        contention: contention.to_owned(),
        failures: failures.to_owned(),
        seeds,
        budget: ok(core::budget(time, max_evaluations))?,
    };
    // the specs first: a bad one is reported before any file is read
    let settings = ok(core::sim_settings(&options))?;
    let problems = named_workloads(py, workloads)?;
    let c = cluster_arg(py, cluster)?;
    let n_problems = problems.len();
    let outcome = py.detach(|| -> PyResult<_> {
        let mut ps = Vec::with_capacity(problems.len());
        for (name, w) in problems {
            ps.push((name, ok(core::problem(w, c.clone()))?));
        }
        ok(core::simulate(ps, &settings))
    })?;
    Ok(Simulation {
        outcome,
        n_problems,
        n_seeds: seeds,
    })
}

/// The registered schedulers: a dict name -> one-line description, sorted by name (the
/// names `worl.schedule` and `worl.compare` take).
#[pyfunction]
fn schedulers(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let r = Registry::with_builtins();
    let d = PyDict::new(py);
    for n in r.names() {
        d.set_item(n, r.description(n).unwrap_or_default())?;
    }
    Ok(d)
}

/// The declared options of scheduler `name`: a list of dicts `key`, `values`, `default`,
/// `doc` (its own options, then `time` and `evaluations`), as `worl schedulers NAME` prints
/// them. Raises `ScheduleError` for an unregistered name, listing the registered ones.
#[pyfunction]
fn scheduler_options<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
    let r = Registry::with_builtins();
    let Some(options) = r.options(name) else {
        let known: Vec<&str> = r.names().collect();
        return Err(ScheduleError::new_err(format!(
            "unknown scheduler `{name}` (known: {})",
            known.join(", ")
        )));
    };
    let l = PyList::empty(py);
    for o in options {
        let d = PyDict::new(py);
        d.set_item("key", o.key)?;
        d.set_item("values", o.values)?;
        d.set_item("default", o.default)?;
        d.set_item("doc", o.doc)?;
        l.append(d)?;
    }
    Ok(l)
}

/// The GPU models of the catalog: dicts `name`, `speed` (relative, V100 = 1.0), `memory`
/// (GiB), for `Cluster.from_spec` and cluster descriptions.
#[pyfunction]
fn gpu_models<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for m in worl::cluster::GpuModel::catalog() {
        let d = PyDict::new(py);
        d.set_item("name", &m.name)?;
        d.set_item("speed", m.relative_speed)?;
        d.set_item("memory", m.mem_gib)?;
        l.append(d)?;
    }
    Ok(l)
}

/// The named links: dicts `name`, `bandwidth` (B/s), `latency` (s), for `Cluster.from_spec`
/// and cluster descriptions.
#[pyfunction]
fn links<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for n in presets::NAMED_LINKS {
        let d = PyDict::new(py);
        d.set_item("name", n.name)?;
        d.set_item("bandwidth", n.link.bandwidth)?;
        d.set_item("latency", n.link.latency)?;
        l.append(d)?;
    }
    Ok(l)
}

/// Loads `path` and runs HEFT on it `repeats` times on `cluster`, all in Rust, and returns
/// `(load_s, heft_s)`: the best wall times of one load and of one problem build + HEFT run.
/// For measuring the Python layer's overhead against the same work without it.
#[pyfunction]
#[pyo3(signature = (path, cluster, repeats = 5))]
fn _rust_timing(
    py: Python<'_>,
    path: PathBuf,
    cluster: &Cluster,
    repeats: usize,
) -> PyResult<(f64, f64)> {
    let c = cluster.inner.clone();
    ok(py.detach(|| crate::timing(&path, c, repeats)))
}

/// The Python module's native part, `worl._worl` (the package `worl` re-exports it).
#[pymodule]
#[pyo3(name = "_worl")]
fn worl_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Workload>()?;
    m.add_class::<Cluster>()?;
    m.add_class::<Schedule>()?;
    m.add_class::<Comparison>()?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(schedule, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(schedulers, m)?)?;
    m.add_function(wrap_pyfunction!(scheduler_options, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_models, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(_rust_timing, m)?)?;
    m.add("WorlError", py.get_type::<WorlError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("ScheduleError", py.get_type::<ScheduleError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("ClusterError", py.get_type::<ClusterError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("ArgumentError", py.get_type::<ArgumentError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("HAS_WORL_RTGS", cfg!(feature = "ddqn"))?;
    let tuple = |v: &[&str]| PyTuple::new(py, v.iter().copied());
    m.add(
        "WORKLOAD_SAVE_EXTENSIONS",
        tuple(&core::workload_save_extensions())?,
    )?;
    m.add(
        "SCHEDULE_SAVE_EXTENSIONS",
        tuple(&core::SCHEDULE_SAVE_EXTENSIONS)?,
    )?;
    m.add("SCHEDULE_ROW_KEYS", tuple(&core::SCHEDULE_ROW_KEYS)?)?;
    let aliases = PyDict::new(py);
    for (alias, key) in core::SCHEDULE_ROW_ALIASES {
        aliases.set_item(alias, key)?;
    }
    m.add("SCHEDULE_ROW_ALIASES", aliases)?;
    Ok(())
}
