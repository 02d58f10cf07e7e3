//! `past_windows`, the busy-window rule every decoder, scheduler and the simulator share:
//! hand-computed starts, and a property test (the start meets no window, is the earliest free
//! point at or after `free`, and is monotone in `free`, which the exact solver's dominance and
//! left-shift arguments rely on).

use proptest::prelude::*;
use worl_cluster::past_windows;

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
