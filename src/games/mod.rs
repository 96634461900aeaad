//! The four games: each module holds its theory, the mapping from the game to the
//! kernels, the validation of its parameters, and a brute-force solver of the real
//! game that the checks compare against.

pub mod cards;
pub mod coins;
pub mod kayles;
pub mod octal;
pub mod stones;

use crate::sched::Scheduler;
use serde_json::{Map, Value};

/// The problems the engine solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemId {
    /// PE 1015, partisan Kayles.
    Kayles,
    /// PE 260, the three-pile stone game.
    Stones,
    /// PE 798, card stacks.
    Cards,
    /// PE 860, gold and silver coin stacks.
    Coins,
    /// The Grundy values of an octal game (or Grundy's game), `gamecount grundy`.
    Grundy,
    /// Sums of heaps of an octal game: the P-positions among K heaps, `solve octal`.
    Octal,
}

impl ProblemId {
    /// The four Project Euler problems, in the order `solve all` prints them.
    pub const ALL: [ProblemId; 4] = [ProblemId::Kayles, ProblemId::Stones, ProblemId::Cards, ProblemId::Coins];

    /// Every problem: the Project Euler ones, then the octal games.
    pub const EVERY: [ProblemId; 6] =
        [ProblemId::Kayles, ProblemId::Stones, ProblemId::Cards, ProblemId::Coins, ProblemId::Grundy, ProblemId::Octal];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            ProblemId::Kayles => "kayles",
            ProblemId::Stones => "stones",
            ProblemId::Cards => "cards",
            ProblemId::Coins => "coins",
            ProblemId::Grundy => "grundy",
            ProblemId::Octal => "octal",
        }
    }
}

impl std::fmt::Display for ProblemId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A request the engine refuses, with the reason, in one line naming the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The problem the request was for.
    pub problem: ProblemId,
    /// What is wrong and, where there is one, what to do instead.
    pub message: String,
}

impl InputError {
    /// An error for `problem`.
    pub fn new(problem: ProblemId, message: impl Into<String>) -> Self {
        Self { problem, message: message.into() }
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.problem, self.message)
    }
}

impl std::error::Error for InputError {}

/// One computed answer, with what it was computed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Which problem.
    pub problem: ProblemId,
    /// The parameters, in the order the CLI names them.
    pub params: Vec<(&'static str, u64)>,
    /// The answer (a residue, or the exact stone sum).
    pub answer: u64,
    /// Further results besides the answer (`losing` for stones).
    pub extra: Vec<(&'static str, u64)>,
    /// The kernel that computed it.
    pub kernel: &'static str,
}

impl Answer {
    /// `name=value` pairs of the parameters, space-separated.
    pub fn params_text(&self) -> String {
        self.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    }

    /// The parameters as a JSON object.
    pub fn params_json(&self) -> Value {
        Value::Object(self.params.iter().map(|&(k, v)| (k.to_string(), Value::from(v))).collect::<Map<_, _>>())
    }
}

/// A fully validated request for one problem: parameters and kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Partisan Kayles.
    Kayles(kayles::KaylesParams, kayles::KaylesKernel),
    /// The stone game.
    Stones(stones::StonesParams, stones::StonesKernel),
    /// Card stacks.
    Cards(cards::CardsParams, cards::CardsKernel),
    /// Coin stacks.
    Coins(coins::CoinsParams, coins::CoinsKernel),
}

impl Request {
    /// The Project Euler instance of `problem`, with its default kernel on `threads`
    /// threads.
    ///
    /// # Panics
    /// If `problem` is not one of [`ProblemId::ALL`] (the octal games have no instance).
    pub fn instance(problem: ProblemId, threads: usize) -> Self {
        match problem {
            ProblemId::Kayles => {
                let p = kayles::KaylesParams::instance();
                Request::Kayles(p, kayles::KaylesKernel::default_for(&p))
            }
            ProblemId::Stones => {
                let p = stones::StonesParams::instance();
                Request::Stones(p, stones::StonesKernel::default_for(&p, threads))
            }
            ProblemId::Cards => {
                let p = cards::CardsParams::instance();
                Request::Cards(p, cards::CardsKernel::default_for(&p))
            }
            ProblemId::Coins => {
                let p = coins::CoinsParams::instance();
                Request::Coins(p, coins::CoinsKernel::default_for(&p))
            }
            ProblemId::Grundy | ProblemId::Octal => panic!("{problem} is not a Project Euler problem"),
        }
    }

    /// Which problem this is.
    pub fn problem(&self) -> ProblemId {
        match self {
            Request::Kayles(..) => ProblemId::Kayles,
            Request::Stones(..) => ProblemId::Stones,
            Request::Cards(..) => ProblemId::Cards,
            Request::Coins(..) => ProblemId::Coins,
        }
    }

    /// Checks, before any work, that the kernel applies and the memory it needs is there.
    pub fn preflight(&self) -> Result<(), InputError> {
        match self {
            Request::Kayles(p, k) => kayles::preflight(p, *k),
            Request::Stones(p, k) => stones::preflight(p, *k),
            Request::Cards(p, k) => cards::preflight(p, *k),
            Request::Coins(p, k) => coins::preflight(p, *k),
        }
    }

    /// Computes the answer. Memory and kernel applicability are checked before any
    /// large allocation.
    pub fn solve(&self, sched: &Scheduler) -> Result<Answer, InputError> {
        match self {
            Request::Kayles(p, k) => kayles::solve(p, *k, sched),
            Request::Stones(p, k) => stones::solve(p, *k, sched),
            Request::Cards(p, k) => cards::solve(p, *k, sched),
            Request::Coins(p, k) => coins::solve(p, *k, sched),
        }
    }
}

