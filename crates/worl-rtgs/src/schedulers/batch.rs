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
//! rows. Memory `O(R · m)`: one row (16 bytes per GPU, rounded up to a power of two) per
//! ready task, recycled when the task is placed.

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

/// Rows of EFTs with a min-tournament tree each, in a recycled pool.
struct Rows {
    m: usize,
    /// Leaves per row: the next power of two `>= m`.
    size: usize,
    /// `[rows, size]`: EFT per GPU (`+inf` for GPUs the task does not fit, and padding).
    value: Vec<f64>,
    /// `[rows, size]`: placements on the GPU when the value was computed.
    stamp: Vec<u32>,
    /// `[rows, size]`: internal nodes `1..size` holding the winning leaf (node 0 unused).
    tree: Vec<u32>,
    free: Vec<u32>,
}

impl Rows {
    fn new(m: usize) -> Self {
        Self {
            m,
            size: m.next_power_of_two(),
            value: Vec::new(),
            stamp: Vec::new(),
            tree: Vec::new(),
            free: Vec::new(),
        }
    }

    fn alloc(&mut self) -> u32 {
        if let Some(r) = self.free.pop() {
            return r;
        }
        let r = self.value.len() / self.size;
        self.value.resize((r + 1) * self.size, f64::INFINITY);
        self.stamp.resize((r + 1) * self.size, 0);
        self.tree.resize((r + 1) * self.size, 0);
        r as u32
    }

    /// The better of two leaves of row `base`: smaller value, then smaller GPU id.
    #[inline]
    fn better(&self, base: usize, a: u32, b: u32) -> u32 {
        match self.value[base + a as usize].total_cmp(&self.value[base + b as usize]) {
            Ordering::Less => a,
            Ordering::Greater => b,
            Ordering::Equal => a.min(b),
        }
    }

    /// The winning leaf of node `node` (leaves are nodes `size..2·size`).
    #[inline]
    fn winner(&self, base: usize, node: usize) -> u32 {
        if node >= self.size {
            (node - self.size) as u32
        } else {
            self.tree[base + node]
        }
    }

    /// Fills row `r` with the EFT of `task` on every GPU.
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
        let base = r as usize * self.size;
        for (k, &placed) in placements.iter().enumerate() {
            let gpu = GpuId::new(k);
            self.value[base + k] = if p.fits(task, gpu) {
                index.slot(partial, task, gpu, policy)?.finish()
            } else {
                f64::INFINITY
            };
            self.stamp[base + k] = placed;
        }
        self.value[base + self.m..base + self.size].fill(f64::INFINITY);
        for node in (1..self.size).rev() {
            let (a, b) = (self.winner(base, 2 * node), self.winner(base, 2 * node + 1));
            self.tree[base + node] = self.better(base, a, b);
        }
        Ok(())
    }

    /// The exact minimum (GPU, EFT) of row `r`, refreshing the stale entries that surface.
    fn best(
        &mut self,
        r: u32,
        partial: &PartialSchedule<'_>,
        index: &GapIndex,
        task: TaskId,
        policy: Policy,
        placements: &[u32],
    ) -> Result<(u32, f64)> {
        let base = r as usize * self.size;
        loop {
            let k = self.winner(base, 1) as usize;
            if self.value[base + k] == f64::INFINITY {
                return Err(fits_no_gpu(partial.problem(), task));
            }
            if self.stamp[base + k] == placements[k] {
                return Ok((k as u32, self.value[base + k]));
            }
            self.value[base + k] = index.slot(partial, task, GpuId::new(k), policy)?.finish();
            self.stamp[base + k] = placements[k];
            let mut node = (self.size + k) / 2;
            while node >= 1 {
                let (a, b) = (self.winner(base, 2 * node), self.winner(base, 2 * node + 1));
                self.tree[base + node] = self.better(base, a, b);
                node /= 2;
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
        self.refresh(t)
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
