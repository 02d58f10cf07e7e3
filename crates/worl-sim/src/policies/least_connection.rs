//! [`LeastConnection`]: each ready task to the up GPU with the fewest tasks.

use super::round_robin::{Seen, eligible};
use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use worl_cluster::GpuId;

/// Least-connection dispatch (the load balancer's rule, with a GPU's "connections" being its
/// dispatched unfinished tasks): each ready task, in the order tasks became ready
/// ([`SimView::ready_tasks`]), goes to the up GPU that fits it and holds the fewest queued
/// plus running tasks ([`SimView::gpu_queue_len`], counting this decision's dispatches),
/// ties to the lowest GPU index. Run times and data locality are ignored. A task that fits
/// no up GPU stays undispatched until a later decision.
///
/// Stateless; `O(ready × m)` per decision.
#[derive(Clone, Debug, Default)]
pub struct LeastConnection {
    /// Per-GPU load during one decision (kept to reuse the allocation).
    load: Vec<usize>,
    seen: Seen,
}

impl LeastConnection {
    /// A least-connection policy.
    pub fn new() -> Self {
        Self::default()
    }
}

impl OnlinePolicy for LeastConnection {
    fn name(&self) -> &str {
        "least-connection"
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        let gpus = view.problem().cluster().gpu_ids();
        self.load.clear();
        self.load.extend(gpus.map(|k| view.gpu_queue_len(k)));
        self.seen.start(view.problem().n_tasks());
        for &task in view.ready_tasks() {
            if !self.seen.first(task) {
                continue;
            }
            let best = (0..self.load.len())
                .filter(|&k| eligible(view, task, GpuId::new(k)))
                .min_by_key(|&k| (self.load[k], k));
            if let Some(k) = best {
                out.push(Dispatch {
                    task,
                    gpu: GpuId::new(k),
                });
                self.load[k] += 1;
            }
        }
        Ok(())
    }
}
