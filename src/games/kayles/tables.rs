//! The game's fixed tables, built by the compiler: the certified Dawson values
//! ([`dawson::CERTIFIED`]), the signs of the 16 characters on every block length that
//! describes them ([`SIGN_ROWS`]), and the characters' shared rational form
//! `x = num/den` ([`DAWSON_RATIONAL`]).
//!
//! Why at compile time: none of them depends on the row length or the modulus, so they
//! are constants of the game, and building them is work no solve needs to repeat. At run
//! time the three took about 8 µs of a 98 µs `solve kayles --pins 1000`, mostly cold
//! code and data of a fresh process (`gamecount-lab ladder`, Zen 4; docs/design/
//! kayles.md). The code is the run-time code (`const fn`s), which the
//! tests also run at run time and compare with these tables; a Dawson period that fails
//! its certificate stops the build.

use super::{LANES16, RationalLanes, character_sign, dawson};
use std::borrow::Cow;

/// `(rows, P)`: the number of sign rows `2·(j0 + P)` and the period `P` in `u`, for
/// `j0 = max(1, ceil(preperiod / 2))` and `P` the Dawson period, halved if even (see
/// [`super::character_sign_rows`]).
pub const fn sign_rows_shape(dawson: &dawson::DawsonValues) -> (usize, usize) {
    let period = dawson.period();
    let p = if period.is_multiple_of(2) { period / 2 } else { period };
    let j0 = if dawson.preperiod() > 1 { dawson.preperiod().div_ceil(2) } else { 1 };
    (2 * (j0 + p), p)
}

/// `rows[L][h] = (-1)^popcount(h & g(L))` for every row of `rows`.
///
/// # Panics
/// If a Dawson value needs more than the characters' four bits.
pub const fn fill_sign_rows(dawson: &dawson::DawsonValues, rows: &mut [[i32; LANES16]]) {
    assert!((dawson.max_value() as usize) < LANES16, "a Dawson value needs more than four bits");
    let mut l = 0;
    while l < rows.len() {
        let g = dawson.value(l as u64);
        let mut h = 0;
        while h < LANES16 {
            rows[l][h] = character_sign(h as u8, g) as i32;
            h += 1;
        }
        l += 1;
    }
}

const SHAPE: (usize, usize) = sign_rows_shape(&dawson::CERTIFIED);

/// The sign rows of the 16 characters on the certified Dawson values.
pub const SIGN_ROWS: [[i32; LANES16]; SHAPE.0] = {
    let mut rows = [[0; LANES16]; SHAPE.0];
    fill_sign_rows(&dawson::CERTIFIED, &mut rows);
    rows
};

const BUFFERS: (usize, usize, usize) = RationalLanes::sign_rows_buffers(SHAPE.0, SHAPE.1);

/// `(num, den, num length, den length)` of the shared form, in buffers of the sizes
/// [`RationalLanes::fill_from_sign_rows`] asks for.
#[allow(clippy::type_complexity)]
const FORM: ([[i32; LANES16]; BUFFERS.0], [[i32; LANES16]; BUFFERS.1], usize, usize) = {
    let mut num = [[0; LANES16]; BUFFERS.0];
    let mut den = [[0; LANES16]; BUFFERS.1];
    let mut scratch = [[0; LANES16]; BUFFERS.2];
    let (num_len, den_len) =
        RationalLanes::fill_from_sign_rows(&SIGN_ROWS, SHAPE.1, LANES16, &mut num, &mut den, &mut scratch);
    (num, den, num_len, den_len)
};

const NUM: [[i32; LANES16]; BUFFERS.0] = FORM.0;
const DEN: [[i32; LANES16]; BUFFERS.1] = FORM.1;

/// The shared rational form of the 16 Dawson characters (recurrence order 86, the
/// largest order of the characters one by one; the bound is 88, see `rational.rs`), as
/// [`RationalLanes::from_sign_rows`] gives it from [`SIGN_ROWS`].
pub static DAWSON_RATIONAL: RationalLanes =
    RationalLanes { num: Cow::Borrowed(NUM.split_at(FORM.2).0), den: Cow::Borrowed(DEN.split_at(FORM.3).0) };
