//! [`Contention`]: the network model of transfers, and the max-min fair flow network.

use crate::error::{Result, SimError};
use std::fmt;
use std::str::FromStr;

/// How concurrent transfers share the network.
///
/// Text form (`FromStr`/`Display`): `none`, `fair`.
///
/// ```
/// use worl_sim::Contention;
/// assert_eq!("fair".parse::<Contention>().unwrap(), Contention::Fair);
/// assert!("greedy".parse::<Contention>().is_err());
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Contention {
    /// No contention: a transfer of `d` bytes from GPU `k` to GPU `l` takes exactly
    /// `Problem::comm_time(d, k, l) = L(a, b) + d / B(a, b)` (the static cost model).
    #[default]
    None,
    /// Max-min fair sharing: after its latency `L(a, b)`, a transfer is a flow over
    /// resources (see the crate documentation); concurrent flows share capacities max-min
    /// fairly (progressive filling), rates recomputed at each flow start and finish.
    Fair,
}

impl fmt::Display for Contention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::Fair => "fair",
        })
    }
}

impl FromStr for Contention {
    type Err = SimError;

    /// Parses `none` or `fair`.
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Self::None),
            "fair" => Ok(Self::Fair),
            _ => Err(SimError::InvalidSpec {
                what: "contention",
                spec: s.to_string(),
                reason: "expected none or fair".to_string(),
            }),
        }
    }
}

/// Up to this many active flows, every recomputation is exact.
pub(crate) const EXACT_FLOWS: usize = 256;

/// With more active flows, every component is recomputed exactly once the recomputations
/// since the last refresh reach `active flows / REFRESH_DIVISOR`.
pub(crate) const REFRESH_DIVISOR: usize = 4;

/// Sentinel of an empty slot.
const FREE: u32 = u32::MAX;

/// A shared resource: a NIC direction or a link.
#[derive(Clone, Debug)]
struct Resource {
    /// Capacity, bytes/s.
    capacity: f64,
    /// The flows crossing it (unordered).
    flows: Vec<u32>,
    /// Progressive filling: capacity not yet allocated.
    left: f64,
    /// Progressive filling: flows crossing it not yet frozen.
    unfrozen: u32,
    /// Sum of the rates of its flows, bytes/s.
    used: f64,
    /// Progressive filling: version of its heap entry.
    version: u32,
    /// Visit stamp of the component search.
    stamp: u32,
}

/// One flow: the bulk phase of a transfer.
#[derive(Clone, Debug)]
struct Flow {
    /// Resources crossed (1 or 3), and the flow's position in each resource's list.
    res: [u32; 3],
    pos: [u32; 3],
    n_res: u8,
    /// Bytes left at `updated`.
    remaining: f64,
    /// Rate, bytes/s.
    rate: f64,
    /// Time `remaining` was computed at, s.
    updated: f64,
    /// Version of its pending finish event (bumped at each rate change).
    version: u32,
    /// The owner's token (the engine's transfer index); `FREE` for a free slot.
    token: u32,
    /// Visit stamp / frozen flag of a recomputation.
    stamp: u32,
}

/// A finish time to (re)schedule: flow `flow` with `version` finishes at `time`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct FlowFinish {
    pub(crate) time: f64,
    pub(crate) flow: u32,
    pub(crate) version: u32,
}

/// Min-heap entry of progressive filling: the fair share of a resource.
#[derive(Copy, Clone, Debug)]
struct Share {
    share: f64,
    res: u32,
    version: u32,
}

impl PartialEq for Share {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Share {}
impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Share {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: `BinaryHeap` is a max-heap.
        other
            .share
            .total_cmp(&self.share)
            .then(other.res.cmp(&self.res))
    }
}

