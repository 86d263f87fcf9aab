#include "framework/program_validator.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "framework/op_registry.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {
namespace {

// The values of a numeric attribute (or list) as kernels read them as
// integers (AttrCast: floats truncated, booleans 0 or 1); nullopt for
// other types. A FLOAT 0.0 groups is 0 to a kernel, as an INT 0 is.
std::optional<std::vector<int64_t>> IntValues(const Attribute& attr) {
  switch (TypeOf(attr)) {
    case AttrType::kInt:
    case AttrType::kLong:
    case AttrType::kFloat:
    case AttrType::kFloat64:
    case AttrType::kBoolean:
    case AttrType::kScalar:
      return std::vector<int64_t>{AttrCast<int64_t>(attr)};
    case AttrType::kInts:
    case AttrType::kLongs:
    case AttrType::kFloats:
    case AttrType::kFloat64s:
    case AttrType::kBooleans:
    case AttrType::kScalars:
      return AttrCast<std::vector<int64_t>>(attr);
    default:
      return std::nullopt;
  }
}

std::string ListText(const std::vector<int64_t>& values) {
  std::ostringstream os;
  if (values.size() == 1) {
    os << values[0];
    return os.str();
  }
  os << "[";
  for (size_t i = 0; i < values.size(); ++i) os << (i ? ", " : "") << values[i];
  os << "]";
  return os.str();
}

// Ops whose strides, dilations, groups, ksize and paddings mean windows.
bool IsWindowOp(const std::string& type) {
  static const std::set<std::string> kTypes = {
      "conv2d",           "depthwise_conv2d",           "fused_conv2d",
      "conv2d_transpose", "depthwise_conv2d_transpose", "pool2d"};
  return kTypes.count(type) > 0;
}

// Attributes that name dims of the op's input.
bool IsAxisAttr(const std::string& name) {
  static const std::set<std::string> kNames = {"axis",
                                               "axes",
                                               "start_axis",
                                               "stop_axis",
                                               "begin_norm_axis",
                                               "x_num_col_dims",
                                               "y_num_col_dims",
                                               "in_num_col_dims",
                                               "decrease_axis"};
  return kNames.count(name) > 0;
}

class OpChecker {
 public:
  OpChecker(const ProgramDesc& program, int block_idx, const OpDesc& desc)
      : program_(program), block_idx_(block_idx), desc_(desc) {}

  void Check() {
    for (auto& [name, attr] : desc_.attrs) CheckSubBlocks(name, attr);
    const OpInfo* info = OpInfoMap::Instance().Find(desc_.type);
    if (info == nullptr) return;  // the executor names it when it prepares
    // The op's own definition: slots, attribute types and its checks.
    op_ = CreateOp(desc_);
    for (auto& [name, attr] : op_->Attrs()) {
      auto values = IntValues(attr);
      if (!values) continue;
      if (IsWindowOp(desc_.type)) CheckWindowAttr(name, *values);
      if (IsAxisAttr(name)) CheckAxes(name, *values);
    }
    if (IsWindowOp(desc_.type)) CheckWindow();
  }

 private:
  [[noreturn]] void Fail(const std::string& attr,
                         const std::vector<int64_t>& values,
                         const std::string& expected) const {
    PADDLE_THROW(errors::InvalidArgument("attribute '", attr, "' is ",
                                         ListText(values), ": ", expected));
  }

  void CheckSubBlocks(const std::string& name, const Attribute& attr) const {
    std::vector<int32_t> refs;
    if (auto* b = std::get_if<BlockRef>(&attr)) refs.push_back(b->idx);
    if (auto* bs = std::get_if<std::vector<BlockRef>>(&attr)) {
      for (auto& b : *bs) refs.push_back(b.idx);
    }
    for (int32_t idx : refs) {
      if (idx <= 0 || idx >= static_cast<int>(program_.blocks.size())) {
        PADDLE_THROW(
            errors::InvalidArgument("attribute '", name, "' names block ", idx,
                                    ", but the program's sub-blocks are 1 to ",
                                    program_.blocks.size() - 1, "."));
      }
      // Paddle writes a sub-block after the block of the op that runs it
      // (its parent_idx is not to be trusted: some of Paddle's own passes
      // set every block's to 0). Requiring it orders the calls: an op that
      // ran its own block, or an earlier one, could recurse without end.
      if (idx <= block_idx_) {
        PADDLE_THROW(errors::InvalidArgument(
            "attribute '", name, "' names block ", idx,
            "; an op's sub-block comes after the op's own block, ", block_idx_,
            "."));
      }
    }
  }

