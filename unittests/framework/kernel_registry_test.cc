#include <algorithm>
#include <atomic>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "framework/kernel_chooser.h"
#include "framework/op_registry.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using testing::ExpectError;

// A kernel that records it ran, for lookup and fallback tests.
template <typename T>
class MarkerKernel : public OpKernel<T> {
 public:
  void Compute(const ExecutionContext&) const override {}
};

OpKernelType Key(DataType t, platform::Place p, LibraryType lib) {
  OpKernelType k;
  k.data_type = t;
  k.place = p;
  k.library = lib;
  return k;
}

TEST(LibraryType, BuiltinsAndInterning) {
  EXPECT_EQ(LibraryType::Plain().name(), "PLAIN");
  EXPECT_EQ(LibraryType::MKLDNN().name(), "MKLDNN");
  EXPECT_EQ(LibraryType::CUDNN().name(), "CUDNN");
  EXPECT_EQ(LibraryType::FromName("PLAIN"), LibraryType::Plain());
  LibraryType mine = LibraryType::FromName("TESTLIB_A");
  EXPECT_EQ(LibraryType::FromName("TESTLIB_A"), mine);
  EXPECT_NE(mine, LibraryType::Plain());
  EXPECT_EQ(mine.name(), "TESTLIB_A");
  ExpectError([] { LibraryType::FromName("lower"); },
              ErrorCode::kInvalidArgument, {"lower"});
}

TEST(OpKernelType, PlaceComparedByKind) {
  auto a = Key(DataType::kFloat32, platform::CUDAPlace{0}, LibraryType::CUDNN());
  auto b = Key(DataType::kFloat32, platform::CUDAPlace{3}, LibraryType::CUDNN());
  EXPECT_EQ(a, b);
  EXPECT_EQ(OpKernelTypeHash()(a), OpKernelTypeHash()(b));
  auto c = Key(DataType::kFloat64, platform::CUDAPlace{0}, LibraryType::CUDNN());
  EXPECT_FALSE(a == c);
  auto d = Key(DataType::kFloat32, platform::CustomPlace{"npu", 0},
               LibraryType::CUDNN());
  EXPECT_FALSE(a == d);
  EXPECT_EQ(a.ToString(), "{float32, cuda, AnyLayout, CUDNN}");
}

TEST(KernelRegistry, RelyIsRegisteredFromItsFile) {
  auto kernels = KernelRegistry::Instance().KernelsOf("relu");
  ASSERT_FALSE(kernels.empty());
  bool found = false;
  for (auto& kv : kernels) {
    if (kv.first == Key(DataType::kFloat32, platform::CPUPlace{},
                        LibraryType::Plain())) {
      found = true;
      EXPECT_NE(kv.second->file.find("kernels/cpu/plain/relu.cc"),
                std::string::npos);
      EXPECT_EQ(kv.second->registrant, "core");
    }
  }
  EXPECT_TRUE(found);
}

TEST(KernelRegistry, DuplicateRegistrationNamesTheKey) {
  auto& registry = KernelRegistry::Instance();
  auto key = Key(DataType::kFloat32, platform::CPUPlace{},
                 LibraryType::FromName("TESTLIB_DUP"));
  registry.Register("relu", key, KernelEntry{nullptr, "first.cc", "test"});
  ExpectError(
      [&] {
        registry.Register("relu", key,
                          KernelEntry{nullptr, "second.cc", "test2"});
      },
      ErrorCode::kAlreadyExists,
      {"relu", "{float32, cpu, AnyLayout, TESTLIB_DUP}", "first.cc",
       "second.cc"});
  registry.Erase("relu", key);
  EXPECT_EQ(registry.Find("relu", key), nullptr);
}

