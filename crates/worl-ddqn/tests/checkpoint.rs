//! Save → load gives identical Q-values; corrupt, truncated and mismatched files are typed
//! errors; writes are atomic (no temporary file left behind).

mod common;

use common::{ChainWalk, chain_config};
use worl_ddqn::{
    Agent, CandidateBatch, ComputeDevice, DdqnError, NetworkShape, load_checkpoint,
    load_checkpoint_expecting, load_policy, read_manifest, save_checkpoint,
};

fn trained_agent() -> Agent {
    let mut agent = Agent::new(chain_config(6, 9), &ComputeDevice::flex()).unwrap();
    agent.train(&mut ChainWalk::new(6), 300, 20).unwrap();
    assert!(agent.train_steps() > 0);
    agent
}

fn probe_batch() -> CandidateBatch {
    let mut b = CandidateBatch::new(6, 2);
    for pos in 1..5 {
        let mut s = [0.0f32; 6];
        s[pos] = 1.0;
        b.push(&s, &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]).unwrap();
    }
    b
}

#[test]
fn save_then_load_gives_identical_q_values_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let mut agent = trained_agent();
    let manifest = save_checkpoint(&agent, &path).unwrap();
    assert_eq!(manifest.train_steps, agent.train_steps());
    assert_eq!(manifest.env_steps, 300);

    let mut loaded = load_checkpoint(&path, &ComputeDevice::flex()).unwrap();
    let batch = probe_batch();
    let q0 = agent.q_values_batch(&batch).unwrap();
    let q1 = loaded.q_values_batch(&batch).unwrap();
    assert_eq!(q0, q1, "Q-values must be bit-identical after a round trip");
    assert_eq!(
        agent.target_network().layer_weights().unwrap(),
        loaded.target_network().layer_weights().unwrap()
    );
    assert_eq!(loaded.config(), agent.config());
    assert_eq!(loaded.env_steps(), agent.env_steps());
    assert_eq!(loaded.train_steps(), agent.train_steps());
    assert_eq!(loaded.epsilon(), agent.epsilon());
    assert_eq!(loaded.snapshot().unwrap(), agent.snapshot().unwrap());
    assert_eq!(read_manifest(&path).unwrap(), manifest);

    // The policy alone, for a scheduler.
    let policy = load_policy(&path, &agent.config().network_spec()).unwrap();
    assert_eq!(policy, agent.snapshot().unwrap());

    // Training continues from the loaded state.
    // (fresh replay buffer: 100 steps > learning_starts = 64)
    loaded.train(&mut ChainWalk::new(6), 100, 20).unwrap();
    assert!(loaded.train_steps() > manifest.train_steps);

    // No temporary file is left in the directory.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["agent.bpk".to_string()]);
}

#[test]
fn overwriting_a_checkpoint_replaces_it_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let mut agent = trained_agent();
    save_checkpoint(&agent, &path).unwrap();
    agent.train(&mut ChainWalk::new(6), 100, 20).unwrap();
    let m2 = save_checkpoint(&agent, &path).unwrap();
    assert_eq!(read_manifest(&path).unwrap(), m2);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn another_architecture_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let agent = trained_agent();
    save_checkpoint(&agent, &path).unwrap();
    let other = NetworkShape {
        state_dim: 6,
        action_dim: 2,
        hidden: vec![16, 16],
        branches: 1,
    };
    match load_checkpoint_expecting(&path, &ComputeDevice::flex(), &other) {
        Err(DdqnError::ArchitectureMismatch {
            expected, found, ..
        }) => {
            assert!(expected.contains("[16, 16]"), "{expected}");
            assert!(found.contains("[32, 32]"), "{found}");
        }
        other => panic!("expected ArchitectureMismatch, got {other:?}"),
    }
    assert!(matches!(
        load_policy(&path, &other),
        Err(DdqnError::ArchitectureMismatch { .. })
    ));
    // The right architecture loads.
    assert!(
        load_checkpoint_expecting(
            &path,
            &ComputeDevice::flex(),
            &agent.config().network_spec()
        )
        .is_ok()
    );
}

#[test]
fn truncated_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    save_checkpoint(&trained_agent(), &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.bpk");
    for len in [0, 3, 10, 64, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        match load_checkpoint(&cut, &ComputeDevice::flex()) {
            Err(DdqnError::CorruptCheckpoint { reason, .. }) => {
                eprintln!("truncated to {len}: {reason}")
            }
            other => panic!("truncated to {len}: expected CorruptCheckpoint, got {other:?}"),
        }
    }
}

