// The tile transforms of RunWinogradConv, written once against
// own_loop_vectors.h: winograd_conv_util.cc includes this file once per
// instruction set, inside that set's namespace (avx512 or avx2), with
// PDLITE_OWN_TARGET set to its target attribute. No include guard, on
// purpose.
//
// F(4x4, 3x3) with the points 0, 1, -1, 2, -2 (Lavin and Gray):
//   B^T = [4  0 -5  0 1 0]   A^T = [1 1  1 1  1 0]
//         [0 -4 -4  1 1 0]         [0 1 -1 2 -2 0]
//         [0  4 -4 -1 1 0]         [0 1  1 4  4 0]
//         [0 -2 -1  2 1 0]         [0 1 -1 8 -8 1]
//         [0  2 -1 -2 1 0]
//         [0  4  0 -5 0 1]

// r = B^T d for one column (or row) of six vectors.
PDLITE_OWN_TARGET inline void InputColumn(const V d[6], V r[6]) {
  const V four = Set1(4.f);
  const V minus_four = Set1(-4.f);
  const V minus_five = Set1(-5.f);
  const V two = Set1(2.f);
  const V minus_two = Set1(-2.f);
  const V d4_minus_d2 = Sub(d[4], d[2]);
  const V d3_minus_d1 = Sub(d[3], d[1]);
  r[0] = MulAdd(minus_five, d[2], MulAdd(four, d[0], d[4]));
  r[1] = MulAdd(minus_four, Add(d[1], d[2]), Add(d[3], d[4]));
  r[2] = MulAdd(four, Sub(d[1], d[2]), Sub(d[4], d[3]));
  r[3] = MulAdd(two, d3_minus_d1, d4_minus_d2);
  r[4] = MulAdd(minus_two, d3_minus_d1, d4_minus_d2);
  r[5] = MulAdd(minus_five, d[3], MulAdd(four, d[1], d[5]));
}

// r = A^T m for one column (or row) of six vectors.
PDLITE_OWN_TARGET inline void OutputColumn(const V m[6], V r[4]) {
  const V m1_plus_m2 = Add(m[1], m[2]);
  const V m1_minus_m2 = Sub(m[1], m[2]);
  const V m3_plus_m4 = Add(m[3], m[4]);
  const V m3_minus_m4 = Sub(m[3], m[4]);
  r[0] = Add(Add(m[0], m1_plus_m2), m3_plus_m4);
  r[1] = MulAdd(Set1(2.f), m3_minus_m4, m1_minus_m2);
  r[2] = MulAdd(Set1(4.f), m3_plus_m4, m1_plus_m2);
  r[3] = Add(MulAdd(Set1(8.f), m3_minus_m4, m1_minus_m2), m[5]);
}

// One vector of channels of one tile: the 6x6 taps from `at` (tap (y, x)
// at at + y * row + x * col floats; the first mask's lanes when kMasked)
// into `to`, one vector per position, position_stride floats apart.
template <bool kMasked>
PDLITE_OWN_TARGET inline void TransformVector(const float* at,
                                              int64_t row,
                                              int64_t col,
                                              const Mask& mask,
                                              int64_t position_stride,
                                              float* to) {
  V columns[6][6];  // B^T d: [row of the result][column]
  PDLITE_UNROLL(6)
  for (int x = 0; x < 6; ++x) {
    V d[6];
    PDLITE_UNROLL(6)
    for (int y = 0; y < 6; ++y) {
      const float* tap = at + y * row + x * col;
      d[y] = kMasked ? LoadFirst(mask, tap) : Load(tap);
    }
    V r[6];
    InputColumn(d, r);
    PDLITE_UNROLL(6)
    for (int i = 0; i < 6; ++i) columns[i][x] = r[i];
  }
  PDLITE_UNROLL(6)
  for (int i = 0; i < 6; ++i) {
    V r[6];
    InputColumn(columns[i], r);
    PDLITE_UNROLL(6)
    for (int j = 0; j < 6; ++j) Store(to + (i * 6 + j) * position_stride, r[j]);
  }
}

// Copies `count` floats (a part's channels of one pixel).
PDLITE_OWN_TARGET inline void CopyFloats(const float* from,
                                         int64_t count,
                                         float* to) {
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) Store(to + i, Load(from + i));
  if (i < count) {
    const Mask rest = FirstLanes(count - i);
    StoreFirst(to + i, rest, LoadFirst(rest, from + i));
  }
}

