//! EFT queries and minimum-EFT processor selection with a per-GPU index of idle gaps.

use super::fits_no_gpu;
use super::gap_tree::GapTree;
use crate::error::Result;
use std::cell::RefCell;
use worl_cluster::{GpuId, MachineId, PartialSchedule, Policy, Problem, SetSlot, Slot};
use worl_dag::{Span, TaskId};

/// No task.
const NONE: u32 = u32::MAX;

/// Rounds of [`GapIndex::best_slot`]'s gap searches taken in order of their lower bound
/// before the remaining ones in GPU order.
const ROUNDS_BY_BOUND: usize = 4;

/// EFT queries for list schedulers: [`PartialSchedule::slot`] with an index for the
/// insertion-based policy, and the minimum-EFT processor selection.
///
/// The insertion policy looks for the first idle gap of a GPU's timeline, at or after the
/// task's data-ready time, long enough for the task; [`PartialSchedule::slot`] walks the
/// timeline from its first task, `O(tasks on the GPU)` per task and GPU, the cost of
/// HEFT-like schedulers on busy GPUs. This index keeps every GPU's idle gaps in timeline
/// order in a treap with the longest gap of each subtree, so that:
///
/// * when the GPU's longest gap is shorter than the task's execution time, no gap can hold
///   it and the slot is the one after the last task ([`Policy::Append`], `O(|preds|)`);
/// * otherwise the first gap at or after the data-ready time that is long enough is found in
///   `O(log t)` expected (`t` tasks on the GPU), checked exactly as the walk checks it, and
///   the slot is built there ([`PartialSchedule::slot_after`]).
///
/// With busy windows ([`Problem::has_windows`]) every query is [`PartialSchedule::slot`]
/// itself (the walk places around the windows; the index keeps following the timelines but
/// proposes nothing), so list schedulers honour windows by construction.
///
/// With gang tasks ([`Problem::has_gangs`], issue 21) a query for a gang task is
/// [`PartialSchedule::slot`], which on a lead GPU is the common gap of the set
/// [`PartialSchedule::best_set`] chooses around the lead; [`best_slot`](Self::best_slot)
/// tries as lead only the GPUs where [`Problem::can_lead`] holds, and
/// [`commit`](Self::commit) places the whole set. A gang has one node on every GPU of its
/// set (the task's own on its lead, an extra node on each other GPU, `Σ (g − 1)` extra
/// nodes allocated once); committing a gang enters its node on each GPU of its set
/// (`O(g log t)`), so queries for single-GPU tasks keep using the index, and
/// [`best_slot`](Self::best_slot) chooses a span-`machine` gang's set from it (one
/// candidate per machine). Without gang tasks none of this runs.
///
/// Results are identical to [`PartialSchedule::slot`]'s, bit for bit: the index only
/// proposes candidate gaps (with a margin of `1e-12 · (1 + latest finish)` s on their
/// lengths, so that rounding never hides a gap that fits), and each candidate is accepted by
/// the walk's own comparison.
///
/// Use one index per [`PartialSchedule`] and place through [`commit`](Self::commit) (or call
/// [`refresh`](Self::refresh) after placing otherwise), so that the index follows the
/// timelines; a placement costs `O(log t)` expected. Memory `O(n + m)`, allocated once;
/// single-GPU queries and updates allocate nothing.
#[derive(Clone, Debug)]
pub struct GapIndex {
    /// Per GPU: the latest finish on its timeline, or its ready time `r_k` if later, s.
    latest: Vec<f64>,
    /// Per GPU: its last task (`NONE` without tasks).
    last: Vec<u32>,
    /// Per placed task: the latest finish before it on its GPU (or `r_k`), s; its gap is
    /// `start - before`.
    before: Vec<f64>,
    /// Per placed task: the task before it on its GPU (`NONE`: first).
    prev: Vec<u32>,
    /// The gaps in timeline order.
    tree: GapTree,
    /// Number of tasks `n` (nodes `>= n` are the extra nodes of gangs).
    n: usize,
    /// Whether the problem has gang tasks.
    gangs: bool,
    /// Gang mode: per task placed on several GPUs, its first extra node (`NONE`
    /// otherwise); its node on the `i`-th GPU of its set (`i >= 1`) is `extra_base + i - 1`.
    /// Empty without gangs.
    extra_base: Vec<u32>,
    /// Gang mode: the task of extra node `n + i`.
    extra_task: Vec<u32>,
    /// Scratch of [`best_single`](Self::best_single): GPUs whose start needs a gap search,
    /// `(gpu, ready time, duration, extra)`.
    deferred: RefCell<Vec<(u32, f64, f64, f64)>>,
    /// The set slot of the gang [`best_slot`](Self::best_slot) chose last, for
    /// [`commit`](Self::commit) to place without choosing it again.
    pending: RefCell<Option<(SetSlot, Policy)>>,
}

impl GapIndex {
    /// An index for an empty schedule of `problem`.
    pub fn new(problem: &Problem) -> Self {
        let (n, m) = (problem.n_tasks(), problem.n_gpus());
        let gangs = problem.has_gangs();
        // gang mode: one extra node per GPU of a gang beyond its lead
        let nodes = if gangs {
            n + problem
                .graph()
                .task_ids()
                .map(|v| problem.gpus(v) as usize - 1)
                .sum::<usize>()
        } else {
            n
        };
        Self {
            latest: problem
                .cluster()
                .gpu_ids()
                .map(|k| problem.ready_time(k))
                .collect(),
            last: vec![NONE; m],
            before: vec![0.0; nodes],
            prev: vec![NONE; nodes],
            tree: GapTree::new(nodes, m),
            n,
            gangs,
            extra_base: if gangs { vec![NONE; n] } else { Vec::new() },
            extra_task: Vec::new(),
            deferred: RefCell::new(Vec::with_capacity(m)),
            pending: RefCell::new(None),
        }
    }

