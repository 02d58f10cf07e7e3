//! A plain-Rust copy of a trained Q-network for allocation-free inference in hot loops.
//!
//! A burn forward call costs tens of microseconds of dispatch overhead whatever the size of the
//! network; WORL-RTGS calls the policy once per task per whale per iteration (millions of
//! times per run). [`PolicySnapshot`] holds the weights in plain `Vec<f32>` and evaluates the
//! MLP with scalar loops, reusing a caller-owned [`SnapshotScratch`]:
//!
//! * the state's contribution to the first layer, `b₀ + s·W₀[0..state_dim]`, is computed once
//!   per decision point and shared by all its candidates;
//! * units a ReLU switched off are skipped (exact: they contribute `+0.0`), using a
//!   branch-free list of the active units;
//! * the output layer (one unit, or one per branch weighted by the row's branch code) is a
//!   plain dot product.
//!
//! Results match the burn forward pass to float rounding (tested within 1e-5).

use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result, check_len};
use crate::mlp::{LayerWeights, NetworkShape};

/// Weights of a Q-network copied to the host; `Send + Sync + Clone`, share it across rayon
/// workers (each with its own [`SnapshotScratch`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySnapshot {
    spec: NetworkShape,
    layers: Vec<LayerWeights>,
    max_width: usize,
}

/// Reusable work buffers of [`PolicySnapshot`] inference (one per thread).
///
/// `SnapshotScratch::default()` works with any snapshot: buffers grow on first use to the
/// network's widest layer, then calls allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct SnapshotScratch {
    state_part: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    active: Vec<u32>,
}

impl SnapshotScratch {
    fn ensure(&mut self, width: usize) {
        if self.a.len() < width {
            self.state_part.resize(width, 0.0);
            self.a.resize(width, 0.0);
            self.b.resize(width, 0.0);
            self.active.resize(width, 0);
        }
    }
}

impl PolicySnapshot {
    /// Build from host weights (input layer first), checking them against `spec`.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] for an invalid spec, [`DdqnError::DimensionMismatch`] if the
    /// layers do not have the spec's shapes.
    pub fn from_layers(spec: NetworkShape, layers: Vec<LayerWeights>) -> Result<Self> {
        spec.validate()?;
        let shapes = spec.layer_shapes();
        check_len("layers", shapes.len(), layers.len())?;
        for (l, &(i, o)) in layers.iter().zip(&shapes) {
            check_len("layer.weight", i * o, l.weight.len())?;
            check_len("layer.bias", o, l.bias.len())?;
        }
        let max_width = shapes.iter().map(|&(_, o)| o).max().unwrap_or(1);
        Ok(PolicySnapshot {
            spec,
            layers,
            max_width,
        })
    }

    /// The architecture.
    pub fn spec(&self) -> &NetworkShape {
        &self.spec
    }

    /// The weights, input layer first (`weight` row-major `[d_in, d_out]`).
    pub fn layers(&self) -> &[LayerWeights] {
        &self.layers
    }

    /// A scratch sized for this snapshot.
    pub fn scratch(&self) -> SnapshotScratch {
        let mut s = SnapshotScratch::default();
        s.ensure(self.max_width);
        s
    }

    fn check_inputs(&self, state: &[f32], candidates: &[f32]) -> Result<usize> {
        check_len("state", self.spec.state_dim, state.len())?;
        let a = self.spec.action_dim;
        if !candidates.len().is_multiple_of(a) {
            return Err(DdqnError::DimensionMismatch {
                what: "candidates",
                expected: candidates.len().div_ceil(a) * a,
                found: candidates.len(),
            });
        }
        Ok(candidates.len() / a)
    }

    /// First layer's state part `b₀ + s·W₀[0..state_dim]` into `scratch.state_part`.
    fn prepare_state(&self, state: &[f32], scratch: &mut SnapshotScratch) {
        scratch.ensure(self.max_width);
        let l0 = &self.layers[0];
        let width = l0.d_output;
        let acc = &mut scratch.state_part[..width];
        acc.copy_from_slice(&l0.bias);
        for (i, &s) in state.iter().enumerate() {
            if s != 0.0 {
                let row = &l0.weight[i * width..(i + 1) * width];
                for (o, &w) in acc.iter_mut().zip(row) {
                    *o += s * w;
                }
            }
        }
    }

