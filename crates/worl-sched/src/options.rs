//! A scheduler's options: the key-value settings of one build ([`Options`], read with one
//! typed [`take`](Options::take)) and what a scheduler declares it reads ([`OptionDoc`]).
//!
//! A declaration is the one place an option's key, values, default and meaning are written:
//! the registry hands a builtin's declarations to its [`Options`], so that reading a key the
//! scheduler does not declare is an error ([`ScheduleError::UndeclaredOption`]) and an
//! unknown key lists the declared ones; `worl schedulers NAME`, Python's
//! `worl.scheduler_options` and `docs/options.md` print them.

use crate::error::{Result, ScheduleError};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Key-value options of one scheduler, as strings; each scheduler takes the keys it knows
/// with [`take`](Self::take) and rejects the rest with [`finish`](Self::finish), so a typo is
/// an error, not a silently ignored setting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    scheduler: String,
    values: BTreeMap<String, String>,
    taken: Vec<String>,
    declared: Option<Vec<&'static [OptionDoc]>>,
}

/// One option a scheduler declares: the key [`Options::take`] reads, the values it takes, its
/// default and what it does. Declared once, next to the code that reads it, and printed by
/// the registry, the command line, Python and the docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OptionDoc {
    /// The key, lowercase kebab-case (`whales`, `a-schedule`).
    pub key: &'static str,
    /// The values it takes, as a user writes them (`1..=10000`, `append|insertion`).
    pub values: &'static str,
    /// Its default as a spec value (`30`, `append`), or a phrase in parentheses where the
    /// default is not one value (`(none)`, `(4; paper preset 30)`).
    pub default: &'static str,
    /// What it does, one or two sentences.
    pub doc: &'static str,
}

impl OptionDoc {
    /// The declaration of option `key`.
    pub const fn new(
        key: &'static str,
        values: &'static str,
        default: &'static str,
        doc: &'static str,
    ) -> Self {
        OptionDoc {
            key,
            values,
            default,
            doc,
        }
    }

    /// `group` with the defaults of some keys replaced, for a scheduler that reads a shared
    /// group with defaults of its own (WORL-RTGS reads RTGS's options with 4 whales). A key
    /// not in `group` fails the build (a panic in a `const` is a compile error).
    pub const fn with_defaults<const N: usize>(
        mut group: [OptionDoc; N],
        defaults: &[(&'static str, &'static str)],
    ) -> [OptionDoc; N] {
        let mut d = 0;
        while d < defaults.len() {
            let (key, default) = defaults[d];
            let mut i = 0;
            while i < N && !same(group[i].key, key) {
                i += 1;
            }
            assert!(i < N, "with_defaults: a key the group does not declare");
            group[i].default = default;
            d += 1;
        }
        group
    }

    /// The default as words: the spec value, or the phrase without its parentheses
    /// (`no limit` for `(no limit)`), for listings that say "default ...".
    pub fn default_text(&self) -> &'static str {
        self.default.trim_start_matches('(').trim_end_matches(')')
    }

    /// The default as a spec value, or `None` where it is a phrase (in parentheses).
    pub fn default_value(&self) -> Option<&'static str> {
        (!self.default.starts_with('(')).then_some(self.default)
    }
}

/// `a == b`, in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The `policy` option with default `append` (the placement policy, [`Policy`](worl_cluster::Policy)).
pub const POLICY_APPEND: [OptionDoc; 1] = [OptionDoc::new(
    "policy",
    "append|insertion",
    "append",
    "placement policy: after the GPU's last task (append), or in the earliest idle gap that fits (insertion)",
)];

/// The `parallel` option of the population searches.
pub const PARALLEL: [OptionDoc; 1] = [OptionDoc::new(
    "parallel",
    "true|false",
    "false",
    "evaluate the population on the rayon pool (same result as sequential)",
)];

/// The `policy` option with default `insertion`.
pub const POLICY_INSERTION: [OptionDoc; 1] =
    OptionDoc::with_defaults(POLICY_APPEND, &[("policy", "insertion")]);

impl Options {
    /// Empty options for `scheduler` (the name used in error messages).
    pub fn new(scheduler: impl Into<String>) -> Self {
        Self {
            scheduler: scheduler.into(),
            ..Self::default()
        }
    }

    /// Adds `key = value` (the last value of a key wins).
    pub fn with(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.values.insert(key.into(), value.to_string());
        self
    }

