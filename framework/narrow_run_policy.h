// Whether a run of a predictor with several threads goes to one thread.
//
// A run whose whole work is a couple of milliseconds on one core is cut
// into ops of tens of microseconds; split across threads, each op's data
// moves between the cores' caches, and on a shared VM whose cores are far
// apart that moving costs more than the split saves. The OCR classifier at
// 2 threads, on 1x3x48xW for W in 64..640 (the project's 2-core VM): as
// fast as one thread at the median, 1.3-1.6x slower at the 90th
// percentile, and whole stretches 2x slower; its batches of 4 and more
// gain 1.5x from the second thread. So a run goes to one thread when one
// thread is estimated to take it in under a limit (kNarrowMs by default).
//
// The estimate is the input's elements times the lowest cost per element
// recorded: runs on one thread count as they are, runs on `threads` as
// `threads` times their time (a bound: no split saves more). Costs per
// element fall as inputs grow (fixed costs per op spread), so the lowest
// is the closest to a larger shape's, and an estimate from a small shape
// only errs towards more threads. Times given should leave out what the
// run spent making per-shape code (it would make every first sight look
// expensive).
#pragma once

namespace paddle_lite {
namespace framework {

class NarrowRunPolicy {
 public:
  explicit NarrowRunPolicy(int threads, double limit_ms = kNarrowMs)
      : threads_(threads), limit_ms_(limit_ms) {}

  /// A run on one thread: its time less making, and its input elements.
  void RecordOneThread(double run_ms, double elements);
  /// A run on all `threads`.
  void RecordAllThreads(double run_ms, double elements);

  /// Whether a run of this many input elements should go to one thread.
  /// False until a run has been recorded, and with one thread.
  bool Narrow(double elements) const;
  /// The estimated time on one thread (negative: no estimate yet).
  double OneThreadMs(double elements) const;

  /// Runs estimated under this on one thread go to one thread, by
  /// default.
  static constexpr double kNarrowMs = 2.0;

 private:
  void Keep(double ms_per_element);
  int threads_;
  double limit_ms_;
  double ms_per_element_ = -1;  // the lowest seen; negative: none yet
};

}  // namespace framework
}  // namespace paddle_lite
