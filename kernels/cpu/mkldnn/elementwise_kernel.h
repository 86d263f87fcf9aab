// The oneDNN kernel of elementwise_add, _sub, _mul and _div, and of
// fused_elementwise_add and _mul (the same followed by the activation the
// graph passes fused into them, run as a oneDNN post-op): one binary
// primitive. Private to kernels/cpu/mkldnn.
//
// Shapes follow Paddle's rule (operators/elementwise_shape.h: the smaller
// operand padded with 1s to the aligned rank), then are coalesced as the
// PLAIN kernel does: dims of size 1 dropped, neighbours broadcast the same
// way merged. So X [N, C, H, W] + Y [C] (axis 1) becomes [N, C, H*W] +
// [1, C, 1], oneDNN's per-channel broadcast.
//
// oneDNN broadcasts only its second operand, so X must have the output's
// shape; for add and mul a broadcast X is swapped with Y. Other cases, and
// small tensors where a primitive call costs more than the loop, run the
// PLAIN kernel.
//
// A product by one factor per channel (X [N, C, H, W] times Y [N or 1, C,
// 1, 1], a squeeze-and-excitation block's scaling) of dense NCHW or NHWC
// data runs without oneDNN (ScaleChannels): its binary primitive is made
// per input size, and for few channels runs slower than a plain loop.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/image_channels_util.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/elementwise_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// Below this many output elements the PLAIN loop beats a primitive call.
constexpr int64_t kMinBinaryElements = 4096;

/// X and Y dims after coalescing, with a leading 1 so that a broadcast of
/// Y along the middle of three dims is oneDNN's per-channel case.
struct BinaryShapes {
  Dims x;
  Dims y;
};

inline BinaryShapes CoalesceBinary(const framework::DDim& x,
                                   const framework::DDim& y) {
  BinaryShapes s;
  std::vector<bool> y_broadcast;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == 1) continue;  // X has the output's dims here
    const bool yb = y[i] == 1;
    if (!s.x.empty() && y_broadcast.back() == yb) {
      s.x.back() *= x[i];
      s.y.back() *= y[i];
    } else {
      s.x.push_back(x[i]);
      s.y.push_back(y[i]);
      y_broadcast.push_back(yb);
    }
  }
  if (s.x.empty()) {
    s.x = {1};
    s.y = {1};
  }
  if (s.x.size() < 3) {
    s.x.insert(s.x.begin(), 1);
    s.y.insert(s.y.begin(), 1);
  }
  return s;
}

struct BinaryPrimitive {
  dnnl::binary::primitive_desc pd;
  dnnl::binary prim;
};

/// What a binary op keeps between runs: the call for the inputs it last
/// saw, when it read them as they came.
struct BinaryState {
  InputSignature signature;
  bool swapped = false;  // Y is the first operand
  std::shared_ptr<const MkldnnLayout> out_layout;
  KeptCall call;  // empty: ScaleChannels of `scaled`
  ImageChannels scaled;
  bool per_image = false;
};

