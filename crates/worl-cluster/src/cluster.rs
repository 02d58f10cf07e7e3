//! [`Cluster`]: machines holding GPUs, and the network between them; [`ClusterBuilder`];
//! GPU load states; the native TOML/JSON format.

use crate::catalog::GpuModel;
use crate::error::{ClusterError, Result, non_negative, positive};
use crate::ids::{GpuId, MachineId};
use crate::network::{Link, Network};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One GPU of a cluster.
///
/// Its execution speed is the *effective speed* `speed · (1 − background)`
/// (DESIGN.md, "The model"); it cannot start work before `ready_time`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gpu {
    /// Name of its [`GpuModel`] (one of [`Cluster::models`]).
    pub model: String,
    /// The machine it sits in.
    pub machine: MachineId,
    /// Relative speed `s_k` (V100 = 1.0), finite `> 0`; defaults to the model's.
    pub speed: f64,
    /// Memory, GiB, finite `> 0`; defaults to the model's.
    pub mem_gib: f64,
    /// Ready time `r_k`: the GPU is busy until then, s (finite, `>= 0`).
    pub ready_time: f64,
    /// Background utilisation `u_k` in `[0, 1)`: the share of the GPU taken by other work.
    pub background: f64,
}

impl Gpu {
    /// Effective speed `s_k (1 − u_k)`.
    #[inline]
    pub fn effective_speed(&self) -> f64 {
        self.speed * (1.0 - self.background)
    }
}

/// One GPU as written in the native file format: speed and memory default to the model's,
/// ready time and background to 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GpuData {
    model: String,
    machine: MachineId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    speed: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mem_gib: Option<f64>,
    #[serde(default)]
    ready_time: f64,
    #[serde(default)]
    background: f64,
}

/// The native file format of a cluster (TOML or JSON). Models named by GPUs but absent from
/// `models` are taken from the catalog ([`GpuModel::by_name`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ClusterData {
    name: String,
    machines: Vec<String>,
    network: Network,
    #[serde(default)]
    models: Vec<GpuModel>,
    gpus: Vec<GpuData>,
}

/// A GPU cluster: machines with GPUs and the network between them.
///
/// Always valid: built by [`ClusterBuilder`], a preset, a loader or the native format, all of
/// which check that there is at least one GPU, every speed and memory is finite and `> 0`,
/// every ready time finite and `>= 0`, every background utilisation in `[0, 1)`, and every
/// link has a finite bandwidth `> 0` and a finite latency `>= 0`.
///
/// # Native format
/// [`to_toml_string`](Self::to_toml_string) / [`from_toml_str`](Self::from_toml_str) (and
/// the JSON pair, [`load`](Self::load) / [`save`](Self::save) by file extension):
///
/// ```toml
/// name = "two-nodes"
/// machines = ["node-0", "node-1"]
///
/// [network]
/// kind = "uniform"                    # or "per_machine_pair" with bandwidth/latency matrices
/// intra = { bandwidth = 12e9, latency = 1e-5 }   # bytes/s, s
/// inter = { bandwidth = 3.125e9, latency = 5e-5 }
///
/// [[gpus]]
/// model = "V100-32GB"                 # a catalog name, or one defined under [[models]]
/// machine = 0                         # index into `machines`
/// ready_time = 0.0                    # optional, s
/// background = 0.0                    # optional, in [0, 1)
/// # speed = 1.0, mem_gib = 32.0       # optional, default to the model's
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ClusterData", into = "ClusterData")]
pub struct Cluster {
    name: String,
    machines: Vec<String>,
    network: Network,
    models: Vec<GpuModel>,
    gpus: Vec<Gpu>,
    /// Per GPU: index into `models`.
    gpu_model: Vec<u32>,
    /// Per machine: its GPUs in id order.
    machine_gpus: Vec<Vec<GpuId>>,
}

impl TryFrom<ClusterData> for Cluster {
    type Error = ClusterError;

