#include "framework/executor.h"

#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "framework/make_only.h"
#include "framework/memory_plan.h"
#include "framework/op_registry.h"
#include "framework/program_validator.h"
#include "platform/host_block_pool.h"

namespace paddle_lite {
namespace framework {

// What a recording run learns about one op.
struct Executor::OpRecord {
  bool read_values = false;            // its shape inference read input values
  std::vector<std::string> read_vars;  // ... of these variables
  bool kernel_set_dims = false;        // its kernel changed an output's dims

  bool operator==(const OpRecord& other) const {
    return read_values == other.read_values &&
           kernel_set_dims == other.kernel_set_dims &&
           read_vars == other.read_vars;
  }
};

// A plan for one input-shape signature of the main block.
struct Executor::Plan {
  std::string signature;
  // A buffer placed by liveness: bytes at an offset of its place's arena.
  struct Buffer {
    std::string place_key;
    platform::Place place;
    size_t offset;
    size_t bytes;
  };
  std::vector<Buffer> buffers;
  // Bytes the plan needs of each place's arena, by place key.
  std::map<std::string, size_t> arena_need;
  // Every planned tensor as the recording run left it; replay points it at
  // its buffer's region of the arena before running.
  struct PlannedTensor {
    Variable* var;
    DDim dims;
    DataType dtype;
    LoD lod;
    size_t buffer;                   // index into buffers
    size_t offset;                   // within the region (views, splits)
    platform::AllocationPtr region;  // cut for regions_epoch
  };
  std::vector<PlannedTensor> tensors;
  uint64_t regions_epoch = 0;         // BlockState::arena_epoch of `region`s
  std::vector<const Variable*> vars;  // those of `tensors`, sorted
  // In the cache budget; set when the budget dropped it (the plan goes
  // after the run, which may be using it).
  platform::CacheBudget::EntryId budget_id = 0;
  bool evicted = false;
  // Tensors the plan does not place (views of feeds or weights) whose
  // writers skip shape inference on replay: their dims and LoD as the
  // recording run left them.
  struct ShapeOnly {
    Variable* var;
    DDim dims;
    LoD lod;
  };
  std::vector<ShapeOnly> shapes;
  std::vector<char> infer_shape;  // per op: still infer shapes on replay
  size_t arena_bytes = 0;
  size_t unplanned_bytes = 0;
  // Device graph replay (ExecutorOptions::device_graphs).
  int replays = 0;
  bool graph_checked = false;  // the plan's shape allows a graph (below)
  const platform::DeviceContext* graph_device = nullptr;
  size_t graph_first = 0, graph_end = 0;  // the kernel ops it records
  bool graph_refused = false;
  std::string graph_refusal;
  std::shared_ptr<void> graph;  // captured and instantiated
  uint64_t graph_epoch = 0;     // the context's GraphEpoch() at capture
  // Where the graph reads each feed: device buffers the feeds are copied
  // into before every launch (fixed addresses, captured once).
  std::map<std::string, platform::AllocationPtr> staged_feeds;
  // The kernels' states for this signature, one per op (Executor::
  // replay_kernel_states_).
  std::vector<std::shared_ptr<void>> kernel_states;
};

// A buffer the recording run freed after its last reader: what the plan
// needs to place it.
struct Executor::Released {
  Variable* var;
  int first_op, last_op;  // its lifetime
  size_t bytes;
  size_t offset;
  platform::Place place;
};

struct Executor::BlockState {
  PreparedBlock block;
  bool strict_checked = false;
  // Resolved variables per op, for the scope they were resolved in. The
  // main block runs in one scope per predictor, so this is built once.
  uint64_t resolved_scope = 0;  // Scope::id()
  std::vector<RuntimeContext> contexts;
  // Plans by input signature, most recently used first.
  std::list<std::unique_ptr<Plan>> plans;
  // Planned buffers of every plan live in one arena per place, grown to
  // the largest plan: one plan runs at a time.
  struct Arena {
    platform::AllocationPtr memory;
    // The most any plan placed so far needs (what the budget counts), and
    // what was allocated: host arenas get headroom (see PlaceInArenas).
    size_t bytes = 0;
    size_t capacity = 0;
    platform::CacheBudget::EntryId budget_id = 0;
    bool evicted = false;  // by the budget; freed after the run
    // Whether `t`'s buffer lies in this arena.
    bool Holds(const Tensor& t) const {
      if (!memory || !t.IsInitialized()) return false;
      const char* p = static_cast<const char*>(t.holder()->ptr());
      const char* base = static_cast<const char*>(memory->ptr());
      return p >= base && p < base + capacity &&
             t.holder()->place() == memory->place();
    }
  };
  std::map<std::string, Arena> arenas;  // by place key
  uint64_t arena_epoch = 1;             // changes when an arena is replaced
  // Every variable any plan placed (to let go of a freed arena).
  std::set<Variable*> planned_vars;
  // The plan whose regions the tensors pointing into the arenas follow:
  // other plans' regions overlap these, so a tensor left in one (a
  // variable this plan does not place) must let go before the next run.
  const Plan* arena_owner = nullptr;
  // When each variable is used and, per op, the variables whose last use
  // is that op's read (freed after it in a recording run): they depend on
  // the block only, so they are made at its first recording run rather
  // than at every new input signature.
  std::shared_ptr<const Lifetimes> lifetimes;
  std::vector<std::vector<const VarDesc*>> released_after;
  // The same, as the variables of `release_scope` with their lifetimes:
  // a recording run looks nothing up by name.
  struct ReleasedVar {
    Variable* var;
    int first_op, last_op;
  };
  uint64_t release_scope = 0;  // Scope::id()
  std::vector<std::vector<ReleasedVar>> release_vars;
  // For planning, also fixed for the block: how many ops write each
  // variable, and the names of the weights.
  std::unordered_map<std::string, int> writers;
  // Whether an op writes a variable an earlier op wrote, without reading
  // it (not in place), while what an op between made of the first value
  // (a reshape's view) is read after: the view shares the buffer the
  // second write may reuse, and whether it does depends on the buffer's
  // size. So such a block does not replay plans (whose buffers are sized
  // for the largest write) and lets its variables' buffers go before each
  // run: every run is as the first.
  bool rewrites_unread = false;
  // Per op of the block: the names the blocks it runs write.
  std::vector<std::vector<std::string>> sub_block_writes;
  std::unordered_set<std::string> persistable;
  // The variables of `foreign_scope` (the scope plans were last built in)
  // and its ancestors whose buffers are not the plan's to place: every
  // weight, and the run scope's feeds and persistables. Listed once per
  // scope, as `contexts` are (variables are made before the first run):
  // listing them per new shape (copying and sorting every weight's name)
  // was a tenth of a small model's plan building.
  uint64_t foreign_scope = 0;  // Scope::id()
  std::vector<const Variable*> foreign_vars;
  // Also per scope: the variables a plan may place (not weights, feeds or
  // variables outside the scope), with the ops between which they live.
  struct PlannableVar {
    Variable* var;
    int first_op;
    int last_op;  // the block's end for fetched variables
  };
  std::vector<PlannableVar> plannable;
  // Which ops infer shapes on replay depends on the block and on what the
  // recording run recorded, which is the same for most signatures: the
  // last answer is kept with the records it came from (`replay_records`),
  // and with the variables of `foreign_scope` that ops skipping shape
  // inference write. Working these out from sets of names at every new
  // signature was a third of a small model's plan building.
  std::vector<OpRecord> replay_records;
  std::vector<char> replay_infer_shape;
  std::vector<Variable*> replay_shape_only;
  bool replay_rules_valid = false;
};

Executor::Executor(const ProgramDesc& program,
                   KernelPreference preference,
                   platform::DeviceContextPool* contexts,
                   ExecutorOptions options)
    : program_(program),
      preference_(std::move(preference)),
      contexts_(contexts),
      options_(options),
      budget_(contexts->options().cache_budget) {
  if (!budget_) {
    budget_ = std::make_shared<platform::CacheBudget>(
        platform::CacheBudget::kDefaultBytes);
  }
  host_pool_ = platform::HostBlockPool::Create(budget_.get());
  // The destructor does not run for a constructor that throws (memory
  // running out), and the pool is closed by hand, never by an owner.
  try {
    layout_scratch_id_ = budget_->Add("layout.scratch", 0, nullptr);
    host_pool_->SetLimits(options_.max_tensor_bytes, options_.max_run_bytes);
    written_weights_ = WrittenWeights(program_);
  } catch (...) {
    budget_->Remove(layout_scratch_id_);
    host_pool_->Close();
    throw;
  }
}

Executor::~Executor() {
  budget_->Remove(layout_scratch_id_);
  host_pool_->Close();
  for (auto& kv : blocks_) {
    if (!kv.second) continue;
    for (auto& plan : kv.second->plans) budget_->Remove(plan->budget_id);
    for (auto& a : kv.second->arenas) budget_->Remove(a.second.budget_id);
  }
}

namespace {

// An output of an op that is also one of its inputs: its tensor's dims
// before the op's shape step.
struct AliasedOutput {
  const std::string* slot;
  size_t index;
  const Tensor* tensor;
  DDim dims;
};

std::vector<AliasedOutput> AliasedOutputs(const RuntimeContext& ctx) {
  std::vector<AliasedOutput> aliased;
  for (const auto& [slot, outs] : ctx.outputs) {
    for (size_t i = 0; i < outs.size(); ++i) {
      const Variable* v = outs[i];
      if (v == nullptr || !v->IsType<Tensor>()) continue;
      for (const auto& in : ctx.inputs) {
        if (std::find(in.second.begin(), in.second.end(), v) ==
            in.second.end()) {
          continue;
        }
        const Tensor& t = v->Get<Tensor>();
        aliased.push_back({&slot, i, &t, t.dims()});
        break;
      }
    }
  }
  return aliased;
}

// An op may write one of its own inputs only in place, at its element
// count (batch_norm's MeanOut, set_value's Out, a reshape2 or cast in
// place): resized by the shape step, the kernel would read it at its new
// size over its old data and layout (a hostile or broken model; pool2d,
// sequence_pool and multiclass_nms3 crashed on it).
void CheckAliasedOutputsKept(const OperatorBase& op,
                             const std::vector<AliasedOutput>& aliased) {
  for (const AliasedOutput& a : aliased) {
    if (a.tensor->numel() == Product(a.dims)) continue;
    const auto& names = op.OutputList(*a.slot);
    PADDLE_THROW(errors::InvalidArgument(
        "output ", *a.slot, " '", a.index < names.size() ? names[a.index] : "",
        "' is also an input of the op, and its shape step would resize it "
        "from ",
        DimsToString(a.dims), " to ", DimsToString(a.tensor->dims()),
        " before the kernel reads it: an op may write its own input only in "
        "place, at its size"));
  }
}

// What a plan counts per kernel state it keeps (see BuildPlan's caller).
constexpr size_t kKeptKernelStateBytes = size_t{3} << 10;

std::string OpLocation(const OperatorBase& op, int index, int block_idx) {
  std::ostringstream os;
  os << "op '" << op.Type() << "' (#" << index << " in block " << block_idx;
  for (auto& kv : op.Outputs()) {
    if (!kv.second.empty()) {
      os << ", output " << kv.first << "='" << kv.second[0] << "'";
      break;
    }
  }
  os << "): ";
  return os.str();
}

// "X=float32[1, 3, 32, 100], Filter=float32[8, 3, 3, 3]".
std::string InputShapes(const RuntimeContext& ctx) {
  std::ostringstream os;
  bool first = true;
  for (auto& kv : ctx.inputs) {
    for (Variable* v : kv.second) {
      if (v == nullptr || !v->IsType<Tensor>()) continue;
      os << (first ? "" : ", ") << kv.first << "="
         << TensorSummary(v->Get<Tensor>());
      first = false;
    }
  }
  return first ? "(none)" : os.str();
}

}  // namespace

Executor::BlockState& Executor::State(int block_idx, bool strict) {
  std::lock_guard<std::mutex> lock(mu_);
  PADDLE_ENFORCE(
      block_idx >= 0 && block_idx < static_cast<int>(program_.blocks.size()),
      errors::OutOfRange("Block ", block_idx,
                         " does not exist; the program has ",
                         program_.blocks.size(), " blocks."));
  auto& slot = blocks_[block_idx];
  if (!slot) {
    auto state = std::make_unique<BlockState>();
    state->block.block_idx = block_idx;
    const BlockDesc& desc = program_.blocks[block_idx];
    for (size_t i = 0; i < desc.ops.size(); ++i) {
      PreparedOp prepared;
      prepared.index = static_cast<int>(i);
      prepared.type = desc.ops[i].type;
      if (OpInfoMap::Instance().Find(prepared.type) == nullptr) {
        prepared.problem = "op type '" + prepared.type +
                           "' is not registered (no definition built in or "
                           "loaded from a plugin)";
        state->block.ops.push_back(std::move(prepared));
        continue;
      }
      try {
        prepared.op = CreateOp(desc.ops[i]);
      } catch (const Exception& e) {
        platform::RethrowWithContext(e, "op '" + desc.ops[i].type + "' (#" +
                                            std::to_string(i) + " in block " +
                                            std::to_string(block_idx) + "): ");
      }
      if (prepared.op->IsKernelOp()) {
        auto& kop = static_cast<const OperatorWithKernel&>(*prepared.op);
        KernelTypeContext type_ctx(kop, program_, block_idx);
        prepared.choice = ChooseKernel(kop, type_ctx, preference_);
        VLOG(3) << OpLocation(kop, prepared.index, block_idx) << "expected "
                << prepared.choice.expected.ToString() << ", chose "
                << (prepared.choice.kernel ? prepared.choice.chosen.ToString()
                                           : std::string("nothing"))
                << " (" << prepared.choice.reason << ")";
        if (prepared.choice.kernel == nullptr) {
          prepared.problem = prepared.choice.reason;
        }
      }
      state->block.ops.push_back(std::move(prepared));
    }
    slot = std::move(state);
  }
  if (strict && !slot->strict_checked) {
    std::ostringstream missing;
    int count = 0;
    for (auto& p : slot->block.ops) {
      if (p.problem.empty()) continue;
      ++count;
      missing << "\n  #" << p.index << " " << p.type;
      if (p.op) missing << " (" << p.choice.expected.data_type << ")";
      missing << ": " << p.problem;
    }
    PADDLE_ENFORCE(count == 0, errors::Unimplemented(
                                   count, " op(s) of block ", block_idx,
                                   " have no kernel for place ",
                                   preference_.place, ":", missing.str()));
    slot->strict_checked = true;
  }
  return *slot;
}

const PreparedBlock& Executor::Prepare(int block_idx) {
  BlockState& state = State(block_idx, /*strict=*/true);
  if (block_idx == 0 && options_.plan_replay) PrepareLifetimes(state);
  return state.block;
}

const PreparedBlock& Executor::PrepareForInspection(int block_idx) {
  return State(block_idx, /*strict=*/false).block;
}

namespace {

void CreateBlockVariables(const BlockDesc& block, Scope* scope) {
  for (auto& var : block.vars) {
    if (var.persistable && scope->FindVar(var.name) != nullptr) continue;
    Variable* v = scope->Var(var.name);
    if (v->IsInitialized()) continue;
    if (var.kind == static_cast<int>(VarKind::kFeedMinibatch) ||
        var.kind == static_cast<int>(VarKind::kFetchList) ||
        var.kind == static_cast<int>(VarKind::kLoDTensorArray)) {
      v->GetMutable<TensorList>();
    } else if (var.is_tensor()) {
      v->GetMutable<Tensor>();
    }
  }
}

RuntimeContext ResolveVariables(const OperatorBase& op, Scope* scope) {
  RuntimeContext ctx;
  auto resolve = [scope](const VarNameMap& names, auto* out) {
    for (auto& kv : names) {
      std::vector<Variable*> vars;
      for (auto& name : kv.second) {
        Variable* v = scope->FindVar(name);
        // Programs may name variables they never declare (older savers
        // dropped some declarations); they live in the run scope.
        vars.push_back(v ? v : scope->Var(name));
      }
      out->emplace_back(kv.first, std::move(vars));
    }
  };
  resolve(op.Inputs(), &ctx.inputs);
  resolve(op.Outputs(), &ctx.outputs);
  return ctx;
}

}  // namespace

std::vector<RuntimeContext> Executor::ResolveBlock(int block_idx,
                                                   Scope* scope) {
  BlockState& state = State(block_idx, /*strict=*/true);
  CreateBlockVariables(program_.blocks[block_idx], scope);
  std::vector<RuntimeContext> contexts;
  contexts.reserve(state.block.ops.size());
  for (auto& p : state.block.ops) {
    contexts.push_back(ResolveVariables(*p.op, scope));
  }
  return contexts;
}

void Executor::RunResolved(int block_idx,
                           Scope* scope,
                           const std::vector<RuntimeContext>& contexts) {
  BlockState& state = State(block_idx, /*strict=*/true);
  for (size_t i = 0; i < state.block.ops.size(); ++i) {
    RunOp(state.block.ops[i], contexts[i], scope, block_idx);
  }
}

void Executor::CountLoopIteration(const std::string& op,
                                  const std::string& condition) {
  const int64_t limit = options_.max_loop_iterations;
  PADDLE_ENFORCE(
      limit <= 0 || loop_iterations_ < limit,
      errors::ResourceExhausted(
          op, ": the run has made ", loop_iterations_,
          " loop iterations and the condition '", condition,
          "' is still true: that is the most a run may make, all its loops "
          "together (Config::SetMaxLoopIterations; default ",
          ExecutorOptions::kDefaultMaxLoopIterations, ")."));
  ++loop_iterations_;
}

void Executor::CopyWrittenWeights(Scope* scope) {
  const Scope* weights = scope->parent();
  if (weights == nullptr) return;  // the weights are the run's own
  for (const auto& [name, writer] : written_weights_) {
    const Variable* loaded = weights->FindVar(name);
    if (loaded == nullptr || !loaded->IsType<Tensor>()) continue;
    const Tensor& value = loaded->Get<Tensor>();
    Tensor* copy = scope->Var(name)->GetMutable<Tensor>();
    // A fresh buffer each run: the last run's ops may have left the copy
    // sharing another variable's (a feed's, the caller's memory).
    try {
      if (value.IsInitialized()) {
        TensorCopy(value, value.place(), copy);
      } else {
        *copy = Tensor();
      }
    } catch (const Exception& e) {
      platform::RethrowWithContext(e, "the run's copy of weight '" + name +
                                          "', which " + writer + " writes: ");
    }
  }
}

void Executor::Run(int block_idx, Scope* scope) {
  BlockState& state = State(block_idx, /*strict=*/true);
  if (block_idx == 0) {
    loop_iterations_ = 0;
    // Before resolving: the ops then find the run's copies, not the
    // shared weights.
    if (!written_weights_.empty()) {
      // From the run's pool, under its memory limits.
      platform::ScopedHostAllocator pooled(host_pool_);
      CopyWrittenWeights(scope);
    }
  }
  // The main block runs in one scope per predictor: resolve once, then
  // reuse. Other scopes (tests, sub-blocks) resolve on each call.
  if (block_idx != 0) {
    RunResolved(block_idx, scope, ResolveBlock(block_idx, scope));
    return;
  }
  if (state.resolved_scope != scope->id()) {
    state.contexts = ResolveBlock(block_idx, scope);
    state.resolved_scope = scope->id();
    ForgetPlans(state, /*scope_alive=*/false);
  }
  PrepareLifetimes(state);
  if (!options_.plan_replay || state.rewrites_unread) {
    // The pool checks the memory limits (ExecutorOptions). Every run holds
    // its tensors to the next; with a limit, it lets them go first, so that
    // a run is charged the same whatever ran before it.
    if (options_.max_run_bytes != 0 || state.rewrites_unread) {
      ReleaseLeftovers(state, scope);
    }
    platform::ScopedHostAllocator pooled(host_pool_);
    DropEvicted(state);  // the kernel states, as RunMainBlock's
    stats_ = RunStats();
    stats_.ops_inferred = static_cast<int>(state.block.ops.size());
    RunResolved(block_idx, scope, state.contexts);
    EndMainRun(state);
    return;
  }
  RunMainBlock(state, scope);
}

namespace {

// The input-shape signature of a run: dtype, dims and LoD of every feed.
std::string FeedSignature(const PreparedBlock& block,
                          const std::vector<RuntimeContext>& contexts) {
  std::ostringstream sig;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    if (block.ops[i].type != "feed") continue;
    auto* x = contexts[i].FindInput("X");
    if (x == nullptr || x->empty() || !(*x)[0]->IsType<TensorList>()) continue;
    const auto& feeds = (*x)[0]->Get<TensorList>();
    int col = block.ops[i].op->Attr<int>("col");
    sig << col << ":";
    if (col >= 0 && col < static_cast<int>(feeds.size())) {
      const Tensor& t = feeds[col];
      sig << static_cast<int>(t.dtype());
      for (auto d : t.dims()) sig << "," << d;
      for (auto& level : t.lod()) {
        sig << "|";
        for (auto o : level) sig << o << ",";
      }
    }
    sig << ";";
  }
  return sig.str();
}

// The blocks an op runs (its BLOCK and BLOCKS attributes).
template <typename Attrs>
std::vector<int> BlocksRun(const Attrs& attrs) {
  std::vector<int> blocks;
  for (auto& kv : attrs) {
    if (auto* one = std::get_if<BlockRef>(&kv.second)) {
      blocks.push_back(one->idx);
    } else if (auto* list = std::get_if<std::vector<BlockRef>>(&kv.second)) {
      for (const BlockRef& r : *list) blocks.push_back(r.idx);
    }
  }
  return blocks;
}

// The variable names the ops of a block use (with `written_only`, write),
// with those of the blocks they run, each block's made once: a program
// whose blocks each run the next one twice would make a walk without the
// cache take 2^depth steps.
const std::set<std::string>& SubBlockNames(
    const ProgramDesc& program,
    int block_idx,
    bool written_only,
    std::map<int, std::set<std::string>>* cache) {
  auto found = cache->find(block_idx);
  if (found != cache->end()) return found->second;
  std::set<std::string> names;
  for (auto& op : program.blocks[block_idx].ops) {
    if (!written_only) {
      for (auto& kv : op.inputs) {
        names.insert(kv.second.begin(), kv.second.end());
      }
    }
    for (auto& kv : op.outputs)
      names.insert(kv.second.begin(), kv.second.end());
    for (int sub : BlocksRun(op.attrs)) {
      const auto& inner = SubBlockNames(program, sub, written_only, cache);
      names.insert(inner.begin(), inner.end());
    }
  }
  return (*cache)[block_idx] = std::move(names);
}

}  // namespace

struct Executor::Lifetimes {
  // First and last op that reads or writes it; names a sub-block uses live
  // through the op that runs it.
  std::unordered_map<std::string, std::pair<int, int>> span;
  // The last op that reads it, and the last that writes it.
  std::unordered_map<std::string, int> last_read;
  std::unordered_map<std::string, int> last_write;
  std::set<std::string> feeds, fetches;
  // Those whose first use writes them without reading them: what a run
  // finds in them is an earlier run's, never the caller's.
  std::set<std::string> written_first;
};

Executor::Lifetimes Executor::ComputeLifetimes(
    const ProgramDesc& program, const std::vector<PreparedOp>& ops) {
  Lifetimes lives;
  std::map<int, std::set<std::string>> sub_block_names;
  auto use = [&lives](const std::string& name, int i, bool read) {
    auto it = lives.span.find(name);
    if (it == lives.span.end()) {
      lives.span.emplace(name, std::make_pair(i, i));
    } else {
      it->second.second = std::max(it->second.second, i);
    }
    (read ? lives.last_read : lives.last_write)[name] = i;
  };
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const OperatorBase& op = *ops[i].op;
    std::set<std::string> unseen_outputs;
    for (auto& kv : op.Outputs()) {
      for (auto& name : kv.second) {
        if (!lives.span.count(name)) unseen_outputs.insert(name);
      }
    }
    for (auto& kv : op.Inputs()) {
      for (auto& name : kv.second) {
        use(name, i, true);
        unseen_outputs.erase(name);
      }
    }
    for (auto& kv : op.Outputs()) {
      for (auto& name : kv.second) use(name, i, false);
    }
    for (int sub : BlocksRun(op.Attrs())) {
      for (auto& name : SubBlockNames(program, sub, /*written_only=*/false,
                                      &sub_block_names)) {
        use(name, i, true);
        unseen_outputs.erase(name);
      }
    }
    lives.written_first.insert(unseen_outputs.begin(), unseen_outputs.end());
    if (op.Type() == "feed") lives.feeds.insert(op.Output("Out"));
    if (op.Type() == "fetch") lives.fetches.insert(op.Input("X"));
  }
  return lives;
}

