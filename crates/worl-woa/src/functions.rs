//! Classic benchmark objectives of the WOA paper (Mirjalili & Lewis 2016, Tables 1–2), for
//! tests, benchmarks and examples. All have their global minimum 0 (Rosenbrock at `x = 1`,
//! the others at `x = 0`); `x` may have any number of coordinates (Rosenbrock: at least 2).

use std::f64::consts::{E, PI};

/// F1 sphere `Σ x_i²`; paper bounds `[−100, 100]^30`.
pub fn sphere(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

/// F5 Rosenbrock `Σ_{i<n} 100 (x_{i+1} − x_i²)² + (x_i − 1)²`; paper bounds `[−30, 30]^30`.
pub fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (w[0] - 1.0).powi(2))
        .sum()
}

/// F9 Rastrigin `Σ x_i² − 10 cos(2π x_i) + 10`; paper bounds `[−5.12, 5.12]^30`.
pub fn rastrigin(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| v * v - 10.0 * (2.0 * PI * v).cos() + 10.0)
        .sum()
}

/// F10 Ackley `−20 exp(−0.2 √(Σ x_i² / n)) − exp(Σ cos(2π x_i) / n) + 20 + e`; paper bounds
/// `[−32, 32]^30`. At `x = 0` it evaluates to about `4.4e−16` in floating point, not 0.
pub fn ackley(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let sq = x.iter().map(|v| v * v).sum::<f64>() / n;
    let cos = x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>() / n;
    -20.0 * (-0.2 * sq.sqrt()).exp() - cos.exp() + 20.0 + E
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minima_and_hand_computed_values() {
        assert_eq!(sphere(&[0.0; 30]), 0.0);
        assert_eq!(sphere(&[1.0, -2.0]), 5.0);
        assert_eq!(rosenbrock(&[1.0; 30]), 0.0);
        assert_eq!(rosenbrock(&[0.0, 0.0]), 1.0);
        assert_eq!(rastrigin(&[0.0; 30]), 0.0);
        assert!((rastrigin(&[1.0]) - 1.0).abs() < 1e-12);
        assert!(ackley(&[0.0; 30]).abs() < 1e-15);
        assert!((ackley(&[1.0]) - (20.0 - 20.0 * (-0.2f64).exp())).abs() < 1e-12);
    }
}
