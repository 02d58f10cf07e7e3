//! The learning test on the wgpu backend (Mesa lavapipe on CPU-only machines and in CI).
//!
//! Fails with a clear message when no wgpu adapter can be created, unless `WORL_SKIP_WGPU=1`.
//! Built only with the `wgpu` feature (`required-features` in Cargo.toml).
#![cfg(feature = "wgpu")]

mod common;

use common::{VariableBandit, bandit_config, evaluate_bandit, wgpu_or_skip};
use std::time::Instant;
use worl_ddqn::target::td_targets;
use worl_ddqn::{
    Agent, CandidateBatch, DeviceKind, LayerWeights, NetworkShape, QNetwork, TdTarget,
};

#[test]
fn learns_variable_candidate_bandit_on_wgpu() {
    let Some(device) = wgpu_or_skip("learns_variable_candidate_bandit_on_wgpu") else {
        return;
    };
    assert_eq!(device.kind(), DeviceKind::Wgpu);
    let t0 = Instant::now();
    let mut agent = Agent::new(bandit_config(11), &device).unwrap();
    agent.train(&mut VariableBandit::new(), 3_000, 1).unwrap();
    let (got, best, random) = evaluate_bandit(&mut agent, 500);
    eprintln!(
        "bandit (wgpu): greedy {:.3} of optimal (random {:.3}) in {:.2?}",
        got / best,
        random / best,
        t0.elapsed()
    );
    assert!(got / best >= 0.95, "greedy return {got} < 95% of {best}");
}

#[test]
fn double_dqn_target_on_wgpu_matches_hand_computation() {
    let Some(device) = wgpu_or_skip("double_dqn_target_on_wgpu_matches_hand_computation") else {
        return;
    };
    // Same networks and batch as tests/double_dqn_target.rs.
    let spec = NetworkShape {
        state_dim: 1,
        action_dim: 1,
        hidden: vec![3],
        branches: 1,
    };
    let l = |i, o, w: &[f32], b: &[f32]| LayerWeights {
        d_input: i,
        d_output: o,
        weight: w.to_vec(),
        bias: b.to_vec(),
    };
    let online = QNetwork::from_weights(
        &spec,
        &[
            l(2, 3, &[-3.0, 0.0, 1.0, 1.0, -1.0, 0.0], &[0.0; 3]),
            l(3, 1, &[1.0, 0.5, -2.0], &[0.0]),
        ],
        device.device(),
    )
    .unwrap();
    let target = QNetwork::from_weights(
        &spec,
        &[
            l(2, 3, &[1.0, 0.0, 0.0, -1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]),
            l(3, 1, &[2.0, -0.5, 3.0], &[0.0]),
        ],
        device.device(),
    )
    .unwrap();
    let mut next = CandidateBatch::new(1, 1);
    next.push(&[1.0], &[-2.0, 0.5, 5.0]).unwrap();
    next.push(&[0.0], &[]).unwrap();
    next.push(&[1.0], &[0.5, -0.5]).unwrap();
    let (r, d) = ([1.0, -0.5, 0.25], [false, true, false]);
    let y = td_targets(TdTarget::Double, &online, &target, &r, &d, &next, 0.9).unwrap();
    let want = [0.55, -0.5, 2.5];
    for (g, w) in y.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{y:?} vs {want:?}");
    }
    let y = td_targets(TdTarget::Vanilla, &online, &target, &r, &d, &next, 0.9).unwrap();
    let want = [5.95, -0.5, 2.5];
    for (g, w) in y.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{y:?} vs {want:?}");
    }
}
