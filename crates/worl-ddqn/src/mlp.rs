//! The Q-network's architecture and host-side weights, shared by the burn network and its
//! plain-Rust snapshot.
//!
//! The Q-network is a ReLU MLP `state_dim + action_dim → hidden… → 1` ([`NetworkSpec`]); layer
//! l holds `weight [d_in, d_out]` row-major and `bias [d_out]`, y = x·W + b ([`LayerWeights`],
//! burn's `Linear` layout). This module uses no burn type: `network` builds burn modules from
//! these values and reads them back, `snapshot` evaluates them with scalar loops, `checkpoint`
//! stores them.

use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result};

/// Architecture of the Q-network (shared by the burn `network::QNetwork` and the plain-Rust
/// `snapshot::PolicySnapshot`): feature sizes and hidden widths.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetworkSpec {
    /// State feature length (>= 1).
    pub state_dim: usize,
    /// Candidate feature length (>= 1).
    pub action_dim: usize,
    /// Hidden ReLU layer widths (each >= 1; may be empty).
    pub hidden: Vec<usize>,
}

impl NetworkSpec {
    /// Input width `state_dim + action_dim`.
    pub fn input_dim(&self) -> usize {
        self.state_dim + self.action_dim
    }

    /// `(d_in, d_out)` of every linear layer, input to output (the last has `d_out = 1`).
    pub fn layer_shapes(&self) -> Vec<(usize, usize)> {
        let mut dims = Vec::with_capacity(self.hidden.len() + 2);
        dims.push(self.input_dim());
        dims.extend_from_slice(&self.hidden);
        dims.push(1);
        dims.windows(2).map(|w| (w[0], w[1])).collect()
    }

    /// Number of trainable parameters (weights and biases).
    pub fn num_params(&self) -> usize {
        self.layer_shapes().iter().map(|(i, o)| i * o + o).sum()
    }

    /// Human-readable form, e.g. `state 4 + action 3 -> [64, 64] -> 1`.
    pub fn describe(&self) -> String {
        format!(
            "state {} + action {} -> {:?} -> 1",
            self.state_dim, self.action_dim, self.hidden
        )
    }

    /// Check the documented ranges.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] naming `state_dim`, `action_dim` or `hidden`.
    pub fn validate(&self) -> Result<()> {
        if self.state_dim == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "state_dim",
                reason: "must be >= 1".into(),
            });
        }
        if self.action_dim == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "action_dim",
                reason: "must be >= 1".into(),
            });
        }
        if let Some(i) = self.hidden.iter().position(|&h| h == 0) {
            return Err(DdqnError::InvalidConfig {
                field: "hidden",
                reason: format!("layer {i} has width 0"),
            });
        }
        Ok(())
    }
}

/// Host copy of one linear layer: `weight` row-major `[d_input, d_output]`, `bias [d_output]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerWeights {
    /// Input width.
    pub d_input: usize,
    /// Output width.
    pub d_output: usize,
    /// Weights, row-major `[d_input, d_output]` (y = x·W + b).
    pub weight: Vec<f32>,
    /// Biases, `[d_output]`.
    pub bias: Vec<f32>,
}
