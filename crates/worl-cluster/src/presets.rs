//! Ready-made clusters: homogeneous, DGX-style, the Alibaba PAI GPU mix, the GPU pool of
//! the WORL-RTGS experiments, and the named links. Any "`n` machines of `g` GPUs of one
//! model" cluster is a [`ClusterSpec`](crate::ClusterSpec), next to the compact cluster file
//! that reads into it ([`formats::compact`](crate::formats::compact)).

use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterBuilder, MAX_GPUS, MAX_PAIR_MACHINES};
use crate::error::{ClusterError, Result};
use crate::network::{Link, Network};
use rand::SeedableRng;
use rand::distr::{Distribution, weighted::WeightedIndex};
use rand_chacha::ChaCha8Rng;

/// The GPU types of the Alibaba PAI cluster (cluster-trace-gpu-v2020, `pai_machine_spec`;
/// Weng et al., "MLaaS in the Wild", NSDI'22): trace code, number of GPUs in the table, GPUs
/// per machine, and the catalog model we map it to.
///
/// Counts are the sum of `cap_gpu` per `gpu_type` over the 1,897 rows of
/// `pai_machine_spec.csv` (P100 798 machines × 2, T4 497 × 2, V100 104 × 8, V100M32 135 × 8,
/// MISC 280 × 8; 83 CPU-only machines); the loader test re-derives them from the file.
/// `MISC` is the trace's bucket of older GPUs (K40m, K80, M60): we model
/// it as a K80 GPU (per-GPU figures, between K40m and M60 in speed and memory).
pub const PAI_GPU_TYPES: [(&str, usize, usize); 5] = [
    ("MISC", 2240, 8),
    ("P100", 1596, 2),
    ("T4", 994, 2),
    ("V100", 832, 8),
    ("V100M32", 1080, 8),
];

/// The catalog model for a PAI v2020 `gpu_type` code: `V100` → V100-16GB, `V100M32` →
/// V100-32GB, `P100` → P100, `T4` → T4, `MISC` → K80 (see [`PAI_GPU_TYPES`]); `None` for
/// `CPU` and unknown codes.
pub fn pai_model(gpu_type: &str) -> Option<GpuModel> {
    match gpu_type {
        "V100" => Some(GpuModel::v100_16gb()),
        "V100M32" => Some(GpuModel::v100_32gb()),
        "P100" => Some(GpuModel::p100()),
        "T4" => Some(GpuModel::t4()),
        "MISC" => Some(GpuModel::k80()),
        _ => None,
    }
}

/// The link inside a machine holding GPUs of `model`: NVLink of the model's generation for
/// SXM parts (V100 → NVLink 2, A100 → NVLink 3, H100/H200 → NVLink 4), PCIe 3.0 x16
/// otherwise (K80, M60, P100 PCIe, T4, A10 and custom models).
pub fn intra_link_for(model: &GpuModel) -> Link {
    match model.name.as_str() {
        "V100-16GB" | "V100-32GB" => Link::NVLINK2,
        "A100-40GB" | "A100-80GB" => Link::NVLINK3,
        "H100" | "H200" => Link::NVLINK4,
        _ => Link::PCIE3_X16,
    }
}

/// Checks a GPU count of a preset before any work is done for it: `1 ..= MAX_GPUS`.
fn need_gpus(m: usize, preset: &str) -> Result<()> {
    if m == 0 {
        Err(ClusterError::InvalidParameter {
            name: "m",
            reason: "a cluster needs at least one GPU".to_owned(),
        })
    } else if m > MAX_GPUS {
        Err(ClusterError::TooManyGpus {
            item: format!("cluster {preset}"),
            count: m,
            limit: MAX_GPUS,
        })
    } else {
        Ok(())
    }
}

/// Checks the machine count of a per-machine-pair network before its matrices are allocated:
/// at most [`MAX_PAIR_MACHINES`]. `what` names the cluster.
pub(crate) fn need_pair_machines(machines: usize, what: impl FnOnce() -> String) -> Result<()> {
    if machines > MAX_PAIR_MACHINES {
        Err(ClusterError::InvalidParameter {
            name: "machines",
            reason: format!(
                "{} needs {machines} machines with a link per machine pair; such a network \
                 holds at most {MAX_PAIR_MACHINES} machines (its matrices take 16 n² bytes)",
                what()
            ),
        })
    } else {
        Ok(())
    }
}

