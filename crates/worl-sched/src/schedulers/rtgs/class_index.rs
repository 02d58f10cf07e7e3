//! Per-class ordered sets of GPUs keyed by running time, answering the greedy decoder's
//! "nearest key" queries: a sorted array for each class of at most [`SMALL_CLASS`] GPUs, an
//! arena treap ([`ClassTreaps`]) for larger classes.
//!
//! Both order a class by `(key, gpu)` and answer [`ClassIndex::nearest`] with
//! `O(log m_c)` comparisons. A key change costs `O(log m_c)` in a treap; in a sorted array
//! it is one insertion-sort step costing the number of entries the GPU passes, at most
//! `SMALL_CLASS − 1` (a bounded constant) and typically 0–2, since running times change by
//! one task's execution time. The arrays are several times faster than the treap for the
//! class sizes of real clusters (tens to hundreds of GPUs). Nothing allocates after
//! construction.

use super::treap::ClassTreaps;

/// Classes up to this many GPUs are sorted arrays; larger ones treaps.
pub(crate) const SMALL_CLASS: usize = 256;

/// `(key, gpu)` entries of a sorted-array class.
type Entry = (f64, u32);

#[inline]
fn before(a: Entry, b: Entry) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// The ordered sets of all classes.
#[derive(Clone, Debug)]
pub(crate) struct ClassIndex {
    /// Per class: its range in `entries` (sorted-array classes) or `None` (treap classes).
    range: Vec<Option<(usize, usize)>>,
    /// Members per class, in id order (used to rebuild the arrays).
    members: Vec<Vec<usize>>,
    /// Sorted entries of the array classes, each class one contiguous range.
    entries: Vec<Entry>,
    /// Position in `entries` per GPU of an array class.
    pos: Vec<u32>,
    treaps: ClassTreaps,
}

impl ClassIndex {
    /// The sets of `members.len()` classes over `keys.len()` GPUs with initial `keys`;
    /// classes larger than `small_class` GPUs are treaps.
    pub(crate) fn new(keys: &[f64], members: &[Vec<usize>], small_class: usize) -> Self {
        let mut range = Vec::with_capacity(members.len());
        let mut start = 0;
        let mut large = Vec::with_capacity(members.len());
        for gpus in members {
            if gpus.len() <= small_class {
                range.push(Some((start, start + gpus.len())));
                start += gpus.len();
                large.push(Vec::new());
            } else {
                range.push(None);
                large.push(gpus.clone());
            }
        }
        let mut index = ClassIndex {
            range,
            members: members.to_vec(),
            entries: vec![(0.0, 0); start],
            pos: vec![0; keys.len()],
            treaps: ClassTreaps::new(keys, &large),
        };
        index.rebuild(keys);
        index
    }

    /// Sets every GPU's key: `O(m log m)`, no allocation.
    pub(crate) fn rebuild(&mut self, keys: &[f64]) {
        for (c, r) in self.range.iter().enumerate() {
            if let Some((a, b)) = *r {
                let slice = &mut self.entries[a..b];
                for (e, &g) in slice.iter_mut().zip(&self.members[c]) {
                    *e = (keys[g], g as u32);
                }
                slice.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
                for (i, e) in slice.iter().enumerate() {
                    self.pos[e.1 as usize] = (a + i) as u32;
                }
            }
        }
        self.treaps.rebuild(keys);
    }

    /// Adds `delta` to the key of GPU `g` of class `class`, keeping the order.
    #[inline]
    pub(crate) fn add_to_key(&mut self, class: usize, g: usize, delta: f64) {
        let Some((a, b)) = self.range[class] else {
            self.treaps.add_to_key(class, g, delta);
            return;
        };
        let mut p = self.pos[g] as usize;
        debug_assert_eq!(self.entries[p].1 as usize, g);
        let new = (self.entries[p].0 + delta, g as u32);
        let e = &mut self.entries;
        if delta > 0.0 {
            while p + 1 < b && before(e[p + 1], new) {
                e[p] = e[p + 1];
                self.pos[e[p].1 as usize] = p as u32;
                p += 1;
            }
        } else {
            while p > a && before(new, e[p - 1]) {
                e[p] = e[p - 1];
                self.pos[e[p].1 as usize] = p as u32;
                p -= 1;
            }
        }
        e[p] = new;
        self.pos[g] = p as u32;
    }

