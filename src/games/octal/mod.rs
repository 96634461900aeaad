//! Octal games (and Grundy's game): the Grundy values of one heap, their certified
//! period, and the number of sums of heaps that lose for the player to move.
//!
//! Theory (`docs/theory/octal.md`): a code `d0.d1…dk` gives the moves (§1); `G(n)` is
//! the mex of the options' values (§2); the Guy–Smith theorem turns a finite table into
//! a proof of periodicity (§3, [`certify()`]); the sparse-space method computes long tables
//! fast (§4, [`crate::kernels::grundy`]); and the ordered `K`-tuples of heaps with
//! nim-sum 0 are counted from the value counts by a Walsh–Hadamard transform and a power
//! sum (§5, [`count_p_positions`]).

pub mod brute;
mod certify;

pub use certify::{Certificate, Period, certify};

use crate::arith::{inv_mod, is_prime, mul_mod};
use crate::games::{Check, InputError, ProblemId};
use crate::kernels::grundy::{Checkpoint, Checkpoints, GrundyVariant, Overflow, Rules, SparseSplit, sparse_split};
use crate::kernels::powsum::PowsumVariant;
use crate::kernels::wht::WhtVariant;
use crate::memory;
use crate::sched::Scheduler;

/// The most digits after the point.
pub const MAX_DIGITS: usize = 32;
/// The largest `--heaps` (heap indices are kept in 32 bits).
pub const MAX_HEAPS: u64 = u32::MAX as u64 - 1;
/// The first `N` of `--until-periodic` when `--heaps` is not given.
pub const DEFAULT_START_HEAPS: u64 = 1023;
/// Moduli must be primes below this (the transform and power-sum lanes' range).
pub const MODULUS_LIMIT: u64 = 1 << 31;

/// A game: an octal code, or Grundy's game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The canonical name: `0.137`, `4.07`, or `grundy`.
    pub name: String,
    /// The moves.
    pub rules: Rules,
    /// Whether it is octal (so the periodicity theorem applies).
    pub octal: bool,
}

impl Game {
    /// Grundy's game.
    pub fn grundy() -> Self {
        Game { name: "grundy".into(), rules: Rules::GRUNDY, octal: false }
    }

    /// Parses `0.d1…dk`, `.d1…dk`, `4.d1…dk` or `grundy`; the refusal names `problem`.
    pub fn parse(text: &str, problem: ProblemId) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(problem, m));
        let text = text.trim();
        if text.eq_ignore_ascii_case("grundy") {
            return Ok(Self::grundy());
        }
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("0x") || lower.bytes().any(|b| (b'a'..=b'f').contains(&b)) {
            return err(format!(
                "game '{text}' looks hexadecimal; an octal code has digits 0-7, as in 0.137 (or the name grundy)"
            ));
        }
        let Some((head, tail)) = text.split_once('.') else {
            return err(format!(
                "game '{text}' has no point; an octal code is written 0.d1d2...dk, .d1...dk or 4.d1...dk"
            ));
        };
        let d0 = match head {
            "" | "0" => 0u8,
            "4" => 4,
            _ => return err(format!("game '{text}': the digit before the point must be 0 or 4, not '{head}'")),
        };
        if let Some(bad) = tail.chars().find(|c| !c.is_ascii_digit()) {
            return err(format!("game '{text}': '{bad}' is not an octal digit (0-7)"));
        }
        if let Some(bad) = tail.chars().find(|&c| c == '8' || c == '9') {
            return err(format!("game '{text}': the digit {bad} is not octal (digits are 0-7)"));
        }
        if tail.len() > MAX_DIGITS {
            return err(format!(
                "game '{text}' has {} digits after the point; at most {MAX_DIGITS} are supported",
                tail.len()
            ));
        }
        let mut digits = vec![d0];
        digits.extend(tail.bytes().map(|b| b - b'0'));
        while digits.len() > 1 && digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.iter().all(|&d| d == 0) {
            return err(format!("game '{text}' has no non-zero digit, so no move"));
        }
        let name = format!("{d0}.{}", digits[1..].iter().map(|d| char::from(b'0' + d)).collect::<String>());
        Ok(Game { name, rules: Rules::octal(&digits), octal: true })
    }
}

