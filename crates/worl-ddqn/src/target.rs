//! Bootstrap targets of the TD regression: Double DQN and vanilla DQN.
//!
//! For a transition (s, a, r, s′, done) with valid next candidates A(s′):
//!
//! * **Double DQN** (van Hasselt, Guez & Silver, *Deep Reinforcement Learning with Double
//!   Q-learning*, AAAI 2016, eq. 4):
//!   `y = r + γ (1 − done) · Q_target(s′, argmax_{a′ ∈ A(s′)} Q_online(s′, a′))` — the online
//!   network *chooses* the next action, the target network *values* it, which removes the
//!   overestimation bias of the max operator.
//! * **DQN** (Mnih et al., Nature 2015, Algorithm 1):
//!   `y = r + γ (1 − done) · max_{a′ ∈ A(s′)} Q_target(s′, a′)`.
//!
//! Both run on the device over a [`PaddedCandidates`] batch (padding rows are masked out before
//! the argmax / max) and take *non-autodiff* networks (pass `online.valid()`), so no gradient
//! flows into the target.

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use crate::batch::{CandidateBatch, PaddedCandidates};
use crate::config::TdTarget;
use crate::error::{Result, check_len};
use crate::network::{QNetwork, read_f32};

/// Value written over padding rows before an argmax / max: below any real Q-value, finite so
/// that `0 · value` stays 0 for terminal transitions.
const PADDING_Q: f32 = f32::MIN;

/// The Double DQN target (van Hasselt et al. 2016, eq. 4), `[B]`:
/// `y_i = r_i + γ (1 − done_i) · Q_target(s′_i, argmax_{a′ ∈ A(s′_i)} Q_online(s′_i, a′))`.
///
/// * `online`, `target`: plain (non-autodiff) networks on the device of `next`.
/// * `next`: the B next states with their valid candidates, padded to K.
/// * `rewards`, `dones`: `[B]`, `dones` as 0.0 / 1.0.
///
/// Terminal transitions (`done = 1`) get `y = r` whatever their candidates; a batch whose next
/// states all have no candidate (K = 0) returns `rewards`.
pub fn double_dqn_target(
    online: &QNetwork,
    target: &QNetwork,
    next: &PaddedCandidates,
    rewards: Tensor<1>,
    dones: Tensor<1>,
    gamma: f32,
) -> Tensor<1> {
    let (Some(inputs), Some(padding)) = (&next.inputs, &next.padding) else {
        return rewards;
    };
    let (b, k) = (next.batch, next.max_candidates);
    // The online network chooses: a* = argmax over the valid candidates of s′.
    let q_online = online
        .forward(inputs.clone())
        .reshape([b, k])
        .mask_fill(padding.clone(), PADDING_Q);
    let a_star = q_online.argmax(1); // [B, 1]
    // The target network values the chosen action.
    let q_target = target.forward(inputs.clone()).reshape([b, k]);
    let q_next = q_target.gather(1, a_star).reshape([b]);
    bootstrap(rewards, dones, q_next, gamma)
}

/// The vanilla DQN target (Mnih et al. 2015), `[B]`:
/// `y_i = r_i + γ (1 − done_i) · max_{a′ ∈ A(s′_i)} Q_target(s′_i, a′)`. Arguments as
/// [`double_dqn_target`] (without the online network).
pub fn dqn_target(
    target: &QNetwork,
    next: &PaddedCandidates,
    rewards: Tensor<1>,
    dones: Tensor<1>,
    gamma: f32,
) -> Tensor<1> {
    let (Some(inputs), Some(padding)) = (&next.inputs, &next.padding) else {
        return rewards;
    };
    let (b, k) = (next.batch, next.max_candidates);
    let q_next = target
        .forward(inputs.clone())
        .reshape([b, k])
        .mask_fill(padding.clone(), PADDING_Q)
        .max_dim(1)
        .reshape([b]);
    bootstrap(rewards, dones, q_next, gamma)
}

/// r + γ (1 − done) q_next.
fn bootstrap(rewards: Tensor<1>, dones: Tensor<1>, q_next: Tensor<1>, gamma: f32) -> Tensor<1> {
    let not_done = dones.neg().add_scalar(1.0);
    // Zero q_next first so that PADDING_Q of a terminal row cannot overflow.
    rewards + (q_next * not_done).mul_scalar(gamma)
}

/// Host-side convenience: the TD targets of B transitions, `[B]`.
///
/// `rewards` and `dones` are `[B]`, `next` holds the B next states with their valid
/// candidates; `online` is only used for [`TdTarget::Double`]. Both networks must live on the
/// same device (the inputs are built there, without autodiff).
///
/// # Errors
/// [`crate::DdqnError::DimensionMismatch`] if the lengths disagree,
/// [`crate::DdqnError::Backend`] on a device failure.
pub fn td_targets(
    kind: TdTarget,
    online: &QNetwork,
    target: &QNetwork,
    rewards: &[f32],
    dones: &[bool],
    next: &CandidateBatch,
    gamma: f32,
) -> Result<Vec<f32>> {
    let b = rewards.len();
    check_len("dones", b, dones.len())?;
    check_len("next", b, next.len())?;
    let device: Device = target.device().without_autodiff();
    let online = online.valid();
    let target = target.valid();
    let padded = next.padded_inputs(&device);
    let r = Tensor::<1>::from_data(TensorData::new(rewards.to_vec(), [b]), &device);
    let d: Vec<f32> = dones.iter().map(|&x| if x { 1.0 } else { 0.0 }).collect();
    let d = Tensor::<1>::from_data(TensorData::new(d, [b]), &device);
    let y = match kind {
        TdTarget::Double => double_dqn_target(&online, &target, &padded, r, d, gamma),
        TdTarget::Vanilla => dqn_target(&target, &padded, r, d, gamma),
    };
    read_f32(y)
}
