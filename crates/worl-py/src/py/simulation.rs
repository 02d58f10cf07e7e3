//! The `Simulation` class and the function `simulate`.

use super::comparison::{cluster_arg, named_workloads};
use super::convert::data_frame;
use super::errors::ok;
use crate::core::{self};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use worl::experiment::simulation::SimOutcome;
use worl::sim::SimMetrics;

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
pub(super) fn simulate(
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
