#include "unittests/test_utils/op_tester.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/plugin.h"
#include "framework/scope.h"

namespace paddle_lite {
namespace testing {

using framework::DataType;
using framework::Tensor;

template <typename T>
Tensor MakeTensor(const framework::DDim& dims,
                  const std::vector<T>& values,
                  const framework::LoD& lod) {
  Tensor t;
  t.Resize(dims);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel())
      << "MakeTensor: " << values.size() << " values for dims " << dims;
  T* data = t.mutable_data<T>(platform::CPUPlace{});
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel());
       ++i) {
    data[i] = values[i];
  }
  t.set_lod(lod);
  return t;
}

template <typename T>
Tensor RandomTensor(const framework::DDim& dims,
                    double lo,
                    double hi,
                    uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> values(static_cast<size_t>(framework::Product(dims)));
  for (auto& v : values) v = static_cast<T>(dist(gen));
  return MakeTensor<T>(dims, values);
}

template <typename T>
std::vector<T> ToVector(const Tensor& t) {
  const T* data = t.data<T>();
  return std::vector<T>(data, data + t.numel());
}

#define PDLITE_INSTANTIATE(T)                                                  \
  template Tensor MakeTensor<T>(const framework::DDim&, const std::vector<T>&, \
                                const framework::LoD&);                        \
  template Tensor RandomTensor<T>(const framework::DDim&, double, double,      \
                                  uint32_t);                                   \
  template std::vector<T> ToVector<T>(const Tensor&);
PDLITE_INSTANTIATE(float)
PDLITE_INSTANTIATE(double)
PDLITE_INSTANTIATE(int32_t)
PDLITE_INSTANTIATE(int64_t)
PDLITE_INSTANTIATE(int16_t)
PDLITE_INSTANTIATE(int8_t)
PDLITE_INSTANTIATE(uint8_t)
#undef PDLITE_INSTANTIATE

std::vector<float> IotaValues(int64_t n) {
  std::vector<float> values(static_cast<size_t>(n));
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

template Tensor MakeTensor<bool>(const framework::DDim&,
                                 const std::vector<bool>&,
                                 const framework::LoD&);
template <>
std::vector<bool> ToVector<bool>(const Tensor& t) {
  const bool* data = t.data<bool>();
  return std::vector<bool>(data, data + t.numel());
}

namespace {
double ValueAt(const Tensor& t, int64_t i) {
  double v = 0;
  framework::VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T& x = static_cast<const T*>(t.raw_data())[i];
    if constexpr (std::is_class_v<T>) {  // float16, bfloat16
      v = static_cast<float>(x);
    } else {
      v = static_cast<double>(x);
    }
  });
  return v;
}
}  // namespace

void ExpectTensorNear(const Tensor& got,
                      const Tensor& expected,
                      double atol,
                      double rtol) {
  ASSERT_EQ(got.dims(), expected.dims()) << "dims differ";
  ASSERT_EQ(got.dtype(), expected.dtype()) << "dtypes differ";
  EXPECT_EQ(got.lod(), expected.lod()) << "LoD differs";
  int64_t n = got.numel();
  int reported = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = ValueAt(got, i), e = ValueAt(expected, i);
    if (std::isnan(g) && std::isnan(e)) continue;
    if (g == e) continue;  // also equal infinities
    if (std::fabs(g - e) <= atol + rtol * std::fabs(e)) continue;
    ++mismatches;
    if (reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << g << ", expected " << e;
    }
  }
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << n << " elements differ";
}

void ExpectError(const std::function<void()>& fn,
                 ErrorCode code,
                 const std::vector<std::string>& fragments) {
  try {
    fn();
  } catch (const Exception& e) {
    EXPECT_EQ(ErrorCodeName(e.code()), std::string(ErrorCodeName(code)))
        << "message: " << e.what();
    for (auto& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message lacks '" << f << "': " << e.what();
    }
    return;
  }
  ADD_FAILURE() << "expected an exception of code " << ErrorCodeName(code);
}

