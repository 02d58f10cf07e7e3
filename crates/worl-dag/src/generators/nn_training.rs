//! DAGs of neural-network training: pipeline-parallel stages over micro-batches (GPipe,
//! Huang et al., NeurIPS 2019), data-parallel replicas joined by all-reduce tasks.
//!
//! A [`Model`] is a list of [`Layer`]s with their forward FLOPs, output activations and
//! parameters per sample. The layers are cut into `stages` contiguous stages of about equal
//! forward FLOPs. For every iteration, replica `r`, stage `s` and micro-batch `μ` there is a
//! forward task `F` and a backward task `B`; per iteration and stage one `allreduce` task
//! sums the gradients of all replicas (`update` when there is one replica) and releases the
//! next iteration. Costs, for a micro-batch of `b` samples, `e` bytes per tensor element and
//! the reference throughput `R` FLOP/s:
//!
//! * work(F) = `b · Σ_layer flops / R` (reference GPU-seconds); work(B) = `backward_factor ·
//!   work(F)` (2: a backward pass costs about twice the forward pass, Kaplan et al. 2020,
//!   §2.1; Narayanan et al., SC 2021, §5.1); work(allreduce) = `(replicas - 1) · params / R`
//!   (the additions of the reduction);
//! * F(s,μ) → F(s+1,μ) and B(s+1,μ) → B(s,μ) carry the activations at the stage boundary,
//!   `b · act_out(s) · e` bytes; F(s,μ) → B(s,μ) carries the activations the stage stashes,
//!   `b · Σ_layer act · e`; B(s,last μ) → allreduce(s) carries the gradients, `params(s) · e`
//!   (the other micro-batches' edges are pure dependencies, 0 bytes); allreduce(s) → F(s,μ)
//!   of the next iteration carries the updated weights, `params(s) · e`;
//! * memory need of F and B: `16 · params(s)` bytes (fp32 master weights, gradients and two
//!   Adam moments; Rajbhandari et al., ZeRO, SC 2020, §3.1) plus the stashed activations of
//!   all micro-batches, in GiB.
//!
//! Work is FLOPs over [`V100_FP32_FLOPS`] by default (the reference GPU is a V100).

use crate::error::{DagError, Result};
use crate::generators::{check_edge_count, check_nonneg, check_task_count};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};

/// Peak single-precision throughput of an NVIDIA Tesla V100 SXM2: 15.7e12 FLOP/s (NVIDIA
/// Tesla V100 datasheet, 2017). The default reference throughput.
pub const V100_FP32_FLOPS: f64 = 15.7e12;

/// Peak mixed-precision tensor-core throughput of the same GPU: 125e12 FLOP/s (same
/// datasheet).
pub const V100_TENSOR_FLOPS: f64 = 125.0e12;

/// One layer (or block of layers) of a model, per input sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Name (e.g. `conv3_2`, `block7`).
    pub name: String,
    /// Forward-pass floating-point operations per sample (a multiply-add counts 2).
    pub flops: f64,
    /// Elements of the layer's output activation per sample.
    pub activations: f64,
    /// Trainable parameters.
    pub params: f64,
}

/// A model: its layers in forward order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Name (e.g. `resnet50`).
    pub name: String,
    /// Layers in forward order (at least one).
    pub layers: Vec<Layer>,
}

impl Model {
    /// Sum of the layers' forward FLOPs per sample.
    pub fn flops(&self) -> f64 {
        self.layers.iter().map(|l| l.flops).sum()
    }

    /// Sum of the layers' parameters.
    pub fn params(&self) -> f64 {
        self.layers.iter().map(|l| l.params).sum()
    }

    /// A transformer of `layers` blocks of width `hidden` on sequences of `seq_len` tokens
    /// with a `vocab`-word embedding tied to the output layer. Per sample (one sequence), a
    /// block costs `24·s·h² + 4·s²·h` forward FLOPs and holds `12·h² + 13·h` parameters
    /// (Narayanan et al., SC 2021, §5.1); the output layer costs `2·s·h·V`; the embedding
    /// holds `V·h + s·h` parameters (token and position tables) and costs no FLOPs.
    pub fn transformer(
        name: impl Into<String>,
        layers: usize,
        hidden: usize,
        seq_len: usize,
        vocab: usize,
    ) -> Self {
        let (h, s, v) = (hidden as f64, seq_len as f64, vocab as f64);
        let mut out = vec![Layer {
            name: "embedding".into(),
            flops: 0.0,
            activations: s * h,
            params: v * h + s * h,
        }];
        for i in 0..layers {
            out.push(Layer {
                name: format!("block{i}"),
                flops: 24.0 * s * h * h + 4.0 * s * s * h,
                activations: s * h,
                params: 12.0 * h * h + 13.0 * h,
            });
        }
        out.push(Layer {
            name: "logits".into(),
            flops: 2.0 * s * h * v,
            activations: s * v,
            params: 0.0,
        });
        Self {
            name: name.into(),
            layers: out,
        }
    }

