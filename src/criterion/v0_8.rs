//! `hotpath::criterion` for criterion 0.8.

version!(criterion_08);
