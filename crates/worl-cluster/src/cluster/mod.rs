//! [`Cluster`]: machines holding GPUs, and the network between them; [`ClusterBuilder`]; GPU
//! load states ([`LoadState`]). The native TOML/JSON file format is
//! [`formats::native`](crate::formats::native).

mod builder;

pub use builder::ClusterBuilder;

use crate::catalog::GpuModel;
use crate::error::{ClusterError, Result, non_negative, num, positive};
use crate::ids::{GpuId, MachineId};
use crate::network::{Link, Network};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most GPUs one machine may hold: 64. Real servers hold 1 to 16 (the Alibaba traces at
/// most 8, a DGX 8 or 16); a larger count is a unit or data error (a GPU memory size in the
/// GPU-count column, say) and is rejected before anything is allocated for it.
pub const MAX_GPUS_PER_MACHINE: usize = 64;

/// The most GPUs a cluster may hold: 65,536 (ten times the largest Alibaba trace, about
/// 6,500 GPUs). Building a [`Problem`](crate::Problem) costs `O(m²)` over GPU pairs in the
/// worst case (one GPU per machine, a per-pair network), which stays in seconds at this size.
pub const MAX_GPUS: usize = 1 << 16;

/// The longest GPU model name and machine-name prefix of a compact cluster description, in
/// bytes: 256. Each GPU keeps its model's name and each machine its name, so a longer one,
/// repeated over up to [`MAX_GPUS`] GPUs, could take gigabytes from a small file; it is
/// refused before anything is built.
pub const MAX_NAME_LEN: usize = 256;

/// The most machines a per-machine-pair network
/// ([`Network::PerMachinePair`]) built by a preset may
/// have: 4,096. Its two `n × n` matrices take `16 n²` bytes (268 MB here, 68 GB at
/// [`MAX_GPUS`] machines), so presets that would build a larger one
/// ([`pai_mix`](crate::presets::pai_mix), [`paper_pool`](crate::presets::paper_pool), a
/// [`ClusterSpec`](crate::ClusterSpec) with per-machine intra links, a saga
/// instance's network) refuse a larger one before allocating it.
pub const MAX_PAIR_MACHINES: usize = 1 << 12;

/// The latest time a busy window ([`Gpu::busy`]) may reach: `1e9` s (about 32 years). A
/// bound past it is a unit error (milliseconds or a Unix timestamp given as seconds from
/// the schedule's start) and is refused with [`ClusterError::InvalidWindow`]; keeping every
/// window below it also keeps the times the decoders compute far from `f64` overflow.
pub const MAX_HORIZON: f64 = 1e9;

/// One GPU of a cluster.
///
/// Its execution speed is the *effective speed* `speed · (1 − background)` (`docs/model.md`,
/// "Costs"); it cannot start work before `ready_time`, nor run any during its busy
/// windows `busy`.
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
    /// Availability windows: half-open busy intervals `[from, to)`, s, in which no task may
    /// run (maintenance, a reservation, another tenant's job). Sorted by `from`,
    /// non-overlapping (touching intervals such as `[2, 3)`, `[3, 4)` are kept as given),
    /// each `0 <= from < to <=` [`MAX_HORIZON`]. A task on the GPU occupies `[S, S + d)`,
    /// which must not intersect any window; a zero-duration task may sit at a window's
    /// edge (`S == from` or `S == to`) but not inside it. Empty by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub busy: Vec<(f64, f64)>,
}

impl Gpu {
    /// Effective speed `s_k (1 − u_k)`.
    #[inline]
    pub fn effective_speed(&self) -> f64 {
        self.speed * (1.0 - self.background)
    }
}

/// One GPU before validation, as the builder and the native format hand it to
/// [`Cluster::from_parts`]: speed and memory default to the model's, ready time and
/// background to 0. Its serde form is a GPU of the native file format
/// ([`formats::native`](crate::formats::native)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct GpuEntry {
    pub(crate) model: String,
    pub(crate) machine: MachineId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) speed: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mem_gib: Option<f64>,
    #[serde(default)]
    pub(crate) ready_time: f64,
    #[serde(default)]
    pub(crate) background: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) busy: Vec<(f64, f64)>,
}

