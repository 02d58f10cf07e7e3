//! The `Comparison` class and the function `compare`.

use super::cluster::Cluster;
use super::convert::{data_frame, to_py};
use super::errors::ok;
use super::workload::Workload;
use crate::core::{self};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use worl::cluster::Cluster as RCluster;
use worl::dag::Workload as RWorkload;

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
pub(super) fn named_workloads(
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
pub(super) fn cluster_arg(py: Python<'_>, cluster: &Bound<'_, PyAny>) -> PyResult<Arc<RCluster>> {
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
pub(super) fn compare(
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