    /// BERT-base (Devlin et al. 2019): 12 blocks, hidden 768, sequences of 512 tokens,
    /// vocabulary 30,522; about 110 M parameters.
    pub fn bert_base() -> Self {
        Self::transformer("bert-base", 12, 768, 512, 30_522)
    }

    /// GPT-2 medium (Radford et al. 2019): 24 blocks, hidden 1024, context 1024, vocabulary
    /// 50,257; about 355 M parameters.
    pub fn gpt2_medium() -> Self {
        Self::transformer("gpt2-medium", 24, 1024, 1024, 50_257)
    }

    /// ResNet-50 (He et al., CVPR 2016, Table 1) on 224×224 images, one layer per
    /// bottleneck block plus the stem and the classifier, with FLOPs counted from the
    /// architecture (`2·k²·C_in·C_out·H_out·W_out` per convolution, stride on the 3×3
    /// convolution, batch norm and ReLU not counted): about 8.2 GFLOPs (4.1 G multiply-adds)
    /// and 25.5 M parameters per sample.
    pub fn resnet50() -> Self {
        let conv = |k: f64, cin: f64, cout: f64, hout: f64| 2.0 * k * k * cin * cout * hout * hout;
        let mut layers = vec![Layer {
            name: "stem".into(),
            flops: conv(7.0, 3.0, 64.0, 112.0),
            activations: 56.0 * 56.0 * 64.0,
            params: 7.0 * 7.0 * 3.0 * 64.0,
        }];
        let mut cin = 64.0;
        let mut size = 56.0;
        for (stage, (blocks, mid)) in [(3, 64.0), (4, 128.0), (6, 256.0), (3, 512.0)]
            .into_iter()
            .enumerate()
        {
            for blk in 0..blocks {
                let stride = if blk == 0 && stage > 0 { 2.0 } else { 1.0 };
                let hin = size;
                let hout = size / stride;
                let cout = 4.0 * mid;
                let mut flops = conv(1.0, cin, mid, hin)
                    + conv(3.0, mid, mid, hout)
                    + conv(1.0, mid, cout, hout);
                let mut params = cin * mid + 9.0 * mid * mid + mid * cout;
                if blk == 0 {
                    flops += conv(1.0, cin, cout, hout);
                    params += cin * cout;
                }
                layers.push(Layer {
                    name: format!("conv{}_{}", stage + 2, blk + 1),
                    flops,
                    activations: hout * hout * cout,
                    params,
                });
                cin = cout;
                size = hout;
            }
        }
        layers.push(Layer {
            name: "fc".into(),
            flops: 2.0 * 2048.0 * 1000.0,
            activations: 1000.0,
            params: 2048.0 * 1000.0 + 1000.0,
        });
        Self {
            name: "resnet50".into(),
            layers,
        }
    }
}

/// Parameters of [`nn_training`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NnTrainingParams {
    /// The model.
    pub model: Model,
    /// Pipeline stages (`1..=layers`). Default 4.
    pub stages: usize,
    /// Micro-batches per iteration (`>= 1`). Default 4.
    pub micro_batches: usize,
    /// Samples per micro-batch (`>= 1`). Default 8.
    pub micro_batch_size: usize,
    /// Data-parallel replicas (`>= 1`). Default 2.
    pub replicas: usize,
    /// Training iterations (`>= 1`). Default 1.
    pub iterations: usize,
    /// Bytes per tensor element. Default 4 (fp32).
    pub bytes_per_element: f64,
    /// Reference throughput, FLOP/s. Default [`V100_FP32_FLOPS`].
    pub throughput: f64,
    /// Backward FLOPs over forward FLOPs. Default 2.
    pub backward_factor: f64,
}

impl NnTrainingParams {
    /// Defaults for `model`.
    pub fn new(model: Model) -> Self {
        Self {
            model,
            stages: 4,
            micro_batches: 4,
            micro_batch_size: 8,
            replicas: 2,
            iterations: 1,
            bytes_per_element: 4.0,
            throughput: V100_FP32_FLOPS,
            backward_factor: 2.0,
        }
    }
    /// Sets pipeline stages and micro-batches.
    pub fn pipeline(mut self, stages: usize, micro_batches: usize) -> Self {
        self.stages = stages;
        self.micro_batches = micro_batches;
        self
    }
    /// Sets the data-parallel replicas.
    pub fn replicas(mut self, replicas: usize) -> Self {
        self.replicas = replicas;
        self
    }
    /// Sets the micro-batch size.
    pub fn micro_batch_size(mut self, samples: usize) -> Self {
        self.micro_batch_size = samples;
        self
    }
    /// Sets the iterations.
    pub fn iterations(mut self, iterations: usize) -> Self {
        self.iterations = iterations;
        self
    }

