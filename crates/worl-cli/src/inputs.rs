//! Reading the inputs every command shares: workloads (any format worl reads) and clusters
//! (a cluster file, or a short description of a preset).

use crate::Result;
use std::path::Path;
use std::sync::Arc;
use worl::cluster::{Cluster, GpuModel, Problem, presets};
use worl::dag::Workload;

/// Loads a workload, the format picked by extension or content (see [`load`]).
pub(crate) fn workload(path: &Path) -> Result<Workload> {
    Ok(load(path)?.0)
}

/// Loads a workload, the format picked by extension or content; the load report's notes
/// (dropped rows, repaired references) go to stderr. A saga / dag-bench problem instance
/// (JSON with a `task_graph`) gives its task graph and, second, its network.
pub(crate) fn load(path: &Path) -> Result<(Workload, Option<Cluster>)> {
    if let Some((w, c)) = saga_instance(path)? {
        return Ok((w, Some(c)));
    }
    let (w, report) = worl::dag::load_path(path)?;
    if !report.entries.is_empty() {
        eprintln!("{}: {report}", path.display());
    }
    Ok((w, None))
}

/// The workload and network of a saga / dag-bench problem instance (`.json` with a
/// `task_graph`), or `None` for any other file.
fn saga_instance(path: &Path) -> Result<Option<(Workload, Cluster)>> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !is_json {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.contains("\"task_graph\"") {
        return Ok(None);
    }
    let source = path.display().to_string();
    Ok(Some(worl::cluster::formats::saga::read(
        text.as_bytes(),
        &source,
    )?))
}

/// The problem of the workload at `path` on the cluster `arg` (see [`cluster`]); without
/// `arg`, a saga / dag-bench instance brings its own network.
pub(crate) fn problem_of(path: &Path, arg: Option<&str>) -> Result<Problem> {
    let (w, own) = load(path)?;
    let c = match (arg, own) {
        (Some(a), _) => cluster(a)?,
        (None, Some(c)) => c,
        (None, None) => {
            return Err(format!(
                "{}: no --cluster given (only a saga problem instance brings its own network)",
                path.display()
            )
            .into());
        }
    };
    problem(w, c)
}

/// A cluster from `arg`: an existing file (TOML or JSON cluster file), else a description
/// `KIND:ARGS` of a preset:
///
/// * `pai-mix:M[:SEED]`: `M` GPUs drawn from the Alibaba PAI v2020 fleet mix;
/// * `homogeneous:M:MODEL`: `M` GPUs of one model, 8 per machine, PCIe inside, 25 GbE between;
/// * `dgx:NODES:MODEL`: DGX-style nodes of 8 GPUs (NVLink inside, InfiniBand between);
/// * `paper-pool:M:MBIT[:SEED]`: the WORL-RTGS paper's pool, links up to `MBIT` Mbit/s;
/// * `MxG:MODEL[:INTER[:INTRA]]`: `M` machines of `G` GPUs of one model, with named links
///   between machines (default 25GbE) and inside them (default the model's own), e.g.
///   `4x8:A100-80GB:100GbE`: the compact cluster file's
///   [`ClusterSpec`](worl::cluster::presets::ClusterSpec) in one line.
pub(crate) fn cluster(arg: &str) -> Result<Cluster> {
    let path = Path::new(arg);
    if path.exists() {
        return Ok(Cluster::load(path)?);
    }
    let parts: Vec<&str> = arg.split(':').collect();
    let bad = |why: &str| -> Box<dyn std::error::Error + Send + Sync> {
        format!(
            "cluster `{arg}`: {why} (expected a cluster file, or pai-mix:M[:SEED], \
             homogeneous:M:MODEL, dgx:NODES:MODEL, paper-pool:M:MBIT[:SEED], \
             MxG:MODEL[:INTER[:INTRA]])"
        )
        .into()
    };
    let count = |i: usize, what: &str| -> Result<usize> {
        parts
            .get(i)
            .ok_or_else(|| bad(&format!("missing {what}")))?
            .parse::<usize>()
            .map_err(|_| bad(&format!("{what} `{}` is not a whole number", parts[i])))
    };
    let seed = |i: usize| -> Result<u64> {
        match parts.get(i) {
            None => Ok(1),
            Some(s) => s
                .parse()
                .map_err(|_| bad(&format!("seed `{s}` is not a whole number"))),
        }
    };
    let model = |i: usize| -> Result<GpuModel> {
        let name = parts.get(i).ok_or_else(|| bad("missing GPU model"))?;
        GpuModel::by_name(name).ok_or_else(|| {
            let known: Vec<String> = GpuModel::catalog().into_iter().map(|m| m.name).collect();
            bad(&format!(
                "unknown GPU model `{name}` (known: {})",
                known.join(", ")
            ))
        })
    };
    let max_args = |n: usize| -> Result<()> {
        if parts.len() > n {
            return Err(bad(&format!("too many fields after `{}`", parts[n - 1])));
        }
        Ok(())
    };
    let link = |i: usize| -> Result<Option<worl::cluster::Link>> {
        match parts.get(i) {
            None => Ok(None),
            Some(name) => presets::link_by_name(name).map(Some).ok_or_else(|| {
                let known: Vec<&str> = presets::NAMED_LINKS.iter().map(|l| l.name).collect();
                bad(&format!(
                    "unknown link `{name}` (known: {})",
                    known.join(", ")
                ))
            }),
        }
    };
    if let Some((machines, gpus)) = parts[0].split_once(['x', 'X'])
        && let (Ok(machines), Ok(gpus)) = (machines.parse::<usize>(), gpus.parse::<usize>())
    {
        max_args(4)?;
        let mut spec = presets::ClusterSpec::new(machines, gpus, &model(1)?);
        if let Some(inter) = link(2)? {
            spec = spec.with_inter(inter);
        }
        if let Some(intra) = link(3)? {
            spec = spec.with_intra(intra);
        }
        return Ok(presets::cluster(&spec)?);
    }
    let c = match parts[0].to_ascii_lowercase().as_str() {
        "pai-mix" => {
            max_args(3)?;
            presets::pai_mix(count(1, "GPU count")?, seed(2)?)?
        }
        "homogeneous" => {
            max_args(3)?;
            presets::homogeneous(count(1, "GPU count")?, &model(2)?)?
        }
        "dgx" => {
            max_args(3)?;
            presets::dgx(count(1, "node count")?, &model(2)?)?
        }
        "paper-pool" => {
            max_args(4)?;
            let mbit: f64 = parts
                .get(2)
                .ok_or_else(|| bad("missing bandwidth in Mbit/s"))?
                .parse()
                .map_err(|_| bad("bandwidth is not a number"))?;
            presets::paper_pool(count(1, "GPU count")?, mbit, seed(3)?)?
        }
        _ if parts.len() == 1 => return Err(bad("no such file")),
        other => return Err(bad(&format!("unknown preset `{other}`"))),
    };
    Ok(c)
}

/// The problem of `workload` on `cluster`.
pub(crate) fn problem(workload: Workload, cluster: Cluster) -> Result<Problem> {
    Ok(Problem::new(Arc::new(workload), Arc::new(cluster))?)
}
