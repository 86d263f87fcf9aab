// Places buffers with known sizes and lifetimes in one arena so that
// buffers whose lifetimes overlap never share bytes, and buffers that are
// never alive together do. The executor plans each input-shape signature
// once (see executor.cc).
#pragma once

#include <cstddef>
#include <vector>

namespace paddle_lite {
namespace framework {

struct BufferLifetime {
  size_t bytes = 0;
  int first_op = 0;  // index of the op that first writes it
  int last_op = 0;   // index of the last op that reads or writes it
};

struct MemoryPlanResult {
  std::vector<size_t> offsets;  // per buffer, aligned to `alignment`
  size_t arena_bytes = 0;       // the peak: bytes the arena needs
  size_t total_bytes = 0;       // what separate buffers would take
};

/// Greedy best-fit by decreasing size: each buffer goes to the lowest
/// offset where it overlaps no already-placed buffer alive at the same
/// time.
MemoryPlanResult PlanMemory(const std::vector<BufferLifetime>& buffers,
                            size_t alignment = 64);

}  // namespace framework
}  // namespace paddle_lite
