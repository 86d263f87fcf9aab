// Plugin loading (framework/plugin.h): registration with the plugin's path
// as registrant, idempotent loads, and refusals that leave the registries
// as they were: an ABI mismatch, a key that exists, a failing init, a
// library that is not a plugin. The plugins are unittests/plugins/*.cc,
// built as MODULE libraries into PDLITE_TEST_PLUGIN_DIR.
#include "framework/plugin.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "framework/kernel_registry.h"
#include "framework/op_registry.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using testing::ExpectError;

std::string PluginPath(const std::string& name) {
  return std::string(PDLITE_TEST_PLUGIN_DIR) + "/lib" + name + ".so";
}

// Everything registered, by registrant, to compare before and after.
struct RegistrySnapshot {
  std::map<std::string, std::string> ops;      // type -> registrant
  std::map<std::string, std::string> kernels;  // "op key" -> registrant

  static RegistrySnapshot Take() {
    RegistrySnapshot s;
    for (auto& type : OpInfoMap::Instance().Types()) {
      s.ops[type] = OpInfoMap::Instance().Find(type)->registrant;
    }
    auto& registry = KernelRegistry::Instance();
    for (auto& op : registry.OpTypes()) {
      for (auto& kv : registry.KernelsOf(op)) {
        s.kernels[op + " " + kv.first.ToString()] = kv.second->registrant;
      }
    }
    return s;
  }
  bool operator==(const RegistrySnapshot& o) const {
    return ops == o.ops && kernels == o.kernels;
  }
};

bool IsLoaded(const std::string& path) {
  for (auto& p : LoadedPlugins()) {
    if (p == path) return true;
  }
  return false;
}

TEST(Plugin, RegistersOpsAndKernelsUnderItsPath) {
  const std::string path = PluginPath("pdlite_test_good_plugin");
  LoadPlugin(path);
  EXPECT_TRUE(IsLoaded(path));
  const OpInfo* info = OpInfoMap::Instance().Find("plugin_test_double");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->registrant, path);
  auto kernels = KernelRegistry::Instance().KernelsOf("plugin_test_double");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].second->registrant, path);
  EXPECT_NE(kernels[0].second->file.find("unittests/plugins/good_plugin.cc"),
            std::string::npos);

  // The plugin's op runs through the executor like a built-in one.
  testing::OpTester t("plugin_test_double");
  t.Input("X", testing::MakeTensor<float>({3}, {1.f, -2.f, 0.5f}))
      .Output("Out");
  t.Run();
  EXPECT_EQ(testing::ToVector<float>(t.GetOutput("Out")),
            (std::vector<float>{2.f, -4.f, 1.f}));
}

TEST(Plugin, LoadingTwiceIsANoOp) {
  const std::string path = PluginPath("pdlite_test_good_plugin");
  LoadPlugin(path);
  auto before = RegistrySnapshot::Take();
  size_t loaded = LoadedPlugins().size();
  LoadPlugin(path);
  // Another spelling of the same file is the same plugin.
  LoadPlugin(std::string(PDLITE_TEST_PLUGIN_DIR) +
             "/../plugins/./libpdlite_test_good_plugin.so");
  EXPECT_EQ(LoadedPlugins().size(), loaded);
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
}

TEST(Plugin, OtherAbiVersionIsRefusedNamingBoth) {
  const std::string path = PluginPath("pdlite_test_abi999_plugin");
  auto before = RegistrySnapshot::Take();
  ExpectError(
      [&] { LoadPlugin(path); }, ErrorCode::kPreconditionNotMet,
      {"abi_mismatch_plugin", path, "built for ABI version 999",
       "this runtime has ABI version " + std::to_string(RuntimeAbiVersion()),
       "rebuild it"});
  EXPECT_EQ(RuntimeAbiVersion(), PDLITE_ABI_VERSION);
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_EQ(OpInfoMap::Instance().Find("plugin_test_abi_op"), nullptr);
  EXPECT_FALSE(IsLoaded(path));
  // Refused again on a second try: a refusal is not remembered as loaded.
  ExpectError([&] { LoadPlugin(path); }, ErrorCode::kPreconditionNotMet,
              {"ABI version 999"});
}

