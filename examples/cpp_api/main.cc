// The README's C++ example: load a model, feed one input, run, read the
// first output.
//
//   cpp_api_example MODEL_DIR INPUT.npy
//
// (The .npy reading is a small helper of this example; the API itself
// takes plain buffers.)
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "paddle_lite/paddle_lite.h"

// Reads a little-endian float32 .npy file (C order) into `data`/`shape`.
static bool ReadFloatNpy(const std::string& path, std::vector<float>* data,
                         std::vector<int64_t>* shape) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return false;
  uint16_t header_len;
  std::memcpy(&header_len, &bytes[8], 2);
  std::string header = bytes.substr(10, header_len);
  if (header.find("'<f4'") == std::string::npos) return false;
  auto open = header.find('(');
  auto close = header.find(')');
  std::string dims = header.substr(open + 1, close - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string item = dims.substr(pos, comma - pos);
    if (item.find_first_of("0123456789") != std::string::npos) {
      shape->push_back(std::stoll(item));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  int64_t n = std::accumulate(shape->begin(), shape->end(), int64_t{1},
                              std::multiplies<int64_t>());
  size_t offset = 10 + header_len;
  if (bytes.size() != offset + n * sizeof(float)) return false;
  data->resize(n);
  std::memcpy(data->data(), bytes.data() + offset, n * sizeof(float));
  return true;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " MODEL_DIR INPUT.npy\n";
    return 2;
  }
  std::vector<float> data;
  std::vector<int64_t> shape;
  if (!ReadFloatNpy(argv[2], &data, &shape)) {
    std::cerr << "cannot read a float32 .npy from " << argv[2] << "\n";
    return 1;
  }
  try {
    paddle_lite::Config config(argv[1]);  // or (model_file, params_file)
    config.SetCpuThreads(2);
    auto predictor = paddle_lite::CreatePredictor(config);
    auto in = predictor->GetInputHandle(predictor->GetInputNames()[0]);
    in->Reshape(shape);
    in->CopyFromCpu(data.data());
    predictor->Run();
    auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
    std::vector<int64_t> out_shape = out->shape();
    int64_t n = std::accumulate(out_shape.begin(), out_shape.end(),
                                int64_t{1}, std::multiplies<int64_t>());
    std::vector<float> result(n);
    out->CopyToCpu(result.data());
    std::cout << out->name() << " [";
    for (size_t i = 0; i < out_shape.size(); ++i) {
      std::cout << (i ? ", " : "") << out_shape[i];
    }
    std::cout << "]:";
    for (int64_t i = 0; i < n && i < 10; ++i) std::cout << " " << result[i];
    std::cout << (n > 10 ? " ..." : "") << "\n";
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
