//! The ready list of a list scheduler.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use worl_dag::{TaskGraph, TaskId};

/// A ready task in the heap: higher priority first, then smaller task id (also the heap
/// entry of the searches' list decoder, so that HEFT's keys give HEFT's order).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Ready {
    /// The task's priority (larger first).
    pub(crate) priority: f64,
    /// The task's index (smaller first among equal priorities).
    pub(crate) task: u32,
}

impl Eq for Ready {}

impl Ord for Ready {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.task.cmp(&self.task))
    }
}

impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The ready list of a list scheduler: the tasks whose predecessors have all been taken,
/// served by **decreasing priority, then increasing task id** (a binary heap; `O(log n)` per
/// operation, `O((n + |E|) log n)` for a whole run).
///
/// [`pop`](Self::pop) takes the best ready task and releases its successors at once, so the
/// caller must place the popped task before popping again (as every list scheduler does).
/// When priorities strictly decrease along edges (e.g. `rank_u` with positive costs) the
/// order served is exactly "all tasks sorted by decreasing priority, ties by id"; when they do
/// not (zero costs), the queue still serves a topological order.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuModel, Problem};
/// use worl_dag::generators::shapes;
/// use worl_sched::schedulers::list::ReadyQueue;
/// let w = Arc::new(shapes::fork_join(2, 1.0, 0.0)?); // t0 -> {t1, t2} -> t3
/// let p = Problem::new(w, Arc::new(presets::homogeneous(1, &GpuModel::t4())?))?;
/// let mut q = ReadyQueue::new(p.graph(), vec![0.0, 1.0, 5.0, 9.0]);
/// let order: Vec<usize> = std::iter::from_fn(|| q.pop()).map(|t| t.index()).collect();
/// assert_eq!(order, [0, 2, 1, 3]); // t3 has the highest priority but is ready last
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReadyQueue<'g> {
    graph: &'g TaskGraph,
    priority: Vec<f64>,
    missing: Vec<u32>,
    heap: BinaryHeap<Ready>,
}

impl<'g> ReadyQueue<'g> {
    /// A queue over `graph` with one priority per task (indexed by [`TaskId::index`](worl_dag::TaskId::index)),
    /// holding the entry tasks.
    ///
    /// # Panics
    /// If `priority.len() != graph.n_tasks()`.
    pub fn new(graph: &'g TaskGraph, priority: Vec<f64>) -> Self {
        assert_eq!(priority.len(), graph.n_tasks(), "one priority per task");
        let missing: Vec<u32> = graph
            .task_ids()
            .map(|v| graph.preds(v).len() as u32)
            .collect();
        let mut heap = BinaryHeap::with_capacity(graph.n_tasks());
        for v in graph.entry_tasks() {
            heap.push(Ready {
                priority: priority[v.index()],
                task: v.index() as u32,
            });
        }
        Self {
            graph,
            priority,
            missing,
            heap,
        }
    }

    /// The priorities, indexed by [`TaskId::index`](worl_dag::TaskId::index).
    pub fn priorities(&self) -> &[f64] {
        &self.priority
    }

    /// Removes and returns the ready task of highest priority (ties: smaller id) and makes
    /// its successors ready when it was their last missing predecessor; `None` when every
    /// task has been served.
    pub fn pop(&mut self) -> Option<TaskId> {
        let Ready { task, .. } = self.heap.pop()?;
        let v = TaskId::new(task as usize);
        for s in self.graph.succs(v) {
            let w = s.task.index();
            self.missing[w] -= 1;
            if self.missing[w] == 0 {
                self.heap.push(Ready {
                    priority: self.priority[w],
                    task: w as u32,
                });
            }
        }
        Some(v)
    }
}
