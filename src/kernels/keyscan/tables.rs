//! The three key tables as bit-packed rows of `u64` words, and the bits a losing triple
//! marks in them (the search that reads them is in `lexicographic/search.rs`).
//!
//! | table | row | bit | key |
//! |---|---|---|---|
//! | `k1`  | `a` | `b` | `K1(a, b)`: two piles `a <= b` |
//! | `k2`  | `d` | `c` | `K2(d, c)`: a pile `c`, the other two differ by `d` |
//! | `k2t` | `c` | `d` | `K2(d, c)` again, transposed |
//! | `k3`  | `d` | `e` | `K3(d, e)`: gaps `d <= e` between the sorted piles |
//!
//! For a sorted pair `(x, y)`, the six keys of `(x, y, z)` that depend on `z` are bits of
//! six rows (docs/theory/stones.md §3, §9), three read at `z` itself and three at a
//! shifted position:
//!
//! ```text
//! K1(y,z) = k1[y][z]     K2(y-x,z)   = k2[y-x][z]     K2(z-y,x) = k2t[x][z-y]
//! K1(x,z) = k1[x][z]     K3(y-x,z-x) = k3[y-x][z-x]   K2(z-x,y) = k2t[y][z-x]
//! ```
//!
//! The seventh, `K1(x, y)`, does not depend on `z`: when it is marked the pair is already
//! in a losing triple and is skipped. `K2` is kept in both orientations because both are
//! read along rows: with `d` fixed (`K2(y-x, z)`) and with `c` fixed (the other two).
//!
//! Memory layout. The rows are grouped by what indexes them: a *pile group* `a` is row `a`
//! of `k1` followed by row `a` of `k2t`, a *difference group* `d` is row `d` of `k2`
//! followed by row `d` of `k3`. A pair reads the pile groups `y` and `x` and the
//! difference group `y - x`: three contiguous runs of memory. A row is one zero word, the
//! bits `0..=L` (bit `b` in word `1 + b/64`), then zero words: the leading word lets a
//! shifted read start up to 63 bits before bit 0, the trailing ones let an eight-word
//! load that starts at any word holding bits `<= L` stay inside the row, so a search
//! never touches another row (which matters when another thread owns it).

/// Words before bit 0 of every row.
pub const PAD_WORDS: usize = 1;

/// Words per step of the widest search (a block of eight words, 512 candidates for `z`); rows are padded
/// for it.
pub const LANES: usize = 8;

/// The shape of one scan's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The largest pile size `L`.
    pub limit: u32,
    /// Words per row: the pad word, `L/64 + 1` words of bits, and `LANES` spare words so
    /// that a load of `LANES + 1` words starting at any bit word stays in the row.
    pub row_words: usize,
}

impl Layout {
    /// The layout for `limit`.
    pub const fn new(limit: u32) -> Self {
        Self { limit, row_words: PAD_WORDS + (limit as usize >> 6) + 1 + LANES }
    }

    /// Words of one group (two rows).
    pub const fn group_words(self) -> usize {
        2 * self.row_words
    }

    /// Index of the last word holding bits `<= L`, counted from bit 0.
    pub const fn last_word(self) -> usize {
        self.limit as usize >> 6
    }

    /// Bytes of all groups: `L + 1` pile groups and `L + 1` difference groups.
    pub const fn table_bytes(self) -> u64 {
        2 * (self.limit as u64 + 1) * self.group_words() as u64 * 8
    }
}

/// One of the four tables: which group it lives in and at which row of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `K1(a, b)`: pile group `a`, first row, bit `b`.
    K1,
    /// `K2(d, c)` transposed: pile group `c`, second row, bit `d`.
    K2t,
    /// `K2(d, c)`: difference group `d`, first row, bit `c`.
    K2,
    /// `K3(d, e)`: difference group `d`, second row, bit `e`.
    K3,
}

impl Table {
    /// Whether the table's rows are in pile groups (else in difference groups).
    pub const fn in_pile_group(self) -> bool {
        matches!(self, Table::K1 | Table::K2t)
    }

    /// Index, inside a group of `layout`, of the word holding bit `b` of this table's row.
    #[inline(always)]
    pub const fn word_in_group(self, layout: Layout, b: u32) -> usize {
        let row = match self {
            Table::K1 | Table::K2 => 0,
            Table::K2t | Table::K3 => layout.row_words,
        };
        row + PAD_WORDS + (b as usize >> 6)
    }
}

