// Naive reference for the elementwise_* op tests: the broadcast rule of
// ops.md 6.1 written out per output element, independent of the runtime's
// helpers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

/// Out = fn(X, Y) computed element by element. The lower-rank operand is
/// placed at dims [start, start + rank) of the other one.
template <typename T, typename Fn>
framework::Tensor ReferenceElementwise(const framework::Tensor& x,
                                       const framework::Tensor& y,
                                       int axis,
                                       Fn fn) {
  framework::DDim xd = x.dims();
  framework::DDim yd = y.dims();
  const int rx = static_cast<int>(xd.size());
  const int ry = static_cast<int>(yd.size());
  const int rank = rx > ry ? rx : ry;
  const int diff = std::abs(rx - ry);
  const int start = axis == -1 ? diff : (axis < 0 ? axis + diff + 1 : axis);
  framework::DDim* small = rx < ry ? &xd : &yd;
  if (rx != ry) {
    framework::DDim padded(rank, 1);
    for (size_t i = 0; i < small->size(); ++i) padded[start + i] = (*small)[i];
    *small = padded;
  }
  framework::DDim od(rank);
  for (int i = 0; i < rank; ++i) od[i] = xd[i] == 1 ? yd[i] : xd[i];

  const T* xp = x.data<T>();
  const T* yp = y.data<T>();
  std::vector<T> values(framework::Product(od));
  std::vector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < values.size(); ++flat) {
    int64_t rest = static_cast<int64_t>(flat);
    for (int i = rank - 1; i >= 0; --i) {
      index[i] = rest % od[i];
      rest /= od[i];
    }
    int64_t xi = 0;
    int64_t yi = 0;
    for (int i = 0; i < rank; ++i) {
      xi = xi * xd[i] + (xd[i] == 1 ? 0 : index[i]);
      yi = yi * yd[i] + (yd[i] == 1 ? 0 : index[i]);
    }
    values[flat] = fn(xp[xi], yp[yi]);
  }
  return MakeTensor<T>(od, values, x.lod());
}

/// Runs `op` on X, Y (axis set unless it is kNoAxis) with `threads` and
/// compares Out with ReferenceElementwise.
constexpr int kNoAxis = -100;
template <typename T, typename Fn>
void CheckElementwise(const std::string& op,
                      const framework::Tensor& x,
                      const framework::Tensor& y,
                      int axis,
                      Fn fn,
                      int threads = 1) {
  SCOPED_TRACE(op + " X " + framework::DimsToString(x.dims()) + " Y " +
               framework::DimsToString(y.dims()) + " axis " +
               std::to_string(axis) + " threads " + std::to_string(threads));
  OpTester t(op);
  t.Input("X", x).Input("Y", y).Output("Out", framework::ToDataType<T>());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run(framework::LibraryType::Plain(), threads);
  ExpectTensorNear(
      t.GetOutput("Out"),
      ReferenceElementwise<T>(x, y, axis == kNoAxis ? -1 : axis, fn), 1e-6,
      1e-6);
}

}  // namespace testing
}  // namespace paddle_lite
