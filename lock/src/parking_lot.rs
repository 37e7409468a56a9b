//! `parking_lot` locks, measured.
