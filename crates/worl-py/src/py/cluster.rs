//! The `Cluster` class.

use super::errors::{LoadError, ok, py_err};
use crate::core::{self};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;
use worl::cluster::{Cluster as RCluster, ClusterSpec};

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
    pub(super) fn parse(py: Python<'_>, description: &str) -> PyResult<Self> {
        let c = ok(py.detach(|| core::parse_cluster(description)))?;
        Ok(Self { inner: Arc::new(c) })
    }

    /// Reads a cluster file: the compact TOML/JSON form (`machines`, `gpus_per_machine`,
    /// `model`, links, `[[machine]]` overrides) or the full one.
    ///
    /// Raises `LoadError` naming the file, line and item.
    #[staticmethod]
    pub(super) fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let c = py.detach(|| RCluster::load(&path)).map_err(py_err)?;
        Ok(Self { inner: Arc::new(c) })
    }

    /// `machines` machines of `gpus_per_machine` GPUs of catalog model `model`, with the
    /// named link `inter` between machines (default 25GbE) and `intra` inside them (default
    /// the model's own, e.g. NVLink), optionally named `name`: the compact cluster file in
    /// one call (`worl::cluster::worl_cluster::ClusterSpec`).
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
        let mut spec = ClusterSpec::new(machines, gpus_per_machine, &m);
        if let Some(l) = inter {
            spec = spec.with_inter(link(l)?);
        }
        if let Some(l) = intra {
            spec = spec.with_intra(link(l)?);
        }
        if let Some(n) = name {
            spec = spec.with_name(n);
        }
        let c = spec.build().map_err(py_err)?;
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
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let c = &self.inner;
        ok(py.detach(|| worl::io::save_cluster(c, &path)))
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
