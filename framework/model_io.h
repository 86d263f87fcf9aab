// Loading and saving PaddlePaddle models: the program file plus parameters,
// combined (`*.pdiparams`, `__params__`) or one file per variable.
#pragma once

#include <memory>
#include <string>

#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor.h"

namespace paddle_lite {
namespace framework {

/// Where a model's files are. `params_file` empty means one file per
/// parameter in `params_dir`.
struct ModelFiles {
  std::string program_file;
  std::string params_file;
  std::string params_dir;
};

/// Finds a model's files. `path` is a folder (holding `*.pdmodel` +
/// `*.pdiparams`, `__model__` + `__params__`/`params`, `model` + `params`,
/// or `__model__` + per-variable files) or a program file (its params are
/// looked for beside it). `params_file`, if given, overrides. Throws
/// NotFound naming what was looked for.
ModelFiles ResolveModelFiles(const std::string& path,
                             const std::string& params_file = "");

/// Reads a whole file; throws NotFound naming it.
std::string ReadFileToString(const std::string& path);
void WriteStringToFile(const std::string& path, const std::string& bytes);

/// A byte cursor over a buffer with errors that name the source.
class ByteReader {
 public:
  ByteReader(const std::string& bytes, std::string source)
      : data_(bytes.data()), size_(bytes.size()), source_(std::move(source)) {}
  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  const std::string& source() const { return source_; }
  /// Copies `n` bytes; throws InvalidArgument ("truncated") naming the
  /// source and `what` when fewer remain.
  void Read(void* dst, size_t n, const std::string& what);
  template <typename T>
  T ReadPod(const std::string& what) {
    T v;
    Read(&v, sizeof(T), what);
    return v;
  }
  /// Points at the next `n` bytes and skips them (no copy).
  const char* Skip(size_t n, const std::string& what);

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string source_;
};

/// Reads one tensor stream (LoD header, tensor header, TensorDesc, data)
/// for variable `var`: errors name the source and the variable.
void DeserializeTensor(ByteReader* reader,
                       const std::string& var,
                       Tensor* tensor);
/// Appends one tensor stream to `out` (the tensor must be on the CPU).
void SerializeTensor(const Tensor& tensor, std::string* out);

/// Loads every parameter of block 0 into `scope` and checks each one's
/// dtype and dims against its VarDesc. Combined: `params_bytes` holds the
/// streams in sorted-name order and must be consumed exactly.
void LoadCombinedParams(const ProgramDesc& program,
                        const std::string& params_bytes,
                        const std::string& source,
                        Scope* scope);
void LoadSeparateParams(const ProgramDesc& program,
                        const std::string& dir,
                        Scope* scope);

/// A loaded model: its program and a scope holding its weights.
struct Model {
  std::shared_ptr<const ProgramDesc> program;
  std::shared_ptr<Scope> weights;
  ModelFiles files;
};

Model LoadModel(const std::string& path, const std::string& params_file = "");
/// From memory: a program and a combined params buffer (may be empty for
/// a program without parameters).
Model LoadModelFromBuffers(const std::string& program_bytes,
                           const std::string& params_bytes);

/// Writes `<prefix>.pdmodel` and `<prefix>.pdiparams` exactly as
/// PaddlePaddle does (params sorted by name, one stream each).
void SaveModel(const ProgramDesc& program,
               const Scope& weights,
               const std::string& prefix);

/// True when `path` names a regular file (following symlinks).
bool IsFile(const std::string& path);

}  // namespace framework
}  // namespace paddle_lite
