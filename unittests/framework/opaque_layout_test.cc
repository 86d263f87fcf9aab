// Library layouts (framework/tensor.h, OpaqueLayout): MKLDNN kernels pass
// tensors in oneDNN's blocked layouts to each other, and every other
// reader (PLAIN kernels, fetch) sees the plain values. A program mixing
// both must compute what the PLAIN kernels alone compute, on the
// recording run and on replayed runs.
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "platform/cache_budget.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::ExpectTensorNear;
using paddle_lite::testing::RandomTensor;

// An opaque layout that stores the values negated: enough to see who
// converts and when.
class NegatedLayout : public OpaqueLayout {
 public:
  explicit NegatedLayout(size_t bytes) : bytes_(bytes) {}
  const std::string& library() const override {
    static const std::string kName = "NEGATED";
    return kName;
  }
  size_t bytes() const override { return bytes_; }
  void ToPlain(const void* src, void* plain) const override {
    const float* in = static_cast<const float*>(src);
    float* out = static_cast<float*>(plain);
    for (size_t i = 0; i < bytes_ / sizeof(float); ++i) out[i] = -in[i];
  }
  std::string ToString() const override { return "NEGATED"; }

 private:
  size_t bytes_;
};

TEST(OpaqueLayout, ConvertToPlainRewritesInPlace) {
  Tensor t;
  t.Resize({2, 3});
  t.set_opaque_layout(std::make_shared<NegatedLayout>(6 * sizeof(float)));
  float* data = t.mutable_data<float>(platform::CPUPlace{});
  for (int i = 0; i < 6; ++i) data[i] = -static_cast<float>(i);
  const void* buffer = t.raw_data();
  platform::AllocationPtr scratch;
  ConvertToPlainLayout(&t, &scratch);
  EXPECT_EQ(t.opaque_layout(), nullptr);
  EXPECT_EQ(t.raw_data(), buffer);  // same buffer, rewritten
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], i);
  ConvertToPlainLayout(&t, &scratch);  // plain already: nothing happens
  EXPECT_EQ(t.data<float>()[5], 5.f);
}

TEST(OpaqueLayout, BufferIsSizedByTheLayout) {
  Tensor t;
  t.Resize({2, 3});
  t.set_opaque_layout(std::make_shared<NegatedLayout>(64 * sizeof(float)));
  t.mutable_data<float>(platform::CPUPlace{});
  EXPECT_EQ(t.memory_size(), 64 * sizeof(float));
  EXPECT_GE(t.holder()->size(), 64 * sizeof(float));
  Tensor copy;
  TensorCopy(t, platform::CPUPlace{}, &copy);
  EXPECT_NE(copy.opaque_layout(), nullptr);
  EXPECT_EQ(copy.memory_size(), 64 * sizeof(float));
}

// conv -> relu -> conv -> add (both blocked) -> add (broadcast, plain Y)
// -> pool -> sigmoid -> concat (PLAIN) -> conv2d_transpose, with side
// branches read by PLAIN kernels, an interp, and a fetch of a tensor a
// PLAIN kernel converted in place.
ProgramBuilder MixedProgram() {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 20, 12, 12});
  b.AddParameter("w1", RandomTensor<float>({24, 20, 3, 3}, -0.3, 0.3, 1));
  b.AddParameter("w2", RandomTensor<float>({24, 24, 1, 1}, -0.3, 0.3, 2));
  b.AddParameter("w3", RandomTensor<float>({48, 8, 2, 2}, -0.3, 0.3, 3));
  b.AddParameter("bias", RandomTensor<float>({24}, -1, 1, 4));
  for (const char* v :
       {"c1", "r1", "c2", "a1", "b1", "p1", "s1", "cc", "t1", "hs", "i1"}) {
    b.AddVar(v);
  }
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}},
          {{"paddings", std::vector<int>{1, 1}}});
  b.AddOp("relu", {{"X", {"c1"}}}, {{"Out", {"r1"}}});
  b.AddOp("conv2d", {{"Input", {"r1"}}, {"Filter", {"w2"}}},
          {{"Output", {"c2"}}});
  b.AddOp("elementwise_add", {{"X", {"c2"}}, {"Y", {"r1"}}}, {{"Out", {"a1"}}});
  b.AddOp("elementwise_add", {{"X", {"a1"}}, {"Y", {"bias"}}},
          {{"Out", {"b1"}}}, {{"axis", 1}});
  b.AddOp("pool2d", {{"X", {"b1"}}}, {{"Out", {"p1"}}},
          {{"pooling_type", std::string("avg")},
           {"ksize", std::vector<int>{3, 3}},
           {"strides", std::vector<int>{1, 1}},
           {"paddings", std::vector<int>{1, 1}}});
  b.AddOp("sigmoid", {{"X", {"p1"}}}, {{"Out", {"s1"}}});
  b.AddOp("concat", {{"X", {"s1", "c1"}}}, {{"Out", {"cc"}}}, {{"axis", 1}});
  b.AddOp("conv2d_transpose", {{"Input", {"cc"}}, {"Filter", {"w3"}}},
          {{"Output", {"t1"}}}, {{"strides", std::vector<int>{2, 2}}});
  b.AddOp("hard_sigmoid", {{"X", {"c2"}}}, {{"Out", {"hs"}}});
  b.AddOp("nearest_interp_v2", {{"X", {"r1"}}}, {{"Out", {"i1"}}},
          {{"scale", std::vector<float>{2.f, 2.f}},
           {"interp_method", std::string("nearest")}});
  for (const char* out : {"t1", "hs", "i1", "c1"}) b.AddOutput(out);
  return b;
}

