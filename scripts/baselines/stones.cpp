// Baselines for `gamecount solve stones`: the plain scan of docs/theory/stones.md §5, written
// independently, used only to measure `gamecount solve stones` against the best C++ scan
// (the goal: at least 30x faster).
//
// Build (never commit the binary):
//   g++ -O2 -march=native -o /tmp/stones-baseline scripts/baselines/stones.cpp
// Run:
//   /tmp/stones-baseline 1000 plain       # three (L+1)^2 byte tables, every sorted triple
//   /tmp/stones-baseline 1000 shortcuts   # the same, plus the shortcuts (docs/theory/stones.md §9)
// Prints the sum over the losing triples and their number.
//
// plain: x <= y <= z <= L in lexicographic order; a triple is losing when none of its
// seven keys K1(y,z) K1(x,z) K1(x,y) K2(y-x,z) K2(z-y,x) K2(z-x,y) K3(y-x,z-x) is marked,
// and then all seven are marked. O(L^3) look-ups.
// shortcuts: skip a pair (x, y) whose K1(x, y) is marked, and leave the z loop after the
// first losing z (a pair has at most one losing partner).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Result {
    uint64_t sum = 0;
    uint64_t losing = 0;
};

static Result scan(uint32_t limit, bool shortcuts) {
    const size_t side = size_t(limit) + 1;
    std::vector<uint8_t> one(side * side), two(side * side), all(side * side);
    auto id = [side](uint32_t a, uint32_t b) { return size_t(a) * side + b; };
    Result r;
    for (uint32_t x = 0; x <= limit; ++x) {
        for (uint32_t y = x; y <= limit; ++y) {
            if (shortcuts && one[id(x, y)]) continue;
            for (uint32_t z = y; z <= limit; ++z) {
                if (one[id(y, z)] || one[id(x, z)] || one[id(x, y)] || two[id(y - x, z)] || two[id(z - y, x)] ||
                    two[id(z - x, y)] || all[id(y - x, z - x)])
                    continue;
                r.sum += uint64_t(x) + y + z;
                r.losing += 1;
                one[id(y, z)] = one[id(x, z)] = one[id(x, y)] = 1;
                two[id(y - x, z)] = two[id(z - y, x)] = two[id(z - x, y)] = 1;
                all[id(y - x, z - x)] = 1;
                if (shortcuts) break;
            }
        }
    }
    return r;
}

int main(int argc, char** argv) {
    if (argc != 3 || (std::strcmp(argv[2], "plain") != 0 && std::strcmp(argv[2], "shortcuts") != 0)) {
        std::fprintf(stderr, "usage: %s L plain|shortcuts\n", argv[0]);
        return 2;
    }
    const uint32_t limit = uint32_t(std::strtoul(argv[1], nullptr, 10));
    const Result r = scan(limit, std::strcmp(argv[2], "shortcuts") == 0);
    std::printf("%llu %llu\n", (unsigned long long)r.sum, (unsigned long long)r.losing);
    return 0;
}
