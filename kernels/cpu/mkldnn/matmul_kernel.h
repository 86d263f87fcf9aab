// The oneDNN kernels of matmul_v2, matmul, mul and fc: one matmul
// primitive over strided views of our buffers (fc adds its bias and relu
// to the primitive). Private to kernels/cpu/mkldnn.
//
// Each op's rules (operators/matmul_shape.h, mul's flattening) give a
// batched product; it is handed to oneDNN as [batch..., m, k] x
// [batch..., k, n] descriptors whose strides express the transposes and
// whose batch dims of size 1 broadcast. alpha (matmul v1) is the
// primitive's output scale.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// One batched product in oneDNN terms: X is [batch..., m, k] with the
/// batch dims `x_batch` (1 = broadcast), stored [.., k, m] when trans_x;
/// likewise Y [batch..., k, n], stored [.., n, k] when trans_y. Out is
/// dense [out_batch..., m, n].
struct MatmulProblem {
  Dims x_batch;
  Dims y_batch;
  Dims out_batch;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool trans_x = false;
  bool trans_y = false;
  float alpha = 1.f;
  /// Adds a bias of n elements to every row (fc).
  bool bias = false;
  /// "" or "relu", applied last (fc).
  std::string activation;
};

/// A descriptor of a [batch..., rows, cols] operand stored row-major as
/// [batch..., rows, cols], or as [batch..., cols, rows] when `transposed`.
inline dnnl::memory::desc MatrixMd(const Dims& batch,
                                   int64_t rows,
                                   int64_t cols,
                                   bool transposed) {
  Dims dims = batch;
  dims.push_back(rows);
  dims.push_back(cols);
  const int rank = static_cast<int>(dims.size());
  Dims strides(rank);
  strides[rank - 2] = transposed ? 1 : cols;
  strides[rank - 1] = transposed ? rows : 1;
  int64_t step = rows * cols;
  for (int i = rank - 3; i >= 0; --i) {
    strides[i] = step;
    step *= dims[i];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

struct MatmulPrimitive {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

/// Products of fewer multiply-adds than this run on a plain loop
/// (RunSmallMatmul), in microseconds, where oneDNN makes a primitive for
/// each shape (0.2-0.5 ms, and a cache entry: the OCR classifier's
/// [batch, 200] x [200, 2] fc made one per batch size).
constexpr int64_t kSmallMatmulMacs = int64_t{1} << 13;

/// Where output matrix `b` of `p` (row major over out_batch) finds its X
/// and Y matrices: their dims of 1 broadcast, and an operand of fewer
/// batch dims lines up with the last of out_batch.
inline void MatrixOffsets(const MatmulProblem& p,
                          int64_t b,
                          int64_t* x_at,
                          int64_t* y_at) {
  const size_t rank = p.out_batch.size();
  *x_at = 0;
  *y_at = 0;
  int64_t x_step = p.m * p.k, y_step = p.k * p.n;
  int64_t rest = b;
  for (size_t d = rank; d-- > 0;) {
    const int64_t i = rest % p.out_batch[d];
    rest /= p.out_batch[d];
    const size_t from_end = rank - d;
    if (from_end <= p.x_batch.size()) {
      const int64_t extent = p.x_batch[p.x_batch.size() - from_end];
      if (extent != 1) *x_at += i * x_step;
      x_step *= extent;
    }
    if (from_end <= p.y_batch.size()) {
      const int64_t extent = p.y_batch[p.y_batch.size() - from_end];
      if (extent != 1) *y_at += i * y_step;
      y_step *= extent;
    }
  }
}

/// Out = act(alpha * X x Y + bias) for a small `p`, one output element at
/// a time, its sum in the order of k: an element comes out the same
/// whatever the batch or m (a server's batched runs must give the results
/// of unbatched ones bit for bit, which a blocked GEMM does not promise).
template <typename T>
void RunSmallMatmul(
    const MatmulProblem& p, const T* x, const T* y, const T* bias, T* out) {
  const bool relu = p.activation == "relu";
  int64_t batches = 1;
  for (int64_t d : p.out_batch) batches *= d;
  for (int64_t b = 0; b < batches; ++b) {
    int64_t x_at, y_at;
    MatrixOffsets(p, b, &x_at, &y_at);
    const T* xm = x + x_at;
    const T* ym = y + y_at;
    T* om = out + b * p.m * p.n;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        T sum = 0;
        for (int64_t k = 0; k < p.k; ++k) {
          const T a = p.trans_x ? xm[k * p.m + i] : xm[i * p.k + k];
          const T c = p.trans_y ? ym[j * p.k + k] : ym[k * p.n + j];
          sum += a * c;
        }
        sum *= p.alpha;
        if (p.bias) sum += bias[j];
        if (relu) sum = std::max(sum, T(0));
        om[i * p.n + j] = sum;
      }
    }
  }
}

/// The primitive of `desc` with `p`'s output scale (alpha) and `post_ops`;
/// null when oneDNN would run it on a slow reference implementation.
inline std::shared_ptr<MatmulPrimitive> MakeMatmulPrimitive(
    const dnnl::matmul::desc& desc,
    const MatmulProblem& p,
    const dnnl::post_ops& post_ops,
    const dnnl::engine& engine) {
  dnnl::primitive_attr attr = UserScratchpadAttr();
  if (p.alpha != 1.f) attr.set_output_scales(0, {p.alpha});
  attr.set_post_ops(post_ops);
  auto prim = std::make_shared<MatmulPrimitive>();
  prim->pd = dnnl::matmul::primitive_desc(desc, attr, engine);
  if (IsSlowImplementation(prim->pd)) return nullptr;
  prim->prim = dnnl::matmul(prim->pd);
  return prim;
}

/// Runs `prim` on X, Y (and the bias, when not null) into Out.
inline void ExecuteMatmul(MkldnnContext* mk,
                          const MatmulPrimitive& prim,
                          const void* x,
                          const void* y,
                          const void* bias,
                          void* out) {
  const dnnl::engine& engine = mk->engine();
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, UserMemory(prim.pd.src_desc(), engine, x)},
      {DNNL_ARG_WEIGHTS, UserMemory(prim.pd.weights_desc(), engine, y)},
      {DNNL_ARG_DST, UserMemory(prim.pd.dst_desc(), engine, out)}};
  if (bias != nullptr) {
    args[DNNL_ARG_BIAS] = UserMemory(prim.pd.bias_desc(), engine, bias);
  }
  ExecuteWithScratchpad(mk, prim.pd, prim.prim, &args);
}

