//! The Q-network's architecture and host-side weights, shared by the burn network and its
//! plain-Rust snapshot.
//!
//! The Q-network is a ReLU MLP `state_dim + action_dim → hidden… → 1` ([`NetworkShape`]), or,
//! with `branches = B >= 2`, a shared trunk `state_dim + action_dim − B → hidden… → B` whose
//! output `b` is the Q-value of branch `b` (the last `B` features of a candidate row select
//! the branch, see [`NetworkShape::branches`]); layer
//! l holds `weight [d_in, d_out]` row-major and `bias [d_out]`, y = x·W + b ([`LayerWeights`],
//! burn's `Linear` layout). This module uses no burn type: `network` builds burn modules from
//! these values and reads them back, `snapshot` evaluates them with scalar loops, `checkpoint`
//! stores them.

use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result};

/// Architecture of the Q-network (shared by the burn `network::QNetwork` and the plain-Rust
/// `snapshot::PolicySnapshot`): feature sizes and hidden widths.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetworkShape {
    /// State feature length (>= 1).
    pub state_dim: usize,
    /// Candidate feature length (>= 1).
    pub action_dim: usize,
    /// Hidden ReLU layer widths (each >= 1; may be empty).
    pub hidden: Vec<usize>,
    /// Output branches `B` (>= 1; default 1): the action-branching architecture of
    /// Tavakoli, Pardo & Kormushev (*Action Branching Architectures for Deep Reinforcement
    /// Learning*, AAAI 2018) — shared hidden layers and one output head per branch. With
    /// `B >= 2` the last `B` of the `action_dim` candidate features are the one-hot code of
    /// the branch that scores the row: they select the head (`Q = Σ_b code_b · head_b`) and
    /// are not inputs of the trunk. With `B = 1` every feature is an input and the network
    /// is the plain action-in MLP.
    #[serde(default = "one_branch")]
    pub branches: usize,
}

fn one_branch() -> usize {
    1
}

impl NetworkShape {
    /// A single-branch spec (the plain action-in MLP).
    pub fn new(state_dim: usize, action_dim: usize, hidden: Vec<usize>) -> Self {
        NetworkShape {
            state_dim,
            action_dim,
            hidden,
            branches: 1,
        }
    }

    /// Width of a row the network is given: `state_dim + action_dim`.
    pub fn row_dim(&self) -> usize {
        self.state_dim + self.action_dim
    }

    /// Number of branch-selector features at the end of a candidate row: `B` when
    /// `branches >= 2`, else 0.
    pub fn selector_dim(&self) -> usize {
        if self.branches >= 2 { self.branches } else { 0 }
    }

    /// Input width of the first layer: `state_dim + action_dim − selector_dim()`.
    pub fn input_dim(&self) -> usize {
        self.row_dim() - self.selector_dim()
    }

    /// `(d_in, d_out)` of every linear layer, input to output (the last has `d_out =
    /// branches`).
    pub fn layer_shapes(&self) -> Vec<(usize, usize)> {
        let mut dims = Vec::with_capacity(self.hidden.len() + 2);
        dims.push(self.input_dim());
        dims.extend_from_slice(&self.hidden);
        dims.push(self.branches.max(1));
        dims.windows(2).map(|w| (w[0], w[1])).collect()
    }

    /// Number of trainable parameters (weights and biases).
    pub fn num_params(&self) -> usize {
        self.layer_shapes().iter().map(|(i, o)| i * o + o).sum()
    }

    /// Human-readable form, e.g. `state 4 + action 3 -> [64, 64] -> 1`.
    pub fn describe(&self) -> String {
        if self.branches >= 2 {
            format!(
                "state {} + action {} (+ {} branch code) -> {:?} -> {} branches",
                self.state_dim,
                self.action_dim - self.branches,
                self.branches,
                self.hidden,
                self.branches
            )
        } else {
            format!(
                "state {} + action {} -> {:?} -> 1",
                self.state_dim, self.action_dim, self.hidden
            )
        }
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
        if self.branches == 0 {
            return Err(DdqnError::InvalidConfig {
                field: "branches",
                reason: "must be >= 1".into(),
            });
        }
        if self.branches >= 2 && self.action_dim <= self.branches {
            return Err(DdqnError::InvalidConfig {
                field: "action_dim",
                reason: format!(
                    "must exceed branches = {} (candidate features, then the branch code)",
                    self.branches
                ),
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
