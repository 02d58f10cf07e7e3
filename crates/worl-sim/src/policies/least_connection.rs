//! Online policy `least_connection` (written separately).
