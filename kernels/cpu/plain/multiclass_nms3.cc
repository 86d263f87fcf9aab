#include <algorithm>
#include <utility>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class MulticlassNms3Kernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* bboxes = ctx.Input<framework::Tensor>("BBoxes");
    const auto* scores = ctx.Input<framework::Tensor>("Scores");
    auto* out = ctx.Output<framework::Tensor>("Out");
    auto* index = ctx.Output<framework::Tensor>("Index");
    auto* rois_num_out = ctx.Output<framework::Tensor>("NmsRoisNum");

    Params params;
    params.background_label = ctx.Attr<int>("background_label");
    params.score_threshold = static_cast<T>(ctx.Attr<float>("score_threshold"));
    params.nms_top_k = ctx.Attr<int>("nms_top_k");
    params.nms_threshold = static_cast<T>(ctx.Attr<float>("nms_threshold"));
    params.nms_eta = static_cast<T>(ctx.Attr<float>("nms_eta"));
    params.normalized = ctx.Attr<bool>("normalized");
    const int keep_top_k = ctx.Attr<int>("keep_top_k");

    if (scores->numel() == 0) {
      // No box ([N, C, 0] or [0, C]): no (image, class) pair has work, but
      // the loops below would make an Image per image and a task and a
      // list per pair, for a hostile N or C of 2^40 with no data behind.
      // The 2-D form's images come from RoisNum or the LoD: real data.
      const int64_t num_images =
          scores->dims().size() == 3
              ? scores->dims()[0]
              : static_cast<int64_t>(SplitImages(ctx, *bboxes, *scores).size());
      if (rois_num_out != nullptr) {
        rois_num_out->Resize({num_images});
        int32_t* counts = rois_num_out->mutable_data<int32_t>(ctx.GetPlace());
        std::fill(counts, counts + num_images, 0);
      }
      WriteRows(ctx, {}, 0, {}, std::vector<size_t>(num_images + 1, 0), out,
                index);
      return;
    }
    const std::vector<Image> images = SplitImages(ctx, *bboxes, *scores);
    const int64_t num_images = static_cast<int64_t>(images.size());
    const bool per_class_boxes = scores->dims().size() == 2;
    // Scores is [N, C, M] or [M, C]: C is dims[1] either way.
    const int64_t class_num = scores->dims()[1];

    // NMS of every (image, class) pair, independent of each other.
    std::vector<std::vector<int64_t>> kept(num_images * class_num);
    int64_t max_boxes = 0;
    for (const Image& img : images) max_boxes = std::max(max_boxes, img.m);
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        num_images * class_num, 40.0 * (max_boxes + 1),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t c = task % class_num;
            if (c == params.background_label) continue;
            NmsOneClass(images[task / class_num], c, params, &kept[task]);
            // The 2-D form lists each class's boxes in input order.
            if (per_class_boxes) {
              std::sort(kept[task].begin(), kept[task].end());
            }
          }
        });

    // keep_top_k per image, then the row offsets of each image.
    std::vector<size_t> starts = {0};
    for (int64_t i = 0; i < num_images; ++i) {
      auto* per_class = &kept[i * class_num];
      KeepTopK(images[i], class_num, keep_top_k, per_class_boxes, per_class);
      size_t rows = 0;
      for (int64_t c = 0; c < class_num; ++c) rows += per_class[c].size();
      starts.push_back(starts.back() + rows);
    }

    if (rois_num_out != nullptr) {
      rois_num_out->Resize({num_images});
      int32_t* counts = rois_num_out->mutable_data<int32_t>(ctx.GetPlace());
      for (int64_t i = 0; i < num_images; ++i) {
        counts[i] = static_cast<int32_t>(starts[i + 1] - starts[i]);
      }
    }

    WriteRows(ctx, images, class_num, kept, std::move(starts), out, index);
  }

 private:
  struct Params {
    int background_label;
    T score_threshold;
    int nms_top_k;
    T nms_threshold;
    T nms_eta;
    bool normalized;
  };

  // One image's m boxes and their scores for every class, addressed by
  // strides so the 3-D and 2-D input forms share the NMS code.
  struct Image {
    const T* boxes;
    const T* scores;
    int64_t m;
    int64_t box_class_stride;    // elements between classes of one box
    int64_t box_stride;          // elements between boxes
    int64_t score_class_stride;  // elements between classes
    int64_t score_stride;        // elements between boxes
    int64_t index_base;          // Index of box 0 of class 0
    int64_t index_class_stride;  // Index step per class
    int64_t index_stride;        // Index step per box

    T Score(int64_t c, int64_t j) const {
      return scores[c * score_class_stride + j * score_stride];
    }
    const T* Box(int64_t c, int64_t j) const {
      return boxes + c * box_class_stride + j * box_stride;
    }
    int64_t Index(int64_t c, int64_t j) const {
      return index_base + c * index_class_stride + j * index_stride;
    }
  };

  // Out (and Index): the kept rows of each image, class by class, with
  // `starts` (the row offsets of each image) as their LoD; nothing found
  // without Index is the single row -1.
  static void WriteRows(const framework::ExecutionContext& ctx,
                        const std::vector<Image>& images,
                        int64_t class_num,
                        const std::vector<std::vector<int64_t>>& kept,
                        std::vector<size_t> starts,
                        framework::Tensor* out,
                        framework::Tensor* index) {
    const int64_t total = static_cast<int64_t>(starts.back());
    const int64_t row_width =
        ctx.Input<framework::Tensor>("BBoxes")->dims()[2] + 2;
    if (total == 0 && index == nullptr) {
      // Without Index (old-style outputs) "nothing found" is a single -1.
      out->Resize({1, 1});
      out->mutable_data<T>(ctx.GetPlace())[0] = T(-1);
      out->set_lod({{0, 1}});
      return;
    }
    out->Resize({total, row_width});
    T* rows = out->mutable_data<T>(ctx.GetPlace());
    int32_t* row_index = nullptr;
    if (index != nullptr) {
      index->Resize({total, 1});
      row_index = index->mutable_data<int32_t>(ctx.GetPlace());
    }
    int64_t r = 0;
    for (size_t i = 0; i < images.size(); ++i) {
      const Image& img = images[i];
      // Rows by class label ascending, within a class in kept order.
      for (int64_t c = 0; c < class_num; ++c) {
        for (int64_t j : kept[i * class_num + c]) {
          T* row = rows + r * row_width;
          row[0] = static_cast<T>(c);
          row[1] = img.Score(c, j);
          std::copy(img.Box(c, j), img.Box(c, j) + 4, row + 2);
          if (row_index != nullptr) {
            row_index[r] = static_cast<int32_t>(img.Index(c, j));
          }
          ++r;
        }
      }
    }
    if (index != nullptr) index->set_lod({starts});
    out->set_lod({std::move(starts)});
  }

  static std::vector<Image> SplitImages(const framework::ExecutionContext& ctx,
                                        const framework::Tensor& bboxes,
                                        const framework::Tensor& scores) {
    std::vector<Image> images;
    const T* box_data = bboxes.data<T>();
    const T* score_data = scores.data<T>();
    if (scores.dims().size() == 3) {
      // Index = n * M + box: the row in the flattened [N * M] box list.
      const int64_t c = scores.dims()[1];
      const int64_t m = scores.dims()[2];
      for (int64_t n = 0; n < scores.dims()[0]; ++n) {
        images.push_back({box_data + n * m * 4, score_data + n * c * m, m,
                          /*box_class_stride=*/0, /*box_stride=*/4,
                          /*score_class_stride=*/m, /*score_stride=*/1,
                          /*index_base=*/n * m, /*index_class_stride=*/0,
                          /*index_stride=*/1});
      }
      return images;
    }
    // 2-D form: Index = row * C + class, the box's row in the flattened
    // [M * C, 4] per-class box list of all images.
    std::vector<size_t> offsets;
    const auto* rois_num = ctx.Input<framework::Tensor>("RoisNum");
    if (rois_num != nullptr) {
      offsets.push_back(0);
      for (int64_t i = 0; i < rois_num->numel(); ++i) {
        const int64_t v = rois_num->dtype() == framework::DataType::kInt32
                              ? rois_num->data<int32_t>()[i]
                              : rois_num->data<int64_t>()[i];
        offsets.push_back(offsets.back() + static_cast<size_t>(v));
      }
    } else {
      // The shape step asked for BBoxes' LoD; one written over since has
      // none to read.
      PADDLE_ENFORCE(!bboxes.lod().empty(),
                     platform::errors::InvalidArgument(
                         "multiclass_nms3: 2-D BBoxes need a LoD or RoisNum"));
      offsets = bboxes.lod().back();
    }
    const int64_t c = scores.dims()[1];
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
      const int64_t s = static_cast<int64_t>(offsets[i]);
      const int64_t m = static_cast<int64_t>(offsets[i + 1]) - s;
      images.push_back({box_data + s * c * 4, score_data + s * c, m,
                        /*box_class_stride=*/4, /*box_stride=*/c * 4,
                        /*score_class_stride=*/1, /*score_stride=*/c,
                        /*index_base=*/s * c, /*index_class_stride=*/1,
                        /*index_stride=*/c});
    }
    return images;
  }

  // Paddle orders scores through std::pair<float, ...> comparisons, so
  // double scores are ranked by their float value too.
  static bool Higher(T a, T b) {
    return static_cast<float>(a) > static_cast<float>(b);
  }

  static T Area(const T* b, bool normalized) {
    if (b[2] < b[0] || b[3] < b[1]) return T(0);
    const T w = b[2] - b[0];
    const T h = b[3] - b[1];
    return normalized ? w * h : (w + 1) * (h + 1);
  }

  static T IoU(const T* a, const T* b, bool normalized) {
    if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) {
      return T(0);
    }
    // Pixel boxes (normalized = false) count both end pixels.
    const T extra = normalized ? T(0) : T(1);
    const T inter_w = std::min(a[2], b[2]) - std::max(a[0], b[0]) + extra;
    const T inter_h = std::min(a[3], b[3]) - std::max(a[1], b[1]) + extra;
    const T inter = inter_w * inter_h;
    return inter / (Area(a, normalized) + Area(b, normalized) - inter);
  }

  // Greedy NMS of class c: candidates above the score threshold by
  // descending score (ties in box order), at most nms_top_k of them.
  static void NmsOneClass(const Image& img,
                          int64_t c,
                          const Params& p,
                          std::vector<int64_t>* kept) {
    std::vector<std::pair<T, int64_t>> candidates;
    for (int64_t j = 0; j < img.m; ++j) {
      const T s = img.Score(c, j);
      if (s > p.score_threshold) candidates.emplace_back(s, j);
    }
    std::stable_sort(
        candidates.begin(), candidates.end(),
        [](const auto& a, const auto& b) { return Higher(a.first, b.first); });
    if (p.nms_top_k > -1 &&
        static_cast<int64_t>(candidates.size()) > p.nms_top_k) {
      candidates.resize(p.nms_top_k);
    }
    T threshold = p.nms_threshold;
    for (const auto& cand : candidates) {
      const T* box = img.Box(c, cand.second);
      bool keep = true;
      for (int64_t k : *kept) {
        if (IoU(box, img.Box(c, k), p.normalized) > threshold) {
          keep = false;
          break;
        }
      }
      if (!keep) continue;
      kept->push_back(cand.second);
      if (p.nms_eta < T(1) && threshold > T(0.5)) threshold *= p.nms_eta;
    }
  }

  // Caps one image's detections at keep_top_k by descending score (ties:
  // lower class, then earlier in the class's list), keeping class order.
  static void KeepTopK(const Image& img,
                       int64_t class_num,
                       int keep_top_k,
                       bool per_class_boxes,
                       std::vector<int64_t>* per_class) {
    if (keep_top_k <= -1) return;
    struct Det {
      T score;
      int64_t c;
      int64_t j;
    };
    std::vector<Det> all;
    for (int64_t c = 0; c < class_num; ++c) {
      for (int64_t j : per_class[c]) all.push_back({img.Score(c, j), c, j});
    }
    if (static_cast<int64_t>(all.size()) <= keep_top_k) return;
    std::stable_sort(all.begin(), all.end(), [](const Det& a, const Det& b) {
      return Higher(a.score, b.score);
    });
    all.resize(keep_top_k);
    for (int64_t c = 0; c < class_num; ++c) per_class[c].clear();
    for (const Det& d : all) per_class[d.c].push_back(d.j);
    if (per_class_boxes) {
      for (int64_t c = 0; c < class_num; ++c) {
        std::sort(per_class[c].begin(), per_class[c].end());
      }
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(multiclass_nms3,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::MulticlassNms3Kernel<float>,
                   paddle_lite::kernels::MulticlassNms3Kernel<double>);
