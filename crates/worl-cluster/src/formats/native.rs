//! The native cluster file format, TOML or JSON: [`Cluster::to_toml_string`] /
//! [`Cluster::from_toml_str`], [`Cluster::to_json_string`] / [`Cluster::from_json_str`], and
//! [`Cluster::load`] / [`Cluster::save`] by file extension. [`Cluster`] implements
//! `Serialize` and `Deserialize` through this format; reading checks everything
//! [`ClusterBuilder::build`](crate::ClusterBuilder::build) checks.
//!
//! ```toml
//! name = "two-nodes"
//! machines = ["node-0", "node-1"]
//!
//! [network]
//! kind = "uniform"                    # or "per_machine_pair" with bandwidth/latency matrices
//! intra = { bandwidth = 12e9, latency = 1e-5 }   # bytes/s, s
//! inter = { bandwidth = 3.125e9, latency = 5e-5 }
//!
//! [[gpus]]
//! model = "V100-32GB"                 # a catalog name, or one defined under [[models]]
//! machine = 0                         # index into `machines`
//! ready_time = 0.0                    # optional, s
//! background = 0.0                    # optional, in [0, 1)
//! busy = ["2 h..4 h", [50400, 57600]] # optional busy windows [from, to): "FROM..TO" or s
//! # speed = 1.0, mem_gib = 32.0       # optional, default to the model's
//! ```
//!
//! `busy` lists the GPU's busy windows (half-open `[from, to)`, see
//! [`Gpu::busy`](crate::Gpu::busy)), each a pair of numbers in s or a string `FROM..TO` with
//! units ([`parse_window`](super::compact::parse_window)); writing gives pairs in s.
//!
//! Models named by GPUs but absent from `[[models]]` are taken from the catalog
//! ([`GpuModel::by_name`](crate::GpuModel::by_name), which also knows the Alibaba trace codes such as `V100M32`). Writing
//! gives every GPU its speed and memory explicitly.
//!
//! The readers also accept the compact form ([`formats::compact`](super::compact): "4
//! machines of 8 A100-80GB on 100GbE", `docs/cluster-file.md`), told apart by its top-level
//! `machines` (an integer, not a list); [`Cluster::to_compact_toml_string`] writes it where
//! it applies.

use super::compact;
use crate::catalog::GpuModel;
use crate::cluster::{Cluster, ClusterParts, GpuEntry};
use crate::error::{ClusterError, Result};
use crate::ids::MachineId;
use crate::network::Network;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::Path;

impl Serialize for Cluster {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.clone().into_parts().serialize(serializer)
    }
}

/// A GPU of the native form as read: [`GpuEntry`] with `busy` windows that may also be
/// `FROM..TO` strings.
#[derive(Deserialize)]
struct RawGpu {
    model: String,
    machine: MachineId,
    #[serde(default)]
    speed: Option<f64>,
    #[serde(default)]
    mem_gib: Option<f64>,
    #[serde(default)]
    ready_time: f64,
    #[serde(default)]
    background: f64,
    #[serde(default, deserialize_with = "compact::deserialize_windows")]
    busy: Vec<(f64, f64)>,
}

/// The native form as read: [`ClusterParts`] with [`RawGpu`]s.
#[derive(Deserialize)]
struct RawParts {
    name: String,
    machines: Vec<String>,
    network: Network,
    #[serde(default)]
    models: Vec<GpuModel>,
    gpus: Vec<RawGpu>,
}

impl<'de> Deserialize<'de> for Cluster {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let raw = RawParts::deserialize(deserializer)?;
        let parts = ClusterParts {
            name: raw.name,
            machines: raw.machines,
            network: raw.network,
            models: raw.models,
            gpus: raw
                .gpus
                .into_iter()
                .map(|g| GpuEntry {
                    model: g.model,
                    machine: g.machine,
                    speed: g.speed,
                    mem_gib: g.mem_gib,
                    ready_time: g.ready_time,
                    background: g.background,
                    busy: g.busy,
                })
                .collect(),
        };
        Cluster::from_parts(parts).map_err(serde::de::Error::custom)
    }
}