TEST(KernelChooser, ExactMatchThenFallbacks) {
  KernelPreference cpu;
  cpu.place = platform::CPUPlace{};
  cpu.libraries = {LibraryType::MKLDNN()};
  auto choice = ChooseKernel("relu", DataType::kFloat32,
                             DataLayout::kAnyLayout, cpu);
  ASSERT_NE(choice.kernel, nullptr);
  EXPECT_FALSE(choice.needs_transfer);
  if (choice.chosen.library == LibraryType::Plain()) {
    EXPECT_NE(choice.reason.find("fallback"), std::string::npos);
  }

  // A preferred library that has a kernel wins over PLAIN.
  auto lib = LibraryType::FromName("TESTLIB_PREF");
  auto& registry = KernelRegistry::Instance();
  auto key = Key(DataType::kFloat32, platform::CPUPlace{}, lib);
  registry.Register("relu", key, KernelEntry{[](const ExecutionContext&) {},
                                             "pref.cc", "test"});
  KernelPreference pref;
  pref.libraries = {lib};
  choice = ChooseKernel("relu", DataType::kFloat32, DataLayout::kNCHW, pref);
  EXPECT_EQ(choice.chosen.library, lib);
  EXPECT_EQ(choice.reason, "exact match");
  registry.Erase("relu", key);

  // A device with no kernel of its own falls back to PLAIN on the CPU.
  KernelPreference device;
  device.place = platform::CustomPlace{"fakedev", 1};
  choice = ChooseKernel("relu", DataType::kFloat32, DataLayout::kAnyLayout,
                        device);
  ASSERT_NE(choice.kernel, nullptr);
  EXPECT_TRUE(choice.chosen.place.is_cpu());
  EXPECT_TRUE(choice.needs_transfer);
  EXPECT_NE(choice.reason.find("copied to cpu"), std::string::npos);
}

TEST(KernelChooser, NothingFitsExplainsEveryCandidate) {
  KernelPreference cpu;
  auto choice =
      ChooseKernel("relu", DataType::kInt8, DataLayout::kAnyLayout, cpu);
  EXPECT_EQ(choice.kernel, nullptr);
  EXPECT_NE(choice.reason.find("data type float32 != int8"), std::string::npos)
      << choice.reason;
  choice = ChooseKernel("no_such_op", DataType::kFloat32,
                        DataLayout::kAnyLayout, cpu);
  EXPECT_NE(choice.reason.find("has no kernel at all"), std::string::npos);
}

// Every kernel and op source file in the tree registered something: a file
// whose registrar was dropped (or that forgot its macro) fails here.
std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, '|')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

TEST(KernelRegistry, NoRegistrarDropped) {
  std::set<std::string> kernel_files;
  for (auto& op : KernelRegistry::Instance().OpTypes()) {
    for (auto& kv : KernelRegistry::Instance().KernelsOf(op)) {
      kernel_files.insert(kv.second->file);
    }
  }
  auto sources = Split(PDLITE_KERNEL_FILES);
  ASSERT_FALSE(sources.empty());
  for (auto& src : sources) {
    EXPECT_TRUE(kernel_files.count(src))
        << src << " registered no kernel (dropped registrar?)";
  }
  std::set<std::string> op_files;
  for (auto& type : OpInfoMap::Instance().Types()) {
    op_files.insert(OpInfoMap::Instance().Find(type)->file);
  }
  for (auto& src : Split(PDLITE_OPERATOR_FILES)) {
    EXPECT_TRUE(op_files.count(src))
        << src << " registered no op (dropped registrar?)";
  }
}

// Each kernel lives at kernels/<place>/<library>/<op>.cc: the path and the
// key agree.
TEST(KernelRegistry, FilePathMatchesKey) {
  for (auto& op : KernelRegistry::Instance().OpTypes()) {
    for (auto& kv : KernelRegistry::Instance().KernelsOf(op)) {
      if (kv.second->registrant != "core") continue;
      // Tests may register kernels of their own ops (executor_test.cc).
      if (kv.second->file.find("unittests/") != std::string::npos) continue;
      std::string lib = kv.first.library.name();
      std::transform(lib.begin(), lib.end(), lib.begin(), ::tolower);
      std::string expected = "kernels/" + kv.first.place.KindName() + "/" +
                             lib + "/" + op + ".cc";
      EXPECT_NE(kv.second->file.find(expected), std::string::npos)
          << "kernel " << kv.first.ToString() << " of " << op << " is in "
          << kv.second->file << ", expected " << expected;
    }
  }
}