/// The max-min fair flow network of [`Contention::Fair`].
///
/// Resources per machine `a`: NIC out and NIC in, of capacity `max_{b ≠ a} B(a, b)` (the
/// fastest of its links to other machines; `B(a, a)` for a single-machine cluster, where
/// no NIC is used); one resource per ordered machine pair `(a, b)` used so far (created
/// on first use), of capacity `B(a, b)`. A flow from machine `a` to `b ≠ a` crosses NIC
/// out `a`, link `(a, b)` and NIC in `b`; a flow inside machine `a` crosses link `(a, a)`.
///
/// Rates are the max-min fair allocation (progressive filling: raise every rate equally;
/// when a resource saturates, freeze its flows at the current rate; repeat with the
/// others), with a heap of resource shares: `O(F_c · log R_c)` for a component of `F_c`
/// flows and `R_c` resources. A flow's start or finish changes only the rates of its
/// connected component in the flow–resource graph, so while at most [`EXACT_FLOWS`] flows
/// are active [`recompute`](Self::recompute) redoes progressive filling exactly over the
/// components of the resources touched since the last call.
///
/// With more flows the component is usually the whole network (every busy NIC links
/// everything), and an exact recomputation at each of the `2 |E|` flow events would cost
/// `O(|E| · F log R)` (about 100 s for the 100,000-task benchmark). Then a recomputation
/// re-rates only the flows crossing a touched resource (the changed flow's NICs and link),
/// by progressive filling over the capacity the other flows leave them — every rate stays
/// feasible, never above a resource's capacity, so transfers are never faster than without
/// contention — and every component is recomputed exactly once the recomputations since
/// the last exact one reach `active flows / `[`REFRESH_DIVISOR`] (amortised
/// `O(REFRESH_DIVISOR · log R)` per event). Between refreshes, capacity freed more than
/// one resource away from a change waits for the next refresh.
#[derive(Clone, Debug)]
pub(crate) struct FlowNet {
    n_machines: usize,
    resources: Vec<Resource>,
    /// Link resource of machine pair `(a, b)`, by `a * n_machines + b`.
    links: std::collections::HashMap<u64, u32>,
    network: worl_cluster::Network,
    flows: Vec<Flow>,
    free: Vec<u32>,
    /// Resources touched since the last recomputation.
    dirty: Vec<u32>,
    stamp: u32,
    /// Active flows.
    n_active: usize,
    /// Recomputations since the last refresh.
    since_refresh: usize,
    // Scratch of `recompute`.
    comp_flows: Vec<u32>,
    comp_res: Vec<u32>,
    heap: std::collections::BinaryHeap<Share>,
}

impl FlowNet {
    /// An empty network of `n_machines` machines with bandwidths `network.bandwidth(a, b)`,
    /// bytes/s (`O(M²)` for the NIC capacities, `O(M)` for a uniform network).
    pub(crate) fn new(n_machines: usize, network: worl_cluster::Network) -> Self {
        let mut resources = Vec::with_capacity(2 * n_machines);
        let uniform = matches!(network, worl_cluster::Network::Uniform { .. });
        for dir in 0..2 {
            for a in 0..n_machines {
                let bw = |b: usize| {
                    if dir == 0 {
                        network.bandwidth(a, b)
                    } else {
                        network.bandwidth(b, a)
                    }
                };
                let cap = if n_machines < 2 {
                    network.bandwidth(a, a)
                } else if uniform {
                    bw((a + 1) % n_machines)
                } else {
                    (0..n_machines)
                        .filter(|&b| b != a)
                        .map(bw)
                        .fold(f64::NEG_INFINITY, f64::max)
                };
                resources.push(Resource::new(cap));
            }
        }
        Self {
            n_machines,
            resources,
            network,
            links: std::collections::HashMap::new(),
            flows: Vec::new(),
            free: Vec::new(),
            dirty: Vec::new(),
            stamp: 0,
            n_active: 0,
            since_refresh: 0,
            comp_flows: Vec::new(),
            comp_res: Vec::new(),
            heap: std::collections::BinaryHeap::new(),
        }
    }

