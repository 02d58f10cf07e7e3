//! Cluster loaders for the Alibaba GPU traces: PAI v2020 `pai_machine_spec.csv`, the v2023
//! `openb_node_list_*.csv` node lists, and the v2018 `machine_usage` extract used as
//! background utilisation.
//!
//! A loader returns a [`MachineTable`]: the GPU machines it read (with the catalog model each
//! trace code maps to) and the rows it skipped, each with its line and reason. Turn a table
//! into a [`Cluster`] with [`MachineTable::to_cluster`], optionally sampling `m` GPUs by seed
//! while keeping the machine grouping.

use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterBuilder};
use crate::error::{ClusterError, Result};
use crate::network::{Link, Network};
use crate::presets::pai_model;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

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
    /// Total number of GPUs.
    pub fn n_gpus(&self) -> usize {
        self.machines.iter().map(|m| m.n_gpus).sum()
    }

    /// Number of GPUs per trace GPU-type code.
    pub fn gpu_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for m in &self.machines {
            *counts.entry(m.gpu_type.clone()).or_insert(0) += m.n_gpus;
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
    /// Errors: [`ClusterError::InvalidParameter`] if `m == 0` or `m` exceeds the table's GPUs;
    /// [`ClusterError::EmptyCluster`] for a table without GPU machines.
    pub fn to_cluster(&self, sample: &TableSample) -> Result<Cluster> {
        let total = self.n_gpus();
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

fn open(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|source| ClusterError::Io {
        path: path.to_owned(),
        source,
    })
}

fn parse_err(file: &str, line: usize, message: String) -> ClusterError {
    ClusterError::Parse {
        file: file.to_owned(),
        line,
        message,
    }
}

fn csv_err(file: &str, e: csv::Error) -> ClusterError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    parse_err(file, line, e.to_string())
}

fn field<T: std::str::FromStr>(
    file: &str,
    line: usize,
    rec: &csv::StringRecord,
    i: usize,
    name: &str,
) -> Result<T> {
    let raw = rec.get(i).unwrap_or("").trim();
    raw.parse().map_err(|_| {
        parse_err(
            file,
            line,
            format!("column `{name}`: `{raw}` is not a valid number"),
        )
    })
}

/// Loads the PAI v2020 `pai_machine_spec.csv` (Alibaba cluster-trace-gpu-v2020; Weng et al.,
/// NSDI'22). No header; columns `machine,gpu_type,cap_cpu,cap_mem,cap_gpu`.
///
/// GPU types map to catalog models with [`pai_model`]: `V100` → V100-16GB, `V100M32` →
/// V100-32GB, `P100` → P100, `T4` → T4, `MISC` → K80 (MISC holds the older K40m, K80 and M60
/// GPUs, REFERENCE.md D.2; K80 lies between them). Rows of type `CPU` and rows with
/// `cap_gpu = 0` are skipped and reported in [`MachineTable::skipped`].
///
/// Errors: [`ClusterError::Io`]; [`ClusterError::Parse`] with file and line for a wrong
/// column count, a non-numeric field, or an unknown GPU type.
pub fn load_pai_machine_spec(path: impl AsRef<Path>) -> Result<MachineTable> {
    let path = path.as_ref();
    parse_pai_machine_spec(open(path)?, &path.display().to_string())
}

/// [`load_pai_machine_spec`] from any reader; `file` names the input in errors.
pub fn parse_pai_machine_spec(reader: impl Read, file: &str) -> Result<MachineTable> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut table = MachineTable {
        source: file.to_owned(),
        machines: Vec::new(),
        skipped: Vec::new(),
    };
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_err(file, e))?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        if rec.len() != 5 {
            return Err(parse_err(
                file,
                line,
                format!(
                    "{} columns, expected 5 (machine,gpu_type,cap_cpu,cap_mem,cap_gpu)",
                    rec.len()
                ),
            ));
        }
        let name = rec[0].trim().to_owned();
        let gpu_type = rec[1].trim().to_owned();
        let cpu: f64 = field(file, line, &rec, 2, "cap_cpu")?;
        let mem: f64 = field(file, line, &rec, 3, "cap_mem")?;
        let n_gpus: usize = field(file, line, &rec, 4, "cap_gpu")?;
        if gpu_type == "CPU" {
            table.skipped.push(Skipped {
                line,
                item: name,
                reason: "CPU-only machine (gpu_type CPU)".to_owned(),
            });
            continue;
        }
        let Some(model) = pai_model(&gpu_type) else {
            return Err(parse_err(
                file,
                line,
                format!(
                    "machine `{name}`: unknown gpu_type `{gpu_type}` (expected V100, V100M32, P100, T4, MISC or CPU)"
                ),
            ));
        };
        if n_gpus == 0 {
            table.skipped.push(Skipped {
                line,
                item: name,
                reason: format!("no GPU (gpu_type {gpu_type}, cap_gpu 0)"),
            });
            continue;
        }
        table.machines.push(MachineRecord {
            name,
            line,
            gpu_type,
            model,
            n_gpus,
            cpu_cores: cpu,
            host_mem_gib: mem,
        });
    }
    Ok(table)
}

