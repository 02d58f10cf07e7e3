//! Online policy `online_eft` (written separately).
