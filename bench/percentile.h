// The percentile the serve benchmark's programs report, so that
// pdlite_serve_load's latencies and pdlite_tcp_round_trip's floor are
// read the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace pdlite_bench {

/// The q-th percentile (0-100) of `sorted` (ascending) by nearest rank;
/// NaN when empty.
inline double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  long k = std::lround(q / 100.0 * sorted.size() + 0.5) - 1;
  k = std::max(0L, std::min<long>(sorted.size() - 1, k));
  return sorted[k];
}

}  // namespace pdlite_bench
