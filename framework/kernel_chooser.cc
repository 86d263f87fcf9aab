#include "framework/kernel_chooser.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

namespace paddle_lite {
namespace framework {

namespace {

const KernelEntry* FindWithLayout(const std::string& op_type,
                                  OpKernelType* key) {
  auto& registry = KernelRegistry::Instance();
  if (auto* k = registry.Find(op_type, *key)) return k;
  // A kernel registered for any layout serves a specific one.
  if (key->layout != DataLayout::kAnyLayout) {
    OpKernelType any = *key;
    any.layout = DataLayout::kAnyLayout;
    if (auto* k = registry.Find(op_type, any)) {
      *key = any;
      return k;
    }
  }
  return nullptr;
}

struct PlaceLibraries {
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> by_kind;
};

PlaceLibraries& GetPlaceLibraries() {
  static auto* libraries = new PlaceLibraries;
  return *libraries;
}

// The libraries to try on `place`, best first: the caller's, then the
// place's own; a library without a single kernel on the place's kind is
// left out (MKLDNN on a CUDA place), so "expected" names a real choice.
std::vector<LibraryType> LibrariesFor(const KernelPreference& preference) {
  std::vector<LibraryType> wanted = preference.libraries;
  for (auto& name : PlaceLibrariesOf(preference.place.KindName())) {
    LibraryType lib = LibraryType::FromName(name);
    if (std::find(wanted.begin(), wanted.end(), lib) == wanted.end()) {
      wanted.push_back(lib);
    }
  }
  if (preference.place.is_cpu()) return wanted;
  std::vector<LibraryType> out;
  for (auto& lib : wanted) {
    if (KernelRegistry::Instance().HasLibraryOn(lib,
                                                preference.place.KindName())) {
      out.push_back(lib);
    }
  }
  return out;
}

}  // namespace

void RegisterPlaceLibraries(const std::string& place_kind,
                            std::vector<std::string> libraries) {
  auto& r = GetPlaceLibraries();
  std::lock_guard<std::mutex> lock(r.mu);
  r.by_kind[place_kind] = std::move(libraries);
}

std::vector<std::string> PlaceLibrariesOf(const std::string& place_kind) {
  auto& r = GetPlaceLibraries();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_kind.find(place_kind);
  return it == r.by_kind.end() ? std::vector<std::string>{} : it->second;
}

KernelChoice ChooseKernel(const std::string& op_type,
                          DataType data_type,
                          DataLayout layout,
                          const KernelPreference& preference) {
  KernelChoice choice;
  choice.expected.data_type = data_type;
  choice.expected.place = preference.place;
  choice.expected.layout = layout;
  const std::vector<LibraryType> libraries = LibrariesFor(preference);
  choice.expected.library =
      libraries.empty() ? LibraryType::Plain() : libraries.front();

  std::vector<OpKernelType> candidates;
  for (auto& lib : libraries) {
    OpKernelType key = choice.expected;
    key.library = lib;
    candidates.push_back(key);
  }
  OpKernelType plain = choice.expected;
  plain.library = LibraryType::Plain();
  candidates.push_back(plain);
  if (!preference.place.is_cpu()) {
    plain.place = platform::CPUPlace{};
    candidates.push_back(plain);
  }

  for (size_t i = 0; i < candidates.size(); ++i) {
    OpKernelType key = candidates[i];
    if (const KernelEntry* k = FindWithLayout(op_type, &key)) {
      choice.chosen = key;
      choice.kernel = k;
      choice.needs_transfer = !platform::SameKind(key.place, preference.place);
      if (i == 0) {
        choice.reason = "exact match";
      } else {
        std::ostringstream why;
        why << "fallback: no kernel " << candidates[0].ToString();
        for (size_t j = 1; j < i; ++j)
          why << " or " << candidates[j].ToString();
        if (choice.needs_transfer) {
          why << "; inputs are copied to " << key.place.ToString();
        }
        choice.reason = why.str();
      }
      return choice;
    }
  }

  auto kernels = KernelRegistry::Instance().KernelsOf(op_type);
  std::ostringstream why;
  if (kernels.empty()) {
    why << "op '" << op_type << "' has no kernel at all";
  } else {
    why << "no kernel of op '" << op_type << "' fits " << data_type << " on "
        << preference.place.KindName() << "; registered:";
    for (auto& kv : kernels) {
      const OpKernelType& k = kv.first;
      why << " " << k.ToString() << " (";
      if (k.data_type != data_type) {
        why << "data type " << k.data_type << " != " << data_type;
      } else if (!platform::SameKind(k.place, preference.place) &&
                 !k.place.is_cpu()) {
        why << "place " << k.place.KindName()
            << " != " << preference.place.KindName();
      } else {
        why << "library " << k.library.name() << " not preferred";
      }
      why << ")";
    }
  }
  choice.reason = why.str();
  return choice;
}

KernelChoice ChooseKernel(const OperatorWithKernel& op,
                          const KernelTypeContext& ctx,
                          const KernelPreference& preference) {
  return ChooseKernel(op.Type(), op.IndicateDataType(ctx),
                      op.IndicateDataLayout(ctx), preference);
}

}  // namespace framework
}  // namespace paddle_lite