/// The first heap with value `v`: slices checked whole first, so that the compares
/// vectorise.
fn first_of(g: &[u16], v: u16) -> Option<usize> {
    const SLICE: usize = 256;
    g.chunks(SLICE).enumerate().find_map(|(i, slice)| {
        let any = slice.iter().fold(0, |any, &x| any | u16::from(x == v));
        (any == 1).then(|| i * SLICE + slice.iter().position(|&x| x == v).unwrap_or(0))
    })
}

/// What `gamecount grundy` reports about a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The game's canonical name.
    pub game: String,
    /// `N`: the table holds `G(0..=N)`.
    pub heaps: u64,
    /// The largest value and the first heap that has it.
    pub max: u32,
    pub max_at: u64,
    /// The certified period (`None`: none within the table, or not an octal game).
    pub period: Option<Period>,
    /// Whether the game is octal (the theorem applies at all).
    pub octal: bool,
    /// The rare/common division, when it is a sparse one (see [`sparse_space`]).
    pub sparse: Option<SparseSplit>,
    /// Heaps with `G(n) = 0`.
    pub zeros: u64,
}

/// The rare/common division of a table when it is sparse: a mask leaving at most a tenth
/// of the heaps rare (with fewer, the method has nothing to gain and the split says
/// little).
pub fn sparse_space(rules: &Rules, g: &[u16]) -> Option<SparseSplit> {
    let split = sparse_split(rules, g);
    let nonzero = split.mask != 0 || split.position_bit;
    (nonzero && split.rare_count * 10 <= g.len() as u64).then_some(split)
}

impl Report {
    /// The report of `G(0..=N)`.
    pub fn of(game: &Game, g: &[u16]) -> Self {
        let max = g.iter().copied().max().unwrap_or(0);
        let max_at = first_of(g, max).unwrap_or(0);
        let period = match (game.octal, certify(g, game.rules.max_removed())) {
            (true, Certificate::Certified(p)) => Some(p),
            _ => None,
        };
        Report {
            game: game.name.clone(),
            heaps: g.len() as u64 - 1,
            max: max as u32,
            max_at: max_at as u64,
            period,
            octal: game.octal,
            sparse: sparse_space(&game.rules, g),
            // Sums of 16-bit lanes over slices short enough not to overflow them.
            zeros: g.chunks(1 << 15).map(|slice| slice.iter().map(|&v| u16::from(v == 0)).sum::<u16>() as u64).sum(),
        }
    }

    /// The one-line summary.
    pub fn line(&self) -> String {
        let period = match (self.octal, self.period) {
            (false, _) => "no certificate (Grundy's game is not octal: the periodicity theorem does not apply)".into(),
            (true, Some(p)) => format!("preperiod {}, period {} (certified)", p.preperiod, p.period),
            (true, None) => format!("no period certified up to {}", self.heaps),
        };
        let sparse = match self.sparse {
            Some(s) => format!(
                "rare mask {:#x}{}: {} rare, last at {}",
                s.mask,
                if s.position_bit { " with the position bit" } else { "" },
                s.rare_count,
                s.last_rare.map_or("-".into(), |r| r.to_string())
            ),
            None => "no sparse space".into(),
        };
        format!(
            "{} G(0..={}): max {} at {}; {period}; {sparse}; {} zeros",
            self.game, self.heaps, self.max, self.max_at, self.zeros
        )
    }
}

/// Bytes the values of `G(0..=heaps)` take with `variant`: 2 per heap, twice that for
/// `bitset` (its reversed copy).
pub fn table_bytes(heaps: u64, variant: GrundyVariant) -> u64 {
    let per_heap = if variant == GrundyVariant::Bitset { 4 } else { 2 };
    (heaps + 1).saturating_mul(per_heap)
}

/// How [`values`] reaches the last heaps of an octal game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The kernel computes every heap.
    EveryHeap,
    /// The kernel computes tables of doubling length, each checked by [`certify()`]; once a
    /// period is certified, the heaps past the table are copied from it (§3: the theorem
    /// makes them equal to the computed ones). Games that are not octal are computed.
    ByPeriod,
}

/// A table of values and how much of it the kernel computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    /// `G(0..=N)`.
    pub g: Vec<u16>,
    /// The kernel computed `G(0..computed)`; the rest follows from a certified period.
    pub computed: usize,
}

