//! Reading clusters from trace and native formats, and writing them.
//!
//! | module | format | direction |
//! |---|---|---|
//! | [`pai`] | Alibaba cluster-trace-gpu-v2020 `pai_machine_spec.csv` (PAI machine spec) | read |
//! | [`openb`] | Alibaba clusterdata GPU v2023 `openb_node_list_*.csv` (node lists) | read |
//! | [`machine_usage`] | Alibaba cluster-trace-v2018 `machine_usage` extract (background utilisation) | read |
//! | [`native`] | worl's own cluster format, TOML or JSON | read and write (lossless) |
//! | [`compact`] | the compact cluster file (`machines` × `gpus_per_machine` of one model, named links, overrides), read by the same `Cluster::load`; units of bandwidth and time | read and write |
//! | [`table`] | [`MachineTable`]: the machines [`pai`] and [`openb`] read, [`TableSample`] to make a [`Cluster`](crate::Cluster) of them | |
//!
//! The trace readers return a [`MachineTable`]: the GPU machines read (with the catalog model
//! each trace code maps to) and the rows skipped, each with its line and reason. Turn a table
//! into a cluster with [`MachineTable::to_cluster`], optionally sampling `m` GPUs by seed while
//! keeping the machine grouping. A row with more than [`MAX_GPUS_PER_MACHINE`] GPUs, or a
//! file with more than [`MAX_GPUS`] in all, is a parse error naming the file, line and machine
//! (nothing is allocated for it). Each trace reader has a `load_*(path, ..)` and, for the
//! machine tables, a `parse_*(reader, file, ..)` for in-memory input; bad input is a
//! [`ClusterError::Parse`] naming the file and line, never a panic.
//!
//! Sources: Alibaba cluster-trace-gpu-v2020 (Weng et al., "MLaaS in the Wild: Workload
//! Analysis and Scheduling in Large-Scale Heterogeneous GPU Clusters", NSDI 2022); Alibaba
//! clusterdata GPU v2023 (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
//! Workloads with Fragmentation Gradient Descent", USENIX ATC 2023); Alibaba
//! cluster-trace-v2018. `docs/model.md` ("Traces") lists the model mappings.

pub mod compact;
pub mod machine_usage;
pub mod native;
pub mod openb;
pub mod pai;
pub mod table;

pub use table::{MachineRecord, MachineTable, Skipped, TableSample};

use crate::cluster::{MAX_GPUS, MAX_GPUS_PER_MACHINE};
use crate::error::{ClusterError, Result};
use std::path::Path;

/// Opens `path`, an I/O error naming it.
fn open(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|source| ClusterError::Io {
        path: path.to_owned(),
        source,
    })
}

/// A parse error at `file:line`.
fn parse_err(file: &str, line: usize, message: String) -> ClusterError {
    ClusterError::Parse {
        file: file.to_owned(),
        line,
        message,
    }
}

/// A CSV reader error as a parse error with its line.
fn csv_err(file: &str, e: csv::Error) -> ClusterError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    parse_err(file, line, e.to_string())
}

/// Checks a trace row's GPU count against [`MAX_GPUS_PER_MACHINE`] and the running total
/// `total` (the GPUs of the rows before) against [`MAX_GPUS`], then adds it to `total`; a
/// parse error at `file:line` naming the machine and the column otherwise.
fn count_gpus(
    file: &str,
    line: usize,
    machine: &str,
    column: &str,
    n_gpus: usize,
    total: &mut usize,
) -> Result<()> {
    if n_gpus > MAX_GPUS_PER_MACHINE {
        return Err(parse_err(
            file,
            line,
            format!(
                "machine `{machine}`: {column} = {n_gpus} exceeds the limit of {MAX_GPUS_PER_MACHINE} GPUs per machine"
            ),
        ));
    }
    match total.checked_add(n_gpus) {
        Some(t) if t <= MAX_GPUS => {
            *total = t;
            Ok(())
        }
        _ => Err(parse_err(
            file,
            line,
            format!(
                "machine `{machine}`: its {n_gpus} GPUs take the file past the limit of {MAX_GPUS} GPUs per cluster"
            ),
        )),
    }
}

/// Field `i` (column `name`) of `rec` as a finite number `>= 0` (CPU cores, memory), or a
/// parse error at `file:line` naming the machine.
fn amount(
    file: &str,
    line: usize,
    rec: &csv::StringRecord,
    i: usize,
    name: &str,
    machine: &str,
) -> Result<f64> {
    let x: f64 = field(file, line, rec, i, name)?;
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(parse_err(
            file,
            line,
            format!("machine `{machine}`: column `{name}` = {x} is not a finite number >= 0"),
        ))
    }
}

/// Field `i` (column `name`) of `rec`, parsed, or a parse error at `file:line`.
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
