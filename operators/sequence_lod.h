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
  const std::string mismatch = framework::LoDMismatch(lod, dims);
  PADDLE_ENFORCE(
      mismatch.empty(),
      errors::InvalidArgument(op, ": input ", slot, ": ", mismatch, "."));
}

}  // namespace operators
}  // namespace paddle_lite