/// The first table [`Reach::ByPeriod`] certifies: shorter ones certify only the smallest
/// games, which take microseconds either way.
const FIRST_CERTIFIED_HEAPS: usize = 1 << 12;

/// The values of `G(0..=heaps)`, with the memory checked first.
pub fn values(
    game: &Game,
    heaps: u64,
    variant: GrundyVariant,
    reach: Reach,
    problem: ProblemId,
    sched: &Scheduler,
) -> Result<Values, InputError> {
    memory::ensure_fits(problem, &format!("the values of {heaps} heaps ({variant})"), table_bytes(heaps, variant))?;
    let last = heaps as usize;
    let mut g = Vec::with_capacity(last + 1);
    if !(game.octal && reach == Reach::ByPeriod) {
        variant.extend(&game.rules, &mut g, last, sched).map_err(|e| overflow(problem, e))?;
        return Ok(Values { computed: g.len(), g });
    }
    let mut period = None;
    {
        let mut check = certifying_check(game.rules.max_removed(), &mut period);
        let mut checks = Checkpoints::new(FIRST_CERTIFIED_HEAPS, &mut check);
        variant.extend_checked(&game.rules, &mut g, last, sched, &mut checks).map_err(|e| overflow(problem, e))?;
    }
    let computed = g.len();
    if let Some(p) = period {
        extend_by_period(&mut g, p, last);
    }
    debug_assert_eq!(g.len(), last + 1);
    Ok(Values { g, computed })
}

/// The check of a table certified as it grows (game removing at most `k` tokens): the
/// certificate, the period into `period` once certified, and the next check.
fn certifying_check(k: usize, period: &mut Option<usize>) -> impl FnMut(&[u16]) -> Checkpoint + Send + '_ {
    move |g| {
        let certificate = certify(g, k);
        if let Certificate::Certified(p) = certificate {
            *period = Some(p.period);
        }
        next_check(certificate, g.len())
    }
}

/// Extends a table that certifies `period` to `G(0..=last)` by the period.
fn extend_by_period(g: &mut Vec<u16>, period: usize, last: usize) {
    // G(x) = G(x - p) for x - p >= e, and the certified table covers x < 2e + 2p + k.
    // The last period, copied whole as often as it fits.
    while g.len() <= last {
        let from = g.len() - period;
        g.extend_from_within(from..from + period.min(last + 1 - g.len()));
    }
}

/// After the certificate of a table of `len` values: stop when certified, else check
/// again at the doubled length, or sooner at the length a candidate period's
/// certificate needs, but not before an eighth more (each check reads the table).
fn next_check(certificate: Certificate, len: usize) -> Checkpoint {
    let doubled = len.saturating_mul(2);
    let next = match certificate {
        Certificate::Certified(_) => return Checkpoint::Stop,
        Certificate::Candidate { heaps_needed, .. } => doubled.min((heaps_needed as usize).saturating_add(1)),
        Certificate::None => doubled,
    };
    Checkpoint::Next(next.max(len + len / 8))
}

fn overflow(problem: ProblemId, e: Overflow) -> InputError {
    InputError::new(problem, format!("{e}; the table cannot go further"))
}

/// The table for `--until-periodic`: from `start` heaps, doubled (or, when a candidate
/// period is in sight, extended to the length its certificate needs, if that is less)
/// until a period is certified, `max_heaps` is reached, or the next length would not fit
/// in memory. Grundy's game has no certificate: it stops at `max_heaps` or memory.
pub fn until_periodic(
    game: &Game,
    start: u64,
    max_heaps: u64,
    variant: GrundyVariant,
    sched: &Scheduler,
) -> Result<Vec<u16>, InputError> {
    let problem = ProblemId::Grundy;
    let mut heaps = start.min(max_heaps);
    memory::ensure_fits(problem, &format!("the values of {heaps} heaps ({variant})"), table_bytes(heaps, variant))?;
    let mut g = Vec::new();
    loop {
        variant.extend(&game.rules, &mut g, heaps as usize, sched).map_err(|e| overflow(problem, e))?;
        let certificate = if game.octal { certify(&g, game.rules.max_removed()) } else { Certificate::None };
        let mut next = heaps.saturating_mul(2).saturating_add(1);
        match certificate {
            Certificate::Certified(_) => return Ok(g),
            Certificate::Candidate { heaps_needed, .. } if heaps_needed > heaps => next = next.min(heaps_needed),
            _ => {}
        }
        let next = next.min(max_heaps);
        if next <= heaps {
            return Ok(g);
        }
        // The table grows in place: the old and the new allocation coexist briefly.
        let growing = table_bytes(next, variant) + (g.len() as u64) * 2;
        if memory::ensure_fits(problem, "the next table", growing).is_err() {
            return Ok(g);
        }
        heaps = next;
    }
}

