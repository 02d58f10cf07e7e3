//! Config serde round trip and validation, epsilon schedules, device selection, agent API
//! errors and the epsilon-greedy / mask behaviour.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use worl_ddqn::{
    Agent, AgentConfig, ComputeDevice, DdqnError, DeviceChoice, DeviceKind, EpsilonSchedule,
    Observation, ReplayConfig, Step, TargetUpdate, TdTarget, epsilon_greedy, select_device,
};

#[test]
fn config_json_round_trip_and_defaults() {
    let mut c = AgentConfig::new(10, 3);
    c.replay = ReplayConfig::prioritized_default();
    c.target_update = TargetUpdate::Soft { tau: 0.01 };
    c.td_target = TdTarget::Vanilla;
    c.epsilon = EpsilonSchedule::Exponential {
        start: 1.0,
        end: 0.01,
        decay_steps: 500,
    };
    c.grad_clip_norm = None;
    let json = c.to_json().unwrap();
    assert_eq!(AgentConfig::from_json(&json).unwrap(), c);
    // Missing fields take defaults.
    let d = AgentConfig::from_json(r#"{"state_dim": 7}"#).unwrap();
    assert_eq!(d.state_dim, 7);
    assert_eq!(d.hidden, vec![64, 64]);
    assert_eq!(d.gamma, 0.9);
    assert_eq!(d.target_update, TargetUpdate::Hard { every: 100 });
    assert_eq!(d.td_target, TdTarget::Double);
    // Unknown fields and bad values are errors naming the field.
    assert!(matches!(
        AgentConfig::from_json(r#"{"gama": 0.5}"#),
        Err(DdqnError::Json(_))
    ));
    match AgentConfig::from_json(r#"{"gamma": 1.5}"#) {
        Err(DdqnError::InvalidConfig { field, .. }) => assert_eq!(field, "gamma"),
        other => panic!("{other:?}"),
    }
    match AgentConfig::from_json(r#"{"target_update": {"kind": "soft", "tau": 0.0}}"#) {
        Err(DdqnError::InvalidConfig { field, .. }) => assert_eq!(field, "target_update.tau"),
        other => panic!("{other:?}"),
    }
    match AgentConfig::from_json(r#"{"hidden": [8, 0]}"#) {
        Err(DdqnError::InvalidConfig { field, .. }) => assert_eq!(field, "hidden"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn epsilon_schedules_follow_their_formulas() {
    let lin = EpsilonSchedule::Linear {
        start: 1.0,
        end: 0.1,
        decay_steps: 100,
    };
    assert_eq!(lin.epsilon(0), 1.0);
    assert!((lin.epsilon(50) - 0.55).abs() < 1e-12);
    assert!((lin.epsilon(100) - 0.1).abs() < 1e-12);
    assert!((lin.epsilon(1_000) - 0.1).abs() < 1e-12);
    let exp = EpsilonSchedule::Exponential {
        start: 1.0,
        end: 0.1,
        decay_steps: 100,
    };
    assert_eq!(exp.epsilon(0), 1.0);
    assert!((exp.epsilon(100) - (0.1 + 0.9 * (-1.0f64).exp())).abs() < 1e-12);
    assert!((exp.epsilon(10_000) - 0.1).abs() < 1e-12);
    assert_eq!(EpsilonSchedule::Constant { value: 0.3 }.epsilon(77), 0.3);
}

#[test]
fn epsilon_greedy_explores_at_rate_epsilon_among_valid_candidates() {
    let q = [0.0, 5.0, 1.0, 2.0];
    let mask = [true, false, true, true];
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    assert_eq!(epsilon_greedy(&q, &mask, 0.0, &mut rng), Some(3));
    assert_eq!(epsilon_greedy(&q, &[], 0.0, &mut rng), Some(1));
    let mut counts = [0usize; 4];
    for _ in 0..30_000 {
        counts[epsilon_greedy(&q, &mask, 0.3, &mut rng).unwrap()] += 1;
    }
    assert_eq!(counts[1], 0, "masked candidate never chosen");
    // Greedy (3) gets 0.7 + 0.1, the others 0.1 each.
    let f = |c: usize| c as f64 / 30_000.0;
    assert!((f(counts[3]) - 0.8).abs() < 0.015, "{counts:?}");
    assert!((f(counts[0]) - 0.1).abs() < 0.015, "{counts:?}");
    assert_eq!(epsilon_greedy(&q, &[false; 4], 0.5, &mut rng), None);
}

#[test]
fn device_choice_parses_and_flex_and_auto_never_fail() {
    assert_eq!("wgpu".parse::<DeviceChoice>().unwrap(), DeviceChoice::Wgpu);
    assert_eq!(
        " FLEX ".parse::<DeviceChoice>().unwrap(),
        DeviceChoice::Flex
    );
    assert_eq!("auto".parse::<DeviceChoice>().unwrap(), DeviceChoice::Auto);
    assert!(matches!(
        "cuda".parse::<DeviceChoice>(),
        Err(DdqnError::UnknownDevice(_))
    ));
    let flex = select_device(DeviceChoice::Flex).unwrap();
    assert_eq!(flex.kind(), DeviceKind::Flex);
    let auto = select_device(DeviceChoice::Auto).unwrap();
    eprintln!("auto selected: {}", auto.description());
    assert!(!auto.description().is_empty());
    if auto.kind() == DeviceKind::Flex {
        assert!(
            auto.description().contains("auto:"),
            "{}",
            auto.description()
        );
    }
}

fn obs(state: &[f32], candidates: &[f32], mask: &[bool]) -> Observation {
    Observation {
        state: state.to_vec(),
        candidates: candidates.to_vec(),
        mask: mask.to_vec(),
    }
}

#[test]
fn agent_rejects_malformed_observations_with_typed_errors() {
    let mut agent = Agent::new(AgentConfig::new(2, 1), &ComputeDevice::flex()).unwrap();
    assert!(matches!(
        agent.act(&obs(&[1.0], &[1.0], &[])),
        Err(DdqnError::DimensionMismatch { what: "state", .. })
    ));
    assert!(matches!(
        agent.act(&obs(&[1.0, 0.0], &[], &[])),
        Err(DdqnError::NoCandidates { .. })
    ));
    assert!(matches!(
        agent.act(&obs(&[1.0, 0.0], &[1.0, 2.0], &[false, false])),
        Err(DdqnError::NoCandidates { .. })
    ));
    assert!(matches!(
        agent.act(&obs(&[f32::NAN, 0.0], &[1.0], &[])),
        Err(DdqnError::NonFinite { what: "state", .. })
    ));
    let o = obs(&[1.0, 0.0], &[1.0, 2.0], &[true, false]);
    let step = Step {
        reward: 0.0,
        done: true,
    };
    assert!(matches!(
        agent.remember_step(&o, 1, step, &Observation::default()),
        Err(DdqnError::InvalidAction { action: 1, .. })
    ));
    assert!(matches!(
        agent.remember_step(&o, 5, step, &Observation::default()),
        Err(DdqnError::InvalidAction { action: 5, .. })
    ));
    agent
        .remember_step(&o, 0, step, &Observation::default())
        .unwrap();
    assert_eq!(agent.replay_len(), 1);
    assert!(matches!(
        Agent::new(
            AgentConfig {
                batch_size: 0,
                ..AgentConfig::default()
            },
            &ComputeDevice::flex()
        ),
        Err(DdqnError::InvalidConfig {
            field: "batch_size",
            ..
        })
    ));
}

#[test]
fn agent_act_respects_the_mask_and_advances_the_epsilon_clock() {
    let config = AgentConfig {
        epsilon: EpsilonSchedule::Constant { value: 1.0 },
        ..AgentConfig::new(1, 1)
    };
    let mut agent = Agent::new(config, &ComputeDevice::flex()).unwrap();
    let o = obs(&[0.0], &[0.0, 1.0, 2.0, 3.0], &[false, true, false, true]);
    let mut seen = [0usize; 4];
    for _ in 0..400 {
        seen[agent.act(&o).unwrap()] += 1;
    }
    assert_eq!(agent.env_steps(), 400);
    assert_eq!(seen[0] + seen[2], 0);
    assert!(seen[1] > 150 && seen[3] > 150, "{seen:?}");
    // The greedy action is one of the valid ones and equals the batch greedy choice.
    let g = agent.greedy_action(&o).unwrap();
    assert!(g == 1 || g == 3);
    let mut batch = worl_ddqn::CandidateBatch::new(1, 1);
    batch.push(&[0.0], &[1.0, 3.0]).unwrap();
    let gb = agent.greedy_batch(&batch).unwrap()[0];
    assert_eq!([1, 3][gb], g);
}

#[test]
fn train_step_waits_for_learning_starts() {
    let config = AgentConfig {
        batch_size: 4,
        learning_starts: 10,
        ..AgentConfig::new(1, 1)
    };
    let mut agent = Agent::new(config, &ComputeDevice::flex()).unwrap();
    let o = obs(&[0.0], &[1.0], &[]);
    let step = Step {
        reward: 1.0,
        done: true,
    };
    for i in 0..10 {
        assert_eq!(agent.train_step().unwrap(), None, "at {i} transitions");
        agent
            .remember_step(&o, 0, step, &Observation::default())
            .unwrap();
    }
    let stats = agent.train_step().unwrap().expect("10 transitions stored");
    assert!(stats.loss.is_finite() && stats.mean_abs_td > 0.0);
    assert_eq!(agent.train_steps(), 1);
}

/// Without the `wgpu` feature, asking for wgpu is a typed error naming the feature, and `auto`
/// says why it chose flex.
#[cfg(not(feature = "wgpu"))]
#[test]
fn wgpu_without_the_feature_is_a_typed_error() {
    let err = select_device(DeviceChoice::Wgpu).unwrap_err();
    assert!(
        matches!(
            err,
            DdqnError::FeatureDisabled {
                requested: "wgpu",
                feature: "wgpu"
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("without the `wgpu` feature"),
        "{err}"
    );
    let auto = select_device(DeviceChoice::Auto).unwrap();
    assert_eq!(auto.kind(), DeviceKind::Flex);
    assert!(auto.description().contains("`wgpu` feature"), "{auto}");
}