    fn link(&mut self, a: usize, b: usize) -> u32 {
        let key = (a * self.n_machines + b) as u64;
        if let Some(&r) = self.links.get(&key) {
            return r;
        }
        let r = self.resources.len() as u32;
        self.resources
            .push(Resource::new(self.network.bandwidth(a, b)));
        self.links.insert(key, r);
        r
    }

    /// Adds a flow of `bytes > 0` from machine `a` to machine `b` at time `now`, owned by
    /// `token`; returns its id. Its rate is set by the next [`recompute`](Self::recompute).
    pub(crate) fn add(&mut self, a: usize, b: usize, bytes: f64, now: f64, token: u32) -> u32 {
        let (res, n_res) = if a == b {
            ([self.link(a, a), FREE, FREE], 1u8)
        } else {
            let l = self.link(a, b);
            ([a as u32, l, (self.n_machines + b) as u32], 3u8)
        };
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.flows.push(Flow {
                    res: [FREE; 3],
                    pos: [FREE; 3],
                    n_res: 0,
                    remaining: 0.0,
                    rate: 0.0,
                    updated: 0.0,
                    version: 0,
                    token: FREE,
                    stamp: 0,
                });
                (self.flows.len() - 1) as u32
            }
        };
        let mut pos = [FREE; 3];
        for i in 0..n_res as usize {
            let r = &mut self.resources[res[i] as usize];
            pos[i] = r.flows.len() as u32;
            r.flows.push(id);
            self.dirty.push(res[i]);
        }
        let f = &mut self.flows[id as usize];
        f.res = res;
        f.pos = pos;
        f.n_res = n_res;
        f.remaining = bytes;
        f.rate = 0.0;
        f.updated = now;
        f.version = f.version.wrapping_add(1);
        f.token = token;
        self.n_active += 1;
        id
    }

    /// Whether `version` is the current version of live flow `flow`.
    pub(crate) fn is_current(&self, flow: u32, version: u32) -> bool {
        let f = &self.flows[flow as usize];
        f.token != FREE && f.version == version
    }

    /// Removes finished flow `flow`; returns its owner's token.
    pub(crate) fn remove(&mut self, flow: u32) -> u32 {
        let (res, pos, n_res, token, rate) = {
            let f = &self.flows[flow as usize];
            (f.res, f.pos, f.n_res, f.token, f.rate)
        };
        self.n_active -= 1;
        for i in 0..n_res as usize {
            let r = res[i] as usize;
            let p = pos[i] as usize;
            self.resources[r].used -= rate;
            let list = &mut self.resources[r].flows;
            list.swap_remove(p);
            if let Some(&moved) = list.get(p) {
                let m = &mut self.flows[moved as usize];
                for j in 0..m.n_res as usize {
                    if m.res[j] as usize == r {
                        m.pos[j] = p as u32;
                    }
                }
            }
            self.dirty.push(res[i]);
        }
        let f = &mut self.flows[flow as usize];
        f.token = FREE;
        f.version = f.version.wrapping_add(1);
        f.n_res = 0;
        self.free.push(flow);
        token
    }

    /// Recomputes rates at time `now` after the flows added or removed since the last
    /// call, pushing the new finish time of every flow whose rate changed into `out`.
    ///
    /// Exact (progressive filling over the connected components of the touched resources)
    /// while at most [`EXACT_FLOWS`] flows are active, and at every refresh: once
    /// [`REFRESH_DIVISOR`]` × (events since the last refresh) >= active flows`, every
    /// component is recomputed. Between refreshes with more flows active, only the flows
    /// crossing a touched resource are re-rated (local progressive filling over the
    /// capacity the other flows leave), which keeps every rate feasible.
    pub(crate) fn recompute(&mut self, now: f64, out: &mut Vec<FlowFinish>) {
        if self.dirty.is_empty() {
            return;
        }
        self.stamp = self.stamp.wrapping_add(2);
        let (seen, frozen) = (self.stamp, self.stamp.wrapping_add(1));
        self.comp_res.clear();
        self.comp_flows.clear();
        let mut dirty = std::mem::take(&mut self.dirty);
        self.since_refresh += 1;
        let exact =
            self.n_active <= EXACT_FLOWS || self.since_refresh * REFRESH_DIVISOR >= self.n_active;
        if exact && self.n_active > EXACT_FLOWS {
            // Refresh: every resource with a flow.
            self.since_refresh = 0;
            dirty.clear();
            dirty.extend(
                (0..self.resources.len() as u32)
                    .filter(|&r| !self.resources[r as usize].flows.is_empty()),
            );
        }
        for &r in &dirty {
            let res = &mut self.resources[r as usize];
            if res.stamp != seen {
                res.stamp = seen;
                self.comp_res.push(r);
            }
        }
        dirty.clear();
        self.dirty = dirty;
        if exact {
            self.exact(now, out, seen, frozen);
        } else {
            self.local(now, out, seen, frozen);
        }
    }

    /// Exact: progressive filling over the components of `comp_res`.
    fn exact(&mut self, now: f64, out: &mut Vec<FlowFinish>, seen: u32, frozen: u32) {
        // The components (breadth-first over resources and flows).
        let mut i = 0;
        while i < self.comp_res.len() {
            let r = self.comp_res[i] as usize;
            i += 1;
            for k in 0..self.resources[r].flows.len() {
                let fid = self.resources[r].flows[k];
                let f = &mut self.flows[fid as usize];
                if f.stamp == seen {
                    continue;
                }
                f.stamp = seen;
                self.comp_flows.push(fid);
                for j in 0..f.n_res as usize {
                    let r2 = f.res[j];
                    let res2 = &mut self.resources[r2 as usize];
                    if res2.stamp != seen {
                        res2.stamp = seen;
                        self.comp_res.push(r2);
                    }
                }
            }
        }
        for &r in &self.comp_res {
            let res = &mut self.resources[r as usize];
            res.left = res.capacity;
            res.unfrozen = res.flows.len() as u32;
        }
        self.fill(now, out, frozen);
        // Exact sums of the rates (no drift from incremental updates).
        for &r in &self.comp_res {
            let res = &self.resources[r as usize];
            let used = res.flows.iter().map(|&f| self.flows[f as usize].rate).sum();
            self.resources[r as usize].used = used;
        }
    }

    /// Local: progressive filling over the flows crossing a resource of `comp_res`, on the
    /// capacity the other flows leave.
    fn local(&mut self, now: f64, out: &mut Vec<FlowFinish>, seen: u32, frozen: u32) {
        let n_dirty = self.comp_res.len();
        for i in 0..n_dirty {
            let r = self.comp_res[i] as usize;
            for k in 0..self.resources[r].flows.len() {
                let fid = self.resources[r].flows[k];
                let f = &mut self.flows[fid as usize];
                if f.stamp != seen {
                    f.stamp = seen;
                    self.comp_flows.push(fid);
                }
            }
        }
        // Resources of the re-rated flows; `left` = capacity − rates of the other flows.
        for i in 0..self.comp_flows.len() {
            let f = &self.flows[self.comp_flows[i] as usize];
            let (fres, n) = (f.res, f.n_res as usize);
            for &r in &fres[..n] {
                let res = &mut self.resources[r as usize];
                if res.stamp != seen {
                    res.stamp = seen;
                    self.comp_res.push(r);
                }
            }
        }
        for &r in &self.comp_res {
            let res = &mut self.resources[r as usize];
            res.left = res.capacity - res.used;
            res.unfrozen = 0;
        }
        for &fid in &self.comp_flows {
            let f = &self.flows[fid as usize];
            for &r in &f.res[..f.n_res as usize] {
                let res = &mut self.resources[r as usize];
                res.left += f.rate;
                res.unfrozen += 1;
            }
        }
        for &r in &self.comp_res {
            let res = &mut self.resources[r as usize];
            // Rounding of the incremental sums: never below a sliver of the capacity.
            res.left = res.left.max(res.capacity * 1e-9);
        }
        self.fill(now, out, frozen);
    }

    /// Progressive filling of the flows stamped `frozen − 1` over the resources of
    /// `comp_res`, whose `left` and `unfrozen` are set; updates `used`.
    fn fill(&mut self, now: f64, out: &mut Vec<FlowFinish>, frozen: u32) {
        let member = frozen.wrapping_sub(1);
        self.heap.clear();
        for &r in &self.comp_res {
            let res = &mut self.resources[r as usize];
            res.version = res.version.wrapping_add(1);
            if res.unfrozen > 0 {
                self.heap.push(Share {
                    share: res.left / res.unfrozen as f64,
                    res: r,
                    version: res.version,
                });
            }
        }
        let mut level = 0.0f64;
        while let Some(Share {
            share,
            res: r,
            version,
        }) = self.heap.pop()
        {
            let res = &self.resources[r as usize];
            if res.version != version || res.unfrozen == 0 {
                continue;
            }
            // Shares popped never decrease in exact arithmetic; keep it so under rounding.
            level = level.max(share);
            for k in 0..self.resources[r as usize].flows.len() {
                let fid = self.resources[r as usize].flows[k];
                let f = &mut self.flows[fid as usize];
                if f.stamp != member {
                    continue;
                }
                f.stamp = frozen;
                let (fres, n, old) = (f.res, f.n_res as usize, f.rate);
                if old != level {
                    // Bytes sent at the old rate since the last update.
                    f.remaining = (f.remaining - old * (now - f.updated)).max(0.0);
                    f.updated = now;
                    f.rate = level;
                    f.version = f.version.wrapping_add(1);
                    out.push(FlowFinish {
                        time: now + f.remaining / level,
                        flow: fid,
                        version: f.version,
                    });
                }
                for &r2 in &fres[..n] {
                    let res2 = &mut self.resources[r2 as usize];
                    res2.used += level - old;
                    res2.left -= level;
                    res2.unfrozen -= 1;
                    if r2 != r && res2.unfrozen > 0 {
                        res2.version = res2.version.wrapping_add(1);
                        self.heap.push(Share {
                            share: (res2.left / res2.unfrozen as f64).max(0.0),
                            res: r2,
                            version: res2.version,
                        });
                    }
                }
            }
        }
    }

    /// Current rate of `flow`, bytes/s.
    #[cfg(test)]
    pub(crate) fn rate(&self, flow: u32) -> f64 {
        self.flows[flow as usize].rate
    }
}

