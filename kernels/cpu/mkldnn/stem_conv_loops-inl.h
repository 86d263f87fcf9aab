// The loops of RunStemConv, written once against own_loop_vectors.h:
// stem_conv_util.cc includes this file once per instruction set, inside
// that set's namespace (avx512 or avx2, also named own_vectors there),
// with PDLITE_OWN_TARGET set to its target attribute. No include guard,
// on purpose.

// A tile's pixels take kCount vectors (of kLanes lanes; Lanes8, for at
// most 8 channels, is own_loop_vectors.h's) of output channels each; every
// tap's filter vectors are loaded once per tile and each pixel's input
// value is broadcast into its multiply-adds. Up to 12 pixels, as many as
// the accumulators allow (6 on AVX2 for 9-16 channels).
template <int kCount>
struct Lanes {
  using Vec = V;
  static constexpr int kVecLanes = kLanes;
  static constexpr int kVectors = kCount;
  static constexpr int kTilePixels =
      kTileVectors / kCount < 12 ? kTileVectors / kCount : 12;
  PDLITE_OWN_TARGET static Vec Bias(const float* bias, int64_t count) {
    return bias != nullptr ? LoadFirst(FirstLanes(count), bias) : Zero();
  }
  PDLITE_OWN_TARGET static Vec Load(const float* p) {
    return own_vectors::Load(p);
  }
  PDLITE_OWN_TARGET static Vec MulAdd(float a, Vec w, Vec acc) {
    return own_vectors::MulAdd(Set1(a), w, acc);
  }
  template <Act kAct>
  PDLITE_OWN_TARGET static void Store(
      float* out, int64_t count, Vec v, float alpha, float beta) {
    StoreFirst(out, FirstLanes(count), Activate<kAct>(v, alpha, beta));
  }
};

// Output pixels [x, x + kPixels) of output row y of image n. Without
// kCheck every tap of every pixel lies inside the input's width (rows
// outside its height are left out for all); with it (the pixels at the
// left and right edges) taps outside read zeros.
template <typename L, int kPixels, Act kAct, bool kCheck>
PDLITE_OWN_TARGET void Tile(const StemConv& p,
                            int64_t n,
                            int64_t y,
                            int64_t x) {
  constexpr int kVectors = L::kVectors;
  typename L::Vec acc[kPixels][kVectors];
  PDLITE_UNROLL(2)
  for (int v = 0; v < kVectors; ++v) {
    const typename L::Vec start =
        L::Bias(p.bias != nullptr ? p.bias + v * L::kVecLanes : nullptr,
                p.out_channels - v * L::kVecLanes);
    PDLITE_UNROLL(12)
    for (int i = 0; i < kPixels; ++i) acc[i][v] = start;
  }
  const int64_t first_x = x * p.stride_w - p.pad_left;
  const int64_t top = y * p.stride_h - p.pad_top;
  const int64_t row_begin = std::max<int64_t>(0, -top);
  const int64_t row_end = std::min<int64_t>(p.kernel_h, p.in_h - top);
  for (int64_t c = 0; c < p.in_channels; ++c) {
    const float* plane = p.in + (n * p.in_channels + c) * p.in_h * p.in_w;
    for (int64_t r = row_begin; r < row_end; ++r) {
      const float* in_row = plane + (top + r) * p.in_w;
      const float* w_row =
          p.packed_filter + ((c * p.kernel_h + r) * p.kernel_w) * 16;
      for (int64_t s = 0; s < p.kernel_w; ++s) {
        typename L::Vec w[kVectors];
        PDLITE_UNROLL(2)
        for (int v = 0; v < kVectors; ++v) {
          w[v] = L::Load(w_row + s * 16 + v * L::kVecLanes);
        }
        PDLITE_UNROLL(12)
        for (int i = 0; i < kPixels; ++i) {
          // An index, not a pointer: at the edges the tap's address may
          // lie outside the plane, which a pointer may not even point to.
          const int64_t ix = first_x + i * p.stride_w + s;
          if (kCheck && (ix < 0 || ix >= p.in_w)) continue;
          PDLITE_UNROLL(2)
          for (int v = 0; v < kVectors; ++v) {
            acc[i][v] = L::MulAdd(in_row[ix], w[v], acc[i][v]);
          }
        }
      }
    }
  }
  float* out = p.out + ((n * p.out_h + y) * p.out_w + x) * p.out_channels;
  PDLITE_UNROLL(12)
  for (int i = 0; i < kPixels; ++i) {
    PDLITE_UNROLL(2)
    for (int v = 0; v < kVectors; ++v) {
      L::template Store<kAct>(out + i * p.out_channels + v * L::kVecLanes,
                              p.out_channels - v * L::kVecLanes, acc[i][v],
                              p.activation.alpha, p.activation.beta);
    }
  }
}

// Output pixels [0, out_w) of output row y of image n: the edges a pixel
// at a time with checks, the middle a tile at a time, what is left of it
// a pixel at a time.
template <typename L, Act kAct>
void Span(const StemConv& p,
          int64_t n,
          int64_t y,
          int64_t inner_begin,
          int64_t inner_end) {
  int64_t x = 0;
  for (; x < inner_begin; ++x) Tile<L, 1, kAct, true>(p, n, y, x);
  for (; x + L::kTilePixels <= inner_end; x += L::kTilePixels) {
    Tile<L, L::kTilePixels, kAct, false>(p, n, y, x);
  }
  for (; x < inner_end; ++x) Tile<L, 1, kAct, false>(p, n, y, x);
  for (; x < p.out_w; ++x) Tile<L, 1, kAct, true>(p, n, y, x);
}

// Output rows [begin, end) of all images (row = n * out_h + y).
template <Act kAct>
void Rows(const StemConv& p, int64_t begin, int64_t end) {
  int64_t inner_begin = 0;
  int64_t inner_end = 0;
  own_loops::InnerColumns(p, &inner_begin, &inner_end);
  for (int64_t row = begin; row < end; ++row) {
    const int64_t n = row / p.out_h;
    const int64_t y = row % p.out_h;
    if (p.out_channels <= 8) {
      Span<Lanes8, kAct>(p, n, y, inner_begin, inner_end);
    } else {
      Span<Lanes<16 / kLanes>, kAct>(p, n, y, inner_begin, inner_end);
    }
  }
}

RowsFn RowsFor(Act act) {
  return own_loops::WithAct(
      act, [](auto kind) -> RowsFn { return Rows<decltype(kind)::value>; });
}
