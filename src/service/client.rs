//! HTTP client front ends (reqwest, ureq).
