// The loops of RunDepthwiseConv, written once against own_loop_vectors.h:
// depthwise_conv_util.cc includes this file once per instruction set,
// inside that set's namespace (avx512 or avx2), with PDLITE_OWN_TARGET
// set to its target attribute. No include guard, on purpose.

// Output pixels of one tile `vectors` vectors of channels wide.
constexpr int TilePixels(int vectors) { return kTileVectors / vectors; }

// One tile: output pixels [x, x + kPixels) of output row y of image n,
// the kVectors channel vectors from channel c0, the last one partial
// (masked loads and stores) with kPartial: the others' loads fold into
// the multiply-adds. Without kCheck every tap of every pixel lies inside
// the input's width (rows outside its height are left out for all); with
// it (the pixels at the left and right edges) taps outside read zeros.
template <int kVectors, int kPixels, Act kAct, bool kPartial, bool kCheck>
PDLITE_OWN_TARGET void Tile(
    const DepthwiseConv& p, int64_t n, int64_t y, int64_t x, int64_t c0) {
  const int64_t padded = RoundUp16(p.channels);
  const Mask last = FirstLanes(p.channels - c0 - kLanes * (kVectors - 1));
  const Mask all = FirstLanes(kLanes);
  V acc[kPixels][kVectors];
  PDLITE_UNROLL(4)
  for (int v = 0; v < kVectors; ++v) {
    const V start = p.bias != nullptr
                        ? LoadFirst(v == kVectors - 1 ? last : all,
                                    p.bias + c0 + kLanes * v)
                        : Zero();
    PDLITE_UNROLL(24)
    for (int i = 0; i < kPixels; ++i) acc[i][v] = start;
  }
  const int64_t first_x = x * p.stride_w - p.pad_left;
  // Floats from one output pixel's input to the next's.
  const int64_t step = p.stride_w * p.in_stride;
  const int64_t top = y * p.stride_h - p.pad_top;
  const int64_t row_begin = std::max<int64_t>(0, -top);
  const int64_t row_end = std::min<int64_t>(p.kernel_h, p.in_h - top);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* in_row =
        p.in + ((n * p.in_h + top + r) * p.in_w) * p.in_stride + c0;
    const float* w_row = p.packed_filter + r * p.kernel_w * padded + c0;
    for (int64_t s = 0; s < p.kernel_w; ++s) {
      V w[kVectors];
      PDLITE_UNROLL(4)
      for (int v = 0; v < kVectors; ++v) {
        w[v] = Load(w_row + s * padded + kLanes * v);
      }
      const float* px = in_row + (first_x + s) * p.in_stride;
      PDLITE_UNROLL(24)
      for (int i = 0; i < kPixels; ++i, px += step) {
        if (kCheck) {
          const int64_t ix = first_x + i * p.stride_w + s;
          if (ix < 0 || ix >= p.in_w) continue;
        }
        PDLITE_UNROLL(4)
        for (int v = 0; v < kVectors; ++v) {
          const V in = kPartial && v == kVectors - 1
                           ? LoadFirst(last, px + kLanes * v)
                           : Load(px + kLanes * v);
          acc[i][v] = MulAdd(in, w[v], acc[i][v]);
        }
      }
    }
  }
  float* out = p.out + ((n * p.out_h + y) * p.out_w + x) * p.channels + c0;
  PDLITE_UNROLL(24)
  for (int i = 0; i < kPixels; ++i) {
    PDLITE_UNROLL(4)
    for (int v = 0; v < kVectors; ++v) {
      const V y =
          Activate<kAct>(acc[i][v], p.activation.alpha, p.activation.beta);
      if (kPartial && v == kVectors - 1) {
        StoreFirst(out + i * p.channels + kLanes * v, last, y);
      } else {
        Store(out + i * p.channels + kLanes * v, y);
      }
    }
  }
}