namespace {

// Whether `op` lists `name` among its inputs.
bool Reads(const OperatorBase& op, const std::string& name) {
  for (const auto& kv : op.Inputs()) {
    if (std::find(kv.second.begin(), kv.second.end(), name) !=
        kv.second.end()) {
      return true;
    }
  }
  return false;
}

// Whether an op between `first_write` and `rewrite` (two ops writing
// `name`, the second without reading it) reads `name` into an output that
// is read after the rewrite: a view (a reshape's output) would share the
// buffer that the rewrite may write in place, so what it reads would
// depend on the buffers' sizes.
bool ReadAcrossRewrite(
    const std::vector<PreparedOp>& ops,
    const std::unordered_map<std::string, std::vector<int>>& readers,
    const std::string& name,
    int first_write,
    int rewrite) {
  for (int k = first_write + 1; k < rewrite; ++k) {
    if (!ops[k].op || !Reads(*ops[k].op, name)) continue;
    for (auto& kv : ops[k].op->Outputs()) {
      for (auto& out : kv.second) {
        auto r = readers.find(out);
        if (out != name && r != readers.end() && r->second.back() > rewrite) {
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

// When each variable of the main block is used, and what a recording run
// frees after each op: made once per block, at Prepare for a predictor
// (a tenth of its first specialised run when made there).
void Executor::PrepareLifetimes(BlockState& state) {
  if (state.lifetimes != nullptr) return;
  const auto& ops = state.block.ops;
  auto lifetimes =
      std::make_shared<const Lifetimes>(ComputeLifetimes(program_, ops));
  const Lifetimes& lives = *lifetimes;
  state.released_after.assign(ops.size(), {});
  for (auto& var : program_.blocks[0].vars) {
    if (var.persistable || !var.is_tensor() || lives.feeds.count(var.name) ||
        lives.fetches.count(var.name)) {
      continue;
    }
    auto span = lives.span.find(var.name);
    auto read = lives.last_read.find(var.name);
    auto write = lives.last_write.find(var.name);
    if (span == lives.span.end() || read == lives.last_read.end() ||
        read->second != span->second.second ||
        (write != lives.last_write.end() && write->second == read->second)) {
      continue;  // unread, or written by its last reader (in place)
    }
    state.released_after[read->second].push_back(&var);
  }
  // What an op's sub-blocks write counts as its outputs: a loop body may
  // write an outer variable (a weight's run copy, say) that the loop op
  // does not list, and the ops reading it after must infer its shape anew.
  std::map<int, std::set<std::string>> sub_block_writes;
  state.sub_block_writes.assign(ops.size(), {});
  std::unordered_map<std::string, std::vector<int>> readers;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].op) continue;
    for (auto& kv : ops[i].op->Inputs()) {
      for (auto& name : kv.second) readers[name].push_back(static_cast<int>(i));
    }
  }
  std::unordered_map<std::string, int> last_writer;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].op) continue;
    for (auto& kv : ops[i].op->Outputs()) {
      for (auto& name : kv.second) {
        ++state.writers[name];
        auto earlier = last_writer.find(name);
        if (earlier != last_writer.end() && !Reads(*ops[i].op, name) &&
            !state.rewrites_unread) {
          state.rewrites_unread = ReadAcrossRewrite(
              ops, readers, name, earlier->second, static_cast<int>(i));
        }
        last_writer[name] = static_cast<int>(i);
      }
    }
    std::set<std::string> written;
    for (int sub : BlocksRun(ops[i].op->Attrs())) {
      const auto& inner = SubBlockNames(program_, sub, /*written_only=*/true,
                                        &sub_block_writes);
      written.insert(inner.begin(), inner.end());
    }
    for (auto& name : written) ++state.writers[name];
    state.sub_block_writes[i].assign(written.begin(), written.end());
  }
  for (auto& var : program_.blocks[0].vars) {
    // A weight the program writes has the value its writer gave it.
    if (var.persistable && !written_weights_.count(var.name)) {
      state.persistable.insert(var.name);
    }
  }
  state.lifetimes = std::move(lifetimes);
}

