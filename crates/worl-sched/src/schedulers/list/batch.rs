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
//! * Interchangeable ready tasks (same memory need, same execution time on every GPU, same
//!   predecessors with the same edge sizes: the siblings of a fan-out) have the same EFT row
//!   at every step and are taken in task-id order, so they form one group with one row and
//!   one heap entry, standing for its smallest member; a placement refreshes a group once,
//!   not each sibling.
//!
//! Worst case `O(n · G · (d̄ + g + log m))` for Max-Min with `G` ready groups (every group
//! prefers the same GPU, e.g. identical idle GPUs), far less for Min-Min; plus `n · m` slot
//! evaluations to build the rows and the signatures. Memory `O(G · m)`: one row (36 bytes per
//! GPU, the GPU count rounded up to a power of two) per ready group, recycled when its last
//! member is placed; the heap is compacted when stale entries outnumber live ones.

use crate::error::Result;
use crate::scheduler::RunContext;
use crate::schedulers::list::{GapIndex, finish, fits_no_gpu};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
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
/// Min-Min and `MCT` for Max-Min; `task` is the group's representative (its smallest ready
/// member) when pushed.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Entry {
    key: f64,
    task: u32,
    group: u32,
    /// The group's stamp when pushed (entries of a group refreshed since are dropped).
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

/// Ready tasks that are interchangeable: same memory need, same execution time on every
/// GPU, same predecessors with the same edge sizes. Their EFT on any GPU is the same at
/// every step, so they share one row; the batch rule takes them in task-id order (its
/// tie-break), so the group stands for its smallest member. The siblings of a fan-out
/// (one task feeding many equal ones: data-parallel shards, a star) are one group: each
/// placement refreshes the group once instead of each sibling.
#[derive(Clone, Debug)]
struct Group {
    row: u32,
    /// The MCT GPU at the last refresh.
    gpu: u32,
    stamp: u32,
    /// Ready members, smallest first.
    members: BinaryHeap<Reverse<u32>>,
    /// The key in [`Engine::by_signature`].
    signature: Box<[u64]>,
}

