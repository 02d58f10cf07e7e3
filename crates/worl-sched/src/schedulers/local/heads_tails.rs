//! Incremental evaluation of a plan under the append policy: every task's **head** (its
//! start) and **tail** (the longest path from its start to the end of the schedule) over
//! data edges and same-GPU edges, kept up to date as moves are tried. The idea is
//! Taillard's for the job shop (E. Taillard, "Parallel taboo search techniques for the job
//! shop scheduling problem", *ORSA Journal on Computing* 6(2), 1994; heads and tails after
//! Nowicki and Smutnicki, "A fast taboo search algorithm for the job shop problem",
//! *Management Science* 42(6), 1996), made exact for plans:
//!
//! * Under the append policy a plan's schedule is the longest-path schedule of its
//!   *disjunctive graph*: data edges `u → v` of length `w(u) + c(u, v)`, an edge from each
//!   task to the next task on its GPU in placement order of length `w(u)`, and the GPU's
//!   ready time as a release. The makespan is `max_v head(v) + tail(v)`.
//! * Moving one task `v` to another GPU changes no head before `v` in the order and no tail
//!   after it, so the longest path **through `v`** after the move,
//!   `head'(v) + tail'(v)`, costs `O(deg v + log m_k)` ([`HeadsTails::bound_through`]); every
//!   other path of the new graph is no longer than the current makespan. A move whose path
//!   through `v` is longer is therefore rejected without evaluating the plan, and its
//!   makespan is exactly that path's length.
//! * Any other move (and any move that passes the bound) is evaluated by propagating the
//!   changed heads forward from the touched tasks, in order, only through tasks whose inputs
//!   changed, and stopping as soon as a finish passes the current makespan (the move is then
//!   worse; the heads are restored). Heads are computed with the evaluator's arithmetic, so
//!   every finish and makespan is bit for bit the [`Evaluator`](worl_cluster::Evaluator)'s.
//! * After a kept move the tails are propagated backward the same way.
//!
//! Plans with gang tasks or busy windows, and the insertion policy, are evaluated by the
//! evaluator in full ([`super::LocalState`] decides).

use worl_cluster::{GpuId, Plan, Problem};
use worl_dag::TaskId;

const NONE: u32 = u32::MAX;

/// A tentative change of the plan, for [`HeadsTails::try_change`]: the tasks whose GPU or
/// place in the order changed, each with its GPU before and after the change (the same
/// GPU for a change of place).
pub(crate) type Touched = [(TaskId, GpuId, GpuId)];

/// Finishes (head plus execution time) and tails of every task of a plan, its GPU sequences,
/// and the makespan (module docs). `O(n + m)` memory.
#[derive(Clone, Debug)]
pub(crate) struct HeadsTails {
    finish: Vec<f64>,
    tail: Vec<f64>,
    /// Previous and next task on the same GPU in placement order (`NONE`: none).
    gpu_prev: Vec<u32>,
    gpu_next: Vec<u32>,
    /// Tasks of each GPU in placement order.
    seq: Vec<Vec<u32>>,
    /// Largest finish, ties to the smaller task id.
    max: MaxTree,
    /// Scratch of one propagation.
    queue: PositionQueue,
    log: Vec<(u32, f64)>,
    /// Finish and tail of each task of a window ([`window_bound`](Self::window_bound)).
    window: Vec<(f64, f64)>,
    /// The GPU neighbours (previous, next) the touched tasks had before the change.
    dirty: Vec<(u32, u32)>,
}

impl HeadsTails {
    /// The heads and tails of `plan`, `O(n + |E|)`.
    pub(crate) fn new(problem: &Problem, plan: &Plan) -> Self {
        let n = problem.n_tasks();
        let mut h = HeadsTails {
            finish: vec![0.0; n],
            tail: vec![0.0; n],
            gpu_prev: vec![NONE; n],
            gpu_next: vec![NONE; n],
            seq: vec![Vec::new(); problem.n_gpus()],
            max: MaxTree::new(n),
            queue: PositionQueue::new(n),
            log: Vec::new(),
            window: Vec::new(),
            dirty: Vec::new(),
        };
        h.rebuild(problem, plan);
        h
    }

