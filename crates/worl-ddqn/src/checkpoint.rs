//! Checkpoints: weights in burn's Burnpack format plus a serde JSON manifest, written
//! atomically.
//!
//! **Format.** One file (conventionally `*.bpk`) in burn-store's Burnpack format, produced by
//! [`BurnpackStore`] from a module holding both networks, with tensors
//! `online.layers.{l}.weight` `[d_in, d_out]`, `online.layers.{l}.bias` `[d_out]` and the same
//! under `target.` (all `f32`). The Burnpack metadata entry [`MANIFEST_KEY`] holds the
//! [`CheckpointManifest`] as JSON: format version, the full [`AgentConfig`], the network
//! architecture, the step counters, ε, an FNV-1a 64 checksum of every weight, and an FNV-1a 64
//! checksum of the manifest itself. Keeping the manifest inside the one file means weights and
//! manifest can never disagree.
//!
//! **Manifest checksum** (format version 2). [`CheckpointManifest::manifest_checksum`] is the
//! FNV-1a 64 of the manifest's JSON exactly as written, with that field's value left empty
//! (`"manifest_checksum":""`). Since the weights' checksum is a manifest field, it covers
//! everything: a change to any field (`learning_rate`, `env_steps`, …), or even to the JSON's
//! spacing, is a [`DdqnError::CorruptCheckpoint`] naming the file. Files of format version 1
//! (written before the manifest checksum existed) still load, with their weights verified as
//! before but their manifest unverified; [`read_manifest`] shows them with
//! `manifest_checksum: None`. A version-2 file without the field is corrupt.
//!
//! **Atomicity.** The bytes are written to a temporary file `.<name>.tmp-<pid>-<n>` in the
//! destination directory, flushed to disk (`fsync`), then renamed over the destination, so a
//! crash leaves either the old checkpoint or the new one, never a half-written file. A save killed
//! before its rename (SIGKILL, power loss) leaves its temporary behind; the next save of the same
//! checkpoint removes such stale temporaries: on Linux those whose process `<pid>` no longer
//! exists (no `/proc/<pid>`), elsewhere (or without `/proc`) those not modified for
//! [`STALE_TEMP_AGE`]. Temporaries of this process (a save in progress on another thread) and of
//! other checkpoints are never touched. (Processes saving the same checkpoint from different PID
//! namespaces, e.g. containers sharing a volume, cannot see each other's PIDs: give them
//! different file names.)
//!
//! **Loading** checks, before touching any network: the Burnpack header, the manifest and its
//! checksum, the architecture (against the caller's when one is expected —
//! [`DdqnError::ArchitectureMismatch`]), every tensor's name, dtype, shape and byte length, and the
//! weights' checksum. Truncated, corrupted or edited files are [`DdqnError::CorruptCheckpoint`].
//!
//! Not saved: the replay buffer and Adam's moment estimates; a resumed agent restarts both
//! (its ε and target-update clocks continue from the saved step counters).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use burn::module::Module;
use burn::store::burn_pack::{Bytes, DType, Reader};
use burn::store::{BurnpackStore, ModuleSnapshot};
use serde::{Deserialize, Serialize};

use crate::agent::Agent;
use crate::config::AgentConfig;
use crate::device::ComputeDevice;
use crate::error::{DdqnError, Result};
use crate::mlp::{LayerWeights, NetworkShape};
use crate::network::QNetwork;
use crate::snapshot::PolicySnapshot;