impl Resource {
    fn new(capacity: f64) -> Self {
        Self {
            capacity,
            flows: Vec::new(),
            used: 0.0,
            left: 0.0,
            unfrozen: 0,
            version: 0,
            stamp: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use worl_cluster::{Link, Network};

    /// Three machines; `B(a, b) = 0.5`, every other pair 3 (bytes/s), so NIC out of `a`
    /// and NIC in of `c` have capacity 3.
    fn net() -> FlowNet {
        let n = Network::from_fn(3, |a, b| {
            Link::new(if (a, b) == (0, 1) { 0.5 } else { 3.0 }, 0.0).unwrap()
        });
        FlowNet::new(3, n)
    }

    #[test]
    fn progressive_filling_freezes_the_bottleneck_first() {
        // f1: a -> b is limited to 0.5 by its link; f2, f3: a -> c share what is left of
        // a's NIC out: (3 − 0.5) / 2 = 1.25 each (their link and c's NIC in would allow
        // 1.5). Max-min fair: no rate can grow without lowering a smaller one.
        let mut net = net();
        let mut out = Vec::new();
        let f1 = net.add(0, 1, 1.0, 0.0, 1);
        let f2 = net.add(0, 2, 10.0, 0.0, 2);
        let f3 = net.add(0, 2, 10.0, 0.0, 3);
        net.recompute(0.0, &mut out);
        assert_eq!(
            (net.rate(f1), net.rate(f2), net.rate(f3)),
            (0.5, 1.25, 1.25)
        );
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].time, 2.0); // f1: 1 byte at 0.5 B/s
        // f1 finishes at 2 s: f2 and f3 have 10 − 2.5 = 7.5 bytes left and now get 1.5
        // each (a's NIC out 3 / 2, their link 3 / 2): done at 2 + 5 = 7 s.
        assert_eq!(net.remove(f1), 1);
        out.clear();
        net.recompute(2.0, &mut out);
        assert_eq!((net.rate(f2), net.rate(f3)), (1.5, 1.5));
        assert_eq!(out.iter().map(|f| f.time).collect::<Vec<_>>(), [7.0, 7.0]);
        assert!(!net.is_current(f1, 1));
    }

