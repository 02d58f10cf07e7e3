//! The depth-first branch-and-bound over append placements (see the [module
//! documentation](super) for the search space and why it holds an optimal schedule).

use super::bound::{BoundScratch, Instance, NONE, StateView, lower_bound};
use crate::scheduler::{Progress, RunContext};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow;
use worl_cluster::past_windows;
use worl_cluster::{GpuId, GpuSet, ScheduledTask};
use worl_dag::TaskId;

/// Relative tolerance of the pruning test: a subtree is cut when its bound reaches
/// `best · (1 − REL_TOL)`, so the search proves optimality up to this relative amount
/// (bounds and schedules sum the same times in different orders, a few ulps apart).
pub(super) const REL_TOL: f64 = 1e-12;

/// The wall-time budget is checked every `TIME_CHECK_WORK / (n · m²)` nodes (at least 1, at
/// most 1,024): about every 2¹⁶ bound steps, well under a millisecond.
const TIME_CHECK_WORK: u64 = 1 << 16;
/// Progress is reported every this many nodes.
const REPORT_EVERY: u64 = 1 << 16;

/// The most children the child lists of all depths may hold together (8 Mi children,
/// 192 MiB): a deep dive into a wide graph lists up to `n · r · m` children (`r` ready
/// tasks); past this the search stops as if out of budget.
const MAX_CHILDREN: usize = 1 << 23;

/// The most `f64`s the dominance memo keeps (32 MiB); past it, it only answers lookups.
const MEMO_CAPACITY: usize = 1 << 22;

/// The most time vectors kept per [`MemoKey`] (a longer list costs more to scan than the
/// subtrees it cuts).
const MEMO_PER_KEY: usize = 16;

/// A multiply-rotate hasher for memo keys (the FxHash scheme): the keys are a few integers
/// built by the search itself, so no collision resistance is needed.
#[derive(Clone, Copy, Debug, Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The part of an expanded state that fixes which branches its subtree has: the placed tasks
/// and the GPUs in use (bit sets), the latest placement (the commutation rule reads it), and
/// the GPU of each *frontier* task (placed, with an unplaced successor), in id order (every
/// GPU of its set, ascending, for a gang task: the placed set fixes which tasks are gangs
/// and how many GPUs each lists).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct MemoKey {
    placed: u64,
    used: u64,
    last: (u32, u32),
    frontier_gpus: Vec<u8>,
}

/// Expanded states, for dominance: a state is dominated by an expanded one with the same
/// [`MemoKey`] whose makespan, GPU free times and frontier finish times are all no later
/// (see the module documentation). Only for `n <= 64` tasks and `m <= 64` GPUs.
#[derive(Clone, Debug, Default)]
struct Memo {
    /// Per key, the time vectors `[makespan, avail_0.., frontier finishes..]` of the
    /// expanded states, none dominating another.
    states: HashMap<MemoKey, Vec<Box<[f64]>>, BuildHasherDefault<FxHasher>>,
    /// `f64`s stored.
    size: usize,
    /// Scratch time vector.
    times: Vec<f64>,
    /// Scratch key.
    key: Option<MemoKey>,
}

/// One branch: `task` appended to `gpu` at its earliest start (for a gang task, `gpu` is the
/// index of its GPU set, [`Instance::gpus_of`]).
#[derive(Copy, Clone, Debug)]
struct Child {
    task: u32,
    gpu: u32,
    start: f64,
    finish: f64,
}

/// What a placement changed, to undo it (a gang's GPUs' free times are on
/// [`Search::gang_undo`]).
#[derive(Copy, Clone, Debug)]
struct Undo {
    task: u32,
    gpu: u32,
    avail: f64,
    makespan: f64,
}

/// The children of the state at one depth and the next one to try.
#[derive(Clone, Debug, Default)]
struct Frame {
    children: Vec<Child>,
    next: usize,
}

/// How a search ended.
#[derive(Clone, Debug)]
pub(super) struct SearchEnd {
    /// Whether every branch was explored or pruned (the best is optimal).
    pub(super) complete: bool,
    /// Nodes (placements) evaluated.
    pub(super) nodes: u64,
    /// The best schedule found that beats the initial upper bound: makespan, entries and
    /// the GPU sets of its gang tasks.
    pub(super) best: Option<(f64, Vec<ScheduledTask>, Vec<GpuSet>)>,
}