impl Cluster {
    /// The cluster in the native JSON format.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).expect("a cluster serialises to JSON")
    }

    /// Reads a cluster from JSON, in the native (verbose) form or the
    /// compact one ([`formats::compact`](super::compact); a top-level `machines` that is not
    /// a list).
    ///
    /// Errors: [`ClusterError::Parse`] (file `<memory>`, with line) for malformed JSON or an
    /// invalid cluster.
    pub fn from_json_str(text: &str) -> Result<Self> {
        if compact::is_compact_json(text)? {
            return compact::from_json(text);
        }
        serde_json::from_str(text).map_err(|e| ClusterError::Parse {
            file: "<memory>".to_owned(),
            line: e.line(),
            message: e.to_string(),
        })
    }

    /// The cluster in the native TOML format.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] if TOML cannot express it (it always can
    /// for a valid cluster; reported rather than panicking).
    pub fn to_toml_string(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| ClusterError::InvalidParameter {
            name: "cluster",
            reason: format!("cannot write TOML: {e}"),
        })
    }

    /// Reads a cluster from TOML, in the native (verbose) form or the
    /// compact one ([`formats::compact`](super::compact); a top-level `machines` that is not
    /// a list).
    ///
    /// Errors: [`ClusterError::Parse`] (file `<memory>`, with line) for malformed TOML or an
    /// invalid cluster, and (line 0) for a text with more than [`MAX_TOML_TABLES`] table
    /// openings, checked before the TOML is parsed.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        check_table_count(text)?;
        if compact::is_compact_toml(text)? {
            return compact::from_toml(text);
        }
        toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            ClusterError::Parse {
                file: "<memory>".to_owned(),
                line,
                message: e.message().to_owned(),
            }
        })
    }

    /// Reads a cluster file, TOML for `*.toml`, JSON otherwise, in the native (verbose) or the
    /// compact form ([`formats::compact`](super::compact), `docs/cluster-file.md`).
    ///
    /// Errors: [`ClusterError::Io`], [`ClusterError::Parse`] naming the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ClusterError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = worl_dag::formats::strip_bom(&text);
        let parsed = if is_toml(path) {
            Self::from_toml_str(text)
        } else {
            Self::from_json_str(text)
        };
        parsed.map_err(|e| match e {
            ClusterError::Parse { line, message, .. } => ClusterError::Parse {
                file: path.display().to_string(),
                line,
                message,
            },
            other => other,
        })
    }

    /// Writes the cluster in the native format, TOML for `*.toml`, JSON otherwise (JSON
    /// streamed to the file).
    ///
    /// Errors: [`ClusterError::Io`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let io = |source| ClusterError::Io {
            path: path.to_owned(),
            source,
        };
        if is_toml(path) {
            let text = self.to_toml_string()?;
            return std::fs::write(path, text).map_err(io);
        }
        // JSON is streamed: a 4,096-machine per-pair network is 680 MB of text.
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        serde_json::to_writer_pretty(&mut out, self).map_err(|e| io(std::io::Error::other(e)))?;
        std::io::Write::flush(&mut out).map_err(io)
    }
}

/// The most machines of a per-machine-pair network that [`Cluster::check_writable`] lets a
/// command write as a cluster file: 1,024 (two `1,024²` matrices, about 42 MB of JSON or 26
/// MB of TOML). Larger ones (up to [`MAX_PAIR_MACHINES`](crate::cluster::MAX_PAIR_MACHINES),
/// 4,096: 680 MB of JSON) are refused rather than written; a preset such as
/// `paper-pool:4096:500` is rebuilt from its description (and seed) wherever a cluster is
/// asked for, so the description itself is the compact file. saga instances (`worl-io`'s
/// `saga::write`) are refused past the same count.
pub const MAX_WRITTEN_PAIR_MACHINES: usize = 1 << 10;

impl Cluster {
    /// Whether the cluster file of this cluster is within the size a command writes: a
    /// uniform network always is (its file grows with the GPUs); a per-machine-pair network
    /// of at most [`MAX_WRITTEN_PAIR_MACHINES`] machines is. `O(1)`.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] (`cluster`) naming the cluster, with the
    /// machine count and the limit.
    pub fn check_writable(&self) -> Result<()> {
        let n = self.n_machines();
        if matches!(self.network(), Network::PerMachinePair { .. }) && n > MAX_WRITTEN_PAIR_MACHINES
        {
            return Err(ClusterError::InvalidParameter {
                name: "cluster",
                reason: format!(
                    "cluster `{}` has {n} machines in a per-machine-pair network, whose file \
                     holds 2·n² link values; at most {MAX_WRITTEN_PAIR_MACHINES} machines are \
                     written: give the cluster's description instead",
                    self.name()
                ),
            });
        }
        Ok(())
    }