    /// The GPU of class `class` whose key is nearest `q`: minimum `|q − key|`, ties broken
    /// by the smallest GPU index. Returns `(distance, gpu)`, or `None` for an empty class.
    #[cfg(test)]
    pub(crate) fn nearest(&self, class: usize, q: f64) -> Option<(f64, usize)> {
        self.nearest_with_hint(class, q).map(|(d, g, _)| (d, g))
    }

    /// As [`nearest`](Self::nearest), plus a hint for
    /// [`for_each_within`](Self::for_each_within) with the same `q`: where `q` falls in the
    /// class's order.
    #[inline]
    pub(crate) fn nearest_with_hint(&self, class: usize, q: f64) -> Option<(f64, usize, usize)> {
        let Some((a, b)) = self.range[class] else {
            return self.treaps.nearest(class, q).map(|(d, g)| (d, g, 0));
        };
        let slice = &self.entries[a..b];
        let i = slice.partition_point(|e| e.0 <= q);
        let above = slice.get(i).map(|e| (e.0 - q, e.1 as usize, i));
        if i == 0 {
            return above;
        }
        let kb = slice[i - 1].0;
        // The smallest GPU index among those with key `kb` (searched only if there are
        // several).
        let first = if i >= 2 && slice[i - 2].0 == kb {
            slice[..i].partition_point(|e| e.0 < kb)
        } else {
            i - 1
        };
        let below = (q - kb, slice[first].1 as usize, i);
        match above {
            Some(up) if up.0 < below.0 || (up.0 == below.0 && up.1 < below.1) => Some(up),
            _ => Some(below),
        }
    }
}

impl ClassIndex {
    /// Calls `f(gpu, |q − key|)` for the GPUs of class `class` nearest `q`, as long as
    /// `|q − key| <= limit` (evaluated exactly so), at most `cap` of them. `hint` is the
    /// third value of [`nearest_with_hint`](Self::nearest_with_hint) for the same class, `q`
    /// and keys.
    ///
    /// Order (the same in both representations): walk down from the largest `(key, gpu)`
    /// with `key <= q` and up from the smallest with `key > q`, each step taking the side
    /// whose next key is nearer (the lower side on equal distances). `O(cap)` in a sorted
    /// array, `O(cap · log m_c)` in a treap.
    #[inline]
    pub(crate) fn for_each_nearest(
        &self,
        class: usize,
        q: f64,
        limit: f64,
        cap: usize,
        hint: usize,
        mut f: impl FnMut(usize, f64),
    ) {
        let Some((a, b)) = self.range[class] else {
            self.treaps.for_each_nearest(class, q, limit, cap, &mut f);
            return;
        };
        let slice = &self.entries[a..b];
        debug_assert_eq!(hint, slice.partition_point(|e| e.0 <= q));
        let (mut down, mut up) = (hint, hint);
        for _ in 0..cap {
            let d = if down > 0 {
                q - slice[down - 1].0
            } else {
                f64::INFINITY
            };
            let u = if up < slice.len() {
                slice[up].0 - q
            } else {
                f64::INFINITY
            };
            // An exhausted side is never taken, even when the other side's distance is
            // infinite too (keys or `q` of `±∞`).
            if down > 0 && d <= u && d <= limit {
                down -= 1;
                f(slice[down].1 as usize, d);
            } else if up < slice.len() && (u < d || down == 0) && u <= limit {
                f(slice[up].1 as usize, u);
                up += 1;
            } else {
                break;
            }
        }
    }
}