/// The search state: a partial append schedule, its undo path and the child lists.
pub(super) struct Search<'i, 'p> {
    inst: &'i Instance<'p>,
    /// GPU of each task (a gang's lead), `NONE` if unplaced.
    gpu_of: Vec<u32>,
    /// Choice of each placed task: its GPU, or its set's index for a gang task.
    choice: Vec<u32>,
    start: Vec<f64>,
    finish: Vec<f64>,
    avail: Vec<f64>,
    makespan: f64,
    /// Unplaced predecessors per task.
    missing_preds: Vec<u32>,
    /// Tasks placed per GPU.
    used: Vec<u32>,
    frames: Vec<Frame>,
    path: Vec<Undo>,
    /// The previous free times of the GPUs of the gangs on the path, in placement order.
    gang_undo: Vec<f64>,
    scratch: BoundScratch,
    /// Best makespan known (initially the heuristics'), s.
    best: f64,
    best_tasks: Option<(Vec<ScheduledTask>, Vec<GpuSet>)>,
    nodes: u64,
    /// The dominance memo (`None` above 64 tasks or GPUs).
    memo: Option<Memo>,
    /// Children the child lists have room for, summed over depths.
    children_capacity: usize,
    /// Nodes between two checks of the wall-time budget.
    time_check_every: u64,
}

impl<'i, 'p> Search<'i, 'p> {
    /// An empty state for `inst` with upper bound `best` (the makespan of a known schedule).
    pub(super) fn new(inst: &'i Instance<'p>, best: f64) -> Self {
        let (n, m) = (inst.n, inst.m);
        Self {
            inst,
            gpu_of: vec![NONE; n],
            choice: vec![NONE; n],
            start: vec![0.0; n],
            finish: vec![0.0; n],
            avail: inst.ready.clone(),
            makespan: 0.0,
            missing_preds: inst.preds.iter().map(|p| p.len() as u32).collect(),
            used: vec![0; m],
            frames: vec![Frame::default(); n + 1],
            path: Vec::with_capacity(n),
            gang_undo: Vec::new(),
            scratch: BoundScratch::new(n, m),
            best,
            best_tasks: None,
            nodes: 0,
            memo: (n <= 64 && m <= 64).then(Memo::default),
            children_capacity: 0,
            time_check_every: (TIME_CHECK_WORK / (n * m * m).max(1) as u64).clamp(1, 1 << 10),
        }
    }

    /// Subtrees whose bound reaches this are cut.
    #[inline]
    fn cutoff(&self) -> f64 {
        self.best * (1.0 - REL_TOL)
    }

    /// The bound of the current state (see [`lower_bound`]), stopping early at `cutoff`.
    pub(super) fn bound(&mut self, cutoff: f64) -> f64 {
        let view = StateView {
            gpu_of: &self.gpu_of,
            choice: &self.choice,
            finish: &self.finish,
            avail: &self.avail,
            makespan: self.makespan,
        };
        lower_bound(self.inst, &view, &mut self.scratch, cutoff)
    }