    fn try_from(data: ClusterData) -> Result<Self> {
        let ClusterData {
            name,
            machines,
            network,
            mut models,
            gpus: gpu_data,
        } = data;
        if gpu_data.is_empty() {
            return Err(ClusterError::EmptyCluster { cluster: name });
        }
        for (i, m) in models.iter().enumerate() {
            m.validate()?;
            if models[..i].iter().any(|o| o.name == m.name) {
                return Err(ClusterError::DuplicateModel {
                    name: m.name.clone(),
                });
            }
        }
        network.validate(&machines)?;
        let mut gpus = Vec::with_capacity(gpu_data.len());
        let mut gpu_model = Vec::with_capacity(gpu_data.len());
        let mut machine_gpus = vec![Vec::new(); machines.len()];
        for (k, g) in gpu_data.into_iter().enumerate() {
            let id = GpuId::new(k);
            let mi = match models.iter().position(|m| m.name == g.model) {
                Some(i) => i,
                None => {
                    let m =
                        GpuModel::by_name(&g.model).ok_or_else(|| ClusterError::UnknownModel {
                            name: g.model.clone(),
                        })?;
                    // A trace code (e.g. V100M32) resolves to a catalog model of another name.
                    match models.iter().position(|o| o.name == m.name) {
                        Some(i) => i,
                        None => {
                            models.push(m);
                            models.len() - 1
                        }
                    }
                }
            };
            if g.machine.index() >= machines.len() {
                return Err(ClusterError::UnknownId {
                    kind: "machine",
                    index: g.machine.index(),
                    len: machines.len(),
                });
            }
            let model = &models[mi];
            let gpu = Gpu {
                model: model.name.clone(),
                machine: g.machine,
                speed: g.speed.unwrap_or(model.relative_speed),
                mem_gib: g.mem_gib.unwrap_or(model.mem_gib),
                ready_time: g.ready_time,
                background: g.background,
            };
            validate_gpu(id, &gpu)?;
            machine_gpus[g.machine.index()].push(id);
            gpus.push(gpu);
            gpu_model.push(mi as u32);
        }
        Ok(Self {
            name,
            machines,
            network,
            models,
            gpus,
            gpu_model,
            machine_gpus,
        })
    }
}

impl From<Cluster> for ClusterData {
    fn from(c: Cluster) -> Self {
        let gpus = c
            .gpus
            .into_iter()
            .map(|g| GpuData {
                model: g.model,
                machine: g.machine,
                speed: Some(g.speed),
                mem_gib: Some(g.mem_gib),
                ready_time: g.ready_time,
                background: g.background,
            })
            .collect();
        Self {
            name: c.name,
            machines: c.machines,
            network: c.network,
            models: c.models,
            gpus,
        }
    }
}

fn validate_gpu(id: GpuId, g: &Gpu) -> Result<()> {
    let item = || id.to_string();
    positive(item, "speed", g.speed)?;
    positive(item, "mem_gib", g.mem_gib)?;
    non_negative(item, "ready_time", g.ready_time)?;
    validate_background(id, g.background)
}

fn validate_background(id: GpuId, u: f64) -> Result<()> {
    if (0.0..1.0).contains(&u) {
        Ok(())
    } else {
        Err(ClusterError::InvalidValue {
            item: id.to_string(),
            field: "background",
            value: u,
            expected: "a utilisation in [0, 1)",
        })
    }
}

/// Background load of the GPUs: the paper's "idle" and "busy" GPU states (PAPER.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LoadState {
    /// Every GPU idle: background utilisation 0, ready time 0.
    Idle,
    /// Every GPU's background utilisation drawn uniformly from `utilisation = (lo, hi)`
    /// (`0 <= lo <= hi < 1`) and its ready time uniformly from `ready_time = (lo, hi)` s.
    Busy {
        /// Range of the background utilisation `u_k`.
        utilisation: (f64, f64),
        /// Range of the ready time `r_k`, s.
        ready_time: (f64, f64),
    },
}

