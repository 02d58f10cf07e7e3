//! Batches of decision points with variable candidate counts, and their network inputs.
//!
//! A [`CandidateBatch`] stores `n` states and their candidates *flattened with offsets* (the
//! CSR layout): `states` is `[n, state_dim]`, `candidates` is `[Σ kᵢ, action_dim]` and row `i`'s
//! candidates are rows `offsets[i]..offsets[i + 1]`. Two network inputs are built from it:
//!
//! * flat (inference): `[Σ kᵢ, state_dim + action_dim]`, one `state ⧺ candidate` row per
//!   candidate — no padding, used by `q_values_batch` / `greedy_batch`;
//! * padded (training targets): `[n · K, state_dim + action_dim]` with `K = maxᵢ kᵢ` and a
//!   `[n, K]` padding mask (`true` = padding row, filled with zeros), so argmax and gather can
//!   run on the device for the Double DQN target.

use burn::tensor::{Bool, Device, Tensor, TensorData};

use crate::error::{DdqnError, Result, check_finite, check_len};

/// `n` decision points with `kᵢ` candidates each, flattened with offsets (see module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateBatch {
    state_dim: usize,
    action_dim: usize,
    states: Vec<f32>,
    candidates: Vec<f32>,
    offsets: Vec<usize>,
}

impl CandidateBatch {
    /// An empty batch for the given feature sizes.
    pub fn new(state_dim: usize, action_dim: usize) -> Self {
        CandidateBatch {
            state_dim,
            action_dim,
            states: Vec::new(),
            candidates: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Append a decision point: `state` is `[state_dim]`, `candidates` row-major
    /// `[k, action_dim]` (k may be 0, e.g. for a terminal next state).
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] if the batch was made with `action_dim == 0`;
    /// [`DdqnError::DimensionMismatch`] for a wrong `state` length or a `candidates` length that
    /// is not a multiple of `action_dim`; [`DdqnError::NonFinite`] for NaN/inf features.
    pub fn push(&mut self, state: &[f32], candidates: &[f32]) -> Result<()> {
        if self.action_dim == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "action_dim",
                reason: "must be >= 1".into(),
            });
        }
        check_len("state", self.state_dim, state.len())?;
        if !candidates.len().is_multiple_of(self.action_dim) {
            return Err(DdqnError::DimensionMismatch {
                what: "candidates",
                expected: candidates.len().div_ceil(self.action_dim) * self.action_dim,
                found: candidates.len(),
            });
        }
        check_finite("state", state)?;
        check_finite("candidates", candidates)?;
        self.push_unchecked(state, candidates);
        Ok(())
    }

    /// Append without checks (callers validated the data).
    pub(crate) fn push_unchecked(&mut self, state: &[f32], candidates: &[f32]) {
        self.states.extend_from_slice(state);
        self.candidates.extend_from_slice(candidates);
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + candidates.len() / self.action_dim);
    }

    /// Remove every decision point, keeping the allocations.
    pub fn clear(&mut self) {
        self.states.clear();
        self.candidates.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    /// Number of decision points `n`.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether the batch holds no decision point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// State feature length.
    pub fn state_dim(&self) -> usize {
        self.state_dim
    }

    /// Candidate feature length.
    pub fn action_dim(&self) -> usize {
        self.action_dim
    }

    /// Total number of candidates Σ kᵢ.
    pub fn total_candidates(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Number of candidates kᵢ of decision point `i` (0 past the end).
    pub fn num_candidates(&self, i: usize) -> usize {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    /// Largest candidate count K = maxᵢ kᵢ (0 for an empty batch).
    pub fn max_candidates(&self) -> usize {
        self.offsets
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// Offsets `[n + 1]`: decision point `i` owns candidate rows `offsets[i]..offsets[i + 1]`.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// State features of decision point `i`, `[state_dim]`.
    pub fn state(&self, i: usize) -> &[f32] {
        &self.states[i * self.state_dim..(i + 1) * self.state_dim]
    }

    /// Candidates of decision point `i`, row-major `[kᵢ, action_dim]`.
    pub fn candidates(&self, i: usize) -> &[f32] {
        &self.candidates[self.offsets[i] * self.action_dim..self.offsets[i + 1] * self.action_dim]
    }

    /// Flat network input `[Σ kᵢ, state_dim + action_dim]` as host data (row `offsets[i] + j`
    /// is `state_i ⧺ candidate_ij`).
    pub fn flat_input_data(&self) -> TensorData {
        let width = self.state_dim + self.action_dim;
        let rows = self.total_candidates();
        let mut data = Vec::with_capacity(rows * width);
        for i in 0..self.len() {
            let s = self.state(i);
            for c in self.candidates(i).chunks_exact(self.action_dim) {
                data.extend_from_slice(s);
                data.extend_from_slice(c);
            }
        }
        TensorData::new(data, [rows, width])
    }

    /// Flat network input on `device`, `[Σ kᵢ, state_dim + action_dim]`.
    pub fn flat_inputs(&self, device: &Device) -> Tensor<2> {
        Tensor::from_data(self.flat_input_data(), device)
    }

    /// Padded network input and padding mask on `device` (see module docs).
    pub fn padded_inputs(&self, device: &Device) -> PaddedCandidates {
        let n = self.len();
        let k = self.max_candidates();
        let width = self.state_dim + self.action_dim;
        let mut data = vec![0.0f32; n * k * width];
        let mut padding = vec![true; n * k];
        for i in 0..n {
            let s = self.state(i);
            for (j, c) in self.candidates(i).chunks_exact(self.action_dim).enumerate() {
                let row = (i * k + j) * width;
                data[row..row + self.state_dim].copy_from_slice(s);
                data[row + self.state_dim..row + width].copy_from_slice(c);
                padding[i * k + j] = false;
            }
        }
        let (inputs, padding) = if k == 0 {
            (None, None)
        } else {
            (
                Some(Tensor::from_data(
                    TensorData::new(data, [n * k, width]),
                    device,
                )),
                Some(Tensor::from_data(TensorData::new(padding, [n, k]), device)),
            )
        };
        PaddedCandidates {
            inputs,
            padding,
            batch: n,
            max_candidates: k,
        }
    }
}

/// Candidates of a batch padded to the batch's largest candidate count K.
///
/// `inputs` is `[batch · K, state_dim + action_dim]` (row `i·K + j` is `state_i ⧺ candidate_ij`,
/// zeros for padding), `padding` is `[batch, K]` with `true` on padding rows. Both are `None`
/// when K = 0 (every next state terminal).
#[derive(Clone, Debug)]
pub struct PaddedCandidates {
    /// Network input `[batch · K, state_dim + action_dim]`.
    pub inputs: Option<Tensor<2>>,
    /// Padding mask `[batch, K]`, `true` = padding.
    pub padding: Option<Tensor<2, Bool>>,
    /// Number of decision points.
    pub batch: usize,
    /// K, the largest candidate count.
    pub max_candidates: usize,
}
