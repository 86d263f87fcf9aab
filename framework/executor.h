// Runs the blocks of a program. Prepare once: ops are created and a kernel
// is chosen for each (from the declared variable types, so the choice is
// known before any input arrives and `pdlite inspect` can show it). Run
// many: each run infers shapes from the real inputs and calls the kernels.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "framework/kernel_chooser.h"
#include "framework/operator.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "platform/allocator.h"
#include "platform/cache_budget.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace platform {
class HostBlockPool;
}  // namespace platform
namespace framework {

/// One op of a prepared block with its kernel decision.
struct PreparedOp {
  /// Null when the op type is not registered (see `problem`).
  std::unique_ptr<OperatorBase> op;
  std::string type;
  int index = 0;  // position in the block
  /// Why the op cannot run here: unknown type or no kernel; empty if fine.
  std::string problem;
  /// Weights this op reads, copied once to its kernel's place.
  mutable std::map<const Variable*, std::unique_ptr<Variable>> weight_copies;
  /// The device context its kernel runs with (looked up on first run).
  mutable platform::DeviceContext* device_context = nullptr;
  /// What the kernel keeps between runs of this op (ExecutionContext::
  /// kernel_state).
  mutable std::shared_ptr<void> kernel_state;
  /// Set for kernel ops; choice.kernel is null when none fits.
  KernelChoice choice;
};

struct PreparedBlock {
  int block_idx = 0;
  std::vector<PreparedOp> ops;
};

/// How the main block reuses work between runs.
struct ExecutorOptions {
  /// Plan memory and replay shapes per input-shape signature: the first run
  /// with new input shapes records, later runs with the same shapes place
  /// their buffers by liveness in one arena per place (shared by every
  /// plan, sized by the largest) and skip shape inference where shapes
  /// cannot change. Plans and arenas count in the contexts' cache budget
  /// (DeviceContextOptions::cache_budget), which drops the plans used
  /// longest ago when it needs room.
  bool plan_replay = true;
  /// Time every op of the main block (RunStats::op_timings).
  bool profile = false;
  /// Replay a plan as one device graph (a CUDA graph) when its device can
  /// capture and the plan allows it: every kernel op on that device, none
  /// re-inferring shapes. The plan's second replay captures, later ones
  /// launch the graph; a plan that cannot be captured says why
  /// (RunStats::graph_refusal) and runs op by op. Ignored when profiling.
  bool device_graphs = true;
  /// Host memory limits of main-block runs, checked before allocating
  /// (0: none): the bytes of any one tensor, and of all tensors a run
  /// holds at once. Past either, the op asking gets a ResourceExhausted
  /// error naming the tensor's shape; nothing is allocated.
  size_t max_tensor_bytes = 0;
  size_t max_run_bytes = 0;
  /// The most loop iterations (`while` bodies run) one Run of the main
  /// block may make, every loop of the run together: a program whose
  /// condition never turns false, or whose loops nest to multiply, (a
  /// hostile or broken model) then ends in a ResourceExhausted error rather
  /// than hanging its thread. 0: no limit.
  static constexpr int64_t kDefaultMaxLoopIterations = int64_t{1} << 20;
  int64_t max_loop_iterations = kDefaultMaxLoopIterations;
};

struct OpTiming {
  int op_index;
  std::string op_type;
  std::string kernel;  // chosen key, "" for ops without a kernel
  double ms;
};

/// One copy of an op's input to the place of its kernel.
struct TransferRecord {
  int op_index;
  std::string op_type;
  std::string var;
  std::string from;  // place
  std::string to;
  size_t bytes;
  bool cached;  // a weight copied on an earlier run, reused
};

/// What the last Run() of the main block did (for benchmarks and tests).
struct RunStats {
  std::vector<TransferRecord> transfers;
  std::vector<OpTiming> op_timings;  // with ExecutorOptions::profile
  bool replayed = false;             // a cached plan was used
  size_t arena_bytes = 0;            // bytes of the plan's arena (0: no plan)
  /// This run allocated an arena (a plan's first replay, or one needing
  /// more than the arena's room): its pages fault in as it writes them.
  bool arena_allocated = false;
  size_t unplanned_bytes = 0;  // what the planned buffers take separately
  size_t plans_cached = 0;
  int ops_inferred = 0;         // ops whose shapes were inferred
  bool graph_replayed = false;  // the kernels ran as one device graph
  /// Why the plan of this run is not replayed as a device graph ("" when
  /// it is, or when the place cannot capture at all).
  std::string graph_refusal;
};

class Executor {
 public:
  /// `program` and `contexts` must outlive the executor.
  Executor(const ProgramDesc& program,
           KernelPreference preference,
           platform::DeviceContextPool* contexts,
           ExecutorOptions options = {});
  ~Executor();