/// A cluster before validation: what [`Cluster::from_parts`] checks and
/// [`Cluster::into_parts`] returns. Its serde form is the native file format
/// ([`formats::native`](crate::formats::native)); models named by GPUs but absent from
/// `models` are taken from the catalog ([`GpuModel::by_name`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterParts {
    pub(crate) name: String,
    pub(crate) machines: Vec<String>,
    pub(crate) network: Network,
    #[serde(default)]
    pub(crate) models: Vec<GpuModel>,
    pub(crate) gpus: Vec<GpuEntry>,
}

/// A GPU cluster: machines with GPUs and the network between them.
///
/// Always valid: built by [`ClusterBuilder`], a preset, a trace reader or the native format,
/// all of which check that there is at least one GPU and at most [`MAX_GPUS`], at most
/// [`MAX_GPUS_PER_MACHINE`] per machine, every speed and memory is finite, `> 0` and not
/// subnormal (`>= f64::MIN_POSITIVE`, so that reciprocals are finite), every effective speed
/// `speed · (1 − background)` likewise, every ready time finite and `>= 0`, every background
/// utilisation in `[0, 1)`, and every link has a finite, not subnormal bandwidth `> 0` and a
/// finite latency `>= 0`. (Values that are each valid but whose quotients overflow, such
/// as work `1e308` on a GPU of speed `1e-3`, are rejected when a
/// [`Problem`](crate::Problem) is built.)
///
/// Serialises to (and deserialises from, with the same checks) the native TOML/JSON format
/// of [`formats::native`](crate::formats::native).
#[derive(Clone, Debug, PartialEq)]
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
    /// Whether some GPU has a busy window.
    has_windows: bool,
}

impl Cluster {
    /// Validates `parts` and builds the cluster (models named by GPUs but absent from
    /// `parts.models` are taken from the catalog, [`GpuModel::by_name`]).
    pub(crate) fn from_parts(parts: ClusterParts) -> Result<Self> {
        let ClusterParts {
            name,
            machines,
            network,
            mut models,
            gpus: gpu_data,
        } = parts;
        if gpu_data.is_empty() {
            return Err(ClusterError::EmptyCluster { cluster: name });
        }
        if gpu_data.len() > MAX_GPUS {
            return Err(ClusterError::TooManyGpus {
                item: format!("cluster `{name}`"),
                count: gpu_data.len(),
                limit: MAX_GPUS,
            });
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
            let mut busy = g.busy;
            validate_windows(&window_label(&machines, g.machine, id), &mut busy)?;
            let gpu = Gpu {
                model: model.name.clone(),
                machine: g.machine,
                speed: g.speed.unwrap_or(model.relative_speed),
                mem_gib: g.mem_gib.unwrap_or(model.mem_gib),
                ready_time: g.ready_time,
                background: g.background,
                busy,
            };
            validate_gpu(id, &gpu)?;
            let on_machine = &mut machine_gpus[g.machine.index()];
            if on_machine.len() == MAX_GPUS_PER_MACHINE {
                return Err(ClusterError::TooManyGpus {
                    item: format!("machine `{}`", machines[g.machine.index()]),
                    count: MAX_GPUS_PER_MACHINE + 1,
                    limit: MAX_GPUS_PER_MACHINE,
                });
            }
            on_machine.push(id);
            gpus.push(gpu);
            gpu_model.push(mi as u32);
        }
        let has_windows = gpus.iter().any(|g| !g.busy.is_empty());
        Ok(Self {
            name,
            machines,
            network,
            models,
            gpus,
            gpu_model,
            machine_gpus,
            has_windows,
        })
    }

