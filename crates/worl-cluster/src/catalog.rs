//! GPU catalog: datasheet figures of common NVIDIA data-centre GPUs and their relative
//! training speed.
//!
//! # Figures
//! Every catalog entry gives the vendor datasheet's peak FP32 and peak FP16 throughput
//! (dense, tensor cores where the GPU has them; *sparsity figures are not used*), memory
//! capacity and memory bandwidth. The datasheet is named in each constructor's docs and in
//! [`GpuModel::source`]. Memory is the datasheet's capacity ("16 GB" HBM2 is 16 GiB of
//! DRAM); bandwidth is in GB/s (10⁹ bytes/s) as printed.
//!
//! Boards that carry two GPUs (K80, M60) are modelled **per GPU**, the unit a scheduler
//! sees (`nvidia-smi` lists two devices per board): figures are half the board's.
//!
//! # Relative training speed
//! The speed of GPU `k` relative to a V100 (SXM2) is the roofline rule
//!
//! ```text
//! s_k = sqrt( (F16_k / F16_V100) * (BW_k / BW_V100) ),   F16_V100 = 125 TFLOP/s, BW_V100 = 900 GB/s
//! ```
//!
//! the geometric mean of the two ceilings that bound a training step: dense matrix
//! multiplications (tensor-core FP16 throughput, mixed-precision training) and
//! memory-bound layers (normalisation, element-wise ops, optimiser; memory bandwidth).
//! GPUs without FP16 acceleration (K80, M60) use their FP32 throughput as `F16`.
//! This is a transparent, reproducible estimate from datasheet figures only, **not a
//! measured benchmark**; it yields e.g. A100-40GB = 2.08, T4 = 0.43, P100 = 0.35, which is
//! the range that published training comparisons report for these GPUs against a V100
//! (mixed precision, CNN and transformer training). Where measured throughputs for the
//! workload at hand are known, build the model with [`GpuModel::custom`] or override with
//! [`GpuModel::with_relative_speed`]. See [`roofline_speed`].

use crate::error::{Result, non_negative, positive};
use serde::{Deserialize, Serialize};

/// Peak dense FP16 tensor-core throughput of the reference V100 SXM2, TFLOP/s (NVIDIA Tesla
/// V100 datasheet, 2017/2020: 125 TFLOP/s "Tensor Performance").
pub const V100_FP16_TFLOPS: f64 = 125.0;
/// Memory bandwidth of the reference V100 SXM2, GB/s (NVIDIA Tesla V100 datasheet: 900 GB/s).
pub const V100_BANDWIDTH_GBS: f64 = 900.0;

/// The relative training speed (V100 = 1.0) estimated from datasheet figures:
/// `sqrt((fp16_tflops / 125) * (mem_bandwidth_gbs / 900))` (module docs explain the rule).
///
/// `fp16_tflops` is the peak dense FP16 throughput usable for training (TFLOP/s),
/// `mem_bandwidth_gbs` the memory bandwidth (GB/s).
pub fn roofline_speed(fp16_tflops: f64, mem_bandwidth_gbs: f64) -> f64 {
    ((fp16_tflops / V100_FP16_TFLOPS) * (mem_bandwidth_gbs / V100_BANDWIDTH_GBS)).sqrt()
}

/// A GPU model: datasheet figures and the relative training speed used by the cost model.
///
/// Catalog models come from the constructors ([`GpuModel::v100_32gb`], ...), from
/// [`GpuModel::catalog`] or by name with [`GpuModel::by_name`]; any other model from
/// [`GpuModel::custom`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuModel {
    /// Name, e.g. `V100-32GB`; unique within a cluster.
    pub name: String,
    /// Relative training speed, V100 = 1.0 (finite, `> 0`). A task of `work` reference
    /// GPU-seconds runs `work / relative_speed` seconds on an idle GPU of this model.
    pub relative_speed: f64,
    /// GPU memory, GiB (finite, `> 0`).
    pub mem_gib: f64,
    /// Peak FP32 throughput, TFLOP/s, if known.
    #[serde(default)]
    pub peak_fp32_tflops: Option<f64>,
    /// Peak dense FP16 throughput, TFLOP/s (tensor cores where present; sparsity not counted),
    /// if known.
    #[serde(default)]
    pub peak_fp16_tflops: Option<f64>,
    /// Memory bandwidth, GB/s (10⁹ bytes/s), if known.
    #[serde(default)]
    pub mem_bandwidth_gbs: Option<f64>,
    /// Where the figures come from (datasheet name and year), or how a custom model was made.
    #[serde(default)]
    pub source: String,
}

