#include "unittests/test_utils/predictor_runs.h"

namespace paddle_lite {
namespace testing {

std::vector<float> RunFilled(Predictor* predictor,
                             const std::vector<int64_t>& shape,
                             float value) {
  auto in = predictor->GetInputHandle(predictor->GetInputNames()[0]);
  in->Reshape(shape);
  int64_t n = 1;
  for (auto d : shape) n *= d;
  float* data = in->mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) data[i] = value * ((i % 11) - 5);
  predictor->Run();
  return FirstOutput(predictor);
}

std::vector<float> FirstOutput(Predictor* predictor) {
  auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
  int64_t size = 0;
  const float* o = out->data<float>(&size);
  return std::vector<float>(o, o + size);
}

}  // namespace testing
}  // namespace paddle_lite