struct OpTester::Impl {
  std::string type;
  framework::OpDesc op;
  std::vector<std::pair<std::string, Tensor>> inputs;  // var name -> value
  std::set<std::string> parameters;                    // of the inputs
  std::vector<std::pair<std::string, DataType>> outputs;
  std::unique_ptr<framework::Scope> scope;  // parameters
  framework::Scope* run_scope = nullptr;    // a child: the rest
  framework::ProgramDesc program;
  bool batch_invariant = false;
};

OpTester::OpTester(std::string op_type) : impl_(std::make_shared<Impl>()) {
  impl_->type = op_type;
  impl_->op.type = std::move(op_type);
}

OpTester& OpTester::Input(const std::string& slot, Tensor value) {
  impl_->op.SetInput(slot, {slot});
  impl_->inputs.emplace_back(slot, std::move(value));
  return *this;
}

OpTester& OpTester::Parameter(const std::string& slot, Tensor value) {
  impl_->parameters.insert(slot);
  return Input(slot, std::move(value));
}

OpTester& OpTester::Inputs(const std::string& slot,
                           std::vector<Tensor> values) {
  std::vector<std::string> names;
  for (size_t i = 0; i < values.size(); ++i) {
    names.push_back(slot + "." + std::to_string(i));
    impl_->inputs.emplace_back(names.back(), std::move(values[i]));
  }
  impl_->op.SetInput(slot, names);
  return *this;
}

OpTester& OpTester::Output(const std::string& slot, DataType dtype, int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    names.push_back(count == 1 ? "out." + slot
                               : "out." + slot + "." + std::to_string(i));
    impl_->outputs.emplace_back(names.back(), dtype);
  }
  impl_->op.SetOutput(slot, names);
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, framework::Attribute value) {
  impl_->op.attrs[name] = std::move(value);
  return *this;
}

OpTester& OpTester::AliasOutputToInput(const std::string& out_slot,
                                       const std::string& in_slot) {
  impl_->op.SetOutput(out_slot, impl_->op.Input(in_slot));
  return *this;
}

OpTester& OpTester::BatchInvariant(bool on) {
  impl_->batch_invariant = on;
  return *this;
}

void OpTester::Run(framework::LibraryType library, int threads) {
  RunOn(platform::CPUPlace{}, library, threads);
}

void OpTester::RunOn(const platform::Place& place,
                     framework::LibraryType library,
                     int threads) {
  framework::ProgramDesc program;
  program.blocks.emplace_back();
  auto& block = program.blocks[0];
  for (auto& kv : impl_->inputs) {
    framework::VarDesc var;
    var.name = kv.first;
    var.dtype = kv.second.dtype();
    var.dims = kv.second.dims();
    var.persistable = impl_->parameters.count(kv.first) > 0;
    block.vars.push_back(var);
  }
  for (auto& kv : impl_->outputs) {
    if (block.FindVar(kv.first)) continue;
    framework::VarDesc var;
    var.name = kv.first;
    var.dtype = kv.second;
    block.vars.push_back(var);
  }
  block.ops.push_back(impl_->op);
  impl_->program = std::move(program);

  impl_->scope = std::make_unique<framework::Scope>();
  impl_->run_scope = &impl_->scope->NewScope();
  for (auto& kv : impl_->inputs) {
    framework::Scope* scope = impl_->parameters.count(kv.first) > 0
                                  ? impl_->scope.get()
                                  : impl_->run_scope;
    // Copy, so an in-place op cannot modify the caller's tensor.
    framework::TensorCopy(
        kv.second, platform::CPUPlace{},
        scope->Var(kv.first)->GetMutable<framework::Tensor>());
  }
  platform::DeviceContextOptions options =
      platform::DeviceContextOptions::WithThreads(threads);
  options.batch_invariant = impl_->batch_invariant;
  platform::DeviceContextPool pool(options);
  framework::KernelPreference preference;
  preference.place = place;
  if (library != framework::LibraryType::Plain()) {
    preference.libraries.push_back(library);
  }
  framework::Executor executor(impl_->program, preference, &pool);
  executor.Run(0, impl_->run_scope);
  if (!place.is_cpu()) pool.Get(place)->Wait();
}

