//! The Alibaba PAI machine spec: `pai_machine_spec.csv` of Alibaba cluster-trace-gpu-v2020
//! (Weng et al., "MLaaS in the Wild", NSDI 2022), read into a [`MachineTable`].

use super::table::{MachineRecord, MachineTable, Skipped};
use super::{amount, count_gpus, csv_err, field, open, parse_err};
use crate::error::Result;
use crate::presets::pai_model;
use std::io::Read;
use std::path::Path;

/// Loads the PAI v2020 `pai_machine_spec.csv` (Alibaba cluster-trace-gpu-v2020; Weng et al.,
/// NSDI'22). No header; columns `machine,gpu_type,cap_cpu,cap_mem,cap_gpu`.
///
/// GPU types map to catalog models with [`pai_model`]: `V100` → V100-16GB, `V100M32` →
/// V100-32GB, `P100` → P100, `T4` → T4, `MISC` → K80 (the trace's `MISC` bucket holds the
/// older K40m, K80 and M60 GPUs; K80 lies between them). Rows of type `CPU` and rows with
/// `cap_gpu = 0` are skipped and reported in [`MachineTable::skipped`].
///
/// Errors: [`ClusterError::Io`](crate::ClusterError::Io);
/// [`ClusterError::Parse`](crate::ClusterError::Parse) with file and line for a wrong column
/// count, a non-numeric field, a negative or non-finite `cap_cpu` or `cap_mem`, an unknown GPU
/// type, a `cap_gpu` above [`MAX_GPUS_PER_MACHINE`](crate::MAX_GPUS_PER_MACHINE), or more than
/// [`MAX_GPUS`](crate::MAX_GPUS) GPUs in the file.
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
    let mut total = 0usize;
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
        let cpu = amount(file, line, &rec, 2, "cap_cpu", &name)?;
        let mem = amount(file, line, &rec, 3, "cap_mem", &name)?;
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
        count_gpus(file, line, &name, "cap_gpu", n_gpus, &mut total)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ClusterError;

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
}