#[test]
fn corrupted_bytes_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    save_checkpoint(&trained_agent(), &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let bad = dir.path().join("bad.bpk");

    // A flipped byte in the last weight (data section) is caught by the checksum.
    let mut b = bytes.clone();
    let last = b.len() - 2;
    b[last] ^= 0x5a;
    std::fs::write(&bad, &b).unwrap();
    assert!(matches!(
        load_checkpoint(&bad, &ComputeDevice::flex()),
        Err(DdqnError::CorruptCheckpoint { .. })
    ));

    // A damaged magic number.
    let mut b = bytes.clone();
    b[0] ^= 0xff;
    std::fs::write(&bad, &b).unwrap();
    assert!(matches!(
        load_checkpoint(&bad, &ComputeDevice::flex()),
        Err(DdqnError::CorruptCheckpoint { .. })
    ));

    // Every single-byte corruption of the header and metadata is an error, never a panic.
    for i in 0..bytes.len().min(600) {
        let mut b = bytes.clone();
        b[i] = b[i].wrapping_add(97);
        std::fs::write(&bad, &b).unwrap();
        if let Ok(agent) = load_checkpoint(&bad, &ComputeDevice::flex()) {
            // A change to an unused padding byte may be harmless; the weights must then be intact.
            assert_eq!(agent.config(), &read_manifest(&path).unwrap().config);
        }
    }

    // Not a checkpoint at all.
    std::fs::write(&bad, b"{\"hello\": 1}").unwrap();
    assert!(matches!(
        load_checkpoint(&bad, &ComputeDevice::flex()),
        Err(DdqnError::CorruptCheckpoint { .. })
    ));
    // A missing file is an I/O error naming the path.
    match load_checkpoint(dir.path().join("missing.bpk"), &ComputeDevice::flex()) {
        Err(DdqnError::Io { path, .. }) => assert!(path.ends_with("missing.bpk")),
        other => panic!("expected Io, got {other:?}"),
    }
}

/// Replace the one occurrence of `from` in `bytes` by `to`, of the same length.
fn patch(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len(), "a patch must keep the file's length");
    let hits: Vec<usize> = bytes
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from.as_bytes())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits.len(), 1, "`{from}` must occur once in the file");
    let mut out = bytes.to_vec();
    out[hits[0]..hits[0] + to.len()].copy_from_slice(to.as_bytes());
    out
}

fn expect_corrupt(path: &std::path::Path, needle: &str) {
    match load_checkpoint(path, &ComputeDevice::flex()) {
        Err(DdqnError::CorruptCheckpoint { path: p, reason }) => {
            assert_eq!(p, path, "the error names the file");
            assert!(reason.contains(needle), "`{needle}` not in: {reason}");
        }
        other => panic!("expected CorruptCheckpoint, got {other:?}"),
    }
    assert!(matches!(
        read_manifest(path),
        Err(DdqnError::CorruptCheckpoint { .. })
    ));
}

#[test]
fn an_edited_manifest_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let agent = trained_agent();
    let manifest = save_checkpoint(&agent, &path).unwrap();
    let sum = manifest.manifest_checksum.clone().unwrap();
    assert_eq!(sum.len(), 16);
    assert_eq!(manifest.format_version, 2);
    let bytes = std::fs::read(&path).unwrap();
    let bad = dir.path().join("edited.bpk");

    // Each of these used to load silently: only the weights were checksummed.
    let edits = [
        ("\"learning_rate\":0.003", "\"learning_rate\":0.004"),
        ("\"env_steps\":300", "\"env_steps\":301"),
        ("\"gamma\":0.9", "\"gamma\":0.8"),
        ("\"every\":50", "\"every\":90"),
    ];
    for (from, to) in edits {
        std::fs::write(&bad, patch(&bytes, from, to)).unwrap();
        expect_corrupt(&bad, &format!("differs from the recorded {sum}"));
        assert!(matches!(
            load_policy(&bad, &agent.config().network_spec()),
            Err(DdqnError::CorruptCheckpoint { .. })
        ));
    }

    // The weights' checksum is a manifest field, so it is covered too.
    let w = &manifest.weights_checksum;
    let mut w2 = w.clone().into_bytes();
    w2[0] = if w2[0] == b'0' { b'1' } else { b'0' };
    let w2 = String::from_utf8(w2).unwrap();
    std::fs::write(&bad, patch(&bytes, w, &w2)).unwrap();
    expect_corrupt(&bad, "differs from the recorded");

    // An edited checksum, or one that is not hex.
    let mut s2 = sum.clone().into_bytes();
    s2[15] = if s2[15] == b'0' { b'1' } else { b'0' };
    let s2 = String::from_utf8(s2).unwrap();
    std::fs::write(&bad, patch(&bytes, &sum, &s2)).unwrap();
    expect_corrupt(&bad, &format!("differs from the recorded {s2}"));
    std::fs::write(&bad, patch(&bytes, &sum, "zzzzzzzzzzzzzzzz")).unwrap();
    expect_corrupt(&bad, "not 16 lowercase hex digits");

    // A version-2 manifest whose checksum field was removed (blanked out with spaces).
    let field = format!(",\"manifest_checksum\":\"{sum}\"");
    std::fs::write(&bad, patch(&bytes, &field, &" ".repeat(field.len()))).unwrap();
    expect_corrupt(&bad, "format version 2 has no `manifest_checksum`");

    // The untouched file still loads.
    assert_eq!(read_manifest(&path).unwrap(), manifest);
}

