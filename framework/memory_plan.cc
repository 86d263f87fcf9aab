#include "framework/memory_plan.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace paddle_lite {
namespace framework {

MemoryPlanResult PlanMemory(const std::vector<BufferLifetime>& buffers,
                            size_t alignment) {
  MemoryPlanResult result;
  result.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  auto rounded = [alignment](size_t bytes) {
    return (bytes + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> placed;
  placed.reserve(buffers.size());
  // Intervals already taken by buffers alive at the same time as the one
  // being placed (one vector for all: a plan is made at each new shape).
  std::vector<std::pair<size_t, size_t>> taken;
  taken.reserve(buffers.size());
  for (size_t idx : order) {
    const BufferLifetime& buf = buffers[idx];
    size_t size = rounded(buf.bytes);
    result.total_bytes += size;
    taken.clear();
    for (size_t other : placed) {
      const BufferLifetime& o = buffers[other];
      if (o.last_op < buf.first_op || buf.last_op < o.first_op) continue;
      taken.emplace_back(result.offsets[other],
                         result.offsets[other] + rounded(o.bytes));
    }
    std::sort(taken.begin(), taken.end());
    // Best fit: the smallest gap that holds it, else the end.
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (auto& t : taken) {
      if (t.first > cursor && t.first - cursor >= size &&
          t.first - cursor < best_gap) {
        best = cursor;
        best_gap = t.first - cursor;
      }
      cursor = std::max(cursor, t.second);
    }
    if (best == SIZE_MAX) best = cursor;
    result.offsets[idx] = best;
    result.arena_bytes = std::max(result.arena_bytes, best + size);
    placed.push_back(idx);
  }
  return result;
}

}  // namespace framework
}  // namespace paddle_lite
