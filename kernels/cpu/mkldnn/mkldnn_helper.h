// What every oneDNN kernel in kernels/cpu/mkldnn shares: the per-context
// engine, stream and bounded caches (MkldnnContext), the thread setup,
// cache keys, memory descriptors over our plain buffers, and the hand-off
// to the PLAIN kernel for the cases oneDNN cannot compute exactly as
// Paddle does. Private to this folder, which is the only place that
// includes <dnnl.hpp>.
//
// Threads: Debian's oneDNN runs on OpenMP, whose team size is a setting of
// the calling thread; PrepareMkldnn() sets it to the predictor's thread
// count before every call, so predictors never share a global knob.
#pragma once

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "framework/kernel_registry.h"
#include "framework/make_only.h"
#include "framework/scope.h"
#include "kernels/cpu/mkldnn/lru_cache.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "operators/fused_activation.h"
#include "platform/address_space.h"
#include "platform/device_context.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// A tensor held in one of oneDNN's layouts (`md`, usually blocked such as
/// nChw16c), set by MKLDNN kernels on their outputs so that the next
/// MKLDNN kernel reads it as is. `plain` is the same tensor in its plain
/// layout; the reorder to it is made once, with the layout.
class MkldnnLayout : public framework::OpaqueLayout {
 public:
  MkldnnLayout(const dnnl::memory::desc& md,
               const dnnl::memory::desc& plain,
               const dnnl::engine& engine)
      : md_(md), plain_(plain), engine_(engine) {}

  const std::string& library() const override {
    return framework::LibraryType::MKLDNN().name();
  }
  size_t bytes() const override { return md_.get_size(); }
  void ToPlain(const void* src, void* plain) const override {
    if (framework::MakingOnly()) return;
    // Made on first use: most layouts are never converted, and making a
    // reorder compiles code, a cost every new input shape would pay.
    std::call_once(to_plain_made_, [this] {
      to_plain_ = dnnl::reorder(
          dnnl::reorder::primitive_desc(engine_, md_, engine_, plain_));
    });
    // Any thread may ask (the executor's), so a stream of its own.
    dnnl::stream stream(engine_);
    dnnl::memory from(md_, engine_, const_cast<void*>(src));
    dnnl::memory to(plain_, engine_, plain);
    to_plain_.execute(stream, from, to);
    stream.wait();
  }
  std::string ToString() const override {
    const dnnl_blocking_desc_t& b = md_.data.format_desc.blocking;
    std::string s = "MKLDNN:blocked";
    for (int i = 0; i < b.inner_nblks; ++i) {
      s += ':' + std::to_string(b.inner_blks[i]) + "@" +
           std::to_string(b.inner_idxs[i]);
    }
    return s;
  }

  const dnnl::memory::desc& md() const { return md_; }
  const dnnl::memory::desc& plain() const { return plain_; }

 private:
  dnnl::memory::desc md_;
  dnnl::memory::desc plain_;
  dnnl::engine engine_;
  mutable std::once_flag to_plain_made_;
  mutable dnnl::reorder to_plain_;
};

/// oneDNN state of one CPU device context (so of one predictor), made on
/// first use through DeviceContext::GetResource. Used by one thread at a
/// time, like the context itself.
class MkldnnContext {
 public:
  /// What a cached primitive is counted as in the budget: its JIT code
  /// (a few pages) and descriptors, measured as RSS per primitive on the
  /// OCR detectors (their scratchpads are the context's, counted apart).
  static constexpr size_t kPrimitiveBytes = size_t{48} << 10;
  /// The address space left that making one needs (see GetOrMake).
  static constexpr size_t kMakingAddressSpaceBytes = size_t{12} << 20;

  /// Entries count against `budget` (the device context's; null: one of
  /// its own with the default limit, for contexts made outside a
  /// predictor).
  explicit MkldnnContext(platform::CacheBudget* budget);
  ~MkldnnContext();

  const dnnl::engine& engine() const { return engine_; }
  dnnl::stream& stream() { return stream_; }

  /// The object cached under `key`, made by `make()` (returning
  /// std::shared_ptr<T>) on a miss. When oneDNN rejects the configuration
  /// (make throws dnnl::error) or `make` declines it (returns nullptr: only
  /// a slow implementation exists), that is remembered and nullptr
  /// returned, so the caller runs the PLAIN kernel. oneDNN out of memory
  /// throws ResourceExhausted instead (here and in Weights), remembering
  /// nothing. Keys must start with a name unique to T.
  template <typename T, typename Make>
  std::shared_ptr<T> Primitive(const std::string& key, Make&& make) {
    return GetOrMake<T>(&primitives_, key, make,
                        [](const T&) { return kPrimitiveBytes; });
  }

  /// Weights reordered for primitives, under `key` (the weights' address
  /// and both layouts), made by `make()` on a miss.
  template <typename Make>
  std::shared_ptr<dnnl::memory> Weights(const std::string& key, Make&& make) {
    return GetOrMake<dnnl::memory>(
        &weights_, key, make,
        [](const dnnl::memory& m) { return m.get_desc().get_size(); });
  }

  /// The reorder from layout `from` to `to`, made once per pair.
  dnnl::reorder Reorder(const dnnl::memory::desc& from,
                        const dnnl::memory::desc& to);

  /// The layout of a tensor of channel-first `dims` stored channel-last
  /// (what our own conv and pooling loops write), one object for every
  /// caller while any of them holds it. Kernels keep a layout per op and
  /// input shape, and ops of one shape mostly share their output's dims:
  /// one per op was a fifth of a small model's memory per shape, and
  /// readers that compare layouts by address match more often.
  std::shared_ptr<const MkldnnLayout> ChannelLastLayout(
      const std::vector<int64_t>& dims);

