//! The network between GPUs: bandwidth `B(k,l)` (bytes/s) and latency `L(k,l)` (s).
//!
//! The network is given between **machines**: entry `[a, b]` (`a != b`) is the link between a
//! GPU of machine `a` and a GPU of machine `b`; the diagonal `[a, a]` is the intra-machine
//! link (NVLink or PCIe) between two distinct GPUs of machine `a`. A transfer between tasks on
//! the *same* GPU is free (`comm = 0 if k = l`, `docs/model.md`, "Costs").
//!
//! Units: bandwidth in **bytes per second**, latency in **seconds**. Helpers convert from
//! the units vendors and papers use: [`mbit_per_s`], [`gbit_per_s`], [`gbyte_per_s`].

use crate::error::{ClusterError, Result, non_negative, positive};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// `x` megabits per second in bytes per second: `x · 10⁶ / 8`.
///
/// The "highest bandwidth 500 / 2000" scenarios of the WORL-RTGS experiments (Du et al.,
/// BDCC 9(11):284, 2025) are read as Mbit/s:
/// 500 Mbit/s = 62.5 · 10⁶ bytes/s.
#[inline]
pub fn mbit_per_s(x: f64) -> f64 {
    x * 1.0e6 / 8.0
}

/// `x` gigabits per second in bytes per second: `x · 10⁹ / 8` (e.g. 25 GbE = 3.125 · 10⁹ B/s).
#[inline]
pub fn gbit_per_s(x: f64) -> f64 {
    x * 1.0e9 / 8.0
}

/// `x` gigabytes per second (10⁹ bytes) in bytes per second.
#[inline]
pub fn gbyte_per_s(x: f64) -> f64 {
    x * 1.0e9
}

/// One kind of link: bandwidth (bytes/s, finite `> 0`) and latency (s, finite `>= 0`).
///
/// The constants are defaults with stated sources. Bandwidths are the nominal rates
/// named; latencies are order-of-magnitude **modelling assumptions** (time to start a
/// transfer: CUDA peer copy on NVLink/PCIe, RDMA on InfiniBand, a TCP message on Ethernet),
/// not measurements — build your own with [`Link::new`].
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Latency, s.
    pub latency: f64,
}

