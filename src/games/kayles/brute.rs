//! Brute force of the real game: every row of up to `max_places` places (each empty,
//! blue or red) solved by minimax for both starting players. Knows nothing of the
//! winner rule; the checks compare the two.

/// The four outcome classes of a two-player game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Blue wins whoever starts.
    Blue,
    /// Red wins whoever starts.
    Red,
    /// The player to move wins.
    First,
    /// The player to move loses: a fair row.
    Second,
}

/// One place of a row.
const EMPTY: u8 = 0;
const BLUE: u8 = 1;
const RED: u8 = 2;

/// Outcomes of every position of exactly `places` places, indexed by the base-3 code
/// `Σ cell_i·3^i` (cell 0 empty, 1 blue, 2 red).
pub fn outcomes(places: usize) -> Vec<Outcome> {
    assert!(places <= 20, "3^{places} positions is too many to enumerate");
    let count = 3usize.pow(places as u32);
    let pow3: Vec<usize> = (0..places).map(|i| 3usize.pow(i as u32)).collect();
    // wins[code] bit 0: Blue to move wins; bit 1: Red to move wins.
    let mut wins = vec![0u8; count];
    let mut cells = vec![EMPTY; places];
    for code in 0..count {
        if code > 0 {
            // Increment the base-3 digit vector alongside the code.
            let mut i = 0;
            while cells[i] == RED {
                cells[i] = EMPTY;
                i += 1;
            }
            cells[i] += 1;
        }
        // Every move empties one or two places, so it lowers the code: the successors of
        // `code` are already solved when the codes are visited in increasing order.
        let mut result = 0u8;
        for (mover, bit) in [(BLUE, 1u8), (RED, 2u8)] {
            let opponent_bit = 3 - bit;
            let mut can_win = false;
            for i in 0..places {
                if cells[i] == mover {
                    let next = code - cells[i] as usize * pow3[i];
                    can_win |= wins[next] & opponent_bit == 0;
                }
                if i + 1 < places
                    && cells[i] != EMPTY
                    && cells[i + 1] != EMPTY
                    && (cells[i] == mover || cells[i + 1] == mover)
                {
                    let next = code - cells[i] as usize * pow3[i] - cells[i + 1] as usize * pow3[i + 1];
                    can_win |= wins[next] & opponent_bit == 0;
                }
                if can_win {
                    break;
                }
            }
            if can_win {
                result |= bit;
            }
        }
        wins[code] = result;
    }
    wins.into_iter()
        .map(|w| match (w & 1 != 0, w & 2 != 0) {
            (true, false) => Outcome::Blue,
            (false, true) => Outcome::Red,
            (true, true) => Outcome::First,
            (false, false) => Outcome::Second,
        })
        .collect()
}

/// The winner rule (docs/theory/kayles.md §6): lead `d` of Blue, nim-sum `x` of the
/// Dawson values of the maximal alternating blocks.
pub fn predicted_outcome(cells: &[u8], dawson: &[u8]) -> Outcome {
    let lead: i64 = cells
        .iter()
        .map(|&c| {
            if c == BLUE {
                1
            } else if c == RED {
                -1
            } else {
                0
            }
        })
        .sum();
    let mut nim_sum = 0u8;
    let mut block = 0usize;
    for i in 0..cells.len() {
        if cells[i] == EMPTY {
            nim_sum ^= dawson[block];
            block = 0;
            continue;
        }
        if i > 0 && cells[i - 1] == cells[i] {
            nim_sum ^= dawson[block];
            block = 0;
        }
        block += 1;
    }
    nim_sum ^= dawson[block];
    match (lead.signum(), nim_sum) {
        (1, _) => Outcome::Blue,
        (-1, _) => Outcome::Red,
        (_, 0) => Outcome::Second,
        _ => Outcome::First,
    }
}

/// Decodes a base-3 position code into its cells.
pub fn decode(mut code: usize, places: usize) -> Vec<u8> {
    (0..places)
        .map(|_| {
            let c = (code % 3) as u8;
            code /= 3;
            c
        })
        .collect()
}

/// The number of fair full rows (no empty place) of `pins` pins, from [`outcomes`].
pub fn fair_rows_by_search(pins: usize, outcomes_of_length: &[Outcome]) -> u64 {
    // Full rows have every digit 1 or 2: enumerate them as bit patterns.
    (0..1usize << pins)
        .filter(|&bits| {
            let code: usize = (0..pins).map(|i| (1 + (bits >> i & 1)) * 3usize.pow(i as u32)).sum();
            outcomes_of_length[code] == Outcome::Second
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kayles::dawson::dawson_values;

    fn outcome_of(row: &str) -> Outcome {
        let cells: Vec<u8> = row.bytes().map(|b| if b == b'B' { BLUE } else { RED }).collect();
        let code: usize = cells.iter().enumerate().map(|(i, &c)| c as usize * 3usize.pow(i as u32)).sum();
        outcomes(cells.len())[code]
    }

    #[test]
    fn statement_examples() {
        assert_eq!(outcome_of("BRRB"), Outcome::Second);
        assert_eq!(outcome_of("BRBR"), Outcome::First);
        assert_eq!(outcome_of("BBRR"), Outcome::First);
        assert_eq!(outcome_of("BRBB"), Outcome::Blue);
        assert_eq!(outcome_of("B"), Outcome::Blue);
        assert_eq!(outcome_of("BR"), Outcome::First);
    }

    #[test]
    fn winner_rule_holds_up_to_eight_places() {
        let dawson = dawson_values(20);
        for places in 0..=8 {
            for (code, &outcome) in outcomes(places).iter().enumerate() {
                assert_eq!(predicted_outcome(&decode(code, places), &dawson), outcome, "{places} places, code {code}");
            }
        }
        assert_eq!(fair_rows_by_search(6, &outcomes(6)), 8);
    }
}