struct Engine<'p> {
    partial: PartialSchedule<'p>,
    index: GapIndex,
    policy: Policy,
    pick: Pick,
    rows: Rows,
    /// Placements per GPU so far.
    placements: Vec<u32>,
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    /// Live groups by signature (see [`Engine::signature`]).
    by_signature: HashMap<Box<[u64]>, u32>,
    missing: Vec<u32>,
    heap: BinaryHeap<Entry>,
    /// Number of live groups.
    live: usize,
    /// Max-Min: live groups by their MCT GPU.
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

    /// What makes ready tasks interchangeable (see [`Group`]): the bits of the memory need,
    /// of the execution time on every GPU, and the (predecessor, bytes) pairs.
    fn signature(&self, task: TaskId) -> Box<[u64]> {
        let p = self.partial.problem();
        let preds = p.graph().preds(task);
        let mut sig = Vec::with_capacity(1 + p.n_gpus() + 2 * preds.len());
        sig.push(p.mem_need(task).to_bits());
        sig.extend(
            p.cluster()
                .gpu_ids()
                .map(|k| p.exec_time(task, k).to_bits()),
        );
        for e in preds {
            sig.push(e.task.index() as u64);
            sig.push(e.bytes.to_bits());
        }
        sig.into_boxed_slice()
    }

    /// Refreshes group `g`'s MCT and pushes it (with a new stamp).
    fn refresh(&mut self, g: u32) -> Result<()> {
        let group = &self.groups[g as usize];
        let Some(&Reverse(task)) = group.members.peek() else {
            return Ok(());
        };
        let (gpu, mct) = self.rows.best(
            group.row,
            &self.partial,
            &self.index,
            TaskId::new(task as usize),
            self.policy,
            &self.placements,
        )?;
        let group = &mut self.groups[g as usize];
        group.gpu = gpu;
        group.stamp = group.stamp.wrapping_add(1);
        let stamp = group.stamp;
        self.heap.push(Entry {
            key: self.key(mct),
            task,
            group: g,
            stamp,
        });
        if self.pick == Pick::Max {
            self.bucket[gpu as usize].push(g);
        }
        Ok(())
    }

    /// Makes task `t` ready: joins the live group of its signature, or starts one (builds
    /// its row and pushes it).
    fn admit(&mut self, t: usize) -> Result<()> {
        let signature = self.signature(TaskId::new(t));
        if let Some(&g) = self.by_signature.get(&signature) {
            let group = &mut self.groups[g as usize];
            let smallest = group
                .members
                .peek()
                .is_none_or(|&Reverse(m)| t < m as usize);
            group.members.push(Reverse(t as u32));
            // a new smallest member changes the group's tie-break: push it again
            return if smallest { self.refresh(g) } else { Ok(()) };
        }
        let row = self.rows.alloc();
        self.rows.build(
            row,
            &self.partial,
            &self.index,
            TaskId::new(t),
            self.policy,
            &self.placements,
        )?;
        let group = Group {
            row,
            gpu: 0,
            stamp: 0,
            members: BinaryHeap::from([Reverse(t as u32)]),
            signature: signature.clone(),
        };
        let g = match self.free_groups.pop() {
            Some(g) => {
                self.groups[g as usize] = group;
                g
            }
            None => {
                self.groups.push(group);
                (self.groups.len() - 1) as u32
            }
        };
        self.by_signature.insert(signature, g);
        self.live += 1;
        self.refresh(g)
    }

    /// Whether `e` is the current entry of a live group.
    fn is_current(&self, e: &Entry) -> bool {
        let group = &self.groups[e.group as usize];
        group.stamp == e.stamp && !group.members.is_empty()
    }

    /// Drops superseded heap entries once they outnumber the live ones (Max-Min pushes a new
    /// entry per refresh and leaves the old one behind). Amortised `O(1)` per push.
    fn compact(&mut self) {
        if self.heap.len() <= 2 * self.live + 64 {
            return;
        }
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.retain(|e| self.is_current(e));
        self.heap = BinaryHeap::from(entries);
    }

    /// Places the smallest member of group `g` on `gpu`; retires the group when it was the
    /// last member.
    fn place(&mut self, g: u32, gpu: usize) -> Result<TaskId> {
        let Some(Reverse(t)) = self.groups[g as usize].members.pop() else {
            unreachable!("a current entry's group has a member");
        };
        let task = TaskId::new(t as usize);
        let slot = self
            .index
            .slot(&self.partial, task, GpuId::new(gpu), self.policy)?;
        self.index.commit(&mut self.partial, slot)?;
        self.placements[gpu] = self.placements[gpu].wrapping_add(1);
        let group = &mut self.groups[g as usize];
        if group.members.is_empty() {
            group.stamp = group.stamp.wrapping_add(1);
            self.rows.free.push(group.row);
            let signature = std::mem::take(&mut group.signature);
            self.by_signature.remove(&signature);
            self.free_groups.push(g);
            self.live -= 1;
        }
        Ok(task)
    }

    fn run(&mut self) -> Result<()> {
        let p = self.partial.problem();
        let graph = p.graph();
        for v in graph.entry_tasks() {
            self.admit(v.index())?;
        }
        while let Some(e) = self.heap.pop() {
            if !self.is_current(&e) {
                continue; // superseded entry, or group retired
            }
            let g = e.group;
            let gpu = match self.pick {
                // Exact: the group's MCT GPU has not changed since it was refreshed.
                Pick::Max => self.groups[g as usize].gpu as usize,
                // A lower bound: refresh; place if exact, else back into the heap.
                Pick::Min => {
                    let group = &self.groups[g as usize];
                    let (gpu, mct) = self.rows.best(
                        group.row,
                        &self.partial,
                        &self.index,
                        TaskId::new(e.task as usize),
                        self.policy,
                        &self.placements,
                    )?;
                    if self.key(mct) != e.key {
                        self.refresh(g)?;
                        continue;
                    }
                    gpu as usize
                }
            };
            let task = self.place(g, gpu)?;
            match self.pick {
                Pick::Max => {
                    // GPU `gpu` got worse: refresh exactly the groups whose MCT GPU it was
                    // (this one included, if members remain).
                    std::mem::swap(&mut self.scratch, &mut self.bucket[gpu]);
                    for i in 0..self.scratch.len() {
                        let h = self.scratch[i];
                        let group = &self.groups[h as usize];
                        if !group.members.is_empty() && group.gpu as usize == gpu {
                            self.refresh(h)?;
                        }
                    }
                    self.scratch.clear();
                    self.compact();
                }
                // The group's next member has another tie-break: push it again.
                Pick::Min => self.refresh(g)?,
            }
            for s in graph.succs(task) {
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
    if problem.has_gangs() {
        return run_with_gangs(problem, policy, pick, ctx);
    }
    let g = problem.graph();
    let m = problem.n_gpus();
    let mut engine = Engine {
        partial: PartialSchedule::new(problem),
        index: GapIndex::new(problem),
        policy,
        pick,
        rows: Rows::new(m),
        placements: vec![0; m],
        groups: Vec::new(),
        free_groups: Vec::new(),
        by_signature: HashMap::new(),
        missing: g.task_ids().map(|v| g.preds(v).len() as u32).collect(),
        heap: BinaryHeap::new(),
        live: 0,
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

/// Min-Min or Max-Min on a problem with gang tasks, in the textbook form: at every step the
/// MCT of every ready task over the GPUs that may lead it ([`GapIndex::best_slot`]: a gang
/// task's finish on a lead is the common finish of the set chosen around it), then the task
/// of minimum (Min-Min) or maximum (Max-Min) MCT, ties by smaller task id, on its MCT lead
/// (ties: smaller GPU id). The engine above relies on a placement changing one timeline
/// only, which a gang breaks; this form recomputes every ready task's MCT per step,
/// `O(n · R · m)` slot evaluations (`R` ready tasks).
fn run_with_gangs(
    problem: &Problem,
    policy: Policy,
    pick: Pick,
    ctx: &mut RunContext<'_>,
) -> Result<Schedule> {
    let g = problem.graph();
    let mut partial = PartialSchedule::new(problem);
    let mut index = GapIndex::new(problem);
    let mut missing: Vec<u32> = g.task_ids().map(|v| g.preds(v).len() as u32).collect();
    // ready tasks, in increasing id (the tie-break)
    let mut ready: Vec<TaskId> = g.entry_tasks().collect();
    ready.sort_unstable();
    while !ready.is_empty() {
        let mut best: Option<(usize, worl_cluster::Slot)> = None;
        for (i, &task) in ready.iter().enumerate() {
            let slot = index.best_slot(&partial, task, policy, |_| 0.0)?;
            let better = match &best {
                None => true,
                Some((_, b)) => match pick {
                    Pick::Min => slot.finish() < b.finish(),
                    Pick::Max => slot.finish() > b.finish(),
                },
            };
            if better {
                best = Some((i, slot));
            }
        }
        let Some((i, slot)) = best else {
            unreachable!("the ready list is not empty");
        };
        let task = ready.remove(i);
        index.commit(&mut partial, slot)?;
        for s in g.succs(task) {
            let w = s.task.index();
            missing[w] -= 1;
            if missing[w] == 0 {
                let at = ready.partition_point(|&r| r < s.task);
                ready.insert(at, s.task);
            }
        }
    }
    finish(&partial, ctx)
}
