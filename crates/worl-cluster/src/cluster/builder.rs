//! [`ClusterBuilder`]: incremental construction of a [`Cluster`].

use super::{
    Cluster, ClusterParts, GpuEntry, MAX_GPUS, MAX_GPUS_PER_MACHINE, validate_window, window_label,
};
use crate::catalog::GpuModel;
use crate::error::{ClusterError, Result};
use crate::ids::{GpuId, MachineId};
use crate::network::{Link, Network};

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
    data: ClusterParts,
    /// GPUs added per machine.
    per_machine: Vec<usize>,
    /// Busy windows per machine ([`add_machine_busy`](Self::add_machine_busy)), given to
    /// each of its GPUs in [`build`](Self::build).
    machine_busy: Vec<Vec<(f64, f64)>>,
}

impl ClusterBuilder {
    /// An empty builder; the network defaults to PCIe 3.0 x16 inside machines and 25 GbE
    /// between them.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            data: ClusterParts {
                name: name.into(),
                machines: Vec::new(),
                network: Network::uniform(Link::PCIE3_X16, Link::ETHERNET_25G),
                models: Vec::new(),
                gpus: Vec::new(),
            },
            per_machine: Vec::new(),
            machine_busy: Vec::new(),
        }
    }

    /// Adds a machine (server) and returns its id.
    pub fn add_machine(&mut self, name: impl Into<String>) -> MachineId {
        self.data.machines.push(name.into());
        self.per_machine.push(0);
        self.machine_busy.push(Vec::new());
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

    /// Checks that `machine` exists and can take `count` more GPUs.
    fn check_room(&self, machine: MachineId, count: usize) -> Result<()> {
        let Some(&have) = self.per_machine.get(machine.index()) else {
            return Err(ClusterError::UnknownId {
                kind: "machine",
                index: machine.index(),
                len: self.data.machines.len(),
            });
        };
        let on_machine = have.saturating_add(count);
        if on_machine > MAX_GPUS_PER_MACHINE {
            return Err(ClusterError::TooManyGpus {
                item: format!("machine `{}`", self.data.machines[machine.index()]),
                count: on_machine,
                limit: MAX_GPUS_PER_MACHINE,
            });
        }
        let total = self.data.gpus.len().saturating_add(count);
        if total > MAX_GPUS {
            return Err(ClusterError::TooManyGpus {
                item: format!("cluster `{}`", self.data.name),
                count: total,
                limit: MAX_GPUS,
            });
        }
        Ok(())
    }

    /// Adds an idle GPU of `model` (its speed and memory) to `machine`.
    ///
    /// Errors: [`ClusterError::UnknownId`] for a missing machine,
    /// [`ClusterError::TooManyGpus`] beyond [`MAX_GPUS_PER_MACHINE`] on the machine or
    /// [`MAX_GPUS`] in all, [`ClusterError::DuplicateModel`] if another model of the same
    /// name was added, [`ClusterError::InvalidValue`] for a bad model.
    pub fn add_gpu(&mut self, machine: MachineId, model: &GpuModel) -> Result<GpuId> {
        self.check_room(machine, 1)?;
        self.register(model)?;
        self.per_machine[machine.index()] += 1;
        self.data.gpus.push(GpuEntry {
            model: model.name.clone(),
            machine,
            speed: Some(model.relative_speed),
            mem_gib: Some(model.mem_gib),
            ready_time: 0.0,
            background: 0.0,
            busy: Vec::new(),
        });
        Ok(GpuId::new(self.data.gpus.len() - 1))
    }

    /// Adds `count` idle GPUs of `model` to `machine`; returns the first id (ids are
    /// consecutive). Errors: as [`add_gpu`](Self::add_gpu), checked before any GPU is
    /// added (a count beyond the limits adds none and allocates nothing).
    pub fn add_gpus(
        &mut self,
        machine: MachineId,
        model: &GpuModel,
        count: usize,
    ) -> Result<GpuId> {
        self.check_room(machine, count)?;
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

    /// Adds the busy window `[from, to)` (s, half-open) to an added GPU: no task may run on
    /// it then (see [`Gpu::busy`](crate::Gpu::busy)).
    ///
    /// Errors: [`ClusterError::UnknownId`]; [`ClusterError::InvalidWindow`] naming the GPU
    /// as `machine/gN` for an empty or inverted window, a bound that is negative, not finite
    /// or past [`MAX_HORIZON`](crate::MAX_HORIZON), or a window overlapping one the GPU has
    /// (touching is allowed). Overlaps with windows added by
    /// [`add_machine_busy`](Self::add_machine_busy) are reported by [`build`](Self::build).
    pub fn add_busy(&mut self, gpu: GpuId, from: f64, to: f64) -> Result<()> {
        let machine = self.gpu_mut(gpu)?.machine;
        let label = window_label(&self.data.machines, machine, gpu);
        validate_window(&label, (from, to))?;
        let entry = self.gpu_mut(gpu)?;
        let mut windows = entry.busy.clone();
        windows.push((from, to));
        super::validate_windows(&label, &mut windows)?;
        entry.busy = windows;
        Ok(())
    }

    /// Adds the busy window `[from, to)` (s, half-open) to every GPU of `machine`, those
    /// added before and after this call (a maintenance window of the whole server).
    ///
    /// Errors: [`ClusterError::UnknownId`] for a missing machine;
    /// [`ClusterError::InvalidWindow`] for an empty or inverted window or a bad bound (as
    /// [`add_busy`](Self::add_busy), naming the machine as `machine/*`); overlaps with a GPU's other windows are reported by
    /// [`build`](Self::build), naming the GPU.
    pub fn add_machine_busy(&mut self, machine: MachineId, from: f64, to: f64) -> Result<()> {
        let Some(name) = self.data.machines.get(machine.index()) else {
            return Err(ClusterError::UnknownId {
                kind: "machine",
                index: machine.index(),
                len: self.data.machines.len(),
            });
        };
        validate_window(&format!("{name}/*"), (from, to))?;
        self.machine_busy[machine.index()].push((from, to));
        Ok(())
    }

    fn gpu_mut(&mut self, gpu: GpuId) -> Result<&mut GpuEntry> {
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
    /// naming the GPU or link, [`ClusterError::ShapeMismatch`] for network matrices,
    /// [`ClusterError::InvalidWindow`] naming the GPU for overlapping busy windows.
    pub fn build(self) -> Result<Cluster> {
        let mut data = self.data;
        if self.machine_busy.iter().any(|w| !w.is_empty()) {
            for g in &mut data.gpus {
                if let Some(w) = self.machine_busy.get(g.machine.index()) {
                    g.busy.extend_from_slice(w);
                }
            }
        }
        Cluster::from_parts(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::tests::two_machines;

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
}
