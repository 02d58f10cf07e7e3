//! The compact cluster model: [`ClusterSpec`], `machines` machines of `gpus_per_machine`
//! GPUs of one model with per-machine [`MachineOverride`]s, the form the compact cluster
//! file ([`compact`](super), `docs/cluster-file.md`) reads into and
//! [`ClusterSpec::build`] makes a [`Cluster`] of.

use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterBuilder};
use crate::error::{ClusterError, Result};
use crate::network::{Link, Network};
use crate::presets::{intra_link_for, need_pair_machines};

/// A value per GPU of a machine: one for all its GPUs, or one each (in GPU order).
#[derive(Clone, Debug, PartialEq)]
pub enum PerGpu {
    /// The same value for every GPU of the machine.
    All(f64),
    /// One value per GPU; the length must equal the machine's GPU count.
    Each(Vec<f64>),
}

impl PerGpu {
    /// The value of the machine's GPU `slot` (0-based; [`PerGpu::Each`] must be long enough).
    fn at(&self, slot: usize) -> f64 {
        match self {
            Self::All(x) => *x,
            Self::Each(v) => v[slot],
        }
    }
}

/// Changes to one or more machines of a [`ClusterSpec`]: every field left `None` keeps the
/// spec's value. A `[[machine]]` table of the compact cluster file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MachineOverride {
    /// The machines changed (0-based indices `< ClusterSpec::machines`, at least one; no
    /// machine in two overrides).
    pub index: Vec<usize>,
    /// Machine name (only with a single index); default `<machine_prefix><index>`.
    pub name: Option<String>,
    /// GPU model of the machine.
    pub model: Option<GpuModel>,
    /// Number of GPUs of the machine (may be 0).
    pub gpus: Option<usize>,
    /// Link between two GPUs of the machine.
    pub intra: Option<Link>,
    /// Background utilisation of its GPUs, each in `[0, 1)`.
    pub background: Option<PerGpu>,
    /// Ready time of its GPUs, s, each finite `>= 0`.
    pub ready_time: Option<PerGpu>,
    /// Busy windows of every GPU of the machines, half-open `[from, to)` in s (see
    /// [`Gpu::busy`](crate::Gpu::busy)); replaces [`ClusterSpec::busy`] there (`Some(vec![])`:
    /// no windows on these machines).
    pub busy: Option<Vec<(f64, f64)>>,
}

impl MachineOverride {
    /// An override of machine `index` that changes nothing yet.
    pub fn new(index: usize) -> Self {
        Self::for_machines(vec![index])
    }

    /// An override of the machines `indices` that changes nothing yet.
    pub fn for_machines(indices: Vec<usize>) -> Self {
        Self {
            index: indices,
            ..Self::default()
        }
    }

    /// Sets the machine name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the GPU model.
    pub fn with_model(mut self, model: &GpuModel) -> Self {
        self.model = Some(model.clone());
        self
    }

    /// Sets the number of GPUs.
    pub fn with_gpus(mut self, gpus: usize) -> Self {
        self.gpus = Some(gpus);
        self
    }

    /// Sets the intra-machine link.
    pub fn with_intra(mut self, intra: Link) -> Self {
        self.intra = Some(intra);
        self
    }

    /// Sets the background utilisation of the GPUs (in `[0, 1)`).
    pub fn with_background(mut self, background: PerGpu) -> Self {
        self.background = Some(background);
        self
    }

    /// Sets the ready time of the GPUs, s.
    pub fn with_ready_time(mut self, ready_time: PerGpu) -> Self {
        self.ready_time = Some(ready_time);
        self
    }

    /// Sets the busy windows of every GPU of the machines (half-open `[from, to)`, s),
    /// replacing the spec's [`busy`](ClusterSpec::busy) there.
    pub fn with_busy(mut self, windows: Vec<(f64, f64)>) -> Self {
        self.busy = Some(windows);
        self
    }

    /// The override as named in messages: `[[machine]] index = 2` or `index = [2, 3]`.
    pub(crate) fn label(&self) -> String {
        match self.index.as_slice() {
            [i] => format!("[[machine]] index = {i}"),
            many => format!("[[machine]] index = {many:?}"),
        }
    }
}