impl LoadState {
    /// The paper's busy state as we reconstruct it: background utilisation uniform in
    /// 58–85 %, the range of `cpu_util_percent` in the authors' `GPU.csv` (50 machines of the
    /// Alibaba v2018 `machine_usage` table, PAPER.md §6); ready times 0.
    pub fn paper_busy() -> Self {
        Self::Busy {
            utilisation: (0.58, 0.85),
            ready_time: (0.0, 0.0),
        }
    }
}

impl Cluster {
    /// Name of the cluster.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of GPUs `m`.
    #[inline]
    pub fn n_gpus(&self) -> usize {
        self.gpus.len()
    }

    /// Number of machines.
    #[inline]
    pub fn n_machines(&self) -> usize {
        self.machines.len()
    }

    /// All GPUs, indexed by [`GpuId::index`].
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// The GPU `id`.
    ///
    /// # Panics
    /// If `id` is not a GPU of this cluster.
    #[inline]
    pub fn gpu(&self, id: GpuId) -> &Gpu {
        &self.gpus[id.index()]
    }

    /// All GPU ids `0..m`.
    pub fn gpu_ids(&self) -> impl ExactSizeIterator<Item = GpuId> + use<> {
        (0..self.n_gpus()).map(GpuId::new)
    }

    /// Machine names, indexed by [`MachineId::index`].
    pub fn machines(&self) -> &[String] {
        &self.machines
    }

    /// The GPUs of machine `id`, in id order.
    ///
    /// # Panics
    /// If `id` is not a machine of this cluster.
    pub fn gpus_of(&self, id: MachineId) -> &[GpuId] {
        &self.machine_gpus[id.index()]
    }

    /// The GPU models used by the cluster (each once).
    pub fn models(&self) -> &[GpuModel] {
        &self.models
    }

    /// The model of GPU `id`.
    ///
    /// # Panics
    /// If `id` is not a GPU of this cluster.
    pub fn model_of(&self, id: GpuId) -> &GpuModel {
        &self.models[self.gpu_model[id.index()] as usize]
    }

    /// Number of GPUs per model name.
    pub fn gpu_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for g in &self.gpus {
            *counts.entry(g.model.clone()).or_insert(0) += 1;
        }
        counts
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The link between two distinct GPUs, `None` for `k == l` (no transfer needed).
    ///
    /// # Panics
    /// If `k` or `l` is not a GPU of this cluster.
    pub fn link(&self, k: GpuId, l: GpuId) -> Option<Link> {
        if k == l {
            return None;
        }
        let (a, b) = (self.gpu(k).machine.index(), self.gpu(l).machine.index());
        Some(Link {
            bandwidth: self.network.bandwidth(a, b),
            latency: self.network.latency(a, b),
        })
    }

    fn check_gpu(&self, id: GpuId) -> Result<()> {
        if id.index() < self.gpus.len() {
            Ok(())
        } else {
            Err(ClusterError::UnknownId {
                kind: "GPU",
                index: id.index(),
                len: self.gpus.len(),
            })
        }
    }

    /// Sets the ready time `r_k` of GPU `id` (s, finite `>= 0`).
    ///
    /// Errors: [`ClusterError::UnknownId`], [`ClusterError::InvalidValue`].
    pub fn set_ready_time(&mut self, id: GpuId, ready_time: f64) -> Result<()> {
        self.check_gpu(id)?;
        non_negative(|| id.to_string(), "ready_time", ready_time)?;
        self.gpus[id.index()].ready_time = ready_time;
        Ok(())
    }

    /// Sets the background utilisation `u_k` of GPU `id` (in `[0, 1)`).
    ///
    /// Errors: [`ClusterError::UnknownId`], [`ClusterError::InvalidValue`].
    pub fn set_background(&mut self, id: GpuId, background: f64) -> Result<()> {
        self.check_gpu(id)?;
        validate_background(id, background)?;
        self.gpus[id.index()].background = background;
        Ok(())
    }

