//! Shared settings of the bench targets: short runs (2 cores, shared machine) and a
//! header saying what the figures ran on.

use criterion::Criterion;
use std::time::Duration;

/// A criterion configured for minutes, not hours: few samples, short warm-up.
pub fn quick_criterion() -> Criterion {
    eprintln!("{}", gamecount::platform::header(gamecount::simd::Simd::best()));
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}
