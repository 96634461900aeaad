//! Brute force of the real stone game: every move of every sorted triple, positions
//! solved in order of their total (which every move lowers). Knows nothing of keys.

/// Losing flags of all sorted triples with piles up to `limit`.
pub struct StoneTable {
    limit: usize,
    losing: Vec<bool>,
}

impl StoneTable {
    /// Solves every position with piles `<= limit` (`(limit+1)^3` bytes).
    pub fn solve(limit: u32) -> Self {
        let limit = limit as usize;
        let side = limit + 1;
        let mut table = Self { limit, losing: vec![false; side * side * side] };
        for total in 0..=3 * limit {
            for x in 0..=limit.min(total / 3) {
                for y in x..=limit.min((total - x) / 2) {
                    let z = total - x - y;
                    if z > limit || z < y {
                        continue;
                    }
                    let losing = !table.has_move_to_losing([x, y, z]);
                    let index = table.index([x, y, z]);
                    table.losing[index] = losing;
                }
            }
        }
        table
    }

    fn index(&self, [x, y, z]: [usize; 3]) -> usize {
        let side = self.limit + 1;
        (x * side + y) * side + z
    }

    /// Tries the moves: `n` stones from each pile of a non-empty subset of the piles.
    fn has_move_to_losing(&self, piles: [usize; 3]) -> bool {
        (1u8..8).any(|subset| {
            let largest_n = (0..3).filter(|&i| subset >> i & 1 == 1).map(|i| piles[i]).min().unwrap();
            (1..=largest_n).any(|n| {
                let mut next = piles;
                (0..3).filter(|&i| subset >> i & 1 == 1).for_each(|i| next[i] -= n);
                next.sort_unstable();
                self.losing[self.index(next)]
            })
        })
    }

    /// Whether the position (in any order) is losing for the player to move.
    pub fn is_losing(&self, mut piles: [u32; 3]) -> bool {
        piles.sort_unstable();
        self.losing[self.index(piles.map(|p| p as usize))]
    }

    /// The losing sorted triples with `z <= limit`, in lexicographic order.
    pub fn losing_triples(&self, limit: u32) -> Vec<[u32; 3]> {
        let limit = limit.min(self.limit as u32);
        let mut out = Vec::new();
        for x in 0..=limit {
            for y in x..=limit {
                for z in y..=limit {
                    if self.is_losing([x, y, z]) {
                        out.push([x, y, z]);
                    }
                }
            }
        }
        out
    }
}
