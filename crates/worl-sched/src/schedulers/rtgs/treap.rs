//! Per-class ordered sets of GPUs keyed by running time: an arena treap (Seidel & Aragon,
//! "Randomized search trees", Algorithmica 16, 1996) whose nodes are the GPUs themselves.
//!
//! Every GPU is one node (node index = GPU index) and belongs to at most one class; each class
//! is a treap ordered by `(key, gpu)` with fixed pseudo-random priorities (a hash of the GPU
//! index, so the shape, and every result, is deterministic). All arrays are sized `m` once:
//! updating a key and querying the nearest key allocate nothing. Expected depth
//! `O(log m_c)` for a class of `m_c` GPUs. Used for the large classes of
//! [`ClassIndex`](super::class_index::ClassIndex).

/// No node.
pub(crate) const NIL: u32 = u32::MAX;

/// The treaps of all GPU classes.
#[derive(Clone, Debug)]
pub(crate) struct ClassTreaps {
    /// Current key (running time, s) per GPU.
    key: Vec<f64>,
    left: Vec<u32>,
    right: Vec<u32>,
    /// Heap priority per GPU (max-heap), fixed.
    prio: Vec<u32>,
    /// Root per class.
    root: Vec<u32>,
    /// Class per GPU (`NIL` for GPUs in no treap).
    class_of: Vec<u32>,
}

