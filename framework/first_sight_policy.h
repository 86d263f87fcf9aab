// Where a predictor runs an input shape whose specialised kernels are not
// made: on them (making them during the run) or on generic kernels.
//
// Specialised kernels (oneDNN's) make code and objects for each input
// shape; for a small network that making is most of a new shape's first
// run (the OCR direction classifier: about 8 of its 9 ms) and most of its
// memory (about 1.6 MB per shape). Generic kernels (the plain library:
// oneDNN's sgemm and our own vector loops) make nothing per shape. The
// policy learns from the predictor's own runs, in time per input element
// (running averages):
// * it asks for the generic kernels once the specialised kernels' first
//   runs cost at least 1 / (1 - kTryShare) times their runs of made shapes
//   (estimated, until one is timed, as a first run less its time making),
//   never before: a detector, whose first run is mostly computing, never
//   pays for a trial; or once they have run (a predictor's small first run
//   goes to them) and cost less than the specialised first runs;
// * once they have run, when they cost at most kForGood times what the
//   specialised kernels cost on made shapes (on the same shape where both
//   have run it), every shape not made yet
//   runs on them for good (nothing more is made: the memory stays flat);
// * otherwise they take a shape's runs only while a make-ahead clone
//   makes its specialised kernels, and only if they have cost less than
//   the specialised kernels' first runs; and every kRetryEvery-th new
//   shape they do not take runs on them anyway, to measure them again.
#pragma once

namespace paddle_lite {
namespace framework {

class FirstSightPolicy {
 public:
  /// A specialised run of a shape whose kernels were not made: its time,
  /// the part spent making (MakingTime) and its input elements.
  void RecordSpecialised(double run_ms, double making_ms, double elements);
  /// A specialised run of a shape whose kernels were made.
  void RecordMade(double run_ms, double elements);
  /// A generic run.
  void RecordGeneric(double run_ms, double elements);
  /// Runs of one shape, both replaying a plan: on the generic kernels and
  /// on the made specialised ones. Where there are such pairs, they decide
  /// GenericForGood: costs per element of different shapes differ by more
  /// than the kernels do (a batch of 2 costs more per element than one of
  /// 15, and at 2 threads much more).
  void RecordSameShape(double generic_ms, double made_ms);

  /// Whether the generic kernels are worth having ready (turns true at
  /// most once and stays).
  bool WantsGeneric() const { return wants_generic_; }
  /// Whether shapes not made should run on the generic kernels and never
  /// be made. True before their first run (when wanted), to measure them.
  bool GenericForGood() const;
  /// Whether a shape being made ahead should run on the generic kernels
  /// meanwhile.
  bool GenericWhileMaking() const;
  /// Whether a made run has been timed (until then made runs' cost is an
  /// estimate, and decisions on it are provisional).
  bool MadeRunTimed() const { return made_runs_.seen && !made_estimated_; }
  /// Asked at each first sight the generic kernels do not take: true every
  /// kRetryEvery-th time, for a run on them that measures them again (one
  /// slow measurement, on a busy machine, must not settle it for good).
  bool RetryGeneric();

  /// The share of a specialised first run spent beyond a made run's time
  /// at which generic kernels are tried: then even generic kernels 2.5x
  /// slower than made ones take no longer than that first run. The OCR
  /// detectors' first runs cost at most 1.8x their made runs, the OCR
  /// classifier's 3x (estimated: MakingTime() misses the first execution
  /// of new code) to 7x (timed).
  static constexpr double kTryShare = 0.6;
  /// How much slower than made specialised kernels generic ones may be and
  /// still run every shape not made: a made shape costs a small model
  /// about 8 ms of making and 1.6 MB, and costs per element compare runs
  /// of different shapes, which on a shared machine differ by 20-30%
  /// from noise alone.
  static constexpr double kForGood = 1.5;
  static constexpr int kRetryEvery = 8;

 private:
  // Running averages (weight kDecay to the past) of run time and of input
  // elements: their ratio is the cost per element.
  struct Average {
    double ms = 0;
    double elements = 0;
    bool seen = false;
    void Add(double run_ms, double run_elements);
    double PerElement() const { return ms / elements; }
  };
  static constexpr double kDecay = 0.7;
  void Decide();
  Average first_runs_;  // specialised runs of shapes not made
  Average made_runs_;   // specialised runs of made shapes (and estimates)
  Average generic_;
  double same_shape_ratio_ = 0;  // generic / made, running average
  bool same_shape_seen_ = false;
  int declined_ = 0;  // first sights not given to the generic kernels
  bool made_estimated_ = false;  // made_runs_ holds only estimates
  bool wants_generic_ = false;
};

}  // namespace framework
}  // namespace paddle_lite
