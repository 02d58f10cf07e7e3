//! Clusters from one line: a cluster file's path, or a short description of a preset — the
//! grammar of `worl --cluster` and of `worl.Cluster.parse` in Python.
//!
//! | description | cluster |
//! |---|---|
//! | a path to an existing file | the cluster file ([`Cluster::load`], TOML or JSON) |
//! | `pai-mix:M[:SEED]` | `M` GPUs drawn from the Alibaba PAI v2020 fleet mix ([`presets::pai_mix`], seed 1) |
//! | `homogeneous:M:MODEL` | `M` GPUs of one model, 8 per machine, PCIe inside, 25 GbE between ([`presets::homogeneous`]) |
//! | `dgx:NODES:MODEL` | DGX-style nodes of 8 GPUs, NVLink inside, InfiniBand between ([`presets::dgx`]) |
//! | `paper-pool:M:MBIT[:SEED]` | the WORL-RTGS paper's pool, links up to `MBIT` Mbit/s ([`presets::paper_pool`]) |
//! | `MxG:MODEL[:INTER[:INTRA]]` | `M` machines of `G` GPUs of one model with named links ([`crate::ClusterSpec`]), e.g. `4x8:A100-80GB:100GbE` |
//! | any of these `:busy=FROM..TO[,FROM..TO...]` | that cluster with these busy windows on every GPU ([`parse_window`] each, e.g. `4x8:A100-80GB:busy=2h..4h,10h..11.5h`) |

use std::path::Path;

use crate::catalog::GpuModel;
use crate::cluster::Cluster;
use crate::error::{ClusterError, Result};
use crate::formats::compact::parse_window;
use crate::ids::GpuId;
use crate::network::Link;
use crate::presets;

/// The forms [`parse`] accepts, as error messages list them.
pub const FORMS: &str = "a cluster file, or pai-mix:M[:SEED], homogeneous:M:MODEL, \
                         dgx:NODES:MODEL, paper-pool:M:MBIT[:SEED], MxG:MODEL[:INTER[:INTRA]], \
                         each optionally followed by :busy=FROM..TO[,FROM..TO...]";

