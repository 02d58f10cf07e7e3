//! The Q-network: an MLP scoring `state ⧺ candidate` rows.
//!
//! Q(s, a) = f([φ(s) ⧺ ψ(a)]) with f a ReLU MLP `input → hidden… → 1` (Mnih et al. 2015 use a
//! network with one output per action; scoring state–action pairs instead, as in the
//! "action-in" architecture, lets one network serve any number of candidate actions — 8 or 500
//! GPUs alike).
//!
//! Shapes: input `[batch · candidates, state_dim + action_dim]`, output `[batch · candidates]`.
//! Weights of layer l are stored as burn's `Linear` does: `weight [d_in, d_out]` row-major and
//! `bias [d_out]`, y = x·W + b.
//!
//! The architecture and the host-side weights are the burn-free [`NetworkShape`] and
//! [`LayerWeights`] of [`mlp`](crate::mlp) (re-exported here): [`QNetwork::from_weights`] builds
//! a network from them, [`QNetwork::layer_weights`] reads them back, and
//! [`QNetwork::snapshot`] wraps them in a [`PolicySnapshot`]. The dependency is one-way:
//! `snapshot` knows nothing of this module.

use burn::module::{Module, Param};
use burn::nn::{Linear, Relu};
use burn::tensor::{Device, Tensor, TensorData, Transaction};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::batch::CandidateBatch;
use crate::error::{DdqnError, Result, check_finite, check_len};
use crate::exploration::argmax_valid;
pub use crate::mlp::{LayerWeights, NetworkShape};
use crate::snapshot::PolicySnapshot;

/// The Q-network (a burn [`Module`]): ReLU MLP from `state ⧺ candidate` to a scalar Q-value.
///
/// Shapes: [`forward`](Self::forward) maps `[rows, state_dim + action_dim]` to `[rows]`, where
/// rows = batch · candidates. The same module type serves as online network (parameters on an
/// autodiff device) and target network (plain device, via [`Module::valid`]).
#[derive(Module, Debug)]
pub struct QNetwork {
    layers: Vec<Linear>,
    activation: Relu,
    #[module(skip)]
    spec: NetworkShape,
}

