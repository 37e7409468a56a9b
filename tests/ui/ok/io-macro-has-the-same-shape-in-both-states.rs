use std::io::{Cursor, Read, Write};

fn main() {
    // `hotpath::Io<T>` is the wrapper with the `hotpath` feature and `T` without it.
    let mut c: hotpath::Io<Cursor<Vec<u8>>> = hotpath::io!(Cursor::new(vec![1u8]));
    let mut buf = [0u8; 1];
    c.read_exact(&mut buf).unwrap();
    assert_eq!(buf, [1]);

    let mut w: hotpath::Io<Vec<u8>> = hotpath::io!(Vec::new(), label = "a");
    w.write_all(b"hi").unwrap();
    let mut i = hotpath::io!(Vec::<u8>::new(), iter = true);
    let mut j = hotpath::io!(Vec::<u8>::new(), label = "j", iter = true);
    let mut k = hotpath::io!(Vec::<u8>::new(), iter = true, label = "k");
    i.write_all(b"x").unwrap();
    j.write_all(b"y").unwrap();
    k.write_all(b"z").unwrap();

    let back: Cursor<Vec<u8>> = hotpath::io_unwrap(c);
    assert_eq!(back.into_inner(), [1]);
    let same: Vec<u8> = hotpath::io_unwrap(w);
    assert_eq!(same, b"hi");
}