/// `m` idle GPUs of one `model`, 8 per machine (the last machine may hold fewer), PCIe 3.0
/// x16 inside machines and 25 Gbit/s Ethernet between them.
///
/// Errors: [`ClusterError::InvalidParameter`] for `m == 0`; [`ClusterError::TooManyGpus`]
/// beyond [`MAX_GPUS`] (checked first); [`ClusterError::InvalidValue`]
/// for an invalid model.
///
/// ```
/// let c = worl_cluster::presets::homogeneous(10, &worl_cluster::GpuModel::t4())?;
/// assert_eq!((c.n_gpus(), c.n_machines()), (10, 2));
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn homogeneous(m: usize, model: &GpuModel) -> Result<Cluster> {
    need_gpus(m, "homogeneous")?;
    let mut b = ClusterBuilder::new(format!("homogeneous-{m}x{}", model.name));
    for i in 0..m.div_ceil(8) {
        let machine = b.add_machine(format!("node-{i}"));
        b.add_gpus(machine, model, (m - 8 * i).min(8))?;
    }
    b.network(Network::uniform(Link::PCIE3_X16, Link::ETHERNET_25G));
    b.build()
}

/// `nodes` DGX-style servers of 8 GPUs of `model`: NVLink inside ([`intra_link_for`]; PCIe 4.0
/// x16 for models without NVLink), InfiniBand between nodes of the model's DGX generation
/// (V100: EDR 100 Gbit/s as in DGX-1; A100: HDR 200 Gbit/s as in DGX A100; H100/H200: NDR
/// 400 Gbit/s as in DGX H100; one port per GPU), 100 Gbit/s Ethernet for other models.
///
/// Errors: [`ClusterError::InvalidParameter`] for `nodes == 0`;
/// [`ClusterError::TooManyGpus`] beyond [`MAX_GPUS`] GPUs (checked first).
pub fn dgx(nodes: usize, model: &GpuModel) -> Result<Cluster> {
    if nodes == 0 {
        return Err(ClusterError::InvalidParameter {
            name: "nodes",
            reason: "must be >= 1".to_owned(),
        });
    }
    need_gpus(nodes.saturating_mul(8), "dgx")?;
    let (intra, inter) = match model.name.as_str() {
        "V100-16GB" | "V100-32GB" => (Link::NVLINK2, Link::INFINIBAND_EDR),
        "A100-40GB" | "A100-80GB" => (Link::NVLINK3, Link::INFINIBAND_HDR),
        "H100" | "H200" => (Link::NVLINK4, Link::INFINIBAND_NDR),
        _ => (Link::PCIE4_X16, Link::ETHERNET_100G),
    };
    let mut b = ClusterBuilder::new(format!("dgx-{nodes}x8x{}", model.name));
    for i in 0..nodes {
        let machine = b.add_machine(format!("dgx-{i}"));
        b.add_gpus(machine, model, 8)?;
    }
    b.network(Network::uniform(intra, inter));
    b.build()
}

/// Draws `m` PAI GPU types i.i.d. with the weights of [`PAI_GPU_TYPES`]; returns the count
/// per type (same order).
fn draw_pai_types(m: usize, rng: &mut ChaCha8Rng) -> [usize; 5] {
    let dist = WeightedIndex::new(PAI_GPU_TYPES.iter().map(|t| t.1)).expect("positive weights");
    let mut counts = [0usize; 5];
    for _ in 0..m {
        counts[dist.sample(rng)] += 1;
    }
    counts
}

