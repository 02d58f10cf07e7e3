//! Declared options ([`OptionDoc`]) are the truth about what each registered scheduler reads:
//! every declared key is read (a bad value is refused naming it), every key read is declared
//! (building with no options would fail otherwise), every declared default is the scheduler's
//! own (the same schedule with and without `key=default`), and `docs/options.md` is generated
//! from the declarations (`WORL_BLESS=1 cargo test --release --test options` rewrites it).

use std::collections::BTreeSet;
use worl_sched::registry::{BUDGET_OPTIONS, Spec};
use worl_sched::schedulers::BUILTINS;
use worl_sched::testing::{ClusterKind, random_problem};
use worl_sched::{Builtin, Options, Registry, RunContext, ScheduleError};

/// The builtin's quick options, for scheduler `b`.
fn quick(b: &Builtin) -> Options {
    let spec: Spec = format!("{}[{}]", b.name, b.quick)
        .replace("[]", "")
        .parse()
        .unwrap();
    spec.to_options()
}

#[test]
fn declarations_are_well_formed_and_unique_per_scheduler() {
    for b in BUILTINS {
        let mut keys = BTreeSet::new();
        for d in b.option_docs().chain(BUDGET_OPTIONS) {
            assert!(keys.insert(d.key), "{}: `{}` declared twice", b.name, d.key);
            assert!(
                !d.key.is_empty()
                    && d.key
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}: key `{}` is not kebab-case",
                b.name,
                d.key
            );
            assert!(
                !d.values.is_empty() && !d.doc.is_empty(),
                "{}: `{}`",
                b.name,
                d.key
            );
        }
    }
}

#[test]
fn every_declared_key_is_read_and_a_bad_value_is_refused_by_name() {
    let registry = Registry::with_builtins();
    for b in BUILTINS {
        for d in b.option_docs().chain(BUDGET_OPTIONS) {
            let options = quick(b).with(d.key, "no-such-value");
            match registry.build(b.name, options) {
                Err(ScheduleError::InvalidOption { key, .. }) if key == d.key => {}
                Err(e) => panic!("{} `{}=no-such-value`: {e}", b.name, d.key),
                Ok(_) => panic!("{} accepted `{}=no-such-value`", b.name, d.key),
            }
        }
    }
}

#[test]
fn an_unknown_key_lists_the_declared_ones_and_an_undeclared_read_is_refused() {
    let registry = Registry::with_builtins();
    match registry.build_spec("ga:populaton=8") {
        Err(ScheduleError::UnknownOption { key, known, .. }) => {
            assert_eq!(key, "populaton");
            for k in ["population", "decoder", "gpu-choices", "parallel", "time"] {
                assert!(known.iter().any(|x| x == k), "{k} in {known:?}");
            }
        }
        other => panic!("{:?}", other.map(|s| s.name().to_owned())),
    }
    // A builtin whose builder reads a key it does not declare.
    let mut registry = Registry::new();
    let mut heft = worl_sched::schedulers::Heft::BUILTIN;
    heft.options = &[];
    registry.add(heft);
    match registry.build("heft", Options::default()) {
        Err(ScheduleError::UndeclaredOption { key, .. }) => assert_eq!(key, "policy"),
        other => panic!("{:?}", other.map(|s| s.name().to_owned())),
    }
}

/// The builtin's quick options without `key`.
fn quick_without(b: &Builtin, key: &str) -> Options {
    let mut options = Options::new(b.name);
    for pair in b.quick.split(',').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap();
        if k != key {
            options = options.with(k, v);
        }
    }
    options
}

#[test]
fn every_declared_default_is_the_schedulers_own() {
    let registry = Registry::with_builtins();
    let problem = random_problem(12, 3, 0.3, ClusterKind::BusyPaiMix, 1.0, 3);
    let run = |b: &Builtin, options: Options, what: &str| {
        registry
            .build(b.name, options)
            .unwrap_or_else(|e| panic!("{} {what}: {e}", b.name))
            .schedule(&problem, &mut RunContext::new(5))
            .unwrap()
    };
    let mut checked = 0;
    for b in BUILTINS {
        for d in b.option_docs() {
            let Some(default) = d.default_value() else {
                continue;
            };
            let absent = run(b, quick_without(b, d.key), "quick");
            let given = run(b, quick_without(b, d.key).with(d.key, default), d.key);
            assert_eq!(
                given, absent,
                "{} `{}={default}` is not its default",
                b.name, d.key
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

/// The docs check needs every builtin, WORL-RTGS and the deep-RL schedulers included.
#[cfg(feature = "ddqn")]
mod docs {
    use super::*;

    /// `docs/options.md` as the declarations give it.
    fn options_markdown() -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut md = String::from(
            "# Scheduler options\n\n\
             Every option of every registered scheduler, generated from the declarations in the\n\
             code (`OptionDoc`, one per option, next to the code that reads it); \
             `worl schedulers NAME` prints the same table.\n\
             Options are written `name[key=value,...]` or `name:key=value,...`; an unknown key or a\n\
             value out of range is an error naming the key. A default in parentheses is not one\n\
             value.\n\n\
             Every scheduler also takes the budget options:\n\n",
        );
        let table = |md: &mut String, docs: &mut dyn Iterator<Item = &worl_sched::OptionDoc>| {
            md.push_str("| option | values | default | meaning |\n|---|---|---|---|\n");
            for d in docs {
                md.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    d.key,
                    cell(d.values),
                    cell(d.default),
                    cell(d.doc)
                ));
            }
            md.push('\n');
        };
        table(&mut md, &mut BUDGET_OPTIONS.iter());
        for b in BUILTINS {
            md.push_str(&format!("## `{}`\n\n{}.\n\n", b.name, b.description));
            if b.options.iter().all(|g| g.is_empty()) {
                md.push_str("No options of its own.\n\n");
            } else {
                table(&mut md, &mut b.option_docs());
            }
        }
        md.truncate(md.trim_end().len());
        md.push('\n');
        md
    }

    #[test]
    fn docs_options_md_is_generated_from_the_declarations() {
        let path =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
        let want = options_markdown();
        if std::env::var_os("WORL_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/options.md is out of date: run `WORL_BLESS=1 cargo test --release --test options`"
        );
    }
}