/// Kernel names of `problem`, the default for its Project Euler instance (on all cores)
/// first.
pub fn kernel_names(problem: ProblemId) -> Vec<&'static str> {
    fn default_first<K: Copy + PartialEq>(all: &[K], default: K, name: fn(K) -> &'static str) -> Vec<&'static str> {
        std::iter::once(default).chain(all.iter().copied().filter(|&k| k != default)).map(name).collect()
    }
    match Request::instance(problem, Scheduler::available_cores()) {
        Request::Kayles(_, k) => default_first(kayles::KaylesKernel::ALL, k, kayles::KaylesKernel::name),
        Request::Stones(_, k) => default_first(stones::StonesKernel::ALL, k, stones::StonesKernel::name),
        Request::Cards(_, k) => default_first(cards::CardsKernel::ALL, k, cards::CardsKernel::name),
        Request::Coins(_, k) => default_first(coins::CoinsKernel::ALL, k, coins::CoinsKernel::name),
    }
}

/// The body of a check: given the scheduler, what it confirmed, or what went wrong.
pub type CheckFn = Box<dyn Fn(&Scheduler) -> Result<String, String> + Send + Sync>;

/// One named check of `gamecount verify`: runs, and says what it confirmed or what
/// went wrong.
pub struct Check {
    /// What is checked, e.g. `"kayles: winner rule on every position of <= 12 places"`.
    pub name: String,
    /// The check itself.
    pub run: CheckFn,
}

impl Check {
    /// A check named `name`.
    pub fn new(
        name: impl Into<String>,
        run: impl Fn(&Scheduler) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        Self { name: name.into(), run: Box::new(run) }
    }
}

/// Every check of `verify` (`deep`: the longer pre-release sizes).
pub fn all_checks(deep: bool) -> Vec<Check> {
    let mut checks = kayles::checks(deep);
    checks.extend(octal::checks(deep));
    checks.extend(stones::checks(deep));
    checks.extend(cards::checks(deep));
    checks.extend(coins::checks(deep));
    checks.push(Check::new(
        "every problem: every kernel gives the same answers on every SIMD backend of this CPU",
        |sched| backends_agree(sched.threads(), &backend_requests()),
    ));
    checks
}

/// One request per kernel of each problem, at sizes where every vector path of the
/// kernels runs (more than a few vectors, tails included) and still quick on the portable
/// backend.
pub fn backend_requests() -> Vec<Request> {
    let kayles = kayles::KaylesParams::new(1000, 1_000_000_000).expect("valid");
    let stones = stones::StonesParams::new(300).expect("valid");
    let cards = cards::CardsParams::new(5000, 10_000_000, 1_000_000_007).expect("valid");
    let coins = coins::CoinsParams::new(300, 2, 989_898_989).expect("valid");
    let mut requests: Vec<Request> = Vec::new();
    requests.extend(kayles::KaylesKernel::ALL.iter().map(|&k| Request::Kayles(kayles, k)));
    requests.extend(stones::StonesKernel::ALL.iter().map(|&k| Request::Stones(stones, k)));
    requests.extend(cards::CardsKernel::ALL.iter().map(|&k| Request::Cards(cards, k)));
    requests.extend(coins::CoinsKernel::ALL.iter().map(|&k| Request::Coins(coins, k)));
    requests.retain(|r| r.preflight().is_ok());
    requests
}

/// Solves every request on every SIMD level this CPU has, on `threads` threads, and
/// says whether each gives one answer whatever the backend.
pub fn backends_agree(threads: usize, requests: &[Request]) -> Result<String, String> {
    let levels = crate::simd::Simd::tested();
    for request in requests {
        let mut first: Option<(crate::simd::Simd, Answer)> = None;
        for &simd in &levels {
            let sched = Scheduler::new(Some(threads)).map_err(|e| e.to_string())?.with_simd(simd);
            let answer = request.solve(&sched).map_err(|e| e.to_string())?;
            match &first {
                None => first = Some((simd, answer)),
                Some((base, expected)) if *expected != answer => {
                    return Err(format!(
                        "{} [{}]: {} on {base} but {} on {simd}",
                        request.problem(),
                        answer.kernel,
                        expected.answer,
                        answer.answer
                    ));
                }
                Some(_) => {}
            }
        }
    }
    let names: Vec<&str> = levels.iter().map(|s| s.name()).collect();
    Ok(format!("{} kernel runs agree on {}", requests.len(), names.join(", ")))
}

/// Parses a kernel name for a problem, with the problem in the error.
pub(crate) fn parse_kernel<K: std::str::FromStr<Err = String>>(
    problem: ProblemId,
    name: Option<&str>,
    default: K,
) -> Result<K, InputError> {
    match name {
        None => Ok(default),
        Some(name) => name.parse().map_err(|e: String| InputError::new(problem, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_gives_one_answer_on_every_backend_and_thread_count() {
        let requests = backend_requests();
        // Every problem has kernels that apply at these sizes.
        for problem in ProblemId::ALL {
            assert!(requests.iter().any(|r| r.problem() == problem), "{problem}");
        }
        for threads in [1, 2] {
            let outcome = backends_agree(threads, &requests);
            assert!(outcome.is_ok(), "{threads} threads: {outcome:?}");
        }
    }
}