/// Out = X (op) Y for `kAlgorithm` one of binary_add, _sub, _mul, _div;
/// with kFusedActivation, then the op's fuse_activation.
template <typename T, dnnl::algorithm kAlgorithm, bool kFusedActivation = false>
class MkldnnElementwiseKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (auto* state = KeptState<BinaryState>(ctx)) {
      if (state->signature.Matches(ctx, {x, y})) {
        const framework::Tensor* src0 = state->swapped ? y : x;
        const framework::Tensor* src1 = state->swapped ? x : y;
        if (!state->call) {
          Scale(ctx, state->scaled, state->per_image, *src0, *src1,
                state->out_layout, out);
          return;
        }
        MkldnnContext& mk = PrepareMkldnn(ctx);
        out->set_opaque_layout(state->out_layout);
        T* o = out->mutable_data<T>(ctx.GetPlace());
        state->call.Execute(&mk, {{DNNL_ARG_SRC_0, src0->raw_data()},
                                  {DNNL_ARG_SRC_1, src1->raw_data()},
                                  {DNNL_ARG_DST, o}});
        return;
      }
    }
    const operators::ElementwiseBroadcast shapes =
        operators::BroadcastElementwiseDims(ctx.op().Type(), x->dims(),
                                            y->dims(), ctx.Attr<int>("axis"));
    const framework::Tensor* src0 = x;
    const framework::Tensor* src1 = y;
    framework::DDim dims0 = shapes.x;
    framework::DDim dims1 = shapes.y;
    constexpr bool kCommutative = kAlgorithm == dnnl::algorithm::binary_add ||
                                  kAlgorithm == dnnl::algorithm::binary_mul;
    if (kCommutative && dims0 != shapes.out && dims1 == shapes.out) {
      std::swap(src0, src1);
      std::swap(dims0, dims1);
    }
    // Small tensors run PLAIN, unless an operand comes in a layout (a
    // oneDNN call costs less than converting it).
    const bool in_layout =
        MkldnnLayoutOf(*x) != nullptr || MkldnnLayoutOf(*y) != nullptr;
    if (dims0 != shapes.out ||
        (!in_layout && framework::Product(shapes.out) < kMinBinaryElements)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    operators::FusedActivation activation;
    if constexpr (kFusedActivation) {
      activation = operators::FusedActivationOf(ctx);
    }
    if (!AppendFusedActivation(activation, nullptr)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const InputSignature signature(ctx, {x, y});
    const bool swapped = src0 == y;
    if constexpr (kAlgorithm == dnnl::algorithm::binary_mul) {
      if (activation.type.empty() &&
          ScaleByChannel(ctx, *src0, *src1, dims0, dims1, signature, swapped)) {
        return;
      }
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    if (ComputeInLayout(ctx, &mk, src0, src1, dims0, dims1, activation,
                        signature, swapped)) {
      return;
    }
    MakeInputsPlain(ctx);
    const BinaryShapes view = CoalesceBinary(dims0, dims1);
    T* o = out->mutable_data<T>(ctx.GetPlace());

    KeyBuilder key("binary", ctx);
    key.Add(static_cast<int64_t>(kAlgorithm))
        .Add(view.x)
        .Add(view.y)
        .Add(activation);
    auto binary = mk.Primitive<BinaryPrimitive>(key.str(), [&] {
      auto p = std::make_shared<BinaryPrimitive>();
      dnnl::binary::desc desc(kAlgorithm, PlainMd(view.x), PlainMd(view.y),
                              PlainMd(view.x));
      dnnl::post_ops post_ops;
      AppendFusedActivation(activation, &post_ops);
      dnnl::primitive_attr attr;
      attr.set_post_ops(post_ops);
      p->pd = dnnl::binary::primitive_desc(desc, attr, mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<BinaryPrimitive>();
      p->prim = dnnl::binary(p->pd);
      return p;
    });
    if (!binary) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::engine& engine = mk.engine();
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC_0,
         UserMemory(binary->pd.src0_desc(), engine, src0->data<T>())},
        {DNNL_ARG_SRC_1,
         UserMemory(binary->pd.src1_desc(), engine, src1->data<T>())},
        {DNNL_ARG_DST, UserMemory(binary->pd.dst_desc(), engine, o)}};
    RunPrimitive(binary->prim, mk.stream(), args);
    mk.stream().wait();
    // Kept only if no input had to be converted (the signature still holds).
    if (signature.Matches(ctx, {x, y})) {
      Keep(ctx, signature, swapped, nullptr,
           KeptCall(binary->pd, binary->prim, std::move(args)));
    }
  }

 private:
  /// The product by one factor per channel of an operand stored dense
  /// NCHW (plain) or NHWC (an MKLDNN layout, which the output keeps), the
  /// factors dense [N or 1, C] (plain, or written channel-last by a
  /// convolution: the same bytes), run by ScaleChannels. False for any
  /// other case.
  bool ScaleByChannel(const framework::ExecutionContext& ctx,
                      const framework::Tensor& src0,
                      const framework::Tensor& src1,
                      const framework::DDim& dims0,
                      const framework::DDim& dims1,
                      const InputSignature& signature,
                      bool swapped) const {
    if (dims0.size() != 4 || dims1.size() != 4 || dims1[1] != dims0[1] ||
        dims1[2] != 1 || dims1[3] != 1 ||
        (dims1[0] != dims0[0] && dims1[0] != 1)) {
      return false;
    }
    ImageChannels shape;
    std::shared_ptr<const MkldnnLayout> layout0;
    std::shared_ptr<const MkldnnLayout> layout1;
    if (!DenseImages(src0, dims0, &layout0) ||
        !DenseImages(src1, dims1, &layout1)) {
      return false;
    }
    shape.channel_last = layout0 != nullptr;
    shape.images = dims0[0];
    shape.channels = dims0[1];
    shape.pixels = dims0[2] * dims0[3];
    auto state = std::make_shared<BinaryState>();
    state->signature = signature;
    state->swapped = swapped;
    state->out_layout = std::move(layout0);
    state->scaled = shape;
    state->per_image = dims1[0] == dims0[0] && dims0[0] > 1;
    Scale(ctx, shape, state->per_image, src0, src1, state->out_layout,
          ctx.Output<framework::Tensor>("Out"));
    KeepState(ctx, std::move(state));
    return true;
  }

  /// Whether `t`, of `dims` [N, C, H, W], is stored dense: plain NCHW
  /// (`*layout` null), or in an MKLDNN channel-last layout (`*layout`).
  static bool DenseImages(const framework::Tensor& t,
                          const framework::DDim& dims,
                          std::shared_ptr<const MkldnnLayout>* layout) {
    if (t.opaque_layout() == nullptr) return true;
    *layout = LayoutFor(t, PlainMd(dims));
    bool channel_last = false;
    return *layout != nullptr &&
           IsDenseActivation((*layout)->md(), &channel_last) && channel_last;
  }

  static void Scale(const framework::ExecutionContext& ctx,
                    const ImageChannels& shape,
                    bool per_image,
                    const framework::Tensor& src0,
                    const framework::Tensor& src1,
                    std::shared_ptr<const MkldnnLayout> out_layout,
                    framework::Tensor* out) {
    // Read before Out (maybe an input) is touched.
    const auto* x = static_cast<const float*>(src0.raw_data());
    const auto* factors = static_cast<const float*>(src1.raw_data());
    out->set_opaque_layout(std::move(out_layout));
    float* o = out->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    ScaleChannels(ctx.device_context<platform::CPUDeviceContext>(), shape,
                  per_image, x, factors, o);
  }

  /// The case of an operand in an MKLDNN layout with the output's dims:
  /// the other operand is reordered to that layout (or, when broadcast,
  /// read plain) and the output keeps it. False when neither operand has
  /// such a layout or oneDNN has no fast primitive for it.
  bool ComputeInLayout(const framework::ExecutionContext& ctx,
                       MkldnnContext* mk,
                       const framework::Tensor* src0,
                       const framework::Tensor* src1,
                       const framework::DDim& dims0,
                       const framework::DDim& dims1,
                       const operators::FusedActivation& activation,
                       const InputSignature& signature,
                       bool swapped) const {
    // Layouts usable here: made for these dims read as plain row-major.
    const bool same_dims = dims0 == dims1;
    auto layout0 = LayoutFor(*src0, PlainMd(dims0));
    auto layout1 = LayoutFor(*src1, PlainMd(dims1));
    auto target = layout0 ? layout0 : (same_dims ? layout1 : nullptr);
    if (target == nullptr) return false;
    const dnnl::memory::desc& md = target->md();
    // A broadcast operand goes in the same layout (oneDNN's fast kernels
    // want that): as it is when it already has it (an SE block's scales,
    // written by a convolution), else reordered on each call (it is small).
    dnnl::memory::desc md1 = md;
    if (!same_dims) {
      md1 = SameLayoutFor(md, Dims(dims1.begin(), dims1.end()));
      if (md1.is_zero()) md1 = PlainMd(dims1);
      if (layout1 && layout1->md() != md1) layout1 = nullptr;
    }
    const dnnl::memory::desc stored0 = layout0 ? layout0->md() : PlainMd(dims0);
    const dnnl::memory::desc stored1 = layout1 ? layout1->md() : PlainMd(dims1);
    KeyBuilder key("binary_layout", ctx);
    key.Add(static_cast<int64_t>(kAlgorithm)).Add(md).Add(md1).Add(activation);
    auto binary = mk->Primitive<BinaryPrimitive>(key.str(), [&] {
      auto p = std::make_shared<BinaryPrimitive>();
      dnnl::binary::desc desc(kAlgorithm, md, md1, md);
      dnnl::post_ops post_ops;
      AppendFusedActivation(activation, &post_ops);
      dnnl::primitive_attr attr;
      attr.set_post_ops(post_ops);
      p->pd = dnnl::binary::primitive_desc(desc, attr, mk->engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<BinaryPrimitive>();
      p->prim = dnnl::binary(p->pd);
      return p;
    });
    if (!binary) return false;
    // An operand whose layout is not used here (broadcast, or made for
    // another view of its dims) is read plain.
    bool as_they_came = stored0 == md && stored1 == md1;
    for (const char* slot : {"X", "Y"}) {
      const framework::Tensor* t = ctx.Input<framework::Tensor>(slot);
      const bool used = (t == src0 && layout0) || (t == src1 && layout1);
      if (t->opaque_layout() != nullptr && !used) {
        MakeInputPlain(ctx, slot);
        as_they_came = false;
      }
    }
    const dnnl::memory m0 = InputMemory(mk, 0, *src0, stored0, md);
    const dnnl::memory m1 = InputMemory(mk, 1, *src1, stored1, md1);
    auto* out = ctx.Output<framework::Tensor>("Out");
    const dnnl::memory dst = OutputMemory<T>(ctx, mk, out, target, md);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1}, {DNNL_ARG_DST, dst}};
    RunPrimitive(binary->prim, mk->stream(), args);
    mk->stream().wait();
    if (as_they_came &&
        signature.Matches(ctx, {ctx.Input<framework::Tensor>("X"),
                                ctx.Input<framework::Tensor>("Y")})) {
      Keep(ctx, signature, swapped, target,
           KeptCall(binary->pd, binary->prim, std::move(args)));
    }
    return true;
  }

  static void Keep(const framework::ExecutionContext& ctx,
                   const InputSignature& signature,
                   bool swapped,
                   std::shared_ptr<const MkldnnLayout> out_layout,
                   KeptCall call) {
    auto state = std::make_shared<BinaryState>();
    state->signature = signature;
    state->swapped = swapped;
    state->out_layout = std::move(out_layout);
    state->call = std::move(call);
    KeepState(ctx, std::move(state));
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