    /// Writes the cluster as [`to_compact_json_string`](Self::to_compact_json_string)'s
    /// text to `writer`, streamed (buffered; memory does not grow with the text).
    ///
    /// Errors: [`ClusterError::Io`] (path `<writer>`) if writing fails.
    pub fn write_compact_json(&self, writer: impl std::io::Write) -> Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, writer);
        let written = match crate::ClusterSpec::from_cluster(self) {
            Some(spec) => serde_json::to_writer_pretty(&mut out, &spec),
            None => serde_json::to_writer_pretty(&mut out, self),
        };
        let io = |source| ClusterError::Io {
            path: "<writer>".into(),
            source,
        };
        written.map_err(|e| io(std::io::Error::other(e)))?;
        std::io::Write::flush(&mut out).map_err(io)
    }
}

fn is_toml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// The most table openings (`{` and `[[`, counted in the raw text, strings included) a TOML
/// cluster text may hold: 4 per GPU of [`MAX_GPUS`](crate::MAX_GPUS). A cluster has at most
/// one `[[gpus]]` or inline table per GPU, one per machine and a few per model, so no
/// cluster within the limits needs more; the TOML reader builds every table of a document
/// before the cluster is checked (about 1.5 kB each: 750,000 inline tables of a 10 MB file
/// took 1.1 GB), so the count is checked first.
pub const MAX_TOML_TABLES: usize = 4 * crate::MAX_GPUS;

/// [`ClusterError::Parse`] if `text` opens more than [`MAX_TOML_TABLES`] tables.
fn check_table_count(text: &str) -> Result<()> {
    let tables = text.bytes().filter(|&b| b == b'{').count() + text.matches("[[").count();
    if tables > MAX_TOML_TABLES {
        return Err(ClusterError::Parse {
            file: "<memory>".to_owned(),
            line: 0,
            message: format!(
                "{tables} table openings (`{{` and `[[`), more than the {MAX_TOML_TABLES} a cluster of at most {} GPUs needs",
                crate::MAX_GPUS
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::LoadState;
    use crate::cluster::tests::two_machines;
    use crate::ids::GpuId;
    use crate::network::Network;

    #[test]
    fn native_formats_round_trip() {
        let mut c = two_machines();
        c.apply_load(&LoadState::paper_busy(), 3).unwrap();
        c.set_ready_time(GpuId::new(1), 12.5).unwrap();
        let t = c.to_toml_string().unwrap();
        assert_eq!(Cluster::from_toml_str(&t).unwrap(), c);
        let j = c.to_json_string();
        assert_eq!(Cluster::from_json_str(&j).unwrap(), c);
        let c2 = Cluster::from_parts(ClusterParts {
            network: Network::paper_bandwidth(2, 500.0, 1).unwrap(),
            ..c.into_parts()
        })
        .unwrap();
        assert_eq!(
            Cluster::from_toml_str(&c2.to_toml_string().unwrap()).unwrap(),
            c2
        );
    }

    #[test]
    fn minimal_toml_uses_catalog_defaults() {
        let text = r#"
name = "mini"
machines = ["n0"]
[network]
kind = "uniform"
intra = { bandwidth = 12e9, latency = 1e-5 }
inter = { bandwidth = 3.125e9, latency = 5e-5 }
[[gpus]]
model = "V100M32"
machine = 0
[[gpus]]
model = "A100"
machine = 0
background = 0.5
"#;
        let c = Cluster::from_toml_str(text).unwrap();
        assert_eq!(c.n_gpus(), 2);
        assert_eq!(c.gpu(GpuId::new(0)).model, "V100-32GB");
        assert_eq!(c.gpu(GpuId::new(0)).mem_gib, 32.0);
        assert!((c.gpu(GpuId::new(1)).effective_speed() - 0.5 * 2.076_66).abs() < 1e-4);
        let bad = text.replace("background = 0.5", "background = \"x\"");
        let err = Cluster::from_toml_str(&bad).unwrap_err();
        assert!(matches!(err, ClusterError::Parse { line: 14, .. }), "{err}");
        let bad = text.replace("machine = 0\nbackground", "machine = 4\nbackground");
        assert!(Cluster::from_toml_str(&bad).is_err());
        let bad = text.replace("\"A100\"", "\"Z9\"");
        let err = Cluster::from_toml_str(&bad).unwrap_err().to_string();
        assert!(err.contains("Z9"), "{err}");
    }
}