void Executor::RunMainBlock(BlockState& state, Scope* scope) {
  // Buffers this run allocates on the host (a new signature's tensors,
  // kernels' temporaries) reuse blocks earlier runs freed.
  platform::ScopedHostAllocator pooled(host_pool_);
  // What the budget evicted after the last run goes now: the caller may
  // have read outputs from those buffers until this call.
  DropEvicted(state);
  const auto& ops = state.block.ops;
  std::string signature = FeedSignature(state.block, state.contexts);
  stats_ = RunStats();
  for (auto it = state.plans.begin(); it != state.plans.end(); ++it) {
    if ((*it)->signature != signature) continue;
    state.plans.splice(state.plans.begin(), state.plans, it);
    Plan& plan = *state.plans.front();
    budget_->Touch(plan.budget_id);
    // Pinned while it runs, and unpinned however the run ends: a replay
    // that throws (an input a kernel refuses) would otherwise leave them
    // pinned for good, filling the budget with what it may never evict.
    struct Unpin {
      Executor* executor;
      BlockState& state;
      Plan& plan;
      bool done = false;
      void Now() {
        if (done) return;
        done = true;
        executor->budget_->SetPinned(plan.budget_id, false);
        for (auto& a : state.arenas) {
          executor->budget_->SetPinned(a.second.budget_id, false);
        }
      }
      ~Unpin() { Now(); }
    } unpin{this, state, plan};
    budget_->SetPinned(plan.budget_id, true);
    PlaceInArenas(state, plan);
    for (auto& p : plan.tensors) {
      Tensor* t = p.var->GetMutable<Tensor>();
      // Usually still in place from the last run of these shapes.
      if (t->holder() != p.region || t->offset() != p.offset) {
        t->ResetHolder(p.region, p.offset, p.dtype, p.region->place());
      }
      if (t->dims() != p.dims) t->Resize(p.dims);
      if (t->lod() != p.lod) t->set_lod(p.lod);
    }
    for (auto& p : plan.shapes) {
      Tensor* t = p.var->GetMutable<Tensor>();
      if (t->dims() != p.dims) t->Resize(p.dims);
      if (t->lod() != p.lod) t->set_lod(p.lod);
    }
    if (state.arena_owner != &plan) {
      ResetStrays(state, &plan);
      state.arena_owner = &plan;
    }
    {
      // The plan's kernel states, for this replay only (also on a throw).
      struct ReplayStates {
        Executor* executor;
        ~ReplayStates() { executor->replay_kernel_states_ = nullptr; }
      } replay_states{this};
      replay_kernel_states_ = &plan.kernel_states;
      if (!RunAsGraph(state, plan, scope)) {
        for (size_t i = 0; i < ops.size(); ++i) {
          stats_.ops_inferred += plan.infer_shape[i];
          RunOp(ops[i], state.contexts[i], scope, 0, plan.infer_shape[i]);
        }
      }
    }
    ++plan.replays;
    stats_.replayed = true;
    stats_.graph_refusal = plan.graph_refusal;
    stats_.arena_bytes = plan.arena_bytes;
    stats_.unplanned_bytes = plan.unplanned_bytes;
    unpin.Now();  // before the budget is trimmed
    EndMainRun(state);
    return;
  }
  // No tensor is written in place in an arena by this recording run: it
  // allocates them all from the pool, where the run's limits count them,
  // so that its plan records a run that passed them (replays, whose arena
  // no limit counts, lay their tensors out the same). Written in place
  // for free, the last plan's tensors had let a run pass that held twice
  // its limit. A replay puts its plan's tensors back in place.
  ResetStrays(state, nullptr);
  state.arena_owner = nullptr;
  // Nor does it find buffers an earlier run of other shapes left (kept
  // outputs, tensors written in place): counted as held, they made the
  // run's limit depend on what ran before (14% more for dqn_conv_fluid at
  // batch 8 after batch 6), and a tensor growing takes its new buffer
  // before it frees the old.
  ReleaseLeftovers(state, scope);
  // A new signature: run with full shape inference, recording what replay
  // needs, then plan the memory for the next run of these shapes.
  // Each intermediate whose last use is only a read goes after that op, so the
  // recording run peaks near the planned arena rather than at the sum of
  // all intermediates. Only buffers a single variable owns go (not views,
  // feeds, weights or another plan's arena); outputs nobody reads stay,
  // for callers that read them from the scope.
  PrepareLifetimes(state);
  const Lifetimes& lives = *state.lifetimes;
  if (state.release_scope != scope->id()) {
    state.release_vars.assign(ops.size(), {});
    for (size_t i = 0; i < ops.size(); ++i) {
      for (const VarDesc* var : state.released_after[i]) {
        Variable* v = scope->FindLocalVar(var->name);
        const auto& span = lives.span.at(var->name);
        if (v != nullptr) {
          state.release_vars[i].push_back({v, span.first, span.second});
        }
      }
    }
    state.release_scope = scope->id();
  }
  std::vector<Released> released;
  released.reserve(ops.size());
  std::vector<OpRecord> records(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    RunOp(ops[i], state.contexts[i], scope, 0, true, &records[i]);
    for (const auto& r : state.release_vars[i]) {
      if (!r.var->IsType<Tensor>()) continue;
      Tensor* t = r.var->GetMutable<Tensor>();
      if (!t->IsInitialized() || t->holder().use_count() != 1) continue;
      // Never an arena region: plans hold those too (use count above 1).
      released.push_back(Released{r.var, r.first_op, r.last_op,
                                  t->holder()->size(), t->offset(),
                                  t->holder()->place()});
      t->ResetHolder(nullptr, 0, t->dtype(), t->place());
    }
  }
  stats_.ops_inferred = static_cast<int>(ops.size());
  auto plan = BuildPlan(state, scope, records, lives, released);
  plan->signature = signature;
  stats_.arena_bytes = plan->arena_bytes;
  stats_.unplanned_bytes = plan->unplanned_bytes;
  // What the plan itself takes (its arena is counted apart).
  size_t plan_bytes = sizeof(Plan) + plan->signature.size() +
                      plan->infer_shape.size() +
                      plan->buffers.size() * sizeof(Plan::Buffer);
  // Each tensor's LoD is a copy: a sequence model's plans are mostly
  // offsets, one level of (sequences + 1) per tensor that keeps them.
  auto lod_bytes = [](const LoD& lod) {
    size_t bytes = 0;
    for (const auto& level : lod) {
      bytes += sizeof(level) + level.capacity() * sizeof(level[0]);
    }
    return bytes;
  };
  for (auto& t : plan->tensors) {
    plan_bytes +=
        sizeof(t) + t.dims.size() * sizeof(int64_t) + lod_bytes(t.lod);
  }
  for (auto& t : plan->shapes) {
    plan_bytes +=
        sizeof(t) + t.dims.size() * sizeof(int64_t) + lod_bytes(t.lod);
  }
  for (auto& b : plan->buffers) plan_bytes += b.place_key.capacity();
  for (auto& need : plan->arena_need) {
    plan_bytes += sizeof(need) + need.first.capacity() + 3 * sizeof(void*);
  }
  plan_bytes += ops.size() * sizeof(plan->kernel_states[0]) +
                plan->tensors.size() * sizeof(plan->vars[0]);
  // The states the kernels kept for these shapes go with the plan. What
  // they hold besides the cached primitives and weights they share (memory
  // objects, descriptors) is counted here at about 3 KB each (an OCR
  // detector's 24 sizes took 11 MB more RSS for about 4,000 states).
  plan->kernel_states.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    plan->kernel_states[i] = ops[i].kernel_state;
    if (plan->kernel_states[i]) plan_bytes += kKeptKernelStateBytes;
  }
  plan->vars.reserve(plan->tensors.size());
  for (auto& t : plan->tensors) {
    state.planned_vars.insert(t.var);
    plan->vars.push_back(t.var);
  }
  std::sort(plan->vars.begin(), plan->vars.end());
  plan->vars.erase(std::unique(plan->vars.begin(), plan->vars.end()),
                   plan->vars.end());
  Plan* raw = plan.get();
  state.plans.push_front(std::move(plan));
  raw->budget_id =
      budget_->Add("plans", plan_bytes, [raw] { raw->evicted = true; });
  EndMainRun(state);
}