/// The bits a losing triple `(x, y, z)` marks, as `(table, row, bit)`: its seven keys,
/// `K2` in both orientations, except `K1(x, y)`.
///
/// `K1(x, y)` is left out because no later pair reads it. It is read as the skip bit of
/// the pair `(x, y)` itself (done), as `K1(x, z)` by pairs `(x, y')` with `z = y`, so
/// `y' <= y` (done), and as `K1(y', z)` by pairs `(x', x)` with `x' <= x` (done): every
/// reader is `<=` `(x, y)` in the product order, which every scan order extends (see
/// `lexicographic/wavefront.rs`). Leaving it out also spares the next pair of the row a load that would
/// wait for this store.
#[inline(always)]
pub const fn marks(x: u32, y: u32, z: u32) -> [(Table, u32, u32); 9] {
    [
        (Table::K1, y, z),
        (Table::K1, x, z),
        (Table::K2, y - x, z),
        (Table::K2t, z, y - x),
        (Table::K2, z - y, x),
        (Table::K2t, x, z - y),
        (Table::K2, z - x, y),
        (Table::K2t, y, z - x),
        (Table::K3, y - x, z - x),
    ]
}

/// The four tables in two flat allocations (the sequential scans).
#[derive(Clone, Debug)]
pub struct KeyTables {
    /// The row shape.
    pub layout: Layout,
    /// Pile groups `0..=L`.
    pub pile: Vec<u64>,
    /// Difference groups `0..=L`.
    pub diff: Vec<u64>,
}

impl KeyTables {
    /// Empty tables for `limit`.
    pub fn new(limit: u32) -> Self {
        let layout = Layout::new(limit);
        let len = (limit as usize + 1) * layout.group_words();
        Self { layout, pile: vec![0; len], diff: vec![0; len] }
    }

    /// Pile group `a`.
    #[inline(always)]
    pub fn pile_group(&self, a: u32) -> &[u64] {
        let g = self.layout.group_words();
        &self.pile[a as usize * g..(a as usize + 1) * g]
    }

    /// Difference group `d`.
    #[inline(always)]
    pub fn diff_group(&self, d: u32) -> &[u64] {
        let g = self.layout.group_words();
        &self.diff[d as usize * g..(d as usize + 1) * g]
    }

    /// Whether bit `b` of row `r` of `table` is set.
    pub fn get(&self, table: Table, r: u32, b: u32) -> bool {
        let group = if table.in_pile_group() { self.pile_group(r) } else { self.diff_group(r) };
        group[table.word_in_group(self.layout, b)] >> (b & 63) & 1 == 1
    }

    /// Marks the keys of the losing triple `(x, y, z)` (see [`marks`]).
    #[inline(always)]
    pub fn mark(&mut self, x: u32, y: u32, z: u32) {
        let g = self.layout.group_words();
        for (table, r, b) in marks(x, y, z) {
            let words = if table.in_pile_group() { &mut self.pile } else { &mut self.diff };
            words[r as usize * g + table.word_in_group(self.layout, b)] |= 1 << (b & 63);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_leave_room_for_the_widest_load() {
        // A search loads words up to PAD + last + LANES of a row (see search.rs).
        for limit in [0, 1, 62, 63, 64, 65, 511, 512, 1000] {
            let layout = Layout::new(limit);
            assert!(PAD_WORDS + layout.last_word() + LANES < layout.row_words, "{limit}");
        }
    }

    #[test]
    fn marks_are_the_keys() {
        // (1, 3, 3): K1(3,3), K1(1,3) twice, K2(2,3) twice, K2(0,1), K3(2,2)
        // (docs/theory/stones.md §3).
        let mut t = KeyTables::new(4);
        t.mark(1, 3, 3);
        let set = |table, r, b| t.get(table, r, b);
        assert!(set(Table::K1, 3, 3) && set(Table::K1, 1, 3));
        assert!(set(Table::K2, 2, 3) && set(Table::K2t, 3, 2));
        assert!(set(Table::K2, 0, 1) && set(Table::K2t, 1, 0));
        assert!(set(Table::K3, 2, 2));
        let total: u32 = t.pile.iter().chain(&t.diff).map(|w| w.count_ones()).sum();
        assert_eq!(total, 7, "five distinct keys, K2 stored twice");
    }
}