impl Link {
    /// NVLink 2.0 (V100 SXM2): 300 GB/s, the V100 datasheet's aggregate NVLink bandwidth;
    /// latency 5 µs (assumption).
    pub const NVLINK2: Link = Link {
        bandwidth: 300.0e9,
        latency: 5.0e-6,
    };
    /// NVLink 3.0 (A100 SXM4): 600 GB/s (A100 datasheet); latency 5 µs (assumption).
    pub const NVLINK3: Link = Link {
        bandwidth: 600.0e9,
        latency: 5.0e-6,
    };
    /// NVLink 4.0 (H100/H200 SXM): 900 GB/s (H100 datasheet); latency 5 µs (assumption).
    pub const NVLINK4: Link = Link {
        bandwidth: 900.0e9,
        latency: 5.0e-6,
    };
    /// PCIe 3.0 x16: ~12 GB/s achievable of the 15.75 GB/s per direction that 16 lanes at
    /// 8 GT/s with 128b/130b encoding give (PCI-SIG PCIe 3.0 base specification); latency
    /// 10 µs (assumption).
    pub const PCIE3_X16: Link = Link {
        bandwidth: 12.0e9,
        latency: 10.0e-6,
    };
    /// PCIe 4.0 x16: ~24 GB/s achievable of 31.5 GB/s per direction (PCIe 4.0 doubles the
    /// rate to 16 GT/s); latency 10 µs (assumption).
    pub const PCIE4_X16: Link = Link {
        bandwidth: 24.0e9,
        latency: 10.0e-6,
    };
    /// 10 Gbit/s Ethernet (IEEE 802.3ae): 1.25 · 10⁹ B/s; latency 50 µs (assumption).
    pub const ETHERNET_10G: Link = Link {
        bandwidth: 1.25e9,
        latency: 50.0e-6,
    };
    /// 25 Gbit/s Ethernet (IEEE 802.3by): 3.125 · 10⁹ B/s; latency 50 µs (assumption).
    pub const ETHERNET_25G: Link = Link {
        bandwidth: 3.125e9,
        latency: 50.0e-6,
    };
    /// 100 Gbit/s Ethernet (IEEE 802.3bj/ba): 12.5 · 10⁹ B/s; latency 20 µs (assumption).
    pub const ETHERNET_100G: Link = Link {
        bandwidth: 12.5e9,
        latency: 20.0e-6,
    };
    /// InfiniBand EDR, 100 Gbit/s per port (DGX-1 class): 12.5 · 10⁹ B/s; latency 5 µs
    /// (assumption).
    pub const INFINIBAND_EDR: Link = Link {
        bandwidth: 12.5e9,
        latency: 5.0e-6,
    };
    /// InfiniBand HDR, 200 Gbit/s per port (DGX A100 class): 25 · 10⁹ B/s; latency 5 µs
    /// (assumption).
    pub const INFINIBAND_HDR: Link = Link {
        bandwidth: 25.0e9,
        latency: 5.0e-6,
    };
    /// InfiniBand NDR, 400 Gbit/s per port (DGX H100 class): 50 · 10⁹ B/s; latency 5 µs
    /// (assumption).
    pub const INFINIBAND_NDR: Link = Link {
        bandwidth: 50.0e9,
        latency: 5.0e-6,
    };
    /// 1 Gbit/s Ethernet (IEEE 802.3ab): 125 · 10⁶ B/s; latency 100 µs (assumption).
    pub const ETHERNET_1G: Link = Link {
        bandwidth: 125.0e6,
        latency: 100.0e-6,
    };
    /// 40 Gbit/s Ethernet (IEEE 802.3ba): 5 · 10⁹ B/s; latency 50 µs (assumption, as 25 GbE).
    pub const ETHERNET_40G: Link = Link {
        bandwidth: 5.0e9,
        latency: 50.0e-6,
    };
    /// 200 Gbit/s Ethernet (IEEE 802.3bs/cd): 25 · 10⁹ B/s; latency 20 µs (assumption, as
    /// 100 GbE).
    pub const ETHERNET_200G: Link = Link {
        bandwidth: 25.0e9,
        latency: 20.0e-6,
    };
    /// 400 Gbit/s Ethernet (IEEE 802.3bs): 50 · 10⁹ B/s; latency 20 µs (assumption, as 100 GbE).
    pub const ETHERNET_400G: Link = Link {
        bandwidth: 50.0e9,
        latency: 20.0e-6,
    };
    /// PCIe 5.0 x16: ~48 GB/s achievable of the 63 GB/s per direction that 16 lanes at 32 GT/s
    /// with 128b/130b encoding give (PCI-SIG PCIe 5.0 base specification; the same ~76 % as
    /// [`Link::PCIE4_X16`]); latency 10 µs (assumption).
    pub const PCIE5_X16: Link = Link {
        bandwidth: 48.0e9,
        latency: 10.0e-6,
    };

    /// A link with `bandwidth` bytes/s and `latency` s.
    ///
    /// Errors: [`ClusterError::InvalidValue`] if the bandwidth is not finite and `> 0` or the
    /// latency not finite and `>= 0`.
    pub fn new(bandwidth: f64, latency: f64) -> Result<Self> {
        let l = Self { bandwidth, latency };
        l.validate(|| "link".to_owned())?;
        Ok(l)
    }

    fn validate(&self, item: impl Fn() -> String) -> Result<()> {
        positive(&item, "bandwidth", self.bandwidth)?;
        non_negative(&item, "latency", self.latency)
    }

    /// Transfer time of `bytes` over this link: `latency + bytes / bandwidth`, s.
    #[inline]
    pub fn transfer_time(&self, bytes: f64) -> f64 {
        self.latency + bytes / self.bandwidth
    }
}

/// The network between the machines of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Network {
    /// The same `intra` link between any two GPUs of one machine and the same `inter` link
    /// between GPUs of different machines.
    Uniform {
        /// Between two distinct GPUs of one machine.
        intra: Link,
        /// Between GPUs of different machines.
        inter: Link,
    },
    /// A link per ordered machine pair: `bandwidth[[a, b]]` (bytes/s) and `latency[[a, b]]`
    /// (s), both of shape `[n_machines, n_machines]`; the diagonal is the intra-machine link.
    /// Matrices need not be symmetric.
    PerMachinePair {
        /// Bandwidth, bytes/s, shape `[n_machines, n_machines]`.
        bandwidth: Array2<f64>,
        /// Latency, s, shape `[n_machines, n_machines]`.
        latency: Array2<f64>,
    },
}