  void CheckWindowAttr(const std::string& name,
                       const std::vector<int64_t>& values) const {
    const bool at_least_one = name == "strides" || name == "dilations" ||
                              name == "groups" || name == "ksize";
    // Global pooling ignores its window (1.x files store ksize -1).
    if (name == "ksize" && op_->Attr<bool>("global_pooling")) return;
    for (int64_t v : values) {
      // Kernels read them as int: 2^32 would be 0 to them.
      if (v > std::numeric_limits<int32_t>::max() ||
          v < std::numeric_limits<int32_t>::min()) {
        Fail(name, values, "each must fit a 32-bit int.");
      }
      if (at_least_one && v < 1) Fail(name, values, "each must be >= 1.");
      if (name == "paddings" && v < 0) {
        Fail(name, values, "paddings must be >= 0.");
      }
    }
  }

  // Declared dims of the first variable of an input slot; nullptr if
  // unknown.
  const DDim* DeclaredInput(const std::string& slot) const {
    const auto* args = FindSlot(desc_.inputs, slot);
    if (args == nullptr || args->empty()) return nullptr;
    const VarDesc* var = program_.FindVarRecursive(block_idx_, (*args)[0]);
    if (var == nullptr || var->dims.empty()) return nullptr;
    return &var->dims;
  }

  void CheckAxes(const std::string& name,
                 const std::vector<int64_t>& values) const {
    const DDim* dims = DeclaredInput("X");
    if (dims == nullptr) dims = DeclaredInput("Input");
    const int64_t rank = dims ? static_cast<int64_t>(dims->size()) : kMaxRank;
    // Loose on purpose: stack and unsqueeze name dims of their output,
    // which has more. Each op's shape inference checks the exact range.
    const int64_t bound = rank + static_cast<int64_t>(values.size());
    for (int64_t v : values) {
      if (v < -bound || v > bound) {
        std::ostringstream expected;
        expected << "an axis must lie within the rank of the input (" << rank
                 << (dims ? ", declared " + DimsToString(*dims)
                          : std::string(", undeclared: at most ") +
                                std::to_string(kMaxRank))
                 << ").";
        Fail(name, values, expected.str());
      }
    }
  }

  // Paddings against the window they pad, groups against the filter.
  void CheckWindow() const {
    const bool pool = desc_.type == "pool2d";
    const std::string algorithm =
        op_->HasAttr("padding_algorithm")
            ? op_->Attr<std::string>("padding_algorithm")
            : "EXPLICIT";
    std::vector<int64_t> window;  // kernel extent per spatial dim
    if (pool) {
      if (op_->Attr<bool>("global_pooling") ||
          (op_->HasAttr("adaptive") && op_->Attr<bool>("adaptive"))) {
        return;
      }
      for (int v : op_->Attr<std::vector<int>>("ksize")) window.push_back(v);
    } else {
      const DDim* filter = DeclaredInput("Filter");
      if (filter == nullptr || filter->size() != 4) return;
      const bool transposed = desc_.type.find("transpose") != std::string::npos;
      const int64_t groups = op_->Attr<int>("groups");
      if (groups < 1) Fail("groups", {groups}, "must be >= 1.");
      const int64_t divided = (*filter)[0];
      if (divided > 0 && divided % groups != 0) {
        Fail("groups", {groups},
             std::string("must divide the filter's ") +
                 (transposed ? "input" : "output") + " channels (Filter " +
                 DimsToString(*filter) + ").");
      }
      auto dilations = op_->Attr<std::vector<int>>("dilations");
      for (size_t d = 0; d < 2; ++d) {
        const int64_t k = (*filter)[2 + d];
        if (k < 0) return;
        const int64_t dilation = d < dilations.size() ? dilations[d] : 1;
        window.push_back(dilation * (k - 1) + 1);
      }
    }
    if (algorithm != "EXPLICIT" || window.size() != 2) return;
    auto paddings = op_->Attr<std::vector<int>>("paddings");
    std::vector<int64_t> values(paddings.begin(), paddings.end());
    for (size_t i = 0; i < values.size(); ++i) {
      // [pad_h, pad_w] or [top, bottom, left, right].
      const int64_t extent = window[values.size() == 4 ? i / 2 : i % 2];
      if (values[i] > extent) {
        Fail("paddings", values,
             "a padding may not exceed the " +
                 std::string(pool ? "pooling window " : "dilated filter ") +
                 ListText({window[0], window[1]}) +
                 " (every output along it would see padding only).");
      }
    }
  }