TEST(Plugin, ExistingKernelKeyIsRefusedAndNothingKept) {
  const std::string path = PluginPath("pdlite_test_duplicate_kernel_plugin");
  auto before = RegistrySnapshot::Take();
  ExpectError([&] { LoadPlugin(path); }, ErrorCode::kAlreadyExists,
              {"Plugin '" + path + "' refused", "relu",
               "{float32, cpu, AnyLayout, PLAIN}", "registered twice",
               "by core (", "kernels/cpu/plain/relu.cc", "and by " + path,
               "duplicate_kernel_plugin.cc"});
  // Its new op and kernel, registered before the clash, are gone too.
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_EQ(OpInfoMap::Instance().Find("plugin_test_dup_new_op"), nullptr);
  EXPECT_TRUE(
      KernelRegistry::Instance().KernelsOf("plugin_test_dup_new_op").empty());
  EXPECT_EQ(
      KernelRegistry::Instance().KernelsOf("relu").front().second->registrant,
      "core");
  EXPECT_FALSE(IsLoaded(path));
}

TEST(Plugin, ExistingOpIsRefusedAndNothingKept) {
  const std::string path = PluginPath("pdlite_test_duplicate_op_plugin");
  auto before = RegistrySnapshot::Take();
  ExpectError(
      [&] { LoadPlugin(path); }, ErrorCode::kAlreadyExists,
      {"Op 'relu' is registered twice", "by core (", "operators/relu.cc",
       "and by " + path, "duplicate_op_plugin.cc"});
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_EQ(OpInfoMap::Instance().Find("relu")->registrant, "core");
}

TEST(Plugin, FailingInitTakesItsKernelsBack) {
  const std::string path = PluginPath("pdlite_test_init_fails_plugin");
  auto before = RegistrySnapshot::Take();
  ExpectError([&] { LoadPlugin(path); }, ErrorCode::kAlreadyExists,
              {"Plugin '" + path + "' refused", "allocator", "'cpu'"});
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_FALSE(IsLoaded(path));
}

// An init that throws an exception of its own (a std::runtime_error):
// refused as any failing init, its kernels taken back. It had escaped
// LoadPlugin's cleanup, its kernels left pointing into a library that
// pdlite then aborted over.
TEST(Plugin, InitThrowingItsOwnExceptionTakesItsKernelsBack) {
  const std::string path = PluginPath("pdlite_test_init_throws_plugin");
  auto before = RegistrySnapshot::Take();
  ExpectError([&] { LoadPlugin(path); }, ErrorCode::kPreconditionNotMet,
              {"Plugin '" + path + "' refused", "its init threw",
               "the device is missing"});
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_FALSE(IsLoaded(path));
}

// Plugins load (and a refused one takes its kernels back) while other
// threads choose kernels and create ops: the registries are locked
// (ThreadSanitizer reported the maps read while written).
TEST(Plugin, LoadsWhileOtherThreadsReadTheRegistries) {
  const std::string path = PluginPath("pdlite_test_init_throws_plugin");
  std::atomic<bool> loading{true};
  std::thread reader([&] {
    OpKernelType relu_key;  // float32, any layout, PLAIN
    relu_key.place = platform::CPUPlace{};
    while (loading) {
      EXPECT_NE(OpInfoMap::Instance().Find("relu"), nullptr);
      EXPECT_NE(KernelRegistry::Instance().Find("relu", relu_key), nullptr);
      EXPECT_FALSE(KernelRegistry::Instance().KernelsOf("relu").empty());
      KernelRegistry::Instance().OpTypes();
    }
  });
  for (int i = 0; i < 20; ++i) {
    EXPECT_THROW(LoadPlugin(path), Exception);
  }
  loading = false;
  reader.join();
}

TEST(Plugin, LibraryWithoutPdlitePluginIsRefused) {
  const std::string path = PluginPath("pdlite_test_not_a_plugin");
  ExpectError([&] { LoadPlugin(path); }, ErrorCode::kPreconditionNotMet,
              {path, "is not a paddle_lite plugin", "PDLITE_PLUGIN(name)"});
}

TEST(Plugin, MissingFileIsNotFound) {
  ExpectError([] { LoadPlugin("/no/such/libplugin.so"); }, ErrorCode::kNotFound,
              {"Cannot load plugin '/no/such/libplugin.so'"});
}

TEST(Plugin, EnvironmentPathLoadsEverySharedObjectOnce) {
  // Only the good plugin's folder of its own (the other test plugins would
  // be refused): PDLITE_TEST_GOOD_PLUGIN_DIR holds a copy's symlink.
  setenv("PDLITE_PLUGIN_PATH",
         (std::string("/no/such/dir::") + PDLITE_TEST_GOOD_PLUGIN_DIR).c_str(),
         1);
  LoadPluginsFromEnvironment();
  LoadPluginsFromEnvironment();  // once per process
  EXPECT_NE(OpInfoMap::Instance().Find("plugin_test_double"), nullptr);
  EXPECT_TRUE(IsLoaded(PluginPath("pdlite_test_good_plugin")));
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