    /// The cluster's parts, every GPU with its speed and memory given explicitly.
    pub(crate) fn into_parts(self) -> ClusterParts {
        let c = self;
        let gpus = c
            .gpus
            .into_iter()
            .map(|g| GpuEntry {
                model: g.model,
                machine: g.machine,
                speed: Some(g.speed),
                mem_gib: Some(g.mem_gib),
                ready_time: g.ready_time,
                background: g.background,
                busy: g.busy,
            })
            .collect();
        ClusterParts {
            name: c.name,
            machines: c.machines,
            network: c.network,
            models: c.models,
            gpus,
        }
    }
}

/// A GPU as windows errors name it: `machine/gN` (`node-1/g3`).
fn window_label(machines: &[String], machine: MachineId, id: GpuId) -> String {
    match machines.get(machine.index()) {
        Some(name) => format!("{name}/{id}"),
        None => id.to_string(),
    }
}

/// Checks one busy window `[from, to)` of the GPU `label`: both bounds finite, `>= 0` and
/// `<=` [`MAX_HORIZON`], `from < to`.
pub(crate) fn validate_window(label: &str, (from, to): (f64, f64)) -> Result<()> {
    let err = |reason: String| ClusterError::InvalidWindow {
        gpu: label.to_owned(),
        reason,
    };
    for (name, x) in [("start", from), ("end", to)] {
        if !x.is_finite() || x < 0.0 {
            return Err(err(format!(
                "window [{}, {}) has {name} {}, not a finite time >= 0",
                num(from),
                num(to),
                num(x)
            )));
        }
        if x > MAX_HORIZON {
            return Err(err(format!(
                "window [{}, {}) has {name} {} s past the horizon of {} s",
                num(from),
                num(to),
                num(x),
                num(MAX_HORIZON)
            )));
        }
    }
    if from >= to {
        return Err(err(format!(
            "window [{}, {}) is {} (start must be before end)",
            num(from),
            num(to),
            if from == to { "empty" } else { "inverted" }
        )));
    }
    Ok(())
}

/// Checks the busy windows of the GPU `label` ([`validate_window`] each) and sorts them by
/// start; two windows that overlap (`[2, 4)` and `[3, 5)`) are refused, touching ones
/// (`[2, 3)`, `[3, 4)`) are kept as given.
pub(crate) fn validate_windows(label: &str, windows: &mut [(f64, f64)]) -> Result<()> {
    for &w in windows.iter() {
        validate_window(label, w)?;
    }
    windows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    for pair in windows.windows(2) {
        let ((a0, a1), (b0, b1)) = (pair[0], pair[1]);
        if b0 < a1 {
            return Err(ClusterError::InvalidWindow {
                gpu: label.to_owned(),
                reason: format!(
                    "windows [{}, {}) and [{}, {}) overlap",
                    num(a0),
                    num(a1),
                    num(b0),
                    num(b1)
                ),
            });
        }
    }
    Ok(())
}

fn validate_gpu(id: GpuId, g: &Gpu) -> Result<()> {
    let item = || id.to_string();
    positive(item, "speed", g.speed)?;
    positive(item, "mem_gib", g.mem_gib)?;
    non_negative(item, "ready_time", g.ready_time)?;
    validate_background(id, g.background)?;
    validate_effective_speed(id, g.speed, g.background)
}