void Executor::EndMainRun(const BlockState& state) {
  host_pool_->EndOfRun();
  budget_->Trim();  // the run's pool and caches may have grown past it
  stats_.plans_cached = state.plans.size();
}

void Executor::PlaceInArenas(BlockState& state, Plan& plan) {
  for (auto& need : plan.arena_need) {
    BlockState::Arena& arena = state.arenas[need.first];
    if (arena.memory && arena.capacity >= need.second) {
      budget_->Touch(arena.budget_id);
      budget_->SetPinned(arena.budget_id, true);
      if (need.second > arena.bytes) {
        arena.bytes = need.second;
        if (arena.memory->place().is_cpu()) {
          budget_->Resize(arena.budget_id, arena.bytes);
        }
      }
      continue;
    }
    if (arena.memory) ReleaseArena(state, need.first);
    // Sized for every cached plan, not only this one: a stream of shapes
    // then replaces the arena once, not each time a larger one comes back.
    size_t bytes = need.second;
    for (const auto& other : state.plans) {
      if (other->evicted) continue;
      auto it = other->arena_need.find(need.first);
      if (it != other->arena_need.end()) bytes = std::max(bytes, it->second);
    }
    const platform::Place& place =
        std::find_if(plan.buffers.begin(), plan.buffers.end(),
                     [&need](const Plan::Buffer& b) {
                       return b.place_key == need.first;
                     })
            ->place;
    // A host arena gets half again as much: a stream of sizes then
    // replaces it (a fresh block, every page faulted in anew) a few times
    // rather than at each larger size. Pages no run writes are not
    // resident (the pool maps its chunks, and hands back the headroom of a
    // block it reuses), so that costs address space.
    const size_t capacity = place.is_cpu() ? bytes + bytes / 2 : bytes;
    BlockState::Arena& fresh = state.arenas[need.first];
    fresh.memory = place.is_cpu()
                       ? host_pool_->AllocateArena(capacity, bytes)
                       : platform::GetAllocator(place)->Allocate(capacity);
    fresh.bytes = bytes;
    fresh.capacity = capacity;
    stats_.arena_allocated = true;
    // Host arenas count in the budget; a device's memory has its own
    // limit (Config::SetGpuMemoryLimit).
    if (place.is_cpu()) {
      BlockState* owner = &state;
      const std::string key = need.first;
      fresh.budget_id = budget_->Add(
          "arena", bytes, [owner, key] { owner->arenas[key].evicted = true; });
      budget_->SetPinned(fresh.budget_id, true);
    }
    ++state.arena_epoch;
  }
  if (plan.regions_epoch == state.arena_epoch) return;
  std::vector<platform::AllocationPtr> regions;
  regions.reserve(plan.buffers.size());
  for (auto& b : plan.buffers) {
    const platform::AllocationPtr& arena = state.arenas[b.place_key].memory;
    // A region keeps the whole arena alive (shared_ptr aliasing).
    auto owner = std::make_shared<
        std::pair<platform::AllocationPtr, platform::Allocation>>(
        arena, platform::Allocation(static_cast<char*>(arena->ptr()) + b.offset,
                                    b.bytes, b.place));
    regions.emplace_back(owner, &owner->second);
  }
  for (auto& t : plan.tensors) t.region = regions[t.buffer];
  plan.regions_epoch = state.arena_epoch;
  plan.graph.reset();  // it pointed into the old regions
}

