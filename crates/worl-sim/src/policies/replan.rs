//! Online policy `replan` (written separately).