  /// Where tensor `t`, converted to its plain layout by a kernel, is held
  /// while its buffer is rewritten (see ConvertToPlainLayout): scratch
  /// slot kPlainSlot, grown to `t`'s bytes here so that the budget counts
  /// it.
  platform::AllocationPtr* PlainScratch(const framework::Tensor& t) {
    if (t.IsInitialized()) ScratchBuffer(kPlainSlot, t.memory_size());
    return &scratch_[kPlainSlot];
  }

  /// Memory of descriptor `md` in scratch buffer `slot` (0 or 1), for the
  /// temporaries of one call (activations reordered to a primitive's
  /// format). Every call reuses the buffers; each grows to the largest
  /// size asked for and stays, so it is bounded by the largest activation.
  /// Slots of Scratch(): two for reordered inputs, one for primitives'
  /// scratchpads, one for our own loops' temporaries (Winograd's tiles);
  /// and PlainScratch's.
  static constexpr int kScratchpadSlot = 2;
  static constexpr int kOwnLoopSlot = 3;
  static constexpr int kPlainSlot = 4;  // PlainScratch's

  dnnl::memory Scratch(int slot, const dnnl::memory::desc& md) {
    return dnnl::memory(md, engine_, ScratchBuffer(slot, md.get_size()));
  }
  /// The buffer of scratch slot `slot`, grown to at least `bytes`. Slots
  /// count in the budget but are never evicted: a kernel may be using
  /// one while another entry is added.
  /// They come from the host allocator of the run (the predictor's block
  /// pool): grown buffers are freed as the sizes rise, which through
  /// glibc's heap would raise its mmap threshold and fragment it.
  void* ScratchBuffer(int slot, size_t bytes) {
    platform::AllocationPtr& b = scratch_[slot];
    if (b == nullptr || b->size() < bytes) {
      b.reset();
      // Not counted while gone, should the allocation throw.
      budget_->Resize(scratch_ids_[slot], 0, /*touch=*/false,
                      /*may_evict=*/false);
      b = platform::AllocateKeptHostBuffer(bytes);
      budget_->Resize(scratch_ids_[slot], bytes);
    }
    return b->ptr();
  }

 private:
  template <typename T, typename Make, typename Bytes>
  static std::shared_ptr<T> GetOrMake(LruCache* cache,
                                      const std::string& key,
                                      Make& make,
                                      Bytes bytes_of) {
    // The cache holds a shared_ptr<T> per key, null for a rejected one.
    if (auto hit = cache->Find(key)) {
      return *std::static_pointer_cast<std::shared_ptr<T>>(hit);
    }
    // oneDNN (2.6) writes a new primitive's code through a null pointer
    // when the address space runs out under ulimit -v (SIGSEGV in
    // dnnl_primitive_create): refused before, while room is short.
    const size_t room = platform::AddressSpaceLeft();
    if (room < kMakingAddressSpaceBytes) {
      PADDLE_THROW(errors::ResourceExhausted(
          "the address space is nearly used up (ulimit -v): ", room >> 20,
          " MB left, and oneDNN is given ", kMakingAddressSpaceBytes >> 20,
          " MB to make a primitive or weights in"));
    }
    std::shared_ptr<T> made;
    const auto start = std::chrono::steady_clock::now();
    try {
      made = make();
    } catch (const dnnl::error& e) {
      // Memory running out is no verdict on the key (a rejection kept would
      // last after memory came back): the run fails, as on any allocation
      // that fails, and a later one tries again. Callers of weights, which
      // only memory can refuse, took a null for a made one.
      if (e.status == dnnl_out_of_memory) {
        PADDLE_THROW(errors::ResourceExhausted(
            "oneDNN ran out of memory making a primitive or weights: ",
            e.what()));
      }
      made = nullptr;
    }
    framework::AddMakingTime(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - start)
            .count());
    // A rejection is remembered too, at the cost of its key.
    const size_t bytes = made ? bytes_of(*made) : key.size();
    cache->Insert(key, std::make_shared<std::shared_ptr<T>>(made), bytes);
    return made;
  }

  std::shared_ptr<platform::CacheBudget> own_budget_;  // when given none
  platform::CacheBudget* budget_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  LruCache primitives_;
  LruCache weights_;
  platform::AllocationPtr scratch_[5];
  platform::CacheBudget::EntryId scratch_ids_[5] = {};
  // ChannelLastLayout's, by dims; what nobody holds any more is swept out
  // when the map has doubled since the last sweep.
  std::map<std::vector<int64_t>, std::weak_ptr<const MkldnnLayout>>
      channel_last_layouts_;
  size_t layouts_after_sweep_ = 0;
};

/// Sizes the calling thread's OpenMP team to the predictor's thread count
/// (before a primitive is made: some pick their blocking from it) and
/// returns the context's oneDNN state.
inline MkldnnContext& PrepareMkldnn(const framework::ExecutionContext& ctx) {
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
#ifdef PDLITE_TSAN_ONE_OPENMP_THREAD
  // libgomp hands work to its threads through futexes ThreadSanitizer does
  // not model, so every buffer a worker writes would be reported: in TSan
  // builds oneDNN runs on the calling thread, and reports are about ours.
  omp_set_num_threads(1);
#else
  omp_set_num_threads(dev.num_threads());
#endif
  return dev.GetResource<MkldnnContext>(dev.cache_budget());
}