void Executor::ReleaseArena(BlockState& state, const std::string& place_key) {
  auto found = state.arenas.find(place_key);
  if (found == state.arenas.end()) return;
  BlockState::Arena& arena = found->second;
  for (Variable* v : state.planned_vars) {
    if (!v->IsType<Tensor>()) continue;
    Tensor* t = v->GetMutable<Tensor>();
    if (arena.Holds(*t)) {
      t->ResetHolder(nullptr, 0, t->dtype(), t->place());
    }
  }
  for (auto& plan : state.plans) {
    plan->regions_epoch = 0;
    for (auto& t : plan->tensors) t.region.reset();
    plan->graph.reset();
  }
  if (!arena.evicted) budget_->Remove(arena.budget_id);
  state.arenas.erase(found);
  state.arena_owner = nullptr;
  ++state.arena_epoch;
}

bool Executor::InArena(const BlockState& state, const Tensor& t) {
  for (auto& kv : state.arenas) {
    if (kv.second.Holds(t)) return true;
  }
  return false;
}

void Executor::ResetStrays(BlockState& state, const Plan* keep) {
  for (Variable* v : state.planned_vars) {
    if (keep != nullptr &&
        std::binary_search(keep->vars.begin(), keep->vars.end(), v)) {
      continue;
    }
    if (!v->IsType<Tensor>()) continue;
    Tensor* t = v->GetMutable<Tensor>();
    if (InArena(state, *t)) t->ResetHolder(nullptr, 0, t->dtype(), t->place());
  }
}

void Executor::ReleaseLeftovers(BlockState& state, Scope* scope) {
  PrepareLifetimes(state);
  const Lifetimes& lives = *state.lifetimes;
  std::unordered_map<const platform::Allocation*, std::vector<Tensor*>> holders;
  for (auto& var : program_.blocks[0].vars) {
    // Not an input the caller set in the scope (a variable read before
    // any op writes it), nor a feed's (the caller's memory).
    if (var.persistable || !var.is_tensor() ||
        !lives.written_first.count(var.name) || lives.feeds.count(var.name)) {
      continue;
    }
    Variable* v = scope->FindLocalVar(var.name);
    if (v == nullptr || !v->IsType<Tensor>()) continue;
    Tensor* t = v->GetMutable<Tensor>();
    if (!t->IsInitialized()) continue;
    holders[t->holder().get()].push_back(t);
  }
  // A buffer goes once every tensor holding it does: one shared with
  // what stays (the caller's outputs list, a weight) is not these
  // variables' to let go; one only views share among them (a reshape's
  // output and its input) is.
  for (auto& [holder, tensors] : holders) {
    if (tensors.front()->holder().use_count() !=
        static_cast<long>(tensors.size())) {
      continue;
    }
    for (Tensor* t : tensors) {
      t->ResetHolder(nullptr, 0, t->dtype(), t->place());
    }
  }
}

uint64_t Executor::KernelCacheEvictions() const {
  // Plans, arenas and the pool's free pages are no kernel's.
  return budget_->EvictionsBesides({"plans", "arena", "host.pool"});
}

void Executor::DropEvicted(BlockState& state) {
  // Kept kernel states own their primitives and weights: once the budget
  // let one of those go, plans let theirs go too, so what the budget
  // dropped is freed (kernels make their states again, from the caches).
  const uint64_t evictions = KernelCacheEvictions();
  if (evictions != kernel_state_evictions_) {
    kernel_state_evictions_ = evictions;
    for (auto& plan : state.plans) {
      std::fill(plan->kernel_states.begin(), plan->kernel_states.end(),
                nullptr);
    }
    // Also the ops' own: a kernel may make a new shape's state from the
    // last one (sharing its packed weights) rather than from the caches.
    for (auto& op : state.block.ops) op.kernel_state.reset();
  }
  std::vector<std::string> gone;
  for (auto& kv : state.arenas) {
    if (kv.second.evicted) gone.push_back(kv.first);
  }
  for (auto& key : gone) ReleaseArena(state, key);
  for (auto& plan : state.plans) {
    if (plan->evicted && state.arena_owner == plan.get()) {
      state.arena_owner = nullptr;
    }
  }
  state.plans.remove_if(
      [](const std::unique_ptr<Plan>& plan) { return plan->evicted; });
}

size_t Executor::HostPeakBytes() const { return host_pool_->peak_used_bytes(); }

void Executor::KeepHostPagesResident(size_t bytes) {
  host_pool_->KeepResident(bytes);
}

Executor::BlockState* Executor::MainBlockState() {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = blocks_.find(0);
  return found != blocks_.end() ? found->second.get() : nullptr;
}

void Executor::DropEvicted() {
  if (BlockState* state = MainBlockState()) DropEvicted(*state);
}

void Executor::ForgetPlans() {
  if (BlockState* state = MainBlockState()) {
    ForgetPlans(*state, /*scope_alive=*/true);
  }
  // Nor do the last run's figures stay (a warm-up's, read as a run's).
  stats_ = RunStats();
}

void Executor::ForgetPlans(BlockState& state, bool scope_alive) {
  if (!scope_alive) {
    // The variables may be gone with their scope: do not touch them, and
    // list the next scope's anew.
    state.planned_vars.clear();
    state.foreign_scope = 0;
    state.release_scope = 0;
  }
  // Before the plans go: the tensors in the arenas let go of them.
  std::vector<std::string> keys;
  for (auto& kv : state.arenas) keys.push_back(kv.first);
  for (auto& key : keys) ReleaseArena(state, key);
  for (auto& plan : state.plans) budget_->Remove(plan->budget_id);
  state.plans.clear();
  state.planned_vars.clear();
}