  /// Creates the ops of a block and chooses their kernels. Throws
  /// Unimplemented listing every op (type, index, dtype) that has no
  /// kernel, all at once. Cached: later calls return the same block.
  const PreparedBlock& Prepare(int block_idx);

  /// Like Prepare but never throws for missing kernels: for inspection.
  const PreparedBlock& PrepareForInspection(int block_idx);

  /// Runs a block in `scope`: creates the block's local variables there
  /// (persistable ones are looked up in ancestors; for block 0, a weight
  /// the program writes gets a fresh copy in `scope`, CopyWrittenWeights),
  /// then runs every op.
  /// Errors are rethrown with the op's type, index and output prefixed.
  void Run(int block_idx, Scope* scope);

  /// For control flow ops that run a sub-block many times in one scope:
  /// creates the block's local variables in `scope` and resolves every
  /// op's variables once; RunResolved then runs the block with them.
  std::vector<RuntimeContext> ResolveBlock(int block_idx, Scope* scope);
  void RunResolved(int block_idx,
                   Scope* scope,
                   const std::vector<RuntimeContext>& contexts);

  /// Drops the main block's plans (their kernel states and arenas go with
  /// them; cached primitives and weights stay), and the last run's stats:
  /// the next run of any shape records anew. The scope of the last run
  /// stays: what was listed of its variables is kept for the next run in
  /// it.
  void ForgetPlans();
  /// Frees now what the cache budget evicted from the main block (its
  /// plans and arenas), which a run otherwise frees as it starts: for an
  /// executor that may not run again for long (a predictor's idle clone),
  /// whose evicted memory the budget no longer counts. Between runs only,
  /// with the last run's scope alive; outputs sharing an arena keep it.
  void DropEvicted();
  /// The most bytes of host memory the runs' buffers held at once.
  size_t HostPeakBytes() const;
  /// Makes free pages of the runs' host memory resident, up to `bytes`
  /// (HostBlockPool::KeepResident): the buffers of a next run larger than
  /// the runs so far then land on pages faulted in now.
  void KeepHostPagesResident(size_t bytes);

  const RunStats& last_run_stats() const { return stats_; }
  /// Counts one loop iteration of the current run (loop ops call it before
  /// each iteration); throws ResourceExhausted, naming `op` and
  /// `condition`, past ExecutorOptions::max_loop_iterations.
  void CountLoopIteration(const std::string& op, const std::string& condition);
  const ProgramDesc& program() const { return program_; }
  const KernelPreference& preference() const { return preference_; }
  platform::DeviceContextPool* contexts() const { return contexts_; }

 private:
  struct BlockState;
  struct Plan;
  struct OpRecord;
  BlockState& State(int block_idx, bool strict);
  /// Runs one op; infers shapes first unless `infer_shape` is false. With
  /// `record`, notes what replay needs to know about the op.
  void RunOp(const PreparedOp& op,
             const RuntimeContext& ctx,
             Scope* scope,
             int block_idx,
             bool infer_shape = true,
             OpRecord* record = nullptr);
  void RunOpUntimed(const PreparedOp& op,
                    const RuntimeContext& ctx,
                    Scope* scope,
                    int block_idx,
                    bool infer_shape,
                    OpRecord* record);
  void RunMainBlock(BlockState& state, Scope* scope);
  /// Gives `scope` (a predictor's, whose parent holds the weights) its own
  /// copy of each weight the program writes, with the loaded value: clones
  /// share the weights and run at once, and every run starts from the
  /// model's values.
  void CopyWrittenWeights(Scope* scope);
  // After a main-block run, replayed or recorded: the host pool's decay,
  // the budget trimmed, the plan count in the stats.
  void EndMainRun(const BlockState& state);
  /// Replays `plan` as a device graph when it can (capturing it on its
  /// second replay); false: run it op by op.
  bool RunAsGraph(BlockState& state, Plan& plan, Scope* scope);
  static bool CheckGraphShape(const std::vector<PreparedOp>& ops, Plan& plan);
  struct Released;
  struct Lifetimes;
  /// When each variable of block 0 is used, by name (for planning).
  void PrepareLifetimes(BlockState& state);
  static Lifetimes ComputeLifetimes(const ProgramDesc& program,
                                    const std::vector<PreparedOp>& ops);
  std::unique_ptr<Plan> BuildPlan(BlockState& state,
                                  Scope* scope,
                                  const std::vector<OpRecord>& records,
                                  const Lifetimes& lives,
                                  const std::vector<Released>& released);