/// Builds a cache key: a kind name, the thread count (primitives are
/// specialized for it), then every shape and attribute that shapes the
/// primitive. Values go in as raw bytes (a key is built on every kernel
/// call, so it must be cheap), sequences with their length first.
class KeyBuilder {
 public:
  /// For objects that do not depend on the thread count.
  explicit KeyBuilder(const char* kind) {
    key_.reserve(kReserve);
    Add(std::string(kind));
  }
  KeyBuilder(const char* kind, const framework::ExecutionContext& ctx)
      : KeyBuilder(kind) {
    Add(static_cast<int64_t>(
        ctx.device_context<platform::CPUDeviceContext>().num_threads()));
  }
  KeyBuilder& Add(int64_t v) { return Bytes(&v, sizeof(v)); }
  KeyBuilder& Add(int v) { return Add(static_cast<int64_t>(v)); }
  KeyBuilder& Add(bool v) { return Add(static_cast<int64_t>(v)); }
  /// Literals would bind to Add(bool): name them as std::string.
  KeyBuilder& Add(const char*) = delete;
  /// Floats by their bits, so nearby values never share a primitive.
  KeyBuilder& Add(float v) { return Bytes(&v, sizeof(v)); }
  KeyBuilder& Add(const std::vector<int64_t>& dims) {
    return Sequence(dims.data(), dims.size());
  }
  KeyBuilder& Add(const std::string& s) {
    Add(static_cast<int64_t>(s.size()));
    return Bytes(s.data(), s.size());
  }
  KeyBuilder& Add(const operators::FusedActivation& act) {
    return Add(act.type).Add(act.alpha).Add(act.beta);
  }
  /// A memory layout, exactly: dims, padding and blocking.
  KeyBuilder& Add(const dnnl::memory::desc& md) {
    const dnnl_memory_desc_t& d = md.data;
    const int n = d.ndims;
    Add(n)
        .Add(static_cast<int>(d.data_type))
        .Add(static_cast<int>(d.format_kind));
    Sequence(d.dims, n);
    Sequence(d.padded_dims, n);
    Sequence(d.padded_offsets, n);
    Add(static_cast<int64_t>(d.offset0));
    if (d.format_kind == dnnl_blocked) {
      const dnnl_blocking_desc_t& b = d.format_desc.blocking;
      Sequence(b.strides, n);
      Sequence(b.inner_blks, b.inner_nblks);
      Sequence(b.inner_idxs, b.inner_nblks);
    } else {
      // Opaque formats (Winograd's weights, whose tiling depends on the
      // batch): every parameter (oneDNN zero-fills descriptors).
      Bytes(&d.format_desc, sizeof(d.format_desc));
    }
    return Add(static_cast<int64_t>(d.extra.flags));
  }
  const std::string& str() const { return key_; }

 private:
  static constexpr size_t kReserve = 256;

  KeyBuilder& Bytes(const void* data, size_t size) {
    key_.append(static_cast<const char*>(data), size);
    return *this;
  }
  template <typename T>
  KeyBuilder& Sequence(const T* values, size_t count) {
    Add(static_cast<int64_t>(count));
    for (size_t i = 0; i < count; ++i) Add(static_cast<int64_t>(values[i]));
    return *this;
  }

  std::string key_;
};

using Dims = dnnl::memory::dims;

inline MkldnnContext::MkldnnContext(platform::CacheBudget* budget)
    : own_budget_(budget ? nullptr
                         : std::make_shared<platform::CacheBudget>(
                               platform::CacheBudget::kDefaultBytes)),
      budget_(budget ? budget : own_budget_.get()),
      engine_(dnnl::engine::kind::cpu, 0),
      stream_(engine_),
      primitives_("mkldnn.primitives", budget_),
      weights_("mkldnn.weights", budget_) {
  // oneDNN keeps its own process-wide cache of primitives (1024 by
  // default), which would hold every shape's JIT code past our budget's
  // evictions. Ours is the cache; theirs is turned off unless the user
  // sized it (DNNL_PRIMITIVE_CACHE_CAPACITY) or a predictor hands new
  // shapes' primitives over through it (framework/make_only.h).
  static const bool kOnce = [] {
    if (std::getenv("DNNL_PRIMITIVE_CACHE_CAPACITY") == nullptr &&
        !framework::PrimitiveHandover()) {
      dnnl::set_primitive_cache_capacity(0);
    }
    return true;
  }();
  (void)kOnce;
  for (auto& id : scratch_ids_) {
    id = budget_->Add("mkldnn.scratch", 0, nullptr);
  }
}

inline MkldnnContext::~MkldnnContext() {
  for (auto id : scratch_ids_) budget_->Remove(id);
}

inline dnnl::reorder MkldnnContext::Reorder(const dnnl::memory::desc& from,
                                            const dnnl::memory::desc& to) {
  KeyBuilder key("reorder");
  key.Add(from).Add(to);
  auto made = Primitive<dnnl::reorder>(key.str(), [&] {
    return std::make_shared<dnnl::reorder>(
        dnnl::reorder::primitive_desc(engine_, from, engine_, to));
  });
  PADDLE_ENFORCE_NOT_NULL(
      made, errors::Unimplemented("oneDNN cannot reorder between these "
                                  "layouts of a ",
                                  from.dims().size(), "-D tensor."));
  return *made;
}

/// The float32 descriptors of dense activations made last on this thread,
/// by dims and order. A new input shape asks most ops for descriptors of
/// their input and output dims, mostly the same few, and making one
/// (dnnl_memory_desc_init_by_strides) costs ten times copying it.
class RecentActivationMds {
 public:
  /// The descriptor of `dims` row-major (`channel_last` false) or
  /// channel-last, made on a miss.
  static const dnnl::memory::desc& Get(const Dims& dims, bool channel_last) {
    thread_local RecentActivationMds recent;
    return recent.Find(dims, channel_last);
  }

