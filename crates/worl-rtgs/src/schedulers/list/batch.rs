//! The engine shared by Min-Min and Max-Min: batch-mode selection over the ready tasks by
//! their minimum completion time (MCT), with incremental bookkeeping.
//!
//! Textbook form (Ibarra and Kim 1977; Braun et al. 2001, §2): at every step compute, for
//! every ready task, its MCT over all GPUs; pick the task of minimum (Min-Min) or maximum
//! (Max-Min) MCT and place it on its MCT GPU. That is `O(n · R · m)` slot evaluations (`R`
//! ready tasks). This engine gives the same schedule with far fewer evaluations, using two
//! facts: placing a task on GPU `k` changes only `k`'s timeline, and can only delay (never
//! advance) any other task's earliest finish on `k`, under both policies; the data-ready time
//! of a ready task never changes (its predecessors are placed).
//!
//! * Every ready task keeps a row of its EFTs, one per GPU, each stamped with the number of
//!   placements its GPU had when it was computed, in a min-tournament tree keyed by (EFT, GPU
//!   id). A stale entry is a lower bound of the true EFT, so the tree's minimum is exact as
//!   soon as the surfacing entry is fresh: refreshing recomputes only the stale entries that
//!   surface (`O(log m)` each plus one slot evaluation).
//! * Min-Min keeps the ready tasks in a heap on their last known MCT (a lower bound of the
//!   current one): the popped task is refreshed, and placed if its MCT did not grow, else
//!   pushed back (lazy evaluation; the first exact minimum popped is the true minimum).
//! * Max-Min needs exact values of all ready tasks (a lower bound says nothing about a
//!   maximum): after placing on `k`, exactly the ready tasks whose current MCT GPU is `k` are
//!   refreshed (a task whose best GPU is another keeps its exact MCT: `k` only got worse).
//!
//! Worst case `O(n · R · (d̄ + g + log m))` for Max-Min (every ready task prefers the same GPU,
//! e.g. identical idle GPUs), far less for Min-Min; plus `n · m` slot evaluations to build the
//! rows. Memory `O(R · m)`: one row (36 bytes per GPU, the GPU count rounded up to a power of
//! two) per ready task, recycled when the task is placed; the heap is compacted when stale
//! entries outnumber live ones.

use crate::error::Result;
use crate::scheduler::RunContext;
use crate::schedulers::list::{GapIndex, finish, fits_no_gpu};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule};
use worl_dag::TaskId;

/// Which MCT the batch rule picks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Min-Min: the ready task of minimum MCT.
    Min,
    /// Max-Min: the ready task of maximum MCT.
    Max,
}

const NONE: u32 = u32::MAX;

/// A node of a row's tournament tree: the best (EFT, GPU) below it.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Node {
    value: f64,
    gpu: u32,
}

impl Node {
    /// The better of two nodes: smaller EFT, then smaller GPU id.
    #[inline]
    fn min(self, other: Node) -> Node {
        match self.value.total_cmp(&other.value) {
            Ordering::Less => self,
            Ordering::Greater => other,
            Ordering::Equal if self.gpu <= other.gpu => self,
            Ordering::Equal => other,
        }
    }
}

const PADDING: Node = Node {
    value: f64::INFINITY,
    gpu: u32::MAX,
};

/// Rows of EFTs, each a min-tournament tree over the GPUs, in a recycled pool.
///
/// A row is `2·size` nodes (`size` = the next power of two `>= m`): node 1 is the root,
/// node `i` has children `2i` and `2i + 1` (adjacent: one cache line per level), leaves are
/// nodes `size..2·size` (GPU `k` at `size + k`). Nodes carry their value, so an update walks
/// `log2(size)` cache lines.
struct Rows {
    m: usize,
    size: usize,
    /// `[rows, 2·size]` nodes (node 0 unused).
    node: Vec<Node>,
    /// `[rows, size]`: placements on the GPU when its leaf was computed.
    stamp: Vec<u32>,
    free: Vec<u32>,
}

impl Rows {
    fn new(m: usize) -> Self {
        Self {
            m,
            size: m.next_power_of_two(),
            node: Vec::new(),
            stamp: Vec::new(),
            free: Vec::new(),
        }
    }