/// How the v2023 node list's GPU model codes map to models.
///
/// The trace's README says `G1`, `G2`, `G3` "are undisclosed internal GPU codes". Our
/// defaults (assumptions, override them for other studies):
/// * `G2` (549 nodes of 8 GPUs, 96 vCPU, 384 GiB host memory: the cluster's bulk) → a V100
///   SXM2 32 GB equivalent named `G2` (speed 1.0, 32 GiB): its node shape matches the
///   trace's 8-GPU `V100M32` nodes (96 vCPU), and it keeps the bulk of the cluster at the
///   reference speed rather than guessing a faster generation;
/// * `G3` (39 nodes of 8 GPUs, 128 vCPU, 768 GiB host memory: the largest hosts) → an A100
///   SXM4 40 GB equivalent named `G3` (speed 2.08, 40 GiB), the newest 8-GPU server
///   generation of the trace's period (2023);
/// * `G1` (absent from the published list) → a T4 equivalent named `G1`.
///
/// Disclosed codes map to the catalog: `T4`, `P100`, `V100M16` (V100-16GB), `V100M32`
/// (V100-32GB), `A10`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpenbModels {
    /// Extra or overriding code → model entries, consulted before the defaults.
    pub overrides: BTreeMap<String, GpuModel>,
}

impl OpenbModels {
    /// The model for a node-list code, `None` if unknown.
    pub fn model(&self, code: &str) -> Option<GpuModel> {
        if let Some(m) = self.overrides.get(code) {
            return Some(m.clone());
        }
        let assumed = |m: GpuModel, what: &str| {
            let mut m = m.renamed(code);
            m.source = format!(
                "assumption: undisclosed Alibaba v2023 code {code} modelled as {what} ({})",
                m.source
            );
            m
        };
        match code {
            "G1" => Some(assumed(GpuModel::t4(), "T4")),
            "G2" => Some(assumed(GpuModel::v100_32gb(), "V100-32GB")),
            "G3" => Some(assumed(GpuModel::a100_40gb(), "A100-40GB")),
            "T4" | "P100" | "V100M16" | "V100M32" | "A10" => GpuModel::by_name(code),
            _ => None,
        }
    }
}

/// Loads a v2023 `openb_node_list_*.csv` (Alibaba cluster-trace-gpu-v2023; Weng et al., "Beware
/// of Fragmentation", ATC'23) with the default [`OpenbModels`]. Header
/// `sn,cpu_milli,memory_mib,gpu,model`. Nodes without GPUs (`gpu = 0`, empty model: CPU-only)
/// are skipped and reported.
///
/// Errors: [`ClusterError::Io`]; [`ClusterError::Parse`] with file and line for a wrong
/// header, a non-numeric field, an unknown model code, or GPUs without a model.
pub fn load_openb_node_list(path: impl AsRef<Path>) -> Result<MachineTable> {
    load_openb_node_list_with(path, &OpenbModels::default())
}

/// [`load_openb_node_list`] with a custom code → model mapping.
pub fn load_openb_node_list_with(
    path: impl AsRef<Path>,
    models: &OpenbModels,
) -> Result<MachineTable> {
    let path = path.as_ref();
    parse_openb_node_list(open(path)?, &path.display().to_string(), models)
}

/// [`load_openb_node_list_with`] from any reader; `file` names the input in errors.
pub fn parse_openb_node_list(
    reader: impl Read,
    file: &str,
    models: &OpenbModels,
) -> Result<MachineTable> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(reader);
    let header = rdr.headers().map_err(|e| csv_err(file, e))?.clone();
    let expected = ["sn", "cpu_milli", "memory_mib", "gpu", "model"];
    if header.len() != 5 || header.iter().zip(expected).any(|(h, e)| h.trim() != e) {
        return Err(parse_err(
            file,
            1,
            format!(
                "header `{}`, expected `{}`",
                header.iter().collect::<Vec<_>>().join(","),
                expected.join(",")
            ),
        ));
    }
    let mut table = MachineTable {
        source: file.to_owned(),
        machines: Vec::new(),
        skipped: Vec::new(),
    };
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_err(file, e))?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        if rec.len() != 5 {
            return Err(parse_err(
                file,
                line,
                format!("{} columns, expected 5", rec.len()),
            ));
        }
        let name = rec[0].trim().to_owned();
        let cpu_milli: f64 = field(file, line, &rec, 1, "cpu_milli")?;
        let mem_mib: f64 = field(file, line, &rec, 2, "memory_mib")?;
        let n_gpus: usize = field(file, line, &rec, 3, "gpu")?;
        let code = rec[4].trim().to_owned();
        if n_gpus == 0 {
            let reason = if code.is_empty() || code == "nan" {
                "CPU-only node (gpu 0, no model)".to_owned()
            } else {
                format!("no GPU (gpu 0, model {code})")
            };
            table.skipped.push(Skipped {
                line,
                item: name,
                reason,
            });
            continue;
        }
        let Some(model) = models.model(&code) else {
            return Err(parse_err(
                file,
                line,
                format!("node `{name}`: unknown GPU model `{code}` with {n_gpus} GPUs"),
            ));
        };
        table.machines.push(MachineRecord {
            name,
            line,
            gpu_type: code,
            model,
            n_gpus,
            cpu_cores: cpu_milli / 1000.0,
            host_mem_gib: mem_mib / 1024.0,
        });
    }
    Ok(table)
}