 private:
  static constexpr int kEntries = 16;
  struct Entry {
    Dims dims;
    bool channel_last = false;
    dnnl::memory::desc md;
  };

  const dnnl::memory::desc& Find(const Dims& dims, bool channel_last) {
    // The newest first: an op asks again for what it or the op before it
    // just made.
    for (int k = 1; k <= kEntries; ++k) {
      const Entry& e = entries_[(next_ + kEntries - k) % kEntries];
      if (e.channel_last == channel_last && SameDims(e.dims, dims)) {
        return e.md;
      }
    }
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e.md = Make(dims, channel_last);
    e.dims = dims;
    e.channel_last = channel_last;
    return e.md;
  }
  static bool SameDims(const Dims& a, const Dims& b) {
    if (a.size() != b.size() || a.empty()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }

  static dnnl::memory::desc Make(const Dims& dims, bool channel_last) {
    const int rank = static_cast<int>(dims.size());
    Dims strides(rank, 1);
    if (!channel_last || rank < 3) {
      for (int i = rank - 2; i >= 0; --i) {
        strides[i] = strides[i + 1] * dims[i + 1];
      }
    } else {
      int64_t step = dims[1];
      for (int i = rank - 1; i >= 2; --i) {
        strides[i] = step;
        step *= dims[i];
      }
      strides[0] = step;
    }
    return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
  }
  Entry entries_[kEntries];
  int next_ = 0;
};

/// A dense row-major float32 descriptor of `dims`.
inline dnnl::memory::desc PlainMd(const Dims& dims) {
  return RecentActivationMds::Get(dims, /*channel_last=*/false);
}

/// A float32 descriptor of an activation with logical dims [N, C, spatial
/// ...]: stored that way, or channel-last ([N, spatial..., C]).
inline dnnl::memory::desc ActivationMd(const Dims& ncx, bool channel_last) {
  return RecentActivationMds::Get(ncx, channel_last);
}

/// [N, C, spatial...] from the dims of a channel-last tensor.
inline Dims ChannelFirstDims(const std::vector<int64_t>& dims,
                             bool channel_last) {
  Dims ncx(dims.begin(), dims.end());
  if (channel_last && ncx.size() > 2) {
    ncx.insert(ncx.begin() + 1, ncx.back());
    ncx.pop_back();
  }
  return ncx;
}

/// Appends the activation of a fused op (attributes fuse_activation,
/// fuse_alpha, fuse_beta; formulas in operators/fused_activation.h) to
/// `ops`. Returns false when oneDNN cannot compute it as the PLAIN kernel
/// does: relu6 with a negative threshold (oneDNN's bounded_relu returns 0
/// below 0, Paddle the threshold). With `ops` null it only answers that:
/// kernels whose own loops take most shapes make post-ops only for a
/// primitive (each is an allocation in oneDNN).
inline bool AppendFusedActivation(const operators::FusedActivation& act,
                                  dnnl::post_ops* ops) {
  using dnnl::algorithm;
  const std::string& type = act.type;
  const float alpha = act.alpha;
  const float beta = act.beta;
  auto append = [ops](algorithm kind, float a, float b) {
    if (ops != nullptr) ops->append_eltwise(1.f, kind, a, b);
  };
  if (type.empty()) return true;
  if (type == "relu") {
    append(algorithm::eltwise_relu, 0.f, 0.f);
  } else if (type == "relu6") {
    if (beta < 0.f) return false;
    append(algorithm::eltwise_bounded_relu, beta, 0.f);
  } else if (type == "leaky_relu") {
    // x > 0 ? x : alpha * x; at 0 both sides give 0, as Paddle's x >= 0.
    append(algorithm::eltwise_relu, alpha, 0.f);
  } else if (type == "hard_swish") {
    append(algorithm::eltwise_hardswish, 0.f, 0.f);
  } else if (type == "sigmoid") {
    append(algorithm::eltwise_logistic, 0.f, 0.f);
  } else if (type == "swish") {
    append(algorithm::eltwise_swish, alpha, 0.f);
  } else if (type == "hard_sigmoid") {
    // clip(slope * x + offset, 0, 1).
    append(algorithm::eltwise_linear, alpha, beta);
    append(algorithm::eltwise_clip_v2, 0.f, 1.f);
  } else {
    return false;
  }
  return true;
}

/// Attributes with the scratchpad left to the caller: oneDNN's own mode
/// allocates and frees it on every call, a cost that dominates small
/// convolutions. ExecuteWithScratchpad supplies it from the context.
inline dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

/// Runs `prim` with `args` on `stream`, unless this thread only makes
/// primitives (framework::MakingOnly(): a run ahead of a new shape's real
/// one, whose outputs nobody reads).
inline void RunPrimitive(const dnnl::primitive& prim,
                         const dnnl::stream& stream,
                         const std::unordered_map<int, dnnl::memory>& args) {
  if (framework::MakingOnly()) return;
  prim.execute(stream, args);
}

/// Runs reorder `prim` from `from` to `to` on `stream`, as RunPrimitive.
inline void RunReorder(const dnnl::reorder& prim,
                       const dnnl::stream& stream,
                       dnnl::memory from,
                       dnnl::memory to) {
  if (framework::MakingOnly()) return;
  prim.execute(stream, from, to);
}

/// A oneDNN view of one of our buffers (no copy).
inline dnnl::memory UserMemory(const dnnl::memory::desc& md,
                               const dnnl::engine& engine,
                               const void* data) {
  return dnnl::memory(md, engine, const_cast<void*>(data));
}

/// Runs `prim` (made with UserScratchpadAttr) with `args` plus the
/// context's scratchpad, and waits for it.
template <typename PrimitiveDesc, typename Primitive>
void ExecuteWithScratchpad(MkldnnContext* mk,
                           const PrimitiveDesc& pd,
                           const Primitive& prim,
                           std::unordered_map<int, dnnl::memory>* args) {
  if (framework::MakingOnly()) return;
  const dnnl::memory::desc scratchpad = pd.scratchpad_desc();
  if (scratchpad.get_size() > 0) {
    (*args)[DNNL_ARG_SCRATCHPAD] =
        mk->Scratch(MkldnnContext::kScratchpadSlot, scratchpad);
  }
  prim.execute(mk->stream(), *args);
  mk->stream().wait();
}

/// A primitive call a kernel keeps between runs (in its op's
/// kernel_state, see KeptState): its memory objects are made once and
/// re-pointed when a buffer moved (plan replay keeps buffers in place, so
/// usually none did). Making them on every call costs about as much as a
/// small primitive's own work.
class KeptCall {
 public:
  KeptCall() = default;
  /// `args` as the call was made (without the scratchpad); `pd` tells
  /// whether the primitive wants one (it comes from the context's slot).
  template <typename PrimitiveDesc>
  KeptCall(const PrimitiveDesc& pd,
           dnnl::primitive prim,
           std::unordered_map<int, dnnl::memory> args)
      : prim_(std::move(prim)), args_(std::move(args)) {
    const dnnl::memory::desc scratchpad = pd.scratchpad_desc();
    scratchpad_bytes_ = scratchpad.get_size();
    if (scratchpad_bytes_ > 0) {
      args_[DNNL_ARG_SCRATCHPAD] =
          dnnl::memory(scratchpad, pd.get_engine(), DNNL_MEMORY_NONE);
    }
  }