/// `m` idle GPUs with the GPU-model mix of the Alibaba PAI cluster: each GPU's type is drawn
/// with probability proportional to its GPU count in [`PAI_GPU_TYPES`] (MISC 33 %, P100
/// 24 %, V100M32 16 %, T4 15 %, V100 12 %), seeded (ChaCha8). GPUs of one type are packed
/// into machines of that type's size (8 for V100, V100M32, MISC; 2 for P100, T4), machines
/// ordered by type as in [`PAI_GPU_TYPES`]. Network: per machine pair, NVLink 2 inside V100
/// machines and PCIe 3.0 x16 inside the others ([`intra_link_for`]), 25 Gbit/s Ethernet
/// between machines.
///
/// Errors: [`ClusterError::InvalidParameter`] for `m == 0`, or beyond
/// [`MAX_PAIR_MACHINES`] machines (about 15,000 GPUs; checked before the network is
/// allocated); [`ClusterError::TooManyGpus`] beyond [`MAX_GPUS`] GPUs (checked before any
/// draw).
pub fn pai_mix(m: usize, seed: u64) -> Result<Cluster> {
    need_gpus(m, "pai-mix")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let counts = draw_pai_types(m, &mut rng);
    let machines: usize = PAI_GPU_TYPES
        .iter()
        .zip(&counts)
        .map(|(t, &c)| c.div_ceil(t.2))
        .sum();
    need_pair_machines(machines, || format!("cluster pai-mix:{m}"))?;
    let mut b = ClusterBuilder::new(format!("pai-mix-{m}-seed{seed}"));
    let mut intra = Vec::new();
    for (&(code, _, per_machine), &count) in PAI_GPU_TYPES.iter().zip(&counts) {
        let model = pai_model(code).expect("PAI types map to catalog models");
        for i in 0..count.div_ceil(per_machine) {
            let machine = b.add_machine(format!("{code}-{i}"));
            b.add_gpus(machine, &model, (count - per_machine * i).min(per_machine))?;
            intra.push(intra_link_for(&model));
        }
    }
    b.network(Network::from_fn(intra.len(), |a, c| {
        if a == c { intra[a] } else { Link::ETHERNET_25G }
    }));
    b.build()
}

/// The simulated GPU pool of the WORL-RTGS experiments (Du et al., BDCC 9(11):284, 2025): `m`
/// GPUs, **one per machine** (the authors'
/// pool is a list of 50 or 500 machines), GPU models drawn as in [`pai_mix`], links between
/// GPUs random up to `max_mbit_s` ([`Network::paper_bandwidth`]: the "highest bandwidth 500 /
/// 2000" scenarios). Combine with [`LoadState::paper_busy`](crate::LoadState::paper_busy)
/// for the busy state.
///
/// Errors: [`ClusterError::InvalidParameter`] for `m == 0`, a bad `max_mbit_s`, or more
/// than [`MAX_PAIR_MACHINES`] GPUs (one per machine; checked before any work);
/// [`ClusterError::TooManyGpus`] beyond [`MAX_GPUS`].
pub fn paper_pool(m: usize, max_mbit_s: f64, seed: u64) -> Result<Cluster> {
    need_gpus(m, "paper-pool")?;
    need_pair_machines(m, || format!("cluster paper-pool:{m}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let counts = draw_pai_types(m, &mut rng);
    let mut b = ClusterBuilder::new(format!("paper-pool-{m}-bw{max_mbit_s}-seed{seed}"));
    for (&(code, _, _), &count) in PAI_GPU_TYPES.iter().zip(&counts) {
        let model = pai_model(code).expect("PAI types map to catalog models");
        for i in 0..count {
            let machine = b.add_machine(format!("{code}-{i}"));
            b.add_gpu(machine, &model)?;
        }
    }
    b.network(Network::paper_bandwidth(
        m,
        max_mbit_s,
        seed ^ 0x9e37_79b9_7f4a_7c15,
    )?);
    b.build()
}

/// A link known by name to the compact cluster file (`intra = "NVLink3"`, `inter =
/// "100GbE"`) and to [`link_by_name`]: the canonical name, other accepted spellings, the link
/// and where its bandwidth comes from. Latencies are order-of-magnitude modelling assumptions,
/// as for the [`Link`] constants.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct NamedLink {
    /// Canonical name, as written by [`Cluster::to_compact_toml_string`].
    pub name: &'static str,
    /// Other accepted spellings (matching ignores case, spaces, `-`, `_` and `.`).
    pub aliases: &'static [&'static str],
    /// Bandwidth (bytes/s) and latency (s).
    pub link: Link,
    /// Source of the bandwidth figure.
    pub source: &'static str,
}

