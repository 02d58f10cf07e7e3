//! The `Schedule` class and the functions `schedule` and `validate`.

use super::cluster::Cluster;
use super::convert::{data_frame, py_str, to_py};
use super::errors::{LoadError, WorlError, ok, py_err};
use super::workload::Workload;
use crate::core::{self, Scheduled};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use worl::cluster::{Cluster as RCluster, Problem};
use worl::dag::{TaskId, Workload as RWorkload};
use worl::io::ScheduleFile;

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
pub(super) fn cluster_of(
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
pub(super) fn option_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
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
pub(super) fn schedule(
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
pub(super) const GPUS_KEY: &str = worl::io::schedule_file::GPUS_COLUMN;

/// A Python row dict as a schedule-file row (JSON object), keys as the CSV schedule reader
/// takes them ([`core::SCHEDULE_ROW_KEYS`]: `task_id`, `task` (name, or int id), `job`,
/// `gpu_id` (int id), `machine`, `gpu_index`, `model`, `start`, `finish`, `gpus` (a gang
/// task's GPU ids, lead first: a list of ints, else a `ValueError` naming the row); and
/// [`core::SCHEDULE_ROW_ALIASES`]: `gpu` for `gpu_id`); a row naming its task by id gets the
/// task's name and job filled in. Another key, or one key given twice (`gpu` and `gpu_id`,
/// an int `task` and `task_id`), is a `LoadError` naming the row.
pub(super) fn row_json(w: &RWorkload, i: usize, row: &Bound<'_, PyAny>) -> PyResult<Value> {
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
pub(super) fn validate(
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