/// The count of `solve octal`: an exact integer or a residue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// The exact count.
    Exact(u128),
    /// The count modulo the given prime.
    Residue(u32),
}

/// The primes below 2^31 the exact count is assembled from, largest first.
fn crt_primes(count: usize) -> Vec<u32> {
    let mut primes = Vec::with_capacity(count);
    let mut q = (MODULUS_LIMIT - 1) as u32;
    while primes.len() < count {
        if is_prime(q as u64) {
            primes.push(q);
        }
        q -= 2;
    }
    primes
}

/// The number of ordered `components`-tuples of heaps in `0..=N` whose values (`g`, the
/// values of `0..=N`) have nim-sum 0 (docs/theory/octal.md §5): with `c(v)` the number of
/// heaps of value `v` and `ĉ` its Walsh–Hadamard transform over `L = 2^b > max G`, the
/// count is `L^-1 Σ_t ĉ(t)^K`. Modulo `modulus` when given (an odd prime below 2^31),
/// else exact, from the residues modulo enough primes near 2^31 to exceed the bound
/// `(N+1)^K`; refused when the count cannot fit in 128 bits.
pub fn count_p_positions(
    g: &[u16],
    components: u64,
    modulus: Option<u32>,
    sched: &Scheduler,
) -> Result<Count, InputError> {
    let err = |m: String| InputError::new(ProblemId::Octal, m);
    let heaps = g.len() as u64;
    let max = g.iter().copied().max().unwrap_or(0) as usize;
    let len = (max + 1).next_power_of_two();
    let mut counts = vec![0u64; len];
    for &v in g {
        counts[v as usize] += 1;
    }
    let residue = |p: u32| -> u32 {
        let mut data: Vec<u32> = counts.iter().map(|&c| (c % p as u64) as u32).collect();
        WhtVariant::Simd.run(&mut data, p, sched);
        let sum = PowsumVariant::Simd.run(&data, components, p, sched);
        let inv_len = inv_mod(len as u64 % p as u64, p as u64).expect("L is a power of two and p odd");
        mul_mod(sum as u64, inv_len, p as u64) as u32
    };
    if let Some(p) = modulus {
        return Ok(Count::Residue(residue(p)));
    }
    // A lower bound: with K' = K rounded down to even (K' = 0 for K = 1), the count is at
    // least (N+1)^K' / L, since every term of the sum is then non-negative and the t = 0
    // term is (N+1)^K' (and one more component can only keep or add tuples: heap 0 has
    // value 0).
    let log_heaps = (heaps as f64).log2();
    let even = components - components % 2;
    let lower_bits = even as f64 * log_heaps - (len as f64).log2();
    if lower_bits >= 128.0 {
        return Err(err(format!(
            "the count is at least 2^{lower_bits:.0}, too large for 128 bits; give --modulus P for it modulo a prime"
        )));
    }
    // Residues modulo primes whose product exceeds the upper bound (N+1)^K.
    let upper_bits = components as f64 * log_heaps + 2.0;
    let primes = crt_primes(((upper_bits / 30.99).ceil() as usize).max(1));
    let residues: Vec<u32> = primes.iter().map(|&p| residue(p)).collect();
    garner(&primes, &residues)
        .map(Count::Exact)
        .ok_or_else(|| err("the count does not fit in 128 bits; give --modulus P for it modulo a prime".into()))
}

