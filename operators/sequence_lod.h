// LoD checks shared by the sequence ops (sequence_conv, sequence_pool;
// ops.md 16.1): a kernel reads the last LoD level as row offsets, so shape
// inference makes sure the offsets really describe the tensor's rows.
#pragma once

#include <string>
#include <vector>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

/// Checks every level of `lod` against a tensor of `rows` rows: each level
/// starts at 0 and never decreases, each level ends at the number of
/// entries of the level below (minus one), the last level ends at `rows`.
/// Throws InvalidArgument naming `op`, `slot`, the LoD and the dims when
/// the tensor has no LoD or it does not fit.
inline void CheckSequenceLoD(const framework::LoD& lod,
                             const framework::DDim& dims,
                             const std::string& op,
                             const std::string& slot) {
  PADDLE_ENFORCE(!lod.empty() && !dims.empty(),
                 errors::InvalidArgument(
                     op, ": input ", slot, " ", dims,
                     " must carry LoD (sequence offsets); feed the model "
                     "input it comes from with its LoD (pdlite run --lod "
                     "<input>=0,3,5, or Tensor::SetLoD)."));
  for (size_t level = 0; level < lod.size(); ++level) {
    const std::vector<size_t>& offsets = lod[level];
    const bool lowest = level + 1 == lod.size();
    // An empty lower level has no offsets to index: nothing fits it.
    const bool lower_empty = !lowest && lod[level + 1].empty();
    const size_t end = lowest        ? static_cast<size_t>(dims[0])
                       : lower_empty ? 0
                                     : lod[level + 1].size() - 1;
    bool ok = !lower_empty && !offsets.empty() && offsets.front() == 0 &&
              offsets.back() == end;
    for (size_t i = 1; ok && i < offsets.size(); ++i) {
      ok = offsets[i - 1] <= offsets[i];
    }
    PADDLE_ENFORCE(ok, errors::InvalidArgument(
                           op, ": LoD level ", level, " of input ", slot,
                           " is not valid for ", dims, " (LoD ",
                           framework::DDim(offsets.begin(), offsets.end()),
                           " of ", lod.size(),
                           " levels): offsets must start at 0, never "
                           "decrease and end at ",
                           end, "."));
  }
}

}  // namespace operators
}  // namespace paddle_lite