    #[test]
    fn only_the_touched_component_is_recomputed() {
        // b -> c is disconnected from a's flows: adding a flow at a leaves its rate alone
        // (no new finish event for it).
        let mut net = net();
        let mut out = Vec::new();
        let g = net.add(1, 2, 3.0, 0.0, 9);
        net.recompute(0.0, &mut out);
        assert_eq!(net.rate(g), 3.0);
        out.clear();
        let f = net.add(0, 1, 1.0, 0.5, 1);
        net.recompute(0.5, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].flow, f);
        assert_eq!(net.rate(g), 3.0);
        // Inside one machine a flow uses only the machine's link (capacity B(a, a) = 3).
        let h = net.add(2, 2, 6.0, 0.5, 4);
        out.clear();
        net.recompute(0.5, &mut out);
        assert_eq!(net.rate(h), 3.0);
        assert_eq!(out.len(), 1);
    }

    /// Checks that no resource carries more than its capacity and that the incremental
    /// sums match the rates.
    fn assert_feasible(net: &FlowNet) {
        for (r, res) in net.resources.iter().enumerate() {
            let sum: f64 = res.flows.iter().map(|&f| net.flows[f as usize].rate).sum();
            assert!(
                sum <= res.capacity * (1.0 + 1e-9),
                "resource {r}: {sum} > {}",
                res.capacity
            );
            assert!(
                (sum - res.used).abs() <= 1e-6 * res.capacity,
                "resource {r}: {sum} vs {}",
                res.used
            );
        }
    }

    #[test]
    fn many_flows_stay_feasible_and_refreshes_are_exact() {
        // 600 flows among 3 machines (beyond EXACT_FLOWS: local re-rating), added and
        // removed in a fixed pattern; after every recomputation no capacity is exceeded.
        let mut net = net();
        let mut out = Vec::new();
        let mut live = Vec::new();
        for i in 0..600u32 {
            let (a, b) = [(0, 1), (0, 2), (1, 2), (2, 0), (1, 1)][i as usize % 5];
            live.push(net.add(a, b, 1.0e6, i as f64, i));
            if i % 7 == 3 {
                let f = live.swap_remove((i as usize * 31) % live.len());
                net.remove(f);
            }
            out.clear();
            net.recompute(i as f64, &mut out);
            assert_feasible(&net);
            assert!(live.iter().all(|&f| net.rate(f) > 0.0));
        }
        // A refresh gives the max-min fair allocation, characterised by (Bertsekas &
        // Gallager, §6.5.2): every flow has a bottleneck, a saturated resource on which no
        // flow is faster than it.
        net.dirty.push(0);
        net.since_refresh = net.n_active;
        out.clear();
        net.recompute(600.0, &mut out);
        assert_eq!(net.since_refresh, 0);
        assert_feasible(&net);
        for &f in &live {
            let fl = &net.flows[f as usize];
            let has_bottleneck = fl.res[..fl.n_res as usize].iter().any(|&r| {
                let res = &net.resources[r as usize];
                let rates = res.flows.iter().map(|&g| net.flows[g as usize].rate);
                let (sum, max) = rates.fold((0.0, 0.0f64), |(s, m), x| (s + x, m.max(x)));
                (sum - res.capacity).abs() <= 1e-9 * res.capacity && fl.rate >= max * (1.0 - 1e-12)
            });
            assert!(has_bottleneck, "flow {f} at {}", fl.rate);
        }
    }
}
