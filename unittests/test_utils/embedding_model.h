// A small model whose run fails on a bad input value (an id past its
// embedding's rows), for the tests of what a failed run leaves behind.
#pragma once

#include <string>
#include <vector>

namespace paddle_lite {
class Predictor;

namespace testing {

/// Rows of the embedding; an id outside [0, kEmbeddingRows) fails the run.
constexpr int64_t kEmbeddingRows = 16;
constexpr int64_t kEmbeddingWidth = 8;

/// Writes `<prefix>.pdmodel` and `<prefix>.pdiparams`: input "ids" (INT64,
/// [-1, 1]); output relu(W[ids] - 0.5), [-1, kEmbeddingWidth], where
/// W[i][j] = (i * kEmbeddingWidth + j) / 100.
void SaveEmbeddingModel(const std::string& prefix);

/// What the model gives for `id`: its kEmbeddingWidth values.
std::vector<float> EmbeddingRow(int64_t id);

/// Runs `rows` ids, all `id`; the outputs, or empty when Run() threw.
std::vector<float> RunEmbedding(Predictor* p, int64_t rows, int64_t id);

}  // namespace testing
}  // namespace paddle_lite