// Whether a plan can be one device graph: feeds, then kernel ops all on
// one context that can capture and none re-inferring shapes, then
// fetches. Fills the plan's graph_* fields, or refuses it with the reason.
bool Executor::CheckGraphShape(const std::vector<PreparedOp>& ops, Plan& plan) {
  bool any_capturable = false;
  for (auto& op : ops) {
    any_capturable = any_capturable ||
                     (op.device_context && op.device_context->SupportsGraphs());
  }
  if (!any_capturable) {
    plan.graph_refused = true;  // nothing to capture: not worth a reason
    return false;
  }
  const platform::DeviceContext* device = nullptr;
  size_t first_kernel = ops.size(), end_kernel = 0;
  int phase = 0;  // 0: feeds, 1: kernel ops, 2: fetches
  std::string refusal;
  for (size_t i = 0; i < ops.size() && refusal.empty(); ++i) {
    const PreparedOp& op = ops[i];
    const std::string where =
        "op #" + std::to_string(op.index) + " " + op.type + " ";
    if (op.type == "feed") {
      if (phase != 0) refusal = where + "comes after a kernel op";
      continue;
    }
    if (op.type == "fetch") {
      phase = 2;
      continue;
    }
    if (!op.op->IsKernelOp()) {
      refusal = where + "runs without a kernel (control flow)";
    } else if (phase == 2) {
      refusal = where + "comes after a fetch";
    } else if (op.device_context == nullptr ||
               !op.device_context->SupportsGraphs()) {
      refusal = where + "runs on " +
                (op.device_context ? op.device_context->GetPlace().ToString()
                                   : std::string("?")) +
                ", which cannot be captured";
    } else if (device != nullptr && device != op.device_context) {
      refusal = where + "runs on another device context";
    } else if (plan.infer_shape[i]) {
      refusal =
          where + "infers its shapes on every run (they depend on values)";
    } else {
      phase = 1;
      device = op.device_context;
      first_kernel = std::min(first_kernel, i);
      end_kernel = i + 1;
    }
  }
  if (!refusal.empty() || device == nullptr) {
    plan.graph_refused = true;
    plan.graph_refusal = refusal;
    return false;
  }
  plan.graph_device = device;
  plan.graph_first = first_kernel;
  plan.graph_end = end_kernel;
  return true;
}

bool Executor::RunAsGraph(BlockState& state, Plan& plan, Scope* scope) {
  if (!options_.device_graphs || options_.profile || plan.graph_refused) {
    return false;
  }
  if (!written_weights_.empty()) {
    // A graph would keep the buffers of the first run's weight copies.
    plan.graph_refused = true;
    plan.graph_refusal = "the program writes its weight '" +
                         written_weights_.begin()->first + "'";
    return false;
  }
  const auto& ops = state.block.ops;
  if (!plan.graph_checked) {
    // Once per plan: the recording run has made every op's context.
    plan.graph_checked = true;
    if (!CheckGraphShape(ops, plan)) return false;
  }
  const platform::DeviceContext* device = plan.graph_device;
  const size_t first_kernel = plan.graph_first, end_kernel = plan.graph_end;
  // The first replay runs op by op: weights get copied to the device,
  // workspaces and kernel states settle, so the capture records only the
  // steady state.
  if (plan.replays < 1) return false;

  for (size_t i = 0; i < first_kernel; ++i) {
    RunOp(ops[i], state.contexts[i], scope, 0, plan.infer_shape[i]);
  }
  // Feeds go to fixed device buffers (the graph reads them there), on the
  // device's stream: those already on the device too, which the caller's
  // memory may hold (ShareExternalData), another buffer at each run. The
  // graph kept reading the buffer it was captured with, left unchanged or
  // freed.
  device->MakeCurrent();
  const platform::Place place = device->GetPlace();
  for (size_t i = 0; i < first_kernel; ++i) {
    for (auto& kv : ops[i].op->Outputs()) {
      for (auto& name : kv.second) {
        Variable* var = scope->FindVar(name);
        if (var == nullptr || !var->IsType<Tensor>()) continue;
        Tensor* t = var->GetMutable<Tensor>();
        if (!t->IsInitialized()) continue;
        const size_t bytes = t->memory_size();
        auto& staged = plan.staged_feeds[name];
        if (!staged || staged->size() < bytes) {
          staged = platform::GetAllocator(place)->Allocate(bytes);
          plan.graph.reset();  // it read the old buffer
        }
        if (bytes > 0) {
          platform::Memcpy(place, staged->ptr(), t->place(), t->raw_data(),
                           bytes);
        }
        stats_.transfers.push_back(TransferRecord{
            ops[i].index, ops[i].type, name, t->place().ToString(),
            place.ToString(), bytes, false});
        DDim dims = t->dims();
        LoD lod = t->lod();
        DataType dtype = t->dtype();
        *t = Tensor();
        t->Resize(dims);
        t->set_lod(lod);
        t->ResetHolder(staged, 0, dtype, place);
      }
    }
  }
  if (plan.graph && plan.graph_epoch != device->GraphEpoch()) {
    plan.graph.reset();  // memory it points at was replaced
  }
  if (!plan.graph) {
    device->BeginCapture();
    try {
      for (size_t i = first_kernel; i < end_kernel; ++i) {
        RunOp(ops[i], state.contexts[i], scope, 0, false);
      }
      plan.graph = device->EndCapture();
      plan.graph_epoch = device->GraphEpoch();
    } catch (const Exception& e) {
      device->AbortCapture();
      // Nothing ran while capturing: run the kernels now, op by op, and
      // never try this plan again.
      plan.graph_refused = true;
      plan.graph_refusal = "capture failed: " + e.message();
      LOG(WARNING) << "device graph not used: " << plan.graph_refusal;
      for (size_t i = first_kernel; i < ops.size(); ++i) {
        RunOp(ops[i], state.contexts[i], scope, 0, plan.infer_shape[i]);
      }
      return true;
    }
  }
  device->LaunchGraph(plan.graph);
  for (size_t i = end_kernel; i < ops.size(); ++i) {
    RunOp(ops[i], state.contexts[i], scope, 0, plan.infer_shape[i]);
  }
  stats_.graph_replayed = true;
  return true;
}

