//! Checkpoints: weights in burn's Burnpack format plus a serde JSON manifest, written
//! atomically.
//!
//! **Format.** One file (conventionally `*.bpk`) in burn-store's Burnpack format, produced by
//! [`BurnpackStore`] from a module holding both networks, with tensors
//! `online.layers.{l}.weight` `[d_in, d_out]`, `online.layers.{l}.bias` `[d_out]` and the same
//! under `target.` (all `f32`). The Burnpack metadata entry [`MANIFEST_KEY`] holds the
//! [`CheckpointManifest`] as JSON: format version, the full [`AgentConfig`], the network
//! architecture, the step counters, ε, and an FNV-1a 64 checksum of every weight. Keeping the
//! manifest inside the one file means weights and manifest can never disagree.
//!
//! **Atomicity.** The bytes are written to a temporary file in the destination directory,
//! flushed to disk (`fsync`), then renamed over the destination, so a crash leaves either the old
//! checkpoint or the new one, never a half-written file.
//!
//! **Loading** checks, before touching any network: the Burnpack header, the manifest, the
//! architecture (against the caller's when one is expected — [`DdqnError::ArchitectureMismatch`]),
//! every tensor's name, dtype, shape and byte length, and the checksum. Truncated or corrupted
//! files are [`DdqnError::CorruptCheckpoint`].
//!
//! Not saved: the replay buffer and Adam's moment estimates; a resumed agent restarts both
//! (its ε and target-update clocks continue from the saved step counters).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use burn::module::Module;
use burn::store::burn_pack::{Bytes, DType, Reader};
use burn::store::{BurnpackStore, ModuleSnapshot};
use serde::{Deserialize, Serialize};

use crate::agent::Agent;
use crate::config::AgentConfig;
use crate::device::ComputeDevice;
use crate::error::{DdqnError, Result};
use crate::mlp::{LayerWeights, NetworkSpec};
use crate::network::QNetwork;
use crate::snapshot::PolicySnapshot;

/// Burnpack metadata key holding the JSON manifest.
pub const MANIFEST_KEY: &str = "worl_ddqn.manifest";
/// Value of [`CheckpointManifest::format`].
pub const FORMAT_NAME: &str = "worl-ddqn-checkpoint";
/// Current [`CheckpointManifest::format_version`].
pub const FORMAT_VERSION: u32 = 1;

/// What a checkpoint says about itself (stored as JSON inside the Burnpack file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointManifest {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Version of `worl-ddqn` that wrote the file.
    pub crate_version: String,
    /// The agent's full configuration.
    pub config: AgentConfig,
    /// Architecture of both networks.
    pub spec: NetworkSpec,
    /// Acting steps taken (clock of the epsilon schedule).
    pub env_steps: u64,
    /// Training steps taken (clock of target updates and β annealing).
    pub train_steps: u64,
    /// ε at save time, ε(env_steps) — informative; recomputed from the schedule on load.
    pub epsilon: f64,
    /// FNV-1a 64 of the little-endian bytes of every weight, online then target network, layer
    /// by layer, weight then bias; 16 hex digits.
    pub weights_checksum: String,
}

/// Both networks as one module, so one Burnpack holds them under `online.` / `target.`.
#[derive(Module, Debug)]
struct CheckpointModules {
    online: QNetwork,
    target: QNetwork,
}

