// Runs one op through the real executor for op unit tests.
//
//   OpTester t("relu");
//   t.Input("X", MakeTensor<float>({2, 3}, {-1, 0, 1, 2, -3, 4}))
//    .Output("Out");
//   t.Run();                       // the PLAIN kernel on CPU
//   ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>(...));
//
//   t.RunAllKernels();             // every kernel registered for the op
//                                  // compared with PLAIN (section 8 of
//                                  // STYLE.md)
#pragma once

#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/kernel_registry.h"
#include "framework/tensor.h"
#include "gtest/gtest.h"

namespace paddle_lite {
namespace testing {

/// A CPU tensor with the given dims and values (values.size() must equal
/// the element count).
template <typename T>
framework::Tensor MakeTensor(const framework::DDim& dims,
                             const std::vector<T>& values,
                             const framework::LoD& lod = {});

/// Deterministic pseudo-random values in [lo, hi) (seeded).
template <typename T>
framework::Tensor RandomTensor(const framework::DDim& dims,
                               double lo = -1.0,
                               double hi = 1.0,
                               uint32_t seed = 1);

/// The values of a CPU tensor as a vector.
template <typename T>
std::vector<T> ToVector(const framework::Tensor& t);

/// 0, 1, ..., n - 1: values whose every position is told apart, for ops
/// that move elements (reshape, slice, split).
std::vector<float> IotaValues(int64_t n);

/// Same dims, dtype and LoD, and |got - expected| <= atol + rtol*|expected|
/// element-wise (NaN equals NaN). Reports the first mismatches.
void ExpectTensorNear(const framework::Tensor& got,
                      const framework::Tensor& expected,
                      double atol = 1e-5,
                      double rtol = 1e-5);

class OpTester {
 public:
  explicit OpTester(std::string op_type);

  /// Binds one tensor to an input slot (a variable named "<slot>" is
  /// made for it).
  OpTester& Input(const std::string& slot, framework::Tensor value);
  /// Binds one tensor to an input slot as a model parameter: a persistable
  /// variable in the root scope while the op runs in a child scope, as in
  /// a predictor (kernels may cache what they derive from parameters).
  OpTester& Parameter(const std::string& slot, framework::Tensor value);
  /// Binds several tensors to a duplicable slot ("<slot>.0", "<slot>.1"..).
  OpTester& Inputs(const std::string& slot,
                   std::vector<framework::Tensor> values);
  /// Declares an output slot with `count` variables; dtype is the declared
  /// element type in the program (kernel choice reads declared types).
  OpTester& Output(const std::string& slot,
                   framework::DataType dtype = framework::DataType::kFloat32,
                   int count = 1);
  OpTester& Attr(const std::string& name, framework::Attribute value);
  /// Makes output `out_slot` the same variable as input `in_slot` (ops
  /// that write in place, like set_value or batch_norm's MeanOut).
  OpTester& AliasOutputToInput(const std::string& out_slot,
                               const std::string& in_slot);
  /// Runs with DeviceContext::batch_invariant set.
  OpTester& BatchInvariant(bool on = true);

  /// Runs with the kernel of `library` on CPU (falling back like the
  /// executor does). Throws paddle_lite::Exception on errors.
  void Run(framework::LibraryType library = framework::LibraryType::Plain(),
           int threads = 1);
  /// Runs on `place` (inputs are copied there by the executor; outputs
  /// stay there).
  void RunOn(const platform::Place& place,
             framework::LibraryType library,
             int threads = 1);
  /// Runs every kernel registered for this op on CPU for the inputs' dtype
  /// and checks each against the PLAIN result within the tolerances.
  void RunAllKernels(double atol = 1e-5, double rtol = 1e-5);

  /// The output after Run(); `i` picks from a duplicable slot.
  const framework::Tensor& GetOutput(const std::string& slot,
                                     size_t i = 0) const;

 private:
  void RunDeviceKernels(const platform::Place& place,
                        framework::DataType dtype,
                        const std::vector<framework::Tensor>& reference,
                        double atol,
                        double rtol);

  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// Expects `fn` to throw paddle_lite::Exception with `code` and a message
/// containing every string of `fragments`.
void ExpectError(const std::function<void()>& fn,
                 ErrorCode code,
                 const std::vector<std::string>& fragments);

}  // namespace testing
}  // namespace paddle_lite