TEST(OpaqueLayout, MixedLibrariesMatchPlainKernels) {
  const ProgramBuilder b = MixedProgram();
  const ProgramDesc program = b.Build();
  auto run = [&](std::vector<LibraryType> libraries, int runs,
                 bool* saw_layout) {
    // One thread: OpenMP's synchronization is invisible to ThreadSanitizer.
    platform::DeviceContextPool pool(
        platform::DeviceContextOptions::WithThreads(1));
    KernelPreference preference{platform::CPUPlace{}, libraries};
    Executor executor(program, preference, &pool);
    Scope& scope = b.parameters().NewScope();
    std::vector<Tensor> fetched;
    for (int r = 0; r < runs; ++r) {
      *scope.Var("feed")->GetMutable<TensorList>() = {
          RandomTensor<float>({2, 20, 12, 12}, -1, 1, 7)};
      scope.Var("fetch")->GetMutable<TensorList>();
      executor.Run(0, &scope);
      fetched = scope.FindVar("fetch")->Get<TensorList>();
      // a1 is read only by an MKLDNN kernel: it stays blocked.
      const Tensor& a1 = scope.FindVar("a1")->Get<Tensor>();
      if (a1.opaque_layout() != nullptr) {
        *saw_layout = a1.opaque_layout()->library() == "MKLDNN";
      }
      for (auto& t : fetched) EXPECT_EQ(t.opaque_layout(), nullptr);
    }
    b.parameters().DeleteScope(&scope);
    return fetched;
  };
  bool unused = false;
  const auto expected = run({}, 1, &unused);
  bool saw_layout = false;
  const auto got = run({LibraryType::MKLDNN()}, 3, &saw_layout);
  EXPECT_TRUE(saw_layout) << "no MKLDNN layout was passed between kernels";
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("fetch col " + std::to_string(i));
    ExpectTensorNear(got[i], expected[i], 1e-4, 1e-4);
  }
}

// The buffer the executor converts tensors to their plain layout through
// (for PLAIN kernels and the fetch reading MKLDNN-blocked tensors) is
// counted in the budget while the executor lives, and no longer after.
TEST(OpaqueLayout, ConversionScratchIsCountedInTheBudget) {
  const ProgramBuilder b = MixedProgram();
  const ProgramDesc program = b.Build();
  auto budget = std::make_shared<platform::CacheBudget>(size_t{64} << 20);
  platform::DeviceContextOptions options =
      platform::DeviceContextOptions::WithThreads(1);
  options.cache_budget = budget;
  platform::DeviceContextPool pool(options);
  {
    KernelPreference preference{platform::CPUPlace{}, {LibraryType::MKLDNN()}};
    Executor executor(program, preference, &pool);
    Scope& scope = b.parameters().NewScope();
    *scope.Var("feed")->GetMutable<TensorList>() = {
        RandomTensor<float>({2, 20, 12, 12}, -1, 1, 7)};
    scope.Var("fetch")->GetMutable<TensorList>();
    executor.Run(0, &scope);
    // At least c1, converted for the fetch: 2x24x12x12 floats.
    EXPECT_GE(budget->UsedByCache()["layout.scratch"],
              size_t{2 * 24 * 12 * 12 * sizeof(float)});
    b.parameters().DeleteScope(&scope);
  }
  EXPECT_EQ(budget->UsedByCache()["layout.scratch"], 0u);
}