/// The integer below `Π primes` with the given residues, if it fits in 128 bits
/// (Garner's mixed-radix form, evaluated from the top with checked arithmetic).
fn garner(primes: &[u32], residues: &[u32]) -> Option<u128> {
    // x = d0 + d1 p0 + d2 p0 p1 + ...: each digit d_i from the residue modulo p_i.
    let mut digits: Vec<u64> = Vec::with_capacity(primes.len());
    for (&p, &r) in primes.iter().zip(residues) {
        let p = p as u64;
        let (mut value, mut radix) = (0u64, 1u64);
        for (&d, &q) in digits.iter().zip(primes) {
            value = (value + mul_mod(d % p, radix, p)) % p;
            radix = mul_mod(radix, q as u64 % p, p);
        }
        let diff = (r as u64 + p - value) % p;
        digits.push(mul_mod(diff, inv_mod(radix, p).expect("distinct primes"), p));
    }
    // Horner from the top: x = d0 + p0 (d1 + p1 (d2 + ...)).
    let mut acc: u128 = 0;
    for (&d, &p) in digits.iter().zip(primes).rev() {
        acc = acc.checked_mul(p as u128)?.checked_add(d as u128)?;
    }
    // The loop multiplied once too often at the top (by the last prime, before any digit
    // was in): harmless, as acc was 0 then.
    Some(acc)
}

/// Validated parameters of `solve octal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalParams {
    pub game: Game,
    pub heaps: u64,
    pub components: u64,
    pub modulus: Option<u32>,
}

impl OctalParams {
    /// Validates the parameters.
    pub fn new(game: &str, heaps: u64, components: u64, modulus: Option<u64>) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(ProblemId::Octal, m));
        let game = Game::parse(game, ProblemId::Octal)?;
        if heaps > MAX_HEAPS {
            return err(format!("--heaps {heaps} is above the supported maximum of {MAX_HEAPS}"));
        }
        if components == 0 {
            return err("--components must be at least 1 (a sum of no heaps is no game)".into());
        }
        let modulus = match modulus {
            None => None,
            Some(p) if !(3..MODULUS_LIMIT).contains(&p) => {
                return err(format!("--modulus {p} must be an odd prime, at most {} (2^31 - 1)", MODULUS_LIMIT - 1));
            }
            Some(p) if !is_prime(p) => {
                return err(format!(
                    "--modulus {p} is not prime; the method divides by L = 2^b modulo it and reduces exponents by Fermat's theorem"
                ));
            }
            Some(p) => Some(p as u32),
        };
        // Before any work: with values below 2^16 (so L <= 2^16), the bound of
        // count_p_positions already shows that the exact count cannot fit.
        let even = components - components % 2;
        let lower_bits = even as f64 * ((heaps + 1) as f64).log2() - 16.0;
        if modulus.is_none() && lower_bits >= 128.0 {
            return err(format!(
                "the count is at least 2^{lower_bits:.0}, too large for 128 bits; give --modulus P for it modulo a prime"
            ));
        }
        Ok(Self { game, heaps, components, modulus })
    }
}

/// `solve octal`: the values, then the count.
pub fn solve_octal(
    params: &OctalParams,
    variant: GrundyVariant,
    reach: Reach,
    sched: &Scheduler,
) -> Result<Count, InputError> {
    let table = values(&params.game, params.heaps, variant, reach, ProblemId::Octal, sched)?;
    count_p_positions(&table.g, params.components, params.modulus, sched)
}

/// Parses `--kernel` for the Grundy family (default: [`GrundyVariant::fastest`]).
pub fn parse_variant(name: Option<&str>, problem: ProblemId) -> Result<GrundyVariant, InputError> {
    crate::games::parse_kernel(problem, name, GrundyVariant::fastest())
}