/// RunMatmul for batch invariance: each row of X (of each output matrix)
/// times its Y by one primitive made for one row, so that a row's sums
/// never depend on how many rows run with it.
template <typename T>
bool RunMatmulByRows(const framework::ExecutionContext& ctx,
                     const MatmulProblem& p,
                     const dnnl::post_ops& post_ops,
                     const framework::Tensor& x,
                     const framework::Tensor& y,
                     const framework::Tensor* bias,
                     framework::Tensor* out) {
  T* o = out->mutable_data<T>(ctx.GetPlace());
  MkldnnContext& mk = PrepareMkldnn(ctx);
  KeyBuilder key("matmul_row", ctx);
  key.Add(std::vector<int64_t>{p.n, p.k})
      .Add(p.trans_y)
      .Add(p.alpha)
      .Add(p.bias)
      .Add(p.activation);
  auto matmul = mk.Primitive<MatmulPrimitive>(key.str(), [&] {
    dnnl::matmul::desc desc(
        MatrixMd({}, 1, p.k, false), MatrixMd({}, p.k, p.n, p.trans_y),
        p.bias ? PlainMd(Dims{1, p.n}) : dnnl::memory::desc(),
        MatrixMd({}, 1, p.n, false));
    return MakeMatmulPrimitive(desc, p, post_ops, mk.engine());
  });
  if (!matmul) return false;
  if (framework::MakingOnly()) return true;
  int64_t batches = 1;
  for (int64_t d : p.out_batch) batches *= d;
  // A row of op(X) stored transposed (its k values m apart) is gathered
  // first, so that one primitive serves every m.
  std::vector<T> gathered(p.trans_x ? p.k : 0);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t x_at, y_at;
    MatrixOffsets(p, b, &x_at, &y_at);
    for (int64_t i = 0; i < p.m; ++i) {
      const T* x_row = x.data<T>() + x_at + (p.trans_x ? i : i * p.k);
      if (p.trans_x) {
        for (int64_t j = 0; j < p.k; ++j) gathered[j] = x_row[j * p.m];
        x_row = gathered.data();
      }
      ExecuteMatmul(&mk, *matmul, x_row, y.data<T>() + y_at,
                    p.bias ? bias->data<T>() : nullptr,
                    o + (b * p.m + i) * p.n);
    }
  }
  return true;
}