#[test]
fn format_version_1_checkpoints_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let agent = trained_agent();
    let manifest = save_checkpoint(&agent, &path).unwrap();
    let sum = manifest.manifest_checksum.clone().unwrap();
    let bytes = std::fs::read(&path).unwrap();

    // A version-1 file as the earlier writer produced it: no manifest checksum (its place taken
    // by JSON whitespace so the Burnpack layout is unchanged).
    let field = format!(",\"manifest_checksum\":\"{sum}\"");
    let v1 = patch(&bytes, &field, &" ".repeat(field.len()));
    let v1 = patch(&v1, "\"format_version\":2", "\"format_version\":1");
    let old = dir.path().join("v1.bpk");
    std::fs::write(&old, &v1).unwrap();

    let m1 = read_manifest(&old).unwrap();
    assert_eq!(m1.format_version, 1);
    assert_eq!(m1.manifest_checksum, None);
    assert_eq!(m1.config, manifest.config);
    assert_eq!(m1.env_steps, 300);
    assert_eq!(m1.weights_checksum, manifest.weights_checksum);
    let loaded = load_checkpoint(&old, &ComputeDevice::flex()).unwrap();
    let batch = probe_batch();
    assert_eq!(
        loaded.q_values_batch(&batch).unwrap(),
        agent.q_values_batch(&batch).unwrap()
    );

    // Its weights are still verified.
    let mut b = v1.clone();
    let last = b.len() - 2;
    b[last] ^= 0x5a;
    std::fs::write(&old, &b).unwrap();
    expect_corrupt(&old, "weights checksum");

    // A version-1 manifest cannot carry a manifest checksum (a v2 file relabelled as v1).
    std::fs::write(
        &old,
        patch(&bytes, "\"format_version\":2", "\"format_version\":1"),
    )
    .unwrap();
    expect_corrupt(&old, "format version 1 manifest has a `manifest_checksum`");
    // Versions this build does not know.
    for v in ["0", "3"] {
        std::fs::write(
            &old,
            patch(
                &bytes,
                "\"format_version\":2",
                &format!("\"format_version\":{v}"),
            ),
        )
        .unwrap();
        expect_corrupt(
            &old,
            &format!("format version {v} (this build reads 1 to 2)"),
        );
    }
}

/// A PID no process can have: above the kernel's `pid_max` (Linux), else above Linux's ceiling.
fn dead_pid() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(4_194_304)
        + 1
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn make_old(path: &std::path::Path) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
}

#[test]
fn temporaries_of_killed_saves_are_removed_by_the_next_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    let mut agent = trained_agent();
    save_checkpoint(&agent, &path).unwrap();

    let dead = dead_pid();
    let own = std::process::id();
    let write = |name: String| {
        std::fs::write(dir.path().join(&name), b"half-written").unwrap();
        name
    };
    // Left by saves killed with SIGKILL: one an hour old, one just written.
    let orphan_old = write(format!(".agent.bpk.tmp-{dead}-0"));
    make_old(&dir.path().join(&orphan_old));
    let orphan_fresh = write(format!(".agent.bpk.tmp-{dead}-1"));
    // A save in progress in this process (even an old one), and one of a live process (PID 1).
    let in_progress = write(format!(".agent.bpk.tmp-{own}-999999"));
    make_old(&dir.path().join(&in_progress));
    let live = write(".agent.bpk.tmp-1-0".to_string());
    // Another checkpoint's orphan, and files that merely look alike.
    let other = write(format!(".other.bpk.tmp-{dead}-0"));
    make_old(&dir.path().join(&other));
    let odd = write(".agent.bpk.tmp-notapid".to_string());
    make_old(&dir.path().join(&odd));

    agent.train(&mut ChainWalk::new(6), 50, 20).unwrap();
    let m2 = save_checkpoint(&agent, &path).unwrap();
    assert_eq!(read_manifest(&path).unwrap(), m2);

    let mut expected = vec![
        "agent.bpk".to_string(),
        in_progress.clone(),
        live,
        other,
        odd,
    ];
    if !cfg!(target_os = "linux") {
        // Without /proc only the age tells a stale temporary.
        expected.push(orphan_fresh);
    }
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
    assert!(!dir.path().join(&orphan_old).exists());

    // Concurrent saves of this process into the same file never remove each other's temporary.
    let agents = [trained_agent(), trained_agent()];
    std::thread::scope(|s| {
        for a in &agents {
            let path = &path;
            s.spawn(move || {
                for _ in 0..10 {
                    save_checkpoint(a, path).unwrap();
                }
            });
        }
    });
    assert!(load_checkpoint(&path, &ComputeDevice::flex()).is_ok());
    expected.retain(|n| !n.starts_with(&format!(".agent.bpk.tmp-{dead}-")));
    assert_eq!(names_in(dir.path()), expected);
}
