//! The first generation of bitset scans: the sorted pairs in lexicographic order (or, in
//! `wavefront`, in tiles run in any order extending it), each open pair's partner found
//! by a first-zero search over the OR of six rows of the key tables (`tables.rs` of the
//! family).
//!
//! | file | what it holds |
//! |---|---|
//! | `search.rs` | the partner search at one, four and eight words per step, and the next open pair |
//! | `bitset.rs` | the sequential scan over a partner search, one word per step (`bitset`) |
//! | `bitset_wide.rs` | the same, four or eight words per step (`bitset-x4`, `bitset-x8`) |
//! | `wavefront.rs` | tiles of pairs scanned in parallel (`wavefront`), and why the tiled orders are correct |

pub mod bitset;
pub mod bitset_wide;
pub mod search;
pub mod wavefront;