fn fnv1a64(layers: &[&[LayerWeights]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for net in layers {
        for l in *net {
            for v in l.weight.iter().chain(&l.bias) {
                for byte in v.to_le_bytes() {
                    h ^= byte as u64;
                    h = h.wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
    }
    format!("{h:016x}")
}

fn io_err(path: &Path, source: std::io::Error) -> DdqnError {
    DdqnError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Write `bytes` to `path` atomically: temporary file in the same directory, fsync, rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| {
            io_err(
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "path has no file name"),
            )
        })?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        f.write_all(bytes).map_err(|e| io_err(&tmp, e))?;
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(|e| io_err(path, e))?;
        // Persist the rename itself (best effort: not every platform can fsync a directory).
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Save `agent` (both networks, config, step counters, ε) to `path` atomically.
/// Returns the manifest written.
///
/// # Errors
/// [`DdqnError::Io`] if the file cannot be written, [`DdqnError::Backend`] if the weights
/// cannot be read back from the device.
pub fn save_checkpoint(agent: &Agent, path: impl AsRef<Path>) -> Result<CheckpointManifest> {
    let path = path.as_ref();
    let (config, online, target) = agent.parts();
    let online_w = online.layer_weights()?;
    let target_w = target.layer_weights()?;
    let manifest = CheckpointManifest {
        format: FORMAT_NAME.into(),
        format_version: FORMAT_VERSION,
        crate_version: env!("CARGO_PKG_VERSION").into(),
        config: config.clone(),
        spec: online.spec().clone(),
        env_steps: agent.env_steps(),
        train_steps: agent.train_steps(),
        epsilon: agent.epsilon(),
        weights_checksum: fnv1a64(&[&online_w, &target_w]),
    };
    let json = serde_json::to_string(&manifest)?;
    let modules = CheckpointModules {
        online: online.valid(),
        target: target.clone(),
    };
    let mut store = BurnpackStore::from_bytes(None).metadata(MANIFEST_KEY, json);
    modules
        .save_into(&mut store)
        .map_err(|e| DdqnError::Backend(format!("burnpack serialisation failed: {e}")))?;
    let bytes = store
        .get_bytes()
        .map_err(|e| DdqnError::Backend(format!("burnpack serialisation failed: {e}")))?;
    write_atomic(path, &bytes)?;
    Ok(manifest)
}

/// A checkpoint read and fully validated, weights on the host.
struct LoadedCheckpoint {
    manifest: CheckpointManifest,
    online: Vec<LayerWeights>,
    target: Vec<LayerWeights>,
}

fn corrupt(path: &Path, reason: impl Into<String>) -> DdqnError {
    DdqnError::CorruptCheckpoint {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn read_checkpoint(path: &Path, expected: Option<&NetworkSpec>) -> Result<LoadedCheckpoint> {
    let raw = std::fs::read(path).map_err(|e| io_err(path, e))?;
    let reader = Reader::from_bytes(Bytes::from_bytes_vec(raw))
        .map_err(|e| corrupt(path, format!("not a readable Burnpack file: {e}")))?;
    let json = reader
        .metadata()
        .get(MANIFEST_KEY)
        .ok_or_else(|| corrupt(path, format!("no `{MANIFEST_KEY}` manifest entry")))?
        .clone();
    let manifest: CheckpointManifest = serde_json::from_str(&json)
        .map_err(|e| corrupt(path, format!("unreadable manifest: {e}")))?;
    if manifest.format != FORMAT_NAME {
        return Err(corrupt(path, format!("format is `{}`", manifest.format)));
    }
    if manifest.format_version != FORMAT_VERSION {
        return Err(corrupt(
            path,
            format!(
                "format version {} (this build reads {FORMAT_VERSION})",
                manifest.format_version
            ),
        ));
    }
    manifest
        .config
        .validate()
        .map_err(|e| corrupt(path, format!("invalid config in manifest: {e}")))?;
    if manifest.config.network_spec() != manifest.spec {
        return Err(corrupt(path, "manifest config and spec disagree"));
    }
    if let Some(exp) = expected
        && *exp != manifest.spec
    {
        return Err(DdqnError::ArchitectureMismatch {
            path: path.to_path_buf(),
            expected: exp.describe(),
            found: manifest.spec.describe(),
        });
    }
    let spec = manifest.spec.clone();
    let shapes = spec.layer_shapes();
    let mut tensors = std::collections::BTreeMap::new();
    for t in reader
        .into_tensors()
        .map_err(|e| corrupt(path, format!("unreadable tensor table: {e}")))?
    {
        let (name, dtype, shape, _, bytes) = t
            .into_parts()
            .map_err(|e| corrupt(path, format!("unreadable tensor: {e}")))?;
        tensors.insert(name, (dtype, shape.as_slice().to_vec(), bytes));
    }
    let mut take = |name: String, dims: Vec<usize>| -> Result<Vec<f32>> {
        let (dtype, shape, bytes) = tensors
            .remove(&name)
            .ok_or_else(|| corrupt(path, format!("tensor `{name}` missing")))?;
        if shape != dims {
            // A well-formed file whose tensors disagree with its own manifest.
            return Err(corrupt(
                path,
                format!("tensor `{name}` has shape {shape:?}, manifest says {dims:?}"),
            ));
        }
        if dtype != DType::F32 {
            return Err(corrupt(
                path,
                format!("tensor `{name}` is {dtype:?}, not F32"),
            ));
        }
        let n: usize = dims.iter().product();
        if bytes.len() != 4 * n {
            return Err(corrupt(
                path,
                format!(
                    "tensor `{name}` holds {} bytes, needs {}",
                    bytes.len(),
                    4 * n
                ),
            ));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    };
    let mut net = |prefix: &str| -> Result<Vec<LayerWeights>> {
        shapes
            .iter()
            .enumerate()
            .map(|(l, &(d_input, d_output))| {
                Ok(LayerWeights {
                    d_input,
                    d_output,
                    weight: take(
                        format!("{prefix}.layers.{l}.weight"),
                        vec![d_input, d_output],
                    )?,
                    bias: take(format!("{prefix}.layers.{l}.bias"), vec![d_output])?,
                })
            })
            .collect()
    };
    let online = net("online")?;
    let target = net("target")?;
    let sum = fnv1a64(&[&online, &target]);
    if sum != manifest.weights_checksum {
        return Err(corrupt(
            path,
            format!(
                "weights checksum {sum} differs from the manifest's {}",
                manifest.weights_checksum
            ),
        ));
    }
    Ok(LoadedCheckpoint {
        manifest,
        online,
        target,
    })
}

/// Read only the manifest of a checkpoint (validated as by [`load_checkpoint`]).
///
/// # Errors
/// As [`load_checkpoint`].
pub fn read_manifest(path: impl AsRef<Path>) -> Result<CheckpointManifest> {
    Ok(read_checkpoint(path.as_ref(), None)?.manifest)
}

/// Load an agent from a checkpoint onto `device`: both networks, config and step counters
/// (fresh replay buffer and Adam state). Q-values equal those of the saved agent.
///
/// # Errors
/// [`DdqnError::Io`] if the file cannot be read, [`DdqnError::CorruptCheckpoint`] for a
/// truncated, corrupted or foreign file.
pub fn load_checkpoint(path: impl AsRef<Path>, device: &ComputeDevice) -> Result<Agent> {
    load_checkpoint_checked(path, device, None)
}

/// As [`load_checkpoint`], refusing a file whose architecture differs from `expected`.
///
/// # Errors
/// [`DdqnError::ArchitectureMismatch`] for another architecture, and the errors of
/// [`load_checkpoint`].
pub fn load_checkpoint_expecting(
    path: impl AsRef<Path>,
    device: &ComputeDevice,
    expected: &NetworkSpec,
) -> Result<Agent> {
    load_checkpoint_checked(path, device, Some(expected))
}

fn load_checkpoint_checked(
    path: impl AsRef<Path>,
    device: &ComputeDevice,
    expected: Option<&NetworkSpec>,
) -> Result<Agent> {
    let loaded = read_checkpoint(path.as_ref(), expected)?;
    let spec = &loaded.manifest.spec;
    let train_device = device.device().clone().autodiff();
    let online = QNetwork::from_weights(spec, &loaded.online, &train_device)?;
    let target = QNetwork::from_weights(spec, &loaded.target, device.device())?;
    Agent::assemble(
        loaded.manifest.config,
        device,
        online,
        Some(target),
        loaded.manifest.env_steps,
        loaded.manifest.train_steps,
    )
}

/// Load the online network of a checkpoint straight into a [`PolicySnapshot`] (no device
/// needed) — how a scheduler loads a trained policy — refusing another architecture.
///
/// # Errors
/// [`DdqnError::ArchitectureMismatch`], [`DdqnError::CorruptCheckpoint`], [`DdqnError::Io`].
pub fn load_policy(path: impl AsRef<Path>, expected: &NetworkSpec) -> Result<PolicySnapshot> {
    let loaded = read_checkpoint(path.as_ref(), Some(expected))?;
    PolicySnapshot::from_layers(loaded.manifest.spec, loaded.online)
}
