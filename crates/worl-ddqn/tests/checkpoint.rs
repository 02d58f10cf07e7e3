//! Save → load gives identical Q-values; corrupt, truncated and mismatched files are typed
//! errors; writes are atomic (no temporary file left behind).

mod common;

use common::{ChainWalk, chain_config};
use worl_ddqn::{
    Agent, CandidateBatch, ComputeDevice, DdqnError, NetworkSpec, load_checkpoint,
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
    let other = NetworkSpec {
        state_dim: 6,
        action_dim: 2,
        hidden: vec![16, 16],
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
