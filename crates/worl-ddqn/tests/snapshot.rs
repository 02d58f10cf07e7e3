//! PolicySnapshot matches the burn forward pass (flex) within 1e-5 and is usable across threads.

use proptest::prelude::*;
use worl_ddqn::{
    CandidateBatch, ComputeDevice, DdqnError, NetworkShape, PolicySnapshot, QNetwork,
    SnapshotScratch,
};

fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

#[test]
fn snapshot_is_send_sync_clone() {
    assert_send_sync_clone::<PolicySnapshot>();
    assert_send_sync_clone::<SnapshotScratch>();
}

fn check_matches(spec: &NetworkShape, seed: u64, states: &[Vec<f32>], cands: &[Vec<f32>]) {
    let net = QNetwork::new(spec, seed, ComputeDevice::flex().device()).unwrap();
    let snap = net.snapshot().unwrap();
    let mut batch = CandidateBatch::new(spec.state_dim, spec.action_dim);
    for (s, c) in states.iter().zip(cands) {
        batch.push(s, c).unwrap();
    }
    let burn_q = net.q_values_batch(&batch).unwrap();
    let greedy_burn = net.greedy_batch(&batch).unwrap();
    let mut scratch = SnapshotScratch::default();
    for i in 0..batch.len() {
        let k = batch.num_candidates(i);
        let mut out = vec![0.0; k];
        snap.q_values(batch.state(i), batch.candidates(i), &mut out, &mut scratch)
            .unwrap();
        let off = batch.offsets()[i];
        for j in 0..k {
            let (a, b) = (out[j], burn_q[off + j]);
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "row {i} cand {j}: snapshot {a} vs burn {b}"
            );
        }
        let g = snap
            .greedy(batch.state(i), batch.candidates(i), &mut scratch)
            .unwrap();
        // Same choice unless two Q-values are within rounding of each other.
        if g != greedy_burn[i] {
            assert!((out[g] - out[greedy_burn[i]]).abs() < 1e-5);
        }
    }
}

#[test]
fn snapshot_matches_burn_forward_on_a_scheduler_sized_network() {
    // WORL-RTGS-like sizes: 2·m + 2 state features for m = 16 GPUs, 6 features per candidate.
    let spec = NetworkShape {
        state_dim: 34,
        action_dim: 6,
        hidden: vec![128, 64],
        branches: 1,
    };
    let mut states = Vec::new();
    let mut cands = Vec::new();
    for i in 0..20 {
        states.push(
            (0..34)
                .map(|j| ((i * 7 + j * 3) % 11) as f32 / 5.0 - 1.0)
                .collect(),
        );
        let k = 1 + i % 16;
        cands.push(
            (0..k * 6)
                .map(|j| ((i * 5 + j * 13) % 17) as f32 / 8.0 - 1.0)
                .collect(),
        );
    }
    check_matches(&spec, 3, &states, &cands);
}