  /// Places a plan's buffers in the block's shared arenas (growing an arena
  /// too small for it) and points its tensors there.
  void PlaceInArenas(BlockState& state, Plan& plan);
  /// Frees an arena: tensors pointing into it let go, plans forget their
  /// regions in it.
  void ReleaseArena(BlockState& state, const std::string& place_key);
  /// The main block's state; null before it was prepared.
  BlockState* MainBlockState();
  /// Drops the plans and arenas the budget evicted during the last run.
  void DropEvicted(BlockState& state);
  /// Evictions from the caches kernel states may hold (primitives,
  /// weights).
  uint64_t KernelCacheEvictions() const;
  /// `scope_alive`: the variables of the last run's scope still exist (its
  /// tensors pointing into the arenas let go, its lists stay); otherwise
  /// nothing of that scope is touched.
  void ForgetPlans(BlockState& state, bool scope_alive);
  static bool InArena(const BlockState& state, const Tensor& t);
  /// Lets go of arena regions held by variables `keep` does not place.
  void ResetStrays(BlockState& state, const Plan* keep);
  /// Lets go of the buffers an earlier run left in the main block's
  /// variables that a run writes before reading (not weights, feeds or
  /// what the caller set), so that a run is charged the same against the
  /// memory limits whatever ran before it.
  void ReleaseLeftovers(BlockState& state, Scope* scope);

  const ProgramDesc& program_;
  // The weights the program's ops write, with their first writer
  // (WrittenWeights): none in real programs.
  std::map<std::string, std::string> written_weights_;
  KernelPreference preference_;
  platform::DeviceContextPool* contexts_;
  ExecutorOptions options_;
  // Loop iterations of the main-block run under way (CountLoopIteration).
  int64_t loop_iterations_ = 0;
  RunStats stats_;
  // The contexts' budget, or one of the executor's own.
  std::shared_ptr<platform::CacheBudget> budget_;
  // Host memory of main-block runs (platform/host_block_pool.h); closed
  // with the executor.
  platform::HostBlockPool* host_pool_ = nullptr;
  // Holds a tensor's values while ConvertToPlainLayout rewrites its buffer
  // in place; grows to the largest tensor converted and stays, counted in
  // the budget ("layout.scratch", never evicted).
  platform::AllocationPtr layout_scratch_;
  platform::CacheBudget::EntryId layout_scratch_id_ = 0;
  size_t layout_scratch_counted_ = 0;
  // SettleLayouts into layout_scratch_, and its size counted.
  void SettleLayoutsCounted(const RuntimeContext& ctx,
                            const std::string* reader);
  // A recording run's dims of an op's outputs before its kernel ran (to
  // see whether the kernel set them).
  std::vector<DDim> inferred_dims_scratch_;
  // While a plan replays: its kernel states, a slot per op of block 0 (by
  // PreparedOp::index), which the ops use instead of their PreparedOp's
  // one slot. So each signature keeps the calls its kernels made for it,
  // and a stream that alternates shapes replays them rather than
  // rebuilding every call.
  std::vector<std::shared_ptr<void>>* replay_kernel_states_ = nullptr;
  // The budget's evictions of kernel caches when plans' kernel states were
  // last checked: states hold primitives and weights the budget may have
  // let go.
  uint64_t kernel_state_evictions_ = 0;
  std::mutex mu_;
  std::map<int, std::unique_ptr<BlockState>> blocks_;
};

}  // namespace framework
}  // namespace paddle_lite