std::unique_ptr<Executor::Plan> Executor::BuildPlan(
    BlockState& state,
    Scope* scope,
    const std::vector<OpRecord>& records,
    const Lifetimes& lives,
    const std::vector<Released>& released) {
  const BlockDesc& desc = program_.blocks[0];
  const auto& ops = state.block.ops;
  const int end = static_cast<int>(ops.size());
  auto plan = std::make_unique<Plan>();
  const auto& feeds = lives.feeds;

  // What depends on the scope only: listed once per scope, as the resolved
  // contexts are (variables are made before the first run).
  if (state.foreign_scope != scope->id()) {
    // Buffers that are not ours to place: feeds (the caller's memory) and
    // weights, and anything sharing a buffer with them.
    state.foreign_vars.clear();
    for (const Scope* s = scope; s != nullptr; s = s->parent()) {
      for (auto& name : s->LocalVarNames()) {
        const VarDesc* vd = s == scope ? desc.FindVar(name) : nullptr;
        // A parent's are the weights.
        if (s != scope || feeds.count(name) || vd == nullptr ||
            vd->persistable) {
          state.foreign_vars.push_back(s->FindLocalVar(name));
        }
      }
    }
    state.plannable.clear();
    for (auto& var : desc.vars) {
      if (var.persistable || !var.is_tensor() || feeds.count(var.name)) {
        continue;
      }
      Variable* v = scope->FindLocalVar(var.name);
      auto life = lives.span.find(var.name);
      if (v == nullptr || life == lives.span.end()) continue;
      state.plannable.push_back(BlockState::PlannableVar{
          v, life->second.first,
          lives.fetches.count(var.name) ? end : life->second.second});
    }
    state.foreign_scope = scope->id();
    state.replay_rules_valid = false;
  }

  // Which ops must still infer shapes on replay: those whose shapes depend
  // on values, whose kernels set dims, that run sub-blocks, that write a
  // variable another op also writes, or that read such an op's outputs.
  if (!state.replay_rules_valid || state.replay_records != records) {
    const auto& writers = state.writers;
    std::set<std::string> dynamic;
    // Values the input signature fixes: weights, what `shape` writes of a
    // tensor whose shape is fixed, and what kernels compute from such
    // values only (a slice of a shape). Shape inference reading only these
    // gives the same shapes on every replay (a reshape to a sliced shape).
    std::unordered_set<std::string> fixed_outputs;
    auto fixed = [&](const std::string& name) {
      return state.persistable.count(name) > 0 || fixed_outputs.count(name) > 0;
    };
    std::vector<char> infer_shape(ops.size(), 0);
    for (int i = 0; i < end; ++i) {
      const OperatorBase& op = *ops[i].op;
      bool reads_unfixed = false;
      for (auto& name : records[i].read_vars) {
        reads_unfixed = reads_unfixed || !fixed(name);
      }
      bool infer =
          (!op.IsKernelOp() && !op.OutputShapesFollowInputShapes()) ||
          (records[i].read_values && reads_unfixed) ||
          records[i].kernel_set_dims ||
          (op.IsKernelOp() &&
           static_cast<const OperatorWithKernel&>(op).KernelSetsOutputDims());
      bool inputs_fixed = op.IsKernelOp();
      bool inputs_dynamic = false;
      for (auto& kv : op.Inputs()) {
        for (auto& name : kv.second) {
          inputs_dynamic = inputs_dynamic || dynamic.count(name);
          inputs_fixed = inputs_fixed && fixed(name);
        }
      }
      infer = infer || inputs_dynamic;
      // Each run starts its copy of a written weight at the loaded dims;
      // an op running sub-blocks infers what they write.
      for (auto& kv : op.Outputs()) {
        for (auto& name : kv.second) {
          infer = infer || written_weights_.count(name) > 0;
        }
      }
      const bool runs_blocks =
          static_cast<size_t>(i) < state.sub_block_writes.size() &&
          !state.sub_block_writes[i].empty();
      infer = infer || runs_blocks;
      const bool outputs_fixed =
          !infer && ((op.Type() == "shape" && !inputs_dynamic) ||
                     (inputs_fixed && !op.Inputs().empty()));
      if (outputs_fixed) {
        for (auto& kv : op.Outputs()) {
          fixed_outputs.insert(kv.second.begin(), kv.second.end());
        }
      }
      for (auto& kv : op.Outputs()) {
        for (auto& name : kv.second) {
          auto w = writers.find(name);
          infer = infer || (w != writers.end() && w->second > 1);
        }
      }
      infer_shape[i] = infer;
      if (infer) {
        for (auto& kv : op.Outputs()) {
          dynamic.insert(kv.second.begin(), kv.second.end());
        }
        if (runs_blocks) {
          dynamic.insert(state.sub_block_writes[i].begin(),
                         state.sub_block_writes[i].end());
        }
      }
    }
    // The variables written by ops that skip shape inference on replay.
    std::set<std::string> skipped_outputs;
    for (int i = 0; i < end; ++i) {
      if (infer_shape[i]) continue;
      for (auto& kv : ops[i].op->Outputs()) {
        skipped_outputs.insert(kv.second.begin(), kv.second.end());
      }
    }
    state.replay_shape_only.clear();
    for (auto& name : skipped_outputs) {
      const VarDesc* vd = desc.FindVar(name);
      if (vd == nullptr || vd->persistable || feeds.count(name)) continue;
      Variable* v = scope->FindLocalVar(name);
      if (v != nullptr) state.replay_shape_only.push_back(v);
    }
    state.replay_records = records;
    state.replay_infer_shape = std::move(infer_shape);
    state.replay_rules_valid = true;
  }
  plan->infer_shape = state.replay_infer_shape;

  std::vector<const platform::Allocation*> foreign;
  foreign.reserve(state.foreign_vars.size());
  for (const Variable* v : state.foreign_vars) {
    if (!v->IsType<Tensor>() || !v->Get<Tensor>().IsInitialized()) continue;
    foreign.push_back(v->Get<Tensor>().holder().get());
  }
  std::sort(foreign.begin(), foreign.end());

  // One buffer per allocation the recording run made; the variables
  // sharing it (reshape outputs, views) move together.
  // Each variable placed, with its buffer and (for one the recording run
  // freed) its offset there; kept flat and sorted by buffer after, rather
  // than a list per buffer: a small model's plan building was mostly
  // allocations.
  struct Member {
    size_t buffer;
    Variable* var;
    size_t offset;
    bool released;
  };
  const size_t most = released.size() + state.plannable.size();
  std::unordered_map<const platform::Allocation*, size_t> buffer_of;
  buffer_of.reserve(state.plannable.size());
  std::vector<BufferLifetime> buffers;
  buffers.reserve(most);
  std::vector<const platform::Place*> buffer_place;
  buffer_place.reserve(most);
  std::vector<Member> members;
  members.reserve(most);
  for (auto& r : released) {
    members.push_back(Member{buffers.size(), r.var, r.offset, true});
    buffers.push_back(BufferLifetime{r.bytes, r.first_op, r.last_op});
    buffer_place.push_back(&r.place);
  }
  for (auto& p : state.plannable) {
    if (!p.var->IsType<Tensor>()) continue;
    const Tensor& t = p.var->Get<Tensor>();
    if (!t.IsInitialized()) continue;
    const platform::Allocation* holder = t.holder().get();
    if (std::binary_search(foreign.begin(), foreign.end(), holder)) continue;
    // A region of the arena was cut for other shapes (often larger): count
    // what the tensor uses of it. Other buffers count whole (a kernel may
    // have shrunk its output after writing it).
    const size_t used =
        InArena(state, t) ? t.offset() + t.memory_size() : holder->size();
    auto found = buffer_of.find(holder);
    if (found == buffer_of.end()) {
      found = buffer_of.emplace(holder, buffers.size()).first;
      buffers.push_back(BufferLifetime{used, p.first_op, p.last_op});
      buffer_place.push_back(&holder->place());
    } else {
      auto& b = buffers[found->second];
      b.bytes = std::max(b.bytes, used);
      b.first_op = std::min(b.first_op, p.first_op);
      b.last_op = std::max(b.last_op, p.last_op);
    }
    members.push_back(Member{found->second, p.var, 0, false});
  }
  // By buffer, each buffer's variables in the order they were listed.
  std::stable_sort(
      members.begin(), members.end(),
      [](const Member& a, const Member& b) { return a.buffer < b.buffer; });
  // Unplanned tensors written by ops that skip shape inference on replay
  // keep the dims of this signature.
  std::vector<const Variable*> placed;
  placed.reserve(members.size());
  for (auto& m : members) placed.push_back(m.var);
  std::sort(placed.begin(), placed.end());
  for (Variable* v : state.replay_shape_only) {
    if (!v->IsType<Tensor>() ||
        std::binary_search(placed.begin(), placed.end(), v)) {
      continue;
    }
    const Tensor& t = v->Get<Tensor>();
    plan->shapes.push_back(Plan::ShapeOnly{v, t.dims(), t.lod()});
  }

  plan->buffers.reserve(buffers.size());
  plan->tensors.reserve(members.size());
  // Each place's buffers share one arena of that place (nearly always
  // one place: its key is made once per place, not per buffer).
  std::vector<std::pair<const platform::Place*, std::vector<size_t>>> by_place;
  for (size_t b = 0; b < buffers.size(); ++b) {
    auto group = std::find_if(
        by_place.begin(), by_place.end(),
        [&](const auto& g) { return *g.first == *buffer_place[b]; });
    if (group == by_place.end()) {
      by_place.emplace_back(buffer_place[b], std::vector<size_t>());
      by_place.back().second.reserve(buffers.size());
      group = by_place.end() - 1;
    }
    group->second.push_back(b);
  }
  std::vector<size_t> first_member(buffers.size() + 1, members.size());
  for (size_t m = members.size(); m-- > 0;) {
    first_member[members[m].buffer] = m;
  }
  for (size_t b = buffers.size(); b-- > 0;) {
    first_member[b] = std::min(first_member[b], first_member[b + 1]);
  }
  for (auto& group : by_place) {
    std::vector<BufferLifetime> group_buffers;
    group_buffers.reserve(group.second.size());
    for (size_t b : group.second) group_buffers.push_back(buffers[b]);
    MemoryPlanResult layout = PlanMemory(group_buffers);
    const platform::Place place = *group.first;
    const std::string key = place.ToString();
    plan->arena_bytes += layout.arena_bytes;
    plan->unplanned_bytes += layout.total_bytes;
    plan->arena_need[key] = layout.arena_bytes;
    for (size_t g = 0; g < group.second.size(); ++g) {
      const size_t b = group.second[g];
      const size_t index = plan->buffers.size();
      plan->buffers.push_back(
          Plan::Buffer{key, place, layout.offsets[g], buffers[b].bytes});
      for (size_t m = first_member[b]; m < first_member[b + 1]; ++m) {
        const Tensor& t = members[m].var->Get<Tensor>();
        plan->tensors.push_back(Plan::PlannedTensor{
            members[m].var, t.dims(), t.dtype(), t.lod(), index,
            members[m].released ? members[m].offset : t.offset(), nullptr});
      }
    }
  }
  return plan;
}