    /// The task of index node `node`.
    #[inline]
    fn task_of(&self, node: usize) -> usize {
        if node < self.n {
            node
        } else {
            self.extra_task[node - self.n] as usize
        }
    }

    /// The index node of placed `task` on `gpu` (its own on its lead GPU).
    fn node_of(&self, partial: &PartialSchedule<'_>, task: TaskId, gpu: GpuId) -> usize {
        if !self.gangs {
            return task.index();
        }
        match partial.gang_set(task) {
            Some(set) if set[0] != gpu => {
                let i = set.iter().position(|&k| k == gpu).unwrap_or(1);
                self.extra_base[task.index()] as usize + i - 1
            }
            _ => task.index(),
        }
    }

    /// Rounding margin on gap lengths for GPU `k`, s.
    #[inline]
    fn margin(&self, k: usize) -> f64 {
        1e-12 * (1.0 + self.latest[k].abs())
    }

    /// The slot `task` would take on `gpu` under `policy`: exactly [`PartialSchedule::slot`].
    ///
    /// Errors: as [`PartialSchedule::slot`].
    #[inline]
    pub fn slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        gpu: GpuId,
        policy: Policy,
    ) -> Result<Slot> {
        let p = partial.problem();
        let k = gpu.index();
        // With busy windows the gaps between tasks are not the gaps a task can take (a
        // window may split one): the walk of `PartialSchedule::slot`, which places around
        // windows, answers instead (the index still follows the timelines).
        if policy == Policy::Append
            || p.has_windows()
            || k >= self.latest.len()
            || task.index() >= p.n_tasks()
            || (self.gangs && p.gpus(task) > 1)
        {
            return Ok(partial.slot(task, gpu, policy)?);
        }
        let exec = p.exec_time(task, gpu);
        let min_gap = exec - self.margin(k);
        if self.longest_gap(gpu) < min_gap || !p.fits(task, gpu) {
            // No gap is long enough: the slot is after the last task (errors as the walk's).
            return Ok(partial.slot(task, gpu, Policy::Append)?);
        }
        let ready_at = partial.data_ready_time(task, gpu)?.max(p.ready_time(gpu));
        if self.last[k] == NONE || self.latest[k] <= ready_at {
            // Nothing ends after the data-ready time: the walk's own shortcut.
            return Ok(partial.slot(task, gpu, policy)?);
        }
        let mut candidate = self.tree.first_from(k, ready_at, min_gap);
        while let Some(c) = candidate {
            let free = ready_at.max(self.before[c]);
            if free + exec <= self.tree.start(c) {
                let after = self.prev[c];
                let after = (after != NONE).then(|| TaskId::new(self.task_of(after as usize)));
                return Ok(partial.slot_after(task, gpu, after)?);
            }
            candidate = self.tree.first_after(c, min_gap);
        }
        // No gap fits: after the last task.
        Ok(partial.slot(task, gpu, Policy::Append)?)
    }

    /// Commits `slot` to `partial` and updates the index for its GPU (`O(log t)` expected).
    /// A gang's slot places its whole set (the set [`best_slot`](Self::best_slot) chose,
    /// without choosing it again, when `slot` is the one it returned last) and updates the
    /// index of every GPU of the set (`O(g log t)`).
    ///
    /// Errors: as [`PartialSchedule::commit`].
    pub fn commit(&mut self, partial: &mut PartialSchedule<'_>, slot: Slot) -> Result<()> {
        let task = slot.task();
        if self.gangs && task.index() < self.n && partial.problem().gpus(task) > 1 {
            match self.pending.get_mut().take() {
                Some((set, policy)) if partial.lead_slot(&set, policy) == slot => {
                    partial.commit_set(set)?
                }
                _ => partial.commit(slot)?,
            }
            let t = task.index();
            let set = partial
                .gang_set(task)
                .map(<[GpuId]>::to_vec)
                .unwrap_or_default();
            let (start, finish) = (
                partial.start(task).unwrap_or(slot.start()),
                partial.finish(task).unwrap_or(slot.finish()),
            );
            let base = self.n + self.extra_task.len();
            self.extra_base[t] = base as u32;
            self.extra_task
                .extend(std::iter::repeat_n(t as u32, set.len().saturating_sub(1)));
            for (i, &k) in set.iter().enumerate() {
                let node = if i == 0 { t } else { base + i - 1 };
                let next = partial
                    .next_on(task, k)
                    .map(|x| self.node_of(partial, x, k));
                self.link(k.index(), node, start, finish, next);
            }
            return Ok(());
        }
        partial.commit(slot)?;
        let next = if self.gangs {
            partial
                .next_on(task, slot.gpu())
                .map(|x| self.node_of(partial, x, slot.gpu()))
        } else {
            partial.next_on_gpu(task).map(TaskId::index)
        };
        self.link(
            slot.gpu().index(),
            task.index(),
            slot.start(),
            slot.finish(),
            next,
        );
        Ok(())
    }

    /// Enters index node `node`, placed `[start, finish)` on GPU `k` before node `next`
    /// (`None`: last), into `k`'s gaps: `O(log t)` expected.
    fn link(&mut self, k: usize, node: usize, start: f64, finish: f64, next: Option<usize>) {
        match next {
            // Appended: one new gap, after the latest finish so far.
            None => {
                let before = self.latest[k];
                self.before[node] = before;
                self.prev[node] = self.last[k];
                self.last[k] = node as u32;
                self.tree.insert(k, node, start, start - before, None);
                self.latest[k] = before.max(finish);
            }
            // Inserted before `next`: the gap before `next` splits in two.
            Some(next) => {
                let before = self.before[next];
                self.before[node] = before;
                self.prev[node] = self.prev[next];
                self.prev[next] = node as u32;
                self.tree.insert(k, node, start, start - before, Some(next));
                let after = before.max(finish);
                self.before[next] = after;
                self.tree.set_gap(next, self.tree.start(next) - after);
                self.latest[k] = self.latest[k].max(finish);
            }
        }
    }

    /// Rebuilds the index of `gpu` from `partial` (`O(t log t)`, `t` the tasks on `gpu`):
    /// needed only after placing on `gpu` other than through [`commit`](Self::commit).
    /// With gang tasks, a gang placed other than through `commit` must be placed through
    /// it instead (its extra nodes are numbered there); refreshing on an empty schedule
    /// (after [`PartialSchedule::reset`]) also forgets the gangs' extra nodes.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn refresh(&mut self, partial: &PartialSchedule<'_>, gpu: GpuId) {
        if self.gangs && partial.n_placed() == 0 && !self.extra_task.is_empty() {
            self.extra_task.clear();
            self.extra_base.fill(NONE);
        }
        let k = gpu.index();
        let mut latest = partial.problem().ready_time(gpu);
        let mut prev = NONE;
        self.tree.clear(k);
        for t in partial.timeline(gpu) {
            let (start, finish) = (partial.start(t), partial.finish(t));
            let (start, finish) = (start.unwrap_or(latest), finish.unwrap_or(latest));
            let i = self.node_of(partial, t, gpu);
            self.before[i] = latest;
            self.prev[i] = prev;
            self.tree.insert(k, i, start, start - latest, None);
            latest = latest.max(finish);
            prev = i as u32;
        }
        self.last[k] = prev;
        self.latest[k] = latest;
    }

    /// The longest idle gap of `gpu` as the index knows it, s (`-inf` without tasks).
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn longest_gap(&self, gpu: GpuId) -> f64 {
        self.tree.longest(gpu.index())
    }

    /// The slot of `task` minimising `slot.finish() + extra(gpu)` over the GPUs that fit
    /// it, under `policy`; ties go to the smaller GPU id. With `extra = 0` this is HEFT's
    /// processor selection (minimum EFT, Topcuoglu et al. 2002, §4.1); with PEFT's
    /// optimistic cost it is O_EFT (Arabnejad and Barbosa 2014, §3).
    ///
    /// A gang task (`g > 1` GPUs, issue 21) is tried on GPUs that can lead its set
    /// ([`Problem::can_lead`]); its slot's finish is the common finish of the set chosen
    /// around the lead ([`PartialSchedule::best_set`]), and `extra` is taken at the lead.
    /// Span `machine` without busy windows: one candidate set per machine, the `g` GPUs of
    /// the machine where the task's compute share could start earliest (ties by id, led by
    /// the earliest: the set [`PartialSchedule::best_set`] builds around that GPU), so the
    /// choice is the machine (and set) of earliest common finish. Otherwise (span
    /// `cluster`, or busy windows) every GPU that can lead is tried.
    ///
    /// Without busy windows the data-ready time is taken once per machine (it differs
    /// between the GPUs of a machine only on those holding a predecessor) and each GPU's
    /// earliest start comes from the index, so a query is `O(M · |preds| + m)` plus the gap
    /// searches the index cannot rule out (`M` machines, `m` GPUs); the slot returned is
    /// built by [`slot`](Self::slot) (one GPU) or [`PartialSchedule::slot`] (a gang) and is
    /// bit for bit the one the walk would give. A gang query also sorts each machine's GPUs
    /// (`O(m log g)`) and allocates one buffer; single-GPU queries allocate nothing.
    ///
    /// Errors: [`ClusterError::NotTopological`](worl_cluster::ClusterError::NotTopological) if a predecessor is not placed,
    /// [`ClusterError::DuplicateTask`](worl_cluster::ClusterError::DuplicateTask) if `task` is; [`ClusterError::TaskFitsNoGpu`](worl_cluster::ClusterError::TaskFitsNoGpu) if no
    /// GPU fits it (impossible for a [`Problem`], which rejects such tasks).
    #[inline]
    pub fn best_slot(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        policy: Policy,
        mut extra: impl FnMut(GpuId) -> f64,
    ) -> Result<Slot> {
        let p = partial.problem();
        if !p.has_windows() && self.kernel_applies(partial, task) {
            if p.gpus(task) == 1 {
                if let Some(gpu) = self.best_single(partial, task, policy, &mut extra) {
                    let slot = self.slot(partial, task, gpu, policy)?;
                    return Ok(slot);
                }
            } else if p.graph().task(task).gang.span == Span::Machine
                && let Some((set, start)) =
                    self.best_gang_on_machine(partial, task, policy, &mut extra)
            {
                // the common start found from the index: the walks only confirm it
                let set = partial.slot_set_from(task, &set, policy, start)?;
                let slot = partial.lead_slot(&set, policy);
                *self.pending.borrow_mut() = Some((set, policy));
                return Ok(slot);
            }
        }
        let gangs = p.has_gangs();
        let mut best: Option<(Slot, f64)> = None;
        for k in 0..p.n_gpus() {
            let gpu = GpuId::new(k);
            if !p.fits(task, gpu) || (gangs && !p.can_lead(task, gpu)) {
                continue;
            }
            let slot = self.slot(partial, task, gpu, policy)?;
            let key = slot.finish() + extra(gpu);
            if best.is_none_or(|(_, b)| key < b) {
                best = Some((slot, key));
            }
        }
        match best {
            Some((slot, _)) => Ok(slot),
            None => Err(fits_no_gpu(p, task)),
        }
    }

    /// Whether the per-machine kernels of [`best_slot`](Self::best_slot) may answer for
    /// `task`: it is in range and not placed, every predecessor is placed, and the index
    /// covers the problem's GPUs (otherwise the generic loop answers, with its errors).
    fn kernel_applies(&self, partial: &PartialSchedule<'_>, task: TaskId) -> bool {
        let p = partial.problem();
        task.index() < p.n_tasks()
            && self.latest.len() == p.n_gpus()
            && !partial.is_placed(task)
            && p.graph()
                .preds(task)
                .iter()
                .all(|nb| partial.is_placed(nb.task))
    }

    /// [`PartialSchedule::data_ready_time_on_machine`] (every predecessor placed).
    fn machine_drt(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        m: MachineId,
    ) -> (f64, bool) {
        partial
            .data_ready_time_on_machine(task, m)
            .unwrap_or((0.0, true))
    }

    /// [`PartialSchedule::data_ready_time`] (every predecessor placed).
    fn gpu_drt(&self, partial: &PartialSchedule<'_>, task: TaskId, gpu: GpuId) -> f64 {
        partial.data_ready_time(task, gpu).unwrap_or(0.0)
    }

    /// The earliest start `S >= from` of a task of duration `dur` on GPU `k` under `policy`
    /// on a problem without busy windows, from the index: the start the walk of
    /// [`PartialSchedule::slot`] gives (`from` must be at least `k`'s ready time); and the
    /// end `E` of the idle interval it lies in (the start of the next task on the GPU, `inf`
    /// after the last). `[S, E)` is free, so for any `s` with `S <= s` and `s + d <= E` the
    /// earliest start from `s` of a task of duration `d` is `s` itself (the walk's own
    /// test, `s + d <= E`).
    fn earliest(
        &self,
        partial: &PartialSchedule<'_>,
        k: usize,
        from: f64,
        dur: f64,
        policy: Policy,
    ) -> (f64, f64) {
        if let Some(start) = self.start_without_search(partial, k, from, dur, policy) {
            return (start, f64::INFINITY);
        }
        let min_gap = dur - self.margin(k);
        let mut candidate = self.tree.first_from(k, from, min_gap);
        while let Some(c) = candidate {
            if from.max(self.before[c]) + dur <= self.tree.start(c) {
                let start = match self.prev[c] {
                    NONE => from,
                    q => {
                        let q = TaskId::new(self.task_of(q as usize));
                        from.max(partial.finish(q).unwrap_or(from))
                    }
                };
                return (start, self.tree.start(c));
            }
            candidate = self.tree.first_after(c, min_gap);
        }
        (from.max(partial.available(GpuId::new(k))), f64::INFINITY)
    }

    /// The minimum-key GPU for single-GPU `task` (see [`best_slot`](Self::best_slot)),
    /// `None` if no GPU fits it. No busy windows; every predecessor placed.
    ///
    /// Two passes: the first takes the exact key of every GPU whose start needs no gap
    /// search (idle at the data-ready time, append, or no gap long enough) and defers the
    /// others with their lower bound `(ready + dur) + extra`; the second searches the gaps
    /// of the deferred GPUs whose bound can still win. Ties go to the smaller GPU id in
    /// both, so the answer is the single in-order loop's.
    fn best_single(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        policy: Policy,
        extra: &mut impl FnMut(GpuId) -> f64,
    ) -> Option<GpuId> {
        let p = partial.problem();
        let mut best: Option<(usize, f64)> = None;
        let better = |best: Option<(usize, f64)>, k: usize, key: f64| {
            best.is_none_or(|(bk, b)| key < b || (key == b && k < bk))
        };
        let mut deferred = self.deferred.borrow_mut();
        deferred.clear();
        // the data-ready time of the current machine (GPUs of a machine have consecutive
        // ids in every cluster builder; any order stays correct, only slower)
        let mut machine = None;
        let (mut drt_m, mut holds) = (0.0, false);
        for k in 0..p.n_gpus() {
            let gpu = GpuId::new(k);
            if !p.fits(task, gpu) {
                continue;
            }
            let m = p.machine_of(gpu);
            if machine != Some(m) {
                machine = Some(m);
                (drt_m, holds) = self.machine_drt(partial, task, m);
            }
            let drt = if holds {
                self.gpu_drt(partial, task, gpu)
            } else {
                drt_m
            };
            let ready_at = drt.max(p.ready_time(gpu));
            let dur = p.exec_time(task, gpu);
            let x = extra(gpu);
            match self.start_without_search(partial, k, ready_at, dur, policy) {
                Some(start) => {
                    let key = (start + dur) + x;
                    if better(best, k, key) {
                        best = Some((k, key));
                    }
                }
                None => deferred.push((k as u32, ready_at, dur, x)),
            }
        }
        // the exact key of a deferred GPU, kept if it wins
        let search = |best: &mut Option<(usize, f64)>,
                      (k, ready_at, dur, x): (u32, f64, f64, f64)| {
            let k = k as usize;
            let key = (self.earliest(partial, k, ready_at, dur, policy).0 + dur) + x;
            if better(*best, k, key) {
                *best = Some((k, key));
            }
        };
        // Most promising first: the deferred GPU of least bound (ties: smaller id) while one
        // can still win, a few rounds (a gap at the data-ready time usually settles it),
        // then the rest in id order.
        for _ in 0..ROUNDS_BY_BOUND {
            let mut next: Option<(usize, f64)> = None;
            for (i, &(k, ready_at, dur, x)) in deferred.iter().enumerate() {
                let bound = (ready_at + dur) + x;
                if better(best, k as usize, bound)
                    && next.is_none_or(|(j, b)| bound < b || (bound == b && k < deferred[j].0))
                {
                    next = Some((i, bound));
                }
            }
            let Some((i, _)) = next else {
                return best.map(|(k, _)| GpuId::new(k));
            };
            search(&mut best, deferred.swap_remove(i));
        }
        for &(k, ready_at, dur, x) in deferred.iter() {
            if better(best, k as usize, (ready_at + dur) + x) {
                search(&mut best, (k, ready_at, dur, x));
            }
        }
        best.map(|(k, _)| GpuId::new(k))
    }

    /// The minimum-key set (lead first) and its earliest common start for gang `task` of span `machine` (see
    /// [`best_slot`](Self::best_slot)), `None` if no machine can hold it. No busy windows;
    /// every predecessor placed.
    ///
    /// Machines are tried in increasing order of a lower bound on their key (the `g`-th
    /// earliest start bound of a GPU's compute share, plus the machine's shortest share,
    /// plus its smallest `extra`), and a machine whose bound cannot beat the best key so
    /// far is skipped, as is one whose common start, rising while it is searched, can no
    /// longer win; ties go to the smaller machine id, so the answer is the in-order loop's.
    fn best_gang_on_machine(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        policy: Policy,
        extra: &mut impl FnMut(GpuId) -> f64,
    ) -> Option<(Vec<GpuId>, f64)> {
        let p = partial.problem();
        let g = p.gpus(task) as usize;
        let mut bounds: Vec<(f64, MachineId)> = Vec::new();
        let mut starts: Vec<f64> = Vec::with_capacity(16);
        let mut extra_mins = vec![f64::INFINITY; p.cluster().n_machines()];
        for m in (0..p.cluster().n_machines()).map(MachineId::new) {
            let gpus = p.cluster().gpus_of(m);
            if gpus.len() < g {
                continue;
            }
            starts.clear();
            let (mut share_min, mut extra_min) = (f64::INFINITY, f64::INFINITY);
            for (l, ready, share) in self.ready_shares(partial, task, m) {
                let start = self
                    .start_without_search(partial, l.index(), ready, share, policy)
                    .unwrap_or(ready);
                starts.push(start);
                share_min = share_min.min(share);
                extra_min = extra_min.min(extra(l));
            }
            if starts.len() < g {
                continue;
            }
            starts.select_nth_unstable_by(g - 1, f64::total_cmp);
            bounds.push(((starts[g - 1] + share_min) + extra_min, m));
            extra_mins[m.index()] = extra_min;
        }
        // machines are distinct: no two keys compare equal, so the order is a stable sort's
        bounds.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(MachineId, f64)> = None;
        let mut best_set = Vec::with_capacity(g);
        let mut best_start = 0.0;
        let mut buffers = GangBuffers::default();
        for &(bound, m) in &bounds {
            if best.is_some_and(|(bm, b)| bound > b || (bound == b && m > bm)) {
                continue;
            }
            let can_win = |finish: f64| {
                let key = finish + extra_mins[m.index()];
                best.is_none_or(|(bm, b)| key < b || (key == b && m < bm))
            };
            if let Some((lead, finish)) =
                self.gang_candidate(partial, task, m, policy, &mut buffers, can_win)
            {
                let key = finish + extra(lead);
                if best.is_none_or(|(bm, b)| key < b || (key == b && m < bm)) {
                    best = Some((m, key));
                    best_set.clone_from(&buffers.set);
                    best_start = buffers.start;
                }
            }
        }
        best.map(|_| (best_set, best_start))
    }

    /// The GPUs `l` of machine `m` that fit gang `task` (of `g` GPUs, efficiency `e`), in
    /// the machine's order, each with its data-ready time past its ready time and the
    /// task's compute share on it, `exec / (g e)`, s.
    fn ready_shares<'s>(
        &'s self,
        partial: &'s PartialSchedule<'_>,
        task: TaskId,
        m: MachineId,
    ) -> impl Iterator<Item = (GpuId, f64, f64)> + 's {
        let p = partial.problem();
        let g = p.gpus(task) as usize;
        let e = p.graph().task(task).gang.efficiency;
        let (drt_m, holds) = self.machine_drt(partial, task, m);
        p.cluster()
            .gpus_of(m)
            .iter()
            .filter(move |&&l| p.fits(task, l))
            .map(move |&l| {
                let drt = if holds {
                    self.gpu_drt(partial, task, l)
                } else {
                    drt_m
                };
                let ready = drt.max(p.ready_time(l));
                (l, ready, p.exec_time(task, l) / (g as f64 * e))
            })
    }

    /// The start [`earliest`](Self::earliest) gives when it needs no gap search (nothing
    /// on the GPU after `from`, the append policy, or no gap of the GPU long enough for
    /// `dur`); `None` when a gap might hold the task (then the start is at least `from`).
    #[inline(always)]
    fn start_without_search(
        &self,
        partial: &PartialSchedule<'_>,
        k: usize,
        from: f64,
        dur: f64,
        policy: Policy,
    ) -> Option<f64> {
        let available = partial.available(GpuId::new(k));
        if policy == Policy::Append
            || available <= from
            || self.tree.longest(k) < dur - self.margin(k)
        {
            Some(from.max(available))
        } else {
            None
        }
    }

    /// Machine `m`'s candidate for gang `task` of span `machine`: the lead of the set
    /// [`PartialSchedule::best_set`] builds around the GPU of `m` where the task's compute
    /// share could start earliest (ties by id) — the `g` earliest GPUs of `m` —, and the
    /// set's common finish, bit for bit [`PartialSchedule::slot`]'s on that lead. `None` if
    /// fewer than `g` GPUs of `m` fit the task, or if `cutoff` is false for a lower bound
    /// of the common finish (checked before the set's common start is searched and at each
    /// rise of it). No busy windows; every predecessor placed.
    fn gang_candidate(
        &self,
        partial: &PartialSchedule<'_>,
        task: TaskId,
        m: MachineId,
        policy: Policy,
        buffers: &mut GangBuffers,
        cutoff: impl Fn(f64) -> bool,
    ) -> Option<(GpuId, f64)> {
        let p = partial.problem();
        let g = p.gpus(task) as usize;
        let gpus = p.cluster().gpus_of(m);
        if gpus.len() < g {
            return None;
        }
        let GangBuffers { ranked, set, .. } = buffers;
        ranked.clear();
        for (l, ready, share) in self.ready_shares(partial, task, m) {
            // `PartialSchedule::best_set`'s ranking: the compute share alone
            let (t, end) = self.earliest(partial, l.index(), ready, share, policy);
            ranked.push((t, l, ready, end));
        }
        if ranked.len() < g {
            return None;
        }
        // GPUs are distinct: no two keys compare equal, so the order is a stable sort's
        ranked.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        set.clear();
        set.extend(ranked[..g].iter().map(|x| x.1));
        let ready = ranked[..g].iter().fold(0.0f64, |r, x| r.max(x.2));
        let dur = p.exec_time_on(task, set);
        // `PartialSchedule::slot_set`'s earliest common start: the least `s >= ready` at
        // which every GPU of the set is free for `dur`. Each GPU's share alone cannot start
        // before its rank time, and `dur` is at least the share, so `s >= ranked[g-1].0`;
        // the iteration, monotone, reaches the same least `s` from there.
        let from = ready.max(ranked[g - 1].0);
        if !cutoff(from + dur) {
            return None;
        }
        // each GPU's last known free interval `[S, E)` answers without a search while the
        // common start stays inside it
        buffers.from = from;
        let mut start = from;
        loop {
            let mut next = start;
            for (k, span) in set.iter().zip(ranked.iter_mut()) {
                let at = if span.0 <= start && start + dur <= span.3 {
                    start
                } else {
                    let (t, end) = self.earliest(partial, k.index(), start, dur, policy);
                    (span.0, span.3) = (t, end);
                    t
                };
                next = next.max(at);
            }
            if next == start {
                break;
            }
            // the common start only rises: once it cannot win, it never will
            if !cutoff(next + dur) {
                return None;
            }
            start = next;
        }
        buffers.start = start;
        Some((set[0], start + dur))
    }
}