    /// Replaces the network.
    ///
    /// Errors: as [`Network::validate`] for this cluster's machines.
    pub fn set_network(&mut self, network: Network) -> Result<()> {
        network.validate(&self.machines)?;
        self.network = network;
        Ok(())
    }

    /// Sets every GPU's background utilisation and ready time from a [`LoadState`], drawing
    /// in GPU id order from ChaCha8 seeded with `seed` (same seed, same loads).
    ///
    /// Errors: [`ClusterError::InvalidParameter`] if a range is reversed, the utilisation
    /// range is not inside `[0, 1)` or the ready-time range not finite and `>= 0`.
    pub fn apply_load(&mut self, state: &LoadState, seed: u64) -> Result<()> {
        match *state {
            LoadState::Idle => {
                for g in &mut self.gpus {
                    g.background = 0.0;
                    g.ready_time = 0.0;
                }
            }
            LoadState::Busy {
                utilisation: (ulo, uhi),
                ready_time: (rlo, rhi),
            } => {
                if !(0.0 <= ulo && ulo <= uhi && uhi < 1.0) {
                    return Err(ClusterError::InvalidParameter {
                        name: "utilisation",
                        reason: format!("({ulo}, {uhi}) is not a range inside [0, 1)"),
                    });
                }
                if !(0.0 <= rlo && rlo <= rhi && rhi.is_finite()) {
                    return Err(ClusterError::InvalidParameter {
                        name: "ready_time",
                        reason: format!("({rlo}, {rhi}) is not a finite range >= 0"),
                    });
                }
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                for g in &mut self.gpus {
                    g.background = rng.random_range(ulo..=uhi);
                    g.ready_time = rng.random_range(rlo..=rhi);
                }
            }
        }
        Ok(())
    }

    /// The cluster in the native JSON format.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).expect("a cluster serialises to JSON")
    }

    /// Reads a cluster from the native JSON format.
    ///
    /// Errors: [`ClusterError::Parse`] (file `<memory>`, with line) for malformed JSON or an
    /// invalid cluster.
    pub fn from_json_str(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| ClusterError::Parse {
            file: "<memory>".to_owned(),
            line: e.line(),
            message: e.to_string(),
        })
    }

    /// The cluster in the native TOML format.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] if TOML cannot express it (it always can
    /// for a valid cluster; reported rather than panicking).
    pub fn to_toml_string(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| ClusterError::InvalidParameter {
            name: "cluster",
            reason: format!("cannot write TOML: {e}"),
        })
    }

    /// Reads a cluster from the native TOML format.
    ///
    /// Errors: [`ClusterError::Parse`] (file `<memory>`, with line) for malformed TOML or an
    /// invalid cluster.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            ClusterError::Parse {
                file: "<memory>".to_owned(),
                line,
                message: e.message().to_owned(),
            }
        })
    }

    /// Reads a cluster file in the native format, TOML for `*.toml`, JSON otherwise.
    ///
    /// Errors: [`ClusterError::Io`], [`ClusterError::Parse`] naming the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ClusterError::Io {
            path: path.to_owned(),
            source,
        })?;
        let parsed = if is_toml(path) {
            Self::from_toml_str(&text)
        } else {
            Self::from_json_str(&text)
        };
        parsed.map_err(|e| match e {
            ClusterError::Parse { line, message, .. } => ClusterError::Parse {
                file: path.display().to_string(),
                line,
                message,
            },
            other => other,
        })
    }

    /// Writes the cluster in the native format, TOML for `*.toml`, JSON otherwise.
    ///
    /// Errors: [`ClusterError::Io`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let text = if is_toml(path) {
            self.to_toml_string()?
        } else {
            self.to_json_string()
        };
        std::fs::write(path, text).map_err(|source| ClusterError::Io {
            path: path.to_owned(),
            source,
        })
    }
}