/// The links the compact cluster file knows by name (`docs/cluster-file.md` has the table).
pub const NAMED_LINKS: &[NamedLink] = &[
    NamedLink {
        name: "NVLink2",
        aliases: &["NVLink 2.0", "NVLINK2"],
        link: Link::NVLINK2,
        source: "NVIDIA Tesla V100 datasheet: 300 GB/s aggregate NVLink (V100 SXM2)",
    },
    NamedLink {
        name: "NVLink3",
        aliases: &["NVLink 3.0", "NVLINK3"],
        link: Link::NVLINK3,
        source: "NVIDIA A100 datasheet: 600 GB/s NVLink (A100 SXM4)",
    },
    NamedLink {
        name: "NVLink4",
        aliases: &["NVLink 4.0", "NVLINK4"],
        link: Link::NVLINK4,
        source: "NVIDIA H100 datasheet: 900 GB/s NVLink (H100/H200 SXM)",
    },
    NamedLink {
        name: "PCIe3",
        aliases: &["PCIe 3.0", "PCIe3 x16", "PCIe 3.0 x16"],
        link: Link::PCIE3_X16,
        source: "PCI-SIG PCIe 3.0: 15.75 GB/s per direction at x16, ~12 GB/s achievable",
    },
    NamedLink {
        name: "PCIe4",
        aliases: &["PCIe 4.0", "PCIe4 x16", "PCIe 4.0 x16"],
        link: Link::PCIE4_X16,
        source: "PCI-SIG PCIe 4.0: 31.5 GB/s per direction at x16, ~24 GB/s achievable",
    },
    NamedLink {
        name: "PCIe5",
        aliases: &["PCIe 5.0", "PCIe5 x16", "PCIe 5.0 x16"],
        link: Link::PCIE5_X16,
        source: "PCI-SIG PCIe 5.0: 63 GB/s per direction at x16, ~48 GB/s achievable",
    },
    NamedLink {
        name: "1GbE",
        aliases: &["1G", "1 Gbit/s Ethernet"],
        link: Link::ETHERNET_1G,
        source: "IEEE 802.3ab: 1 Gbit/s",
    },
    NamedLink {
        name: "10GbE",
        aliases: &["10G", "10 Gbit/s Ethernet"],
        link: Link::ETHERNET_10G,
        source: "IEEE 802.3ae: 10 Gbit/s",
    },
    NamedLink {
        name: "25GbE",
        aliases: &["25G", "25 Gbit/s Ethernet"],
        link: Link::ETHERNET_25G,
        source: "IEEE 802.3by: 25 Gbit/s",
    },
    NamedLink {
        name: "40GbE",
        aliases: &["40G", "40 Gbit/s Ethernet"],
        link: Link::ETHERNET_40G,
        source: "IEEE 802.3ba: 40 Gbit/s",
    },
    NamedLink {
        name: "100GbE",
        aliases: &["100G", "100 Gbit/s Ethernet"],
        link: Link::ETHERNET_100G,
        source: "IEEE 802.3bj/ba: 100 Gbit/s",
    },
    NamedLink {
        name: "200GbE",
        aliases: &["200G", "200 Gbit/s Ethernet"],
        link: Link::ETHERNET_200G,
        source: "IEEE 802.3bs/cd: 200 Gbit/s",
    },
    NamedLink {
        name: "400GbE",
        aliases: &["400G", "400 Gbit/s Ethernet"],
        link: Link::ETHERNET_400G,
        source: "IEEE 802.3bs: 400 Gbit/s",
    },
    NamedLink {
        name: "IB-EDR",
        aliases: &["EDR", "InfiniBand EDR"],
        link: Link::INFINIBAND_EDR,
        source: "InfiniBand Trade Association: EDR 4x, 100 Gbit/s per port (DGX-1)",
    },
    NamedLink {
        name: "IB-HDR",
        aliases: &["HDR", "InfiniBand HDR"],
        link: Link::INFINIBAND_HDR,
        source: "InfiniBand Trade Association: HDR 4x, 200 Gbit/s per port (DGX A100)",
    },
    NamedLink {
        name: "IB-NDR",
        aliases: &["NDR", "InfiniBand NDR"],
        link: Link::INFINIBAND_NDR,
        source: "InfiniBand Trade Association: NDR 4x, 400 Gbit/s per port (DGX H100)",
    },
];