namespace {

// Copies each input tensor that is not on the kernel's place there and
// returns a context that reads the copies. Weights are copied once per op
// and kept; everything else is copied on every run. Returns false (and
// leaves `moved` alone) when every input is already in place.
bool TransferInputs(const PreparedOp& prepared,
                    const RuntimeContext& ctx,
                    const platform::Place& place,
                    const ProgramDesc& program,
                    int block_idx,
                    const std::map<std::string, std::string>& written_weights,
                    const Scope& scope,
                    RuntimeContext* moved,
                    std::vector<std::unique_ptr<Variable>>* temps,
                    std::vector<TransferRecord>* records) {
  bool any = false;
  const OperatorBase& op = *prepared.op;
  for (size_t s = 0; s < ctx.inputs.size(); ++s) {
    const auto& names = op.InputList(ctx.inputs[s].first);
    for (size_t i = 0; i < ctx.inputs[s].second.size(); ++i) {
      Variable* var = ctx.inputs[s].second[i];
      if (var == nullptr || !var->IsType<Tensor>()) continue;
      const Tensor& t = var->Get<Tensor>();
      if (!t.IsInitialized() || platform::SameKind(t.place(), place)) continue;
      if (!any) {
        *moved = ctx;
        any = true;
      }
      const std::string& name = i < names.size() ? names[i] : "";
      const VarDesc* desc = program.FindVarRecursive(block_idx, name);
      // Only a weight the predictors share keeps its value: a written one
      // is the run's own copy (CopyWrittenWeights), and a name a sub-block
      // declares persistable is that block's, made anew each time. Those
      // are copied on every run, as other variables are.
      bool weight =
          desc != nullptr && desc->persistable &&
          !written_weights.count(name) &&
          (scope.parent() == nullptr || scope.IsRootVariable(name, var));
      Variable* copy = nullptr;
      bool cached = false;
      if (weight) {
        auto& slot = prepared.weight_copies[var];
        cached = slot != nullptr;
        if (!slot) {
          slot = std::make_unique<Variable>();
          TensorCopy(t, place, slot->GetMutable<Tensor>());
        }
        copy = slot.get();
      } else {
        temps->push_back(std::make_unique<Variable>());
        copy = temps->back().get();
        TensorCopy(t, place, copy->GetMutable<Tensor>());
      }
      moved->inputs[s].second[i] = copy;
      if (records) {
        records->push_back(TransferRecord{
            prepared.index, op.Type(), name, t.place().ToString(),
            place.ToString(), t.memory_size(), cached});
      }
    }
  }
  return any;
}

// Library layouts around one op (see OpaqueLayout): its inputs in a layout
// of another library than `reader` (nullptr: any library) are rewritten
// plain, in place; its outputs that it does not also read lose their
// layout, so that a kernel writing plain data leaves a plain tensor.
void SettleLayouts(const RuntimeContext& ctx,
                   const std::string* reader,
                   platform::AllocationPtr* scratch) {
  for (auto& kv : ctx.inputs) {
    for (Variable* var : kv.second) {
      if (var == nullptr || !var->IsType<Tensor>()) continue;
      Tensor* t = var->GetMutable<Tensor>();
      const OpaqueLayout* layout = t->opaque_layout();
      if (layout == nullptr) continue;
      if (reader == nullptr || layout->library() != *reader) {
        ConvertToPlainLayout(t, scratch);
      }
    }
  }
  for (auto& kv : ctx.outputs) {
    for (Variable* var : kv.second) {
      if (var == nullptr || !var->IsType<Tensor>()) continue;
      Tensor* t = var->GetMutable<Tensor>();
      if (t->opaque_layout() == nullptr) continue;
      bool read = false;
      for (auto& in : ctx.inputs) {
        for (Variable* v : in.second) read = read || v == var;
      }
      if (!read) t->set_opaque_layout(nullptr);
    }
  }
}

}  // namespace

void Executor::SettleLayoutsCounted(const RuntimeContext& ctx,
                                    const std::string* reader) {
  auto count = [this] {
    const size_t bytes = layout_scratch_ ? layout_scratch_->size() : 0;
    if (bytes != layout_scratch_counted_) {
      budget_->Resize(layout_scratch_id_, bytes);
      layout_scratch_counted_ = bytes;
    }
  };
  try {
    SettleLayouts(ctx, reader, &layout_scratch_);
  } catch (...) {
    count();  // a buffer dropped before a failed allocation
    throw;
  }
  count();
}

void Executor::RunOp(const PreparedOp& prepared,
                     const RuntimeContext& ctx,
                     Scope* scope,
                     int block_idx,
                     bool infer_shape,
                     OpRecord* record) {
  if (options_.profile && block_idx == 0) {
    // A device with a clock (CUDA events) times the op's own work on its
    // queue; otherwise the op's wall time, until its device is idle again
    // (an accelerator's kernels return before they finish).
    const platform::DeviceContext* device = prepared.device_context;
    std::shared_ptr<void> begin = device ? device->MarkTime() : nullptr;
    auto start = std::chrono::steady_clock::now();
    RunOpUntimed(prepared, ctx, scope, block_idx, infer_shape, record);
    double ms = 0;
    if (begin) {
      ms = device->ElapsedMs(begin, device->MarkTime());
    } else {
      if (prepared.device_context) prepared.device_context->Wait();
      ms = std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
               .count();
    }
    stats_.op_timings.push_back(OpTiming{
        prepared.index, prepared.type,
        prepared.choice.kernel ? prepared.choice.chosen.ToString() : "", ms});
    return;
  }
  RunOpUntimed(prepared, ctx, scope, block_idx, infer_shape, record);
}

void Executor::RunOpUntimed(const PreparedOp& prepared,
                            const RuntimeContext& ctx,
                            Scope* scope,
                            int block_idx,
                            bool infer_shape,
                            OpRecord* record) {
  const OperatorBase& op = *prepared.op;
  try {
    // A run that only makes primitives (framework/make_only.h) computes
    // nothing. Ops without a kernel other than feed and fetch (control
    // flow) would act on values never written, so it stops there.
    if (MakingOnly() && !op.IsKernelOp() && op.Type() != "feed" &&
        op.Type() != "fetch") {
      PADDLE_THROW(errors::Unavailable(
          "a run that only makes primitives stops at op '", op.Type(), "'"));
    }
    if (!op.IsKernelOp()) {
      SettleLayoutsCounted(ctx, nullptr);
      RunEnv env{scope, &preference_.place, this, &program_};
      op.RunWithoutKernel(env);
      return;
    }
    const KernelChoice& choice = prepared.choice;
    if (prepared.device_context == nullptr) {
      platform::Place place = choice.chosen.place;
      if (platform::SameKind(place, preference_.place)) {
        place = preference_.place;
      }
      prepared.device_context = contexts_->Get(place);
    }
    platform::DeviceContext* dev_ctx = prepared.device_context;
    dev_ctx->MakeCurrent();
    const platform::Place place = dev_ctx->GetPlace();
    auto& kop = static_cast<const OperatorWithKernel&>(op);
    SettleLayoutsCounted(ctx, &choice.chosen.library.name());
    std::vector<std::unique_ptr<Variable>> temps;
    RuntimeContext moved;
    const RuntimeContext* run_ctx = &ctx;
    if (TransferInputs(prepared, ctx, place, program_, block_idx,
                       written_weights_, *scope, &moved, &temps,
                       block_idx == 0 ? &stats_.transfers : nullptr)) {
      run_ctx = &moved;
    }
    ExecutionContext exec_ctx(op, *scope, *dev_ctx, *run_ctx);
    std::shared_ptr<void>* kernel_state = &prepared.kernel_state;
    if (block_idx == 0 && replay_kernel_states_ != nullptr) {
      kernel_state = &replay_kernel_states_->at(prepared.index);
    }
    exec_ctx.set_kernel_state(kernel_state);
    if (infer_shape) {
      const std::vector<AliasedOutput> aliased = AliasedOutputs(*run_ctx);
      InferShapeContext shape_ctx(exec_ctx);
      kop.InferShape(&shape_ctx);
      CheckAliasedOutputsKept(op, aliased);
      if (record) {
        record->read_values = shape_ctx.read_values();
        record->read_vars = shape_ctx.read_variables();
      }
    }
    if (MakingOnly() && choice.chosen.library != LibraryType::MKLDNN()) {
      // Only oneDNN's kernels make primitives; the others' outputs get
      // their inferred dims' memory, unwritten (their pages untouched), so
      // the ops after them can make theirs.
      for (auto& kv : run_ctx->outputs) {
        const auto& names = prepared.op->OutputList(kv.first);
        for (size_t i = 0; i < kv.second.size(); ++i) {
          GiveUnwrittenMemoryToOutput(*scope, i < names.size() ? names[i] : "",
                                      kv.second[i], place,
                                      choice.chosen.data_type);
        }
      }
      return;
    }
    if (record == nullptr) {
      choice.kernel->fn(exec_ctx);
      return;
    }
    // The inferred dims, in vectors kept from op to op (a kernel runs no
    // other op, so nothing else uses them meanwhile).
    std::vector<DDim>& inferred = inferred_dims_scratch_;
    size_t k = 0;
    for (auto& kv : run_ctx->outputs) {
      for (auto* v : kv.second) {
        if (inferred.size() <= k) inferred.emplace_back();
        DDim& dims = inferred[k++];
        dims.clear();
        if (v && v->IsType<Tensor>()) {
          const DDim& now = v->Get<Tensor>().dims();
          dims.assign(now.begin(), now.end());
        }
      }
    }
    choice.kernel->fn(exec_ctx);
    k = 0;
    static const DDim kNoDims;
    for (auto& kv : run_ctx->outputs) {
      for (auto* v : kv.second) {
        const DDim& now =
            v && v->IsType<Tensor>() ? v->Get<Tensor>().dims() : kNoDims;
        record->kernel_set_dims |= now != inferred[k++];
      }
    }
  } catch (const Exception& e) {
    std::string where = OpLocation(op, prepared.index, block_idx);
    if (e.code() == ErrorCode::kExternal) {
      // A library call failed (CUDA, cuDNN): the shapes it was given are
      // the first thing to know.
      where += "inputs " + InputShapes(ctx) + ": ";
    }
    platform::RethrowWithContext(e, where);
  }
}

}  // namespace framework
}  // namespace paddle_lite