/// The cluster of `arg` (see the [module docs](self)).
///
/// Errors: [`ClusterError::Description`] naming the description and what is wrong (no such
/// file, unknown preset, GPU model or link — listing the known ones —, a count that is not
/// a whole number, too many fields, a busy window that is not `FROM..TO` with units); the
/// file's or the preset's own errors; [`ClusterError::InvalidWindow`] naming the GPU as
/// `machine/gN` for an inverted, empty, overlapping, negative or past-horizon window.
///
/// ```
/// use worl_cluster::description;
/// assert_eq!(description::parse("4x8:A100-80GB:100GbE")?.n_gpus(), 32);
/// let e = description::parse("homogeneous:ten:T4").unwrap_err().to_string();
/// assert!(e.starts_with("cluster `homogeneous:ten:T4`: GPU count `ten` is not a whole number"));
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn parse(arg: &str) -> Result<Cluster> {
    let path = Path::new(arg);
    if path.exists() {
        return Cluster::load(path);
    }
    if let Some((rest, last)) = arg.rsplit_once(':')
        && let Some(list) = last.strip_prefix("busy=")
    {
        let windows = list
            .split(',')
            .map(parse_window)
            .collect::<Result<Vec<_>>>()
            .map_err(|e| ClusterError::Description {
                description: arg.to_owned(),
                reason: e.to_string(),
            })?;
        let mut cluster = parse(rest)?;
        for g in 0..cluster.n_gpus() {
            cluster.set_busy(GpuId::new(g), windows.clone())?;
        }
        return Ok(cluster);
    }
    let parts: Vec<&str> = arg.split(':').collect();
    let bad = |why: String| ClusterError::Description {
        description: arg.to_owned(),
        reason: why,
    };
    let count = |i: usize, what: &str| -> Result<usize> {
        let s = parts.get(i).ok_or_else(|| bad(format!("missing {what}")))?;
        s.parse::<usize>()
            .map_err(|_| bad(format!("{what} `{s}` is not a whole number")))
    };
    let seed = |i: usize| -> Result<u64> {
        match parts.get(i) {
            None => Ok(1),
            Some(s) => s
                .parse()
                .map_err(|_| bad(format!("seed `{s}` is not a whole number"))),
        }
    };
    let model = |i: usize| -> Result<GpuModel> {
        let name = parts
            .get(i)
            .ok_or_else(|| bad("missing GPU model".into()))?;
        GpuModel::by_name(name).ok_or_else(|| {
            let known: Vec<String> = GpuModel::catalog().into_iter().map(|m| m.name).collect();
            bad(format!(
                "unknown GPU model `{name}` (known: {})",
                known.join(", ")
            ))
        })
    };
    let max_args = |n: usize| -> Result<()> {
        if parts.len() > n {
            return Err(bad(format!("too many fields after `{}`", parts[n - 1])));
        }
        Ok(())
    };
    let link = |i: usize| -> Result<Option<Link>> {
        match parts.get(i) {
            None => Ok(None),
            Some(name) => presets::link_by_name(name).map(Some).ok_or_else(|| {
                let known: Vec<&str> = presets::NAMED_LINKS.iter().map(|l| l.name).collect();
                bad(format!(
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
        let mut spec = crate::ClusterSpec::new(machines, gpus, &model(1)?);
        if let Some(inter) = link(2)? {
            spec = spec.with_inter(inter);
        }
        if let Some(intra) = link(3)? {
            spec = spec.with_intra(intra);
        }
        return spec.build();
    }
    match parts[0].to_ascii_lowercase().as_str() {
        "pai-mix" => {
            max_args(3)?;
            presets::pai_mix(count(1, "GPU count")?, seed(2)?)
        }
        "homogeneous" => {
            max_args(3)?;
            presets::homogeneous(count(1, "GPU count")?, &model(2)?)
        }
        "dgx" => {
            max_args(3)?;
            presets::dgx(count(1, "node count")?, &model(2)?)
        }
        "paper-pool" => {
            max_args(4)?;
            let mbit: f64 = parts
                .get(2)
                .ok_or_else(|| bad("missing bandwidth in Mbit/s".into()))?
                .parse()
                .map_err(|_| bad("bandwidth is not a number".into()))?;
            presets::paper_pool(count(1, "GPU count")?, mbit, seed(3)?)
        }
        _ if parts.len() == 1 => Err(bad("no such file".into())),
        other => Err(bad(format!("unknown preset `{other}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_build_presets_and_errors_name_the_field() {
        assert_eq!(
            parse("pai-mix:16:3").unwrap(),
            presets::pai_mix(16, 3).unwrap()
        );
        assert_eq!(parse("homogeneous:10:T4").unwrap().n_machines(), 2);
        assert_eq!(parse("dgx:2:H100").unwrap().n_gpus(), 16);
        assert_eq!(parse("paper-pool:8:500").unwrap().n_machines(), 8);
        let c = parse("2x4:V100-16GB:10GbE").unwrap();
        assert_eq!((c.n_machines(), c.n_gpus()), (2, 8));
        let err = |d: &str| parse(d).unwrap_err().to_string();
        assert!(err("nowhere.toml").starts_with("cluster `nowhere.toml`: no such file ("));
        assert!(err("pai-mix:16:3:4").contains("too many fields after `3`"));
        assert!(err("2x1:NoSuchGPU").contains("unknown GPU model `NoSuchGPU` (known: "));
        assert!(err("2x1:T4:5GbE").contains("unknown link `5GbE` (known: "));
        assert!(err("mesh:4").contains("unknown preset `mesh`"));
        assert!(err("paper-pool:8:fast").contains("bandwidth is not a number"));
        assert!(err("mesh:4").ends_with(&format!("(expected {FORMS})")));
    }

    #[test]
    fn a_busy_suffix_puts_windows_on_every_gpu() {
        let c = parse("2x2:T4:busy=2h..4h,10h..11.5h").unwrap();
        assert_eq!(c.n_gpus(), 4);
        for g in 0..4 {
            assert_eq!(
                c.busy(GpuId::new(g)),
                &[(7200.0, 14400.0), (36000.0, 41400.0)][..]
            );
        }
        let plain = parse("2x2:T4").unwrap();
        assert!(!plain.has_windows());
        let err = |d: &str| parse(d).unwrap_err().to_string();
        let e = err("2x2:T4:busy=2h-4h");
        assert!(e.contains("busy window `2h-4h`: expected FROM..TO"), "{e}");
        let e = err("2x2:T4:busy=4h..2h");
        assert!(e.contains("node-0/g0") && e.contains("inverted"), "{e}");
        let e = err("2x2:T4:busy=1h..3h,2h..4h");
        assert!(e.contains("overlap"), "{e}");
    }
}