  explicit operator bool() const { return static_cast<bool>(prim_); }

  /// Runs the primitive, argument `arg` of each (arg, buffer) pair of
  /// `buffers` at `buffer` (every argument whose buffer may move), and
  /// waits for it.
  void Execute(MkldnnContext* mk,
               std::initializer_list<std::pair<int, const void*>> buffers) {
    if (framework::MakingOnly()) return;
    for (const auto& b : buffers) Point(b.first, b.second);
    if (scratchpad_bytes_ > 0) {
      Point(
          DNNL_ARG_SCRATCHPAD,
          mk->ScratchBuffer(MkldnnContext::kScratchpadSlot, scratchpad_bytes_));
    }
    prim_.execute(mk->stream(), args_);
    mk->stream().wait();
  }

 private:
  void Point(int arg, const void* buffer) {
    dnnl::memory& m = args_.at(arg);
    if (m.get_data_handle() != buffer) {
      m.set_data_handle(const_cast<void*>(buffer));
    }
  }

  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  size_t scratchpad_bytes_ = 0;
};

/// What a kept call was made for: the thread count and every input's
/// dims and layout. Layouts are compared by address: the signature holds
/// them, so while it is kept no other layout can take that address.
class InputSignature {
 public:
  InputSignature() = default;
  InputSignature(const framework::ExecutionContext& ctx,
                 std::initializer_list<const framework::Tensor*> inputs)
      : threads_(ThreadsOf(ctx)) {
    for (const framework::Tensor* t : inputs) {
      if (t == nullptr) {
        inputs_.push_back(Input{false, {}, nullptr});
      } else {
        inputs_.push_back(Input{true, t->dims(), t->shared_opaque_layout()});
      }
    }
  }

  bool Matches(const framework::ExecutionContext& ctx,
               std::initializer_list<const framework::Tensor*> inputs) const {
    if (threads_ != ThreadsOf(ctx) || inputs.size() != inputs_.size()) {
      return false;
    }
    auto kept = inputs_.begin();
    for (const framework::Tensor* t : inputs) {
      if ((t != nullptr) != kept->present) return false;
      if (t != nullptr && (t->dims() != kept->dims ||
                           t->opaque_layout() != kept->layout.get())) {
        return false;
      }
      ++kept;
    }
    return true;
  }

 private:
  struct Input {
    bool present;
    framework::DDim dims;
    std::shared_ptr<const framework::OpaqueLayout> layout;
  };
  static int ThreadsOf(const framework::ExecutionContext& ctx) {
    return ctx.device_context<platform::CPUDeviceContext>().num_threads();
  }

