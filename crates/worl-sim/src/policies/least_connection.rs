//! [`LeastConnection`]: each ready task to the up GPU with the fewest tasks.

use super::round_robin::{Seen, eligible, gang_set_at};
use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use std::collections::HashMap;
use worl_cluster::GpuId;
use worl_dag::TaskId;

/// Least-connection dispatch (the load balancer's rule, with a GPU's "connections" being its
/// dispatched unfinished tasks): each ready task, in the order tasks became ready
/// ([`SimView::ready_tasks`]), goes to the up GPU that fits it and holds the fewest queued
/// plus running tasks ([`SimView::gpu_queue_len`], counting this decision's dispatches),
/// ties to the lowest GPU index. Run times and data locality are ignored. A task that fits
/// no up GPU stays undispatched until a later decision. A gang task (needing `g > 1` GPUs)
/// is led by the least-loaded GPU that can lead it ([`Problem::can_lead`]) with enough up
/// GPUs to join it, on the set [`SimView::best_set`] gives around it; it counts as one
/// more task on every GPU of the set.
///
/// [`Problem::can_lead`]: worl_cluster::Problem::can_lead
///
/// Stateless; `O(ready × m)` per decision.
#[derive(Clone, Debug, Default)]
pub struct LeastConnection {
    /// Per-GPU load during one decision (kept to reuse the allocation).
    load: Vec<usize>,
    seen: Seen,
    /// The GPU sets of the gang tasks dispatched by the last decision.
    sets: HashMap<TaskId, Vec<GpuId>>,
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
        self.sets.clear();
        let gangs = view.problem().has_gangs();
        for &task in view.ready_tasks() {
            if !self.seen.first(task) {
                continue;
            }
            if gangs && view.problem().gpus(task) > 1 {
                let mut order: Vec<usize> = (0..self.load.len()).collect();
                order.sort_by_key(|&k| (self.load[k], k));
                if let Some(set) = order
                    .into_iter()
                    .find_map(|k| gang_set_at(view, task, GpuId::new(k)))
                {
                    out.push(Dispatch { task, gpu: set[0] });
                    for &k in &set {
                        self.load[k.index()] += 1;
                    }
                    self.sets.insert(task, set);
                }
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
    fn gang_set(&self, task: TaskId) -> Option<Vec<GpuId>> {
        self.sets.get(&task).cloned()
    }
}