impl Network {
    /// A uniform network: `intra` inside machines, `inter` between them.
    pub fn uniform(intra: Link, inter: Link) -> Self {
        Self::Uniform { intra, inter }
    }

    /// A per-machine-pair network from its matrices (bytes/s and s; validated when the
    /// cluster is built).
    pub fn from_matrices(bandwidth: Array2<f64>, latency: Array2<f64>) -> Self {
        Self::PerMachinePair { bandwidth, latency }
    }

    /// A per-machine-pair network whose links are given by `link(a, b)` (machine indices).
    pub fn from_fn(n_machines: usize, mut link: impl FnMut(usize, usize) -> Link) -> Self {
        let mut bandwidth = Array2::zeros((n_machines, n_machines));
        let mut latency = Array2::zeros((n_machines, n_machines));
        for a in 0..n_machines {
            for b in 0..n_machines {
                let l = link(a, b);
                bandwidth[[a, b]] = l.bandwidth;
                latency[[a, b]] = l.latency;
            }
        }
        Self::PerMachinePair { bandwidth, latency }
    }

    /// Random symmetric inter-machine links, seeded: for each unordered pair of distinct
    /// machines the bandwidth is drawn uniformly from `[min_fraction · max_bandwidth,
    /// max_bandwidth]` (bytes/s) and the latency is `inter_latency` (s); the diagonal is
    /// `intra`. Same seed, same network (ChaCha8).
    ///
    /// This models the WORL-RTGS scenarios "highest bandwidth 500 / 2000" (Du et al., BDCC
    /// 9(11):284, 2025: links drawn at random up to a cap); see
    /// [`paper_bandwidth`](Self::paper_bandwidth).
    ///
    /// Errors: [`ClusterError::InvalidParameter`] if `n_machines == 0`, `max_bandwidth` is not
    /// finite and `> 0`, or `min_fraction` is not in `(0, 1]`;
    /// [`ClusterError::InvalidValue`] for a bad `intra` link or latency.
    pub fn random_links(
        n_machines: usize,
        intra: Link,
        max_bandwidth: f64,
        min_fraction: f64,
        inter_latency: f64,
        seed: u64,
    ) -> Result<Self> {
        if n_machines == 0 {
            return Err(ClusterError::InvalidParameter {
                name: "n_machines",
                reason: "must be >= 1".to_owned(),
            });
        }
        if !(max_bandwidth.is_finite() && max_bandwidth > 0.0) {
            return Err(ClusterError::InvalidParameter {
                name: "max_bandwidth",
                reason: format!("{max_bandwidth} is not a finite number > 0 (bytes/s)"),
            });
        }
        if !(min_fraction > 0.0 && min_fraction <= 1.0) {
            return Err(ClusterError::InvalidParameter {
                name: "min_fraction",
                reason: format!("{min_fraction} is not in (0, 1]"),
            });
        }
        intra.validate(|| "intra-machine link".to_owned())?;
        non_negative(|| "inter-machine link".to_owned(), "latency", inter_latency)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let lo = min_fraction * max_bandwidth;
        let mut bandwidth = Array2::zeros((n_machines, n_machines));
        let mut latency = Array2::from_elem((n_machines, n_machines), inter_latency);
        for a in 0..n_machines {
            bandwidth[[a, a]] = intra.bandwidth;
            latency[[a, a]] = intra.latency;
            for b in a + 1..n_machines {
                let bw = if lo < max_bandwidth {
                    rng.random_range(lo..=max_bandwidth)
                } else {
                    max_bandwidth
                };
                bandwidth[[a, b]] = bw;
                bandwidth[[b, a]] = bw;
            }
        }
        Ok(Self::PerMachinePair { bandwidth, latency })
    }

    /// The WORL-RTGS network scenario "highest bandwidth `max_mbit_s`" (500 or 2000; Du et
    /// al., BDCC 9(11):284, 2025): random symmetric links between machines, bandwidth uniform in
    /// `[0.1 · max, max]` Mbit/s (converted to bytes/s with [`mbit_per_s`]), zero latency
    /// (the reconstructed NIP's `T_comm = z / b` has none), PCIe 3.0 x16 inside a machine.
    /// Units and the lower end 10 % are our assumptions (the paper's are not published).
    ///
    /// Errors: as [`random_links`](Self::random_links).
    pub fn paper_bandwidth(n_machines: usize, max_mbit_s: f64, seed: u64) -> Result<Self> {
        Self::random_links(
            n_machines,
            Link::PCIE3_X16,
            mbit_per_s(max_mbit_s),
            0.1,
            0.0,
            seed,
        )
    }

