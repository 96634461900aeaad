//! The reference scan of docs/theory/stones.md §5: three `(L+1)^2` byte tables, seven
//! look-ups per sorted triple, no shortcuts.

use super::StoneScan;

/// Scans every sorted triple with `z <= limit` in lexicographic order.
pub fn keyscan_naive(limit: u32, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    let side = limit as usize + 1;
    let cell = |a: u32, b: u32| a as usize * side + b as usize;
    let mut one = vec![false; side * side]; // K1(a, b): two piles of sizes a <= b
    let mut two = vec![false; side * side]; // K2(d, c): a pile c, the other two differ by d
    let mut all = vec![false; side * side]; // K3(d, e): gaps d <= e between sorted piles
    let mut scan = StoneScan::default();
    for x in 0..=limit {
        for y in x..=limit {
            for z in y..=limit {
                let keys_one = [cell(y, z), cell(x, z), cell(x, y)];
                let keys_two = [cell(y - x, z), cell(z - y, x), cell(z - x, y)];
                let key_all = cell(y - x, z - x);
                let marked = keys_one.iter().any(|&k| one[k]) || keys_two.iter().any(|&k| two[k]) || all[key_all];
                if !marked {
                    scan.record(x, y, z);
                    sink(x, y, z);
                    keys_one.iter().for_each(|&k| one[k] = true);
                    keys_two.iter().for_each(|&k| two[k] = true);
                    all[key_all] = true;
                }
            }
        }
    }
    scan
}