  const ProgramDesc& program_;
  int block_idx_;
  const OpDesc& desc_;
  std::unique_ptr<OperatorBase> op_;
};

void CheckVar(const VarDesc& var) {
  PADDLE_ENFORCE(static_cast<int>(var.dims.size()) <= kMaxRank,
                 errors::InvalidArgument("declares ", var.dims.size(), " dims ",
                                         DimsToString(var.dims), "; at most ",
                                         kMaxRank, " are supported."));
  int64_t count = 1;
  for (int64_t d : var.dims) {
    PADDLE_ENFORCE(d >= -1, errors::InvalidArgument(
                                "declares dims ", DimsToString(var.dims),
                                ": a dim is >= 0, or -1 when unknown."));
    // Zero dims aside: a kernel may multiply an empty tensor's other dims.
    if (d > 0) {
      PADDLE_ENFORCE(
          !__builtin_mul_overflow(count, d, &count),
          errors::InvalidArgument("declares dims ", DimsToString(var.dims),
                                  ", whose element count overflows 64 bits."));
    }
  }
  PADDLE_ENFORCE(var.lod_level >= 0,
                 errors::InvalidArgument("declares lod_level ", var.lod_level,
                                         "; it must be >= 0."));
}

}  // namespace

void ValidateProgram(const ProgramDesc& program, const std::string& source) {
  const int blocks = static_cast<int>(program.blocks.size());
  // How deep each block runs below block 0, along the ops that run
  // sub-blocks: each level is a nested call (and the executor's walks over
  // sub-blocks recurse once per level), so a chain of thousands of blocks
  // that run the next would overflow the stack. Sub-blocks come after the
  // block of the op that runs them (checked per op), so a block's depth is
  // final before its own ops are read.
  std::vector<int> depth(blocks, 0);
  for (int b = 0; b < blocks; ++b) {
    const BlockDesc& block = program.blocks[b];
    const std::string where = source + ": block " + std::to_string(b);
    PADDLE_ENFORCE(
        b == 0 ? block.parent_idx == -1
               : block.parent_idx >= 0 && block.parent_idx < b,
        errors::InvalidArgument(where, " names parent block ", block.parent_idx,
                                "; a block's parent comes before it (block 0 "
                                "has none, -1)."));
    for (const VarDesc& var : block.vars) {
      try {
        CheckVar(var);
      } catch (const Exception& e) {
        platform::RethrowWithContext(e,
                                     where + ": variable '" + var.name + "' ");
      }
    }
    for (size_t i = 0; i < block.ops.size(); ++i) {
      try {
        OpChecker(program, b, block.ops[i]).Check();
        for (const auto& [name, attr] : block.ops[i].attrs) {
          std::vector<int32_t> runs;
          if (auto* one = std::get_if<BlockRef>(&attr))
            runs.push_back(one->idx);
          if (auto* list = std::get_if<std::vector<BlockRef>>(&attr)) {
            for (const BlockRef& r : *list) runs.push_back(r.idx);
          }
          for (int32_t sub : runs) {
            depth[sub] = std::max(depth[sub], depth[b] + 1);
            PADDLE_ENFORCE(
                depth[sub] <= kMaxBlockDepth,
                errors::InvalidArgument(
                    "attribute '", name, "' runs block ", sub, " ", depth[sub],
                    " levels below the main block; programs nest "
                    "at most ",
                    kMaxBlockDepth, " deep."));
          }
        }
      } catch (const Exception& e) {
        platform::RethrowWithContext(e, source + ": op '" + block.ops[i].type +
                                            "' (#" + std::to_string(i) +
                                            " in block " + std::to_string(b) +
                                            "): ");
      }
    }
  }
  // The feed and fetch ops' `col` index the caller's lists: they must be
  // 0..n-1 (a col of 2^31-1 would size the fetch list by it), and only the
  // main block binds them.
  for (int b = 1; b < blocks; ++b) {
    for (const OpDesc& op : program.blocks[b].ops) {
      PADDLE_ENFORCE(op.type != "feed" && op.type != "fetch",
                     errors::InvalidArgument(
                         source, ": block ", b, " holds a '", op.type,
                         "' op; only the main block (0) feeds and fetches."));
    }
  }
  try {
    program.FeedTargetNames();
    program.FetchTargetNames();
  } catch (const Exception& e) {
    platform::RethrowWithContext(e, source + ": ");
  }
}

