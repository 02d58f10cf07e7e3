//! EFT queries and minimum-EFT processor selection with a per-GPU index of idle gaps.

use super::fits_no_gpu;
use super::gap_tree::GapTree;
use crate::error::Result;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Slot};
use worl_dag::TaskId;

/// No task.
const NONE: u32 = u32::MAX;

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
/// nodes allocated once); committing a gang rebuilds the index of its GPUs
/// ([`refresh`](Self::refresh), `O(t log t)` each), so queries for single-GPU tasks keep
/// using the index. Without gang tasks none of this runs.
///
/// Results are identical to [`PartialSchedule::slot`]'s, bit for bit: the index only
/// proposes candidate gaps (with a margin of `1e-12 · (1 + latest finish)` s on their
/// lengths, so that rounding never hides a gap that fits), and each candidate is accepted by
/// the walk's own comparison.
///
/// Use one index per [`PartialSchedule`] and place through [`commit`](Self::commit) (or call
/// [`refresh`](Self::refresh) after placing otherwise), so that the index follows the
/// timelines; a placement costs `O(log t)` expected. Memory `O(n + m)`, allocated once;
/// queries and updates allocate nothing.
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
    ///
    /// Errors: as [`PartialSchedule::commit`].
    pub fn commit(&mut self, partial: &mut PartialSchedule<'_>, slot: Slot) -> Result<()> {
        partial.commit(slot)?;
        let (t, k) = (slot.task().index(), slot.gpu().index());
        let (start, finish) = (slot.start(), slot.finish());
        let next = partial.next_on_gpu(slot.task());
        if self.gangs {
            if let Some(set) = partial.gang_set(slot.task()) {
                // a gang: number its extra nodes, rebuild the index of every GPU of its set
                let set = set.to_vec();
                self.extra_base[t] = (self.n + self.extra_task.len()) as u32;
                self.extra_task
                    .extend(std::iter::repeat_n(t as u32, set.len() - 1));
                for gpu in set {
                    self.refresh(partial, gpu);
                }
                return Ok(());
            }
            if next.is_some_and(|x| x.index() >= self.n) {
                // inserted before a gang's extra node (the partial's own numbering):
                // rebuild this GPU
                self.refresh(partial, slot.gpu());
                return Ok(());
            }
        }
        match next {
            // Appended: one new gap, after the latest finish so far.
            None => {
                let before = self.latest[k];
                self.before[t] = before;
                self.prev[t] = self.last[k];
                self.last[k] = t as u32;
                self.tree.insert(k, t, start, start - before, None);
                self.latest[k] = before.max(finish);
            }
            // Inserted before `next`: the gap before `next` splits in two.
            Some(next) => {
                let next = next.index();
                let before = self.before[next];
                self.before[t] = before;
                self.prev[t] = self.prev[next];
                self.prev[next] = t as u32;
                self.tree.insert(k, t, start, start - before, Some(next));
                let after = before.max(finish);
                self.before[next] = after;
                self.tree.set_gap(next, self.tree.start(next) - after);
                self.latest[k] = self.latest[k].max(finish);
            }
        }
        Ok(())
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
    /// it, under `policy`; ties go to the smaller GPU id. A gang task (`g > 1` GPUs) is
    /// tried on every GPU that can lead its set ([`Problem::can_lead`]); its slot's finish
    /// is the common finish of the set chosen around that lead, so the choice is the lead
    /// (and set) of earliest common finish; `extra` is taken at the lead. With `extra = 0` this is HEFT's
    /// processor selection (minimum EFT, Topcuoglu et al. 2002, §4.1); with PEFT's
    /// optimistic cost it is O_EFT (Arabnejad and Barbosa 2014, §3).
    ///
    /// `O(m · |preds(task)|)` plus the gap searches the index cannot rule out; allocates
    /// nothing.
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
    fn an_empty_gpu_has_no_gap() {
        let w = alibaba_like(&AlibabaLikeParams::new(1), 1).unwrap();
        let p = Problem::new(Arc::new(w), Arc::new(presets::pai_mix(2, 1).unwrap())).unwrap();
        let index = GapIndex::new(&p);
        assert_eq!(index.longest_gap(GpuId::new(1)), f64::NEG_INFINITY);
    }
}