// Output pixels [x_begin, x_end) of one row, one channel block, kVectors
// wide: those left of inner_begin or from inner_end on a pixel at a time
// with checks, the others a tile at a time, what is left of them a pixel
// at a time.
template <int kVectors, Act kAct, bool kPartial>
void Span(const DepthwiseConv& p,
          int64_t n,
          int64_t y,
          int64_t c0,
          int64_t x_begin,
          int64_t x_end,
          int64_t inner_begin,
          int64_t inner_end) {
  constexpr int kPixels = TilePixels(kVectors);
  int64_t x = x_begin;
  for (; x < std::min(x_end, inner_begin); ++x) {
    Tile<kVectors, 1, kAct, kPartial, true>(p, n, y, x, c0);
  }
  const int64_t middle_end = std::min(x_end, inner_end);
  for (; x + kPixels <= middle_end; x += kPixels) {
    Tile<kVectors, kPixels, kAct, kPartial, false>(p, n, y, x, c0);
  }
  for (; x < middle_end; ++x) {
    Tile<kVectors, 1, kAct, kPartial, false>(p, n, y, x, c0);
  }
  for (; x < x_end; ++x) {
    Tile<kVectors, 1, kAct, kPartial, true>(p, n, y, x, c0);
  }
}

// (p, n, y, c0, x_begin, x_end, inner_begin, inner_end)
using SpanFn = void (*)(const DepthwiseConv&,
                        int64_t,
                        int64_t,
                        int64_t,
                        int64_t,
                        int64_t,
                        int64_t,
                        int64_t);

// Span for `count` vectors (1 to kTileWidth), the last partial.
template <Act kAct>
SpanFn SpanOf(int64_t count, bool partial) {
  static_assert(kTileWidth >= 2 && kTileWidth <= 4, "tile widths");
  if constexpr (kTileWidth >= 4) {
    if (count == 4) {
      return partial ? Span<4, kAct, true> : Span<4, kAct, false>;
    }
  }
  if (count == 3) {
    return partial ? Span<3, kAct, true> : Span<3, kAct, false>;
  }
  if (count == 2) {
    return partial ? Span<2, kAct, true> : Span<2, kAct, false>;
  }
  return partial ? Span<1, kAct, true> : Span<1, kAct, false>;
}

// Output pixels a row's channel blocks take in turn: a multiple of every
// tile's, few enough that the input pixels the blocks read (at stride 2
// and 3 taps, 49 of up to 64 channels) stay in the first-level cache from
// one block to the next.
constexpr int64_t kChunkPixels = 24;

// Output rows [begin, end) of all images (row = n * out_h + y), each in
// chunks of kChunkPixels, every block of up to kTileWidth vectors of
// channels in turn.
template <Act kAct>
void Rows(const DepthwiseConv& p, int64_t begin, int64_t end) {
  int64_t inner_begin = 0;
  int64_t inner_end = 0;
  own_loops::InnerColumns(p, &inner_begin, &inner_end);
  const int64_t vectors = (p.channels + kLanes - 1) / kLanes;
  // As even as can be: AVX2's 4 vectors as 2 and 2, not 3 and 1.
  const int64_t tiles = (vectors + kTileWidth - 1) / kTileWidth;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t n = row / p.out_h;
    const int64_t y = row % p.out_h;
    for (int64_t x = 0; x < p.out_w; x += kChunkPixels) {
      const int64_t x_end = std::min(p.out_w, x + kChunkPixels);
      int64_t v = 0;
      for (int64_t t = 0; t < tiles; ++t) {
        const int64_t count = (vectors - v) / (tiles - t);
        const int64_t c0 = v * kLanes;
        const bool partial = p.channels - c0 < kLanes * count;
        SpanOf<kAct>(count, partial)(p, n, y, c0, x, x_end, inner_begin,
                                     inner_end);
        v += count;
      }
    }
  }
}

RowsFn RowsFor(Act act) {
  return own_loops::WithAct(
      act, [](auto kind) -> RowsFn { return Rows<decltype(kind)::value>; });
}