  int threads_ = 0;
  std::vector<Input> inputs_;
};

/// The state kept in the running op's kernel_state, of type S (an op has
/// one kernel, so its slot holds one type); nullptr when there is none yet
/// or the op runs without a slot.
template <typename S>
S* KeptState(const framework::ExecutionContext& ctx) {
  std::shared_ptr<void>* slot = ctx.kernel_state();
  return slot != nullptr ? static_cast<S*>(slot->get()) : nullptr;
}

/// Stores `state` in the running op's kernel_state (if it has one).
template <typename S>
void KeepState(const framework::ExecutionContext& ctx,
               std::shared_ptr<S> state) {
  if (std::shared_ptr<void>* slot = ctx.kernel_state()) {
    *slot = std::move(state);
  }
}

/// What a kernel with one input X and one output Out (activations,
/// pooling, interpolation) keeps between runs: the call it made for the
/// input it last saw, when it read that input as it came.
struct KeptUnaryState {
  InputSignature signature;
  framework::DDim out_dims;  // Out's dims then (they may come from tensors)
  std::shared_ptr<const MkldnnLayout> out_layout;
  KeptCall call;
};

/// The op's kept state, of type S (KeptUnaryState or one derived from
/// it), if X and Out are as it was kept for; nullptr otherwise.
template <typename S = KeptUnaryState>
S* MatchingKeptUnary(const framework::ExecutionContext& ctx) {
  auto* state = KeptState<S>(ctx);
  if (state == nullptr ||
      !state->signature.Matches(ctx, {ctx.Input<framework::Tensor>("X")}) ||
      state->out_dims != ctx.Output<framework::Tensor>("Out")->dims()) {
    return nullptr;
  }
  return state;
}

/// Runs the call `state` kept (MatchingKeptUnary found it).
template <typename T>
void ExecuteKeptUnary(const framework::ExecutionContext& ctx,
                      KeptUnaryState* state) {
  MkldnnContext& mk = PrepareMkldnn(ctx);
  // Read before Out (maybe X) is touched.
  const void* src = ctx.Input<framework::Tensor>("X")->raw_data();
  auto* out = ctx.Output<framework::Tensor>("Out");
  out->set_opaque_layout(state->out_layout);
  T* dst = out->mutable_data<T>(ctx.GetPlace());
  state->call.Execute(&mk, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
}

/// Runs the op's kept call if X and Out are as it was made for; false
/// when there is none or they are not (the kernel then runs in full).
template <typename T>
bool RunKeptUnary(const framework::ExecutionContext& ctx) {
  auto* state = MatchingKeptUnary(ctx);
  if (state == nullptr) return false;
  ExecuteKeptUnary<T>(ctx, state);
  return true;
}

/// Keeps the call just made by a one-input, one-output kernel (see
/// KeptUnaryState) in a state of type S; `signature` was taken before the
/// call.
template <typename S = KeptUnaryState, typename PrimitiveDesc>
void KeepUnary(const framework::ExecutionContext& ctx,
               const InputSignature& signature,
               std::shared_ptr<const MkldnnLayout> out_layout,
               const PrimitiveDesc& pd,
               dnnl::primitive prim,
               std::unordered_map<int, dnnl::memory> args) {
  auto state = std::make_shared<S>();
  state->signature = signature;
  state->out_dims = ctx.Output<framework::Tensor>("Out")->dims();
  state->out_layout = std::move(out_layout);
  state->call = KeptCall(pd, std::move(prim), std::move(args));
  KeepState(ctx, std::move(state));
}

/// Whether `md` stores its [N, C, spatial...] dims dense with no blocking,
/// channel-last (then `*channel_last` is set) or channel-first.
inline bool IsDenseActivation(const dnnl::memory::desc& md,
                              bool* channel_last) {
  const Dims dims = md.dims();
  if (dims.size() < 3) return false;
  for (bool last : {true, false}) {
    if (md == ActivationMd(dims, last)) {
      *channel_last = last;
      return true;
    }
  }
  return false;
}

/// A descriptor of `dims` in the same layout as `like` (same format tag,
/// e.g. a [1, C, 1, 1] per-channel operand for an nChw16c tensor, as
/// oneDNN's fast binary kernels want their broadcast operand); an empty
/// descriptor when `like` is none of the layouts tried.
inline dnnl::memory::desc SameLayoutFor(const dnnl::memory::desc& like,
                                        const Dims& dims) {
  using tag = dnnl::memory::format_tag;
  const Dims like_dims = like.dims();
  if (like_dims.size() != 4 || dims.size() != 4) return dnnl::memory::desc();
  for (tag t : {tag::aBcd16b, tag::aBcd8b, tag::acdb, tag::abcd}) {
    if (dnnl::memory::desc(like_dims, like.data_type(), t) == like) {
      return dnnl::memory::desc(dims, like.data_type(), t);
    }
  }
  return dnnl::memory::desc();
}

/// The MKLDNN layout of `t`, or nullptr when it is plain.
inline const MkldnnLayout* MkldnnLayoutOf(const framework::Tensor& t) {
  return dynamic_cast<const MkldnnLayout*>(t.opaque_layout());
}

/// The MKLDNN layout for a primitive's output of descriptor `md` whose
/// plain form is `plain`; nullptr when `md` is plain already. Made with the
/// primitive and shared by every tensor it writes.
inline std::shared_ptr<const MkldnnLayout> MakeLayout(
    const dnnl::memory::desc& md,
    const dnnl::memory::desc& plain,
    const dnnl::engine& engine) {
  if (md == plain) return nullptr;
  return std::make_shared<const MkldnnLayout>(md, plain, engine);
}

inline std::shared_ptr<const MkldnnLayout> MkldnnContext::ChannelLastLayout(
    const Dims& dims) {
  std::weak_ptr<const MkldnnLayout>& slot = channel_last_layouts_[dims];
  if (auto held = slot.lock()) return held;
  const dnnl::memory::desc stored = ActivationMd(dims, true);
  const dnnl::memory::desc plain = ActivationMd(dims, false);
  // Null where both orders are the same bytes, as MakeLayout gives. Not
  // make_shared: the map's weak reference would keep the object's memory.
  if (stored == plain) return nullptr;
  std::shared_ptr<const MkldnnLayout> made(
      new MkldnnLayout(stored, plain, engine_));
  slot = made;
  if (channel_last_layouts_.size() >= 2 * layouts_after_sweep_ + 64) {
    for (auto it = channel_last_layouts_.begin();
         it != channel_last_layouts_.end();) {
      it = it->second.expired() ? channel_last_layouts_.erase(it) : ++it;
    }
    layouts_after_sweep_ = channel_last_layouts_.size();
  }
  return made;
}

/// Rewrites the tensors of input `slot` in their plain layout, in place,
/// for code that reads them as plain arrays. Like the executor, a kernel
/// may do this to its inputs: later readers see the same values.
inline void MakeInputPlain(const framework::ExecutionContext& ctx,
                           const std::string& slot) {
  for (framework::Variable* var : ctx.InputVars(slot)) {
    if (var == nullptr || !var->IsType<framework::Tensor>()) continue;
    framework::Tensor* t = var->GetMutable<framework::Tensor>();
    if (t->opaque_layout() == nullptr) continue;
    auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    framework::ConvertToPlainLayout(
        t, dev.GetResource<MkldnnContext>(dev.cache_budget()).PlainScratch(*t));
  }
}

/// MakeInputPlain for every input slot of the op.
inline void MakeInputsPlain(const framework::ExecutionContext& ctx) {
  for (auto& kv : ctx.op().Inputs()) MakeInputPlain(ctx, kv.first);
}

/// The MKLDNN layout of input `slot`'s tensor, or nullptr (after making it
/// plain if another library's).
inline std::shared_ptr<const MkldnnLayout> InputLayout(
    const framework::ExecutionContext& ctx, const std::string& slot) {
  const framework::Tensor* t = ctx.Input<framework::Tensor>(slot);
  if (t == nullptr || t->opaque_layout() == nullptr) return nullptr;
  auto layout =
      std::dynamic_pointer_cast<const MkldnnLayout>(t->shared_opaque_layout());
  if (layout == nullptr) MakeInputPlain(ctx, slot);
  return layout;
}

/// The MKLDNN layout of `t` when it stores the tensor whose plain layout is
/// `plain`; nullptr when `t` is plain or its layout was made for another
/// view of the dims (NCHW read as NHWC, say).
inline std::shared_ptr<const MkldnnLayout> LayoutFor(
    const framework::Tensor& t, const dnnl::memory::desc& plain) {
  auto layout =
      std::dynamic_pointer_cast<const MkldnnLayout>(t.shared_opaque_layout());
  if (layout == nullptr || layout->plain() != plain) return nullptr;
  return layout;
}

/// True when 4-D `t` is stored channel-last: in that MKLDNN layout, or
/// plain where that is the same bytes (one channel or one pixel). False
/// for a layout made for another view of its dims.
inline bool StoredChannelLast(const framework::Tensor& t) {
  const Dims dims(t.dims().begin(), t.dims().end());
  const auto layout = LayoutFor(t, PlainMd(dims));
  if (layout == nullptr && MkldnnLayoutOf(t) != nullptr) return false;
  return (layout ? layout->md() : PlainMd(dims)) == ActivationMd(dims, true);
}

/// The descriptor of the buffer of input `slot` (its first tensor), which
/// the kernel reads as `plain` when it is plain: its layout if LayoutFor
/// accepts it, else `plain` (any other layout is converted first).
inline dnnl::memory::desc StoredMd(const framework::ExecutionContext& ctx,
                                   const std::string& slot,
                                   const dnnl::memory::desc& plain) {
  const framework::Tensor* t = ctx.Input<framework::Tensor>(slot);
  if (t != nullptr) {
    if (auto layout = LayoutFor(*t, plain)) return layout->md();
  }
  MakeInputPlain(ctx, slot);
  return plain;
}

/// Input tensor `t`, stored as `stored` (from StoredMd), as memory of
/// layout `wanted`: its own buffer when the layouts agree, else a copy
/// reordered into scratch slot `slot`.
inline dnnl::memory InputMemory(MkldnnContext* mk,
                                int slot,
                                const framework::Tensor& t,
                                const dnnl::memory::desc& stored,
                                const dnnl::memory::desc& wanted) {
  dnnl::memory mine = UserMemory(stored, mk->engine(), t.raw_data());
  if (stored == wanted) return mine;
  dnnl::memory theirs = mk->Scratch(slot, wanted);
  RunReorder(mk->Reorder(stored, wanted), mk->stream(), mine, theirs);
  return theirs;
}

/// Output tensor `out` made ready to receive a primitive's result of
/// descriptor `md`, whose MKLDNN layout is `layout` (nullptr: `md` is
/// plain): the layout is declared, the buffer sized by it.
template <typename T>
dnnl::memory OutputMemory(const framework::ExecutionContext& ctx,
                          MkldnnContext* mk,
                          framework::Tensor* out,
                          std::shared_ptr<const MkldnnLayout> layout,
                          const dnnl::memory::desc& md) {
  out->set_opaque_layout(std::move(layout));
  return UserMemory(md, mk->engine(), out->mutable_data<T>(ctx.GetPlace()));
}

/// True for oneDNN's reference and generic fallbacks ("ref:any",
/// "simple_nchw:any", ...): slower than our PLAIN kernels, so a kernel
/// whose primitive gets one runs PLAIN instead.
inline bool IsSlowImplementation(const dnnl::primitive_desc_base& pd) {
  const std::string name = pd.impl_info_str();
  return name.rfind("ref", 0) == 0 || name.find("_ref") != std::string::npos ||
         name.rfind("simple", 0) == 0;
}

/// Runs the op's PLAIN kernel of element type T with the same context: the
/// MKLDNN kernel's answer for cases oneDNN cannot compute exactly as Paddle
/// does (a kernel is chosen before the shapes are known, so it cannot
/// decline then).
template <typename T>
void RunPlainKernel(const framework::ExecutionContext& ctx) {
  if (framework::MakingOnly()) {
    // A run that only makes primitives has none to make here (see
    // framework/make_only.h): its outputs get their inferred dims' memory,
    // unwritten, and the ops after it go on.
    for (const auto& slot : ctx.op().Outputs()) {
      const auto vars = ctx.OutputVars(slot.first);
      for (size_t i = 0; i < vars.size(); ++i) {
        framework::GiveUnwrittenMemoryToOutput(
            ctx.scope(), i < slot.second.size() ? slot.second[i] : "", vars[i],
            ctx.GetPlace(), framework::ToDataType<T>());
      }
    }
    return;
  }
  MakeInputsPlain(ctx);
  framework::OpKernelType key;
  key.data_type = framework::ToDataType<T>();
  key.place = platform::CPUPlace{};
  key.library = framework::LibraryType::Plain();
  const framework::KernelEntry* entry =
      framework::KernelRegistry::Instance().Find(ctx.op().Type(), key);
  PADDLE_ENFORCE_NOT_NULL(
      entry, errors::NotFound(ctx.op().Type(),
                              ": the MKLDNN kernel hands this case to the "
                              "PLAIN kernel, but none is registered for ",
                              key.ToString()));
  // Without the op's kernel_state: it holds this kernel's state, of
  // another type than what the PLAIN kernel would keep there.
  framework::ExecutionContext plain(ctx);
  plain.set_kernel_state(nullptr);
  entry->fn(plain);
}

/// True when the tensor of input `slot` is a model parameter: it lives in
/// the predictor's root (weights) scope while the op runs in a child scope.
/// Those are constant for the predictor's life, so data derived from them
/// (reordered weights) can be cached by their address.
inline bool IsModelWeight(const framework::ExecutionContext& ctx,
                          const std::string& slot) {
  return ctx.scope().IsRootVariable(ctx.op().Input(slot), ctx.InputVar(slot));
}

/// The model weight `filter` (float) packed for our own loops by
/// `pack(filter's floats, packed)` into `floats` floats, kept with the
/// model's weights under `key` plus the filter's address: every kernel
/// that packs a filter alike (a conv2d and a fused op reading the same
/// weight) shares one copy.
template <typename Pack>
std::shared_ptr<dnnl::memory> PackedModelFilter(MkldnnContext* mk,
                                                const framework::Tensor& filter,
                                                KeyBuilder key,
                                                int64_t floats,
                                                const Pack& pack) {
  key.Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(filter.raw_data())));
  return mk->Weights(key.str(), [&] {
    auto m = std::make_shared<dnnl::memory>(PlainMd({floats}), mk->engine());
    pack(filter.data<float>(), static_cast<float*>(m->get_data_handle()));
    return m;
  });
}