impl GpuModel {
    /// A catalog entry whose speed follows [`roofline_speed`].
    fn datasheet(
        name: &str,
        fp32: f64,
        fp16: f64,
        mem_gib: f64,
        bandwidth: f64,
        source: &str,
    ) -> Self {
        Self {
            name: name.to_owned(),
            relative_speed: roofline_speed(fp16, bandwidth),
            mem_gib,
            peak_fp32_tflops: Some(fp32),
            peak_fp16_tflops: Some(fp16),
            mem_bandwidth_gbs: Some(bandwidth),
            source: source.to_owned(),
        }
    }

    /// A custom model with a given relative speed (V100 = 1.0) and memory (GiB); datasheet
    /// figures unknown (add them with [`with_datasheet`](Self::with_datasheet)).
    ///
    /// Errors: [`ClusterError::InvalidValue`](crate::ClusterError::InvalidValue) if `relative_speed` or `mem_gib` is not a
    /// finite number `> 0`.
    pub fn custom(name: impl Into<String>, relative_speed: f64, mem_gib: f64) -> Result<Self> {
        let model = Self {
            name: name.into(),
            relative_speed,
            mem_gib,
            peak_fp32_tflops: None,
            peak_fp16_tflops: None,
            mem_bandwidth_gbs: None,
            source: "custom".to_owned(),
        };
        model.validate()?;
        Ok(model)
    }

    /// The same model with datasheet figures attached (TFLOP/s, TFLOP/s, GB/s); the relative
    /// speed is unchanged.
    pub fn with_datasheet(
        mut self,
        fp32_tflops: f64,
        fp16_tflops: f64,
        bandwidth_gbs: f64,
    ) -> Self {
        self.peak_fp32_tflops = Some(fp32_tflops);
        self.peak_fp16_tflops = Some(fp16_tflops);
        self.mem_bandwidth_gbs = Some(bandwidth_gbs);
        self
    }

    /// The same model with another relative speed (e.g. a measured throughput ratio).
    pub fn with_relative_speed(mut self, relative_speed: f64) -> Self {
        self.relative_speed = relative_speed;
        self
    }