/// The checks of `verify`: the brute force of the real game against the values and the
/// nim-sum rule, the variants against the reference, and the period checkpoints.
pub fn checks(deep: bool) -> Vec<Check> {
    let (max_heap, max_digits) = if deep { (14, 3) } else { (12, 3) };
    let mut checks = vec![
        Check::new(
            format!(
                "octal: brute force of every code of up to {max_digits} digits (and Grundy's game), heaps up to {max_heap}, sums of up to three heaps"
            ),
            move |sched| brute::check_codes(max_digits, max_heap, 3, deep, sched),
        ),
        Check::new("octal: every Grundy variant against the naive reference", move |sched| {
            let max = if deep { 600 } else { 200 };
            for &v in GrundyVariant::ALL {
                crate::kernels::grundy::check::check_variant(v, max, sched)?;
            }
            Ok(format!("{} variants agree up to {max} heaps", GrundyVariant::ALL.len()))
        }),
        Check::new("octal: the blocks and parallel variants with short blocks against the reference", move |sched| {
            // At these sizes the default blocks would be all bitset scans: short blocks
            // with no scans put the lag marks and the block hand-offs to work.
            let max = if deep { 600 } else { 200 };
            crate::kernels::grundy::check::check_short_lag_blocks(max, sched)?;
            crate::kernels::grundy::check::check_short_blocks(max, sched)?;
            Ok(format!("blocks of 1 to 64 heaps agree up to {max} heaps"))
        }),
    ];
    checks.push(Check::new("octal: certified periods of 0.07, 0.77, 0.137, 0.156 (Winning Ways ch. 4)", |sched| {
        let mut seen = Vec::new();
        for (code, preperiod, period) in CHECKPOINTS {
            let game = Game::parse(code, ProblemId::Grundy).map_err(|e| e.to_string())?;
            let g = until_periodic(&game, DEFAULT_START_HEAPS, 1 << 20, GrundyVariant::fastest(), sched)
                .map_err(|e| e.to_string())?;
            let report = Report::of(&game, &g);
            match report.period {
                Some(p) if (p.preperiod, p.period) == (preperiod, period) => {
                    seen.push(format!("{code} {preperiod}+{period}"))
                }
                other => return Err(format!("{code}: expected preperiod {preperiod}, period {period}; got {other:?}")),
            }
        }
        Ok(seen.join(", "))
    }));
    checks
}

