// The loops of RunPointwiseConv, written once against own_loop_vectors.h:
// pointwise_conv_util.cc includes this file once per instruction set,
// inside that set's namespace (avx512 or avx2), with PDLITE_OWN_TARGET
// set to its target attribute. No include guard, on purpose.

// Rows of one tile `vectors` vectors wide.
constexpr int TileRows(int vectors) { return kTileVectors / vectors; }
static_assert(kBlockRows % TileRows(1) == 0 && kBlockRows % TileRows(2) == 0 &&
                  kBlockRows % TileRows(kTileWidth) == 0,
              "a block holds whole tiles");

// One tile: rows [row, row + rows) (rows <= TileRows(kVectors)) of the
// kVectors vectors from vector v0 of panel `panel` (its first channel
// panel * kPanel, `stride` floats per input channel). Rows past the end
// read the last row again and are not stored, so the loop has one shape.
template <int kVectors, Act kAct>
PDLITE_OWN_TARGET void Tile(const PointwiseConv& p,
                            int64_t row,
                            int rows,
                            int64_t panel,
                            int64_t stride,
                            int64_t v0) {
  constexpr int kRows = TileRows(kVectors);
  const int64_t k_count = p.in_channels;
  const int64_t first = panel * kPanel + kLanes * v0;
  const float* b = p.packed_filter + panel * kPanel * k_count + kLanes * v0;
  const Mask last =
      FirstLanes(p.out_channels - first - kLanes * (kVectors - 1));
  const Mask all = FirstLanes(kLanes);
  const float* a[kRows];
  PDLITE_UNROLL(24)
  for (int r = 0; r < kRows; ++r) {
    a[r] = p.in + (row + std::min(r, rows - 1)) * p.in_stride;
  }
  V acc[kRows][kVectors];
  V start[kVectors];
  PDLITE_UNROLL(4)
  for (int v = 0; v < kVectors; ++v) {
    start[v] = p.bias != nullptr ? LoadFirst(v == kVectors - 1 ? last : all,
                                             p.bias + first + kLanes * v)
                                 : Zero();
  }
  PDLITE_UNROLL(24)
  for (int r = 0; r < kRows; ++r) {
    PDLITE_UNROLL(4)
    for (int v = 0; v < kVectors; ++v) acc[r][v] = start[v];
  }
  for (int64_t k = 0; k < k_count; ++k) {
    V w[kVectors];
    PDLITE_UNROLL(4)
    for (int v = 0; v < kVectors; ++v) {
      w[v] = Load(b + k * stride + kLanes * v);
    }
    PDLITE_UNROLL(24)
    for (int r = 0; r < kRows; ++r) {
      const V x = Set1(a[r][k]);
      PDLITE_UNROLL(4)
      for (int v = 0; v < kVectors; ++v) {
        acc[r][v] = MulAdd(x, w[v], acc[r][v]);
      }
    }
  }
  PDLITE_UNROLL(24)
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    float* c = p.out + (row + r) * p.out_channels + first;
    const float* res = p.residual == nullptr
                           ? nullptr
                           : p.residual + (row + r) * p.residual_stride + first;
    PDLITE_UNROLL(4)
    for (int v = 0; v < kVectors; ++v) {
      const Mask& m = v == kVectors - 1 ? last : all;
      V x = acc[r][v];
      if (res != nullptr) x = Add(x, LoadFirst(m, res + kLanes * v));
      StoreFirst(c + kLanes * v, m,
                 Activate<kAct>(x, p.activation.alpha, p.activation.beta));
    }
  }
}

// Rows [begin, end) of one panel's vectors [v0, v0 + kVectors), a tile
// at a time.
template <int kVectors, Act kAct>
PDLITE_OWN_TARGET void Panel(const PointwiseConv& p,
                             int64_t begin,
                             int64_t end,
                             int64_t panel,
                             int64_t stride,
                             int64_t v0) {
  constexpr int kRows = TileRows(kVectors);
  for (int64_t row = begin; row < end; row += kRows) {
    Tile<kVectors, kAct>(p, row,
                         static_cast<int>(std::min<int64_t>(kRows, end - row)),
                         panel, stride, v0);
  }
}

using PanelFn =
    void (*)(const PointwiseConv&, int64_t, int64_t, int64_t, int64_t, int64_t);

// Panel for `count` vectors (1 to kTileWidth).
template <Act kAct>
PanelFn PanelOf(int64_t count) {
  static_assert(kTileWidth >= 2 && kTileWidth <= 4, "tile widths");
  if constexpr (kTileWidth >= 4) {
    if (count == 4) return Panel<4, kAct>;
  }
  if (count == 3) return Panel<3, kAct>;
  if (count == 2) return Panel<2, kAct>;
  return Panel<1, kAct>;
}

// Rows [begin, end), kBlockRows at a time, each through every panel, in
// tiles up to kTileWidth vectors wide: a panel of n vectors in
// ceil(n / kTileWidth) tiles as even as can be (AVX2's 8 vectors as 3, 3
// and 2, not 3, 3, 1 and 1).
template <Act kAct>
void Block(const PointwiseConv& p, int64_t begin, int64_t end) {
  const int64_t panels = (p.out_channels + kPanel - 1) / kPanel;
  for (int64_t from = begin; from < end; from += kBlockRows) {
    const int64_t to = std::min(end, from + kBlockRows);
    for (int64_t panel = 0; panel < panels; ++panel) {
      const int64_t width = std::min(kPanel, p.out_channels - panel * kPanel);
      const int64_t stride = (width + 15) / 16 * 16;
      const int64_t vectors = (width + kLanes - 1) / kLanes;
      const int64_t tiles = (vectors + kTileWidth - 1) / kTileWidth;
      int64_t v0 = 0;
      for (int64_t t = 0; t < tiles; ++t) {
        const int64_t count = (vectors - v0) / (tiles - t);
        PanelOf<kAct>(count)(p, from, to, panel, stride, v0);
        v0 += count;
      }
    }
  }
}

BlockFn BlockFor(Act act) {
  return own_loops::WithAct(
      act, [](auto kind) -> BlockFn { return Block<decltype(kind)::value>; });
}