    /// The same model under another name (e.g. a trace's code for it).
    pub fn renamed(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Checks the name and the figures: a name that is not empty, not only whitespace,
    /// without control characters and at most [`MAX_NAME_LEN`](crate::MAX_NAME_LEN) bytes; speed and memory finite and `> 0`, datasheet figures (if
    /// given) finite and `>= 0`.
    ///
    /// Errors: [`ClusterError::InvalidParameter`](crate::ClusterError::InvalidParameter)
    /// (`model.name`) for a bad name, quoting it;
    /// [`ClusterError::InvalidValue`](crate::ClusterError::InvalidValue) naming the model.
    pub fn validate(&self) -> Result<()> {
        if self.name.trim().is_empty() || self.name.chars().any(char::is_control) {
            return Err(crate::ClusterError::InvalidParameter {
                name: "model.name",
                reason: format!(
                    "GPU model name {:?} is empty, blank or has control characters",
                    self.name
                ),
            });
        }
        if self.name.len() > crate::cluster::MAX_NAME_LEN {
            let head: String = self.name.chars().take(40).collect();
            return Err(crate::ClusterError::InvalidParameter {
                name: "model.name",
                reason: format!(
                    "GPU model name `{head}...` is {} bytes long, more than {}",
                    self.name.len(),
                    crate::cluster::MAX_NAME_LEN
                ),
            });
        }
        let item = || format!("GPU model `{}`", self.name);
        positive(item, "relative_speed", self.relative_speed)?;
        positive(item, "mem_gib", self.mem_gib)?;
        for (field, v) in [
            ("peak_fp32_tflops", self.peak_fp32_tflops),
            ("peak_fp16_tflops", self.peak_fp16_tflops),
            ("mem_bandwidth_gbs", self.mem_bandwidth_gbs),
        ] {
            if let Some(v) = v {
                non_negative(item, field, v)?;
            }
        }
        Ok(())
    }

    /// NVIDIA Tesla K80, **one of the board's two GK210 GPUs**. Source: NVIDIA Tesla K80
    /// datasheet (2014): board 8.73 TFLOP/s FP32 (GPU Boost), 24 GB GDDR5, 480 GB/s ⇒ per
    /// GPU 4.365 TFLOP/s, 12 GiB, 240 GB/s. No FP16 acceleration: FP16 = FP32. Speed 0.097.
    pub fn k80() -> Self {
        Self::datasheet(
            "K80",
            4.365,
            4.365,
            12.0,
            240.0,
            "NVIDIA Tesla K80 datasheet (2014), per GPU (board / 2)",
        )
    }

    /// NVIDIA Tesla M60, **one of the board's two GM204 GPUs**. Source: NVIDIA Tesla M60
    /// datasheet (2015): 2 × 2048 CUDA cores, 16 GB GDDR5 (8 GB per GPU), 2 × 160 GB/s;
    /// 9.65 TFLOP/s FP32 per board at boost ⇒ per GPU 4.825 TFLOP/s, 8 GiB, 160 GB/s. No FP16
    /// acceleration: FP16 = FP32. Speed 0.083.
    pub fn m60() -> Self {
        Self::datasheet(
            "M60",
            4.825,
            4.825,
            8.0,
            160.0,
            "NVIDIA Tesla M60 datasheet (2015), per GPU (board / 2)",
        )
    }

    /// NVIDIA Tesla P100 PCIe 16 GB. Source: NVIDIA Tesla P100 datasheet (2016): 9.3 TFLOP/s
    /// FP32, 18.7 TFLOP/s FP16 (native half precision, no tensor cores), 16 GB CoWoS HBM2,
    /// 732 GB/s. (The PCIe variant: Alibaba's v2023 simulator names the trace's P100
    /// `Tesla-P100-PCIE-16GB`.) Speed 0.349.
    pub fn p100() -> Self {
        Self::datasheet(
            "P100",
            9.3,
            18.7,
            16.0,
            732.0,
            "NVIDIA Tesla P100 datasheet (2016), PCIe 16 GB",
        )
    }

    /// NVIDIA Tesla V100 SXM2 16 GB, the reference GPU (speed 1.0). Source: NVIDIA Tesla V100
    /// datasheet (2017; V100 Tensor Core GPU datasheet 2020): 15.7 TFLOP/s FP32, 125 TFLOP/s
    /// tensor, 16 GB HBM2, 900 GB/s.
    pub fn v100_16gb() -> Self {
        Self::datasheet(
            "V100-16GB",
            15.7,
            125.0,
            16.0,
            900.0,
            "NVIDIA Tesla V100 datasheet (2017/2020), SXM2 16 GB",
        )
    }

    /// NVIDIA Tesla V100 SXM2 32 GB (speed 1.0). Source: NVIDIA V100 Tensor Core GPU
    /// datasheet (2020): 15.7 TFLOP/s FP32, 125 TFLOP/s tensor, 32 GB HBM2, 900 GB/s.
    pub fn v100_32gb() -> Self {
        Self::datasheet(
            "V100-32GB",
            15.7,
            125.0,
            32.0,
            900.0,
            "NVIDIA V100 Tensor Core GPU datasheet (2020), SXM2 32 GB",
        )
    }

    /// NVIDIA T4. Source: NVIDIA T4 Tensor Core GPU datasheet (2019): 8.1 TFLOP/s FP32,
    /// 65 TFLOP/s mixed-precision FP16/FP32 tensor, 16 GB GDDR6, 320 GB/s. Speed 0.430.
    pub fn t4() -> Self {
        Self::datasheet(
            "T4",
            8.1,
            65.0,
            16.0,
            320.0,
            "NVIDIA T4 Tensor Core GPU datasheet (2019)",
        )
    }

    /// NVIDIA A10. Source: NVIDIA A10 Tensor Core GPU datasheet (2021): 31.2 TFLOP/s FP32,
    /// 125 TFLOP/s FP16 tensor (250 with sparsity, not used), 24 GB GDDR6, 600 GB/s.
    /// Speed 0.816.
    pub fn a10() -> Self {
        Self::datasheet(
            "A10",
            31.2,
            125.0,
            24.0,
            600.0,
            "NVIDIA A10 Tensor Core GPU datasheet (2021)",
        )
    }

    /// NVIDIA A100 SXM4 40 GB. Source: NVIDIA A100 Tensor Core GPU datasheet (2020/2021):
    /// 19.5 TFLOP/s FP32, 312 TFLOP/s FP16 tensor (624 with sparsity, not used), 40 GB HBM2,
    /// 1,555 GB/s. Speed 2.077.
    pub fn a100_40gb() -> Self {
        Self::datasheet(
            "A100-40GB",
            19.5,
            312.0,
            40.0,
            1555.0,
            "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 40 GB",
        )
    }

    /// NVIDIA A100 SXM4 80 GB. Source: NVIDIA A100 Tensor Core GPU datasheet (2021):
    /// 19.5 TFLOP/s FP32, 312 TFLOP/s FP16 tensor, 80 GB HBM2e, 2,039 GB/s. Speed 2.378.
    pub fn a100_80gb() -> Self {
        Self::datasheet(
            "A100-80GB",
            19.5,
            312.0,
            80.0,
            2039.0,
            "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 80 GB",
        )
    }

    /// NVIDIA H100 SXM5 80 GB. Source: NVIDIA H100 Tensor Core GPU datasheet (2022/2023):
    /// 67 TFLOP/s FP32, 1,979 TFLOP/s FP16 tensor *with sparsity* ⇒ 989.5 dense, 80 GB HBM3,
    /// 3.35 TB/s. Speed 5.428.
    pub fn h100() -> Self {
        Self::datasheet(
            "H100",
            67.0,
            989.5,
            80.0,
            3350.0,
            "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5 80 GB",
        )
    }

    /// NVIDIA H200 SXM 141 GB. Source: NVIDIA H200 Tensor Core GPU datasheet (2024):
    /// 67 TFLOP/s FP32, 1,979 TFLOP/s FP16 tensor with sparsity ⇒ 989.5 dense, 141 GB HBM3e,
    /// 4.8 TB/s. Speed 6.498.
    pub fn h200() -> Self {
        Self::datasheet(
            "H200",
            67.0,
            989.5,
            141.0,
            4800.0,
            "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM 141 GB",
        )
    }

    /// All catalog models, oldest first: K80, M60, P100, V100-16GB, V100-32GB, T4, A10,
    /// A100-40GB, A100-80GB, H100, H200.
    pub fn catalog() -> Vec<Self> {
        vec![
            Self::k80(),
            Self::m60(),
            Self::p100(),
            Self::v100_16gb(),
            Self::v100_32gb(),
            Self::t4(),
            Self::a10(),
            Self::a100_40gb(),
            Self::a100_80gb(),
            Self::h100(),
            Self::h200(),
        ]
    }

    /// A catalog model by name, case-insensitive. Accepts the catalog names and the trace
    /// codes: `V100` and `V100M16` (V100-16GB), `V100M32` (V100-32GB), `A100` (A100-40GB),
    /// `A100M80` (A100-80GB). The returned model keeps its catalog name. `None` for anything else (e.g. the undisclosed `G2`, `G3` of the v2023 trace).
    pub fn by_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_uppercase();
        let model = match n.as_str() {
            "K80" => Self::k80(),
            "M60" => Self::m60(),
            "P100" => Self::p100(),
            "V100" | "V100M16" | "V100-16GB" => Self::v100_16gb(),
            "V100M32" | "V100-32GB" => Self::v100_32gb(),
            "T4" => Self::t4(),
            "A10" => Self::a10(),
            "A100" | "A100-40GB" | "A100M40" => Self::a100_40gb(),
            "A100-80GB" | "A100M80" => Self::a100_80gb(),
            "H100" => Self::h100(),
            "H200" => Self::h200(),
            _ => return None,
        };
        Some(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roofline_speeds_match_hand_computation() {
        // sqrt((312/125) * (1555/900)) = sqrt(2.496 * 1.727778) = 2.07667
        assert!((GpuModel::a100_40gb().relative_speed - 2.076_66).abs() < 1e-4);
        assert!((GpuModel::v100_16gb().relative_speed - 1.0).abs() < 1e-12);
        assert!((GpuModel::v100_32gb().relative_speed - 1.0).abs() < 1e-12);
        // sqrt(0.52 * 320/900) = 0.42999
        assert!((GpuModel::t4().relative_speed - 0.429_99).abs() < 1e-4);
        // sqrt(0.1496 * 0.813333) = 0.34882
        assert!((GpuModel::p100().relative_speed - 0.348_82).abs() < 1e-4);
        // sqrt(7.916 * 3.722222) = 5.42818
        assert!((GpuModel::h100().relative_speed - 5.428_2).abs() < 1e-3);
        // ordering by generation
        let s: Vec<f64> = [
            "M60",
            "K80",
            "P100",
            "T4",
            "A10",
            "V100",
            "A100",
            "A100-80GB",
            "H100",
            "H200",
        ]
        .iter()
        .map(|n| GpuModel::by_name(n).unwrap().relative_speed)
        .collect();
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
    }

    #[test]
    fn catalog_is_valid_and_named_uniquely() {
        let c = GpuModel::catalog();
        assert_eq!(c.len(), 11);
        for m in &c {
            m.validate().unwrap();
            assert!(!m.source.is_empty());
            assert_eq!(GpuModel::by_name(&m.name).as_ref(), Some(m));
        }
        let mut names: Vec<&str> = c.iter().map(|m| m.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 11);
        assert_eq!(GpuModel::by_name("v100m32").unwrap().mem_gib, 32.0);
        assert!(GpuModel::by_name("G2").is_none());
    }

    #[test]
    fn custom_rejects_bad_values() {
        assert!(GpuModel::custom("x", 0.0, 16.0).is_err());
        assert!(GpuModel::custom("x", 1.0, f64::NAN).is_err());
        let m = GpuModel::custom("x", 1.5, 24.0).unwrap();
        assert_eq!(m.relative_speed, 1.5);
    }
}
