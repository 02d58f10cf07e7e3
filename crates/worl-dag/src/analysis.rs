//! Structural queries on a [`TaskGraph`]: levels, longest paths, critical path.
//!
//! Path lengths take caller-given costs, so the same code serves the unit-cost depth, the
//! min-cost critical path of SLR (Topcuoglu et al. 2002, §5), the upward rank `rank_u`
//! (bottom level with mean costs, HEFT §4.1) and the downward rank `rank_d` (top level, CPOP).

use crate::graph::TaskGraph;
use crate::ids::TaskId;
use serde::{Deserialize, Serialize};

/// The longest path of a DAG under given node and edge costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    /// Sum of the node costs and edge costs along the path (the caller's unit).
    pub length: f64,
    /// Tasks on the path, from an entry task to an exit task.
    pub tasks: Vec<TaskId>,
}

impl TaskGraph {
    /// Level of every task (indexed by [`TaskId::index`]): 0 for entry tasks, else one more
    /// than the highest level among its predecessors. Length `n`.
    pub fn levels(&self) -> Vec<u32> {
        let mut level = vec![0u32; self.n_tasks()];
        for &v in self.topo_order() {
            level[v.index()] = self
                .preds(v)
                .iter()
                .map(|p| level[p.task.index()] + 1)
                .max()
                .unwrap_or(0);
        }
        level
    }

    /// Number of levels (length of the longest path counted in tasks), `>= 1`.
    pub fn depth(&self) -> usize {
        self.levels().iter().max().map_or(0, |&l| l as usize + 1)
    }

    /// Largest number of tasks on one level.
    pub fn width(&self) -> usize {
        let mut count = vec![0usize; self.depth()];
        for l in self.levels() {
            count[l as usize] += 1;
        }
        count.into_iter().max().unwrap_or(0)
    }

    /// Top level of every task: the longest path from an entry task to the *start* of the
    /// task, `tl(v) = max over parents u of tl(u) + node_cost(u) + edge_cost(u, v, bytes)`,
    /// 0 for entries. This is CPOP's downward rank `rank_d`. Length `n`.
    ///
    /// `edge_cost(from, to, bytes)` receives the edge's data size in bytes.
    pub fn top_levels(
        &self,
        node_cost: impl Fn(TaskId) -> f64,
        edge_cost: impl Fn(TaskId, TaskId, f64) -> f64,
    ) -> Vec<f64> {
        let mut tl = vec![0.0f64; self.n_tasks()];
        for &v in self.topo_order() {
            let mut best = 0.0f64;
            for p in self.preds(v) {
                best = best
                    .max(tl[p.task.index()] + node_cost(p.task) + edge_cost(p.task, v, p.bytes));
            }
            tl[v.index()] = best;
        }
        tl
    }

    /// Bottom level of every task: the longest path from the task's *start* to the end of an
    /// exit task, `bl(v) = node_cost(v) + max over children w of edge_cost(v, w, bytes) + bl(w)`.
    /// With mean execution and communication costs this is HEFT's upward rank `rank_u`
    /// (Topcuoglu et al. 2002, eq. 7). Length `n`.
    pub fn bottom_levels(
        &self,
        node_cost: impl Fn(TaskId) -> f64,
        edge_cost: impl Fn(TaskId, TaskId, f64) -> f64,
    ) -> Vec<f64> {
        let mut bl = vec![0.0f64; self.n_tasks()];
        for &v in self.topo_order().iter().rev() {
            let mut best = 0.0f64;
            for s in self.succs(v) {
                best = best.max(edge_cost(v, s.task, s.bytes) + bl[s.task.index()]);
            }
            bl[v.index()] = node_cost(v) + best;
        }
        bl
    }

    /// The critical path: a longest entry-to-exit path under the given costs.
    ///
    /// Ties are broken towards the smallest task id, so the result is deterministic. With
    /// `node_cost = min_k exec(v, k)` and `edge_cost = 0` this is the `CP_MIN` of the SLR
    /// metric (Topcuoglu et al. 2002, eq. 11).
    pub fn critical_path(
        &self,
        node_cost: impl Fn(TaskId) -> f64,
        edge_cost: impl Fn(TaskId, TaskId, f64) -> f64,
    ) -> CriticalPath {
        let bl = self.bottom_levels(&node_cost, &edge_cost);
        let mut v = self
            .entry_tasks()
            .fold(None::<TaskId>, |best, t| match best {
                Some(b) if bl[b.index()] >= bl[t.index()] => Some(b),
                _ => Some(t),
            })
            .expect("a DAG has an entry task");
        let length = bl[v.index()];
        let mut tasks = vec![v];
        loop {
            let next = self.succs(v).iter().fold(None::<(TaskId, f64)>, |best, s| {
                let via = edge_cost(v, s.task, s.bytes) + bl[s.task.index()];
                match best {
                    Some((_, b)) if b >= via => best,
                    _ => Some((s.task, via)),
                }
            });
            match next {
                Some((w, _)) => {
                    tasks.push(w);
                    v = w;
                }
                None => break,
            }
        }
        CriticalPath { length, tasks }
    }
}
