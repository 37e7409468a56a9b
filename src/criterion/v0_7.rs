//! `hotpath::criterion` for criterion 0.7.

version!(criterion_07);
