// A stream of input shapes for `pdlite bench --shapes`: what a service
// sees when every request has its own size. bench/vs_peers.py draws the
// same stream (same grammar, same generator), so both sides time the same
// shapes in the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pdlite {

/// One input's shape in one sample.
struct InputShape {
  std::string name;
  std::vector<int64_t> dims;
};
/// The shapes of every input for one run.
using ShapeSample = std::vector<InputShape>;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fully specified, so the
/// Python harness reproduces it bit for bit.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();

 private:
  uint64_t state_;
};

/// Parses `spec` and draws the stream. Spec forms:
///   NAME=D0xD1x...[;NAME2=...]  each D an integer or a range [LO:HI] or
///                               [LO:HI:STEP] (HI included)
///   @FILE                       one sample per line in the form above
///                               ('#' starts a comment); the file is the
///                               stream (pdlite refuses --samples and
///                               --seed with it)
/// A range spec gives `samples` samples: for each, every range takes
/// LO + STEP * (Next() % count) in order of appearance (inputs, then dims),
/// and a sample equal to an earlier one is drawn again while the space has
/// unseen ones, so the stream holds distinct shapes. Returns "" or what is
/// wrong with the spec.
std::string MakeShapeStream(const std::string& spec,
                            int samples,
                            uint64_t seed,
                            std::vector<ShapeSample>* stream);

/// "x=1x3x640x480" (inputs joined by ';').
std::string SampleToString(const ShapeSample& sample);

}  // namespace pdlite
