//! [`TaskGraph`]: the validated DAG, its topological order and compact adjacency.

use crate::error::{DagError, Result};
use crate::ids::TaskId;
use crate::task::{Edge, Neighbor, Task};
use petgraph::graph::DiGraph;
use std::collections::VecDeque;

/// A validated directed acyclic graph of [`Task`]s whose edges carry data bytes.
///
/// Built by [`WorkloadBuilder`](crate::WorkloadBuilder) (or the loaders and generators), so it
/// is always acyclic, has at least one task, finite non-negative work and bytes, and no
/// duplicate edge or self-loop.
///
/// Besides the petgraph graph ([`graph`](Self::graph), node index = [`TaskId`]) it caches
/// what schedulers traverse millions of times:
/// * a topological order ([`topo_order`](Self::topo_order), Kahn's algorithm, ready tasks taken
///   first-in first-out, initial tasks in ascending id; deterministic);
/// * predecessor and successor lists as CSR slices ([`preds`](Self::preds),
///   [`succs`](Self::succs)), each sorted by ascending task id.
#[derive(Clone, Debug)]
pub struct TaskGraph {
    graph: DiGraph<Task, f64, u32>,
    topo: Vec<TaskId>,
    pred_start: Vec<u32>,
    preds: Vec<Neighbor>,
    succ_start: Vec<u32>,
    succs: Vec<Neighbor>,
    has_gangs: bool,
}

