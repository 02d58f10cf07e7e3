//! [`SimMetrics`]: aggregate measures of a simulated execution.

/// Aggregate metrics of one simulation. Times in seconds, ratios dimensionless,
/// `bytes_moved` in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SimMetrics {
    /// Finish of the last task, s (from time 0, not from the first release).
    pub makespan: f64,
    /// Mean job completion time (JCT = finish of the job's last task − release), s.
    pub mean_jct: f64,
    /// Median JCT (nearest rank), s.
    pub p50_jct: f64,
    /// 99th percentile JCT (nearest rank), s.
    pub p99_jct: f64,
    /// Mean slowdown (JCT over the job's ideal time, see
    /// [`JobRecord::slowdown`](crate::JobRecord)).
    pub mean_slowdown: f64,
    /// Mean wait (first start of a job's tasks − its release), s.
    pub mean_wait: f64,
    /// Time GPUs spent on successful attempts over `n_gpus × makespan` (in `[0, 1]`; 0 for a
    /// zero makespan).
    pub utilisation: f64,
    /// Largest GPU busy time (successful attempts) over the mean (1 = balanced; 1 when no
    /// GPU is busy).
    pub load_imbalance: f64,
    /// Bytes carried by transfers between distinct GPUs (every attempt's inputs; an edge
    /// into a gang task counts once per GPU of its set outside the parent's), bytes.
    pub bytes_moved: f64,
    /// Sum over transfers of realised minus contention-free time (`Problem::comm_time`),
    /// s (0 without contention).
    pub contention_delay: f64,
    /// Time run by attempts lost to failures, s (a lost gang attempt counts its elapsed
    /// time on each of its GPUs: GPU-seconds).
    pub lost_time: f64,
    /// Decision points after time 0 at which the policy dispatched at least one task
    /// (0 for a static plan run without failures).
    pub replans: f64,
    /// Median wall-clock time of one policy decision (`OnlinePolicy::decide`), s.
    pub decision_latency_p50: f64,
    /// 99th percentile wall-clock time of one policy decision, s.
    pub decision_latency_p99: f64,
}

impl SimMetrics {
    /// The measures' names (field names), in the order of [`values`](Self::values): the
    /// column headers of `worl simulate`'s `sim.csv` and the keys of Python's
    /// `Simulation.runs`.
    pub const NAMES: [&'static str; 14] = [
        "makespan",
        "mean_jct",
        "p50_jct",
        "p99_jct",
        "mean_slowdown",
        "mean_wait",
        "utilisation",
        "load_imbalance",
        "bytes_moved",
        "contention_delay",
        "lost_time",
        "replans",
        "decision_latency_p50",
        "decision_latency_p99",
    ];

    /// The measures in the order of [`NAMES`](Self::NAMES).
    pub fn values(&self) -> [f64; 14] {
        [
            self.makespan,
            self.mean_jct,
            self.p50_jct,
            self.p99_jct,
            self.mean_slowdown,
            self.mean_wait,
            self.utilisation,
            self.load_imbalance,
            self.bytes_moved,
            self.contention_delay,
            self.lost_time,
            self.replans,
            self.decision_latency_p50,
            self.decision_latency_p99,
        ]
    }
}

/// The nearest-rank `q`-quantile (`q` in `[0, 1]`) of `sorted` (ascending); 0 if empty.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::quantile;

    #[test]
    fn nearest_rank_quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert_eq!(quantile(&v, 0.99), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