    fn alloc(&mut self) -> u32 {
        if let Some(r) = self.free.pop() {
            return r;
        }
        let r = self.stamp.len() / self.size;
        self.node.resize((r + 1) * 2 * self.size, PADDING);
        self.stamp.resize((r + 1) * self.size, 0);
        r as u32
    }

    /// Fills row `r` with the EFT of `task` on every GPU (`+inf` where it does not fit).
    fn build(
        &mut self,
        r: u32,
        partial: &PartialSchedule<'_>,
        index: &GapIndex,
        task: TaskId,
        policy: Policy,
        placements: &[u32],
    ) -> Result<()> {
        let p = partial.problem();
        let (size, m) = (self.size, self.m);
        let nodes = &mut self.node[r as usize * 2 * size..(r as usize + 1) * 2 * size];
        for (k, &placed) in placements.iter().enumerate() {
            let gpu = GpuId::new(k);
            let value = if p.fits(task, gpu) {
                index.slot(partial, task, gpu, policy)?.finish()
            } else {
                f64::INFINITY
            };
            nodes[size + k] = Node {
                value,
                gpu: k as u32,
            };
            self.stamp[r as usize * size + k] = placed;
        }
        nodes[size + m..].fill(PADDING);
        for i in (1..size).rev() {
            nodes[i] = nodes[2 * i].min(nodes[2 * i + 1]);
        }
        Ok(())
    }

    /// The exact minimum (GPU, EFT) of row `r`, refreshing the stale leaves that surface.
    fn best(
        &mut self,
        r: u32,
        partial: &PartialSchedule<'_>,
        index: &GapIndex,
        task: TaskId,
        policy: Policy,
        placements: &[u32],
    ) -> Result<(u32, f64)> {
        let size = self.size;
        let nodes = &mut self.node[r as usize * 2 * size..(r as usize + 1) * 2 * size];
        let stamps = &mut self.stamp[r as usize * size..(r as usize + 1) * size];
        loop {
            let top = nodes[1];
            if top.value == f64::INFINITY {
                return Err(fits_no_gpu(partial.problem(), task));
            }
            let k = top.gpu as usize;
            if stamps[k] == placements[k] {
                return Ok((top.gpu, top.value));
            }
            nodes[size + k].value = index.slot(partial, task, GpuId::new(k), policy)?.finish();
            stamps[k] = placements[k];
            let mut i = (size + k) / 2;
            while i >= 1 {
                nodes[i] = nodes[2 * i].min(nodes[2 * i + 1]);
                i /= 2;
            }
        }
    }
}

/// A heap entry: served first = greatest `key`, then smallest task id. `key` is `-MCT` for
/// Min-Min and `MCT` for Max-Min.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Entry {
    key: f64,
    task: u32,
    /// The task's stamp when pushed (Max-Min drops entries whose task was refreshed since).
    stamp: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then_with(|| other.task.cmp(&self.task))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Per ready task: its row, its MCT GPU and its stamp.
#[derive(Copy, Clone, Debug)]
struct Cached {
    row: u32,
    gpu: u32,
    stamp: u32,
}

struct Engine<'p> {
    partial: PartialSchedule<'p>,
    index: GapIndex,
    policy: Policy,
    pick: Pick,
    rows: Rows,
    /// Placements per GPU so far.
    placements: Vec<u32>,
    cached: Vec<Cached>,
    missing: Vec<u32>,
    heap: BinaryHeap<Entry>,
    /// Number of ready (admitted, not yet placed) tasks.
    ready: usize,
    /// Max-Min: ready tasks by their MCT GPU.
    bucket: Vec<Vec<u32>>,
    scratch: Vec<u32>,
}

