//! `measure_block!` is an expression: the temporaries of its expression live until the end
//! of the statement around it, as without the macro, so its value may borrow them.
#![deny(warnings)]

fn len(s: &str) -> usize {
    s.len()
}

fn main() {
    assert_eq!(len(hotpath::measure_block!("ref", &String::from("abc"))), 3);
    assert_eq!(
        len(hotpath::measure_block!(
            "as_str",
            String::from("ab").as_str()
        )),
        2
    );
    let extended = hotpath::measure_block!("extended", &vec![1, 2]);
    assert_eq!(extended.len(), 2);
}