    /// Explores the tree depth-first until it is exhausted, `max_nodes` placements were
    /// evaluated, the wall-time budget is spent, the observer asks to stop or the child
    /// lists outgrow [`MAX_CHILDREN`].
    pub(super) fn run(mut self, max_nodes: u64, ctx: &mut RunContext<'_>) -> SearchEnd {
        let n = self.inst.n;
        let complete = 'search: {
            if n == 0 {
                break 'search true;
            }
            self.expand(0, None);
            let mut depth = 0usize;
            loop {
                let frame = &mut self.frames[depth];
                if frame.next == frame.children.len() {
                    if depth == 0 {
                        break 'search true;
                    }
                    let undo = self.path.pop().expect("a placement per depth");
                    self.undo(undo);
                    depth -= 1;
                    continue;
                }
                let c = frame.children[frame.next];
                frame.next += 1;
                let cutoff = self.cutoff();
                // The incumbent may have improved since the children were listed.
                if c.finish + self.inst.child_after(c.task as usize, c.gpu) >= cutoff {
                    continue;
                }
                if self.nodes >= max_nodes {
                    break 'search false;
                }
                self.nodes += 1;
                if self.nodes.is_multiple_of(self.time_check_every) && ctx.out_of_time() {
                    break 'search false;
                }
                if self.nodes.is_multiple_of(REPORT_EVERY) && self.report(ctx, max_nodes).is_break()
                {
                    break 'search false;
                }
                self.apply(c);
                if depth + 1 == n {
                    if self.makespan < cutoff {
                        self.record();
                    }
                    let undo = self.path.pop().expect("just placed");
                    self.undo(undo);
                    continue;
                }
                if self.bound(cutoff) >= cutoff || self.dominated((c.task, c.gpu)) {
                    let undo = self.path.pop().expect("just placed");
                    self.undo(undo);
                    continue;
                }
                depth += 1;
                self.expand(depth, Some((c.task, c.gpu)));
                if self.children_capacity > MAX_CHILDREN {
                    break 'search false;
                }
            }
        };
        let _ = self.report(ctx, self.nodes);
        SearchEnd {
            complete,
            nodes: self.nodes,
            best: self.best_tasks.map(|(t, sets)| (self.best, t, sets)),
        }
    }

    /// Reports the nodes spent out of `total` (the node budget; the nodes spent at the end).
    fn report(&self, ctx: &mut RunContext<'_>, total: u64) -> ControlFlow<()> {
        ctx.report(Progress {
            step: self.nodes,
            total_steps: total,
            evaluations: self.nodes,
            best_makespan: self.best,
        })
    }

    /// Lists the children of the current state (`depth` tasks placed, `last` the latest
    /// placement) into frame `depth`, best first (smaller finish, then task, then GPU), with
    /// the symmetry and commutation rules of the module documentation applied and children
    /// that cannot beat the incumbent left out.
    fn expand(&mut self, depth: usize, last: Option<(u32, u32)>) {
        if self.inst.gangs {
            return self.expand_gangs(depth, last);
        }
        let inst = self.inst;
        let cutoff = self.cutoff();
        let mut children = std::mem::take(&mut self.frames[depth].children);
        children.clear();
        let capacity_before = children.capacity();
        for v in 0..inst.n {
            if self.gpu_of[v] != NONE || self.missing_preds[v] != 0 {
                continue;
            }
            // Commutation: after (u, k), a task v < u independent of u goes on k only
            // (on another GPU, (v, l) then (u, k) gives the same schedule and comes first).
            let only_gpu = match last {
                Some((u, k)) if (v as u32) < u && !inst.preds[v].iter().any(|&(p, _)| p == u) => k,
                _ => NONE,
            };
            for l in 0..inst.m {
                if only_gpu != NONE && l as u32 != only_gpu {
                    continue;
                }
                let e = inst.exec(v, l);
                if e == f64::INFINITY {
                    continue;
                }
                // Symmetry: an empty GPU whose previous twin is empty too is skipped.
                if self.used[l] == 0 {
                    let twin = inst.prev_twin[l];
                    if twin != NONE && self.used[twin as usize] == 0 {
                        continue;
                    }
                }
                let mut s = self.avail[l];
                for &(u, bytes) in &inst.preds[v] {
                    let u = u as usize;
                    s = s.max(self.finish[u] + inst.comm(bytes, self.gpu_of[u], l));
                }
                if inst.windows {
                    // As `PartialSchedule::place` under append: past the GPU's busy windows.
                    s = past_windows(&inst.busy[l], s, e);
                }
                let f = s + e;
                if f + inst.after(v, l) >= cutoff {
                    continue;
                }
                children.push(Child {
                    task: v as u32,
                    gpu: l as u32,
                    start: s,
                    finish: f,
                });
            }
        }
        self.store_children(depth, children, capacity_before);
    }

    /// [`expand`](Self::expand) for a problem with gang tasks: a gang task branches over its
    /// GPU sets ([`Instance::gpus_of`]), a task on one GPU over its GPUs, with the
    /// set-aware rules of the module documentation: commutation asks the set to meet the
    /// latest placement's, symmetry skips a set holding an empty GPU whose previous twin is
    /// empty and outside the set, and a start is the earliest common append start of the set
    /// (as [`PartialSchedule::slot_set`](worl_cluster::PartialSchedule::slot_set)).
    fn expand_gangs(&mut self, depth: usize, last: Option<(u32, u32)>) {
        let inst = self.inst;
        let cutoff = self.cutoff();
        let mut children = std::mem::take(&mut self.frames[depth].children);
        children.clear();
        let capacity_before = children.capacity();
        let last_gpus: &[u32] = match last {
            Some((u, c)) => inst.gpus_of(u as usize, c),
            None => &[],
        };
        for v in 0..inst.n {
            if self.gpu_of[v] != NONE || self.missing_preds[v] != 0 {
                continue;
            }
            // Commutation: after (u, K), a task v < u independent of u takes a set meeting K
            // (on a disjoint one, v's placement then u's gives the same schedule and comes
            // first).
            let restricted = match last {
                Some((u, _)) => (v as u32) < u && !inst.preds[v].iter().any(|&(p, _)| p == u),
                None => false,
            };
            let gang = inst.is_gang(v);
            let choices = if gang { inst.sets[v].len() } else { inst.m };
            for c in 0..choices {
                let gpus = inst.gpus_of(v, c as u32);
                let e = if gang {
                    inst.sets[v].exec[c]
                } else {
                    inst.exec(v, c)
                };
                if e == f64::INFINITY {
                    continue;
                }
                if restricted && !gpus.iter().any(|k| last_gpus.contains(k)) {
                    continue;
                }
                // Symmetry: a set holding an empty GPU whose previous twin is empty and
                // outside the set is skipped (the set with the twin instead comes first).
                if gpus.iter().any(|&l| {
                    let twin = inst.prev_twin[l as usize];
                    self.used[l as usize] == 0
                        && twin != NONE
                        && self.used[twin as usize] == 0
                        && !gpus.contains(&twin)
                }) {
                    continue;
                }
                let mut s = self.avail[gpus[0] as usize];
                for &l in &gpus[1..] {
                    s = s.max(self.avail[l as usize]);
                }
                for &(u, bytes) in &inst.preds[v] {
                    let u = u as usize;
                    for &l in gpus {
                        s = s.max(inst.arrival(
                            u,
                            self.choice[u],
                            self.finish[u],
                            bytes,
                            l as usize,
                        ));
                    }
                }
                if inst.windows {
                    // the least common start past the busy windows of every GPU of the set
                    loop {
                        let next = gpus
                            .iter()
                            .fold(s, |t, &k| t.max(past_windows(&inst.busy[k as usize], s, e)));
                        if next == s {
                            break;
                        }
                        s = next;
                    }
                }
                let f = s + e;
                if f + inst.child_after(v, c as u32) >= cutoff {
                    continue;
                }
                children.push(Child {
                    task: v as u32,
                    gpu: c as u32,
                    start: s,
                    finish: f,
                });
            }
        }
        self.store_children(depth, children, capacity_before);
    }

    /// Orders the `children` of the node at `depth` by finish, then task, then GPU (or set),
    /// stores them in its frame to be tried from the first, and counts the buffer's growth
    /// past `capacity_before` (entries) in `children_capacity`.
    fn store_children(&mut self, depth: usize, mut children: Vec<Child>, capacity_before: usize) {
        children.sort_unstable_by(|a, b| {
            a.finish
                .total_cmp(&b.finish)
                .then(a.task.cmp(&b.task))
                .then(a.gpu.cmp(&b.gpu))
        });
        self.children_capacity += children.capacity() - capacity_before;
        let frame = &mut self.frames[depth];
        frame.children = children;
        frame.next = 0;
    }

    fn apply(&mut self, c: Child) {
        if self.inst.is_gang(c.task as usize) {
            return self.apply_set(c);
        }
        let (v, k) = (c.task as usize, c.gpu as usize);
        self.path.push(Undo {
            task: c.task,
            gpu: c.gpu,
            avail: self.avail[k],
            makespan: self.makespan,
        });
        self.gpu_of[v] = c.gpu;
        self.start[v] = c.start;
        self.finish[v] = c.finish;
        self.avail[k] = c.finish;
        self.makespan = self.makespan.max(c.finish);
        self.used[k] += 1;
        if self.inst.gangs {
            self.choice[v] = c.gpu;
        }
        for &(w, _) in &self.inst.succs[v] {
            self.missing_preds[w as usize] -= 1;
        }
    }

    /// [`apply`](Self::apply) for a gang task: every GPU of its set becomes free at its
    /// finish.
    fn apply_set(&mut self, c: Child) {
        let inst = self.inst;
        let v = c.task as usize;
        self.path.push(Undo {
            task: c.task,
            gpu: c.gpu,
            avail: f64::NAN, // the set's free times are on `gang_undo`
            makespan: self.makespan,
        });
        let set = inst.gpus_of(v, c.gpu);
        for &k in set {
            let k = k as usize;
            self.gang_undo.push(self.avail[k]);
            self.avail[k] = c.finish;
            self.used[k] += 1;
        }
        self.gpu_of[v] = set[0];
        self.choice[v] = c.gpu;
        self.start[v] = c.start;
        self.finish[v] = c.finish;
        self.makespan = self.makespan.max(c.finish);
        for &(w, _) in &inst.succs[v] {
            self.missing_preds[w as usize] -= 1;
        }
    }

    fn undo(&mut self, u: Undo) {
        if self.inst.is_gang(u.task as usize) {
            return self.undo_set(u);
        }
        let (v, k) = (u.task as usize, u.gpu as usize);
        self.gpu_of[v] = NONE;
        self.avail[k] = u.avail;
        self.makespan = u.makespan;
        self.used[k] -= 1;
        for &(w, _) in &self.inst.succs[v] {
            self.missing_preds[w as usize] += 1;
        }
    }

    /// [`undo`](Self::undo) for a gang task.
    fn undo_set(&mut self, u: Undo) {
        let inst = self.inst;
        let v = u.task as usize;
        for &k in inst.gpus_of(v, u.gpu).iter().rev() {
            let k = k as usize;
            self.avail[k] = self
                .gang_undo
                .pop()
                .expect("a free time per GPU of the set");
            self.used[k] -= 1;
        }
        self.gpu_of[v] = NONE;
        self.choice[v] = NONE;
        self.makespan = u.makespan;
        for &(w, _) in &inst.succs[v] {
            self.missing_preds[w as usize] += 1;
        }
    }

    /// Whether an expanded state dominates the current one (then its subtree cannot beat
    /// what that state's subtree found); if not, records the current state as expanded (the
    /// caller expands it next). `last` is the latest placement.
    fn dominated(&mut self, last: (u32, u32)) -> bool {
        let Some(memo) = self.memo.as_mut() else {
            return false;
        };
        let inst = self.inst;
        let mut key = memo.key.take().unwrap_or(MemoKey {
            placed: 0,
            used: 0,
            last,
            frontier_gpus: Vec::new(),
        });
        key.placed = 0;
        key.used = 0;
        key.last = last;
        key.frontier_gpus.clear();
        memo.times.clear();
        memo.times.push(self.makespan);
        memo.times.extend_from_slice(&self.avail);
        for (k, &used) in self.used.iter().enumerate() {
            if used > 0 {
                key.used |= 1 << k;
            }
        }
        for v in 0..inst.n {
            let g = self.gpu_of[v];
            if g == NONE {
                continue;
            }
            key.placed |= 1 << v;
            if inst.succs[v]
                .iter()
                .any(|&(w, _)| self.gpu_of[w as usize] == NONE)
            {
                if inst.is_gang(v) {
                    let set = inst.gpus_of(v, self.choice[v]);
                    key.frontier_gpus.extend(set.iter().map(|&k| k as u8));
                } else {
                    key.frontier_gpus.push(g as u8);
                }
                memo.times.push(self.finish[v]);
            }
        }
        let times = &memo.times;
        let no_later = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x <= y);
        let full = memo.size >= MEMO_CAPACITY;
        match memo.states.get_mut(&key) {
            Some(list) => {
                if list.iter().any(|e| no_later(e, times)) {
                    memo.key = Some(key);
                    return true;
                }
                if !full && list.len() < MEMO_PER_KEY {
                    let before = list.len();
                    list.retain(|e| !no_later(times, e));
                    memo.size -= (before - list.len()) * times.len();
                    list.push(times.clone().into_boxed_slice());
                    memo.size += times.len();
                }
            }
            None if !full => {
                memo.size += times.len();
                memo.states
                    .insert(key.clone(), vec![times.clone().into_boxed_slice()]);
            }
            None => {}
        }
        memo.key = Some(key);
        false
    }

    /// Keeps the complete current state as the incumbent.
    fn record(&mut self) {
        self.best = self.makespan;
        let inst = self.inst;
        let tasks = (0..inst.n)
            .map(|v| ScheduledTask {
                gpu: GpuId::new(self.gpu_of[v] as usize),
                start: self.start[v],
                finish: self.finish[v],
            })
            .collect();
        let sets = (0..inst.n)
            .filter(|&v| inst.is_gang(v))
            .map(|v| GpuSet {
                task: TaskId::new(v),
                gpus: inst
                    .gpus_of(v, self.choice[v])
                    .iter()
                    .map(|&k| GpuId::new(k as usize))
                    .collect(),
            })
            .collect();
        self.best_tasks = Some((tasks, sets));
    }
}
