//! Replay buffer: ring overwrite, flattened variable next-candidate storage, uniform and
//! proportional prioritized sampling (Schaul et al. 2016).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use worl_ddqn::{DdqnError, ReplayBuffer, ReplayConfig, SampledBatch, Transition};

fn t<'a>(state: &'a [f32], reward: f32, next_candidates: &'a [f32], done: bool) -> Transition<'a> {
    Transition {
        state,
        action: &[1.0],
        reward,
        next_state: state,
        next_candidates,
        done,
    }
}

#[test]
fn ring_buffer_overwrites_the_oldest_and_keeps_variable_candidates() {
    let mut buf = ReplayBuffer::new(3, 1, 1, ReplayConfig::Uniform).unwrap();
    let cands: Vec<Vec<f32>> = vec![vec![1.0], vec![1.0, 2.0], vec![1.0, 2.0, 3.0], vec![9.0; 4]];
    for (i, c) in cands.iter().enumerate() {
        let s = [i as f32];
        assert_eq!(buf.push(&t(&s, i as f32, c, false)).unwrap(), i % 3);
    }
    assert_eq!(buf.len(), 3);
    let mut out = SampledBatch::new(1, 1);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    buf.sample(200, 1.0, &mut rng, &mut out).unwrap();
    assert_eq!(out.len(), 200);
    let mut seen = [false; 4];
    for j in 0..out.len() {
        let r = out.rewards[j] as usize;
        seen[r] = true;
        assert_eq!(out.states[j], r as f32);
        // Next candidates travel with their transition, whatever their count.
        assert_eq!(out.next.candidates(j), &cands[r][..]);
        assert_eq!(out.weights[j], 1.0);
    }
    assert_eq!(
        seen,
        [false, true, true, true],
        "transition 0 was overwritten"
    );
}

#[test]
fn push_rejects_bad_transitions_without_storing() {
    let mut buf = ReplayBuffer::new(4, 2, 1, ReplayConfig::Uniform).unwrap();
    let ok = [0.0, 1.0];
    assert!(matches!(
        buf.push(&t(&[0.0], 0.0, &[1.0], false)),
        Err(DdqnError::DimensionMismatch { what: "state", .. })
    ));
    assert!(matches!(
        buf.push(&t(&ok, f32::NAN, &[1.0], false)),
        Err(DdqnError::NonFinite { what: "reward", .. })
    ));
    assert!(matches!(
        buf.push(&t(&ok, 0.0, &[], false)),
        Err(DdqnError::NoCandidates { .. })
    ));
    assert_eq!(buf.len(), 0);
    // A terminal transition needs neither next candidates nor a next state.
    let term = Transition {
        state: &ok,
        action: &[1.0],
        reward: 1.0,
        next_state: &[],
        next_candidates: &[],
        done: true,
    };
    buf.push(&term).unwrap();
    assert_eq!(buf.len(), 1);
}

#[test]
fn prioritized_sampling_follows_priorities() {
    // α = 1: P(i) ∝ |δ_i| + ε.
    let per = ReplayConfig::Prioritized {
        alpha: 1.0,
        beta_start: 0.4,
        beta_anneal_steps: 1000,
        priority_epsilon: 1e-6,
    };
    let mut buf = ReplayBuffer::new(4, 1, 1, per).unwrap();
    for i in 0..4 {
        let s = [i as f32];
        buf.push(&t(&s, i as f32, &[1.0], false)).unwrap();
    }
    // New transitions get the max priority (1.0).
    for i in 0..4 {
        assert_eq!(buf.priority(i), Some(1.0));
    }
    buf.update_priorities(&[0, 1, 2, 3], &[1.0, 2.0, 3.0, 4.0])
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut out = SampledBatch::new(1, 1);
    let mut counts = [0usize; 4];
    for _ in 0..200 {
        buf.sample(50, 0.5, &mut rng, &mut out).unwrap();
        for &i in &out.indices {
            counts[i] += 1;
        }
        // Importance weights: w_i = (N P(i))^-β / max_j w_j, max at the smallest priority.
        for (j, &i) in out.indices.iter().enumerate() {
            let p: f64 = (i as f64 + 1.0 + 1e-6) / (10.0 + 4e-6);
            let pmin: f64 = (1.0 + 1e-6) / (10.0 + 4e-6);
            let w = ((4.0 * p).powf(-0.5) / (4.0 * pmin).powf(-0.5)) as f32;
            assert!((out.weights[j] - w).abs() < 1e-5);
        }
    }
    let total = 10_000.0;
    for (i, &c) in counts.iter().enumerate() {
        let expected = (i + 1) as f64 / 10.0;
        let got = c as f64 / total;
        assert!(
            (got - expected).abs() < 0.02,
            "slot {i}: frequency {got} vs {expected} ({counts:?})"
        );
    }
    // New transitions enter at the largest priority seen (4 + ε).
    let s = [9.0];
    let slot = buf.push(&t(&s, 9.0, &[1.0], false)).unwrap();
    assert_eq!(slot, 0);
    assert!((buf.priority(0).unwrap() - 4.000001).abs() < 1e-9);
}

#[test]
fn uniform_update_priorities_is_a_no_op_and_bad_input_is_an_error() {
    let mut buf = ReplayBuffer::new(2, 1, 1, ReplayConfig::prioritized_default()).unwrap();
    buf.push(&t(&[0.0], 0.0, &[1.0], false)).unwrap();
    assert!(matches!(
        buf.update_priorities(&[0, 1], &[1.0]),
        Err(DdqnError::DimensionMismatch { .. })
    ));
    assert!(matches!(
        buf.update_priorities(&[1], &[1.0]),
        Err(DdqnError::InvalidAction { .. })
    ));
    let mut u = ReplayBuffer::new(2, 1, 1, ReplayConfig::Uniform).unwrap();
    u.push(&t(&[0.0], 0.0, &[1.0], false)).unwrap();
    u.update_priorities(&[0], &[3.0]).unwrap();
    assert_eq!(u.priority(0), None);
    let mut out = SampledBatch::new(1, 1);
    let empty = ReplayBuffer::new(2, 1, 1, ReplayConfig::Uniform).unwrap();
    assert!(
        empty
            .sample(1, 1.0, &mut ChaCha8Rng::seed_from_u64(0), &mut out)
            .is_err()
    );
}