/// The effective speed `speed · (1 − background)` must stay normal (a speed of 1e-300 at
/// 99.99 % background would make it subnormal and its reciprocal infinite).
fn validate_effective_speed(id: GpuId, speed: f64, background: f64) -> Result<()> {
    positive(
        || id.to_string(),
        "effective speed",
        speed * (1.0 - background),
    )
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

/// Background load of the GPUs: the "idle" and "busy" GPU states of the WORL-RTGS experiments
/// (Du et al., BDCC 9(11):284, 2025).
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
    /// The WORL-RTGS busy state as we reconstruct it (Du et al., BDCC 9(11):284, 2025):
    /// background utilisation uniform in 58–85 %, the range of `cpu_util_percent` in the
    /// authors' `GPU.csv` (50 machines of the Alibaba cluster-trace-v2018 `machine_usage`
    /// table); ready times 0.
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
        validate_effective_speed(id, self.gpus[id.index()].speed, background)?;
        self.gpus[id.index()].background = background;
        Ok(())
    }

    /// Replaces the busy windows of GPU `id` with `windows` (half-open `[from, to)`, s; any
    /// order: they are kept sorted by start). An empty vector clears them.
    ///
    /// Errors: [`ClusterError::UnknownId`]; [`ClusterError::InvalidWindow`] naming the GPU
    /// as `machine/gN` for an empty or inverted window (`from >= to`), a bound that is
    /// negative, not finite or past [`MAX_HORIZON`], or two overlapping windows (the GPU is
    /// then left unchanged).
    pub fn set_busy(&mut self, id: GpuId, mut windows: Vec<(f64, f64)>) -> Result<()> {
        self.check_gpu(id)?;
        let label = window_label(&self.machines, self.gpus[id.index()].machine, id);
        validate_windows(&label, &mut windows)?;
        self.gpus[id.index()].busy = windows;
        self.has_windows = self.gpus.iter().any(|g| !g.busy.is_empty());
        Ok(())
    }

    /// The busy windows of GPU `id`: half-open `[from, to)` intervals, s, sorted by start,
    /// non-overlapping (see [`Gpu::busy`]).
    ///
    /// # Panics
    /// If `id` is not a GPU of this cluster.
    #[inline]
    pub fn busy(&self, id: GpuId) -> &[(f64, f64)] {
        &self.gpus[id.index()].busy
    }

    /// Whether some GPU has a busy window (`O(1)`).
    #[inline]
    pub fn has_windows(&self) -> bool {
        self.has_windows
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
    /// range is not inside `[0, 1)` or the ready-time range not finite and `>= 0`;
    /// [`ClusterError::InvalidValue`] if a drawn utilisation makes a GPU's effective speed
    /// subnormal (the cluster is then left unchanged).
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
                let drawn: Vec<(f64, f64)> = self
                    .gpus
                    .iter()
                    .map(|_| (rng.random_range(ulo..=uhi), rng.random_range(rlo..=rhi)))
                    .collect();
                for (k, (g, &(u, _))) in self.gpus.iter().zip(&drawn).enumerate() {
                    validate_effective_speed(GpuId::new(k), g.speed, u)?;
                }
                for (g, (u, r)) in self.gpus.iter_mut().zip(drawn) {
                    g.background = u;
                    g.ready_time = r;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two machines: two V100-32GB on `a`, a custom model `X` (speed 2.5, 24 GiB) on `b`.
    pub(crate) fn two_machines() -> Cluster {
        let mut b = ClusterBuilder::new("t");
        let m0 = b.add_machine("a");
        let m1 = b.add_machine("b");
        b.add_gpus(m0, &GpuModel::v100_32gb(), 2).unwrap();
        b.add_gpu(m1, &GpuModel::custom("X", 2.5, 24.0).unwrap())
            .unwrap();
        b.build().unwrap()
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

    /// The message of a window error, for assertions.
    fn window_err(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(e @ ClusterError::InvalidWindow { .. }) => e.to_string(),
            other => panic!("expected InvalidWindow, got {other:?}"),
        }
    }

    #[test]
    fn busy_windows_are_sorted_and_checked_naming_the_gpu() {
        let mut b = ClusterBuilder::new("w");
        let m0 = b.add_machine("node-0");
        let m1 = b.add_machine("node-1");
        let g0 = b.add_gpu(m0, &GpuModel::t4()).unwrap();
        b.add_busy(g0, 7200.0, 14400.0).unwrap();
        b.add_busy(g0, 10.0, 20.0).unwrap();
        // touching windows are allowed and kept as given
        b.add_busy(g0, 20.0, 30.0).unwrap();
        b.add_machine_busy(m1, 100.0, 200.0).unwrap();
        let g1 = b.add_gpus(m1, &GpuModel::t4(), 2).unwrap();
        let c = b.build().unwrap();
        assert!(c.has_windows());
        assert_eq!(c.busy(g0), &[(10.0, 20.0), (20.0, 30.0), (7200.0, 14400.0)]);
        // the machine window reaches GPUs added after it
        assert_eq!(c.busy(g1), &[(100.0, 200.0)]);
        assert_eq!(c.busy(GpuId::new(2)), &[(100.0, 200.0)]);
        // the native format carries the windows (and validates them on the way back)
        let back = Cluster::from_json_str(&c.to_json_string()).unwrap();
        assert_eq!(back, c);
        assert!(!two_machines().has_windows());
        assert!(!two_machines().to_json_string().contains("busy"));

        // bad windows, one message each naming the GPU as machine/gN
        let mut b = ClusterBuilder::new("w");
        let m = b.add_machine("node-0");
        let g = b.add_gpu(m, &GpuModel::t4()).unwrap();
        let e = window_err(b.add_busy(g, 4.0, 2.0));
        assert_eq!(
            e,
            "busy window of GPU `node-0/g0`: window [4, 2) is inverted (start must be before end)"
        );
        assert!(window_err(b.add_busy(g, 3.0, 3.0)).contains("[3, 3) is empty"));
        assert!(window_err(b.add_busy(g, -1.0, 3.0)).contains("start -1, not a finite time >= 0"));
        assert!(window_err(b.add_busy(g, 0.0, f64::NAN)).contains("not a finite time"));
        assert!(window_err(b.add_busy(g, 0.0, 2e9)).contains("end 2000000000 s past the horizon"));
        b.add_busy(g, 2.0, 4.0).unwrap();
        assert_eq!(
            window_err(b.add_busy(g, 3.0, 5.0)),
            "busy window of GPU `node-0/g0`: windows [2, 4) and [3, 5) overlap"
        );
        assert!(window_err(b.add_machine_busy(m, 5.0, 1.0)).contains("`node-0/*`"));
        // a machine window overlapping a GPU's own: reported by build, naming the GPU
        b.add_machine_busy(m, 3.5, 6.0).unwrap();
        assert!(window_err(b.build()).contains("`node-0/g0`: windows [2, 4) and [3.5, 6)"));
        assert!(matches!(
            ClusterBuilder::new("x").add_machine_busy(MachineId::new(0), 0.0, 1.0),
            Err(ClusterError::UnknownId { .. })
        ));

        // set_busy: sorts, checks, leaves the GPU unchanged on error, clears with empty
        let mut c = two_machines();
        c.set_busy(GpuId::new(2), vec![(5.0, 6.0), (1.0, 2.0)])
            .unwrap();
        assert_eq!(c.busy(GpuId::new(2)), &[(1.0, 2.0), (5.0, 6.0)]);
        assert!(c.has_windows());
        let e = window_err(c.set_busy(GpuId::new(2), vec![(0.0, 3.0), (2.0, 4.0)]));
        assert!(e.contains("`b/g2`"), "{e}");
        assert_eq!(c.busy(GpuId::new(2)), &[(1.0, 2.0), (5.0, 6.0)]);
        assert!(c.set_busy(GpuId::new(9), vec![]).is_err());
        c.set_busy(GpuId::new(2), vec![]).unwrap();
        assert!(!c.has_windows());
        // the native format's serde path validates windows too
        let mut c = two_machines();
        c.set_busy(GpuId::new(0), vec![(1.0, 2.0)]).unwrap();
        let bad = c.to_json_string().replace("2.0", "0.5");
        let e = Cluster::from_json_str(&bad).unwrap_err().to_string();
        assert!(e.contains("a/g0") && e.contains("inverted"), "{e}");
    }
}