/// `s` lower-cased without spaces, `-`, `_` and `.`: how link names are compared.
fn link_key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The link of [`NAMED_LINKS`] called `name` (its canonical name or an alias, ignoring case,
/// spaces, `-`, `_` and `.`: `"nvlink-3"`, `"100 GbE"`, `"InfiniBand HDR"`); `None` for
/// anything else.
///
/// ```
/// use worl_cluster::{presets::link_by_name, Link};
/// assert_eq!(link_by_name("100GbE"), Some(Link::ETHERNET_100G));
/// assert_eq!(link_by_name("infiniband ndr"), Some(Link::INFINIBAND_NDR));
/// assert_eq!(link_by_name("carrier pigeon"), None);
/// ```
pub fn link_by_name(name: &str) -> Option<Link> {
    let key = link_key(name);
    NAMED_LINKS
        .iter()
        .find(|n| link_key(n.name) == key || n.aliases.iter().any(|a| link_key(a) == key))
        .map(|n| n.link)
}

/// The canonical name of `link` in [`NAMED_LINKS`] (bandwidth and latency both equal), or
/// `None`.
pub fn link_name(link: &Link) -> Option<&'static str> {
    NAMED_LINKS.iter().find(|n| n.link == *link).map(|n| n.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{GpuId, MachineId};

    #[test]
    fn homogeneous_and_dgx_shapes() {
        let c = homogeneous(17, &GpuModel::v100_16gb()).unwrap();
        assert_eq!((c.n_gpus(), c.n_machines()), (17, 3));
        assert_eq!(c.gpus_of(MachineId::new(2)).len(), 1);
        assert!(homogeneous(0, &GpuModel::t4()).is_err());
        let d = dgx(2, &GpuModel::a100_80gb()).unwrap();
        assert_eq!(d.n_gpus(), 16);
        assert_eq!(d.link(GpuId::new(0), GpuId::new(7)), Some(Link::NVLINK3));
        assert_eq!(
            d.link(GpuId::new(0), GpuId::new(8)),
            Some(Link::INFINIBAND_HDR)
        );
        assert!(dgx(0, &GpuModel::h100()).is_err());
    }

    #[test]
    fn pai_mix_is_seeded_and_close_to_the_table() {
        let a = pai_mix(2000, 5).unwrap();
        assert_eq!(a, pai_mix(2000, 5).unwrap());
        assert_ne!(a, pai_mix(2000, 6).unwrap());
        assert_eq!(a.n_gpus(), 2000);
        let counts = a.gpu_counts();
        let total: usize = PAI_GPU_TYPES.iter().map(|t| t.1).sum();
        assert_eq!(total, 6742);
        for (code, n, _) in PAI_GPU_TYPES {
            let name = pai_model(code).unwrap().name;
            let p = n as f64 / total as f64;
            let got = counts[&name] as f64 / 2000.0;
            // 5 standard deviations of a binomial proportion at n = 2000
            assert!(
                (got - p).abs() < 5.0 * (p * (1.0 - p) / 2000.0).sqrt(),
                "{code}: {got} vs {p}"
            );
        }
        for m in 0..a.n_machines() {
            let gpus = a.gpus_of(MachineId::new(m));
            assert!(!gpus.is_empty() && gpus.len() <= 8);
            let model = &a.gpu(gpus[0]).model;
            assert!(gpus.iter().all(|&g| &a.gpu(g).model == model));
        }
    }

    #[test]
    fn paper_pool_has_one_gpu_per_machine() {
        let c = paper_pool(50, 2000.0, 1).unwrap();
        assert_eq!((c.n_gpus(), c.n_machines()), (50, 50));
        let l = c.link(GpuId::new(0), GpuId::new(1)).unwrap();
        assert!(l.bandwidth <= 250.0e6 && l.bandwidth >= 25.0e6 && l.latency == 0.0);
    }
}
