// Runs of a predictor on made-up inputs, for the API tests.
#pragma once

#include <cstdint>
#include <vector>

#include "paddle_lite/paddle_lite.h"

namespace paddle_lite {
namespace testing {

/// Sets the predictor's first input to `shape`, filled with `value` times
/// a repeating ramp (-5..5), runs it and returns its first output.
std::vector<float> RunFilled(Predictor* predictor,
                             const std::vector<int64_t>& shape,
                             float value);

/// The predictor's first output, as floats, after a Run().
std::vector<float> FirstOutput(Predictor* predictor);

}  // namespace testing
}  // namespace paddle_lite
