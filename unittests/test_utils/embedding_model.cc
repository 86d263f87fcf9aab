#include "unittests/test_utils/embedding_model.h"

#include <algorithm>

#include "framework/program_builder.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/predictor_runs.h"

namespace paddle_lite {
namespace testing {

void SaveEmbeddingModel(const std::string& prefix) {
  using framework::DataType;
  framework::ProgramBuilder b;
  auto ids = b.AddInput("ids", DataType::kInt64, {-1, 1});
  framework::Tensor table;
  table.Resize({kEmbeddingRows, kEmbeddingWidth});
  float* w = table.mutable_data<float>(platform::CPUPlace{});
  for (int64_t i = 0; i < kEmbeddingRows * kEmbeddingWidth; ++i) {
    w[i] = static_cast<float>(i) / 100.f;
  }
  auto weights = b.AddParameter("embedding.w", table);
  auto rows = b.AddVar("rows");
  b.AddOp("lookup_table", {{"Ids", {ids}}, {"W", {weights}}},
          {{"Out", {rows}}}, {{"padding_idx", int64_t{-1}}});
  auto shifted = b.AddVar("shifted");
  b.AddOp("scale", {{"X", {rows}}}, {{"Out", {shifted}}},
          {{"scale", 1.0f}, {"bias", -0.5f}, {"bias_after_scale", true}});
  auto out = b.AddVar("out");
  b.AddOp("relu", {{"X", {shifted}}}, {{"Out", {out}}});
  b.AddOutput(out);
  b.Save(prefix);
}

std::vector<float> EmbeddingRow(int64_t id) {
  std::vector<float> row(kEmbeddingWidth);
  for (int64_t j = 0; j < kEmbeddingWidth; ++j) {
    row[j] = std::max(
        0.f, static_cast<float>(id * kEmbeddingWidth + j) / 100.f - 0.5f);
  }
  return row;
}

std::vector<float> RunEmbedding(Predictor* p, int64_t rows, int64_t id) {
  auto in = p->GetInputHandle("ids");
  in->Reshape({rows, 1});
  std::fill_n(in->mutable_data<int64_t>(), rows, id);
  try {
    p->Run();
  } catch (const Exception&) {
    return {};
  }
  return FirstOutput(p);
}

}  // namespace testing
}  // namespace paddle_lite
