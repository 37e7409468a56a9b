//! `hotpath::criterion` for criterion 0.5.

version!(criterion);
