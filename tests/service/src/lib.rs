//! Helpers for the service tests: a PostgreSQL cluster of their own, free ports.
