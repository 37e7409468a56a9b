struct Stack {
    items: Vec<String>,
}

impl Stack {
    #[hotpath::measure]
    fn new() -> Self {
        Stack { items: Vec::new() }
    }

    #[hotpath::measure]
    fn push_and_get(&mut self, s: &str) -> &mut String {
        self.items.push(s.to_owned());
        self.items.last_mut().unwrap()
    }

    #[hotpath::measure]
    fn first(&self) -> Option<&str> {
        self.items.first().map(String::as_str)
    }

    #[hotpath::measure]
    fn longest<'a>(&'a self, other: &'a str) -> &'a str {
        match self.items.iter().max_by_key(|s| s.len()) {
            Some(s) if s.len() >= other.len() => s,
            _ => other,
        }
    }

    #[hotpath::measure]
    fn into_items(self) -> Vec<String> {
        self.items
    }
}

fn main() {
    let mut s = Stack::new();
    s.push_and_get("a").push('!');
    s.push_and_get("bcd");
    assert_eq!(s.first(), Some("a!"));
    assert_eq!(s.longest("xy"), "bcd");
    assert_eq!(s.longest("wxyz"), "wxyz");
    assert_eq!(s.into_items(), ["a!", "bcd"]);
}
