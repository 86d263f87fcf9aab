// yolo_box: decodes one YOLOv3 head [N, A*(5+C), H, W] into boxes
// [N, A*H*W, 4] (x1, y1, x2, y2 in image pixels) and per-class scores
// [N, A*H*W, C]. With iou_aware the head carries A extra IoU channels
// first: [N, A*(6+C), H, W].
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class YoloBoxOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const framework::DDim img_dims = ctx->GetInputDim("ImgSize");
    const auto anchors = ctx->Attr<std::vector<int>>("anchors");
    const int class_num = ctx->Attr<int>("class_num");
    const bool iou_aware = ctx->Attr<bool>("iou_aware");

    PADDLE_ENFORCE_EQ(
        x_dims.size(), 4u,
        errors::InvalidArgument("yolo_box: X must be 4-D [N, C, H, W], got ",
                                x_dims, "."));
    PADDLE_ENFORCE_EQ(
        img_dims.size(), 2u,
        errors::InvalidArgument("yolo_box: ImgSize must be 2-D [N, 2], got ",
                                img_dims, "."));
    PADDLE_ENFORCE(img_dims[0] == x_dims[0] && img_dims[1] == 2,
                   errors::InvalidArgument(
                       "yolo_box: ImgSize must be [N, 2] with N = X dims[0], "
                       "got ImgSize ",
                       img_dims, " for X ", x_dims, "."));
    PADDLE_ENFORCE_EQ(
        ctx->GetInputDataType("ImgSize"), framework::DataType::kInt32,
        errors::InvalidArgument("yolo_box: ImgSize must be int32, got ",
                                ctx->GetInputDataType("ImgSize"), "."));
    PADDLE_ENFORCE(!anchors.empty() && anchors.size() % 2 == 0,
                   errors::InvalidArgument(
                       "yolo_box: attribute 'anchors' must hold (w, h) "
                       "pairs, got ",
                       anchors.size(), " values."));
    PADDLE_ENFORCE_GT(class_num, 0,
                      errors::InvalidArgument(
                          "yolo_box: attribute 'class_num' must be > 0, got ",
                          class_num, "."));
    PADDLE_ENFORCE_GT(ctx->Attr<float>("scale_x_y"), 0.0f,
                      errors::InvalidArgument(
                          "yolo_box: attribute 'scale_x_y' must be > 0, got ",
                          ctx->Attr<float>("scale_x_y"), "."));
    PADDLE_ENFORCE_GT(ctx->Attr<int>("downsample_ratio"), 0,
                      errors::InvalidArgument(
                          "yolo_box: attribute 'downsample_ratio' must be > 0, "
                          "got ",
                          ctx->Attr<int>("downsample_ratio"), "."));

    const int64_t anchor_num = static_cast<int64_t>(anchors.size() / 2);
    // In 64 bits: a hostile class_num of INT_MAX overflows int.
    const int64_t per_anchor = int64_t{iou_aware ? 6 : 5} + class_num;
    PADDLE_ENFORCE_EQ(
        x_dims[1], anchor_num * per_anchor,
        errors::InvalidArgument("yolo_box: X dims ", x_dims,
                                " need dims[1] = anchors ", anchor_num, " * (",
                                (iou_aware ? "6" : "5"), " + class_num ",
                                class_num, ") = ", anchor_num * per_anchor,
                                (iou_aware ? " (iou_aware is on)" : ""), "."));

    const int64_t box_num = anchor_num * x_dims[2] * x_dims[3];
    ctx->SetOutputDim("Boxes", {x_dims[0], box_num, 4});
    ctx->SetOutputDim("Scores", {x_dims[0], box_num, class_num});
  }
};

class YoloBoxOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "YOLO head output [N, A*(5+C), H, W]");
    AddInput("ImgSize", "int32 [N, 2]: (height, width) of each image");
    AddOutput("Boxes", "[N, A*H*W, 4] boxes (x1, y1, x2, y2), anchor-major");
    AddOutput("Scores", "[N, A*H*W, C] confidence * class probability");
    AddAttr<std::vector<int32_t>>("anchors", "(w, h) pairs, one per anchor");
    AddAttr<int32_t>("class_num", "number of classes C");
    AddAttr<float>("conf_thresh", "objectness below this gives a zero box")
        .SetDefault(0.01f);
    AddAttr<int32_t>("downsample_ratio", "input size / feature map size")
        .SetDefault(32);
    AddAttr<bool>("clip_bbox", "clip boxes to the image").SetDefault(true);
    AddAttr<float>("scale_x_y", "centre scaling of YOLOv4 / PP-YOLO")
        .SetDefault(1.0f);
    AddAttr<bool>("iou_aware", "X carries A IoU logits first")
        .SetDefault(false);
    AddAttr<float>("iou_aware_factor", "weight of the IoU in the confidence")
        .SetDefault(0.5f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(yolo_box,
                  paddle_lite::operators::YoloBoxOp,
                  paddle_lite::operators::YoloBoxOpMaker);