impl QNetwork {
    /// A network with freshly initialised weights on `device`.
    ///
    /// Initialisation is burn's `Linear` default (Kaiming-uniform with gain 1/√3, i.e.
    /// U(−1/√d_in, 1/√d_in) for weights and biases), drawn from `ChaCha8Rng::seed_from_u64(seed)`
    /// on the host, so the same seed gives bit-identical weights on every backend and thread.
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] for an invalid `spec`.
    pub fn new(spec: &NetworkShape, seed: u64, device: &Device) -> Result<Self> {
        spec.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let layers: Vec<LayerWeights> = spec
            .layer_shapes()
            .into_iter()
            .map(|(d_input, d_output)| {
                let bound = 1.0 / (d_input as f32).sqrt();
                let mut draw = |n: usize| -> Vec<f32> {
                    (0..n).map(|_| rng.random_range(-bound..bound)).collect()
                };
                let weight = draw(d_input * d_output);
                let bias = draw(d_output);
                LayerWeights {
                    d_input,
                    d_output,
                    weight,
                    bias,
                }
            })
            .collect();
        Self::from_weights(spec, &layers, device)
    }

    /// A network with the given weights (one [`LayerWeights`] per layer, input to output).
    ///
    /// # Errors
    /// [`DdqnError::InvalidConfig`] for an invalid `spec`, [`DdqnError::DimensionMismatch`] if
    /// the layers do not match `spec.layer_shapes()`, [`DdqnError::NonFinite`] for NaN weights.
    pub fn from_weights(
        spec: &NetworkShape,
        layers: &[LayerWeights],
        device: &Device,
    ) -> Result<Self> {
        spec.validate()?;
        let shapes = spec.layer_shapes();
        check_len("layers", shapes.len(), layers.len())?;
        let mut linears = Vec::with_capacity(layers.len());
        for (l, &(d_in, d_out)) in layers.iter().zip(&shapes) {
            check_len("layer.d_input", d_in, l.d_input)?;
            check_len("layer.d_output", d_out, l.d_output)?;
            check_len("layer.weight", d_in * d_out, l.weight.len())?;
            check_len("layer.bias", d_out, l.bias.len())?;
            check_finite("layer.weight", &l.weight)?;
            check_finite("layer.bias", &l.bias)?;
            linears.push(Linear {
                weight: Param::from_data(TensorData::new(l.weight.clone(), [d_in, d_out]), device),
                bias: Some(Param::from_data(
                    TensorData::new(l.bias.clone(), [d_out]),
                    device,
                )),
            });
        }
        Ok(QNetwork {
            layers: linears,
            activation: Relu::new(),
            spec: spec.clone(),
        })
    }

    /// The architecture.
    pub fn spec(&self) -> &NetworkShape {
        &self.spec
    }

    /// The device the parameters live on (with its autodiff context).
    pub fn device(&self) -> Device {
        self.layers[0].weight.val().device()
    }

    /// Q-values of a batch of rows: `[rows, state_dim + action_dim]` → `[rows]`. With
    /// `branches = B >= 2` the trunk reads the first `state_dim + action_dim − B` columns and
    /// the last `B` (the branch code) weight the `B` heads: `q = Σ_b code_b · head_b`.
    pub fn forward(&self, input: Tensor<2>) -> Tensor<1> {
        let rows = input.dims()[0];
        let last = self.layers.len() - 1;
        let selector = self.spec.selector_dim();
        let (mut x, code) = if selector > 0 {
            let d = self.spec.input_dim();
            let code = input.clone().slice([0..rows, d..d + selector]);
            (input.slice([0..rows, 0..d]), Some(code))
        } else {
            (input, None)
        };
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            if i < last {
                x = self.activation.forward(x);
            }
        }
        match code {
            Some(code) => (x * code).sum_dim(1).reshape([rows]),
            None => x.reshape([rows]),
        }
    }

    /// Q-values of every candidate of every decision point of `batch`, flattened in the
    /// batch's candidate order (`[Σ kᵢ]`; decision point `i` owns `offsets[i]..offsets[i+1]`).
    /// One burn forward call for the whole batch.
    ///
    /// # Errors
    /// [`DdqnError::DimensionMismatch`] if the batch's feature sizes differ from the network's;
    /// [`DdqnError::Backend`] if the device fails.
    pub fn q_values_batch(&self, batch: &CandidateBatch) -> Result<Vec<f32>> {
        check_len("batch.state_dim", self.spec.state_dim, batch.state_dim())?;
        check_len("batch.action_dim", self.spec.action_dim, batch.action_dim())?;
        if batch.total_candidates() == 0 {
            return Ok(Vec::new());
        }
        let q = self.forward(batch.flat_inputs(&self.device()));
        read_f32(q)
    }

    /// Greedy action (index of the highest Q-value, lowest index on ties) of every decision
    /// point of `batch`, from one batched forward call.
    ///
    /// # Errors
    /// As [`q_values_batch`](Self::q_values_batch), plus [`DdqnError::NoCandidates`] naming
    /// the first row with no candidate.
    pub fn greedy_batch(&self, batch: &CandidateBatch) -> Result<Vec<usize>> {
        if let Some(row) = (0..batch.len()).find(|&i| batch.num_candidates(i) == 0) {
            return Err(DdqnError::NoCandidates { what: "batch", row });
        }
        let q = self.q_values_batch(batch)?;
        let offsets = batch.offsets();
        Ok(offsets
            .windows(2)
            .map(|w| argmax_valid(&q[w[0]..w[1]], &[]).unwrap_or(0))
            .collect())
    }

    /// Host copy of the weights, input layer first.
    ///
    /// # Errors
    /// [`DdqnError::Backend`] if reading back from the device fails.
    pub fn layer_weights(&self) -> Result<Vec<LayerWeights>> {
        // One transaction: a single device synchronisation for all tensors (matters on wgpu).
        let mut tx = Transaction::default();
        for layer in &self.layers {
            tx = tx.register(layer.weight.val());
            if let Some(b) = &layer.bias {
                tx = tx.register(b.val());
            }
        }
        let mut data = tx
            .try_execute()
            .map_err(|e| DdqnError::Backend(format!("{e:?}")))?
            .into_iter();
        let mut next = || -> Result<Vec<f32>> {
            let d = data
                .next()
                .ok_or_else(|| DdqnError::Backend("transaction returned too few tensors".into()))?;
            d.convert::<f32>()
                .try_into_vec::<f32>()
                .map_err(|e| DdqnError::Backend(format!("{e:?}")))
        };
        self.layers
            .iter()
            .zip(self.spec.layer_shapes())
            .map(|(layer, (d_input, d_output))| {
                let weight = next()?;
                let bias = match &layer.bias {
                    Some(_) => next()?,
                    None => vec![0.0; d_output],
                };
                Ok(LayerWeights {
                    d_input,
                    d_output,
                    weight,
                    bias,
                })
            })
            .collect()
    }

    /// A plain-Rust copy of the network for fast allocation-free inference (see
    /// [`PolicySnapshot`]).
    ///
    /// # Errors
    /// [`DdqnError::Backend`] if reading back from the device fails.
    pub fn snapshot(&self) -> Result<PolicySnapshot> {
        PolicySnapshot::from_layers(self.spec.clone(), self.layer_weights()?)
    }

    /// Polyak averaging θ⁻ ← τ·θ + (1 − τ)·θ⁻ of `self` (the target network) towards `online`
    /// (Lillicrap et al., ICLR 2016). Both must have the same architecture and live on the same
    /// (plain) device; parameter ids of `self` are kept.
    pub(crate) fn polyak_towards(self, online: &QNetwork, tau: f32) -> QNetwork {
        let QNetwork {
            layers,
            activation,
            spec,
        } = self;
        let layers = layers
            .into_iter()
            .zip(&online.layers)
            .map(|(t, o)| {
                let ow = o.weight.val();
                let weight = t
                    .weight
                    .map(|w| w.mul_scalar(1.0 - tau).add(ow.mul_scalar(tau)));
                let bias = match (t.bias, &o.bias) {
                    (Some(tb), Some(ob)) => {
                        let obv = ob.val();
                        Some(tb.map(|b| b.mul_scalar(1.0 - tau).add(obv.mul_scalar(tau))))
                    }
                    (tb, _) => tb,
                };
                Linear { weight, bias }
            })
            .collect();
        QNetwork {
            layers,
            activation,
            spec,
        }
    }

    /// Parameter ids and tensors, in layer order (weights then bias), for gradient clipping.
    pub(crate) fn param_ids(&self) -> Vec<(burn::module::ParamId, usize)> {
        let mut ids = Vec::with_capacity(self.layers.len() * 2);
        for l in &self.layers {
            ids.push((l.weight.id, 2));
            if let Some(b) = &l.bias {
                ids.push((b.id, 1));
            }
        }
        ids
    }
}

/// Read a float tensor back to the host as `Vec<f32>`.
pub(crate) fn read_f32<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>> {
    let data = t
        .try_into_data()
        .map_err(|e| DdqnError::Backend(format!("{e:?}")))?;
    data.convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| DdqnError::Backend(format!("{e:?}")))
}