    /// Recomputes everything for `plan`, `O(n + |E|)`.
    pub(crate) fn rebuild(&mut self, problem: &Problem, plan: &Plan) {
        self.seq.iter_mut().for_each(Vec::clear);
        for &t in &plan.order {
            let g = plan.gpu[t.index()].index();
            let prev = self.seq[g].last().copied().unwrap_or(NONE);
            self.gpu_prev[t.index()] = prev;
            self.gpu_next[t.index()] = NONE;
            if prev != NONE {
                self.gpu_next[prev as usize] = t.index() as u32;
            }
            self.seq[g].push(t.index() as u32);
        }
        for &t in &plan.order {
            self.finish[t.index()] = self.finish_of(problem, plan, t);
        }
        for &t in plan.order.iter().rev() {
            self.tail[t.index()] = self.tail_of(problem, plan, t);
        }
        self.max.build(&self.finish);
    }

    /// Copies `other`'s state (same problem).
    pub(crate) fn copy_from(&mut self, other: &HeadsTails) {
        self.finish.copy_from_slice(&other.finish);
        self.tail.copy_from_slice(&other.tail);
        self.gpu_prev.copy_from_slice(&other.gpu_prev);
        self.gpu_next.copy_from_slice(&other.gpu_next);
        for (a, b) in self.seq.iter_mut().zip(&other.seq) {
            a.clone_from(b);
        }
        self.max.copy_from(&other.max);
    }

    /// The makespan, s.
    pub(crate) fn makespan(&self) -> f64 {
        self.max.value(&self.finish)
    }

    /// The task that finishes last (ties: the smallest id).
    pub(crate) fn last(&self) -> TaskId {
        TaskId::new(self.max.arg())
    }

    /// The finish of `t`, s.
    pub(crate) fn finish(&self, t: TaskId) -> f64 {
        self.finish[t.index()]
    }

    /// Tasks placed on GPU `g`.
    pub(crate) fn tasks_on(&self, g: GpuId) -> usize {
        self.seq[g.index()].len()
    }

    /// The task before `t` on its GPU.
    pub(crate) fn prev_on_gpu(&self, t: TaskId) -> Option<TaskId> {
        let p = self.gpu_prev[t.index()];
        (p != NONE).then(|| TaskId::new(p as usize))
    }

    /// The finish of `t` (its head plus its execution time) from its predecessors' finishes
    /// and its GPU's previous task, with the arithmetic of the evaluator's append policy (no
    /// busy windows). Only finishes flow to other tasks, so no start is kept.
    #[inline]
    fn finish_of(&self, p: &Problem, plan: &Plan, t: TaskId) -> f64 {
        let g = plan.gpu[t.index()];
        start_on(p, plan, t, g, self.gpu_prev[t.index()], |u| self.finish[u]) + p.exec_time(t, g)
    }

    /// `tail(t)`: its execution time plus the longest of its successors' `c + tail` and its
    /// GPU's next task's tail.
    #[inline]
    fn tail_of(&self, p: &Problem, plan: &Plan, t: TaskId) -> f64 {
        let g = plan.gpu[t.index()];
        let after = after_on(p, plan, t, g, self.gpu_next[t.index()], |u| {
            Some(self.tail[u])
        });
        p.exec_time(t, g) + after
    }

    /// The length of the longest path through `v` if `v` alone moved to GPU `g` (the
    /// plan's other GPUs, order and `v`'s place unchanged; `plan.gpu[v]` may already be
    /// `g`), counting only the paths after `v` that leave through tasks placed after
    /// position `exact_after` (`pos[v]` for a lone move: every path). A lower bound of the
    /// new makespan; for a lone move, the new makespan when it exceeds the current one.
    pub(crate) fn bound_through(
        &self,
        p: &Problem,
        plan: &Plan,
        pos: &[usize],
        v: TaskId,
        g: GpuId,
        exact_after: usize,
    ) -> f64 {
        let pv = pos[v.index()];
        let seq = &self.seq[g.index()];
        let k = seq.partition_point(|&t| pos[t as usize] < pv);
        let prev = if k > 0 { seq[k - 1] } else { NONE };
        let start = start_on(p, plan, v, g, prev, |u| self.finish[u]);
        // the first task after `v` on `g` (skipping `v` itself)
        let next = seq[k..]
            .iter()
            .copied()
            .find(|&t| t as usize != v.index())
            .unwrap_or(NONE);
        let after = after_on(p, plan, v, g, next, |u| {
            (pos[u] > exact_after).then(|| self.tail[u])
        });
        start + p.exec_time(v, g) + after
    }

