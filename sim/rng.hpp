// SPDX-License-Identifier: MIT
// The simulator's random decisions (wire loss/reordering/bad frames, discontinued completions):
// xorshift64*, seeded from --seed for reproducible runs. Each user keeps its own stream, so enabling
// one kind of fault does not change the decisions of another.
#pragma once
#include <cstdint>

namespace beryl {

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  double uniform() {
    s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
    return double((s * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
  }
};

// splitmix64 finaliser: derives an independent stream's seed from --seed and a stream number
inline uint64_t seed_mix(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace beryl
