//! Brute force of one suit of the real card game: every state (each card unused, face
//! up on top of a stack, or covered) gets its Grundy value by the mex over real moves.

const UNUSED: u8 = 0;
const TOP: u8 = 1;
const COVERED: u8 = 2;

/// Grundy values of all `3^n` states of one suit of cards `1..=n`, indexed by the base-3
/// code `Σ state(card c)·3^(c-1)`.
pub fn suit_nimbers(n: usize) -> Vec<u8> {
    assert!(n <= 16, "3^{n} states is too many to enumerate");
    let count = 3usize.pow(n as u32);
    let pow3: Vec<usize> = (0..n).map(|i| 3usize.pow(i as u32)).collect();
    let mut nimber = vec![0u8; count];
    // A move covers a top card Y (digit 1 -> 2) and puts an unused X > Y on it (0 -> 1):
    // the code grows, so visiting codes in decreasing order solves successors first.
    for code in (0..count).rev() {
        let cells: Vec<u8> = (0..n).map(|i| (code / pow3[i] % 3) as u8).collect();
        let mut seen = 0u64;
        for y in 0..n {
            if cells[y] != TOP {
                continue;
            }
            for x in y + 1..n {
                if cells[x] == UNUSED {
                    let next = code + pow3[y] * (COVERED - TOP) as usize + pow3[x] * (TOP - UNUSED) as usize;
                    seen |= 1 << nimber[next];
                }
            }
        }
        nimber[code] = seen.trailing_ones() as u8;
    }
    nimber
}

/// How many of the `2^n` initial face-up sets of one suit have each nimber.
pub fn initial_distribution(n: usize) -> Vec<u64> {
    let nimber = suit_nimbers(n);
    let mut freq = vec![0u64; n.max(1)];
    for subset in 0..1usize << n {
        let code: usize = (0..n).filter(|&i| subset >> i & 1 == 1).map(|i| 3usize.pow(i as u32)).sum();
        let v = nimber[code] as usize;
        if v >= freq.len() {
            freq.resize(v + 1, 0);
        }
        freq[v] += 1;
    }
    freq
}

/// `C(n, s) mod p` from a one-suit distribution by `s - 1` plain xor-convolutions.
pub fn losing_sets_by_convolution(distribution: &[u64], suits: u32, p: u64) -> u64 {
    let size = distribution.len().next_power_of_two();
    let base: Vec<u64> = (0..size).map(|v| distribution.get(v).map_or(0, |f| f % p)).collect();
    let mut power = base.clone();
    for _ in 1..suits {
        let mut next = vec![0u64; size];
        for (a, &fa) in power.iter().enumerate() {
            for (b, &fb) in base.iter().enumerate() {
                next[a ^ b] = (next[a ^ b] + fa * fb % p) % p;
            }
        }
        power = next;
    }
    power[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_match_the_theory_table() {
        // The table of docs/theory/cards.md §7, and C(3, 2) = 26 of §11 there.
        let table: [&[u64]; 6] =
            [&[2], &[3, 1], &[4, 3, 1], &[6, 6, 3, 1], &[10, 11, 6, 4, 1], &[18, 20, 11, 10, 4, 1]];
        for (i, row) in table.iter().enumerate() {
            assert_eq!(initial_distribution(i + 1), row.to_vec(), "n = {}", i + 1);
        }
        assert_eq!(losing_sets_by_convolution(&initial_distribution(3), 2, 1_000_000_007), 26);
    }
}
