// conv2d_transpose through the MKLDNN kernel against PLAIN: strides,
// dilations, paddings, output_padding and output_size (extra trailing
// pixels), groups, bias, fused activations and NHWC; with the filter a
// model parameter, the pixel-block path (kernel == stride) in both forms.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

struct Transpose {
  int64_t n = 1, cin = 4, h = 7, w = 6, cout_per_group = 3, kh = 3, kw = 3;
  int groups = 1;
  MkldnnAttrs attrs;
  std::string data_format = "NCHW";
  bool bias = false;
  // Filter and Bias as model parameters (what the pixel-block path needs).
  bool parameters = false;
};

void CheckTranspose(const Transpose& k) {
  SCOPED_TRACE("cin=" + std::to_string(k.cin) +
               " groups=" + std::to_string(k.groups) + " " + k.data_format);
  const framework::DDim input = k.data_format == "NHWC"
                                    ? framework::DDim{k.n, k.h, k.w, k.cin}
                                    : framework::DDim{k.n, k.cin, k.h, k.w};
  OpTester t("conv2d_transpose");
  t.Input("Input", RandomTensor<float>(input, -1, 1, 11));
  framework::Tensor filter =
      RandomTensor<float>({k.cin, k.cout_per_group, k.kh, k.kw}, -1, 1, 12);
  if (k.parameters) {
    t.Parameter("Filter", filter);
  } else {
    t.Input("Filter", filter);
  }
  if (k.bias) {
    framework::Tensor bias =
        RandomTensor<float>({k.cout_per_group * k.groups}, -1, 1, 13);
    if (k.parameters) {
      t.Parameter("Bias", bias);
    } else {
      t.Input("Bias", bias);
    }
  }
  t.Output("Output");
  MkldnnAttrs attrs = k.attrs;
  attrs.push_back({"groups", k.groups});
  attrs.push_back({"data_format", k.data_format});
  RunAllKernelsWith(&t, attrs);
}

TEST(Conv2dTransposeMkldnn, HasKernel) {
  ExpectMkldnnKernel("conv2d_transpose");
}

TEST(Conv2dTransposeMkldnn, StridesPaddingsDilations) {
  Transpose k;
  CheckTranspose(k);
  k.attrs = {{"strides", std::vector<int>{2, 2}}};
  k.kh = k.kw = 2;  // the upsampling of the DB detection heads
  CheckTranspose(k);
  k.kh = k.kw = 3;
  k.attrs = {{"strides", std::vector<int>{2, 3}},
             {"paddings", std::vector<int>{1, 0, 2, 1}}};
  CheckTranspose(k);
  k.attrs = {{"strides", std::vector<int>{2, 1}},
             {"dilations", std::vector<int>{2, 3}},
             {"paddings", std::vector<int>{1, 1}}};
  CheckTranspose(k);
  k.attrs = {{"strides", std::vector<int>{2, 2}},
             {"padding_algorithm", std::string("SAME")}};
  CheckTranspose(k);
}

TEST(Conv2dTransposeMkldnn, OutputPaddingAndSize) {
  Transpose k;
  k.attrs = {{"strides", std::vector<int>{3, 2}},
             {"paddings", std::vector<int>{1, 1}},
             {"output_padding", std::vector<int>{2, 1}}};
  CheckTranspose(k);
  // output_padding beyond the stride, allowed by a larger dilation.
  k.attrs = {{"strides", std::vector<int>{1, 1}},
             {"dilations", std::vector<int>{3, 3}},
             {"output_padding", std::vector<int>{2, 1}}};
  CheckTranspose(k);
  k.attrs = {{"strides", std::vector<int>{2, 2}},
             {"output_size", std::vector<int>{16, 14}}};
  CheckTranspose(k);
}

TEST(Conv2dTransposeMkldnn, GroupsBiasNhwc) {
  Transpose k;
  k.groups = 2;
  k.bias = true;
  k.attrs = {{"strides", std::vector<int>{2, 2}},
             {"paddings", std::vector<int>{1, 1}}};
  CheckTranspose(k);
  k.data_format = "NHWC";
  k.n = 2;
  CheckTranspose(k);
  k = Transpose();
  k.cin = 32;
  k.cout_per_group = 32;
  k.h = k.w = 12;
  k.kh = k.kw = 2;
  k.bias = true;
  k.attrs = {{"strides", std::vector<int>{2, 2}}};
  CheckTranspose(k);
}

TEST(Conv2dTransposeMkldnn, FusedActivations) {
  Transpose k;
  k.bias = true;
  k.attrs = {{"strides", std::vector<int>{2, 2}},
             {"paddings", std::vector<int>{1, 1}}};
  for (bool bias : {true, false}) {
    k.bias = bias;
    for (const MkldnnAttrs& act : std::vector<MkldnnAttrs>{
             {{"fuse_activation", std::string("relu")}},
             {{"fuse_activation", std::string("sigmoid")}},
             {{"fuse_activation", std::string("hard_sigmoid")},
              {"fuse_alpha", 0.2f},
              {"fuse_beta", 0.5f}},
             {{"fuse_activation", std::string("leaky_relu")},
              {"fuse_alpha", 0.1f}}}) {
      Transpose with = k;
      with.attrs.insert(with.attrs.end(), act.begin(), act.end());
      CheckTranspose(with);
    }
  }
}

// Kernel == stride: every input pixel writes its own output block, run on
// our 1x1 loops (a row at a time, or whole blocks through scratch when
// narrow: a 1-channel map), or where they do not run (no AVX2, swish) as a
// oneDNN matmul (rows form for KW * Cout >= 16, else flat); with and
// without bias and activation, batches, NHWC, odd sizes, 3x2 blocks, and a
// filter that is not a parameter (the general path).
TEST(Conv2dTransposeMkldnn, PixelBlocks) {
  for (int64_t cout : {24, 1, 3}) {
    for (bool bias : {true, false}) {
      for (const char* format : {"NCHW", "NHWC"}) {
        Transpose k;
        k.cin = 24;
        k.cout_per_group = cout;
        k.h = 5;
        k.w = 7;
        k.kh = k.kw = 2;
        k.n = cout == 3 ? 2 : 1;
        k.bias = bias;
        k.parameters = true;
        k.data_format = format;
        k.attrs = {{"strides", std::vector<int>{2, 2}}};
        if (cout == 1)
          k.attrs.push_back({"fuse_activation", std::string("sigmoid")});
        if (cout == 24)
          k.attrs.push_back({"fuse_activation", std::string("relu")});
        CheckTranspose(k);
      }
    }
  }
  Transpose k;
  k.cin = 5;
  k.cout_per_group = 8;
  k.h = 1;
  k.w = 1;
  k.kh = 3;
  k.kw = 2;
  k.bias = true;
  k.parameters = true;
  k.attrs = {{"strides", std::vector<int>{3, 2}}};
  CheckTranspose(k);
  k.h = 4;
  k.w = 3;
  CheckTranspose(k);
  k.parameters = false;
  CheckTranspose(k);
  // An activation our loops leave to oneDNN, in both matmul forms.
  for (int64_t cout : {24, 1}) {
    Transpose swish;
    swish.cin = 16;
    swish.cout_per_group = cout;
    swish.kh = swish.kw = 2;
    swish.bias = true;
    swish.parameters = true;
    swish.attrs = {{"strides", std::vector<int>{2, 2}},
                   {"fuse_activation", std::string("swish")},
                   {"fuse_alpha", 1.f}};
    CheckTranspose(swish);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
