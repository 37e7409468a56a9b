//! `hotpath::criterion` for criterion 0.6.

version!(criterion_06);
