// A straightforward scalar C++ implementation of the cards (PE 798) pipeline, used only to
// measure `gamecount solve cards` against scalar C++ (the goal: at least 10x faster).
// It follows the same algorithm: frequencies in O(N) from factorial tables and the
// binomial-tail recurrence, a level-by-level Walsh-Hadamard transform, one modular power
// per value, and C(n, s) = L^-1 · sum of the powers. No SIMD code, no threads, no tiling;
// the compiler may vectorise what it can at -O2.
//
// Build and run (never commit the binary):
//   g++ -O2 -march=native -o /tmp/cards-baseline scripts/baselines/cards.cpp
//   /tmp/cards-baseline 10000000 10000000 [1000000007]
// Prints the answer on stdout and the time of each stage on stderr.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using u32 = uint32_t;
using u64 = uint64_t;

static u64 pow_mod(u64 base, u64 exp, u64 p) {
    u64 result = 1 % p;
    base %= p;
    while (exp > 0) {
        if (exp & 1) result = result * base % p;
        base = base * base % p;
        exp >>= 1;
    }
    return result;
}

// F_n(v) mod p for v < n into f[0..n) (docs/theory/cards.md §6-8): factorial tables, then the
// recurrence 2·A_k = A_{k-1} + 2·C(R, k-2) + C(R, k-3) with R = n - k - 2.
static void frequencies(u64 n, u64 p, std::vector<u32>& f) {
    std::vector<u32> fact(n + 1), inv_fact(n + 1);
    fact[0] = 1;
    for (u64 k = 1; k <= n; ++k) fact[k] = (u32)(fact[k - 1] * k % p);
    inv_fact[n] = (u32)pow_mod(fact[n], p - 2, p);
    for (u64 k = n; k >= 1; --k) inv_fact[k - 1] = (u32)(inv_fact[k] * k % p);
    auto binom = [&](int64_t a, int64_t b) -> u64 {
        if (a < 0 || b < 0 || b > a) return 0;
        return (u64)fact[a] * inv_fact[b] % p * inv_fact[a - b] % p;
    };
    const u64 inv2 = (p + 1) / 2;
    if (n == 1) {
        f[0] = (u32)(2 % p);
        return;
    }
    f[0] = (u32)((pow_mod(2, n - 2, p) + 2) % p);
    u64 pow_r1 = pow_mod(2, n - 2, p);  // 2^(R+1) at k = 1
    u64 a = 0;                          // A_1
    for (int64_t k = 1; 2 * k - 1 < (int64_t)n; ++k) {
        int64_t r = (int64_t)n - k - 2;
        if (k >= 2) a = (a + 2 * binom(r, k - 2) + binom(r, k - 3)) % p * inv2 % p;
        u64 b = (2 * a + p - binom(r, k - 2)) % p;
        f[2 * k - 1] = (u32)((pow_r1 + binom(r + 1, k) + p - b) % p);
        if (2 * k < (int64_t)n) {
            u64 pow_r = pow_r1 * inv2 % p;
            f[2 * k] = (u32)((pow_r + binom(r, k) + p - a) % p);
        }
        pow_r1 = pow_r1 * inv2 % p;
    }
}

// In-place Walsh-Hadamard transform mod p, one level at a time.
static void wht(std::vector<u32>& x, u32 p) {
    const size_t n = x.size();
    for (size_t half = 1; half < n; half *= 2) {
        for (size_t block = 0; block < n; block += 2 * half) {
            for (size_t i = block; i < block + half; ++i) {
                u32 u = x[i], v = x[i + half];
                u32 s = u + v;  // < 2p < 2^32
                x[i] = s >= p ? s - p : s;
                x[i + half] = u >= v ? u - v : u + p - v;
            }
        }
    }
}

static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s N S [P]\n", argv[0]);
        return 2;
    }
    const u64 n = std::strtoull(argv[1], nullptr, 10);
    const u64 s = std::strtoull(argv[2], nullptr, 10);
    const u64 p = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000007ULL;
    u64 len = 1;
    while (len < n) len *= 2;

    auto start = std::chrono::steady_clock::now();
    std::vector<u32> f(len, 0);
    frequencies(n, p, f);
    double t_freq = seconds_since(start);

    auto t1 = std::chrono::steady_clock::now();
    wht(f, (u32)p);
    double t_wht = seconds_since(t1);

    auto t2 = std::chrono::steady_clock::now();
    const u64 e = (s - 1) % (p - 1) + 1;  // Fermat; keeps 0^e = 0
    u64 sum = 0;
    for (u32 x : f) sum = (sum + pow_mod(x, e, p)) % p;
    double t_pow = seconds_since(t2);

    const u64 answer = sum * pow_mod(len % p, p - 2, p) % p;
    std::printf("%llu\n", (unsigned long long)answer);
    std::fprintf(stderr, "frequencies %.3f s, transform %.3f s, powers %.3f s, total %.3f s\n", t_freq, t_wht, t_pow,
                 seconds_since(start));
    return 0;
}
