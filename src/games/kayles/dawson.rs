//! Dawson's Kayles (the octal game 0.07): the Grundy value of a row of `L` counters from
//! which a move removes two neighbours (seed section 4). In partisan Kayles these are the
//! values of the alternating blocks, where both players may knock over a mixed pair.

/// `g(0..=max_len)` by the mex rule `g(L) = mex { g(i) ^ g(L-2-i) : 0 <= i <= L-2 }`.
/// O(L^2); every value is below 16 (the largest is 9).
pub fn dawson_values(max_len: usize) -> Vec<u8> {
    let mut g = vec![0u8; max_len + 1];
    for len in 2..=max_len {
        let mut seen = 0u32; // bit v set: value v is reachable
        // By symmetry i and L-2-i give the same option; half the range suffices.
        for i in 0..=(len - 2) / 2 {
            seen |= 1 << (g[i] ^ g[len - 2 - i]);
        }
        g[len] = seen.trailing_ones() as u8;
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_values_match_the_seed() {
        let expected = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
        assert_eq!(dawson_values(20), expected);
        let g = dawson_values(1000);
        assert_eq!(*g.iter().max().unwrap(), 9);
        assert_eq!(g.iter().position(|&v| v == 9), Some(86));
        // Period 34 from L = 53 on (the last irregular value is at L = 52).
        assert!((53..=1000 - 34).all(|l| g[l] == g[l + 34]));
        assert_ne!(g[52], g[52 + 34]);
    }
}
