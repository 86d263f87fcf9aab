// multiclass_nms3: per image and class, greedy non-maximum suppression of
// scored boxes, then an optional per-image cap (keep_top_k). Out is a LoD
// tensor of [label, score, x1, y1, x2, y2] rows whose level-1 LoD gives
// each image's rows; Index and NmsRoisNum (int32) say where each row came
// from and how many rows each image has.
//
// Two input forms:
//   3-D: BBoxes [N, M, 4] shared by all classes, Scores [N, C, M].
//   2-D: BBoxes [M, C, 4] per-class boxes, Scores [M, C], the M rows split
//        into images by RoisNum (int32/int64 [N]) or else by BBoxes' LoD.
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class MulticlassNms3Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // How many rows NMS keeps is known only once it has run.
  bool KernelSetsOutputDims() const override { return true; }
  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim box_dims = ctx->GetInputDim("BBoxes");
    const framework::DDim score_dims = ctx->GetInputDim("Scores");
    PADDLE_ENFORCE(score_dims.size() == 2 || score_dims.size() == 3,
                   errors::InvalidArgument(
                       "multiclass_nms3: Scores must be [N, C, M] or [M, C], "
                       "got ",
                       score_dims, "."));
    PADDLE_ENFORCE_EQ(box_dims.size(), 3u,
                      errors::InvalidArgument(
                          "multiclass_nms3: BBoxes must be 3-D ([N, M, 4] or "
                          "[M, C, 4]), got ",
                          box_dims, "."));
    // Paddle also accepts 8..32 polygon coordinates in the 3-D form; no
    // saved model we know uses them.
    PADDLE_ENFORCE_EQ(
        box_dims[2], 4,
        errors::Unimplemented("multiclass_nms3: only 4-coordinate boxes are "
                              "supported, BBoxes is ",
                              box_dims, "."));

    int64_t num_images = 0;
    if (score_dims.size() == 3) {
      PADDLE_ENFORCE(
          box_dims[0] == score_dims[0] && box_dims[1] == score_dims[2],
          errors::InvalidArgument("multiclass_nms3: BBoxes ", box_dims,
                                  " must be [N, M, 4] for Scores [N, C, M] ",
                                  score_dims, "."));
      num_images = score_dims[0];
    } else {
      PADDLE_ENFORCE(
          box_dims[0] == score_dims[0] && box_dims[1] == score_dims[1],
          errors::InvalidArgument("multiclass_nms3: BBoxes ", box_dims,
                                  " must be [M, C, 4] for Scores [M, C] ",
                                  score_dims, "."));
      num_images = CheckImageSplit(ctx, box_dims[0]);
    }

    // The row count is known only after NMS: the kernel resizes Out and
    // Index and sets their LoD.
    ctx->SetOutputDim("Out", {0, box_dims[2] + 2});
    ctx->SetOutputDim("Index", {0, 1});
    ctx->SetOutputDim("NmsRoisNum", {num_images});
  }

 private:
  // For the 2-D form: checks that RoisNum (or else BBoxes' last LoD level)
  // splits the `rows` boxes into images; returns the image count.
  static int64_t CheckImageSplit(framework::InferShapeContext* ctx,
                                 int64_t rows) {
    int64_t total = 0;
    int64_t num_images = 0;
    if (ctx->HasInput("RoisNum")) {
      const framework::Tensor& rois_num = ctx->GetInputTensor("RoisNum");
      const framework::DataType type = rois_num.dtype();
      PADDLE_ENFORCE(type == framework::DataType::kInt32 ||
                         type == framework::DataType::kInt64,
                     errors::InvalidArgument(
                         "multiclass_nms3: RoisNum must be int32 or int64, "
                         "got ",
                         type, "."));
      num_images = rois_num.numel();
      for (int64_t i = 0; i < num_images; ++i) {
        const int64_t v = type == framework::DataType::kInt32
                              ? rois_num.data<int32_t>()[i]
                              : rois_num.data<int64_t>()[i];
        PADDLE_ENFORCE_GE(
            v, 0,
            errors::InvalidArgument("multiclass_nms3: RoisNum[", i, "] is ", v,
                                    ", expected >= 0."));
        total += v;
      }
    } else {
      const framework::LoD& lod = ctx->GetInputLoD("BBoxes");
      PADDLE_ENFORCE(!lod.empty() && !lod.back().empty(),
                     errors::InvalidArgument(
                         "multiclass_nms3: 2-D Scores [M, C] need RoisNum or "
                         "a LoD on BBoxes to split the boxes into images."));
      num_images = static_cast<int64_t>(lod.back().size()) - 1;
      total = static_cast<int64_t>(lod.back().back());
    }
    PADDLE_ENFORCE_EQ(total, rows,
                      errors::InvalidArgument(
                          "multiclass_nms3: the per-image box counts add up "
                          "to ",
                          total, " but BBoxes has ", rows, " rows."));
    return num_images;
  }
};

class MulticlassNms3OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("BBoxes", "[N, M, 4] boxes, or [M, C, 4] per-class boxes");
    AddInput("Scores", "[N, C, M] scores, or [M, C] with RoisNum");
    AddInput("RoisNum", "int32/int64 [N]: boxes per image of the 2-D form")
        .AsDispensable();
    AddOutput("Out", "[K, 6] rows (label, score, x1, y1, x2, y2), LoD");
    AddOutput("Index", "int32 [K, 1]: the input box of each row")
        .AsDispensable();
    AddOutput("NmsRoisNum", "int32 [N]: rows per image").AsDispensable();
    AddAttr<int32_t>("background_label", "class skipped; -1 = none")
        .SetDefault(0);
    AddAttr<float>("score_threshold", "candidates need a greater score");
    AddAttr<int32_t>("nms_top_k", "candidates per class; -1 = all");
    AddAttr<float>("nms_threshold", "IoU above which a box is suppressed")
        .SetDefault(0.3f);
    AddAttr<float>("nms_eta",
                   "adaptive NMS factor (< 1 shrinks the IoU "
                   "threshold while it is above 0.5)")
        .SetDefault(1.0f);
    AddAttr<int32_t>("keep_top_k", "rows per image; -1 = all");
    AddAttr<bool>("normalized", "false: pixel boxes, sizes are x2 - x1 + 1")
        .SetDefault(true);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(multiclass_nms3,
                  paddle_lite::operators::MulticlassNms3Op,
                  paddle_lite::operators::MulticlassNms3OpMaker);