/// Runs `p` on X, Y (and `bias` when p.bias) into Out (already sized), or
/// returns false when oneDNN rejects it (the caller then runs the PLAIN
/// kernel). Small products (kSmallMatmulMacs) run on RunSmallMatmul.
template <typename T>
bool RunMatmul(const framework::ExecutionContext& ctx,
               const MatmulProblem& p,
               const framework::Tensor& x,
               const framework::Tensor& y,
               const framework::Tensor* bias,
               framework::Tensor* out) {
  // Batch invariance (DeviceContext::batch_invariant) decides by a row's
  // multiply-adds alone, and runs larger rows one by one.
  const bool row_by_row =
      ctx.template device_context<platform::DeviceContext>().batch_invariant();
  int64_t macs = p.n * p.k;
  if (!row_by_row) {
    macs *= p.m;
    for (int64_t d : p.out_batch) macs *= d;
  }
  if (macs < kSmallMatmulMacs &&
      (p.activation.empty() || p.activation == "relu")) {
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (!framework::MakingOnly()) {
      RunSmallMatmul<T>(p, x.data<T>(), y.data<T>(),
                        p.bias ? bias->data<T>() : nullptr, o);
    }
    return true;
  }
  dnnl::post_ops post_ops;
  if (!AppendFusedActivation({p.activation}, &post_ops)) return false;
  if (row_by_row) return RunMatmulByRows<T>(ctx, p, post_ops, x, y, bias, out);
  T* o = out->mutable_data<T>(ctx.GetPlace());
  MkldnnContext& mk = PrepareMkldnn(ctx);
  KeyBuilder key("matmul", ctx);
  key.Add(p.x_batch)
      .Add(p.y_batch)
      .Add(p.out_batch)
      .Add(std::vector<int64_t>{p.m, p.n, p.k})
      .Add(p.trans_x)
      .Add(p.trans_y)
      .Add(p.alpha)
      .Add(p.bias)
      .Add(p.activation);
  auto matmul = mk.Primitive<MatmulPrimitive>(key.str(), [&] {
    // The bias broadcasts over every dim but the last.
    Dims bias_dims(p.out_batch.size() + 2, 1);
    bias_dims.back() = p.n;
    dnnl::matmul::desc desc(MatrixMd(p.x_batch, p.m, p.k, p.trans_x),
                            MatrixMd(p.y_batch, p.k, p.n, p.trans_y),
                            p.bias ? PlainMd(bias_dims) : dnnl::memory::desc(),
                            MatrixMd(p.out_batch, p.m, p.n, false));
    return MakeMatmulPrimitive(desc, p, post_ops, mk.engine());
  });
  if (!matmul) return false;
  ExecuteMatmul(&mk, *matmul, x.data<T>(), y.data<T>(),
                p.bias ? bias->data<T>() : nullptr, o);
  return true;
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
