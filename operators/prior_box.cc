// prior_box: SSD anchor boxes for every cell of a feature map, normalized
// to the image size. Boxes and Variances are [H, W, P, 4] with
// P = len(expanded aspect ratios) * len(min_sizes) + len(max_sizes).
#include "framework/op_registry.h"
#include "operators/prior_box_aspect_ratios.h"

namespace paddle_lite {
namespace operators {

class PriorBoxOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim input_dims = ctx->GetInputDim("Input");
    const framework::DDim image_dims = ctx->GetInputDim("Image");
    PADDLE_ENFORCE_EQ(
        input_dims.size(), 4u,
        errors::InvalidArgument("prior_box: Input must be a 4-D feature map "
                                "[N, C, H, W], got ",
                                input_dims, "."));
    PADDLE_ENFORCE_EQ(image_dims.size(), 4u,
                      errors::InvalidArgument(
                          "prior_box: Image must be 4-D [N, C, H, W], got ",
                          image_dims, "."));

    const auto min_sizes = ctx->Attr<std::vector<float>>("min_sizes");
    const auto max_sizes = ctx->Attr<std::vector<float>>("max_sizes");
    const auto aspect_ratios = ctx->Attr<std::vector<float>>("aspect_ratios");
    PADDLE_ENFORCE(
        max_sizes.empty() || max_sizes.size() == min_sizes.size(),
        errors::InvalidArgument(
            "prior_box: attribute 'max_sizes' has ", max_sizes.size(),
            " values but 'min_sizes' has ", min_sizes.size(),
            "; they must be equally long (or "
            "max_sizes empty)."));
    const size_t num_ratios =
        ExpandPriorBoxAspectRatios(aspect_ratios, ctx->Attr<bool>("flip"))
            .size();
    const int64_t num_priors =
        static_cast<int64_t>(num_ratios * min_sizes.size() + max_sizes.size());
    const framework::DDim out_dims = {input_dims[2], input_dims[3], num_priors,
                                      4};
    ctx->SetOutputDim("Boxes", out_dims);
    ctx->SetOutputDim("Variances", out_dims);
  }
};

class PriorBoxOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "feature map [N, C, H, W]; only H and W are used");
    AddInput("Image", "image [N, C, IH, IW]; only IH and IW are used");
    AddOutput("Boxes", "[H, W, P, 4] priors (x1, y1, x2, y2) / image size");
    AddOutput("Variances", "[H, W, P, 4] the variances of every prior");
    AddAttr<std::vector<float>>("min_sizes", "prior sizes in pixels, > 0")
        .AddCustomChecker([](const std::vector<float>& sizes) {
          PADDLE_ENFORCE(!sizes.empty(),
                         errors::InvalidArgument(
                             "attribute 'min_sizes' must not be empty."));
          for (float s : sizes) {
            PADDLE_ENFORCE_GT(
                s, 0.0f,
                errors::InvalidArgument(
                    "attribute 'min_sizes' must be > 0, got ", s, "."));
          }
        });
    AddAttr<std::vector<float>>("max_sizes",
                                "per min_size, adds a sqrt(min * max) square")
        .SetDefault({});
    AddAttr<std::vector<float>>("aspect_ratios", "width / height ratios")
        .AddCustomChecker([](const std::vector<float>& ratios) {
          for (float r : ratios) {
            PADDLE_ENFORCE_GT(r, 0.0f,
                              errors::InvalidArgument(
                                  "attribute 'aspect_ratios' must be > 0, "
                                  "got ",
                                  r, "."));
          }
        });
    AddAttr<std::vector<float>>("variances", "4 variances, each > 0")
        .AddCustomChecker([](const std::vector<float>& v) {
          PADDLE_ENFORCE_EQ(v.size(), 4u,
                            errors::InvalidArgument(
                                "attribute 'variances' must hold 4 values, "
                                "got ",
                                v.size(), "."));
          for (float x : v) {
            PADDLE_ENFORCE_GT(
                x, 0.0f,
                errors::InvalidArgument(
                    "attribute 'variances' must be > 0, got ", x, "."));
          }
        });
    AddAttr<bool>("flip", "also use 1/ar for every aspect ratio")
        .SetDefault(true);
    AddAttr<bool>("clip", "clamp every coordinate to [0, 1]").SetDefault(true);
    AddAttr<float>("step_w", "cell width in pixels; 0 = IW / W")
        .SetDefault(0.0f);
    AddAttr<float>("step_h", "cell height in pixels; 0 = IH / H")
        .SetDefault(0.0f);
    AddAttr<float>("offset", "centre offset within a cell").SetDefault(0.5f);
    AddAttr<bool>("min_max_aspect_ratios_order",
                  "Caffe-SSD order: min square, max square, other ratios")
        .SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(prior_box,
                  paddle_lite::operators::PriorBoxOp,
                  paddle_lite::operators::PriorBoxOpMaker);