/// Burnpack metadata key holding the JSON manifest.
pub const MANIFEST_KEY: &str = "worl_ddqn.manifest";
/// Value of [`CheckpointManifest::format`].
pub const FORMAT_NAME: &str = "worl-ddqn-checkpoint";
/// Current [`CheckpointManifest::format_version`]: 2, which added
/// [`CheckpointManifest::manifest_checksum`]. Version 1 files are still read.
pub const FORMAT_VERSION: u32 = 2;
/// Oldest [`CheckpointManifest::format_version`] this build reads (1: no manifest checksum).
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Where `/proc` is unavailable, a checkpoint's temporary file left by an interrupted save is
/// removed by the next save once it has not been modified for this long (10 minutes).
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(600);
/// JSON key of [`CheckpointManifest::manifest_checksum`].
const MANIFEST_CHECKSUM_FIELD: &str = "manifest_checksum";

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
    pub spec: NetworkShape,
    /// Acting steps taken (clock of the epsilon schedule).
    pub env_steps: u64,
    /// Training steps taken (clock of target updates and β annealing).
    pub train_steps: u64,
    /// ε at save time, ε(env_steps) — informative; recomputed from the schedule on load.
    pub epsilon: f64,
    /// FNV-1a 64 of the little-endian bytes of every weight, online then target network, layer
    /// by layer, weight then bias; 16 hex digits.
    pub weights_checksum: String,
    /// FNV-1a 64 of this manifest's JSON as written, with this field's value empty
    /// (`"manifest_checksum":""`); 16 hex digits. Always present from format version 2 on;
    /// `None` for a version-1 file, whose manifest is not verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_checksum: Option<String>,
}

/// Both networks as one module, so one Burnpack holds them under `online.` / `target.`.
#[derive(Module, Debug)]
struct CheckpointModules {
    online: QNetwork,
    target: QNetwork,
}

/// FNV-1a 64 hasher.
struct Fnv1a64(u64);

impl Fnv1a64 {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= byte as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

fn fnv1a64(layers: &[&[LayerWeights]]) -> String {
    let mut h = Fnv1a64::new();
    for net in layers {
        for l in *net {
            for v in l.weight.iter().chain(&l.bias) {
                h.write(&v.to_le_bytes());
            }
        }
    }
    h.hex()
}

/// `"manifest_checksum":"<value>"` as serde_json writes it.
fn checksum_field(value: &str) -> String {
    format!("\"{MANIFEST_CHECKSUM_FIELD}\":\"{value}\"")
}

/// Serialise `manifest` with its [`CheckpointManifest::manifest_checksum`] filled in: the
/// FNV-1a 64 of the JSON with that field empty. Returns the JSON written.
fn seal_manifest(manifest: &mut CheckpointManifest) -> Result<String> {
    manifest.manifest_checksum = Some(String::new());
    let unsealed = serde_json::to_string(&*manifest)?;
    let mut h = Fnv1a64::new();
    h.write(unsealed.as_bytes());
    let sum = h.hex();
    manifest.manifest_checksum = Some(sum.clone());
    let sealed = serde_json::to_string(&*manifest)?;
    debug_assert_eq!(
        sealed,
        unsealed.replacen(&checksum_field(""), &checksum_field(&sum), 1)
    );
    Ok(sealed)
}

/// Check the manifest checksum of a version-2 manifest against its JSON text `json`.
fn verify_manifest_checksum(path: &Path, json: &str, manifest: &CheckpointManifest) -> Result<()> {
    let Some(stored) = &manifest.manifest_checksum else {
        return Err(corrupt(
            path,
            format!(
                "manifest of format version {} has no `{MANIFEST_CHECKSUM_FIELD}`",
                manifest.format_version
            ),
        ));
    };
    if stored.len() != 16
        || !stored
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(corrupt(
            path,
            format!("manifest checksum `{stored}` is not 16 lowercase hex digits"),
        ));
    }
    let field = checksum_field(stored);
    if json.matches(&field).count() != 1 {
        // The field was re-spaced or duplicated: the text is not what the writer produced.
        return Err(corrupt(
            path,
            format!(
                "manifest was edited after saving: its `{MANIFEST_CHECKSUM_FIELD}` field is not \
                 in the form the writer produced"
            ),
        ));
    }
    let mut h = Fnv1a64::new();
    h.write(json.replacen(&field, &checksum_field(""), 1).as_bytes());
    let computed = h.hex();
    if computed != *stored {
        return Err(corrupt(
            path,
            format!(
                "manifest checksum {computed} differs from the recorded {stored}: the manifest \
                 (config, step counters, ε or weights checksum) was edited after saving"
            ),
        ));
    }
    Ok(())
}