/// A cluster of `machines` machines with `gpus_per_machine` GPUs of one `model` each, one
/// intra-machine link and one inter-machine link, with optional per-machine
/// [overrides](MachineOverride): what the compact cluster file (`docs/cluster-file.md`)
/// holds; build it with [`ClusterSpec::build`].
///
/// Machine `i` is named `<machine_prefix><i>` (`node-3`); its GPUs get consecutive ids, machine by machine. Its
/// intra-machine link is the override's, else [`intra`](Self::intra), else
/// [`intra_link_for`] its model. The network is [`Network::Uniform`] when every machine has
/// the same intra link, [`Network::PerMachinePair`] otherwise.
///
/// ```
/// use worl_cluster::{ClusterSpec, GpuModel, GpuId, Link, MachineOverride};
/// let spec = ClusterSpec::new(4, 8, &GpuModel::a100_80gb())
///     .with_inter(Link::ETHERNET_100G)
///     .with_machine(MachineOverride::new(3).with_gpus(4));
/// let c = spec.build()?;
/// assert_eq!((c.n_gpus(), c.n_machines()), (28, 4));
/// assert_eq!(c.link(GpuId::new(0), GpuId::new(1)), Some(Link::NVLINK3));
/// assert_eq!(c.link(GpuId::new(0), GpuId::new(8)), Some(Link::ETHERNET_100G));
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterSpec {
    /// Cluster name; default `<machines>x<gpus_per_machine>-<model>` (e.g. `4x8-A100-80GB`).
    pub name: Option<String>,
    /// Number of machines, `1 ..= MAX_GPUS`.
    pub machines: usize,
    /// Machine `i` is named `<machine_prefix><i>` unless an override names it; `node-` by
    /// default.
    pub machine_prefix: String,
    /// GPUs per machine, `0 ..= MAX_GPUS_PER_MACHINE`.
    pub gpus_per_machine: usize,
    /// GPU model of every machine.
    pub model: GpuModel,
    /// Link between two GPUs of one machine; `None`: [`intra_link_for`] the machine's model.
    pub intra: Option<Link>,
    /// Link between GPUs of different machines; [`Link::ETHERNET_25G`] by default.
    pub inter: Link,
    /// Background utilisation of every GPU, in `[0, 1)`; 0 by default.
    pub background: f64,
    /// Ready time of every GPU, s, finite `>= 0`; 0 by default.
    pub ready_time: f64,
    /// Busy windows of every GPU (overrides aside): half-open `[from, to)` in s, each
    /// `0 <= from < to <=` [`MAX_HORIZON`](crate::MAX_HORIZON), not overlapping (see
    /// [`Gpu::busy`](crate::Gpu::busy)); none by default.
    pub busy: Vec<(f64, f64)>,
    /// Per-machine changes, in file order.
    pub overrides: Vec<MachineOverride>,
}

/// Where in a [`ClusterSpec`] a build error lies: a top-level key or an override (by
/// position in [`ClusterSpec::overrides`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum SpecItem {
    /// A top-level key.
    Key(&'static str),
    /// The override at this position.
    Override(usize),
}

impl ClusterSpec {
    /// `machines` machines of `gpus_per_machine` idle GPUs of `model`, the model's
    /// intra-machine link ([`intra_link_for`]) and 25 GbE between machines.
    pub fn new(machines: usize, gpus_per_machine: usize, model: &GpuModel) -> Self {
        Self {
            name: None,
            machines,
            machine_prefix: "node-".to_owned(),
            gpus_per_machine,
            model: model.clone(),
            intra: None,
            inter: Link::ETHERNET_25G,
            background: 0.0,
            ready_time: 0.0,
            busy: Vec::new(),
            overrides: Vec::new(),
        }
    }