/// SplitMix64 finaliser: a fixed, well-mixed priority per GPU index.
fn priority(g: usize) -> u32 {
    let mut z = (g as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

impl ClassTreaps {
    /// Treaps over `keys.len()` GPUs; `class_members[c]` lists the GPU indices of class `c`
    /// (every GPU in at most one class; an empty list gives an empty treap).
    pub(crate) fn new(keys: &[f64], class_members: &[Vec<usize>]) -> Self {
        let m = keys.len();
        let mut class_of = vec![NIL; m];
        for (c, members) in class_members.iter().enumerate() {
            for &g in members {
                class_of[g] = c as u32;
            }
        }
        let mut t = ClassTreaps {
            key: Vec::with_capacity(m),
            left: vec![NIL; m],
            right: vec![NIL; m],
            prio: (0..m).map(priority).collect(),
            root: vec![NIL; class_members.len()],
            class_of,
        };
        t.rebuild(keys);
        t
    }

    /// Rebuilds every treap with new keys (one per GPU), without allocating:
    /// `O(m log m)`.
    pub(crate) fn rebuild(&mut self, keys: &[f64]) {
        self.key.clear();
        self.key.extend_from_slice(keys);
        self.root.fill(NIL);
        for g in 0..keys.len() {
            let c = self.class_of[g];
            if c == NIL {
                continue;
            }
            let c = c as usize;
            let r = self.root[c];
            self.root[c] = self.insert(r, g as u32);
        }
    }

    #[inline]
    fn less(&self, a: u32, b: u32) -> bool {
        let (ka, kb) = (self.key[a as usize], self.key[b as usize]);
        ka < kb || (ka == kb && a < b)
    }

    /// Splits treap `t` into nodes ordered before `x` and the others (`x` itself, if present,
    /// goes right).
    fn split(&mut self, t: u32, x: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        let ti = t as usize;
        if self.less(t, x) {
            let (l, r) = self.split(self.right[ti], x);
            self.right[ti] = l;
            (t, r)
        } else {
            let (l, r) = self.split(self.left[ti], x);
            self.left[ti] = r;
            (l, t)
        }
    }

    /// Joins two treaps whose every node of `a` is ordered before every node of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.prio[a as usize] >= self.prio[b as usize] {
            let r = self.merge(self.right[a as usize], b);
            self.right[a as usize] = r;
            a
        } else {
            let l = self.merge(a, self.left[b as usize]);
            self.left[b as usize] = l;
            b
        }
    }

    /// Inserts node `x` (not in any treap, children cleared here) into treap `t`.
    fn insert(&mut self, t: u32, x: u32) -> u32 {
        self.left[x as usize] = NIL;
        self.right[x as usize] = NIL;
        let (l, r) = self.split(t, x);
        let lx = self.merge(l, x);
        self.merge(lx, r)
    }

    /// Removes node `x` from treap `t` (it must be there).
    fn erase(&mut self, t: u32, x: u32) -> u32 {
        if t == x {
            return self.merge(self.left[t as usize], self.right[t as usize]);
        }
        let ti = t as usize;
        if self.less(x, t) {
            let l = self.erase(self.left[ti], x);
            self.left[ti] = l;
        } else {
            let r = self.erase(self.right[ti], x);
            self.right[ti] = r;
        }
        t
    }

    /// Adds `delta` to the key of GPU `g` of class `class`, keeping the order.
    ///
    /// One descent finds `g` and its in-order neighbours; when the new key stays between
    /// them (the common case: running times change by one task's execution time) it is set
    /// in place, else `g` is removed and re-inserted.
    pub(crate) fn add_to_key(&mut self, class: usize, g: usize, delta: f64) {
        let x = g as u32;
        let (mut pred, mut succ) = (NIL, NIL);
        let mut t = self.root[class];
        while t != x {
            debug_assert!(t != NIL, "GPU {g} is not in class {class}");
            if self.less(x, t) {
                succ = t;
                t = self.left[t as usize];
            } else {
                pred = t;
                t = self.right[t as usize];
            }
        }
        let mut l = self.left[g];
        while l != NIL {
            pred = l;
            l = self.right[l as usize];
        }
        let mut r = self.right[g];
        while r != NIL {
            succ = r;
            r = self.left[r as usize];
        }
        let key = self.key[g] + delta;
        let after_pred = pred == NIL || {
            let kp = self.key[pred as usize];
            kp < key || (kp == key && pred < x)
        };
        let before_succ = succ == NIL || {
            let ks = self.key[succ as usize];
            key < ks || (key == ks && x < succ)
        };
        if after_pred && before_succ {
            self.key[g] = key;
            return;
        }
        let root = self.erase(self.root[class], x);
        self.key[g] = key;
        self.root[class] = self.insert(root, x);
    }

    /// The GPU of class `class` whose key is nearest `q`: minimum `|q − key|`, ties broken by
    /// the smallest GPU index. Returns `(distance, gpu)`, or `None` for an empty class.
    ///
    /// One descent finds the largest key `<= q` and the smallest key `> q`; a second one,
    /// only when the former wins, finds the smallest GPU index holding that key.
    #[inline]
    pub(crate) fn nearest(&self, class: usize, q: f64) -> Option<(f64, usize)> {
        let mut t = self.root[class];
        let (mut below, mut above) = (NIL, NIL);
        while t != NIL {
            let ti = t as usize;
            if self.key[ti] <= q {
                below = t;
                t = self.right[ti];
            } else {
                above = t;
                t = self.left[ti];
            }
        }
        let d_above = if above == NIL {
            f64::INFINITY
        } else {
            self.key[above as usize] - q
        };
        if below == NIL {
            return (above != NIL).then_some((d_above, above as usize));
        }
        let kb = self.key[below as usize];
        let d_below = q - kb;
        // `below` is the largest index among the GPUs with key `kb`: find the smallest.
        let mut first = below;
        let mut t = self.root[class];
        while t != NIL {
            let ti = t as usize;
            if self.key[ti] >= kb {
                if self.key[ti] == kb {
                    first = t;
                }
                t = self.left[ti];
            } else {
                t = self.right[ti];
            }
        }
        let (first, above) = (first as usize, above as usize);
        if d_below < d_above || (d_below == d_above && first < above) {
            Some((d_below, first))
        } else {
            Some((d_above, above))
        }
    }

    /// The last node of class `class` ordered at or below key `q` (largest `(key, gpu)`
    /// with `key <= q`), or `NIL`.
    fn last_at_or_below(&self, class: usize, q: f64) -> u32 {
        let (mut t, mut found) = (self.root[class], NIL);
        while t != NIL {
            let ti = t as usize;
            if self.key[ti] <= q {
                found = t;
                t = self.right[ti];
            } else {
                t = self.left[ti];
            }
        }
        found
    }

    /// The in-order predecessor (`up = false`) or successor (`up = true`) of node `x` in the
    /// treap of class `class`, or `NIL`: one descent from the root.
    fn step(&self, class: usize, x: u32, up: bool) -> u32 {
        let (mut t, mut found) = (self.root[class], NIL);
        while t != NIL {
            let ti = t as usize;
            if up {
                if self.less(x, t) {
                    found = t;
                    t = self.left[ti];
                } else {
                    t = self.right[ti];
                }
            } else if self.less(t, x) {
                found = t;
                t = self.right[ti];
            } else {
                t = self.left[ti];
            }
        }
        found
    }

    /// Calls `f(gpu, |q − key|)` for the GPUs of class `class` nearest `q`, nearest first,
    /// as long as `|q − key| <= limit`, at most `cap` of them: the order of
    /// [`ClassIndex::for_each_nearest`](super::class_index::ClassIndex::for_each_nearest).
    /// `O(cap · log m_c)` expected, no allocation.
    pub(crate) fn for_each_nearest(
        &self,
        class: usize,
        q: f64,
        limit: f64,
        cap: usize,
        f: &mut impl FnMut(usize, f64),
    ) {
        let mut down = self.last_at_or_below(class, q);
        let mut up = if down == NIL {
            // Every key is above `q`: start from the first node.
            let mut t = self.root[class];
            let mut first = NIL;
            while t != NIL {
                first = t;
                t = self.left[t as usize];
            }
            first
        } else {
            self.step(class, down, true)
        };
        for _ in 0..cap {
            let d = if down == NIL {
                f64::INFINITY
            } else {
                q - self.key[down as usize]
            };
            let u = if up == NIL {
                f64::INFINITY
            } else {
                self.key[up as usize] - q
            };
            // An exhausted side is never taken, even when the other side's distance is
            // infinite too (keys or `q` of `±∞`).
            if down != NIL && d <= u && d <= limit {
                f(down as usize, d);
                down = self.step(class, down, false);
            } else if up != NIL && (u < d || down == NIL) && u <= limit {
                f(up as usize, u);
                up = self.step(class, up, true);
            } else {
                break;
            }
        }
    }

    /// In-order GPU indices of class `class` (tests).
    #[cfg(test)]
    fn in_order(&self, class: usize) -> Vec<usize> {
        fn walk(t: &ClassTreaps, n: u32, out: &mut Vec<usize>) {
            if n != NIL {
                walk(t, t.left[n as usize], out);
                out.push(n as usize);
                walk(t, t.right[n as usize], out);
            }
        }
        let mut out = Vec::new();
        walk(self, self.root[class], &mut out);
        out
    }
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
        // class 0: GPUs 0, 2, 3, 5 at keys 1, 1, 3, 3; class 1: GPU 1 and 4.
        let keys = [1.0, 0.0, 1.0, 3.0, 10.0, 3.0];
        let t = ClassTreaps::new(&keys, &[vec![0, 2, 3, 5], vec![1, 4]]);
        assert_eq!(t.in_order(0), vec![0, 2, 3, 5]);
        assert_eq!(t.nearest(0, 1.5), Some((0.5, 0)));
        assert_eq!(t.nearest(0, 2.5), Some((0.5, 3)));
        assert_eq!(t.nearest(0, 2.0), Some((1.0, 0))); // equal distance: GPU 0 < GPU 3
        assert_eq!(t.nearest(0, -4.0), Some((5.0, 0)));
        assert_eq!(t.nearest(0, 40.0), Some((37.0, 3)));
        assert_eq!(t.nearest(1, 6.0), Some((4.0, 4)));
    }

    #[test]
    fn random_updates_keep_order_and_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let m = 40;
        let members: Vec<Vec<usize>> = vec![
            (0..m).filter(|g| g % 3 != 0).collect(),
            (0..m).filter(|g| g % 3 == 0).collect(),
        ];
        // Integer-valued keys make ties frequent.
        let mut keys: Vec<f64> = (0..m).map(|_| rng.random_range(0..4) as f64).collect();
        let mut t = ClassTreaps::new(&keys, &members);
        for _ in 0..3000 {
            let c = rng.random_range(0..2);
            let q = rng.random_range(-2.0..60.0f64).round();
            let (d, g) = t.nearest(c, q).unwrap();
            assert_eq!(Some((d, g)), brute(&keys, &members[c], q));
            let delta = rng.random_range(0..3) as f64;
            t.add_to_key(c, g, delta);
            keys[g] += delta;
            let order = t.in_order(c);
            let mut sorted = members[c].clone();
            sorted.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]).then(a.cmp(&b)));
            assert_eq!(order, sorted);
        }
    }
}
