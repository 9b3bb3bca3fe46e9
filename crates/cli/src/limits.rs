//! Limits on what the command line accepts, checked while parsing so that a mistyped
//! size is a clear error before anything is allocated (grid sizes are limited by
//! `foehn_grid::limits`).

/// The largest number of full levels foehn accepts (ICON's configurations use up to
/// about 150).
pub const MAX_LEVELS: usize = 1000;

/// Parses a number of full levels: an integer from 1 to [`MAX_LEVELS`].
pub fn levels(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a number of levels (an integer from 1 to {MAX_LEVELS})")
    })?;
    if !(1..=MAX_LEVELS).contains(&n) {
        return Err(format!("{n} levels: foehn runs 1 to {MAX_LEVELS} levels"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::levels;

    #[test]
    fn levels_outside_one_to_the_limit_are_refused() {
        assert_eq!(levels("80"), Ok(80));
        assert!(levels("0").unwrap_err().contains("1 to 1000"));
        assert!(levels("18446744073709551615")
            .unwrap_err()
            .contains("1 to 1000"));
        assert!(levels("100000000").unwrap_err().contains("1 to 1000"));
        assert!(levels("x").unwrap_err().contains("not a number"));
    }
}