    /// Evaluates a change already made to `plan` and `pos` (`touched`: the tasks whose GPU
    /// or place changed, with their GPUs before and after; every task whose place changed
    /// and every touched task lies in the window of positions `lo..=hi`): relinks the GPU
    /// sequences, rejects the change when the longest path through the window is longer
    /// than `before` by more than `margin` (relative; [`window_bound`](Self::window_bound)),
    /// else propagates the heads. Returns the new makespan and keeps the change (tails
    /// updated) when it is at most `before`; otherwise restores every head and returns
    /// `None`, after which the caller restores `plan` and `pos` and calls
    /// [`restore`](Self::restore).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn try_change(
        &mut self,
        p: &Problem,
        plan: &Plan,
        pos: &[usize],
        touched: &Touched,
        (lo, hi): (usize, usize),
        before: f64,
        margin: f64,
    ) -> Option<f64> {
        self.dirty.clear();
        for &(t, from, to) in touched {
            let i = t.index();
            self.dirty.push((self.gpu_prev[i], self.gpu_next[i]));
            self.relink(t, from, to, pos);
        }
        if self.window_bound(p, plan, pos, lo, hi) > before * (1.0 + margin) {
            return None;
        }
        // forward: heads of the touched tasks, of the tasks now or formerly after them on a
        // GPU, and of whatever their finishes reach
        self.log.clear();
        for (k, &(t, _, _)) in touched.iter().enumerate() {
            self.push_head(t.index() as u32, pos);
            self.push_head(self.gpu_next[t.index()], pos);
            self.push_head(self.dirty[k].1, pos);
        }
        while let Some(at) = self.queue.pop_min() {
            let t = plan.order[at];
            let i = t.index();
            let f = self.finish_of(p, plan, t);
            // a moved task's successors see another GPU even when its finish is the same
            let moved = touched.iter().any(|&(x, _, _)| x == t);
            if f.to_bits() == self.finish[i].to_bits() && !moved {
                continue;
            }
            self.log.push((i as u32, self.finish[i]));
            self.finish[i] = f;
            if f > before {
                self.queue.clear();
                for &(i, f) in self.log.iter().rev() {
                    self.finish[i as usize] = f;
                }
                return None;
            }
            for nb in p.graph().succs(t) {
                self.push_head(nb.task.index() as u32, pos);
            }
            let next = self.gpu_next[i];
            self.push_head(next, pos);
        }
        for k in 0..self.log.len() {
            let i = self.log[k].0 as usize;
            self.max.update(i, &self.finish);
        }
        // backward: tails of the touched tasks, their predecessors, the tasks now or
        // formerly before them on a GPU, and whatever those reach
        for (k, &(t, _, _)) in touched.iter().enumerate() {
            self.push_tail(t.index() as u32, pos);
            for nb in p.graph().preds(t) {
                self.push_tail(nb.task.index() as u32, pos);
            }
            self.push_tail(self.gpu_prev[t.index()], pos);
            self.push_tail(self.dirty[k].0, pos);
        }
        while let Some(at) = self.queue.pop_max() {
            let t = plan.order[at];
            let i = t.index();
            let q = self.tail_of(p, plan, t);
            if q.to_bits() == self.tail[i].to_bits() {
                continue;
            }
            self.tail[i] = q;
            for nb in p.graph().preds(t) {
                self.push_tail(nb.task.index() as u32, pos);
            }
            let prev = self.gpu_prev[i];
            self.push_tail(prev, pos);
        }
        Some(self.makespan())
    }

    /// The longest path through a task at positions `lo..=hi` of the changed plan (GPU
    /// sequences relinked), `O((hi − lo + 1)·degree)`. When every change of the plan lies in
    /// that window, every path of the new plan that avoids the window existed before (so
    /// is no longer than the makespan before), and the new makespan is this bound whenever
    /// the bound is the larger; heads before `lo` and tails after `hi` are unchanged.
    pub(crate) fn window_bound(
        &mut self,
        p: &Problem,
        plan: &Plan,
        pos: &[usize],
        lo: usize,
        hi: usize,
    ) -> f64 {
        let mut window = std::mem::take(&mut self.window);
        window.clear();
        for at in lo..=hi {
            let t = plan.order[at];
            let g = plan.gpu[t.index()];
            let finish = |u: usize| {
                if pos[u] >= lo {
                    window[pos[u] - lo].0
                } else {
                    self.finish[u]
                }
            };
            let start = start_on(p, plan, t, g, self.gpu_prev[t.index()], finish);
            window.push((start + p.exec_time(t, g), 0.0));
        }
        let mut longest = 0.0f64;
        for at in (lo..=hi).rev() {
            let t = plan.order[at];
            let g = plan.gpu[t.index()];
            let tail = |u: usize| {
                Some(if pos[u] <= hi {
                    window[pos[u] - lo].1
                } else {
                    self.tail[u]
                })
            };
            let after = after_on(p, plan, t, g, self.gpu_next[t.index()], tail);
            let exec = p.exec_time(t, g);
            let (finish, _) = window[at - lo];
            window[at - lo].1 = exec + after;
            longest = longest.max(finish + after);
        }
        self.window = window;
        longest
    }

    /// Undoes the relinking of a rejected [`try_change`](Self::try_change) once `plan` and
    /// `pos` are restored (`touched` as given to it).
    pub(crate) fn restore(&mut self, pos: &[usize], touched: &Touched) {
        for &(t, from, to) in touched.iter().rev() {
            self.relink(t, to, from, pos);
        }
    }

    #[inline]
    fn push_head(&mut self, t: u32, pos: &[usize]) {
        if t != NONE {
            self.queue.push(pos[t as usize]);
        }
    }

    #[inline]
    fn push_tail(&mut self, t: u32, pos: &[usize]) {
        if t != NONE {
            self.queue.push(pos[t as usize]);
        }
    }

    /// Moves `t` from GPU `from`'s sequence to its place by `pos` in GPU `to`'s (`from ==
    /// to`: re-places it after an order change), fixing the neighbours' links.
    fn relink(&mut self, t: TaskId, from: GpuId, to: GpuId, pos: &[usize]) {
        let i = t.index() as u32;
        let (p, n) = (self.gpu_prev[t.index()], self.gpu_next[t.index()]);
        if p != NONE {
            self.gpu_next[p as usize] = n;
        }
        if n != NONE {
            self.gpu_prev[n as usize] = p;
        }
        let seq = &mut self.seq[from.index()];
        let k = match seq.binary_search_by_key(&pos[t.index()], |&x| pos[x as usize]) {
            Ok(k) if seq[k] == i => k,
            _ => seq
                .iter()
                .position(|&x| x == i)
                .expect("a task is on its GPU"),
        };
        seq.remove(k);
        let seq = &mut self.seq[to.index()];
        let k = seq.partition_point(|&x| pos[x as usize] < pos[t.index()]);
        seq.insert(k, i);
        let p = if k > 0 { seq[k - 1] } else { NONE };
        let n = seq.get(k + 1).copied().unwrap_or(NONE);
        self.gpu_prev[t.index()] = p;
        self.gpu_next[t.index()] = n;
        if p != NONE {
            self.gpu_next[p as usize] = i;
        }
        if n != NONE {
            self.gpu_prev[n as usize] = i;
        }
    }
}

