//! Brute force of the real games: a position is a multiset of heaps, and it is lost
//! for the player to move exactly when every move leads to a won position (no move:
//! lost). Nothing of the theory is used, so the checks confirm the Grundy values and the
//! nim-sum rule (docs/theory/octal.md §2, §5) independently of the kernels.

use super::Game;
use crate::kernels::grundy::{GrundyVariant, Rules};
use crate::sched::Scheduler;
use std::collections::HashMap;

/// Win/loss of multisets of heaps (sorted, without empty heaps) under one game's rules.
pub struct Outcomes {
    rules: Rules,
    lost: HashMap<Vec<u8>, bool>,
}

impl Outcomes {
    pub fn new(rules: Rules) -> Self {
        Self { rules, lost: HashMap::new() }
    }

    /// Whether the player to move loses from `heaps` (any order, zeros allowed).
    pub fn is_lost(&mut self, heaps: &[u8]) -> bool {
        let mut key: Vec<u8> = heaps.iter().copied().filter(|&h| h > 0).collect();
        key.sort_unstable();
        self.lost_sorted(key)
    }

    fn lost_sorted(&mut self, key: Vec<u8>) -> bool {
        if let Some(&lost) = self.lost.get(&key) {
            return lost;
        }
        let mut lost = true;
        'moves: for (j, &n) in key.iter().enumerate() {
            if j > 0 && key[j - 1] == n {
                continue; // the same move from an equal heap
            }
            let n = n as usize;
            for option in heap_options(&self.rules, n) {
                let mut next: Vec<u8> = key.iter().enumerate().filter(|&(i, _)| i != j).map(|(_, &h)| h).collect();
                next.extend(option.iter().filter(|&&h| h > 0));
                next.sort_unstable();
                if self.lost_sorted(next) {
                    lost = false;
                    break 'moves;
                }
            }
        }
        self.lost.insert(key, lost);
        lost
    }
}

/// What one move can leave of a heap of `n`: nothing, one heap, or two non-empty heaps.
fn heap_options(rules: &Rules, n: usize) -> Vec<Vec<u8>> {
    let mut options = Vec::new();
    for i in 0..64.min(n + 1) {
        if i == n && i > 0 && rules.whole >> i & 1 == 1 {
            options.push(vec![]);
        }
        if i >= 1 && i < n && rules.take >> i & 1 == 1 {
            options.push(vec![(n - i) as u8]);
        }
        if n >= i + 2 && rules.split >> i & 1 == 1 {
            for a in 1..=(n - i) / 2 {
                let b = n - i - a;
                if !(rules.unequal && a == b) {
                    options.push(vec![a as u8, b as u8]);
                }
            }
        }
    }
    options
}

/// Every octal code with `digits` digits after the point (fewer are the same codes with
/// trailing zeros), `d0` 0 or 4, at least one move; then Grundy's game.
pub fn all_codes(digits: usize) -> Vec<Game> {
    let mut games = Vec::new();
    for d0 in [0u8, 4] {
        for code in 0..8usize.pow(digits as u32) {
            let tail: String =
                (0..digits).rev().map(|i| char::from(b'0' + (code / 8usize.pow(i as u32) % 8) as u8)).collect();
            if let Ok(game) = Game::parse(&format!("{d0}.{tail}"), crate::games::ProblemId::Octal) {
                games.push(game);
            }
        }
    }
    games.push(Game::grundy());
    games
}