fn io_err(path: &Path, source: std::io::Error) -> DdqnError {
    DdqnError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Prefix of the temporary files of checkpoint `name`: `.<name>.tmp-`.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Whether process `pid` is gone, or `None` where this cannot be told (no `/proc`).
fn process_is_gone(pid: u32) -> Option<bool> {
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        Some(!Path::new("/proc").join(pid.to_string()).exists())
    } else {
        None
    }
}

/// Remove the temporaries `.<name>.tmp-<pid>-<n>` in `dir` left by saves that were killed before
/// their rename: those of a process that no longer exists, or (without `/proc`) those unmodified
/// for [`STALE_TEMP_AGE`]. Never those of this process. Best effort: a temporary that cannot be
/// removed (another process removed it first, read-only directory) is left. Returns the paths
/// removed.
fn remove_stale_temporaries(dir: &Path, name: &str) -> Vec<PathBuf> {
    let prefix = temp_prefix(name);
    let own = std::process::id();
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let Some((pid, n)) = rest.split_once('-') else {
            continue;
        };
        let (Ok(pid), Ok(_)) = (pid.parse::<u32>(), n.parse::<u64>()) else {
            continue;
        };
        if pid == own || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let stale = process_is_gone(pid).unwrap_or_else(|| {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age >= STALE_TEMP_AGE)
        });
        if stale && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

/// Write `bytes` to `path` atomically: temporary file in the same directory, fsync, rename.
/// Stale temporaries of earlier, interrupted saves of `path` are removed first.
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
    remove_stale_temporaries(&dir, &name);
    let tmp = dir.join(format!(
        "{}{}-{}",
        temp_prefix(&name),
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

/// Save `agent` (both networks, config, step counters, ε) to `path` atomically, after removing
/// the temporaries of earlier saves of `path` that were killed before completing.
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
    let mut manifest = CheckpointManifest {
        format: FORMAT_NAME.into(),
        format_version: FORMAT_VERSION,
        crate_version: env!("CARGO_PKG_VERSION").into(),
        config: config.clone(),
        spec: online.spec().clone(),
        env_steps: agent.env_steps(),
        train_steps: agent.train_steps(),
        epsilon: agent.epsilon(),
        weights_checksum: fnv1a64(&[&online_w, &target_w]),
        manifest_checksum: None,
    };
    let json = seal_manifest(&mut manifest)?;
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

fn read_checkpoint(path: &Path, expected: Option<&NetworkShape>) -> Result<LoadedCheckpoint> {
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
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&manifest.format_version) {
        return Err(corrupt(
            path,
            format!(
                "format version {} (this build reads {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION})",
                manifest.format_version
            ),
        ));
    }
    if manifest.format_version >= 2 {
        verify_manifest_checksum(path, &json, &manifest)?;
    } else if manifest.manifest_checksum.is_some() {
        return Err(corrupt(
            path,
            format!("format version 1 manifest has a `{MANIFEST_CHECKSUM_FIELD}` (added in 2)"),
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
/// truncated, corrupted, edited or foreign file.
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
    expected: &NetworkShape,
) -> Result<Agent> {
    load_checkpoint_checked(path, device, Some(expected))
}

fn load_checkpoint_checked(
    path: impl AsRef<Path>,
    device: &ComputeDevice,
    expected: Option<&NetworkShape>,
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
pub fn load_policy(path: impl AsRef<Path>, expected: &NetworkShape) -> Result<PolicySnapshot> {
    let loaded = read_checkpoint(path.as_ref(), Some(expected))?;
    PolicySnapshot::from_layers(loaded.manifest.spec, loaded.online)
}
