//! Shared helpers of the flow tests.