/// The start of `t` on GPU `g` from its predecessors' finishes (`finish(u)`), `g`'s ready
/// time and the finish of `prev`, the task before it on `g` (`NONE`: none), with the
/// arithmetic of the evaluator's append policy.
#[inline]
fn start_on(
    p: &Problem,
    plan: &Plan,
    t: TaskId,
    g: GpuId,
    prev: u32,
    finish: impl Fn(usize) -> f64,
) -> f64 {
    let mut drt = 0.0f64;
    for nb in p.graph().preds(t) {
        let u = nb.task.index();
        let a = finish(u) + p.comm_time(nb.bytes, plan.gpu[u], g);
        if a > drt {
            drt = a;
        }
    }
    let ready_at = drt.max(p.ready_time(g));
    if prev == NONE {
        ready_at
    } else {
        ready_at.max(finish(prev as usize))
    }
}

/// The longest of `t`'s successors' `c(t, s) + tail(s)` (on GPU `g`) and the tail of
/// `next`, the task after it on `g` (`NONE`: none); a task whose `tail` is `None` is not
/// counted.
#[inline]
fn after_on(
    p: &Problem,
    plan: &Plan,
    t: TaskId,
    g: GpuId,
    next: u32,
    tail: impl Fn(usize) -> Option<f64>,
) -> f64 {
    let mut after = 0.0f64;
    for nb in p.graph().succs(t) {
        let s = nb.task.index();
        if let Some(q) = tail(s) {
            let a = p.comm_time(nb.bytes, g, plan.gpu[s]) + q;
            if a > after {
                after = a;
            }
        }
    }
    if next != NONE
        && let Some(q) = tail(next as usize)
    {
        after = after.max(q);
    }
    after
}

