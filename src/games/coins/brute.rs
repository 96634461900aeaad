//! Brute force of the real coin game: `n` stacks of gold and silver coins; Gary removes a
//! gold coin with everything above it, Sally a silver one; who cannot move loses. Solved
//! by minimax over all positions for both starting players, with no game values.

/// A stack as its coins from the bottom, `true` for gold.
pub type Stack = Vec<bool>;

/// All stacks of height `0..=height`, shorter ones first (so every move, which only
/// shortens a stack, lowers the stack's index).
fn all_stacks(height: usize) -> Vec<Stack> {
    let mut stacks = vec![Vec::new()];
    for h in 1..=height {
        for bits in 0..1usize << h {
            stacks.push((0..h).map(|i| bits >> i & 1 == 1).collect());
        }
    }
    stacks
}

/// Who wins a position, for each starting player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Gary wins whoever starts (a positive value).
    Gary,
    /// Sally wins whoever starts (a negative value).
    Sally,
    /// The player to move loses, whoever it is (value 0: the fair positions).
    Second,
    /// The player to move wins, whoever it is (never for sums of numbers).
    First,
}

/// The outcome of every position of `n` stacks of at most `height` coins, by minimax.
pub struct GameTable {
    stacks: Vec<Stack>,
    /// `kinds^i`: position codes are `Σ kind_i·kinds^i`.
    pow: Vec<usize>,
    /// Bit 0: Gary to move wins; bit 1: Sally to move wins.
    wins: Vec<u8>,
}

impl GameTable {
    /// Solves all positions of `n` stacks of `0..=height` coins.
    ///
    /// # Panics
    /// Above 50 million positions.
    pub fn solve(n: usize, height: usize) -> Self {
        let stacks = all_stacks(height);
        let kinds = stacks.len();
        let total = kinds.checked_pow(n as u32).filter(|&t| t <= 50_000_000).expect("too many positions");
        let index_of = |s: &Stack| stacks.iter().position(|t| t == s).unwrap();
        // For each stack kind and mover, the stack kinds one move can leave.
        let moves: Vec<[Vec<usize>; 2]> = stacks
            .iter()
            .map(|s| {
                let options =
                    |gold: bool| (0..s.len()).filter(|&i| s[i] == gold).map(|i| index_of(&s[..i].to_vec())).collect();
                [options(true), options(false)]
            })
            .collect();
        let pow: Vec<usize> = (0..n).map(|i| kinds.pow(i as u32)).collect();
        let mut wins = vec![0u8; total];
        let mut digits = vec![0usize; n];
        // Every move lowers one digit, so positions in increasing code order are solved
        // after all their options.
        for code in 0..total {
            if code > 0 {
                let mut i = 0;
                while digits[i] == kinds - 1 {
                    digits[i] = 0;
                    i += 1;
                }
                digits[i] += 1;
            }
            for (mover, bit) in [(0usize, 1u8), (1, 2u8)] {
                let opponent_bit = 3 - bit;
                let can_win = (0..n).any(|i| {
                    moves[digits[i]][mover].iter().any(|&next_kind| {
                        let next = code - digits[i] * pow[i] + next_kind * pow[i];
                        wins[next] & opponent_bit == 0
                    })
                });
                if can_win {
                    wins[code] |= bit;
                }
            }
        }
        Self { stacks, pow, wins }
    }

    /// Every stack of at most `height` coins (the empty one first).
    pub fn stacks(&self) -> &[Stack] {
        &self.stacks
    }

    /// The outcome of the sum of `position` (at most `n` stacks; missing ones are empty).
    pub fn outcome(&self, position: &[&Stack]) -> Outcome {
        assert!(position.len() <= self.pow.len(), "more stacks than the table holds");
        let code: usize = position
            .iter()
            .zip(&self.pow)
            .map(|(s, p)| self.stacks.iter().position(|t| t == *s).expect("a stack of the table's height") * p)
            .sum();
        match self.wins[code] {
            0 => Outcome::Second,
            1 => Outcome::Gary,
            2 => Outcome::Sally,
            _ => Outcome::First,
        }
    }
}

/// The number of fair arrangements of `n` full stacks of `height` coins: those where the
/// player to move loses, whether Gary or Sally starts.
pub fn fair_arrangements(n: usize, height: usize) -> u64 {
    let table = GameTable::solve(n, height);
    let kinds = table.stacks.len();
    // Full stacks are the last 2^height kinds; enumerate their n-tuples.
    let first_full = kinds - (1 << height);
    let full = 1usize << height;
    (0..full.pow(n as u32))
        .filter(|&t| {
            let code: usize = (0..n).map(|i| (first_full + t / full.pow(i as u32) % full) * table.pow[i]).sum();
            table.wins[code] == 0
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_counts() {
        // One stack is never fair; two are fair when their values cancel: GG+SS, SS+GG,
        // GS+SG, SG+GS.
        assert_eq!(fair_arrangements(1, 2), 0);
        assert_eq!(fair_arrangements(2, 2), 4);
        // Height 1: a gold and a silver coin cancel.
        assert_eq!(fair_arrangements(2, 1), 2);
        // Height 3, two stacks: each of the 8 stacks cancels only its colour swap.
        assert_eq!(fair_arrangements(2, 3), 8);
    }
}
