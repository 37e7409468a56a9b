//! HTTP server front end (tower, axum).