impl Engine<'_> {
    fn key(&self, mct: f64) -> f64 {
        match self.pick {
            Pick::Min => -mct,
            Pick::Max => mct,
        }
    }

    /// Refreshes task `t`'s MCT and pushes it (with a new stamp).
    fn refresh(&mut self, t: usize) -> Result<()> {
        let task = TaskId::new(t);
        let c = self.cached[t];
        let (gpu, mct) = self.rows.best(
            c.row,
            &self.partial,
            &self.index,
            task,
            self.policy,
            &self.placements,
        )?;
        let stamp = c.stamp.wrapping_add(1);
        self.cached[t] = Cached {
            row: c.row,
            gpu,
            stamp,
        };
        self.heap.push(Entry {
            key: self.key(mct),
            task: t as u32,
            stamp,
        });
        if self.pick == Pick::Max {
            self.bucket[gpu as usize].push(t as u32);
        }
        Ok(())
    }

    /// Makes task `t` ready: builds its row and pushes it.
    fn admit(&mut self, t: usize) -> Result<()> {
        let row = self.rows.alloc();
        self.rows.build(
            row,
            &self.partial,
            &self.index,
            TaskId::new(t),
            self.policy,
            &self.placements,
        )?;
        self.cached[t].row = row;
        self.ready += 1;
        self.refresh(t)
    }

    /// Drops superseded heap entries once they outnumber the live ones (Max-Min pushes a new
    /// entry per refresh and leaves the old one behind). Amortised `O(1)` per push.
    fn compact(&mut self) {
        if self.heap.len() <= 2 * self.ready + 64 {
            return;
        }
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.retain(|e| {
            let c = self.cached[e.task as usize];
            c.row != NONE && c.stamp == e.stamp
        });
        self.heap = BinaryHeap::from(entries);
    }

    fn run(&mut self) -> Result<()> {
        let p = self.partial.problem();
        let g = p.graph();
        for v in g.entry_tasks() {
            self.admit(v.index())?;
        }
        while let Some(e) = self.heap.pop() {
            let t = e.task as usize;
            let c = self.cached[t];
            if e.stamp != c.stamp || c.row == NONE {
                continue; // superseded entry, or task already placed
            }
            let task = TaskId::new(t);
            let gpu = match self.pick {
                // Exact: the task's MCT GPU has not changed since it was refreshed.
                Pick::Max => c.gpu as usize,
                // A lower bound: refresh; place if exact, else back into the heap.
                Pick::Min => {
                    let (gpu, mct) = self.rows.best(
                        c.row,
                        &self.partial,
                        &self.index,
                        task,
                        self.policy,
                        &self.placements,
                    )?;
                    if self.key(mct) != e.key {
                        self.refresh(t)?;
                        continue;
                    }
                    gpu as usize
                }
            };
            let slot = self
                .index
                .slot(&self.partial, task, GpuId::new(gpu), self.policy)?;
            self.index.commit(&mut self.partial, slot)?;
            self.placements[gpu] = self.placements[gpu].wrapping_add(1);
            self.rows.free.push(c.row);
            self.cached[t].row = NONE;
            self.ready -= 1;
            if self.pick == Pick::Max {
                std::mem::swap(&mut self.scratch, &mut self.bucket[gpu]);
                for i in 0..self.scratch.len() {
                    let u = self.scratch[i] as usize;
                    let cu = self.cached[u];
                    if cu.row != NONE && cu.gpu as usize == gpu {
                        self.refresh(u)?;
                    }
                }
                self.scratch.clear();
                self.compact();
            }
            for s in g.succs(task) {
                let w = s.task.index();
                self.missing[w] -= 1;
                if self.missing[w] == 0 {
                    self.admit(w)?;
                }
            }
        }
        Ok(())
    }
}

/// Runs Min-Min or Max-Min on `problem` under `policy`.
pub(crate) fn run(
    problem: &Problem,
    policy: Policy,
    pick: Pick,
    ctx: &mut RunContext<'_>,
) -> Result<Schedule> {
    let g = problem.graph();
    let n = problem.n_tasks();
    let m = problem.n_gpus();
    let mut engine = Engine {
        partial: PartialSchedule::new(problem),
        index: GapIndex::new(problem),
        policy,
        pick,
        rows: Rows::new(m),
        placements: vec![0; m],
        cached: vec![
            Cached {
                row: NONE,
                gpu: 0,
                stamp: 0,
            };
            n
        ],
        missing: g.task_ids().map(|v| g.preds(v).len() as u32).collect(),
        heap: BinaryHeap::new(),
        ready: 0,
        bucket: if pick == Pick::Max {
            vec![Vec::new(); m]
        } else {
            Vec::new()
        },
        scratch: Vec::new(),
    };
    engine.run()?;
    finish(&engine.partial, ctx)
}
