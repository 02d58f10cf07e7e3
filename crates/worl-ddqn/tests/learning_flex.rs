//! The agent learns small environments with known optimal policies on flex, reproducibly.

mod common;

use common::{ChainWalk, VariableBandit, bandit_config, chain_config, evaluate_bandit};
use std::time::Instant;
use worl_ddqn::{Agent, ComputeDevice, ReplayConfig, TargetUpdate};

const BANDIT_STEPS: u64 = 3_000;
const CHAIN_STEPS: u64 = 4_000;
const CHAIN_LEN: usize = 8;

#[test]
fn learns_variable_candidate_bandit_to_95_percent_of_optimal() {
    let t0 = Instant::now();
    let mut agent = Agent::new(bandit_config(11), &ComputeDevice::flex()).unwrap();
    let report = agent
        .train(&mut VariableBandit::new(), BANDIT_STEPS, 1)
        .unwrap();
    assert_eq!(report.episode_returns.len() as u64, BANDIT_STEPS);
    let (got, best, random) = evaluate_bandit(&mut agent, 500);
    eprintln!(
        "bandit (flex): greedy {got:.2} / optimal {best:.2} = {:.3} (random {:.3}) in {:.2?}",
        got / best,
        random / best,
        t0.elapsed()
    );
    assert!(random / best < 0.6, "the test must be able to fail");
    assert!(got / best >= 0.95, "greedy return {got} < 95% of {best}");
}

#[test]
fn learns_chain_walk_with_bootstrapping() {
    let t0 = Instant::now();
    let mut agent = Agent::new(chain_config(CHAIN_LEN, 5), &ComputeDevice::flex()).unwrap();
    let mut env = ChainWalk::new(CHAIN_LEN);
    agent.train(&mut env, CHAIN_STEPS, 30).unwrap();
    let mut total = 0.0;
    for seed in 0..20 {
        total += agent.evaluate_episode(&mut env, 500 + seed, 30).unwrap();
    }
    let mean = total / 20.0;
    eprintln!(
        "chain (flex): greedy mean return {mean:.3} (optimal 1.0) in {:.2?}",
        t0.elapsed()
    );
    assert!(mean >= 0.95, "mean greedy return {mean} < 0.95");
}

#[test]
fn learns_bandit_with_prioritized_replay_and_soft_updates() {
    let mut config = bandit_config(3);
    config.replay = ReplayConfig::prioritized_default();
    config.target_update = TargetUpdate::Soft { tau: 0.02 };
    let mut agent = Agent::new(config, &ComputeDevice::flex()).unwrap();
    agent
        .train(&mut VariableBandit::new(), BANDIT_STEPS, 1)
        .unwrap();
    let (got, best, _) = evaluate_bandit(&mut agent, 500);
    eprintln!("bandit PER (flex): {:.3} of optimal", got / best);
    assert!(got / best >= 0.95, "greedy return {got} < 95% of {best}");
}

fn trained_weight_bits(seed: u64) -> Vec<u32> {
    let mut agent = Agent::new(chain_config(CHAIN_LEN, seed), &ComputeDevice::flex()).unwrap();
    agent
        .train(&mut ChainWalk::new(CHAIN_LEN), 600, 30)
        .unwrap();
    assert!(agent.train_steps() > 500);
    let snap = agent.snapshot().unwrap();
    snap.layers()
        .iter()
        .flat_map(|l| l.weight.iter().chain(&l.bias))
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn same_seed_gives_bit_identical_weights_on_flex() {
    let a = trained_weight_bits(42);
    let b = trained_weight_bits(42);
    assert_eq!(a, b);
    let c = trained_weight_bits(43);
    assert_ne!(a, c, "a different seed must give different weights");
}

#[test]
fn same_seed_gives_identical_weights_across_threads() {
    let handles: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(|| trained_weight_bits(7)))
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results[0], results[1]);
}