/// For `game`: every position of one to `parts` heaps of at most `max_heap` tokens each
/// (and, when `parts > 2`, at most `max_heap + 6` in all, which bounds the search) is
/// lost exactly when the nim-sum of the reference values is 0. Returns the positions
/// compared.
pub fn check_game(game: &Game, max_heap: usize, parts: usize, sched: &Scheduler) -> Result<u64, String> {
    let g = GrundyVariant::Naive.values(&game.rules, max_heap, sched).map_err(|e| e.to_string())?;
    let mut outcomes = Outcomes::new(game.rules);
    let total_limit = if parts > 2 { max_heap + 6 } else { usize::MAX };
    let mut compared = 0;
    let mut heaps = Vec::new();
    #[allow(clippy::too_many_arguments)]
    fn visit(
        g: &[u16],
        outcomes: &mut Outcomes,
        heaps: &mut Vec<u8>,
        from: usize,
        parts: usize,
        total_limit: usize,
        compared: &mut u64,
        name: &str,
    ) -> Result<(), String> {
        if !heaps.is_empty() {
            let nim_sum = heaps.iter().fold(0, |s, &h| s ^ g[h as usize]);
            if outcomes.is_lost(heaps) != (nim_sum == 0) {
                return Err(format!(
                    "{name}: heaps {heaps:?} are {} by brute force, but the nim-sum of G is {nim_sum}",
                    if nim_sum == 0 { "won" } else { "lost" }
                ));
            }
            *compared += 1;
        }
        if heaps.len() == parts {
            return Ok(());
        }
        let used: usize = heaps.iter().map(|&h| h as usize).sum();
        for h in from..g.len() {
            if used + h > total_limit {
                break;
            }
            heaps.push(h as u8);
            visit(g, outcomes, heaps, h, parts, total_limit, compared, name)?;
            heaps.pop();
        }
        Ok(())
    }
    visit(&g, &mut outcomes, &mut heaps, 1, parts, total_limit, &mut compared, &game.name)?;
    // Heap 0 alone is lost in every game (no move); the value table must say G(0) = 0.
    if g[0] != 0 {
        return Err(format!("{}: G(0) = {}", game.name, g[0]));
    }
    Ok(compared)
}

/// [`check_game`] for every code of up to `digits` digits and Grundy's game; with
/// `deep`, the three-heap sums go further (at most `max_heap + 12` tokens).
pub fn check_codes(
    digits: usize,
    max_heap: usize,
    parts: usize,
    deep: bool,
    sched: &Scheduler,
) -> Result<String, String> {
    let games = all_codes(digits);
    let mut compared = 0;
    for game in &games {
        compared += check_game(game, max_heap, parts, sched)?;
        if deep {
            compared += check_game(game, max_heap + 6, 2, sched)?;
        }
    }
    Ok(format!("{} games, {compared} positions: outcome = (nim-sum of G != 0)", games.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brute_force_confirms_the_values_and_the_nim_sum_rule_on_two_digit_codes() {
        let sched = Scheduler::sequential();
        let summary = check_codes(2, 9, 3, false, &sched).unwrap();
        assert!(summary.starts_with("128 games"), "{summary}");
    }

    #[test]
    fn brute_force_catches_a_wrong_value() {
        // Kayles with G(5) = 4 replaced by G(1) = 1: the brute force must notice.
        let rules = Rules::octal(&[0, 7, 7]);
        let sched = Scheduler::sequential();
        let mut g = GrundyVariant::Naive.values(&rules, 8, &sched).unwrap();
        g[5] = g[1];
        let mut outcomes = Outcomes::new(rules);
        let wrong = (1..=8u8)
            .flat_map(|a| (a..=8).map(move |b| [a, b]))
            .find(|&[a, b]| outcomes.is_lost(&[a, b]) != (g[a as usize] == g[b as usize]));
        assert!(wrong.is_some());
    }

    #[test]
    fn outcomes_of_small_kayles_rows() {
        // Kayles (0.77): a row of n pins is lost for the mover only for n = 0.
        let mut outcomes = Outcomes::new(Rules::octal(&[0, 7, 7]));
        assert!(outcomes.is_lost(&[]));
        assert!((1..=10).all(|n| !outcomes.is_lost(&[n])));
        // Two equal rows are lost (mirror play).
        assert!(outcomes.is_lost(&[4, 4]) && outcomes.is_lost(&[1, 1]) && !outcomes.is_lost(&[1, 2]));
    }
}