    /// Tasks and edges of the workload these parameters make, computed without overflow
    /// (saturating at `u128::MAX`):
    /// `iterations · (replicas · stages · micro_batches · 2 + stages)` tasks and, per
    /// iteration, `replicas · micro_batches · (2 · (stages − 1) + 2 · stages)` edges, plus
    /// `replicas · stages · micro_batches` more per iteration after the first (the updated
    /// weights).
    ///
    /// ```
    /// use worl_dag::generators::nn_training::{nn_training, Model, NnTrainingParams};
    /// let p = NnTrainingParams::new(Model::resnet50()).pipeline(4, 8).replicas(2).iterations(2);
    /// let w = nn_training(&p)?;
    /// assert_eq!(p.counts(), (w.graph().n_tasks() as u128, w.graph().n_edges() as u128));
    /// # Ok::<(), worl_dag::DagError>(())
    /// ```
    pub fn counts(&self) -> (u128, u128) {
        let (i, r, s, m) = (
            self.iterations as u128,
            self.replicas as u128,
            self.stages as u128,
            self.micro_batches as u128,
        );
        let rsm = r.saturating_mul(s).saturating_mul(m);
        let tasks = i.saturating_mul(rsm.saturating_mul(2).saturating_add(s));
        let per = r
            .saturating_mul(m)
            .saturating_mul((4 * s).saturating_sub(2));
        let edges = i
            .saturating_mul(per)
            .saturating_add(i.saturating_sub(1).saturating_mul(rsm));
        (tasks, edges)
    }

