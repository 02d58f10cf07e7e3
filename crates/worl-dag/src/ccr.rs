//! Edge data sizes drawn to reach a target communication-to-computation ratio (CCR).
//!
//! Traces without data sizes (Alibaba v2018) and generators set edge bytes from a CCR, the
//! usual knob of scheduling studies (Topcuoglu et al. 2002, §6.1): with
//! `CCR = (Σ bytes / bandwidth / |E|) / (Σ work / |V|)`, the total bytes that give the target
//! are `CCR · bandwidth · |E| · mean work`. Each edge gets a share proportional to a weight
//! drawn uniformly from `[0.5, 1.5)` (seeded `ChaCha8Rng`), so edges differ while the
//! workload's CCR ([`TaskGraph::ccr`](crate::TaskGraph::ccr)) equals the target up to
//! floating-point rounding.

use crate::error::{DagError, Result};
use crate::workload::{Workload, WorkloadBuilder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Reference bandwidth of worl's CCR figures: 1.25e9 bytes/s (10 Gbit/s Ethernet, the common
/// data-centre link between GPU machines).
pub const REFERENCE_BANDWIDTH: f64 = 1.25e9;

fn check(ccr: f64, bandwidth: f64) -> Result<()> {
    if !(ccr.is_finite() && ccr >= 0.0) {
        return Err(DagError::InvalidParameter {
            name: "ccr",
            reason: format!("{ccr} is not a finite number >= 0"),
        });
    }
    if !(bandwidth.is_finite() && bandwidth > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "bandwidth",
            reason: format!("{bandwidth} bytes/s is not a finite number > 0"),
        });
    }
    Ok(())
}

/// Sets the bytes of every edge of `builder` so that the workload it builds has the target
/// `ccr` at `bandwidth` bytes/s (see the module docs). Deterministic for a given `seed`.
///
/// Without edges nothing changes; with zero total work every edge gets 0 bytes.
///
/// Errors: [`DagError::InvalidParameter`] for a negative or non-finite `ccr` or a
/// `bandwidth` that is not finite and `> 0`; [`DagError::InvalidBytes`] if the sizes
/// overflow to infinity.
pub fn assign_ccr_bytes(
    builder: &mut WorkloadBuilder,
    ccr: f64,
    bandwidth: f64,
    seed: u64,
) -> Result<()> {
    check(ccr, bandwidth)?;
    let n_edges = builder.edges().len();
    if n_edges == 0 {
        return Ok(());
    }
    let n_tasks = builder.tasks().len().max(1);
    let mean_work = builder.tasks().iter().map(|t| t.work).sum::<f64>() / n_tasks as f64;
    let total = ccr * bandwidth * n_edges as f64 * mean_work;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let weights: Vec<f64> = (0..n_edges).map(|_| rng.random_range(0.5..1.5)).collect();
    let sum: f64 = weights.iter().sum();
    let mut i = 0;
    builder.set_edge_bytes(|_| {
        let b = weights[i] / sum * total;
        i += 1;
        b
    })
}

/// The workload `w` with its edge bytes re-drawn for the target `ccr` at `bandwidth` bytes/s
/// ([`assign_ccr_bytes`]); tasks, ids and edges are unchanged.
///
/// ```
/// use worl_dag::{ccr::{with_ccr, REFERENCE_BANDWIDTH}, generators::shapes};
/// let w = with_ccr(&shapes::fork_join(4, 2.0, 0.0)?, 0.5, REFERENCE_BANDWIDTH, 7)?;
/// let ccr = w.graph().ccr(REFERENCE_BANDWIDTH)?;
/// assert!((ccr - 0.5).abs() < 1e-12);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: as [`assign_ccr_bytes`].
pub fn with_ccr(w: &Workload, ccr: f64, bandwidth: f64, seed: u64) -> Result<Workload> {
    let mut b = w.to_builder();
    assign_ccr_bytes(&mut b, ccr, bandwidth, seed)?;
    b.build()
}
