use std::num::ParseIntError;

#[hotpath::measure]
fn parse_sum(s: &str) -> Result<i64, ParseIntError> {
    if s.is_empty() {
        return Ok(0);
    }
    let mut total = 0;
    for part in s.split(',') {
        total += part.trim().parse::<i64>()?;
    }
    Ok(total)
}

#[hotpath::measure]
fn first_even(xs: &[u32]) -> Option<u32> {
    for &x in xs {
        if x % 2 == 0 {
            return Some(x);
        }
    }
    let last = xs.last()?;
    Some(*last + 1)
}

#[hotpath::measure]
fn boxed_error(s: &str) -> Result<u8, Box<dyn std::error::Error>> {
    let v: u8 = s.parse()?;
    if v > 100 {
        return Err("too big".into());
    }
    Ok(v)
}

#[hotpath::measure]
fn diverges_in_loop(limit: u32) -> u32 {
    let mut i = 0;
    loop {
        i += 1;
        if i == limit {
            return i * 10;
        }
    }
}

fn main() {
    assert_eq!(parse_sum(""), Ok(0));
    assert_eq!(parse_sum("1, 2, 3"), Ok(6));
    assert!(parse_sum("1, x").is_err());
    assert_eq!(first_even(&[1, 3, 4, 5]), Some(4));
    assert_eq!(first_even(&[1, 3]), Some(4));
    assert_eq!(first_even(&[]), None);
    assert_eq!(boxed_error("7").unwrap(), 7);
    assert_eq!(boxed_error("200").unwrap_err().to_string(), "too big");
    assert!(boxed_error("x").is_err());
    assert_eq!(diverges_in_loop(3), 30);
}