    /// Checks every parameter.
    ///
    /// Errors: [`DagError::InvalidParameter`] naming the first bad one; the largest of
    /// `iterations`, `replicas`, `stages` and `micro_batches` when the workload would hold
    /// more than [`MAX_GENERATED_TASKS`](crate::generators::MAX_GENERATED_TASKS) tasks or
    /// [`MAX_GENERATED_EDGES`](crate::generators::MAX_GENERATED_EDGES) edges.
    pub fn validate(&self) -> Result<()> {
        let layers = self.model.layers.len();
        for (name, v, min) in [
            ("stages", self.stages, 1),
            ("micro_batches", self.micro_batches, 1),
            ("micro_batch_size", self.micro_batch_size, 1),
            ("replicas", self.replicas, 1),
            ("iterations", self.iterations, 1),
        ] {
            if v < min {
                return Err(DagError::InvalidParameter {
                    name,
                    reason: format!("{v} is below {min}"),
                });
            }
        }
        let (tasks, edges) = self.counts();
        let (name, _) = [
            ("iterations", self.iterations),
            ("replicas", self.replicas),
            ("stages", self.stages),
            ("micro_batches", self.micro_batches),
        ]
        .into_iter()
        .fold(
            ("iterations", 0),
            |best, c| if c.1 > best.1 { c } else { best },
        );
        let what = format!(
            "iterations = {} × (replicas = {} × stages = {} × micro_batches = {})",
            self.iterations, self.replicas, self.stages, self.micro_batches
        );
        check_task_count(name, tasks, &what)?;
        check_edge_count(name, edges, &what)?;
        if self.stages > layers {
            return Err(DagError::InvalidParameter {
                name: "stages",
                reason: format!("{} stages for {layers} layers", self.stages),
            });
        }
        check_nonneg("bytes_per_element", self.bytes_per_element, true)?;
        check_nonneg("throughput", self.throughput, true)?;
        check_nonneg("backward_factor", self.backward_factor, false)?;
        for l in &self.model.layers {
            for v in [l.flops, l.activations, l.params] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(DagError::InvalidParameter {
                        name: "model",
                        reason: format!(
                            "layer `{}` has a value {v} that is not finite and >= 0",
                            l.name
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Contiguous cut of `flops` into `stages` non-empty groups of about equal sum: stage `k`
/// ends after the first layer where the running sum reaches `(k+1)/stages` of the total,
/// keeping at least one layer for every later stage. Returns the end index of each stage.
pub fn partition_layers(flops: &[f64], stages: usize) -> Vec<usize> {
    let n = flops.len();
    let total: f64 = flops.iter().sum();
    let mut ends = Vec::with_capacity(stages);
    let mut sum = 0.0;
    let mut start = 0;
    for k in 0..stages {
        let left = stages - k - 1;
        let mut end = start + 1;
        sum += flops[start];
        let target = total * (k + 1) as f64 / stages as f64;
        while end < n - left && sum < target {
            sum += flops[end];
            end += 1;
        }
        if k == stages - 1 {
            while end < n {
                sum += flops[end];
                end += 1;
            }
        }
        ends.push(end);
        start = end;
    }
    ends
}

/// A GPipe-style training workload (one job `train`; see the module docs). Deterministic.
///
/// Tasks: `iterations · (replicas · stages · micro_batches · 2 + stages)`, named
/// `F_i<it>_r<r>_s<s>_m<μ>`, `B_...` and `allreduce_i<it>_s<s>` (`update_...` with one
/// replica). Depth of one iteration: `2·stages + 1`.
///
/// ```
/// use worl_dag::generators::nn_training::{nn_training, Model, NnTrainingParams};
/// let p = NnTrainingParams::new(Model::resnet50()).pipeline(4, 8).replicas(2);
/// let w = nn_training(&p)?;
/// assert_eq!(w.graph().n_tasks(), 2 * 4 * 8 * 2 + 4);
/// assert_eq!(w.graph().depth(), 2 * 4 + 1);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: [`NnTrainingParams::validate`]'s.
pub fn nn_training(p: &NnTrainingParams) -> Result<Workload> {
    p.validate()?;
    let layers = &p.model.layers;
    let ends = partition_layers(
        &layers.iter().map(|l| l.flops).collect::<Vec<_>>(),
        p.stages,
    );
    let (s_n, m_n, r_n) = (p.stages, p.micro_batches, p.replicas);
    let b = p.micro_batch_size as f64;
    let e = p.bytes_per_element;
    // Per stage: forward FLOPs, stashed activation elements, boundary activations, params.
    let mut stage = Vec::with_capacity(s_n);
    let mut start = 0;
    for &end in &ends {
        let ls = &layers[start..end];
        stage.push((
            ls.iter().map(|l| l.flops).sum::<f64>(),
            ls.iter().map(|l| l.activations).sum::<f64>(),
            ls[ls.len() - 1].activations,
            ls.iter().map(|l| l.params).sum::<f64>(),
        ));
        start = end;
    }
    let mut wb = WorkloadBuilder::new(format!("{}-training", p.model.name));
    let job = wb.add_job("train")?;
    let sync = if r_n > 1 { "allreduce" } else { "update" };
    let mut prev_sync: Vec<TaskId> = Vec::new();
    for it in 0..p.iterations {
        let mut f = vec![TaskId::new(0); r_n * s_n * m_n];
        let mut bw = f.clone();
        let at = |r: usize, s: usize, m: usize| (r * s_n + s) * m_n + m;
        for r in 0..r_n {
            for (s, &(flops, stash, _, params)) in stage.iter().enumerate() {
                let mem = (16.0 * params + m_n as f64 * b * stash * e) / (1u64 << 30) as f64;
                let mem = (mem > 0.0).then_some(mem);
                let work = b * flops / p.throughput;
                for m in 0..m_n {
                    f[at(r, s, m)] =
                        wb.add_task(job, format!("F_i{it}_r{r}_s{s}_m{m}"), work, mem)?;
                    bw[at(r, s, m)] = wb.add_task(
                        job,
                        format!("B_i{it}_r{r}_s{s}_m{m}"),
                        p.backward_factor * work,
                        mem,
                    )?;
                }
            }
        }
        let mut syncs = Vec::with_capacity(s_n);
        for (s, &(_, _, _, params)) in stage.iter().enumerate() {
            let work = (r_n - 1) as f64 * params / p.throughput;
            syncs.push(wb.add_task(job, format!("{sync}_i{it}_s{s}"), work, None)?);
        }
        for r in 0..r_n {
            for (s, &(_, stash, out, params)) in stage.iter().enumerate() {
                for m in 0..m_n {
                    let (fi, bi) = (f[at(r, s, m)], bw[at(r, s, m)]);
                    if s + 1 < s_n {
                        wb.add_edge(fi, f[at(r, s + 1, m)], b * out * e)?;
                        wb.add_edge(bw[at(r, s + 1, m)], bi, b * out * e)?;
                    }
                    wb.add_edge(fi, bi, b * stash * e)?;
                    let grads = if m + 1 == m_n { params * e } else { 0.0 };
                    wb.add_edge(bi, syncs[s], grads)?;
                    if let Some(&prev) = prev_sync.get(s) {
                        wb.add_edge(prev, fi, params * e)?;
                    }
                }
            }
        }
        prev_sync = syncs;
    }
    wb.build()
}