#[test]
fn snapshot_of_a_linear_network_matches_too() {
    let spec = NetworkShape {
        state_dim: 2,
        action_dim: 3,
        hidden: vec![],
        branches: 1,
    };
    check_matches(
        &spec,
        1,
        &[vec![0.5, -1.0], vec![2.0, 0.0]],
        &[vec![1.0, 2.0, 3.0, -1.0, 0.0, 0.5], vec![0.1, 0.2, 0.3]],
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn snapshot_matches_burn_forward_for_random_inputs(
        seed in 0u64..1000,
        hidden in proptest::collection::vec(1usize..40, 0..3),
        rows in proptest::collection::vec(
            (proptest::collection::vec(-3.0f32..3.0, 5),
             proptest::collection::vec(-3.0f32..3.0, 4..=40)),
            1..6),
    ) {
        let spec = NetworkShape::new(5, 4, hidden);
        let states: Vec<Vec<f32>> = rows.iter().map(|r| r.0.clone()).collect();
        let cands: Vec<Vec<f32>> = rows
            .iter()
            .map(|r| r.1[..r.1.len() / 4 * 4].to_vec())
            .collect();
        check_matches(&spec, seed, &states, &cands);
    }
}

#[test]
fn masked_greedy_skips_masked_candidates() {
    let spec = NetworkShape {
        state_dim: 1,
        action_dim: 1,
        hidden: vec![],
        branches: 1,
    };
    // Q = 1·s + 1·a + 0 with hand weights.
    let net = QNetwork::from_weights(
        &spec,
        &[worl_ddqn::LayerWeights {
            d_input: 2,
            d_output: 1,
            weight: vec![1.0, 1.0],
            bias: vec![0.0],
        }],
        ComputeDevice::flex().device(),
    )
    .unwrap();
    let snap = net.snapshot().unwrap();
    let mut scratch = snap.scratch();
    let cands = [0.0, 3.0, 2.0, 1.0];
    assert_eq!(snap.greedy(&[0.0], &cands, &mut scratch).unwrap(), 1);
    assert_eq!(
        snap.greedy_masked(&[0.0], &cands, &[true, false, true, true], &mut scratch)
            .unwrap(),
        2
    );
    let mut out = [0.0; 4];
    snap.q_values(&[1.0], &cands, &mut out, &mut scratch)
        .unwrap();
    assert_eq!(out, [1.0, 4.0, 3.0, 2.0]);
    assert!(matches!(
        snap.greedy_masked(&[0.0], &cands, &[false; 4], &mut scratch),
        Err(DdqnError::NoCandidates { .. })
    ));
    assert!(matches!(
        snap.greedy(&[0.0], &[], &mut scratch),
        Err(DdqnError::NoCandidates { .. })
    ));
    assert!(matches!(
        snap.q_values(&[0.0, 1.0], &cands, &mut out, &mut scratch),
        Err(DdqnError::DimensionMismatch { what: "state", .. })
    ));
    assert!(matches!(
        snap.q_values(&[0.0], &cands, &mut out[..3], &mut scratch),
        Err(DdqnError::DimensionMismatch { what: "out", .. })
    ));
}

#[test]
fn snapshot_is_shared_by_threads_with_identical_results() {
    let spec = NetworkShape {
        state_dim: 8,
        action_dim: 4,
        hidden: vec![32, 32],
        branches: 1,
    };
    let snap = QNetwork::new(&spec, 9, ComputeDevice::flex().device())
        .unwrap()
        .snapshot()
        .unwrap();
    let state: Vec<f32> = (0..8).map(|i| i as f32 / 8.0).collect();
    let cands: Vec<f32> = (0..40).map(|i| ((i * 7) % 10) as f32 / 10.0).collect();
    let mut want = vec![0.0; 10];
    snap.q_values(&state, &cands, &mut want, &mut snap.scratch())
        .unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let mut scratch = SnapshotScratch::default();
                let mut out = vec![0.0; 10];
                for _ in 0..100 {
                    snap.q_values(&state, &cands, &mut out, &mut scratch)
                        .unwrap();
                    assert_eq!(out, want);
                }
            });
        }
    });
}

#[test]
fn branched_snapshot_matches_burn_forward() {
    // 2 candidate features followed by a one-hot code of 3 branches.
    let spec = NetworkShape {
        state_dim: 2,
        action_dim: 5,
        hidden: vec![8, 4],
        branches: 3,
    };
    let mut states = Vec::new();
    let mut cands = Vec::new();
    for i in 0..12 {
        states.push(vec![i as f32 / 6.0 - 1.0, (i % 3) as f32]);
        let mut c = Vec::new();
        for j in 0..1 + i % 4 {
            c.extend_from_slice(&[((i + j) % 5) as f32 / 2.0 - 1.0, j as f32 * 0.3]);
            let mut code = [0.0; 3];
            code[(i + j) % 3] = 1.0;
            c.extend_from_slice(&code);
        }
        cands.push(c);
    }
    check_matches(&spec, 9, &states, &cands);
}

#[test]
fn branch_code_selects_the_head_by_hand() {
    // No hidden layer: input [s, x] -> 2 heads, W = [[1, 10], [2, 20]], b = [0.5, -1].
    let spec = NetworkShape {
        state_dim: 1,
        action_dim: 3,
        hidden: vec![],
        branches: 2,
    };
    let layers = vec![worl_ddqn::LayerWeights {
        d_input: 2,
        d_output: 2,
        weight: vec![1.0, 10.0, 2.0, 20.0],
        bias: vec![0.5, -1.0],
    }];
    let net = QNetwork::from_weights(&spec, &layers, ComputeDevice::flex().device()).unwrap();
    // s = 1, x = 2: head 0 = 1 + 4 + 0.5 = 5.5, head 1 = 10 + 40 - 1 = 49.
    let mut batch = CandidateBatch::new(1, 3);
    batch.push(&[1.0], &[2.0, 1.0, 0.0, 2.0, 0.0, 1.0]).unwrap();
    assert_eq!(net.q_values_batch(&batch).unwrap(), vec![5.5, 49.0]);
    let snap = net.snapshot().unwrap();
    let mut out = vec![0.0; 2];
    snap.q_values(
        &[1.0],
        batch.candidates(0),
        &mut out,
        &mut SnapshotScratch::default(),
    )
    .unwrap();
    assert_eq!(out, vec![5.5, 49.0]);
}

#[test]
fn branches_need_room_for_their_code() {
    let spec = NetworkShape {
        state_dim: 1,
        action_dim: 2,
        hidden: vec![4],
        branches: 2,
    };
    assert!(matches!(
        spec.validate(),
        Err(DdqnError::InvalidConfig {
            field: "action_dim",
            ..
        })
    ));
    assert!(matches!(
        NetworkShape {
            branches: 0,
            ..spec
        }
        .validate(),
        Err(DdqnError::InvalidConfig {
            field: "branches",
            ..
        })
    ));
}