/// Builds the CSR arrays (`start`, `list`) of one direction: `start[v]..start[v+1]` indexes
/// the neighbours of `v`, sorted by id.
fn csr(
    n: usize,
    edges: impl Iterator<Item = (usize, Neighbor)> + Clone,
) -> (Vec<u32>, Vec<Neighbor>) {
    let mut start = vec![0u32; n + 1];
    for (v, _) in edges.clone() {
        start[v + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut list = vec![
        Neighbor {
            task: TaskId::new(0),
            bytes: 0.0
        };
        start[n] as usize
    ];
    for (v, nb) in edges {
        list[fill[v] as usize] = nb;
        fill[v] += 1;
    }
    for v in 0..n {
        list[start[v] as usize..start[v + 1] as usize].sort_by_key(|nb| nb.task);
    }
    (start, list)
}

impl TaskGraph {
    /// Validates and builds a graph. `name(task)` renders a task for error messages.
    ///
    /// Errors: [`DagError::SelfLoop`], [`DagError::DuplicateEdge`], [`DagError::Cycle`],
    /// [`DagError::UnknownId`] for an edge naming a missing task. Values (work, bytes) are
    /// checked by the builder before.
    pub(crate) fn build(
        tasks: Vec<Task>,
        edges: &[Edge],
        name: impl Fn(&Task) -> String,
    ) -> Result<Self> {
        let n = tasks.len();
        for e in edges {
            for t in [e.from, e.to] {
                if t.index() >= n {
                    return Err(DagError::UnknownId {
                        kind: "task",
                        index: t.index(),
                        len: n,
                    });
                }
            }
            if e.from == e.to {
                return Err(DagError::SelfLoop {
                    task: name(&tasks[e.from.index()]),
                });
            }
        }
        let (succ_start, succs) = csr(
            n,
            edges.iter().map(|e| {
                (
                    e.from.index(),
                    Neighbor {
                        task: e.to,
                        bytes: e.bytes,
                    },
                )
            }),
        );
        for v in 0..n {
            let s = &succs[succ_start[v] as usize..succ_start[v + 1] as usize];
            if let Some(w) = s.windows(2).find(|w| w[0].task == w[1].task) {
                return Err(DagError::DuplicateEdge {
                    from: name(&tasks[v]),
                    to: name(&tasks[w[0].task.index()]),
                });
            }
        }
        let (pred_start, preds) = csr(
            n,
            edges.iter().map(|e| {
                (
                    e.to.index(),
                    Neighbor {
                        task: e.from,
                        bytes: e.bytes,
                    },
                )
            }),
        );

        // Kahn's algorithm, FIFO.
        let mut indeg: Vec<u32> = (0..n).map(|v| pred_start[v + 1] - pred_start[v]).collect();
        let mut queue: VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
        let mut topo = Vec::with_capacity(n);
        while let Some(v) = queue.pop_front() {
            topo.push(TaskId::new(v));
            for nb in &succs[succ_start[v] as usize..succ_start[v + 1] as usize] {
                let w = nb.task.index();
                indeg[w] -= 1;
                if indeg[w] == 0 {
                    queue.push_back(w);
                }
            }
        }
        if topo.len() < n {
            // Every task left has a predecessor that is also left: walk backwards until a
            // task repeats, which closes a cycle.
            let mut seen = vec![usize::MAX; n];
            let mut path = Vec::new();
            let mut v = (0..n).find(|&v| indeg[v] > 0).expect("a task is left");
            while seen[v] == usize::MAX {
                seen[v] = path.len();
                path.push(v);
                v = preds[pred_start[v] as usize..pred_start[v + 1] as usize]
                    .iter()
                    .map(|nb| nb.task.index())
                    .find(|&u| indeg[u] > 0)
                    .expect("a task left in Kahn's algorithm has a predecessor left");
            }
            let mut cycle: Vec<String> = path[seen[v]..]
                .iter()
                .rev()
                .map(|&u| name(&tasks[u]))
                .collect();
            cycle.push(cycle[0].clone());
            return Err(DagError::Cycle { tasks: cycle });
        }

        let has_gangs = tasks.iter().any(Task::is_gang);
        let mut graph = DiGraph::with_capacity(n, edges.len());
        for t in tasks {
            graph.add_node(t);
        }
        for e in edges {
            graph.add_edge(e.from.into(), e.to.into(), e.bytes);
        }
        Ok(Self {
            graph,
            topo,
            pred_start,
            preds,
            succ_start,
            succs,
            has_gangs,
        })
    }

    /// Whether any task is a gang task ([`Task::is_gang`]: `gpus > 1`); computed once when
    /// the graph is built.
    #[inline]
    pub fn has_gangs(&self) -> bool {
        self.has_gangs
    }

    /// Number of tasks `n`.
    #[inline]
    pub fn n_tasks(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    #[inline]
    pub fn n_edges(&self) -> usize {
        self.graph.edge_count()
    }

    /// The task with id `id`.
    ///
    /// # Panics
    /// If `id` is not a task of this graph (`id.index() >= n_tasks()`).
    #[inline]
    pub fn task(&self, id: TaskId) -> &Task {
        &self.graph[petgraph::graph::NodeIndex::from(id)]
    }

    /// All tasks with their ids, in id order.
    pub fn tasks(&self) -> impl ExactSizeIterator<Item = (TaskId, &Task)> + '_ {
        self.graph
            .raw_nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| (TaskId::new(i), &n.weight))
    }

    /// All task ids `0..n`.
    pub fn task_ids(&self) -> impl ExactSizeIterator<Item = TaskId> + use<> {
        (0..self.n_tasks()).map(TaskId::new)
    }

    /// All edges, grouped by parent in id order, children in id order.
    pub fn edges(&self) -> impl Iterator<Item = Edge> + '_ {
        self.task_ids().flat_map(move |from| {
            self.succs(from).iter().map(move |nb| Edge {
                from,
                to: nb.task,
                bytes: nb.bytes,
            })
        })
    }

    /// A topological order of all tasks (parents before children); length `n`.
    #[inline]
    pub fn topo_order(&self) -> &[TaskId] {
        &self.topo
    }

    /// Predecessors of `id` with the bytes each sends, sorted by id.
    #[inline]
    pub fn preds(&self, id: TaskId) -> &[Neighbor] {
        let v = id.index();
        &self.preds[self.pred_start[v] as usize..self.pred_start[v + 1] as usize]
    }

    /// Successors of `id` with the bytes each receives, sorted by id.
    #[inline]
    pub fn succs(&self, id: TaskId) -> &[Neighbor] {
        let v = id.index();
        &self.succs[self.succ_start[v] as usize..self.succ_start[v + 1] as usize]
    }

    /// Entry tasks (no predecessor), in id order.
    pub fn entry_tasks(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.task_ids().filter(|&t| self.preds(t).is_empty())
    }

    /// Exit tasks (no successor), in id order.
    pub fn exit_tasks(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.task_ids().filter(|&t| self.succs(t).is_empty())
    }

    /// The underlying petgraph graph: node weights are [`Task`]s (node index = [`TaskId`]),
    /// edge weights are bytes. Use it to run petgraph's algorithms.
    #[inline]
    pub fn graph(&self) -> &DiGraph<Task, f64, u32> {
        &self.graph
    }
}