    /// Sets the cluster name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the prefix of the machine names (`<prefix><index>`).
    pub fn with_machine_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.machine_prefix = prefix.into();
        self
    }

    /// Sets the intra-machine link of every machine (overrides aside).
    pub fn with_intra(mut self, intra: Link) -> Self {
        self.intra = Some(intra);
        self
    }

    /// Sets the inter-machine link.
    pub fn with_inter(mut self, inter: Link) -> Self {
        self.inter = inter;
        self
    }

    /// Sets the background utilisation of every GPU (overrides aside), in `[0, 1)`.
    pub fn with_background(mut self, background: f64) -> Self {
        self.background = background;
        self
    }

    /// Sets the ready time of every GPU (overrides aside), s.
    pub fn with_ready_time(mut self, ready_time: f64) -> Self {
        self.ready_time = ready_time;
        self
    }

    /// Sets the busy windows of every GPU (overrides aside): half-open `[from, to)`, s.
    pub fn with_busy(mut self, windows: Vec<(f64, f64)>) -> Self {
        self.busy = windows;
        self
    }

    /// Adds a machine override.
    pub fn with_machine(mut self, over: MachineOverride) -> Self {
        self.overrides.push(over);
        self
    }

    /// The cluster name: [`name`](Self::name) or `<machines>x<gpus_per_machine>-<model>`.
    pub fn cluster_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            format!(
                "{}x{}-{}",
                self.machines, self.gpus_per_machine, self.model.name
            )
        })
    }

    /// Builds the cluster.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] for `machines` outside `1 ..= MAX_GPUS`, a
    /// `machine_prefix` longer than [`MAX_NAME_LEN`](crate::MAX_NAME_LEN) bytes,
    /// an override without index, with an index out of range or already overridden, a name
    /// given to several machines, or a per-GPU list whose length is not the machine's GPU
    /// count, or for per-machine intra links (a per-machine-pair network) on more than
    /// [`MAX_PAIR_MACHINES`](crate::MAX_PAIR_MACHINES) machines;
    /// [`ClusterError::TooManyGpus`] beyond the machine or cluster limits;
    /// [`ClusterError::InvalidValue`] for a bad model, link, background or ready time, naming
    /// the key or the machine and GPU; [`ClusterError::DuplicateModel`] for two different
    /// models of one name; [`ClusterError::InvalidWindow`] naming the GPU as `machine/gN`
    /// for an inverted, empty, negative, non-finite or past-horizon busy window, or two
    /// overlapping ones.
    pub fn build(&self) -> Result<Cluster> {
        self.build_located().map_err(|(_, e)| e)
    }

    /// [`build`](Self::build), with where an error lies.
    pub(crate) fn build_located(&self) -> Result<Cluster, (SpecItem, ClusterError)> {
        use crate::cluster::{MAX_GPUS, MAX_GPUS_PER_MACHINE};
        use crate::error::{non_negative, positive};
        use SpecItem::{Key, Override};
        let param =
            |name: &'static str, reason: String| ClusterError::InvalidParameter { name, reason };
        if self.machines == 0 || self.machines > MAX_GPUS {
            let reason = format!("{} is not in 1..={MAX_GPUS}", self.machines);
            return Err((Key("machines"), param("machines", reason)));
        }
        if self.gpus_per_machine > MAX_GPUS_PER_MACHINE {
            let e = ClusterError::TooManyGpus {
                item: "gpus_per_machine".to_owned(),
                count: self.gpus_per_machine,
                limit: MAX_GPUS_PER_MACHINE,
            };
            return Err((Key("gpus_per_machine"), e));
        }
        if self.machine_prefix.len() > crate::cluster::MAX_NAME_LEN {
            let reason = format!(
                "{} bytes, more than {} (each machine's name repeats it)",
                self.machine_prefix.len(),
                crate::cluster::MAX_NAME_LEN
            );
            return Err((Key("machine_prefix"), param("machine_prefix", reason)));
        }
        self.model.validate().map_err(|e| (Key("model"), e))?;
        let check_link = |l: &Link, item: &str| {
            positive(|| item.to_owned(), "bandwidth", l.bandwidth)?;
            non_negative(|| item.to_owned(), "latency", l.latency)
        };
        if let Some(l) = &self.intra {
            check_link(l, "intra").map_err(|e| (Key("intra"), e))?;
        }
        check_link(&self.inter, "inter").map_err(|e| (Key("inter"), e))?;
        let top = || "cluster (top level)".to_owned();
        check_background(&top(), self.background).map_err(|e| (Key("background"), e))?;
        non_negative(top, "ready_time", self.ready_time).map_err(|e| (Key("ready_time"), e))?;
        // Which override (by position) applies to each machine.
        let mut by_machine: Vec<Option<usize>> = vec![None; self.machines];
        for (j, o) in self.overrides.iter().enumerate() {
            let err = |reason: String| (Override(j), param("machine.index", reason));
            if o.index.is_empty() {
                return Err(err(
                    "a [[machine]] override names no machine (index = [])".to_owned()
                ));
            }
            if o.name.is_some() && o.index.len() > 1 {
                let reason = format!("{}: a name can be given to one machine only", o.label());
                return Err((Override(j), param("machine.name", reason)));
            }
            for &i in &o.index {
                match by_machine.get(i) {
                    None => {
                        return Err(err(format!(
                            "{}: machine {i} does not exist (the cluster has {} machines, 0..={})",
                            o.label(),
                            self.machines,
                            self.machines - 1
                        )));
                    }
                    Some(Some(k)) => {
                        return Err(err(format!(
                            "{}: machine {i} is already overridden by `{}`",
                            o.label(),
                            self.overrides[*k].label()
                        )));
                    }
                    Some(None) => by_machine[i] = Some(j),
                }
            }
            if let Some(m) = &o.model {
                m.validate().map_err(|e| (Override(j), e))?;
            }
            if let Some(l) = &o.intra {
                check_link(l, &format!("{} intra", o.label())).map_err(|e| (Override(j), e))?;
            }
        }
        let mut b = ClusterBuilder::new(self.cluster_name());
        let mut intra = Vec::with_capacity(self.machines);
        for (i, &over) in by_machine.iter().enumerate() {
            let o = over.map(|j| &self.overrides[j]);
            let at = over.map_or(Key("gpus_per_machine"), Override);
            let model = o.and_then(|o| o.model.as_ref()).unwrap_or(&self.model);
            let count = o.and_then(|o| o.gpus).unwrap_or(self.gpus_per_machine);
            let name = o
                .and_then(|o| o.name.clone())
                .unwrap_or_else(|| format!("{}{i}", self.machine_prefix));
            intra.push(
                o.and_then(|o| o.intra)
                    .or(self.intra)
                    .unwrap_or_else(|| intra_link_for(model)),
            );
            let machine = b.add_machine(name.clone());
            let first = b.add_gpus(machine, model, count).map_err(|e| (at, e))?;
            let item = |slot: usize| format!("machine {i} (`{name}`), GPU {slot}");
            for (field, value) in [
                ("background", o.and_then(|o| o.background.as_ref())),
                ("ready_time", o.and_then(|o| o.ready_time.as_ref())),
            ] {
                if let (Some(PerGpu::Each(v)), Some(o)) = (value, o)
                    && v.len() != count
                {
                    let reason = format!(
                        "{}: {} values given for the {count} GPUs of machine {i}",
                        o.label(),
                        v.len()
                    );
                    let name = if field == "background" {
                        "machine.background"
                    } else {
                        "machine.ready_time"
                    };
                    return Err((Override(over.unwrap_or(0)), param(name, reason)));
                }
                for slot in 0..count {
                    let gpu = crate::ids::GpuId::new(first.index() + slot);
                    let (x, at) = match value {
                        Some(v) => (v.at(slot), at),
                        None if field == "background" => (self.background, Key("background")),
                        None => (self.ready_time, Key("ready_time")),
                    };
                    if field == "background" {
                        check_background(&item(slot), x).map_err(|e| (at, e))?;
                        b.set_background(gpu, x).map_err(|e| (at, e))?;
                    } else {
                        non_negative(|| item(slot), "ready_time", x).map_err(|e| (at, e))?;
                        b.set_ready_time(gpu, x).map_err(|e| (at, e))?;
                    }
                }
            }
            let (windows, at) = match o.and_then(|o| o.busy.as_ref()) {
                Some(w) => (w, at),
                None => (&self.busy, Key("busy")),
            };
            for slot in 0..count {
                let gpu = crate::ids::GpuId::new(first.index() + slot);
                for &(from, to) in windows {
                    b.add_busy(gpu, from, to).map_err(|e| (at, e))?;
                }
            }
        }
        if intra.iter().all(|l| *l == intra[0]) {
            b.network(Network::uniform(intra[0], self.inter));
        } else {
            need_pair_machines(intra.len(), || {
                format!(
                    "cluster {} with per-machine intra links",
                    self.cluster_name()
                )
            })
            .map_err(|e| (Key("machines"), e))?;
            let inter = self.inter;
            b.network(Network::from_fn(intra.len(), |a, c| {
                if a == c { intra[a] } else { inter }
            }));
        }
        b.build().map_err(|e| (Key("machines"), e))
    }
}

/// Checks a background utilisation: in `[0, 1)`.
fn check_background(item: &str, u: f64) -> Result<()> {
    if (0.0..1.0).contains(&u) {
        Ok(())
    } else {
        Err(ClusterError::InvalidValue {
            item: item.to_owned(),
            field: "background",
            value: u,
            expected: "a utilisation in [0, 1)",
        })
    }
}