fn is_toml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Incremental construction of a [`Cluster`], validated in [`build`](Self::build).
///
/// ```
/// use worl_cluster::{ClusterBuilder, GpuModel, Link, Network};
/// let mut b = ClusterBuilder::new("demo");
/// let m0 = b.add_machine("node-0");
/// let m1 = b.add_machine("node-1");
/// b.add_gpus(m0, &GpuModel::v100_32gb(), 2)?;
/// b.add_gpu(m1, &GpuModel::t4())?;
/// b.network(Network::uniform(Link::NVLINK2, Link::ETHERNET_25G));
/// let c = b.build()?;
/// assert_eq!(c.n_gpus(), 3);
/// assert_eq!(c.gpu_counts()["V100-32GB"], 2);
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ClusterBuilder {
    data: ClusterData,
}

impl ClusterBuilder {
    /// An empty builder; the network defaults to PCIe 3.0 x16 inside machines and 25 GbE
    /// between them.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            data: ClusterData {
                name: name.into(),
                machines: Vec::new(),
                network: Network::uniform(Link::PCIE3_X16, Link::ETHERNET_25G),
                models: Vec::new(),
                gpus: Vec::new(),
            },
        }
    }

    /// Adds a machine (server) and returns its id.
    pub fn add_machine(&mut self, name: impl Into<String>) -> MachineId {
        self.data.machines.push(name.into());
        MachineId::new(self.data.machines.len() - 1)
    }

    /// Number of machines added so far.
    pub fn n_machines(&self) -> usize {
        self.data.machines.len()
    }

    /// Number of GPUs added so far.
    pub fn n_gpus(&self) -> usize {
        self.data.gpus.len()
    }

    /// Registers `model` (once per name) and returns its name.
    fn register(&mut self, model: &GpuModel) -> Result<()> {
        match self.data.models.iter().find(|m| m.name == model.name) {
            Some(m) if m == model => Ok(()),
            Some(_) => Err(ClusterError::DuplicateModel {
                name: model.name.clone(),
            }),
            None => {
                model.validate()?;
                self.data.models.push(model.clone());
                Ok(())
            }
        }
    }

    /// Adds an idle GPU of `model` (its speed and memory) to `machine`.
    ///
    /// Errors: [`ClusterError::UnknownId`] for a missing machine,
    /// [`ClusterError::DuplicateModel`] if another model of the same name was added,
    /// [`ClusterError::InvalidValue`] for a bad model.
    pub fn add_gpu(&mut self, machine: MachineId, model: &GpuModel) -> Result<GpuId> {
        if machine.index() >= self.data.machines.len() {
            return Err(ClusterError::UnknownId {
                kind: "machine",
                index: machine.index(),
                len: self.data.machines.len(),
            });
        }
        self.register(model)?;
        self.data.gpus.push(GpuData {
            model: model.name.clone(),
            machine,
            speed: Some(model.relative_speed),
            mem_gib: Some(model.mem_gib),
            ready_time: 0.0,
            background: 0.0,
        });
        Ok(GpuId::new(self.data.gpus.len() - 1))
    }

    /// Adds `count` idle GPUs of `model` to `machine`; returns the first id (ids are
    /// consecutive). Errors: as [`add_gpu`](Self::add_gpu).
    pub fn add_gpus(
        &mut self,
        machine: MachineId,
        model: &GpuModel,
        count: usize,
    ) -> Result<GpuId> {
        let first = GpuId::new(self.data.gpus.len());
        for _ in 0..count {
            self.add_gpu(machine, model)?;
        }
        Ok(first)
    }

    /// Sets the speed of an added GPU (overriding its model's).
    ///
    /// Errors: [`ClusterError::UnknownId`]; values are checked in [`build`](Self::build).
    pub fn set_speed(&mut self, gpu: GpuId, speed: f64) -> Result<()> {
        self.gpu_mut(gpu)?.speed = Some(speed);
        Ok(())
    }

    /// Sets the memory (GiB) of an added GPU (overriding its model's).
    ///
    /// Errors: [`ClusterError::UnknownId`]; values are checked in [`build`](Self::build).
    pub fn set_mem_gib(&mut self, gpu: GpuId, mem_gib: f64) -> Result<()> {
        self.gpu_mut(gpu)?.mem_gib = Some(mem_gib);
        Ok(())
    }

    /// Sets the ready time (s) of an added GPU.
    ///
    /// Errors: [`ClusterError::UnknownId`]; values are checked in [`build`](Self::build).
    pub fn set_ready_time(&mut self, gpu: GpuId, ready_time: f64) -> Result<()> {
        self.gpu_mut(gpu)?.ready_time = ready_time;
        Ok(())
    }

    /// Sets the background utilisation of an added GPU.
    ///
    /// Errors: [`ClusterError::UnknownId`]; values are checked in [`build`](Self::build).
    pub fn set_background(&mut self, gpu: GpuId, background: f64) -> Result<()> {
        self.gpu_mut(gpu)?.background = background;
        Ok(())
    }

    fn gpu_mut(&mut self, gpu: GpuId) -> Result<&mut GpuData> {
        let len = self.data.gpus.len();
        self.data
            .gpus
            .get_mut(gpu.index())
            .ok_or(ClusterError::UnknownId {
                kind: "GPU",
                index: gpu.index(),
                len,
            })
    }

    /// Sets the network (checked in [`build`](Self::build)).
    pub fn network(&mut self, network: Network) -> &mut Self {
        self.data.network = network;
        self
    }

    /// Validates and builds the cluster.
    ///
    /// Errors: [`ClusterError::EmptyCluster`] without GPUs, [`ClusterError::InvalidValue`]
    /// naming the GPU or link, [`ClusterError::ShapeMismatch`] for network matrices.
    pub fn build(self) -> Result<Cluster> {
        Cluster::try_from(self.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_machines() -> Cluster {
        let mut b = ClusterBuilder::new("t");
        let m0 = b.add_machine("a");
        let m1 = b.add_machine("b");
        b.add_gpus(m0, &GpuModel::v100_32gb(), 2).unwrap();
        b.add_gpu(m1, &GpuModel::custom("X", 2.5, 24.0).unwrap())
            .unwrap();
        b.build().unwrap()
    }

    #[test]
    fn builder_groups_gpus_and_links() {
        let c = two_machines();
        assert_eq!(
            c.gpus_of(MachineId::new(0)),
            &[GpuId::new(0), GpuId::new(1)]
        );
        assert_eq!(c.gpus_of(MachineId::new(1)), &[GpuId::new(2)]);
        assert_eq!(c.model_of(GpuId::new(2)).name, "X");
        assert_eq!(c.link(GpuId::new(0), GpuId::new(0)), None);
        assert_eq!(c.link(GpuId::new(0), GpuId::new(1)), Some(Link::PCIE3_X16));
        assert_eq!(
            c.link(GpuId::new(1), GpuId::new(2)),
            Some(Link::ETHERNET_25G)
        );
    }

    #[test]
    fn empty_and_invalid_are_rejected() {
        let b = ClusterBuilder::new("e");
        assert!(matches!(b.build(), Err(ClusterError::EmptyCluster { .. })));
        let mut b = ClusterBuilder::new("x");
        let m = b.add_machine("a");
        let g = b.add_gpu(m, &GpuModel::t4()).unwrap();
        b.set_background(g, 1.0).unwrap();
        let err = b.build().unwrap_err().to_string();
        assert!(err.contains("g0") && err.contains("background"), "{err}");
        let mut b = ClusterBuilder::new("x");
        let m = b.add_machine("a");
        b.add_gpu(m, &GpuModel::t4()).unwrap();
        b.network(Network::uniform(
            Link {
                bandwidth: 0.0,
                latency: 0.0,
            },
            Link::ETHERNET_10G,
        ));
        assert!(matches!(
            b.build(),
            Err(ClusterError::InvalidValue {
                field: "bandwidth",
                ..
            })
        ));
        let mut b = ClusterBuilder::new("x");
        b.add_machine("a");
        assert!(b.add_gpu(MachineId::new(3), &GpuModel::t4()).is_err());
        let renamed = GpuModel::t4().with_relative_speed(2.0);
        b.add_gpu(MachineId::new(0), &GpuModel::t4()).unwrap();
        assert!(matches!(
            b.add_gpu(MachineId::new(0), &renamed),
            Err(ClusterError::DuplicateModel { .. })
        ));
    }

    #[test]
    fn native_formats_round_trip() {
        let mut c = two_machines();
        c.apply_load(&LoadState::paper_busy(), 3).unwrap();
        c.set_ready_time(GpuId::new(1), 12.5).unwrap();
        let t = c.to_toml_string().unwrap();
        assert_eq!(Cluster::from_toml_str(&t).unwrap(), c);
        let j = c.to_json_string();
        assert_eq!(Cluster::from_json_str(&j).unwrap(), c);
        let c2 = Cluster::try_from(ClusterData {
            network: Network::paper_bandwidth(2, 500.0, 1).unwrap(),
            ..ClusterData::from(c)
        })
        .unwrap();
        assert_eq!(
            Cluster::from_toml_str(&c2.to_toml_string().unwrap()).unwrap(),
            c2
        );
    }

    #[test]
    fn minimal_toml_uses_catalog_defaults() {
        let text = r#"
name = "mini"
machines = ["n0"]
[network]
kind = "uniform"
intra = { bandwidth = 12e9, latency = 1e-5 }
inter = { bandwidth = 3.125e9, latency = 5e-5 }
[[gpus]]
model = "V100M32"
machine = 0
[[gpus]]
model = "A100"
machine = 0
background = 0.5
"#;
        let c = Cluster::from_toml_str(text).unwrap();
        assert_eq!(c.n_gpus(), 2);
        assert_eq!(c.gpu(GpuId::new(0)).model, "V100-32GB");
        assert_eq!(c.gpu(GpuId::new(0)).mem_gib, 32.0);
        assert!((c.gpu(GpuId::new(1)).effective_speed() - 0.5 * 2.076_66).abs() < 1e-4);
        let bad = text.replace("background = 0.5", "background = \"x\"");
        let err = Cluster::from_toml_str(&bad).unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 14, .. }), "{err}");
        let bad = text.replace("machine = 0\nbackground", "machine = 4\nbackground");
        assert!(Cluster::from_toml_str(&bad).is_err());
        let bad = text.replace("\"A100\"", "\"Z9\"");
        let err = Cluster::from_toml_str(&bad).unwrap_err().to_string();
        assert!(err.contains("Z9"), "{err}");
    }

    #[test]
    fn load_states_are_seeded_and_in_range() {
        let mut a = two_machines();
        let mut b = two_machines();
        let state = LoadState::Busy {
            utilisation: (0.58, 0.85),
            ready_time: (0.0, 100.0),
        };
        a.apply_load(&state, 11).unwrap();
        b.apply_load(&state, 11).unwrap();
        assert_eq!(a, b);
        for g in a.gpus() {
            assert!((0.58..=0.85).contains(&g.background));
            assert!((0.0..=100.0).contains(&g.ready_time));
        }
        a.apply_load(&LoadState::Idle, 0).unwrap();
        assert!(
            a.gpus()
                .iter()
                .all(|g| g.background == 0.0 && g.ready_time == 0.0)
        );
        assert!(
            a.apply_load(
                &LoadState::Busy {
                    utilisation: (0.5, 1.0),
                    ready_time: (0.0, 0.0)
                },
                0
            )
            .is_err()
        );
    }
}
