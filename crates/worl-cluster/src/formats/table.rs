//! [`MachineTable`]: the GPU machines a trace reader ([`pai`](super::pai),
//! [`openb`](super::openb)) read and the rows it skipped; [`TableSample`] and
//! [`MachineTable::to_cluster`] to make a [`Cluster`] of them.

use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterBuilder, MAX_GPUS, MAX_GPUS_PER_MACHINE};
use crate::error::{ClusterError, Result};
use crate::network::{Link, Network};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One GPU machine read from a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineRecord {
    /// Machine name (`machine` / `sn` column).
    pub name: String,
    /// 1-based line in the file.
    pub line: usize,
    /// GPU type code as in the trace (`V100M32`, `MISC`, `G2`, ...).
    pub gpu_type: String,
    /// The model the code maps to.
    pub model: GpuModel,
    /// Number of GPUs (`cap_gpu` / `gpu`), `>= 1`.
    pub n_gpus: usize,
    /// CPU cores (`cap_cpu`, or `cpu_milli / 1000`).
    pub cpu_cores: f64,
    /// Host memory, GiB (`cap_mem` in GB, or `memory_mib / 1024`).
    pub host_mem_gib: f64,
}

/// A row a loader skipped, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// 1-based line in the file.
    pub line: usize,
    /// The machine named on that row.
    pub item: String,
    /// Why it was skipped (e.g. `CPU-only machine`).
    pub reason: String,
}

/// Machines read from a trace file: those with GPUs, and the rows skipped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineTable {
    /// The file (or `<memory>`).
    pub source: String,
    /// GPU machines in file order.
    pub machines: Vec<MachineRecord>,
    /// Rows skipped (CPU-only machines, machines without GPUs), in file order.
    pub skipped: Vec<Skipped>,
}

/// How to turn a [`MachineTable`] into a [`Cluster`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableSample {
    /// Number of GPUs to take; `None` takes every GPU of the table.
    pub n_gpus: Option<usize>,
    /// Seed of the machine shuffle (ChaCha8).
    pub seed: u64,
    /// Link between two GPUs of one machine.
    pub intra: Link,
    /// Link between machines.
    pub inter: Link,
}

impl Default for TableSample {
    /// All GPUs, seed 0, PCIe 3.0 x16 inside machines (the traces do not say which servers
    /// have NVLink), 25 Gbit/s Ethernet between them.
    fn default() -> Self {
        Self {
            n_gpus: None,
            seed: 0,
            intra: Link::PCIE3_X16,
            inter: Link::ETHERNET_25G,
        }
    }
}

impl MachineTable {
    /// Total number of GPUs (saturating at `usize::MAX`: a table built by hand may hold any
    /// counts; the readers cap them).
    pub fn n_gpus(&self) -> usize {
        self.machines
            .iter()
            .fold(0usize, |t, m| t.saturating_add(m.n_gpus))
    }

    /// Number of GPUs per trace GPU-type code.
    pub fn gpu_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for m in &self.machines {
            let c = counts.entry(m.gpu_type.clone()).or_insert(0usize);
            *c = c.saturating_add(m.n_gpus);
        }
        counts
    }

    /// A cluster of the table's machines.
    ///
    /// With `n_gpus = Some(m)`, machines are shuffled with the seed and taken whole in that
    /// order until `m` GPUs are reached; the last machine taken contributes only the GPUs
    /// still needed. The machines taken keep their file order in the cluster, so GPUs of one
    /// machine stay together and share its intra-machine link. Same seed, same cluster.
    ///
    /// Errors: [`ClusterError::Parse`] naming the table's source, the line and the machine
    /// of a record with more than [`MAX_GPUS_PER_MACHINE`] GPUs, or at which the total passes
    /// [`MAX_GPUS`] (the readers already reject both; a table built by hand may not);
    /// [`ClusterError::InvalidParameter`] if `m == 0` or `m` exceeds the table's GPUs;
    /// [`ClusterError::EmptyCluster`] for a table without GPU machines.
    pub fn to_cluster(&self, sample: &TableSample) -> Result<Cluster> {
        let mut total = 0usize;
        for rec in &self.machines {
            let too_many = |message: String| ClusterError::Parse {
                file: self.source.clone(),
                line: rec.line,
                message,
            };
            if rec.n_gpus > MAX_GPUS_PER_MACHINE {
                return Err(too_many(format!(
                    "machine `{}`: {} GPUs exceed the limit of {MAX_GPUS_PER_MACHINE} GPUs per machine",
                    rec.name, rec.n_gpus
                )));
            }
            total = match total.checked_add(rec.n_gpus) {
                Some(t) if t <= MAX_GPUS => t,
                _ => {
                    return Err(too_many(format!(
                        "machine `{}`: its {} GPUs take the table past the limit of {MAX_GPUS} GPUs per cluster",
                        rec.name, rec.n_gpus
                    )));
                }
            };
        }
        let mut picked: Vec<(usize, usize)> = match sample.n_gpus {
            None => self
                .machines
                .iter()
                .enumerate()
                .map(|(i, m)| (i, m.n_gpus))
                .collect(),
            Some(m) => {
                if m == 0 || m > total {
                    return Err(ClusterError::InvalidParameter {
                        name: "n_gpus",
                        reason: format!("{m} is not in 1..={total} (GPUs of `{}`)", self.source),
                    });
                }
                let mut order: Vec<usize> = (0..self.machines.len()).collect();
                order.shuffle(&mut ChaCha8Rng::seed_from_u64(sample.seed));
                let mut left = m;
                let mut picked = Vec::new();
                for i in order {
                    if left == 0 {
                        break;
                    }
                    let take = self.machines[i].n_gpus.min(left);
                    picked.push((i, take));
                    left -= take;
                }
                picked.sort_unstable();
                picked
            }
        };
        let name = match sample.n_gpus {
            None => self.source.clone(),
            Some(m) => format!("{}[{m} GPUs, seed {}]", self.source, sample.seed),
        };
        let mut b = ClusterBuilder::new(name);
        for (i, take) in picked.drain(..) {
            let rec = &self.machines[i];
            let machine = b.add_machine(rec.name.clone());
            b.add_gpus(machine, &rec.model, take)?;
        }
        b.network(Network::uniform(sample.intra, sample.inter));
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pai::parse_pai_machine_spec;

    const PAI: &str =
        "m0,CPU,96,512,0\nm1,V100,64,512,8\nm2,T4,96,512,2\nm3,P100,64,512,0\nm4,MISC,64,256,8\n";

    #[test]
    fn sampling_keeps_machines_together_and_is_seeded() {
        let t = parse_pai_machine_spec(PAI.as_bytes(), "pai.csv").unwrap();
        let s = TableSample {
            n_gpus: Some(9),
            seed: 4,
            ..TableSample::default()
        };
        let a = t.to_cluster(&s).unwrap();
        assert_eq!(a, t.to_cluster(&s).unwrap());
        assert_eq!(a.n_gpus(), 9);
        assert!(a.n_machines() <= 3);
        let all = t.to_cluster(&TableSample::default()).unwrap();
        assert_eq!(all.n_gpus(), 18);
        assert_eq!(all.machines(), &["m1", "m2", "m4"]);
        assert!(
            t.to_cluster(&TableSample {
                n_gpus: Some(19),
                ..s.clone()
            })
            .is_err()
        );
        assert!(
            t.to_cluster(&TableSample {
                n_gpus: Some(0),
                ..s
            })
            .is_err()
        );
    }
}
