//! How the model serializes: each struct is a map of its fields
//! (`#[derive(SerializeFields)]`, from hotpath-macros, writes both impls), so a field
//! marked `#[serde(flatten)]` puts its own fields into the parent's map.

use serde::ser::{SerializeMap, Serializer};

/// Writes a value's fields as entries of a map being serialized.
pub(crate) trait Fields {
    /// Serializes each field as a `key: value` entry of `m`.
    fn fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error>;
}

/// Serializes `v` as a map of its fields.
pub(crate) fn map<T: Fields, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    v.fields(&mut m)?;
    m.end()
}

/// `skip_serializing_if` of flags written only when set.
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
