//! Temporaries of the last expression may borrow the parameters (which outlive them) and
//! may be guards of locks held while the value is computed.
#![deny(warnings)]
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;

#[hotpath::measure]
fn owned_cell(c: RefCell<Vec<u8>>) -> usize {
    c.borrow().len()
}

#[hotpath::measure]
fn locked(m: &Mutex<Vec<u8>>) -> usize {
    m.lock().unwrap().iter().map(|&b| b as usize).sum()
}

#[hotpath::measure]
fn scrutinee_guard(m: Mutex<Option<u8>>) -> u8 {
    match *m.lock().unwrap() {
        Some(v) => v,
        None => 0,
    }
}

#[hotpath::measure]
fn if_let_on_a_borrow(c: &RefCell<HashMap<u8, String>>, k: u8) -> usize {
    if let Some(s) = c.borrow().get(&k) {
        s.len()
    } else {
        0
    }
}

#[hotpath::measure]
fn returns_a_clone_of_a_borrow(c: &RefCell<String>) -> String {
    c.borrow().clone()
}

#[hotpath::measure]
fn temporary_then_question_mark(c: &RefCell<Vec<&str>>) -> Result<u32, std::num::ParseIntError> {
    Ok(c.borrow()[0].parse::<u32>()? + c.borrow().len() as u32)
}

fn main() {
    assert_eq!(owned_cell(RefCell::new(vec![1, 2])), 2);
    assert_eq!(locked(&Mutex::new(vec![1, 2, 3])), 6);
    assert_eq!(scrutinee_guard(Mutex::new(Some(4))), 4);
    let map = RefCell::new(HashMap::from([(1, "abc".to_string())]));
    assert_eq!(if_let_on_a_borrow(&map, 1), 3);
    assert_eq!(if_let_on_a_borrow(&map, 2), 0);
    assert_eq!(returns_a_clone_of_a_borrow(&RefCell::new("s".into())), "s");
    assert_eq!(
        temporary_then_question_mark(&RefCell::new(vec!["4"])),
        Ok(5)
    );
    assert!(temporary_then_question_mark(&RefCell::new(vec!["x"])).is_err());
}
