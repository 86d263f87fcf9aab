// conv2d_transpose through the MKLDNN kernel against PLAIN: strides,
// dilations, paddings, output_padding and output_size (extra trailing
// pixels), groups, bias and NHWC.
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
};

void CheckTranspose(const Transpose& k) {
  SCOPED_TRACE("cin=" + std::to_string(k.cin) +
               " groups=" + std::to_string(k.groups) + " " + k.data_format);
  const framework::DDim input = k.data_format == "NHWC"
                                    ? framework::DDim{k.n, k.h, k.w, k.cin}
                                    : framework::DDim{k.n, k.cin, k.h, k.w};
  OpTester t("conv2d_transpose");
  t.Input("Input", RandomTensor<float>(input, -1, 1, 11))
      .Input("Filter", RandomTensor<float>(
                           {k.cin, k.cout_per_group, k.kh, k.kw}, -1, 1, 12));
  if (k.bias) {
    t.Input("Bias",
            RandomTensor<float>({k.cout_per_group * k.groups}, -1, 1, 13));
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

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
