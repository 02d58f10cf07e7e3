//! Online policy `round_robin` (written separately).
