//! The WOA move in running-time space: the hope of a task, from its running time in the
//! target `T` and in the moving whale `X` and the move's coefficients.

use serde::{Deserialize, Serialize};
use worl_woa::Move;

/// Which formula turns running times into hopes (one per task `v`; `RT_T`, `RT_X` are the
/// running times of `v` in the target and in the moving whale).
///
/// Measured (layered DAGs on 16 PAI-mix GPUs, seeds 0..10, 30 whales × 100 iterations,
/// the authors' decoder): 200 tasks 11506 ± 576 s ([`Authors`](Self::Authors)) vs
/// 3566 ± 50 s ([`Canonical`](Self::Canonical)); 500 tasks 29663 ± 920 vs 6847 ± 79 (plain
/// WOA 4112 ± 235 and 9202 ± 1240). See the [module docs](super) for the other settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HopeRule {
    /// Canonical WOA (Mirjalili & Lewis 2016, Eq. 2.1, 2.5, 2.8) in running-time space, with
    /// the engine's per-whale coefficients ([`Move::coef_a`], [`Move::coef_c`],
    /// [`Move::spiral_factor`]):
    /// * encircle and search: `hope = RT_T − A·|C·RT_T − RT_X|`;
    /// * spiral: `hope = |RT_T − RT_X|·e^{bl}·cos(2πl) + RT_T`.
    ///
    /// `C = 2r ∈ [0, 2]` perturbs even a whale that sits on its target (`X = T` gives
    /// `hope = RT_T·(1 − A·|C − 1|)`), by an amount `A` shrinks over the run: an annealed
    /// search around the leader. Our default.
    #[default]
    Canonical,
    /// The authors' code (`WORLRTGS.java`): `hope = RT_T + s·F·(RT_T − RT_X)`
    /// with an independent random sign `s = ±1` per task standing in for `C`, and
    /// `F = A` (encircle, search) or `e^{bl}cos(2πl)` (spiral) ([`Move::step_factor`]).
    /// When `X ≈ T` (late in a run, most whales near the leader) the gap vanishes, the hope
    /// is `RT_T`, and the move gives the leader back: the search stalls.
    Authors,
}

serde_plain::derive_fromstr_from_deserialize!(HopeRule);
serde_plain::derive_display_from_serialize!(HopeRule);

impl HopeRule {
    /// The hope of one task: `rt_t` = its running time in the target, `rt_x` in the moving
    /// whale, s; `sign` = the task's random sign (used by [`HopeRule::Authors`] only).
    ///
    /// ```
    /// use worl_sched::schedulers::rtgs::HopeRule;
    /// use worl_woa::{Move, MoveKind};
    /// // A = 0.5, C = 1.5: 10 − 0.5·|1.5·10 − 4| = 4.5.
    /// let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.5, 0.0, 1.0);
    /// assert_eq!(HopeRule::Canonical.hope(&mv, 10.0, 4.0, true), 4.5);
    /// // The authors' rule: 10 ± 0.5·(10 − 4).
    /// assert_eq!(HopeRule::Authors.hope(&mv, 10.0, 4.0, true), 13.0);
    /// assert_eq!(HopeRule::Authors.hope(&mv, 10.0, 4.0, false), 7.0);
    /// ```
    #[inline]
    pub fn hope(self, mv: &Move, rt_t: f64, rt_x: f64, sign: bool) -> f64 {
        match self {
            HopeRule::Canonical => mv.apply_component(rt_x, rt_t),
            HopeRule::Authors => {
                let f = mv.step_factor();
                rt_t + if sign { f } else { -f } * (rt_t - rt_x)
            }
        }
    }

    /// Whether the rule draws a random sign per task.
    pub fn uses_signs(self) -> bool {
        self == HopeRule::Authors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use worl_woa::MoveKind;

    const KINDS: [MoveKind; 3] = [MoveKind::Encircle, MoveKind::Spiral, MoveKind::Search];

    /// By hand: A = −0.8, C = 0.4, l = 0.25 (spiral factor e^{0.25}·cos(π/2) ≈ 0).
    #[test]
    fn canonical_hopes_by_hand() {
        let enc = Move::new(MoveKind::Encircle, 1.0, -0.8, 0.4, 0.25, 1.0);
        // 100 + 0.8·|40 − 70| = 124.
        assert_eq!(HopeRule::Canonical.hope(&enc, 100.0, 70.0, false), 124.0);
        // X = T: 100 + 0.8·|40 − 100| = 148: a whale on its target still moves.
        assert_eq!(HopeRule::Canonical.hope(&enc, 100.0, 100.0, false), 148.0);
        let spi = Move::new(MoveKind::Spiral, 1.0, -0.8, 0.4, 0.5, 1.0);
        // |100 − 70|·e^{0.5}·cos(π) + 100 = 100 − 30·e^{0.5}.
        let h = HopeRule::Canonical.hope(&spi, 100.0, 70.0, true);
        assert!((h - (100.0 - 30.0 * 0.5f64.exp())).abs() < 1e-12);
        let search = Move::new(MoveKind::Search, 2.0, 1.5, 2.0, 0.0, 1.0);
        // 100 − 1.5·|200 − 70| = −95.
        assert_eq!(HopeRule::Canonical.hope(&search, 100.0, 70.0, false), -95.0);
    }

    /// The authors' rule gives the target's running time back when `X = T`, whatever the
    /// move.
    #[test]
    fn authors_hopes_stall_on_the_target() {
        for kind in KINDS {
            let mv = Move::new(kind, 1.0, -0.8, 0.4, 0.3, 1.0);
            for sign in [false, true] {
                assert_eq!(HopeRule::Authors.hope(&mv, 100.0, 100.0, sign), 100.0);
            }
        }
        assert!(HopeRule::Authors.uses_signs() && !HopeRule::Canonical.uses_signs());
    }
}
