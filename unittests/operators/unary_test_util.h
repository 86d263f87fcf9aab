// Helpers for tests of element-wise unary ops (activations): run the op
// and compare every element with a reference function.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

using AttrList = std::vector<std::pair<std::string, framework::Attribute>>;

/// Runs `op` on X with `attrs` and `threads`; returns Out.
inline framework::Tensor RunUnary(const std::string& op,
                                  const framework::Tensor& x,
                                  const AttrList& attrs = {},
                                  int threads = 1) {
  OpTester t(op);
  t.Input("X", x).Output("Out", x.dtype());
  for (const auto& a : attrs) t.Attr(a.first, a.second);
  t.Run(framework::LibraryType::Plain(), threads);
  return t.GetOutput("Out");
}

/// Expects Out[i] == ref(X[i]) within the tolerances; dims and LoD of X.
template <typename T, typename Ref>
void CheckUnary(const std::string& op,
                const framework::Tensor& x,
                const AttrList& attrs,
                Ref ref,
                double atol = 1e-6,
                double rtol = 1e-6,
                int threads = 1) {
  SCOPED_TRACE(op + " X " + framework::DimsToString(x.dims()));
  std::vector<T> expected = ToVector<T>(x);
  for (T& v : expected) v = static_cast<T>(ref(v));
  ExpectTensorNear(RunUnary(op, x, attrs, threads),
                   MakeTensor<T>(x.dims(), expected, x.lod()), atol, rtol);
}

/// Sizes every activation test covers: 0, 1, 13 and 127 elements, and a
/// tensor large enough to be split across 4 threads.
template <typename T, typename Ref>
void CheckUnarySizes(const std::string& op,
                     const AttrList& attrs,
                     Ref ref,
                     double lo = -8,
                     double hi = 8,
                     double atol = 1e-6,
                     double rtol = 1e-6) {
  for (const framework::DDim& dims : std::vector<framework::DDim>{
           {0}, {2, 0, 3}, {}, {1}, {13}, {127}, {3, 13, 127}}) {
    CheckUnary<T>(op, RandomTensor<T>(dims, lo, hi), attrs, ref, atol, rtol);
  }
  CheckUnary<T>(op, RandomTensor<T>({4, 211, 223}, lo, hi), attrs, ref, atol,
                rtol, /*threads=*/4);
}

}  // namespace testing
}  // namespace paddle_lite
