// The seeded draws scenarios are built from (names, ids, fractions), shared by the VMI
// and the pod planners so both spend a generator's numbers the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace schedopt::sim::scenario_random {

inline std::string hex(std::mt19937_64& rng, int digits) {
  static const char* alphabet = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < digits; ++i)
    out += alphabet[rng() & 0xf];
  return out;
}

inline std::string uuid(std::mt19937_64& rng) {
  return hex(rng, 8) + "-" + hex(rng, 4) + "-4" + hex(rng, 3) + "-a" + hex(rng, 3) + "-" + hex(rng, 12);
}

/// Portworx volume ids are large decimal numbers.
inline std::string px_volume_id(std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> digits{100000000000000000ULL, 999999999999999999ULL};
  return std::to_string(digits(rng));
}

/// `prefix` and `i` zero-padded to the width of `count` (at least 2 digits).
inline std::string numbered(const std::string& prefix, int i, int count) {
  auto width = std::max<std::size_t>(2, std::to_string(count).size());
  auto digits = std::to_string(i);
  return prefix + std::string(width > digits.size() ? width - digits.size() : 0, '0') + digits;
}

/// `n` characters of apiserver's rand.String alphabet (generateName suffixes,
/// pod-template-hash values).
inline std::string name_suffix(std::mt19937_64& rng, int n) {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < n; ++i)
    out += alphabet[rng() % (sizeof(alphabet) - 1)];
  return out;
}

inline bool coin(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<double>{0.0, 1.0}(rng) < p;
}

template <class T> const T& pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[std::uniform_int_distribution<std::size_t>{0, from.size() - 1}(rng)];
}

/// round(fraction * n) indices out of [0, n), chosen by a seeded shuffle.
inline std::vector<bool> chosen(std::mt19937_64& rng, int n, double fraction) {
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  auto count = static_cast<int>(std::llround(fraction * n));
  std::vector<bool> out(n, false);
  for (int i = 0; i < count && i < n; ++i)
    out[order[i]] = true;
  return out;
}

} // namespace schedopt::sim::scenario_random