/// Known periods (Winning Ways ch. 4): code, preperiod, period.
pub const CHECKPOINTS: [(&str, usize, usize); 4] =
    [("0.07", 53, 34), ("0.77", 71, 12), ("0.137", 52, 34), ("0.156", 3479, 349)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_in_every_spelling_and_bad_ones_are_refused() {
        for (text, name) in
            [("0.07", "0.07"), (".07", "0.07"), ("0.070", "0.07"), ("4.07", "4.07"), ("grundy", "grundy")]
        {
            assert_eq!(Game::parse(text, ProblemId::Grundy).unwrap().name, name, "{text}");
        }
        assert_eq!(Game::parse(".137", ProblemId::Grundy).unwrap().rules, Rules::octal(&[0, 1, 3, 7]));
        let too_long = format!("0.{}", "1".repeat(33));
        for (bad, why) in [
            ("0.08", "not octal"),
            ("0.19", "not octal"),
            ("007", "no point"),
            ("1.07", "must be 0 or 4"),
            ("0.000", "no non-zero"),
            (too_long.as_str(), "at most 32"),
            ("0x1f", "hexadecimal"),
            ("0.1a", "hexadecimal"),
            ("0.-1", "not an octal digit"),
        ] {
            let e = Game::parse(bad, ProblemId::Grundy).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(Game::parse(&format!("0.{}", "1".repeat(32)), ProblemId::Grundy).is_ok());
    }

    #[test]
    fn tables_completed_by_the_period_equal_tables_computed_heap_by_heap() {
        // Games certified within 12 000 heaps (so the copy is used), and 0.354 and
        // Grundy's game, which are not (then nothing may be copied).
        let heaps = 12_000;
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for code in ["0.07", "0.77", "0.137", "0.156", "0.354", "grundy"] {
                let game = Game::parse(code, ProblemId::Grundy).unwrap();
                let computed =
                    values(&game, heaps, GrundyVariant::Blocks, Reach::EveryHeap, ProblemId::Grundy, &sched).unwrap();
                assert_eq!(computed.computed, heaps as usize + 1, "{code}");
                for variant in [GrundyVariant::Blocks, GrundyVariant::Sparse, GrundyVariant::Bitset] {
                    let copied = values(&game, heaps, variant, Reach::ByPeriod, ProblemId::Grundy, &sched).unwrap();
                    assert_eq!(copied.g, computed.g, "{code} {variant} on {threads} threads");
                    let certified = !matches!(code, "0.354" | "grundy");
                    assert_eq!(
                        copied.computed < heaps as usize + 1,
                        certified,
                        "{code} {variant}: {}",
                        copied.computed
                    );
                }
            }
        }
    }

    #[test]
    fn the_report_counts_what_a_plain_scan_counts() {
        // Tables of random values around the slices of the scans (256 values for the
        // first maximum, 2^15 for the zeros), the maximum first anywhere.
        let mut rng = crate::kernels::SplitMix64(0x2E90);
        let game = Game::parse("0.07", ProblemId::Grundy).unwrap();
        for len in [1, 2, 255, 256, 257, 32_767, 32_768, 32_769, 70_000] {
            for spread in [1, 3, 40] {
                let mut g: Vec<u16> = (0..len).map(|_| rng.below(spread) as u16).collect();
                let at = rng.below(len as u64) as usize;
                g[at] = 41;
                let report = Report::of(&game, &g);
                let zeros = g.iter().filter(|&&v| v == 0).count() as u64;
                assert_eq!((report.max, report.max_at, report.zeros), (41, at as u64, zeros), "{len} values");
            }
        }
        let zeros = Report::of(&game, &[0; 70_000]);
        assert_eq!((zeros.max, zeros.max_at, zeros.zeros), (0, 0, 70_000));
    }

    #[test]
    fn the_checks_double_or_meet_a_candidate_but_never_crawl() {
        let period = Period { preperiod: 5, period: 7 };
        let candidate = |heaps_needed| Certificate::Candidate { period, heaps_needed };
        assert_eq!(next_check(Certificate::Certified(period), 4096), Checkpoint::Stop);
        assert_eq!(next_check(Certificate::None, 4096), Checkpoint::Next(8192));
        assert_eq!(next_check(candidate(6000), 4096), Checkpoint::Next(6001));
        assert_eq!(next_check(candidate(20_000), 4096), Checkpoint::Next(8192));
        assert_eq!(next_check(candidate(4100), 4096), Checkpoint::Next(4096 + 512));
    }

    #[test]
    fn a_pipelined_run_stops_at_its_certificate_and_the_copy_is_exact() {
        use crate::kernels::grundy::blocks::{Layout, grundy_lag_blocks_in};
        // The marks on the second thread from the first block on, stopped by the
        // certificate inside the pipeline (0.156 is certified near 8000 heaps).
        let sched = Scheduler::new(Some(2)).unwrap();
        let pipelined =
            Layout { block: 32, bitset_heaps: 0, pipeline_heaps: 1, cover_heaps: 256, cover_max_heaps: 512 };
        let game = Game::parse("0.156", ProblemId::Grundy).unwrap();
        let mut period = None;
        let mut g = Vec::new();
        {
            let mut check = certifying_check(game.rules.max_removed(), &mut period);
            let mut checks = Checkpoints::new(FIRST_CERTIFIED_HEAPS, &mut check);
            grundy_lag_blocks_in(&game.rules, &mut g, 12_000, &sched, pipelined, &mut checks).unwrap();
        }
        assert!(g.len() < 12_001, "{}", g.len());
        extend_by_period(&mut g, period.expect("certified"), 12_000);
        assert_eq!(g, GrundyVariant::Naive.values(&game.rules, 12_000, &sched).unwrap());
    }

    #[test]
    fn checkpoints_see_the_growing_table_and_end_the_run() {
        use crate::kernels::grundy::blocks::{Layout, grundy_lag_blocks_in};
        // Grundy's game to at most 20 000 heaps, checked every 1000 from 5000 on and
        // stopped at the first check past 9000: blocks offer the table at the end of
        // the block that reaches each checkpoint, on one thread, and on two with the
        // marks pipelined from the start; the sparse variant is extended to each one.
        let rules = Rules::GRUNDY;
        let pipelined =
            Layout { block: 32, bitset_heaps: 0, pipeline_heaps: 1, cover_heaps: 256, cover_max_heaps: 512 };
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for run in ["blocks", "sparse", "pipelined blocks"] {
                let mut offered = Vec::new();
                let mut check = |g: &[u16]| {
                    offered.push(g.len());
                    if g.len() >= 9000 { Checkpoint::Stop } else { Checkpoint::Next(g.len() + 1000) }
                };
                let mut checks = Checkpoints::new(5000, &mut check);
                let mut g = Vec::new();
                match run {
                    "blocks" => GrundyVariant::Blocks.extend_checked(&rules, &mut g, 20_000, &sched, &mut checks),
                    "sparse" => GrundyVariant::Sparse.extend_checked(&rules, &mut g, 20_000, &sched, &mut checks),
                    _ => grundy_lag_blocks_in(&rules, &mut g, 20_000, &sched, pipelined, &mut checks),
                }
                .unwrap();
                assert!(offered.len() >= 5 && offered[0] >= 5000, "{run}: {offered:?}");
                // Offered within a block of the checkpoint asked for.
                assert!(offered.windows(2).all(|w| (w[0] + 1000..w[0] + 1000 + 32).contains(&w[1])), "{offered:?}");
                assert_eq!(g.len(), *offered.last().unwrap(), "{run}");
                assert!(offered[offered.len() - 2] < 9000 && g.len() >= 9000, "{run}: {offered:?}");
                let whole = GrundyVariant::Naive.values(&rules, g.len() - 1, &sched).unwrap();
                assert_eq!(g, whole, "{run} on {threads} threads");
            }
        }
    }

    #[test]
    fn the_checkpoints_are_certified_and_a_short_table_is_not() {
        let sched = Scheduler::sequential();
        for (code, preperiod, period) in CHECKPOINTS {
            let game = Game::parse(code, ProblemId::Grundy).unwrap();
            let g = until_periodic(&game, 100, 1 << 20, GrundyVariant::Sparse, &sched).unwrap();
            let k = game.rules.max_removed();
            assert_eq!(certify(&g, k), Certificate::Certified(Period { preperiod, period }), "{code}");
            // One heap short of the window, the certificate must fail.
            let need = 2 * preperiod.max(1) + 2 * period + k - 1;
            assert!(!matches!(certify(&g[..need], k), Certificate::Certified(p) if p.period == period), "{code}");
            // And the plain table agrees with the period far beyond the certificate.
            let long = GrundyVariant::Sparse.values(&game.rules, 4 * need, &sched).unwrap();
            assert!((preperiod..long.len() - period).all(|n| long[n] == long[n + period]), "{code}");
            assert_ne!(long[preperiod.max(1) - 1], long[preperiod.max(1) - 1 + period], "{code}: preperiod is least");
        }
    }

    #[test]
    fn the_certificate_follows_the_window_of_the_theorem() {
        // A made-up table: irregular up to 10, then period 3; with k = 2 the window needs
        // 2·11 + 2·3 + 1 = 29 heaps.
        let mut g: Vec<u16> = (0..11).map(|i| 10 + i).collect();
        g.extend((11..40).map(|i| (i % 3) as u16));
        assert_eq!(
            certify(&g[..29], 2),
            Certificate::Candidate { period: Period { preperiod: 11, period: 3 }, heaps_needed: 29 }
        );
        assert_eq!(certify(&g[..30], 2), Certificate::Certified(Period { preperiod: 11, period: 3 }));
    }

    #[test]
    fn counts_match_the_direct_count_of_tuples() {
        let sched = Scheduler::sequential();
        for code in ["0.07", "0.77", "4.07", "grundy"] {
            let game = Game::parse(code, ProblemId::Octal).unwrap();
            let g = GrundyVariant::Naive.values(&game.rules, 9, &sched).unwrap();
            for k in 1..=4u32 {
                // Every ordered k-tuple of heaps 0..=9.
                let mut direct = 0u128;
                for t in 0..10usize.pow(k) {
                    let (mut x, mut s) = (t, 0);
                    for _ in 0..k {
                        s ^= g[x % 10];
                        x /= 10;
                    }
                    direct += (s == 0) as u128;
                }
                assert_eq!(
                    count_p_positions(&g, k as u64, None, &sched).unwrap(),
                    Count::Exact(direct),
                    "{code} k={k}"
                );
                let p = 1_000_000_007u32;
                assert_eq!(
                    count_p_positions(&g, k as u64, Some(p), &sched).unwrap(),
                    Count::Residue((direct % p as u128) as u32)
                );
            }
        }
    }

    #[test]
    fn large_exact_counts_assemble_from_several_primes_or_are_refused() {
        let sched = Scheduler::sequential();
        let g = GrundyVariant::Sparse.values(&Rules::octal(&[0, 7, 7]), 1000, &sched).unwrap();
        // 12 heaps of 0..=1000: about 2^119 / 16 tuples, so four primes are needed.
        let Count::Exact(exact) = count_p_positions(&g, 12, None, &sched).unwrap() else { panic!() };
        for p in [1_000_000_007u32, 998_244_353, 65_537] {
            assert_eq!(count_p_positions(&g, 12, Some(p), &sched).unwrap(), Count::Residue((exact % p as u128) as u32));
        }
        assert!(count_p_positions(&g, 20, None, &sched).unwrap_err().to_string().contains("128 bits"));
    }
}
