use std::io::{Cursor, Read, Write};

fn main() {
    let mut c: Cursor<Vec<u8>> = hotpath::io!(Cursor::new(vec![1u8]));
    let mut buf = [0u8; 1];
    c.read_exact(&mut buf).unwrap();
    assert_eq!(buf, [1]);

    let x: Vec<u8> = Vec::new();
    let mut w: Vec<u8> = hotpath::io!(x, label = "a");
    w.write_all(b"hi").unwrap();
    assert_eq!(w, b"hi");

    let back: Cursor<Vec<u8>> = hotpath::io_unwrap(c);
    assert_eq!(back.into_inner(), [1]);
    let same: Vec<u8> = hotpath::io_unwrap(hotpath::io!(w, label = "b", extra = 1));
    assert_eq!(same, b"hi");
}
