#include "serve/server.h"

#include <glog/logging.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>

namespace pdlite {
namespace serve {

namespace fs = std::filesystem;

namespace {
bool IsVersionName(const std::string& name) {
  if (name.empty() || name.size() > 18) return false;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}
}  // namespace

InferenceServer::InferenceServer(const std::string& repository) {
  std::error_code ec;
  fs::directory_iterator it(repository, ec);
  if (ec) {
    throw std::runtime_error("cannot read the model repository '" + repository +
                             "': " + ec.message());
  }
  for (auto& entry : it) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    auto& versions = models_[name];
    ModelConfig config;
    std::string config_error;
    const fs::path config_path = entry.path() / "config.json";
    if (fs::exists(config_path)) {
      std::ifstream file(config_path);
      std::stringstream text;
      text << file.rdbuf();
      if (!ParseModelConfig(text.str(), &config, &config_error)) {
        config_error = config_path.string() + ": " + config_error;
      }
    }
    for (auto& sub : fs::directory_iterator(entry.path())) {
      const std::string version = sub.path().filename().string();
      if (!sub.is_directory() || !IsVersionName(version)) continue;
      std::unique_ptr<ModelVersion> loaded;
      if (!config_error.empty()) {
        loaded = std::make_unique<ModelVersion>(name, version, config_error);
      } else {
        loaded = std::make_unique<ModelVersion>(
            name, version, sub.path().string(), config, &metrics_);
      }
      if (loaded->ready()) {
        LOG(INFO) << "model '" << name << "' version " << version << " ready ("
                  << config.instances << " instance(s), " << config.threads
                  << " thread(s) each"
                  << (config.max_batch_size
                          ? ", batches up to " +
                                std::to_string(config.max_batch_size)
                          : std::string())
                  << ")";
      } else {
        LOG(ERROR) << "model '" << name << "' version " << version
                   << " failed to load: " << loaded->error();
      }
      versions[std::stoll(version)] = std::move(loaded);
    }
    if (versions.empty()) {
      // Reported rather than dropped, so a typo in the layout is visible.
      const std::string why =
          config_error.empty()
              ? "no numbered version folder in " + entry.path().string()
              : config_error;
      LOG(ERROR) << "model '" << name << "': " << why;
      versions[0] = std::make_unique<ModelVersion>(name, "0", why);
    }
  }
}

InferenceServer::~InferenceServer() { Stop(); }

bool InferenceServer::Ready() const {
  if (stopping_) return false;
  for (auto& [name, versions] : models_) {
    for (auto& [number, model] : versions) {
      if (!model->ready()) return false;
    }
  }
  return true;
}

std::vector<std::string> InferenceServer::Extensions() {
  // "pdlite_lod": our input parameter "lod" (docs/serving.md).
  return {"binary_tensor_data", "pdlite_lod"};
}

ModelVersion* InferenceServer::FindMutable(const std::string& model,
                                           const std::string& version,
                                           Status* status) const {
  auto it = models_.find(model);
  if (it == models_.end()) {
    std::string known;
    for (auto& [name, v] : models_)
      known += (known.empty() ? "'" : ", '") + name + "'";
    *status = Status::Error(StatusCode::kNotFound,
                            "unknown model '" + model + "'; the models are " +
                                (known.empty() ? "none" : known));
    return nullptr;
  }
  const auto& versions = it->second;
  if (version.empty()) return versions.rbegin()->second.get();
  if (IsVersionName(version)) {
    auto v = versions.find(std::stoll(version));
    if (v != versions.end()) return v->second.get();
  }
  std::string known;
  for (auto& [n, v] : versions)
    known += (known.empty() ? "" : ", ") + v->version();
  *status = Status::Error(StatusCode::kNotFound,
                          "model '" + model + "' has no version '" + version +
                              "'; its versions are " + known);
  return nullptr;
}

Status InferenceServer::Find(const std::string& model,
                             const std::string& version,
                             const ModelVersion** found) const {
  Status status;
  *found = FindMutable(model, version, &status);
  return status;
}

std::vector<std::string> InferenceServer::Versions(
    const std::string& model) const {
  std::vector<std::string> out;
  auto it = models_.find(model);
  if (it == models_.end()) return out;
  for (auto& [n, v] : it->second) out.push_back(v->version());
  return out;
}

std::vector<std::string> InferenceServer::ModelNames() const {
  std::vector<std::string> out;
  for (auto& [name, v] : models_) out.push_back(name);
  return out;
}

void InferenceServer::InferAsync(InferRequest request,
                                 ModelVersion::Done done) {
  Status status;
  ModelVersion* model = FindMutable(request.model, request.version, &status);
  if (!model) {
    InferResponse response;
    response.model = request.model;
    response.version = request.version;
    response.status = status;
    done(std::move(response));
    return;
  }
  metrics_.AddInflight(1);
  model->InferAsync(std::move(request),
                    [this, done = std::move(done)](InferResponse response) {
                      metrics_.AddInflight(-1);
                      done(std::move(response));
                    });
}

InferResponse InferenceServer::Infer(InferRequest request) {
  std::promise<InferResponse> answer;
  std::future<InferResponse> future = answer.get_future();
  InferAsync(std::move(request),
             [&answer](InferResponse r) { answer.set_value(std::move(r)); });
  return future.get();
}

void InferenceServer::Stop() {
  stopping_ = true;
  for (auto& [name, versions] : models_) {
    for (auto& [n, model] : versions) model->Stop();
  }
}

}  // namespace serve
}  // namespace pdlite