TEST(OpRegistry, CreateOpFillsDefaultsAndKeepsUnknownAttrs) {
  OpDesc desc;
  desc.type = "relu";
  desc.SetInput("X", {"x"});
  desc.SetOutput("Out", {"y"});
  desc.attrs["op_callstack"] = std::vector<std::string>{"a.py:1"};
  auto op = CreateOp(desc);
  EXPECT_TRUE(op->HasAttr("op_callstack"));
  EXPECT_EQ(op->Input("X"), "x");

  // A slot this op does not declare, left empty (Paddle 3 writes scale's
  // BiasTensor so), is dropped; one naming a variable is refused.
  desc.SetInput("Bogus", {});
  desc.SetOutput("BogusOut", {});
  auto with_empty = CreateOp(desc);
  EXPECT_EQ(with_empty->Inputs().size(), 1u);
  EXPECT_EQ(with_empty->Outputs().size(), 1u);
  desc.SetInput("Bogus", {"z"});
  ExpectError([&] { CreateOp(desc); }, ErrorCode::kInvalidArgument,
              {"relu", "Bogus"});
  OpDesc missing;
  missing.type = "relu";
  missing.SetOutput("Out", {"y"});
  ExpectError([&] { CreateOp(missing); }, ErrorCode::kInvalidArgument,
              {"relu", "missing its input 'X'"});
  OpDesc unknown;
  unknown.type = "definitely_not_an_op";
  ExpectError([&] { CreateOp(unknown); }, ErrorCode::kNotFound,
              {"definitely_not_an_op"});
}

// What OperatorBase::Derived keeps: made once, from the attributes.
struct ReluDerived {
  int made;
  bool has_callstack;
};

OpDesc ReluDesc() {
  OpDesc desc;
  desc.type = "relu";
  desc.SetInput("X", {"x"});
  desc.SetOutput("Out", {"y"});
  return desc;
}

TEST(OperatorBase, DerivedIsMadeOnceAndSharedByThreads) {
  OpDesc desc = ReluDesc();
  desc.attrs["op_callstack"] = std::vector<std::string>{"a.py:1"};
  auto op = CreateOp(desc);
  std::atomic<int> makes{0};
  auto make = [&makes](const OperatorBase& o) {
    return ReluDerived{++makes, o.HasAttr("op_callstack")};
  };
  std::vector<const ReluDerived*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] { seen[i] = &op->Derived<ReluDerived>(make); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(makes.load(), 1);
  for (auto* d : seen) EXPECT_EQ(d, seen[0]);
  EXPECT_EQ(seen[0]->made, 1);
  EXPECT_TRUE(seen[0]->has_callstack);
  // Another op has its own.
  auto other = CreateOp(desc);
  EXPECT_EQ(other->Derived<ReluDerived>(make).made, 2);
  // One type per op: asking for another is an error, not a bad cast.
  ExpectError([&] { op->Derived<int>([](const OperatorBase&) { return 0; }); },
              ErrorCode::kFatal, {"relu", "Derived"});
}

TEST(OperatorBase, DerivedThatThrowsKeepsNothing) {
  auto op = CreateOp(ReluDesc());
  int calls = 0;
  auto failing = [&calls](const OperatorBase& o) -> ReluDerived {
    ++calls;
    PADDLE_THROW(errors::InvalidArgument(o.Type(), ": bad attribute"));
  };
  ExpectError([&] { op->Derived<ReluDerived>(failing); },
              ErrorCode::kInvalidArgument, {"relu", "bad attribute"});
  ExpectError([&] { op->Derived<ReluDerived>(failing); },
              ErrorCode::kInvalidArgument, {"relu", "bad attribute"});
  EXPECT_EQ(calls, 2);
  const ReluDerived& kept = op->Derived<ReluDerived>([](const OperatorBase&) {
    return ReluDerived{7, false};
  });
  EXPECT_EQ(kept.made, 7);
}

TEST(OpRegistry, DuplicateOpRegistrationNamesBoth) {
  OpInfo info;
  info.file = "again.cc";
  info.registrant = "test";
  ExpectError([&] { OpInfoMap::Instance().Insert("relu", info); },
              ErrorCode::kAlreadyExists, {"relu", "again.cc", "relu.cc"});
}

TEST(Executor, RunsReluThroughOpTester) {
  testing::OpTester t("relu");
  t.Input("X", testing::MakeTensor<float>({2, 2}, {-1, 2, -3, 4}))
      .Output("Out");
  t.Run();
  testing::ExpectTensorNear(t.GetOutput("Out"),
                            testing::MakeTensor<float>({2, 2}, {0, 2, 0, 4}));
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