/// The model weight `filter` ([out_channels, in_channels, 1, 1]) packed
/// for our 1x1 loops (pointwise_conv_util.h) under the one key every
/// kernel running them uses (conv2d's, fused_inverted_residual's,
/// fused_conv2d_upsample_add's), so that they share one copy.
inline std::shared_ptr<dnnl::memory> PackedPointwiseModelFilter(
    MkldnnContext* mk,
    const framework::Tensor& filter,
    int64_t in_channels,
    int64_t out_channels) {
  return PackedModelFilter(
      mk, filter,
      KeyBuilder("pointwise_filter").Add(in_channels).Add(out_channels),
      PackedPointwiseFilterSize(in_channels, out_channels),
      [&](const float* from, float* packed) {
        PackPointwiseFilter(from, in_channels, out_channels, packed);
      });
}

/// The weights of input `slot` (stored as `user_md`) in the layout
/// `wanted` that a primitive chose: the tensor itself when the layouts
/// agree, else a reordered copy. For model parameters the copy is made once
/// and cached by the tensor's address and the layout, so primitives of
/// other input shapes that want the same layout share it; for other
/// tensors it is made on every call. nullptr when oneDNN cannot reorder.
inline std::shared_ptr<dnnl::memory> PrepareWeights(
    const framework::ExecutionContext& ctx,
    MkldnnContext* mk,
    const std::string& slot,
    const dnnl::memory::desc& user_md,
    const dnnl::memory::desc& wanted) {
  MakeInputPlain(ctx, slot);  // a computed filter may come in a layout
  const framework::Tensor* t = ctx.Input<framework::Tensor>(slot);
  auto user = std::make_shared<dnnl::memory>(
      UserMemory(user_md, mk->engine(), t->raw_data()));
  if (wanted == user_md) return user;
  auto reorder = [&]() -> std::shared_ptr<dnnl::memory> {
    // The reorder itself is cached: filters computed at run time come
    // through here on every call.
    KeyBuilder reorder_key("reorder");
    reorder_key.Add(user_md).Add(wanted);
    auto prim = mk->Primitive<dnnl::reorder>(reorder_key.str(), [&] {
      return std::make_shared<dnnl::reorder>(dnnl::reorder::primitive_desc(
          mk->engine(), user_md, mk->engine(), wanted));
    });
    if (prim == nullptr) return nullptr;
    auto reordered = std::make_shared<dnnl::memory>(wanted, mk->engine());
    // Not in a run that only makes primitives: its cache is its own and
    // nothing it runs reads the weights.
    RunReorder(*prim, mk->stream(), *user, *reordered);
    mk->stream().wait();
    return reordered;
  };
  if (!IsModelWeight(ctx, slot)) {
    try {
      return reorder();
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }
  KeyBuilder key("weights", ctx);
  key.Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t->raw_data())))
      .Add(user_md)
      .Add(wanted);
  return mk->Weights(key.str(), reorder);
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