/// A set of order positions to visit, taken smallest first (heads) or largest first
/// (tails): one bit per position.
#[derive(Clone, Debug)]
struct PositionQueue {
    bits: Vec<u64>,
    /// Words below `lo` and above `hi` are empty.
    lo: usize,
    hi: usize,
}

impl PositionQueue {
    fn new(n: usize) -> Self {
        PositionQueue {
            bits: vec![0; n.div_ceil(64).max(1)],
            lo: usize::MAX,
            hi: 0,
        }
    }

    #[inline]
    fn push(&mut self, at: usize) {
        let w = at / 64;
        self.bits[w] |= 1 << (at % 64);
        self.lo = self.lo.min(w);
        self.hi = self.hi.max(w);
    }

    fn pop_min(&mut self) -> Option<usize> {
        while self.lo <= self.hi {
            let b = self.bits[self.lo];
            if b != 0 {
                self.bits[self.lo] = b & (b - 1);
                return Some(self.lo * 64 + b.trailing_zeros() as usize);
            }
            self.lo += 1;
        }
        self.lo = usize::MAX;
        self.hi = 0;
        None
    }

    fn pop_max(&mut self) -> Option<usize> {
        while self.lo <= self.hi {
            let b = self.bits[self.hi];
            if b != 0 {
                let top = 63 - b.leading_zeros() as usize;
                self.bits[self.hi] = b & !(1 << top);
                return Some(self.hi * 64 + top);
            }
            if self.hi == self.lo {
                break;
            }
            self.hi -= 1;
        }
        self.lo = usize::MAX;
        self.hi = 0;
        None
    }

    fn clear(&mut self) {
        if self.lo <= self.hi {
            self.bits[self.lo..=self.hi].fill(0);
        }
        self.lo = usize::MAX;
        self.hi = 0;
    }
}

/// A segment tree over the finishes giving the largest (ties: the smallest index).
#[derive(Clone, Debug)]
struct MaxTree {
    size: usize,
    node: Vec<u32>,
}

impl MaxTree {
    fn new(n: usize) -> Self {
        let size = n.next_power_of_two().max(1);
        MaxTree {
            size,
            node: vec![NONE; 2 * size],
        }
    }

    #[inline]
    fn better(a: u32, b: u32, f: &[f64]) -> u32 {
        match (a, b) {
            (NONE, _) => b,
            (_, NONE) => a,
            _ => {
                let (fa, fb) = (f[a as usize], f[b as usize]);
                if fb > fa || (fb == fa && b < a) { b } else { a }
            }
        }
    }

    fn build(&mut self, f: &[f64]) {
        self.node.fill(NONE);
        for i in 0..f.len() {
            self.node[self.size + i] = i as u32;
        }
        for k in (1..self.size).rev() {
            self.node[k] = Self::better(self.node[2 * k], self.node[2 * k + 1], f);
        }
    }

    fn update(&mut self, i: usize, f: &[f64]) {
        let mut k = (self.size + i) / 2;
        while k >= 1 {
            self.node[k] = Self::better(self.node[2 * k], self.node[2 * k + 1], f);
            k /= 2;
        }
    }

    fn copy_from(&mut self, other: &MaxTree) {
        self.node.copy_from_slice(&other.node);
    }

    fn arg(&self) -> usize {
        self.node[1] as usize
    }

