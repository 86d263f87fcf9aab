#include <algorithm>
#include <cmath>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class YoloBoxKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* img_size = ctx.Input<framework::Tensor>("ImgSize");
    auto* boxes = ctx.Output<framework::Tensor>("Boxes");
    auto* scores = ctx.Output<framework::Tensor>("Scores");
    const std::vector<int> anchors = ctx.Attr<std::vector<int>>("anchors");
    const int class_num = ctx.Attr<int>("class_num");
    const T conf_thresh = static_cast<T>(ctx.Attr<float>("conf_thresh"));
    const int downsample_ratio = ctx.Attr<int>("downsample_ratio");
    const bool clip_bbox = ctx.Attr<bool>("clip_bbox");
    const T scale = static_cast<T>(ctx.Attr<float>("scale_x_y"));
    const T bias = static_cast<T>(-0.5 * (ctx.Attr<float>("scale_x_y") - 1.0));
    const bool iou_aware = ctx.Attr<bool>("iou_aware");
    const T iou_factor = static_cast<T>(ctx.Attr<float>("iou_aware_factor"));

    const int64_t n = x->dims()[0];
    const int64_t h = x->dims()[2];
    const int64_t w = x->dims()[3];
    const int64_t anchor_num = static_cast<int64_t>(anchors.size() / 2);
    const int64_t stride = h * w;
    // Channels of one anchor block and of one image.
    const int64_t anchor_stride = (5 + class_num) * stride;
    const int64_t image_stride = x->dims()[1] * stride;
    const int64_t box_num = anchor_num * stride;
    const T input_h = static_cast<T>(downsample_ratio * h);
    const T input_w = static_cast<T>(downsample_ratio * w);

    const T* in = x->data<T>();
    const int32_t* img = img_size->data<int32_t>();
    T* box_out = boxes->mutable_data<T>(ctx.GetPlace());
    T* score_out = scores->mutable_data<T>(ctx.GetPlace());
    // Cells under conf_thresh keep an all-zero box and zero scores.
    std::fill(box_out, box_out + boxes->numel(), T(0));
    std::fill(score_out, score_out + scores->numel(), T(0));
    // No cells: nothing to visit, however many rows (a hostile program's
    // 2^31 rows of zero width took a minute of empty loops).
    if (box_num == 0) return;

    // One task per (image, anchor, row) of cells.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n * anchor_num * h, 40.0 * w * (4 + class_num),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t k = task % h;
            const int64_t a = (task / h) % anchor_num;
            const int64_t i = task / (h * anchor_num);
            const int img_h = img[2 * i];
            const int img_w = img[2 * i + 1];
            const T* image = in + i * image_stride;
            // With iou_aware the A IoU channels come before the anchor
            // blocks.
            const T* block = image + (iou_aware ? anchor_num * stride : 0) +
                             a * anchor_stride;
            for (int64_t l = 0; l < w; ++l) {
              const int64_t cell = k * w + l;
              T conf = Sigmoid(block[4 * stride + cell]);
              if (iou_aware) {
                const T iou = Sigmoid(image[a * stride + cell]);
                conf = std::pow(conf, T(1) - iou_factor) *
                       std::pow(iou, iou_factor);
              }
              if (conf < conf_thresh) continue;

              const T cx =
                  (static_cast<T>(l) + Sigmoid(block[cell]) * scale + bias) *
                  static_cast<T>(img_w) / static_cast<T>(w);
              const T cy = (static_cast<T>(k) +
                            Sigmoid(block[stride + cell]) * scale + bias) *
                           static_cast<T>(img_h) / static_cast<T>(h);
              const T bw = std::exp(block[2 * stride + cell]) *
                           static_cast<T>(anchors[2 * a]) *
                           static_cast<T>(img_w) / input_w;
              const T bh = std::exp(block[3 * stride + cell]) *
                           static_cast<T>(anchors[2 * a + 1]) *
                           static_cast<T>(img_h) / input_h;
              const int64_t row = i * box_num + a * stride + cell;
              T* box = box_out + row * 4;
              box[0] = cx - bw / 2;
              box[1] = cy - bh / 2;
              box[2] = cx + bw / 2;
              box[3] = cy + bh / 2;
              if (clip_bbox) {
                // Written as Paddle compares, so a NaN coordinate clips too.
                // In T: img_w - 1 overflows int for a hostile INT_MIN.
                const T x_max = static_cast<T>(img_w) - T(1);
                const T y_max = static_cast<T>(img_h) - T(1);
                box[0] = box[0] > T(0) ? box[0] : T(0);
                box[1] = box[1] > T(0) ? box[1] : T(0);
                box[2] = box[2] < x_max ? box[2] : x_max;
                box[3] = box[3] < y_max ? box[3] : y_max;
              }
              T* score = score_out + row * class_num;
              for (int c = 0; c < class_num; ++c) {
                score[c] = conf * Sigmoid(block[(5 + c) * stride + cell]);
              }
            }
          }
        });
  }

 private:
  static T Sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(yolo_box,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::YoloBoxKernel<float>,
                   paddle_lite::kernels::YoloBoxKernel<double>);
