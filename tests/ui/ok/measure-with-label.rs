#[hotpath::measure(label = "checksum")]
fn checksum(data: &[u8]) -> u32 {
    data.iter().map(|&b| u32::from(b)).sum()
}

#[hotpath::measure(label = r"raw label", log = true)]
fn raw_label() -> &'static str {
    "raw"
}

#[hotpath::measure(log = false, label = "escaped \"quotes\"")]
fn escaped() -> bool {
    true
}

struct S;

impl S {
    #[hotpath::measure(label = "S::method")]
    fn method(&self) -> u8 {
        1
    }
}

fn main() {
    assert_eq!(checksum(&[1, 2, 3]), 6);
    assert_eq!(raw_label(), "raw");
    assert!(escaped());
    assert_eq!(S.method(), 1);
}