std::map<std::string, std::string> WrittenWeights(const ProgramDesc& program) {
  // The weights are block 0's persistable tensors (the parameter files
  // hold them). A name counts as one wherever it is used: a sub-block runs
  // in a scope under the run's, whatever parent its block names, so a
  // declaration elsewhere does not reliably hide the weight.
  std::set<std::string> weights;
  for (const VarDesc& var : program.blocks[0].vars) {
    if (var.persistable && var.is_tensor()) weights.insert(var.name);
  }
  return WrittenVars(program, weights);
}

std::map<std::string, std::string> WrittenVars(
    const ProgramDesc& program,
    const std::set<std::string>& weights,
    const std::string& skipped_op) {
  auto slot_of = [](const OpInfo* info, const std::string& slot) {
    if (info == nullptr) return static_cast<const OpSlotProto*>(nullptr);
    for (const OpSlotProto& s : info->proto.outputs) {
      if (s.name == slot) return &s;
    }
    return static_cast<const OpSlotProto*>(nullptr);
  };
  // A view shares its input's buffer (reshape2's Out shares X's): writing
  // the view in place writes what it views, and so on back to a weight.
  std::map<std::string, std::vector<std::string>> viewed_by;  // view -> X
  // Every write, in program order: the name, and where (made into text
  // only for a write that reaches a weight).
  struct Write {
    const std::string* name;
    size_t block, op;
    const std::string* slot;
  };
  std::vector<Write> writes;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const auto& ops = program.blocks[b].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!skipped_op.empty() && ops[i].type == skipped_op) continue;
      const OpInfo* info = OpInfoMap::Instance().Find(ops[i].type);
      for (const auto& [slot, names] : ops[i].outputs) {
        const OpSlotProto* proto = slot_of(info, slot);
        if (proto != nullptr && proto->never_written) continue;
        const auto* viewed = proto == nullptr || proto->view_of.empty()
                                 ? nullptr
                                 : FindSlot(ops[i].inputs, proto->view_of);
        for (const auto& name : names) {
          if (viewed != nullptr) {
            auto& into = viewed_by[name];
            into.insert(into.end(), viewed->begin(), viewed->end());
          }
          // Making a view writes nothing, unless the view is one of the
          // names asked about.
          if (viewed == nullptr || weights.count(name)) {
            writes.push_back(Write{&name, b, i, &slot});
          }
        }
      }
    }
  }
  // From each written name back along the views, each name walked once:
  // the first write to reach a name asked about is the one named.
  std::map<std::string, std::string> written;
  std::set<std::string> walked;
  for (const Write& write : writes) {
    const std::string& start = *write.name;
    if (!weights.count(start) && !viewed_by.count(start)) continue;
    std::vector<std::string> pending = {start};
    while (!pending.empty()) {
      std::string name = std::move(pending.back());
      pending.pop_back();
      if (!walked.insert(name).second) continue;
      if (weights.count(name) && !written.count(name)) {
        const OpDesc& op = program.blocks[write.block].ops[write.op];
        std::string where = "block " + std::to_string(write.block) + ", op #" +
                            std::to_string(write.op) + " (" + op.type +
                            "), output " + *write.slot;
        if (name != start) where += " '" + start + "', a view of it";
        written.emplace(name, std::move(where));
      }
      auto viewed = viewed_by.find(name);
      if (viewed == viewed_by.end()) continue;
      pending.insert(pending.end(), viewed->second.begin(),
                     viewed->second.end());
    }
  }
  return written;
}

}  // namespace framework
}  // namespace paddle_lite