/// Loads a v2018 `machine_usage` extract with header `machine_id,time_stamp,cpu_util_percent`
/// (the WORL-RTGS authors' `GPU.csv`, PAPER.md §6) as `(machine, utilisation)` pairs, the
/// utilisation as a fraction `cpu_util_percent / 100`, in file order. Use the values as
/// background utilisation ([`Cluster::set_background`]) to reproduce the busy state.
///
/// Errors: [`ClusterError::Io`]; [`ClusterError::Parse`] with line for a missing column, a
/// non-numeric value, or a value outside `[0, 100)`.
pub fn load_machine_usage(path: impl AsRef<Path>) -> Result<Vec<(String, f64)>> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(open(path)?);
    let header = rdr.headers().map_err(|e| csv_err(&file, e))?.clone();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(mc), Some(uc)) = (col("machine_id"), col("cpu_util_percent")) else {
        return Err(parse_err(
            &file,
            1,
            "header lacks `machine_id` or `cpu_util_percent`".to_owned(),
        ));
    };
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_err(&file, e))?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let util: f64 = field(&file, line, &rec, uc, "cpu_util_percent")?;
        if !(0.0..100.0).contains(&util) {
            return Err(parse_err(
                &file,
                line,
                format!("cpu_util_percent {util} is not in [0, 100)"),
            ));
        }
        out.push((rec.get(mc).unwrap_or("").trim().to_owned(), util / 100.0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAI: &str =
        "m0,CPU,96,512,0\nm1,V100,64,512,8\nm2,T4,96,512,2\nm3,P100,64,512,0\nm4,MISC,64,256,8\n";

    #[test]
    fn pai_rows_map_and_skip() {
        let t = parse_pai_machine_spec(PAI.as_bytes(), "pai.csv").unwrap();
        assert_eq!(t.machines.len(), 3);
        assert_eq!(t.n_gpus(), 18);
        assert_eq!(t.machines[2].model.name, "K80");
        assert_eq!(t.machines[0].line, 2);
        assert_eq!(
            t.skipped
                .iter()
                .map(|s| (s.line, s.item.as_str()))
                .collect::<Vec<_>>(),
            vec![(1, "m0"), (4, "m3")]
        );
        let err = parse_pai_machine_spec("a,V100,1,2,x\n".as_bytes(), "f.csv").unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 1, .. }), "{err}");
        let err = parse_pai_machine_spec("a,V100,1,2,8\nb,Z80,1,2,8\n".as_bytes(), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("f.csv:2:") && err.contains("Z80"), "{err}");
        let err = parse_pai_machine_spec("a,V100,1\n".as_bytes(), "f.csv").unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 1, .. }));
    }

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

    #[test]
    fn openb_rows_map_and_skip() {
        let text = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,393216,8,G2\nn2,104000,524288,2,T4\n";
        let t = parse_openb_node_list(text.as_bytes(), "o.csv", &OpenbModels::default()).unwrap();
        assert_eq!(
            t.gpu_counts(),
            BTreeMap::from([("G2".to_owned(), 8), ("T4".to_owned(), 2)])
        );
        assert_eq!(t.machines[0].model.name, "G2");
        assert_eq!(t.machines[0].model.relative_speed, 1.0);
        assert_eq!(t.machines[0].cpu_cores, 96.0);
        assert_eq!(t.skipped[0].line, 2);
        let bad = text.replace("G2", "G9");
        let err =
            parse_openb_node_list(bad.as_bytes(), "o.csv", &OpenbModels::default()).unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 3, .. }), "{err}");
        let err = parse_openb_node_list("a,b\n".as_bytes(), "o.csv", &OpenbModels::default())
            .unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 1, .. }));
        let mut over = OpenbModels::default();
        over.overrides
            .insert("G2".to_owned(), GpuModel::h100().renamed("G2"));
        let t = parse_openb_node_list(text.as_bytes(), "o.csv", &over).unwrap();
        assert!(t.machines[0].model.relative_speed > 5.0);
    }
}
