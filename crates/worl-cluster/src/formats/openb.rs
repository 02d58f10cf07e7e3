//! The Alibaba GPU v2023 node lists: `openb_node_list_*.csv` of Alibaba clusterdata GPU v2023
//! (Weng et al., "Beware of Fragmentation", USENIX ATC 2023), read into a [`MachineTable`];
//! [`OpenbModels`] maps the trace's GPU model codes (some undisclosed) to catalog models.

use super::table::{MachineRecord, MachineTable, Skipped};
use super::{amount, count_gpus, csv_err, field, open, parse_err};
use crate::catalog::GpuModel;
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

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
/// Errors: [`ClusterError::Io`](crate::ClusterError::Io);
/// [`ClusterError::Parse`](crate::ClusterError::Parse) with file and line for a wrong header,
/// a non-numeric field, a negative or non-finite `cpu_milli` or `memory_mib`, an unknown model
/// code, GPUs without a model, a `gpu` count above
/// [`MAX_GPUS_PER_MACHINE`](crate::MAX_GPUS_PER_MACHINE), or more than
/// [`MAX_GPUS`](crate::MAX_GPUS) GPUs in the file.
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
    let mut total = 0usize;
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
        let cpu_milli = amount(file, line, &rec, 1, "cpu_milli", &name)?;
        let mem_mib = amount(file, line, &rec, 2, "memory_mib", &name)?;
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
        count_gpus(file, line, &name, "gpu", n_gpus, &mut total)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ClusterError;

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
