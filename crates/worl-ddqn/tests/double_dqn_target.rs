//! The Double DQN target checked against hand-computed values on a hand-built batch.
//!
//! Networks (state_dim 1, action_dim 1, one hidden layer of 3 ReLUs), input [s, a]:
//!
//! * online: h = relu([a − 3s, −a, s]), q = h₀ + 0.5·h₁ − 2·h₂
//!   → Q_online(s, a) = relu(a − 3s) + 0.5·relu(−a) − 2·relu(s)
//! * target: h = relu([s − a, 1, 0]), q = 2·h₀ − 0.5·h₁ + 3·h₂
//!   → Q_target(s, a) = 2·relu(s − a) − 0.5
//!
//! Batch (γ = 0.9):
//!
//! | i | r    | done | s′ | candidates a′     | Q_online(s′, ·)  | a*  | Q_target(s′, a*) | y (Double) | max Q_target | y (DQN) |
//! |---|------|------|----|-------------------|------------------|-----|------------------|------------|--------------|---------|
//! | 0 | 1.0  | no   | 1  | −2, 0.5, 5        | −1, −2, 0        | 5   | −0.5             | 0.55       | 5.5          | 5.95    |
//! | 1 | −0.5 | yes  | –  | –                 | –                | –   | –                | −0.5       | –            | −0.5    |
//! | 2 | 0.25 | no   | 1  | 0.5, −0.5 (+1 pad)| −2, −1.75 (pad 0)| −0.5| 2.5              | 2.5        | 2.5          | 2.5     |
//!
//! Row 2 also checks the padding mask: the zero padding row has Q_online = 0, which would win
//! the argmax unmasked and give y = 0.25 + 0.9·(−0.5) = −0.2.

use worl_ddqn::target::{double_dqn_target, dqn_target, td_targets};
use worl_ddqn::{CandidateBatch, ComputeDevice, LayerWeights, NetworkShape, QNetwork, TdTarget};

fn spec() -> NetworkShape {
    NetworkShape {
        state_dim: 1,
        action_dim: 1,
        hidden: vec![3],
        branches: 1,
    }
}

fn layer(d_input: usize, d_output: usize, weight: &[f32], bias: &[f32]) -> LayerWeights {
    LayerWeights {
        d_input,
        d_output,
        weight: weight.to_vec(),
        bias: bias.to_vec(),
    }
}

fn networks(device: &ComputeDevice) -> (QNetwork, QNetwork) {
    // weight rows: input (s, a); columns: hidden units.
    let online = QNetwork::from_weights(
        &spec(),
        &[
            layer(2, 3, &[-3.0, 0.0, 1.0, 1.0, -1.0, 0.0], &[0.0, 0.0, 0.0]),
            layer(3, 1, &[1.0, 0.5, -2.0], &[0.0]),
        ],
        device.device(),
    )
    .unwrap();
    let target = QNetwork::from_weights(
        &spec(),
        &[
            layer(2, 3, &[1.0, 0.0, 0.0, -1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]),
            layer(3, 1, &[2.0, -0.5, 3.0], &[0.0]),
        ],
        device.device(),
    )
    .unwrap();
    (online, target)
}

fn next_states() -> CandidateBatch {
    let mut b = CandidateBatch::new(1, 1);
    b.push(&[1.0], &[-2.0, 0.5, 5.0]).unwrap();
    b.push(&[0.0], &[]).unwrap();
    b.push(&[1.0], &[0.5, -0.5]).unwrap();
    b
}

const REWARDS: [f32; 3] = [1.0, -0.5, 0.25];
const DONES: [bool; 3] = [false, true, false];
const GAMMA: f32 = 0.9;

fn assert_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-6, "row {i}: got {g}, want {w} ({got:?})");
    }
}

#[test]
fn hand_built_networks_give_the_hand_computed_q_values() {
    let device = ComputeDevice::flex();
    let (online, target) = networks(&device);
    let next = next_states();
    let q_online = online.q_values_batch(&next).unwrap();
    assert_close(&q_online, &[-1.0, -2.0, 0.0, -2.0, -1.75]);
    let q_target = target.q_values_batch(&next).unwrap();
    assert_close(&q_target, &[5.5, 0.5, -0.5, 0.5, 2.5]);
}

#[test]
fn double_dqn_target_matches_hand_computation_and_differs_from_dqn() {
    let device = ComputeDevice::flex();
    let (online, target) = networks(&device);
    let next = next_states();
    let double = td_targets(
        TdTarget::Double,
        &online,
        &target,
        &REWARDS,
        &DONES,
        &next,
        GAMMA,
    )
    .unwrap();
    assert_close(&double, &[0.55, -0.5, 2.5]);
    let vanilla = td_targets(
        TdTarget::Vanilla,
        &online,
        &target,
        &REWARDS,
        &DONES,
        &next,
        GAMMA,
    )
    .unwrap();
    assert_close(&vanilla, &[5.95, -0.5, 2.5]);
    // Double DQN's online choice (a* = 5) values lower than the target's own max (a = −2).
    assert!(vanilla[0] - double[0] > 5.0);
}

#[test]
fn tensor_level_functions_agree_with_the_host_wrapper() {
    use burn::tensor::{Tensor, TensorData};
    let device = ComputeDevice::flex();
    let (online, target) = networks(&device);
    let d = device.device();
    let padded = next_states().padded_inputs(d);
    assert_eq!((padded.batch, padded.max_candidates), (3, 3));
    let r = || Tensor::<1>::from_data(TensorData::new(REWARDS.to_vec(), [3]), d);
    let dn = || Tensor::<1>::from_data(TensorData::new(vec![0.0f32, 1.0, 0.0], [3]), d);
    let y = double_dqn_target(&online, &target, &padded, r(), dn(), GAMMA);
    let y: Vec<f32> = y.into_data().try_to_vec().unwrap();
    assert_close(&y, &[0.55, -0.5, 2.5]);
    let y = dqn_target(&target, &padded, r(), dn(), GAMMA);
    let y: Vec<f32> = y.into_data().try_to_vec().unwrap();
    assert_close(&y, &[5.95, -0.5, 2.5]);
}

#[test]
fn all_terminal_batch_targets_are_the_rewards() {
    let device = ComputeDevice::flex();
    let (online, target) = networks(&device);
    let mut next = CandidateBatch::new(1, 1);
    next.push(&[0.0], &[]).unwrap();
    next.push(&[0.0], &[]).unwrap();
    let y = td_targets(
        TdTarget::Double,
        &online,
        &target,
        &[0.3, -1.5],
        &[true, true],
        &next,
        GAMMA,
    )
    .unwrap();
    assert_close(&y, &[0.3, -1.5]);
}