// MKLDNN kernels keep their last call (memory objects included) and
// re-run it when their inputs' dims and layouts match. Alternating input
// shapes, new values every run, and a second executor whose arena puts
// the buffers elsewhere: every run must match the PLAIN kernels.
TEST(OpaqueLayout, KeptCallsFollowShapesValuesAndBuffers) {
  const ProgramBuilder b = MixedProgram();
  const ProgramDesc program = b.Build();
  const std::vector<DDim> shapes = {
      {2, 20, 12, 12}, {2, 20, 12, 12}, {1, 20, 9, 7}, {2, 20, 12, 12}};
  auto run = [&](std::vector<LibraryType> libraries, int threads) {
    platform::DeviceContextPool pool(
        platform::DeviceContextOptions::WithThreads(threads));
    Executor executor(program,
                      KernelPreference{platform::CPUPlace{}, libraries}, &pool);
    Scope& scope = b.parameters().NewScope();
    std::vector<std::vector<Tensor>> fetched;
    // Every fed tensor stays alive, so each run's input is a new buffer.
    std::vector<Tensor> fed;
    for (size_t r = 0; r < shapes.size(); ++r) {
      fed.push_back(
          RandomTensor<float>(shapes[r], -1, 1, 20 + static_cast<int>(r)));
      *scope.Var("feed")->GetMutable<TensorList>() = {fed.back()};
      scope.Var("fetch")->GetMutable<TensorList>();
      executor.Run(0, &scope);
      fetched.push_back(scope.FindVar("fetch")->Get<TensorList>());
    }
    b.parameters().DeleteScope(&scope);
    return fetched;
  };
  const auto expected = run({}, 1);
  for (int threads : {1, 2}) {
    const auto got = run({LibraryType::MKLDNN()}, threads);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t r = 0; r < got.size(); ++r) {
      ASSERT_EQ(got[r].size(), expected[r].size());
      for (size_t i = 0; i < got[r].size(); ++i) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " run " +
                     std::to_string(r) + " fetch col " + std::to_string(i));
        ExpectTensorNear(got[r][i], expected[r][i], 1e-4, 1e-4);
      }
    }
  }
}

// Joins, along `axis`, one 3x3 convolution of x ([2, in_channels, h, w])
// per entry of `channels` (its output channels), through the MKLDNN
// kernels and through the PLAIN ones, and expects the same result.
void ExpectConcatOfConvolutionsMatchesPlain(
    int64_t in_channels,
    int64_t h,
    int64_t w,
    const std::vector<int64_t>& channels,
    int axis,
    int threads) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, in_channels, h, w});
  std::vector<std::string> parts;
  for (size_t i = 0; i < channels.size(); ++i) {
    const std::string filter = "w" + std::to_string(i);
    const std::string c = "c" + std::to_string(i);
    b.AddParameter(
        filter, RandomTensor<float>({channels[i], in_channels, 3, 3}, -0.5, 0.5,
                                    static_cast<int>(10 + i)));
    b.AddVar(c);
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {filter}}}, {{"Output", {c}}},
            {{"paddings", std::vector<int>{1, 1}}});
    parts.push_back(c);
  }
  b.AddVar("cat");
  b.AddVar("out");
  b.AddOp("concat", {{"X", parts}}, {{"Out", {"cat"}}}, {{"axis", axis}});
  b.AddOp("relu", {{"X", {"cat"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  const ProgramDesc program = b.Build();
  auto run = [&](std::vector<LibraryType> libraries) {
    platform::DeviceContextPool pool(
        platform::DeviceContextOptions::WithThreads(threads));
    Executor executor(program,
                      KernelPreference{platform::CPUPlace{}, libraries}, &pool);
    Scope& scope = b.parameters().NewScope();
    *scope.Var("feed")->GetMutable<TensorList>() = {
        RandomTensor<float>({2, in_channels, h, w}, -1, 1, 9)};
    scope.Var("fetch")->GetMutable<TensorList>();
    executor.Run(0, &scope);
    auto fetched = scope.FindVar("fetch")->Get<TensorList>();
    b.parameters().DeleteScope(&scope);
    return fetched;
  };
  const auto expected = run({});
  const auto got = run({LibraryType::MKLDNN()});
  ASSERT_EQ(got.size(), 1u);
  ExpectTensorNear(got[0], expected[0], 1e-4, 1e-4);
}

// concat of tensors in MKLDNN layouts (the MKLDNN concat kernel joins
// them in their layout): channel counts that do and do not fill oneDNN's
// blocks, along channels and along H, against the PLAIN kernels.
TEST(OpaqueLayout, ConcatOfBlockedTensors) {
  for (int axis : {1, 2, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    ExpectConcatOfConvolutionsMatchesPlain(
        8, 10, 10,
        axis == 1 ? std::vector<int64_t>{16, 24, 5}
                  : std::vector<int64_t>{16, 16, 16},
        axis, 1);
  }
}

// concat along channels of tensors that the MKLDNN concat kernel joins by
// copying (ConcatByCopy): all channel-last (stem convolutions on our own
// loops write that, from a 3-channel image) with any channel counts, and
// all blocked with whole blocks (3x3 convolutions on oneDNN, 16, 32 and 48
// channels: whole blocks of 8 and of 16), a batch of 2, against the PLAIN
// kernels.
TEST(OpaqueLayout, ConcatOfChannelLastAndWholeBlocks) {
  {
    SCOPED_TRACE("channel-last (stems)");
    ExpectConcatOfConvolutionsMatchesPlain(3, 9, 11, {8, 5, 16}, 1, 2);
  }
  {
    SCOPED_TRACE("whole blocks");
    ExpectConcatOfConvolutionsMatchesPlain(8, 9, 11, {16, 32, 48}, 1, 2);
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
