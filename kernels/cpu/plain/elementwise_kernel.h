// Broadcasting loop of the element-wise binary kernels (elementwise_add,
// _sub, _mul, _div), parameterized by a functor. Private to
// kernels/cpu/plain.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/elementwise_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

/// Out = f(X, Y) with X, Y broadcast by `shapes`. The aligned dims are
/// first coalesced: dims of size 1 in the output are dropped and
/// neighbouring dims in which X and Y are broadcast the same way are
/// merged. Equal shapes thus become one flat loop, and the conv-bias case
/// (X [N, C, H, W] + Y [C], axis 1) becomes N*C rows of H*W elements each
/// combined with one scalar of Y. Work is split over output elements, so
/// a single long row is split across threads too. Out's element type
/// may differ from the inputs' (comparisons such as less_than write bool).
template <typename T, typename Functor, typename OutT>
void ElementwiseBroadcastLoop(const platform::CPUDeviceContext& dev,
                              const operators::ElementwiseBroadcast& shapes,
                              const T* x,
                              const T* y,
                              OutT* out,
                              Functor f) {
  const int64_t numel = framework::Product(shapes.out);
  if (numel == 0) return;

  // Coalesced dims, innermost last: size and the element strides of X and
  // Y (0 where that operand is broadcast).
  std::vector<int64_t> size;
  std::vector<int64_t> x_stride;
  std::vector<int64_t> y_stride;
  std::vector<bool> x_bcast;
  std::vector<bool> y_bcast;
  for (size_t i = 0; i < shapes.out.size(); ++i) {
    const int64_t n = shapes.out[i];
    if (n == 1) continue;
    const bool xb = shapes.x[i] == 1;
    const bool yb = shapes.y[i] == 1;
    if (!size.empty() && x_bcast.back() == xb && y_bcast.back() == yb) {
      size.back() *= n;
    } else {
      size.push_back(n);
      x_bcast.push_back(xb);
      y_bcast.push_back(yb);
    }
  }
  if (size.empty()) {  // every dim is 1: a single element
    out[0] = f(x[0], y[0]);
    return;
  }
  const int rank = static_cast<int>(size.size());
  x_stride.assign(rank, 0);
  y_stride.assign(rank, 0);
  int64_t xs = 1;
  int64_t ys = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (!x_bcast[i]) {
      x_stride[i] = xs;
      xs *= size[i];
    }
    if (!y_bcast[i]) {
      y_stride[i] = ys;
      ys *= size[i];
    }
  }
  const int64_t inner = size[rank - 1];
  const bool inner_x_bcast = x_bcast[rank - 1];
  const bool inner_y_bcast = y_bcast[rank - 1];

  dev.ParallelFor(numel, 1.0, [&](int64_t begin, int64_t end) {
    // Multi-index of the row holding `begin` over the outer dims, and the
    // offsets of that row's first element in X and Y.
    std::vector<int64_t> index(rank, 0);
    int64_t row = begin / inner;
    int64_t x_off = 0;
    int64_t y_off = 0;
    for (int d = rank - 2; d >= 0; --d) {
      index[d] = row % size[d];
      row /= size[d];
      x_off += index[d] * x_stride[d];
      y_off += index[d] * y_stride[d];
    }
    int64_t col = begin % inner;
    int64_t pos = begin;
    while (pos < end) {
      const int64_t len = std::min(inner - col, end - pos);
      OutT* o = out + pos;
      if (inner_y_bcast) {
        const T* xp = x + x_off + col;
        const T yv = y[y_off];
        for (int64_t j = 0; j < len; ++j) o[j] = f(xp[j], yv);
      } else if (inner_x_bcast) {
        const T xv = x[x_off];
        const T* yp = y + y_off + col;
        for (int64_t j = 0; j < len; ++j) o[j] = f(xv, yp[j]);
      } else {
        const T* xp = x + x_off + col;
        const T* yp = y + y_off + col;
        for (int64_t j = 0; j < len; ++j) o[j] = f(xp[j], yp[j]);
      }
      pos += len;
      col = 0;
      if (pos >= end) break;
      // Next row: odometer step over the outer dims.
      for (int d = rank - 2; d >= 0; --d) {
        x_off += x_stride[d];
        y_off += y_stride[d];
        if (++index[d] < size[d]) break;
        x_off -= size[d] * x_stride[d];
        y_off -= size[d] * y_stride[d];
        index[d] = 0;
      }
    }
  });
}

/// Reads X, Y and axis from `ctx`, sizes nothing (InferShape did), and
/// fills Out with f(X, Y).
template <typename T, typename Functor>
void ElementwiseCompute(const framework::ExecutionContext& ctx, Functor f) {
  const auto* x = ctx.Input<framework::Tensor>("X");
  const auto* y = ctx.Input<framework::Tensor>("Y");
  auto* out = ctx.Output<framework::Tensor>("Out");
  const operators::ElementwiseBroadcast shapes =
      operators::BroadcastElementwiseDims(ctx.op().Type(), x->dims(), y->dims(),
                                          ctx.Attr<int>("axis"));
  T* o = out->mutable_data<T>(ctx.GetPlace());
  ElementwiseBroadcastLoop<T>(ctx.device_context<platform::CPUDeviceContext>(),
                              shapes, x->data<T>(), y->data<T>(), o, f);
}

/// Kernel for functors that need no checks: T operator()(T x, T y).
template <typename T, typename Functor>
class ElementwiseKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    ElementwiseCompute<T>(ctx, Functor());
  }
};

}  // namespace kernels
}  // namespace paddle_lite
