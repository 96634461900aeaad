//! Parsing of the numeric command-line values: plain digits, `_` separators, and the
//! shorthands users type for Project Euler sizes (`10^7`, `1e7`, `2^30`).

/// Parses a non-negative integer that fits `u64`.
///
/// Accepts `1000`, `1_000_000`, `10^7`, `2^30` and `1e9` (the mantissa of `e` notation
/// must be an integer). Gives a short reason on failure, for clap to put after the
/// option's name.
pub fn parse_count(text: &str) -> Result<u64, String> {
    parse_count_up_to(text, u64::MAX)
}

/// [`parse_count`] for an option whose largest accepted value is `max`: a number too
/// large for `u64` is refused with `max`, the option's own limit, in the reason. A value
/// that fits `u64` is returned even above `max`, for the option's validation to refuse
/// with the same limit.
pub fn parse_count_up_to(text: &str, max: u64) -> Result<u64, String> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() {
        return Err("expected a whole number".into());
    }
    if cleaned.starts_with('-') {
        return Err("must not be negative".into());
    }
    let cleaned = cleaned.strip_prefix('+').unwrap_or(&cleaned);
    let too_large = || format!("{text} is too large (the supported maximum is {max})");
    let integer = |s: &str| -> Result<u64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("'{text}' is not a whole number (examples: 1000, 10^7, 1e7)"));
        }
        s.parse::<u64>().map_err(|_| too_large())
    };
    let power = |base: u64, exponent: u64| -> Result<u64, String> {
        let exponent = u32::try_from(exponent).map_err(|_| too_large())?;
        base.checked_pow(exponent).ok_or_else(too_large)
    };
    if let Some((base, exponent)) = cleaned.split_once('^') {
        return power(integer(base)?, integer(exponent)?);
    }
    if let Some((mantissa, exponent)) = cleaned.split_once(['e', 'E']) {
        return integer(mantissa)?.checked_mul(power(10, integer(exponent)?)?).ok_or_else(too_large);
    }
    integer(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_usual_spellings() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("10_000_000"), Ok(10_000_000));
        assert_eq!(parse_count("10^7"), Ok(10_000_000));
        assert_eq!(parse_count("1e9"), Ok(1_000_000_000));
        assert_eq!(parse_count("2^30"), Ok(1 << 30));
        assert_eq!(parse_count("+5"), Ok(5));
        assert_eq!(parse_count("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn refuses_the_rest_with_a_reason() {
        for bad in ["", "-5", "abc", "1.5", "1e", "^3", "10^", "0x10", "1e-3"] {
            assert!(parse_count(bad).is_err(), "{bad:?}");
        }
        for huge in ["99999999999999999999", "10^20", "2^64", "2e19", "10^99999999999"] {
            assert!(parse_count(huge).unwrap_err().contains("too large"), "{huge}");
        }
        assert!(parse_count("-1").unwrap_err().contains("negative"));
        assert!(parse_count("1e30").unwrap_err().contains("maximum is 18446744073709551615"));
    }

    #[test]
    fn beyond_u64_names_the_option_limit() {
        for huge in ["1e30", "2^64", "99999999999999999999"] {
            let err = parse_count_up_to(huge, 1024).unwrap_err();
            assert!(err.contains("too large") && err.contains("maximum is 1024"), "{err}");
            assert!(!err.contains("18446744073709551615"), "{err}");
        }
        assert_eq!(parse_count_up_to("5000", 1024), Ok(5000), "left to the option's validation");
    }
}