/// The GPUs of `members` (keys `keys`) that [`ClassIndex::for_each_nearest`] visits, in
/// its order, by brute force (tests).
#[cfg(test)]
pub(crate) fn nearest_brute(
    keys: &[f64],
    members: &[usize],
    q: f64,
    limit: f64,
    cap: usize,
) -> Vec<(usize, f64)> {
    let mut sorted = members.to_vec();
    sorted.sort_by(|&x, &y| keys[x].total_cmp(&keys[y]).then(x.cmp(&y)));
    let hint = sorted.partition_point(|&g| keys[g] <= q);
    let (mut down, mut up, mut out) = (hint, hint, Vec::new());
    while out.len() < cap {
        let d = if down > 0 {
            q - keys[sorted[down - 1]]
        } else {
            f64::INFINITY
        };
        let u = if up < sorted.len() {
            keys[sorted[up]] - q
        } else {
            f64::INFINITY
        };
        if down > 0 && d <= u && d <= limit {
            down -= 1;
            out.push((sorted[down], d));
        } else if up < sorted.len() && (u < d || down == 0) && u <= limit {
            out.push((sorted[up], u));
            up += 1;
        } else {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The nearest key by brute force: min `(|q − key|, gpu)`.
    fn brute(keys: &[f64], members: &[usize], q: f64) -> Option<(f64, usize)> {
        members
            .iter()
            .map(|&g| ((q - keys[g]).abs(), g))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
    }

    #[test]
    fn nearest_breaks_ties_by_the_smallest_gpu_on_both_sides() {
        // class 0: GPUs 0, 2, 3, 5 at keys 1, 1, 3, 3; class 1: GPUs 1 and 4.
        let keys = [1.0, 0.0, 1.0, 3.0, 10.0, 3.0];
        let members = [vec![0, 2, 3, 5], vec![1, 4]];
        for small in [0, SMALL_CLASS] {
            let t = ClassIndex::new(&keys, &members, small);
            assert_eq!(t.nearest(0, 1.5), Some((0.5, 0)));
            assert_eq!(t.nearest(0, 2.5), Some((0.5, 3)));
            assert_eq!(t.nearest(0, 2.0), Some((1.0, 0))); // equal distance: GPU 0 < GPU 3
            assert_eq!(t.nearest(0, -4.0), Some((5.0, 0)));
            assert_eq!(t.nearest(0, 40.0), Some((37.0, 3)));
            assert_eq!(t.nearest(1, 6.0), Some((4.0, 4)));
        }
    }

    /// Random key changes on sorted arrays and treaps (and a mix) agree with brute force, for
    /// the nearest key and for the capped nearest-first enumeration.
    #[test]
    fn random_updates_match_brute_force_in_both_representations() {
        let m = 40;
        let members: Vec<Vec<usize>> = vec![
            (0..m).filter(|g| g % 3 != 0).collect(),
            (0..m).filter(|g| g % 3 == 0).collect(),
        ];
        for small in [0, 20, SMALL_CLASS] {
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            // Integer-valued keys make ties frequent.
            let mut keys: Vec<f64> = (0..m).map(|_| rng.random_range(0..4) as f64).collect();
            let mut t = ClassIndex::new(&keys, &members, small);
            for step in 0..3000 {
                let c = rng.random_range(0..2);
                let q = rng.random_range(-2.0..60.0f64).round();
                let (d, g) = t.nearest(c, q).unwrap();
                assert_eq!(Some((d, g)), brute(&keys, &members[c], q), "step {step}");
                let (_, _, hint) = t.nearest_with_hint(c, q).unwrap();
                let limit = d + rng.random_range(0..3) as f64;
                let cap = rng.random_range(1..8);
                let mut got = Vec::new();
                t.for_each_nearest(c, q, limit, cap, hint, |g, gap| got.push((g, gap)));
                assert_eq!(
                    got,
                    nearest_brute(&keys, &members[c], q, limit, cap),
                    "step {step}"
                );
                assert_eq!(got[0].1, d, "step {step}: the nearest comes first");
                let delta = rng.random_range(-2..3) as f64;
                t.add_to_key(c, g, delta);
                keys[g] += delta;
                if step % 500 == 0 {
                    t.rebuild(&keys);
                }
            }
        }
    }
}