// Tiles [first, first + count) of the call (numbered over images, tile
// rows and tile columns) into `v`: 36 blocks (one per position of the 6x6
// tile, row by row), each `count` rows of `in_pad` floats (the channels;
// what lies past in_channels is never read). A tile with taps outside the
// input, and every tile of an input joined from parts, is first copied
// into `patch` (6x6 pixels of in_pad floats), zeros around, so that every
// tile is transformed by one loop without checks.
PDLITE_OWN_TARGET void TransformInput(const WinogradConv& p,
                                      int64_t first,
                                      int64_t count,
                                      int64_t in_pad,
                                      float* v,
                                      float* patch) {
  const int64_t tiles_w = (p.out_w + 3) / 4;
  const int64_t tiles_h = (p.out_h + 3) / 4;
  const int64_t vectors = (p.in_channels + kLanes - 1) / kLanes;
  const int64_t full = p.in_channels / kLanes;
  const Mask all = FirstLanes(kLanes);
  const Mask last = FirstLanes(p.in_channels - (vectors - 1) * kLanes);
  const int64_t position_stride = count * in_pad;
  const int64_t row = p.in_w * p.in_stride;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t;
    const int64_t n = tile / (tiles_h * tiles_w);
    const int64_t y0 = tile / tiles_w % tiles_h * 4 - p.pad_top;
    const int64_t x0 = tile % tiles_w * 4 - p.pad_left;
    float* to = v + t * in_pad;
    if (p.parts == nullptr && y0 >= 0 && x0 >= 0 && y0 + 6 <= p.in_h &&
        x0 + 6 <= p.in_w) {
      const float* at = p.in + ((n * p.in_h + y0) * p.in_w + x0) * p.in_stride;
      for (int64_t c = 0; c < full; ++c) {
        TransformVector<false>(at + c * kLanes, row, p.in_stride, all,
                               position_stride, to + c * kLanes);
      }
      if (full < vectors) {
        TransformVector<true>(at + full * kLanes, row, p.in_stride, last,
                              position_stride, to + full * kLanes);
      }
      continue;
    }
    for (int64_t y = 0; y < 6; ++y) {
      for (int64_t x = 0; x < 6; ++x) {
        float* pixel = patch + (y * 6 + x) * in_pad;
        const int64_t iy = y0 + y;
        const int64_t ix = x0 + x;
        if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) {
          std::memset(pixel, 0, sizeof(float) * in_pad);
        } else {
          if (p.parts == nullptr) {
            std::memcpy(pixel,
                        p.in + ((n * p.in_h + iy) * p.in_w + ix) * p.in_stride,
                        sizeof(float) * p.in_channels);
          } else {
            for (int64_t k = 0; k < p.part_count; ++k) {
              const WinogradInputPart& part = p.parts[k];
              CopyFloats(
                  part.in + ((n * part.in_h + part.rows[iy]) * part.in_w +
                             part.columns[ix]) *
                                part.channels,
                  part.channels, pixel + part.channel_offset);
            }
          }
          // Lanes past the channels are never read, but are not left
          // holding whatever the scratch held.
          std::memset(pixel + p.in_channels, 0,
                      sizeof(float) * (in_pad - p.in_channels));
        }
      }
    }
    for (int64_t c = 0; c < vectors; ++c) {
      TransformVector<false>(patch + c * kLanes, 6 * in_pad, in_pad, all,
                             position_stride, to + c * kLanes);
    }
  }
}

// Tiles [first, first + count) from `m` (36 blocks of `count` rows of
// out_channels floats: the products at each tile position) into the
// output, with the bias and the activation; output pixels past out_h or
// out_w are not written.
template <Act kAct>
PDLITE_OWN_TARGET void TransformOutput(const WinogradConv& p,
                                       int64_t first,
                                       int64_t count,
                                       const float* m) {
  const int64_t tiles_w = (p.out_w + 3) / 4;
  const int64_t tiles_h = (p.out_h + 3) / 4;
  const int64_t oc = p.out_channels;
  const int64_t vectors = (oc + kLanes - 1) / kLanes;
  const Mask all = FirstLanes(kLanes);
  const Mask last = FirstLanes(oc - (vectors - 1) * kLanes);
  const int64_t position_stride = count * oc;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t;
    const int64_t n = tile / (tiles_h * tiles_w);
    const int64_t oy = tile / tiles_w % tiles_h * 4;
    const int64_t ox = tile % tiles_w * 4;
    const int rows = static_cast<int>(std::min<int64_t>(4, p.out_h - oy));
    const int cols = static_cast<int>(std::min<int64_t>(4, p.out_w - ox));
    const float* from = m + t * oc;
    float* to = p.out + ((n * p.out_h + oy) * p.out_w + ox) * oc;
    for (int64_t c = 0; c < vectors; ++c) {
      const Mask& mask = c == vectors - 1 ? last : all;
      const int64_t lane0 = c * kLanes;
      const V bias =
          p.bias != nullptr ? LoadFirst(mask, p.bias + lane0) : Zero();
      V columns[4][6];  // A^T m: [row of the result][column]
      PDLITE_UNROLL(6)
      for (int j = 0; j < 6; ++j) {
        V col[6];
        PDLITE_UNROLL(6)
        for (int i = 0; i < 6; ++i) {
          col[i] =
              LoadFirst(mask, from + (i * 6 + j) * position_stride + lane0);
        }
        V r[4];
        OutputColumn(col, r);
        PDLITE_UNROLL(4)
        for (int i = 0; i < 4; ++i) columns[i][j] = r[i];
      }
      for (int i = 0; i < rows; ++i) {
        V r[4];
        OutputColumn(columns[i], r);
        float* row = to + i * p.out_w * oc + lane0;
        for (int j = 0; j < cols; ++j) {
          StoreFirst(row + j * oc, mask,
                     Activate<kAct>(Add(r[j], bias), p.activation.alpha,
                                    p.activation.beta));
        }
      }
    }
  }
}

// TransformOutput for each activation.
using OutputFn = void (*)(const WinogradConv&, int64_t, int64_t, const float*);

OutputFn OutputFor(Act act) {
  return own_loops::WithAct(act, [](auto kind) -> OutputFn {
    return TransformOutput<decltype(kind)::value>;
  });
}
