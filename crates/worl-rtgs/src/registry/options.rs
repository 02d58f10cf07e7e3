//! [`Options`]: the key-value settings of one scheduler, read with one typed
//! [`take`](Options::take).

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
}

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

    /// Removes `key` and parses its value, or `None` if absent.
    ///
    /// Errors: [`ScheduleError::InvalidOption`] if the value does not parse as `T`.
    pub fn take<T>(&mut self, key: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
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
    /// [`take`](Self::take) asked for.
    pub fn finish(self) -> Result<()> {
        match self.values.into_keys().next() {
            None => Ok(()),
            Some(key) => Err(ScheduleError::UnknownOption {
                scheduler: self.scheduler,
                key,
                known: self.taken,
            }),
        }
    }
}
