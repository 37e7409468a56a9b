//! Generic parameters, `where` clauses, `Self`, elided and `'_` lifetimes in the return
//! type: all as without the macro.
#![deny(warnings)]
use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

struct Cache<K, V> {
    map: RefCell<HashMap<K, V>>,
}

impl<K: Hash + Eq, V> Cache<K, V>
where
    V: Clone + Debug,
{
    #[hotpath::measure]
    fn new() -> Self {
        Self {
            map: RefCell::new(HashMap::new()),
        }
    }

    #[hotpath::measure]
    fn with(self, k: K, v: V) -> Self {
        self.map.borrow_mut().insert(k, v);
        self
    }

    #[hotpath::measure]
    fn view(&self) -> Ref<'_, HashMap<K, V>> {
        self.map.borrow()
    }

    #[hotpath::measure]
    fn get<Q>(&self, k: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.borrow().get(k).cloned()
    }
}

#[hotpath::measure]
fn normalize(s: &str) -> Cow<'_, str> {
    if s.contains(' ') {
        Cow::Owned(s.replace(' ', "_"))
    } else {
        Cow::Borrowed(s)
    }
}

#[hotpath::measure]
fn longest<'a, T: AsRef<str> + ?Sized>(a: &'a T, b: &'a T) -> &'a str {
    if a.as_ref().len() >= b.as_ref().len() {
        a.as_ref()
    } else {
        b.as_ref()
    }
}

fn main() {
    let c = Cache::new()
        .with("a".to_string(), 1)
        .with("b".to_string(), 2);
    assert_eq!(c.view().len(), 2);
    assert_eq!(c.get("b"), Some(2));
    assert_eq!(c.get("z"), None);
    assert_eq!(normalize("a b"), "a_b");
    assert!(matches!(normalize("ab"), Cow::Borrowed("ab")));
    assert_eq!(longest("abc", "de"), "abc");
}