void OpTester::RunAllKernels(double atol, double rtol) {
  Run();
  std::vector<Tensor> reference;
  for (auto& kv : impl_->outputs) {
    Tensor copy;
    auto* var = impl_->run_scope->FindVar(kv.first);
    if (var && var->IsType<Tensor>() && var->Get<Tensor>().IsInitialized()) {
      framework::TensorCopy(var->Get<Tensor>(), platform::CPUPlace{}, &copy);
    }
    reference.push_back(copy);
  }
  DataType dtype = impl_->inputs.empty() ? DataType::kFloat32
                                         : impl_->inputs[0].second.dtype();
  // PDLITE_TEST_DEVICE=cuda:0 (the `gpu` ctest cases): every kernel of the
  // op on that device is checked against the same PLAIN CPU result; the
  // CPU libraries were checked by the plain run of the suite.
  const char* device = std::getenv("PDLITE_TEST_DEVICE");
  if (device != nullptr && *device != '\0') {
    RunDeviceKernels(platform::ParsePlace(device), dtype, reference, atol,
                     rtol);
    return;
  }
  for (auto& kv :
       framework::KernelRegistry::Instance().KernelsOf(impl_->type)) {
    const auto& key = kv.first;
    if (!key.place.is_cpu() || key.library == framework::LibraryType::Plain() ||
        key.data_type != dtype) {
      continue;
    }
    SCOPED_TRACE("kernel " + key.ToString());
    for (int threads : {1, 2}) {
      Run(key.library, threads);
      for (size_t i = 0; i < impl_->outputs.size(); ++i) {
        if (!reference[i].IsInitialized()) continue;
        Tensor* got = impl_->run_scope->FindVar(impl_->outputs[i].first)
                          ->GetMutable<Tensor>();
        framework::ConvertToPlainLayout(got);
        ExpectTensorNear(*got, reference[i], atol, rtol);
      }
    }
  }
}

void OpTester::RunDeviceKernels(const platform::Place& place,
                                DataType dtype,
                                const std::vector<Tensor>& reference,
                                double atol,
                                double rtol) {
  try {
    framework::EnsurePlaceAvailable(place);
    platform::DeviceContextPool probe(platform::DeviceContextOptions{});
    probe.Get(place);
  } catch (const Exception& e) {
    if (e.code() == ErrorCode::kUnavailable) {
      GTEST_SKIP() << "no " << place << " to test on: " << e.message();
    }
    throw;
  }
  for (auto& kv :
       framework::KernelRegistry::Instance().KernelsOf(impl_->type)) {
    const auto& key = kv.first;
    if (!platform::SameKind(key.place, place) || key.data_type != dtype) {
      continue;
    }
    SCOPED_TRACE("kernel " + key.ToString());
    RunOn(place, key.library, 1);
    for (size_t i = 0; i < impl_->outputs.size(); ++i) {
      if (!reference[i].IsInitialized()) continue;
      const Tensor& result =
          impl_->run_scope->FindVar(impl_->outputs[i].first)->Get<Tensor>();
      Tensor got;
      framework::TensorCopy(result, platform::CPUPlace{}, &got);
      // A GPU sums in another order, and its expf/tanhf may differ from
      // the CPU's by an ulp or two.
      ExpectTensorNear(got, reference[i], std::max(atol, 1e-4),
                       std::max(rtol, 1e-4));
    }
  }
}

const Tensor& OpTester::GetOutput(const std::string& slot, size_t i) const {
  auto names = impl_->op.Output(slot);
  PADDLE_ENFORCE(i < names.size() && impl_->run_scope,
                 platform::errors::NotFound("OpTester: no output ", slot, " #",
                                            i, " (did Run() happen?)"));
  // As the executor hands it to any other library's kernel: plain.
  Tensor* out = impl_->run_scope->FindVar(names[i])->GetMutable<Tensor>();
  framework::ConvertToPlainLayout(out);
  return *out;
}

}  // namespace testing
}  // namespace paddle_lite