    fn value(&self, f: &[f64]) -> f64 {
        f[self.node[1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::{RunContext, Scheduler};
    use crate::schedulers::list::Heft;
    use crate::schedulers::local::{Evaluation, LocalState, Move, Tried};
    use crate::schedulers::search::FeasibleGpus;
    use crate::testing::{ClusterKind, random_problem};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use worl_cluster::{Policy, presets};
    use worl_dag::generators::layered::{LayeredParams, layered};

    /// Every tried move gives the full evaluation's outcome bit for bit, and after every
    /// kept move the heads and tails are those of a fresh computation.
    #[test]
    fn tried_moves_match_full_evaluation_bit_for_bit() {
        let mut tried = [0u64; 3];
        let mut problems = Vec::new();
        for (case, kind) in ClusterKind::ALL.iter().enumerate() {
            for seed in 0..3u64 {
                let n = [12, 40, 90][seed as usize];
                let m = [3, 6, 9][seed as usize];
                problems.push((
                    seed,
                    random_problem(n, m, 0.15, *kind, 1.0, seed + 10 * case as u64),
                ));
            }
        }
        // identical GPUs on a machine: moves between them tie
        for seed in 0..3u64 {
            let w = layered(&LayeredParams::new(80), seed).unwrap();
            let c = presets::pai_mix(8, seed).unwrap();
            problems.push((seed, Problem::new(Arc::new(w), Arc::new(c)).unwrap()));
        }
        {
            for (seed, p) in &problems {
                let (seed, p) = (*seed, p);
                let f = FeasibleGpus::new(p);
                let heft = Heft::new().schedule(p, &mut RunContext::new(0)).unwrap();
                let mut fast = LocalState::from_schedule(p, &f, Policy::Append, &heft).unwrap();
                let mut full = fast.clone();
                full.set_evaluation(Evaluation::Full);
                assert_eq!(fast.evaluation(), Evaluation::Incremental);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let (mut c1, mut c2) = (Vec::new(), Vec::new());
                for step in 0..600 {
                    fast.critical_chain(&mut c1);
                    full.critical_chain(&mut c2);
                    assert_eq!(c1, c2, "chains differ at step {step}");
                    let m = Move::ALL[rng.random_range(0..6)];
                    // half the time a task off the chain, which the chain never offers
                    let v = if step % 2 == 0 {
                        c1[rng.random_range(0..c1.len())]
                    } else {
                        TaskId::new(rng.random_range(0..p.n_tasks()))
                    };
                    let mut r1 = ChaCha8Rng::seed_from_u64(step);
                    let mut r2 = r1.clone();
                    let a = fast.try_move(m, v, &mut r1);
                    let b = full.try_move(m, v, &mut r2);
                    match (a, b) {
                        (Tried::Kept(x), Tried::Kept(y)) => {
                            assert_eq!(x.to_bits(), y.to_bits(), "{m:?} at step {step}");
                            tried[0] += 1;
                        }
                        _ => assert_eq!(a, b, "{m:?} at step {step}"),
                    }
                    tried[1] += u64::from(a == Tried::Worse);
                    tried[2] += u64::from(a == Tried::NoChange);
                    assert_eq!(fast.plan, full.plan, "{m:?} at step {step}");
                    assert_eq!(fast.makespan().to_bits(), full.makespan().to_bits());
                    let ht = fast.heads_tails().unwrap();
                    let fresh = HeadsTails::new(p, &fast.plan);
                    for t in 0..p.n_tasks() {
                        assert_eq!(
                            ht.finish[t].to_bits(),
                            fresh.finish[t].to_bits(),
                            "finish {t}"
                        );
                        assert_eq!(ht.tail[t].to_bits(), fresh.tail[t].to_bits(), "tail {t}");
                        assert_eq!(ht.gpu_prev[t], fresh.gpu_prev[t]);
                        assert_eq!(ht.gpu_next[t], fresh.gpu_next[t]);
                    }
                    assert_eq!(ht.last(), fresh.last());
                }
            }
        }
        // every outcome occurs often
        assert!(tried.iter().all(|&k| k > 200), "{tried:?}");
    }

    /// Checks a bound of a changed plan against its makespan `ms` (the old one: `before`):
    /// never above it; equal to it when above `before` (returns true: a rejection); else
    /// the new makespan is at most `before`.
    fn check_bound(bound: f64, ms: f64, before: f64) -> bool {
        assert!(bound <= ms * (1.0 + 1e-12), "{bound} > {ms}");
        if bound > before * (1.0 + 1e-9) {
            assert!((bound - ms).abs() <= 1e-9 * ms, "{bound} vs {ms}");
            true
        } else {
            assert!(ms <= before * (1.0 + 1e-12), "{ms} > {before}");
            false
        }
    }

    /// The longest path through a task moved alone to another GPU is the new makespan
    /// whenever it is longer than the current one, and never more than the new makespan.
    #[test]
    fn the_bound_through_a_moved_task_is_tight_when_it_rejects() {
        let mut rejected = 0;
        for seed in 0..6u64 {
            let p = random_problem(50, 5, 0.2, ClusterKind::ALL[seed as usize % 4], 1.0, seed);
            let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
            let mut plan = heft.to_plan(&p);
            plan.gangs.clear();
            let mut pos = vec![0; p.n_tasks()];
            for (i, t) in plan.order.iter().enumerate() {
                pos[t.index()] = i;
            }
            let ht = HeadsTails::new(&p, &plan);
            let mut ev = worl_cluster::Evaluator::new(&p);
            let before = ht.makespan();
            for v in p.graph().task_ids() {
                for g in p.cluster().gpu_ids() {
                    let old = plan.gpu[v.index()];
                    if g == old || !p.fits(v, g) {
                        continue;
                    }
                    plan.gpu[v.index()] = g;
                    let bound = ht.bound_through(&p, &plan, &pos, v, g, pos[v.index()]);
                    let ms = ev.makespan(&plan, Policy::Append).unwrap();
                    plan.gpu[v.index()] = old;
                    rejected += usize::from(check_bound(bound, ms, before));
                }
            }
        }
        assert!(rejected > 100, "{rejected}");
    }

    /// The longest path through a window that holds every change (a swap of two tasks
    /// close in the order, a task moved earlier) is at most the new makespan, and is the
    /// new makespan whenever it is longer than the old one.
    #[test]
    fn the_window_bound_is_tight_when_it_rejects() {
        let mut rejected = 0;
        for seed in 0..8u64 {
            let p = random_problem(60, 6, 0.2, ClusterKind::ALL[seed as usize % 4], 1.0, seed);
            let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
            let mut plan = heft.to_plan(&p);
            plan.gangs.clear();
            let mut ev = worl_cluster::Evaluator::new(&p);
            let base = HeadsTails::new(&p, &plan);
            let before = base.makespan();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for _ in 0..400 {
                let mut changed = plan.clone();
                let n = p.n_tasks();
                let (lo, hi) = if rng.random_bool(0.5) {
                    // swap the GPUs of two tasks at most 16 places apart
                    let a = rng.random_range(0..n);
                    let b = (a + rng.random_range(1..=16)).min(n - 1);
                    let (ta, tb) = (changed.order[a], changed.order[b]);
                    let (ga, gb) = (changed.gpu[ta.index()], changed.gpu[tb.index()]);
                    if a == b || ga == gb || !p.fits(ta, gb) || !p.fits(tb, ga) {
                        continue;
                    }
                    changed.gpu.swap(ta.index(), tb.index());
                    (a, b)
                } else {
                    // move a task up to 8 places earlier, past no predecessor
                    let from = rng.random_range(1..n);
                    let v = changed.order[from];
                    let mut to = from;
                    while to > 0
                        && from - to < 8
                        && !p
                            .graph()
                            .preds(v)
                            .iter()
                            .any(|u| u.task == changed.order[to - 1])
                    {
                        to -= 1;
                    }
                    changed.order[to..=from].rotate_right(1);
                    (to, from)
                };
                let mut pos = vec![0; n];
                for (i, t) in changed.order.iter().enumerate() {
                    pos[t.index()] = i;
                }
                let mut ht = base.clone();
                for at in lo..=hi {
                    let t = changed.order[at];
                    let (from, to) = (plan.gpu[t.index()], changed.gpu[t.index()]);
                    ht.relink(t, from, to, &pos);
                }
                let bound = ht.window_bound(&p, &changed, &pos, lo, hi);
                let ms = ev.makespan(&changed, Policy::Append).unwrap();
                rejected += usize::from(check_bound(bound, ms, before));
            }
        }
        assert!(rejected > 100, "{rejected}");
    }
}