    /// Q-value of one candidate; `prepare_state` must have run for the state.
    fn q_of(&self, candidate: &[f32], scratch: &mut SnapshotScratch) -> f32 {
        let SnapshotScratch {
            state_part,
            a,
            b,
            active,
        } = scratch;
        let s_dim = self.spec.state_dim;
        let l0 = &self.layers[0];
        let mut width = l0.d_output;
        a[..width].copy_from_slice(&state_part[..width]);
        let (features, code) = candidate.split_at(candidate.len() - self.spec.selector_dim());
        for (i, &c) in features.iter().enumerate() {
            let r = s_dim + i;
            let row = &l0.weight[r * width..(r + 1) * width];
            for (o, &w) in a[..width].iter_mut().zip(row) {
                *o += c * w;
            }
        }
        for layer in self.layers.iter().skip(1) {
            // ReLU of the previous (hidden) layer as a branch-free list of its active units:
            // inactive units contribute exactly +0.0, so they are skipped.
            let mut n = 0;
            for (i, &v) in a[..width].iter().enumerate() {
                active[n] = i as u32;
                n += usize::from(v > 0.0);
            }
            let active = &active[..n];
            let out_w = layer.d_output;
            if out_w == 1 {
                let mut q = layer.bias[0];
                for &i in active {
                    q += a[i as usize] * layer.weight[i as usize];
                }
                b[0] = q;
            } else {
                let acc = &mut b[..out_w];
                acc.copy_from_slice(&layer.bias);
                for &i in active {
                    let i = i as usize;
                    let x = a[i];
                    let row = &layer.weight[i * out_w..(i + 1) * out_w];
                    for (o, &w) in acc.iter_mut().zip(row) {
                        *o += x * w;
                    }
                }
            }
            std::mem::swap(a, b);
            width = out_w;
        }
        if code.is_empty() {
            a[0]
        } else {
            // Branch heads: the code selects (or mixes) the heads' outputs.
            code.iter().zip(a.iter()).map(|(c, q)| c * q).sum()
        }
    }

    /// Q-values of the `k` candidates of one state.
    ///
    /// `state` is `[state_dim]`, `candidates` row-major `[k, action_dim]`, `out` must have
    /// length `k`. Allocation-free once `scratch` has been used with this snapshot.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] for wrong lengths (`state`, `candidates`, `out`).
    pub fn q_values(
        &self,
        state: &[f32],
        candidates: &[f32],
        out: &mut [f32],
        scratch: &mut SnapshotScratch,
    ) -> Result<()> {
        let k = self.check_inputs(state, candidates)?;
        check_len("out", k, out.len())?;
        self.prepare_state(state, scratch);
        for (q, c) in out
            .iter_mut()
            .zip(candidates.chunks_exact(self.spec.action_dim))
        {
            *q = self.q_of(c, scratch);
        }
        Ok(())
    }

    /// Index of the candidate of highest Q-value (lowest index on ties). Allocation-free.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] for wrong lengths, [`DdqnError::NoCandidates`] if
    /// `candidates` is empty.
    pub fn greedy(
        &self,
        state: &[f32],
        candidates: &[f32],
        scratch: &mut SnapshotScratch,
    ) -> Result<usize> {
        self.greedy_masked(state, candidates, &[], scratch)
    }

    /// As [`greedy`](Self::greedy), among the candidates with `mask[i] == true` (an empty mask
    /// means all valid).
    ///
    /// # Errors
    /// As [`greedy`](Self::greedy); also [`DdqnError::DimensionMismatch`] if a non-empty mask
    /// is not `[k]`, [`DdqnError::NoCandidates`] if no candidate is valid.
    pub fn greedy_masked(
        &self,
        state: &[f32],
        candidates: &[f32],
        mask: &[bool],
        scratch: &mut SnapshotScratch,
    ) -> Result<usize> {
        let k = self.check_inputs(state, candidates)?;
        if !mask.is_empty() {
            check_len("mask", k, mask.len())?;
        }
        self.prepare_state(state, scratch);
        let mut best: Option<(usize, f32)> = None;
        for (i, c) in candidates.chunks_exact(self.spec.action_dim).enumerate() {
            if !mask.is_empty() && !mask[i] {
                continue;
            }
            let q = self.q_of(c, scratch);
            match best {
                Some((_, b)) if q <= b => {}
                _ => best = Some((i, q)),
            }
        }
        best.map(|(i, _)| i).ok_or(DdqnError::NoCandidates {
            what: "observation",
            row: 0,
        })
    }
}
