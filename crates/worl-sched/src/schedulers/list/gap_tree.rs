//! The idle gaps of every GPU's timeline in timeline order, for finding the first gap that
//! can hold a task in `O(log t)` instead of a walk of the timeline: an arena treap (Seidel
//! and Aragon, "Randomized search trees", Algorithmica 16, 1996) per GPU whose nodes are the
//! placed tasks, in timeline order, each carrying the idle gap before it, with the longest
//! gap of every subtree.
//!
//! A node is a task (node index = task index, so the arrays are sized once). The in-order
//! sequence of GPU `k`'s tree is its timeline; nodes are inserted next to a neighbour (the
//! task they precede, or at the end), never by key, so ties between equal start times
//! (zero-length tasks) keep the timeline's order. Priorities are a fixed hash of the task
//! index: the shape, and every result, is deterministic.

/// No node.
const NIL: u32 = u32::MAX;

/// Pending nodes [`GapTree::first_in`] keeps without recursing (a treap's expected depth is
/// about `2 ln t`, so deeper searches are rare).
const STACK: usize = 48;

/// SplitMix64 finaliser: a fixed, well-mixed priority per task index.
fn priority(t: usize) -> u32 {
    let mut z = (t as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// The treaps of all GPUs (see the [module docs](self)).
#[derive(Clone, Debug)]
pub(crate) struct GapTree {
    /// The nodes, one per task (fields side by side, 32 bytes aligned: a search touches
    /// one cache line per node).
    nodes: Vec<Node>,
    /// Parent per node (`NIL`: a root), apart from the nodes, which the searches read far
    /// more often.
    parent: Vec<u32>,
    /// Root per GPU.
    root: Vec<u32>,
}

/// A node of a [`GapTree`]: a placed task.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Node {
    /// Start time of the task, s.
    start: f64,
    /// The idle gap before the task (its start minus the latest finish before it), s.
    gap: f64,
    /// The longest gap of the node's subtree, s.
    max_gap: f64,
    left: u32,
    right: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl GapTree {
    /// Empty trees for `n` tasks on `m` GPUs.
    pub(crate) fn new(n: usize, m: usize) -> Self {
        let node = Node {
            left: NIL,
            right: NIL,
            start: 0.0,
            gap: f64::NEG_INFINITY,
            max_gap: f64::NEG_INFINITY,
        };
        Self {
            nodes: vec![node; n],
            parent: vec![NIL; n],
            root: vec![NIL; m],
        }
    }

    /// Empties GPU `k`'s tree (its nodes are left detached; re-insert them).
    pub(crate) fn clear(&mut self, k: usize) {
        self.root[k] = NIL;
    }

    fn pull(&mut self, x: u32) {
        let x = x as usize;
        let mut m = self.nodes[x].gap;
        for c in [self.nodes[x].left, self.nodes[x].right] {
            if c != NIL && self.nodes[c as usize].max_gap > m {
                m = self.nodes[c as usize].max_gap;
            }
        }
        self.nodes[x].max_gap = m;
    }

    /// Recomputes the subtree maxima from `x` up to the root.
    fn pull_up(&mut self, mut x: u32) {
        while x != NIL {
            self.pull(x);
            x = self.parent[x as usize];
        }
    }

    /// Replaces child `old` of `p` (or the root of GPU `k` when `p` is NIL) by `new`.
    fn replace_child(&mut self, k: usize, p: u32, old: u32, new: u32) {
        if p == NIL {
            self.root[k] = new;
        } else if self.nodes[p as usize].left == old {
            self.nodes[p as usize].left = new;
        } else {
            self.nodes[p as usize].right = new;
        }
        if new != NIL {
            self.parent[new as usize] = p;
        }
    }

    /// Rotates `x` above its parent.
    fn rotate_up(&mut self, k: usize, x: u32) {
        let p = self.parent[x as usize];
        let g = self.parent[p as usize];
        if self.nodes[p as usize].left == x {
            let b = self.nodes[x as usize].right;
            self.nodes[p as usize].left = b;
            if b != NIL {
                self.parent[b as usize] = p;
            }
            self.nodes[x as usize].right = p;
        } else {
            let b = self.nodes[x as usize].left;
            self.nodes[p as usize].right = b;
            if b != NIL {
                self.parent[b as usize] = p;
            }
            self.nodes[x as usize].left = p;
        }
        self.parent[p as usize] = x;
        self.replace_child(k, g, p, x);
        self.pull(p);
        self.pull(x);
    }

    /// Inserts task `t` (start `start`, gap before it `gap`) into GPU `k`'s timeline right
    /// before task `next`, or at the end (`None`).
    pub(crate) fn insert(&mut self, k: usize, t: usize, start: f64, gap: f64, next: Option<usize>) {
        let x = t as u32;
        self.nodes[t].left = NIL;
        self.nodes[t].right = NIL;
        self.nodes[t].start = start;
        self.nodes[t].gap = gap;
        self.nodes[t].max_gap = gap;
        // Attach as the in-order predecessor of `next` (or the last node).
        let (p, as_left) = match next {
            Some(n) if self.nodes[n].left == NIL => (n as u32, true),
            Some(n) => (self.rightmost(self.nodes[n].left), false),
            None if self.root[k] == NIL => (NIL, false),
            None => (self.rightmost(self.root[k]), false),
        };
        self.parent[t] = p;
        if p == NIL {
            self.root[k] = x;
        } else if as_left {
            self.nodes[p as usize].left = x;
        } else {
            self.nodes[p as usize].right = x;
        }
        while self.parent[t] != NIL && priority(t) > priority(self.parent[t] as usize) {
            self.rotate_up(k, x);
        }
        self.pull_up(x);
    }

    fn rightmost(&self, mut x: u32) -> u32 {
        while self.nodes[x as usize].right != NIL {
            x = self.nodes[x as usize].right;
        }
        x
    }

    /// The longest gap of GPU `k`, s (`-inf` without tasks).
    pub(crate) fn longest(&self, k: usize) -> f64 {
        match self.root[k] {
            NIL => f64::NEG_INFINITY,
            r => self.nodes[r as usize].max_gap,
        }
    }

    /// The start of task `t` as inserted, s.
    pub(crate) fn start(&self, t: usize) -> f64 {
        self.nodes[t].start
    }

    /// Sets the gap before task `t` (placed on some GPU's tree).
    pub(crate) fn set_gap(&mut self, t: usize, gap: f64) {
        self.nodes[t].gap = gap;
        self.pull_up(t as u32);
    }

    /// The first task of GPU `k`'s timeline that starts at or after `at` and has a gap of at
    /// least `min_gap` before it: `O(log t)` expected.
    pub(crate) fn first_from(&self, k: usize, at: f64, min_gap: f64) -> Option<usize> {
        self.first_in(self.root[k], at, min_gap)
    }

    /// The first node of `x`'s subtree in timeline order that starts at or after `at` and
    /// has a gap of at least `min_gap`: exactly [`first_in_rec`](Self::first_in_rec)'s
    /// answer, without its recursion.
    ///
    /// The in-order search of the recursion with an explicit stack of the pending nodes
    /// (those passed on the way left, with their own gap and right subtree still to try):
    /// descend towards `at`, skipping subtrees whose longest gap is shorter than `min_gap`;
    /// then take the latest pending node, which answers if its own gap is long enough, or
    /// else descend into its right subtree the same way. Since starts are non-decreasing,
    /// the first pending node whose gap or right subtree's longest gap is long enough
    /// answers, so a search visits `O(depth)` nodes. Pending nodes are at most the depth
    /// of the tree; past [`STACK`] of them the recursion finishes the subtree.
    fn first_in(&self, x: u32, at: f64, min_gap: f64) -> Option<usize> {
        self.first_in_with::<STACK>(x, at, min_gap)
    }

    /// [`first_in`](Self::first_in) with room for `N` pending nodes.
    fn first_in_with<const N: usize>(&self, mut x: u32, at: f64, min_gap: f64) -> Option<usize> {
        let nodes = &self.nodes[..];
        let mut stack = [0u32; N];
        let mut len = 0;
        loop {
            // Descend towards `at`, keeping the nodes passed on the way left.
            while x != NIL {
                let n = &nodes[x as usize];
                if n.max_gap < min_gap {
                    break;
                }
                if n.start < at {
                    // `x` and its left subtree start before `at`.
                    x = n.right;
                } else if len < N {
                    stack[len] = x;
                    len += 1;
                    x = n.left;
                } else {
                    if let Some(y) = self.first_in_rec(x, at, min_gap) {
                        return Some(y);
                    }
                    break;
                }
            }
            // The latest pending node, then its right subtree.
            if len == 0 {
                return None;
            }
            len -= 1;
            let p = stack[len];
            let n = &nodes[p as usize];
            if n.gap >= min_gap {
                return Some(p as usize);
            }
            x = n.right;
        }
    }

    /// [`first_in`](Self::first_in) as a recursion (for subtrees deeper than its stack).
    fn first_in_rec(&self, x: u32, at: f64, min_gap: f64) -> Option<usize> {
        if x == NIL || self.nodes[x as usize].max_gap < min_gap {
            return None;
        }
        let i = x as usize;
        if self.nodes[i].start < at {
            // `x` and its left subtree start before `at` (starts are non-decreasing).
            return self.first_in_rec(self.nodes[i].right, at, min_gap);
        }
        self.first_in_rec(self.nodes[i].left, at, min_gap)
            .or_else(|| (self.nodes[i].gap >= min_gap).then_some(i))
            .or_else(|| self.first_in_rec(self.nodes[i].right, at, min_gap))
    }

    /// The first node of `root`'s subtree in timeline order with a gap of at least
    /// `min_gap` ([`first_in`](Self::first_in) with `at = -inf`): one descent, `O(depth)`. The
    /// subtree's longest gap is its root's gap or a child's longest gap, so below a subtree
    /// whose longest gap is long enough, the left subtree (if long enough), else the node
    /// itself, else the right subtree answers. A dead end (possible only where a gap is
    /// NaN) hands the subtree to [`first_in`](Self::first_in), so the answer is its own.
    fn first_leftmost(&self, root: u32, min_gap: f64) -> Option<usize> {
        let nodes = &self.nodes[..];
        if root == NIL || nodes[root as usize].max_gap < min_gap {
            return None;
        }
        let mut x = root;
        loop {
            let n = &nodes[x as usize];
            let l = n.left;
            // the recursion's test: a subtree is skipped when its longest gap is shorter
            let skip_left = l == NIL || nodes[l as usize].max_gap < min_gap;
            if !skip_left {
                x = l;
            } else if n.gap >= min_gap {
                return Some(x as usize);
            } else {
                let r = n.right;
                if r == NIL || nodes[r as usize].max_gap < min_gap {
                    return self.first_in(root, f64::NEG_INFINITY, min_gap);
                }
                x = r;
            }
        }
    }

    /// The first task after task `t` on its timeline with a gap of at least `min_gap`:
    /// `O(log t)` expected.
    pub(crate) fn first_after(&self, t: usize, min_gap: f64) -> Option<usize> {
        if let Some(y) = self.first_leftmost(self.nodes[t].right, min_gap) {
            return Some(y);
        }
        let mut x = t as u32;
        loop {
            let p = self.parent[x as usize];
            if p == NIL {
                return None;
            }
            let n = &self.nodes[p as usize];
            if n.left == x {
                if n.gap >= min_gap {
                    return Some(p as usize);
                }
                if let Some(y) = self.first_leftmost(n.right, min_gap) {
                    return Some(y);
                }
            }
            x = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn in_order(t: &GapTree, k: usize) -> Vec<usize> {
        fn walk(t: &GapTree, x: u32, out: &mut Vec<usize>) {
            if x != NIL {
                walk(t, t.nodes[x as usize].left, out);
                out.push(x as usize);
                walk(t, t.nodes[x as usize].right, out);
            }
        }
        let mut out = Vec::new();
        walk(t, t.root[k], &mut out);
        out
    }

    #[test]
    fn random_insertions_keep_timeline_order_and_answer_like_a_scan() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 400;
        let mut tree = GapTree::new(n, 2);
        // the timeline of GPU 1 as a list of (task, start, gap); starts non-decreasing
        let mut line: Vec<(usize, f64, f64)> = Vec::new();
        for t in 0..n {
            let pos = rng.random_range(0..=line.len());
            let start = if line.is_empty() {
                0.0
            } else if pos == line.len() {
                line[pos - 1].1 + rng.random_range(0..3) as f64
            } else {
                line[pos].1 // a tie with the next start: order must follow the timeline
            };
            let gap = rng.random_range(0..10) as f64;
            let next = line.get(pos).map(|e| e.0);
            tree.insert(1, t, start, gap, next);
            line.insert(pos, (t, start, gap));
            if rng.random_bool(0.3) {
                let i = rng.random_range(0..line.len());
                line[i].2 = rng.random_range(0..10) as f64;
                tree.set_gap(line[i].0, line[i].2);
            }
            assert_eq!(
                in_order(&tree, 1),
                line.iter().map(|e| e.0).collect::<Vec<_>>()
            );
            for _ in 0..4 {
                let at = rng.random_range(0..(n / 2)) as f64;
                let g = rng.random_range(0..11) as f64;
                let want = line.iter().find(|e| e.1 >= at && e.2 >= g).map(|e| e.0);
                assert_eq!(tree.first_from(1, at, g), want, "at {at}, gap {g}");
                let i = rng.random_range(0..line.len());
                let want = line[i + 1..].iter().find(|e| e.2 >= g).map(|e| e.0);
                assert_eq!(tree.first_after(line[i].0, g), want);
            }
        }
        assert!(in_order(&tree, 0).is_empty());
    }

    /// A random timeline of `n` tasks on GPU 0 (inserted at random places, so the shape is
    /// any treap's) as `(task, start, gap)` in timeline order: starts non-decreasing with
    /// many ties, gaps from a few values (ties again) and occasionally -inf or inf.
    fn random_timeline(rng: &mut ChaCha8Rng, n: usize) -> (GapTree, Vec<(usize, f64, f64)>) {
        let mut tree = GapTree::new(n, 1);
        let mut line: Vec<(usize, f64, f64)> = Vec::new();
        for t in 0..n {
            let pos = rng.random_range(0..=line.len());
            let start = match (pos.checked_sub(1).map(|p| line[p].1), line.get(pos)) {
                (None, None) => 0.0,
                (Some(a), None) => a + rng.random_range(0..3) as f64,
                (None, Some(b)) => b.1 - rng.random_range(0..2) as f64,
                (Some(a), Some(_)) => a, // a tie with the previous start
            };
            let gap = match rng.random_range(0..20) {
                0 => f64::NEG_INFINITY,
                1 => f64::INFINITY,
                g => (g % 6) as f64,
            };
            tree.insert(0, t, start, gap, line.get(pos).map(|e| e.0));
            line.insert(pos, (t, start, gap));
        }
        (tree, line)
    }

    #[test]
    fn searches_return_the_first_qualifying_node_of_a_linear_scan() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let specials = [f64::NEG_INFINITY, f64::INFINITY, -0.0, 0.0];
        for n in [0, 1, 2, 3, 5, 17, 100, 1000] {
            for _ in 0..20 {
                let (tree, line) = random_timeline(&mut rng, n);
                let end = line.last().map_or(0.0, |e| e.1);
                for q in 0..60 {
                    let at = match q % 6 {
                        0 => specials[rng.random_range(0..4)],
                        1 => line.get(rng.random_range(0..n.max(1))).map_or(0.0, |e| e.1),
                        _ => rng.random_range(-2.0..end + 2.0_f64).floor(),
                    };
                    let g = match q % 5 {
                        0 => specials[rng.random_range(0..4)],
                        _ => rng.random_range(-1..7) as f64,
                    };
                    let want = line.iter().find(|e| e.1 >= at && e.2 >= g).map(|e| e.0);
                    assert_eq!(tree.first_from(0, at, g), want, "n {n}, at {at}, gap {g}");
                    let r = tree.root[0];
                    assert_eq!(tree.first_in_rec(r, at, g), want);
                    // a stack too small for the tree: the recursion finishes the search
                    assert_eq!(tree.first_in_with::<1>(r, at, g), want);
                    assert_eq!(tree.first_in_with::<3>(r, at, g), want);
                    let want = line.iter().find(|e| e.2 >= g).map(|e| e.0);
                    assert_eq!(tree.first_leftmost(r, g), want, "n {n}, gap {g}");
                    if n > 0 {
                        let i = rng.random_range(0..n);
                        let want = line[i + 1..].iter().find(|e| e.2 >= g).map(|e| e.0);
                        assert_eq!(tree.first_after(line[i].0, g), want, "after {i}, gap {g}");
                    }
                }
            }
        }
    }

    #[test]
    fn iterative_searches_answer_like_the_recursion_even_on_nan_and_unordered_starts() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for n in [1, 4, 30, 300] {
            for _ in 0..20 {
                let (mut tree, line) = random_timeline(&mut rng, n);
                for &(t, _, _) in &line {
                    if rng.random_bool(0.2) {
                        tree.set_gap(t, f64::NAN);
                    }
                    if rng.random_bool(0.2) {
                        tree.nodes[t].start = rng.random_range(0..10) as f64;
                    }
                }
                let r = tree.root[0];
                for _ in 0..40 {
                    let at = match rng.random_range(0..8) {
                        0 => f64::NAN,
                        1 => f64::NEG_INFINITY,
                        _ => rng.random_range(0..10) as f64,
                    };
                    let g = match rng.random_range(0..8) {
                        0 => f64::NAN,
                        _ => rng.random_range(0..6) as f64,
                    };
                    let want = tree.first_in_rec(r, at, g);
                    assert_eq!(tree.first_in(r, at, g), want);
                    assert_eq!(tree.first_in_with::<2>(r, at, g), want);
                    let want = tree.first_in_rec(r, f64::NEG_INFINITY, g);
                    assert_eq!(tree.first_leftmost(r, g), want);
                }
            }
        }
    }
}
