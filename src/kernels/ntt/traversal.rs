//! The butterfly traversals, independent of what a butterfly computes.
//!
//! A level pairs each block's lower half with its upper half; the callback applies one
//! level to a run of consecutive blocks, numbered from the left, so that it can pick a
//! loop shape by the half-size (a vector loop per block for large halves, one loop over
//! all the small blocks otherwise). This is the shape of the Walsh–Hadamard transform
//! too (a butterfly that ignores the block number), which could share this module.
//!
//! Both traversals are depth-first above [`TILE_LEN`]: a block larger than a tile gets
//! its own level, then each half is finished before the other is touched, so all the
//! levels below the tile size run while the tile is in L1. Below it, level by level.

/// Values of a block finished level by level (16 KiB of `u32`: within L1 with room for
/// the root table).
pub const TILE_LEN: usize = 1 << 12;

/// Decimation in frequency: the top level first, then each half.
///
/// `level(data, half, first_block)` applies one level's butterflies to every block of
/// `data` (blocks of `2·half` values, numbered from `first_block`).
pub fn dif<F>(data: &mut [u32], block: usize, level: &F)
where
    F: Fn(&mut [u32], usize, usize),
{
    let n = data.len();
    debug_assert!(n.is_power_of_two() || n == 0);
    if n <= 1 {
        return;
    }
    if n <= TILE_LEN {
        let (mut half, mut blocks) = (n / 2, 1);
        while half >= 1 {
            level(data, half, block * blocks);
            half /= 2;
            blocks *= 2;
        }
        return;
    }
    level(data, n / 2, block);
    let (lo, hi) = data.split_at_mut(n / 2);
    dif(lo, 2 * block, level);
    dif(hi, 2 * block + 1, level);
}

/// Decimation in time, the mirror of [`dif`]: each half first, then the top level.
pub fn dit<F>(data: &mut [u32], block: usize, level: &F)
where
    F: Fn(&mut [u32], usize, usize),
{
    let n = data.len();
    debug_assert!(n.is_power_of_two() || n == 0);
    if n <= 1 {
        return;
    }
    if n <= TILE_LEN {
        let (mut half, mut blocks) = (1, n / 2);
        while half < n {
            level(data, half, block * blocks);
            half *= 2;
            blocks /= 2;
        }
        return;
    }
    let (lo, hi) = data.split_at_mut(n / 2);
    dit(lo, 2 * block, level);
    dit(hi, 2 * block + 1, level);
    level(data, n / 2, block);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records (level size, block index) in visiting order.
    fn visits(n: usize, forward: bool) -> Vec<(usize, usize)> {
        let log = std::sync::Mutex::new(Vec::new());
        let mut data = vec![0u32; n];
        let record = |data: &mut [u32], half: usize, first: usize| {
            let blocks = data.len() / (2 * half);
            log.lock().unwrap().extend((0..blocks).map(|j| (half, first + j)));
        };
        if forward {
            dif(&mut data, 0, &record)
        } else {
            dit(&mut data, 0, &record)
        }
        log.into_inner().unwrap()
    }

    #[test]
    fn every_block_of_every_level_is_visited_once_and_in_dependency_order() {
        for log_n in [0u32, 1, 2, 5, 12, 13, 14] {
            let n = 1usize << log_n;
            for forward in [true, false] {
                let seen = visits(n, forward);
                // n/2 + n/4 + … + 1 = n - 1 blocks over all levels.
                assert_eq!(seen.len(), n - 1);
                let mut sorted = seen.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), seen.len(), "a block visited twice");
                // A block of half-size h and index b depends on its parent (2h, b/2): the
                // parent comes first going forward and after going back.
                let position = |key: (usize, usize)| seen.iter().position(|&k| k == key).unwrap();
                for &(h, b) in &seen {
                    if 2 * h < n {
                        let (child, parent) = (position((h, b)), position((2 * h, b / 2)));
                        assert_eq!(parent < child, forward, "n={n} h={h} b={b}");
                    }
                }
            }
        }
    }
}