    /// Bandwidth between a GPU of machine `a` and a GPU of machine `b` (machine indices;
    /// `a == b`: two distinct GPUs of one machine), bytes/s.
    ///
    /// # Panics
    /// If `a` or `b` is out of range of a per-machine-pair network.
    pub fn bandwidth(&self, a: usize, b: usize) -> f64 {
        match self {
            Self::Uniform { intra, inter } => {
                if a == b {
                    intra.bandwidth
                } else {
                    inter.bandwidth
                }
            }
            Self::PerMachinePair { bandwidth, .. } => bandwidth[[a, b]],
        }
    }

    /// Latency between a GPU of machine `a` and a GPU of machine `b`, s (see
    /// [`bandwidth`](Self::bandwidth)).
    ///
    /// # Panics
    /// If `a` or `b` is out of range of a per-machine-pair network.
    pub fn latency(&self, a: usize, b: usize) -> f64 {
        match self {
            Self::Uniform { intra, inter } => {
                if a == b {
                    intra.latency
                } else {
                    inter.latency
                }
            }
            Self::PerMachinePair { latency, .. } => latency[[a, b]],
        }
    }

    /// Checks the network for a cluster with machines named `machines`: matrix shapes
    /// `[n, n]`, every bandwidth finite `> 0`, every latency finite `>= 0`.
    ///
    /// Errors: [`ClusterError::ShapeMismatch`], [`ClusterError::InvalidValue`] naming the
    /// link as `link <machine> -> <machine>`.
    pub fn validate(&self, machines: &[String]) -> Result<()> {
        match self {
            Self::Uniform { intra, inter } => {
                intra.validate(|| "intra-machine link".to_owned())?;
                inter.validate(|| "inter-machine link".to_owned())
            }
            Self::PerMachinePair { bandwidth, latency } => {
                let n = machines.len();
                for (what, m) in [("bandwidth matrix", bandwidth), ("latency matrix", latency)] {
                    if m.dim() != (n, n) {
                        return Err(ClusterError::ShapeMismatch {
                            what,
                            expected: (n, n),
                            actual: m.dim(),
                        });
                    }
                }
                for ((a, b), &bw) in bandwidth.indexed_iter() {
                    let item = || format!("link {} -> {}", machines[a], machines[b]);
                    positive(item, "bandwidth", bw)?;
                    non_negative(item, "latency", latency[[a, b]])?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(mbit_per_s(500.0), 62.5e6);
        assert_eq!(gbit_per_s(25.0), 3.125e9);
        assert_eq!(gbyte_per_s(12.0), 12.0e9);
        assert!((Link::ETHERNET_10G.transfer_time(1.25e9) - (1.0 + 50e-6)).abs() < 1e-12);
    }

    #[test]
    fn random_links_are_seeded_symmetric_and_bounded() {
        let a = Network::paper_bandwidth(20, 500.0, 7).unwrap();
        let b = Network::paper_bandwidth(20, 500.0, 7).unwrap();
        let c = Network::paper_bandwidth(20, 500.0, 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let names: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        a.validate(&names).unwrap();
        for i in 0..20 {
            assert_eq!(a.bandwidth(i, i), Link::PCIE3_X16.bandwidth);
            for j in 0..20 {
                assert_eq!(a.bandwidth(i, j), a.bandwidth(j, i));
                if i != j {
                    assert!(a.bandwidth(i, j) >= 6.25e6 && a.bandwidth(i, j) <= 62.5e6);
                    assert_eq!(a.latency(i, j), 0.0);
                }
            }
        }
    }

    #[test]
    fn validate_names_the_link() {
        let mut bw = Array2::from_elem((2, 2), 1.0);
        bw[[0, 1]] = 0.0;
        let net = Network::from_matrices(bw, Array2::zeros((2, 2)));
        let err = net
            .validate(&["a".to_owned(), "b".to_owned()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("link a -> b"), "{err}");
        let net = Network::from_matrices(Array2::from_elem((3, 2), 1.0), Array2::zeros((2, 2)));
        assert!(matches!(
            net.validate(&["a".to_owned(), "b".to_owned()]),
            Err(ClusterError::ShapeMismatch { .. })
        ));
    }
}