/// Scratch buffers of [`GapIndex::gang_candidate`]: per GPU of a machine `(earliest start
/// of the compute share, GPU, ready time, end of the idle interval of that start)`, the
/// set and its common start.
#[derive(Default)]
struct GangBuffers {
    ranked: Vec<(f64, GpuId, f64, f64)>,
    /// The set's earliest common start, s (set with a candidate).
    start: f64,
    /// The lower bound of the common start the search began from, s.
    from: f64,
    set: Vec<GpuId>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};

    /// The longest gap by a full walk of each timeline.
    fn rescan(partial: &PartialSchedule<'_>, gpu: GpuId) -> f64 {
        let mut latest = partial.problem().ready_time(gpu);
        let mut gap = f64::NEG_INFINITY;
        for t in partial.timeline(gpu) {
            let (start, finish) = (partial.start(t).unwrap(), partial.finish(t).unwrap());
            gap = gap.max(start - latest);
            latest = latest.max(finish);
        }
        gap
    }

    /// A random DAG of 60 tasks whose works are 0, 1 or 3 (zero-length tasks tie).
    fn zero_heavy(seed: u64) -> worl_dag::Workload {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = worl_dag::WorkloadBuilder::new("zero-heavy");
        let j = b.add_job("j").unwrap();
        let ids: Vec<TaskId> = (0..60)
            .map(|i| {
                let w = [0.0, 0.0, 1.0, 3.0][rng.random_range(0..4)];
                b.add_task(j, format!("t{i}"), w, None).unwrap()
            })
            .collect();
        for v in 1..ids.len() {
            for u in 0..v {
                if rng.random_bool(0.05) {
                    b.add_edge(ids[u], ids[v], 0.0).unwrap();
                }
            }
        }
        b.build().unwrap()
    }

    /// Every query of `index` equals the walk's slot, bit for bit.
    fn assert_same_slots(index: &GapIndex, s: &PartialSchedule<'_>, p: &Problem, done: &[bool]) {
        for v in p.graph().task_ids() {
            let ready = !done[v.index()] && p.graph().preds(v).iter().all(|e| done[e.task.index()]);
            if !ready {
                continue;
            }
            for gpu in p.cluster().gpu_ids().filter(|&k| p.fits(v, k)) {
                let want = s.slot(v, gpu, Policy::Insertion).unwrap();
                let got = index.slot(s, v, gpu, Policy::Insertion).unwrap();
                assert_eq!(got, want, "{v:?} on {gpu:?}");
            }
        }
    }

    #[test]
    fn indexed_slots_and_gaps_equal_the_walk_bit_for_bit() {
        // Random GPUs in topological order leave many gaps, which later tasks split; zero
        // works give zero-length tasks and ties between start times.
        for seed in 0..6u64 {
            let w = if seed < 4 {
                alibaba_like(&AlibabaLikeParams::new(40), seed).unwrap()
            } else {
                zero_heavy(seed)
            };
            let c = presets::pai_mix(4, seed).unwrap();
            let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut s = PartialSchedule::new(&p);
            let mut index = GapIndex::new(&p);
            let mut done = vec![false; p.n_tasks()];
            let mut inserted = 0;
            for &v in p.graph().topo_order() {
                assert_same_slots(&index, &s, &p, &done);
                let fitting: Vec<GpuId> = p.cluster().gpu_ids().filter(|&k| p.fits(v, k)).collect();
                let k = fitting[rng.random_range(0..fitting.len())];
                let slot = index.slot(&s, v, k, Policy::Insertion).unwrap();
                index.commit(&mut s, slot).unwrap();
                done[v.index()] = true;
                inserted += usize::from(s.next_on_gpu(v).is_some());
                for gpu in p.cluster().gpu_ids() {
                    assert_eq!(
                        index.longest_gap(gpu).to_bits(),
                        rescan(&s, gpu).to_bits(),
                        "{v:?} {gpu:?}"
                    );
                }
            }
            assert!(inserted > 0, "seed {seed}: no insertion into a gap");
            // A full refresh of every GPU gives back the same answers.
            let mut fresh = index.clone();
            for gpu in p.cluster().gpu_ids() {
                fresh.refresh(&s, gpu);
                assert_eq!(fresh.longest_gap(gpu), index.longest_gap(gpu));
            }
        }
    }

    #[test]
    fn with_busy_windows_every_slot_is_the_walks() {
        // Windows split the gaps the index knows: it must not propose them. Random GPUs in
        // topological order, windows on every GPU; every query equals `PartialSchedule::slot`
        // and every placement meets no window.
        for seed in 0..4u64 {
            let w = alibaba_like(&AlibabaLikeParams::new(40), seed).unwrap();
            let mut c = presets::pai_mix(4, seed).unwrap();
            for k in 0..c.n_gpus() {
                let at = 10.0 * (k as f64 + 1.0);
                c.set_busy(GpuId::new(k), vec![(at, at + 15.0), (at + 40.0, at + 45.0)])
                    .unwrap();
            }
            let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut s = PartialSchedule::new(&p);
            let mut index = GapIndex::new(&p);
            let mut done = vec![false; p.n_tasks()];
            for &v in p.graph().topo_order() {
                assert_same_slots(&index, &s, &p, &done);
                let fitting: Vec<GpuId> = p.cluster().gpu_ids().filter(|&k| p.fits(v, k)).collect();
                let k = fitting[rng.random_range(0..fitting.len())];
                let slot = index.slot(&s, v, k, Policy::Insertion).unwrap();
                index.commit(&mut s, slot).unwrap();
                done[v.index()] = true;
            }
            assert_eq!(s.to_schedule().unwrap().validate(&p), vec![], "seed {seed}");
        }
    }

    #[test]
    fn with_gang_tasks_indexed_slots_and_gaps_equal_the_walk_bit_for_bit() {
        // Gangs of 2-4 GPUs (span machine and cluster) among single-GPU tasks, random leads
        // in topological order: every query (single-GPU tasks through the index, gangs
        // through the walk) equals `PartialSchedule::slot`, and the index's longest gap of
        // every GPU equals a rescan of its timeline, gangs' extra nodes included.
        let mut gangs_placed = 0;
        let mut inserted = 0;
        for seed in 0..6u64 {
            let w = alibaba_like(&AlibabaLikeParams::new(40), seed).unwrap();
            let span = if seed % 2 == 0 {
                worl_dag::Span::Machine
            } else {
                worl_dag::Span::Cluster
            };
            let w = worl_dag::generators::gangs::assign(&w, 0.3, 2..=4, span, seed).unwrap();
            let c = presets::homogeneous(8, &worl_cluster::GpuModel::v100_16gb()).unwrap();
            let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
            assert!(p.has_gangs());
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut s = PartialSchedule::new(&p);
            let mut index = GapIndex::new(&p);
            let mut done = vec![false; p.n_tasks()];
            let mut leads_taken = Vec::new();
            for &v in p.graph().topo_order() {
                for u in p.graph().task_ids() {
                    let ready =
                        !done[u.index()] && p.graph().preds(u).iter().all(|e| done[e.task.index()]);
                    if !ready {
                        continue;
                    }
                    for gpu in p.cluster().gpu_ids().filter(|&k| p.can_lead(u, k)) {
                        let want = s.slot(u, gpu, Policy::Insertion).unwrap();
                        let got = index.slot(&s, u, gpu, Policy::Insertion).unwrap();
                        assert_eq!(got, want, "seed {seed}: {u:?} on {gpu:?}");
                    }
                }
                let leads: Vec<GpuId> = p
                    .cluster()
                    .gpu_ids()
                    .filter(|&k| p.can_lead(v, k))
                    .collect();
                let k = leads[rng.random_range(0..leads.len())];
                leads_taken.push((v, k));
                let slot = index.slot(&s, v, k, Policy::Insertion).unwrap();
                index.commit(&mut s, slot).unwrap();
                done[v.index()] = true;
                gangs_placed += usize::from(p.gpus(v) > 1);
                inserted += usize::from(p.gpus(v) == 1 && s.next_on_gpu(v).is_some());
                for gpu in p.cluster().gpu_ids() {
                    assert_eq!(
                        index.longest_gap(gpu).to_bits(),
                        rescan(&s, gpu).to_bits(),
                        "seed {seed}: {v:?} {gpu:?}"
                    );
                }
            }
            let first = s.to_schedule().unwrap();
            assert_eq!(first.validate(&p), vec![], "seed {seed}");
            // reused after a reset (as the searches' list decoder does): the same schedule
            s.reset();
            for gpu in p.cluster().gpu_ids() {
                index.refresh(&s, gpu);
            }
            for &(v, k) in &leads_taken {
                let slot = index.slot(&s, v, k, Policy::Insertion).unwrap();
                assert_eq!(
                    slot,
                    s.slot(v, k, Policy::Insertion).unwrap(),
                    "seed {seed}"
                );
                index.commit(&mut s, slot).unwrap();
            }
            assert_eq!(s.to_schedule().unwrap(), first, "seed {seed}");
        }
        assert!(gangs_placed >= 60, "{gangs_placed}");
        assert!(inserted > 0, "no single-GPU task went into a gap");
    }

    #[test]
    fn per_machine_kernels_answer_as_the_walk_bit_for_bit() {
        let (singles, gangs, holding, rounds) = kernels_against_the_walk(4, 0..8);
        assert!(
            singles > 500 && gangs > 50 && holding > 100 && rounds > 20,
            "{singles} {gangs} {holding} {rounds}"
        );
    }

    #[test]
    fn among_many_machines_the_pruned_gang_search_answers_as_the_walk() {
        // 20 machines: most candidate machines are pruned by their bound or mid-search
        let (singles, gangs, _, rounds) = kernels_against_the_walk(20, 0..4);
        assert!(
            singles > 200 && gangs > 50 && rounds > 20,
            "{singles} {gangs} {rounds}"
        );
    }

    /// Random leads in topological order (to leave gaps) on `machines` machines of 4 GPUs
    /// with a slow inter-machine link, with and without gangs (span machine; seeds below 6),
    /// both policies, a PEFT-like `extra`: at every step, for every ready task, `best_slot`
    /// equals the walk's minimum over every GPU (single-GPU tasks), and every machine's
    /// gang candidate finishes exactly when `PartialSchedule::slot` on its lead does, on a
    /// set of that machine, the minimum of them being `best_slot`'s, and it comes back from
    /// a cutoff exactly when its finish passes it. Returns the single-GPU queries, the gang
    /// queries, the single-GPU queries with a placed predecessor and the gang candidates
    /// whose common start rose past its first bound.
    fn kernels_against_the_walk(
        machines: usize,
        seeds: std::ops::Range<u64>,
    ) -> (usize, usize, usize, usize) {
        let (mut singles, mut gangs, mut holding, mut rounds) = (0, 0, 0, 0);
        for seed in seeds {
            let policy = if seed % 2 == 0 {
                Policy::Insertion
            } else {
                Policy::Append
            };
            let w = alibaba_like(&AlibabaLikeParams::new(30), seed).unwrap();
            let w = if seed < 6 {
                worl_dag::generators::gangs::assign(&w, 0.3, 2..=4, worl_dag::Span::Machine, seed)
                    .unwrap()
            } else {
                w
            };
            let mut spec =
                worl_cluster::ClusterSpec::new(machines, 4, &worl_cluster::GpuModel::v100_16gb());
            spec.inter = presets::link_by_name("1GbE").unwrap();
            let c = spec.build().unwrap();
            let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
            let extra = |gpu: GpuId| (gpu.index() % 3) as f64 * 0.25;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut s = PartialSchedule::new(&p);
            let mut index = GapIndex::new(&p);
            let mut done = vec![false; p.n_tasks()];
            for &v in p.graph().topo_order() {
                for u in p.graph().task_ids() {
                    let ready =
                        !done[u.index()] && p.graph().preds(u).iter().all(|e| done[e.task.index()]);
                    if !ready {
                        continue;
                    }
                    let got = index.best_slot(&s, u, policy, extra).unwrap();
                    if p.gpus(u) == 1 {
                        let mut want: Option<(Slot, f64)> = None;
                        for gpu in p.cluster().gpu_ids().filter(|&k| p.fits(u, k)) {
                            let slot = s.slot(u, gpu, policy).unwrap();
                            let key = slot.finish() + extra(gpu);
                            if want.is_none_or(|(_, b)| key < b) {
                                want = Some((slot, key));
                            }
                        }
                        assert_eq!(got, want.unwrap().0, "seed {seed}: {u:?}");
                        holding += usize::from(
                            p.graph()
                                .preds(u)
                                .iter()
                                .any(|e| s.gpu_of(e.task).is_some()),
                        );
                        singles += 1;
                        continue;
                    }
                    let mut want: Option<(Slot, f64)> = None;
                    let mut buffers = GangBuffers::default();
                    for m in (0..p.cluster().n_machines()).map(MachineId::new) {
                        let Some((lead, finish)) =
                            index.gang_candidate(&s, u, m, policy, &mut buffers, |_| true)
                        else {
                            continue;
                        };
                        let slot = s.slot(u, lead, policy).unwrap();
                        assert_eq!(
                            slot.finish().to_bits(),
                            finish.to_bits(),
                            "seed {seed}: {u:?}"
                        );
                        let set = s.best_set(u, lead, policy).unwrap();
                        assert!(set.iter().all(|&k| p.machine_of(k) == m), "{set:?}");
                        assert_eq!(set, buffers.set, "seed {seed}: {u:?}");
                        // the cutoff sees every common start tried, the last one included:
                        // a candidate comes back exactly when its finish passes it
                        let mut scratch = GangBuffers::default();
                        let cut = |c: &dyn Fn(f64) -> bool, b: &mut GangBuffers| {
                            index.gang_candidate(&s, u, m, policy, b, c)
                        };
                        assert_eq!(
                            cut(&|x| x <= finish, &mut scratch),
                            Some((lead, finish)),
                            "seed {seed}: {u:?}"
                        );
                        assert_eq!(
                            cut(&|x| x < finish, &mut scratch),
                            None,
                            "seed {seed}: {u:?}"
                        );
                        rounds += usize::from(buffers.start > buffers.from);
                        let key = finish + extra(lead);
                        if want.is_none_or(|(_, b)| key < b) {
                            want = Some((slot, key));
                        }
                    }
                    assert_eq!(got, want.unwrap().0, "seed {seed}: {u:?}");
                    gangs += 1;
                }
                // half the time the minimum (a gang's chosen set is committed as chosen),
                // else a random lead
                let slot = if rng.random_bool(0.5) {
                    index.best_slot(&s, v, policy, extra).unwrap()
                } else {
                    let leads: Vec<GpuId> = p
                        .cluster()
                        .gpu_ids()
                        .filter(|&k| p.can_lead(v, k))
                        .collect();
                    let k = leads[rng.random_range(0..leads.len())];
                    index.slot(&s, v, k, policy).unwrap()
                };
                index.commit(&mut s, slot).unwrap();
                assert_eq!(s.start(v), Some(slot.start()), "seed {seed}: {v:?}");
                done[v.index()] = true;
                for gpu in p.cluster().gpu_ids() {
                    assert_eq!(
                        index.longest_gap(gpu).to_bits(),
                        rescan(&s, gpu).to_bits(),
                        "seed {seed}: {v:?} {gpu:?}"
                    );
                }
            }
            assert_eq!(s.to_schedule().unwrap().validate(&p), vec![], "seed {seed}");
        }
        (singles, gangs, holding, rounds)
    }

    #[test]
    fn an_empty_gpu_has_no_gap() {
        let w = alibaba_like(&AlibabaLikeParams::new(1), 1).unwrap();
        let p = Problem::new(Arc::new(w), Arc::new(presets::pai_mix(2, 1).unwrap())).unwrap();
        let index = GapIndex::new(&p);
        assert_eq!(index.longest_gap(GpuId::new(1)), f64::NEG_INFINITY);
    }
}