    /// The scheduler these options are for.
    pub fn scheduler(&self) -> &str {
        &self.scheduler
    }

    /// Restricts the keys a scheduler may read to `groups` (its declarations, [`OptionDoc`]):
    /// reading another key is then [`ScheduleError::UndeclaredOption`], and an unknown key's
    /// error lists the declared keys. The registry declares each builtin's options before
    /// building it; more groups may be added.
    pub fn declare(mut self, groups: &[&'static [OptionDoc]]) -> Self {
        self.declared
            .get_or_insert_with(Vec::new)
            .extend_from_slice(groups);
        self
    }

    /// Whether the value of `key` was given (and not yet taken).
    pub fn contains(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// The declared keys, in declaration order (`None` without declarations).
    fn declared_keys(&self) -> Option<Vec<String>> {
        self.declared.as_ref().map(|groups| {
            groups
                .iter()
                .flat_map(|g| g.iter().map(|d| d.key.to_owned()))
                .collect()
        })
    }

    /// Removes `key` and parses its value, or `None` if absent.
    ///
    /// Errors: [`ScheduleError::InvalidOption`] if the value does not parse as `T`.
    pub fn take<T>(&mut self, key: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        if let Some(groups) = &self.declared
            && !groups.iter().any(|g| g.iter().any(|d| d.key == key))
        {
            return Err(ScheduleError::UndeclaredOption {
                scheduler: self.scheduler.clone(),
                key: key.to_owned(),
            });
        }
        self.taken.push(key.to_owned());
        match self.values.remove(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|e| ScheduleError::InvalidOption {
                    scheduler: self.scheduler.clone(),
                    key: key.to_owned(),
                    value: v.clone(),
                    reason: e.to_string(),
                }),
        }
    }

    /// Like [`take`](Self::take) with a default for an absent key.
    pub fn take_or<T>(&mut self, key: &str, default: T) -> Result<T>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        Ok(self.take(key)?.unwrap_or(default))
    }

    /// An [`ScheduleError::InvalidOption`] for `key = value` with `reason`, for range checks
    /// after parsing.
    pub fn invalid(
        &self,
        key: &str,
        value: impl ToString,
        reason: impl Into<String>,
    ) -> ScheduleError {
        ScheduleError::InvalidOption {
            scheduler: self.scheduler.clone(),
            key: key.to_owned(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// Ends option parsing. Errors: [`ScheduleError::UnknownOption`] for the first key no
    /// [`take`](Self::take) asked for, listing the declared keys (else the keys taken).
    pub fn finish(self) -> Result<()> {
        let known = self.declared_keys().unwrap_or(self.taken);
        match self.values.into_keys().next() {
            None => Ok(()),
            Some(key) => Err(ScheduleError::UnknownOption {
                scheduler: self.scheduler,
                key,
                known,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLARED: &[OptionDoc] = &[OptionDoc::new("depth", "1..=9", "3", "how deep")];

    #[test]
    fn declared_options_bound_what_a_scheduler_reads_and_name_the_known_keys() {
        let mut o = Options::new("x").with("depth", 4).declare(&[DECLARED]);
        assert_eq!(o.take::<u8>("depth").unwrap(), Some(4));
        match o.take::<u8>("width") {
            Err(ScheduleError::UndeclaredOption { scheduler, key }) => {
                assert_eq!((scheduler.as_str(), key.as_str()), ("x", "width"));
            }
            other => panic!("{other:?}"),
        }
        let o = Options::new("x").with("dpeth", 4).declare(&[DECLARED]);
        assert!(o.contains("dpeth") && !o.contains("depth"));
        match o.finish() {
            Err(ScheduleError::UnknownOption { key, known, .. }) => {
                assert_eq!((key.as_str(), known), ("dpeth", vec!["depth".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        // Without declarations any key may be read, and the known keys are those read.
        let mut o = Options::new("x").with("dpeth", 4);
        assert_eq!(o.take::<u8>("width").unwrap(), None);
        match o.finish() {
            Err(ScheduleError::UnknownOption { known, .. }) => assert_eq!(known, ["width"]),
            other => panic!("{other:?}"),
        }
        assert_eq!(DECLARED[0].default_value(), Some("3"));
        assert_eq!(OptionDoc::new("a", "", "(none)", "").default_value(), None);
        assert_eq!(OptionDoc::new("a", "", "(none)", "").default_text(), "none");
        assert_eq!(DECLARED[0].default_text(), "3");
    }
}
