#include "serve/server.h"

#include <glog/logging.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

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

Status CheckRepositoryParameters(
    const std::string& model,
    bool load,
    const std::vector<RepositoryParameter>& parameters,
    std::string* config_json) {
  using Kind = RepositoryParameter::Kind;
  const std::string what = "model '" + model + "': ";
  auto bad = [&](const std::string& why) {
    return Status::Error(StatusCode::kInvalidArgument, what + why);
  };
  for (const RepositoryParameter& p : parameters) {
    if (!load && p.key == "unload_dependents") {
      if (p.kind != Kind::kBool) {
        return bad("\"unload_dependents\" must be true or false");
      }
    } else if (load && p.key == "config") {
      if (p.kind != Kind::kString || p.text.empty()) {
        return bad("\"config\" must be a string holding config.json's JSON");
      }
      *config_json = p.text;
    } else if (load && p.key.rfind("file:", 0) == 0) {
      return bad(
          "loading a model from files sent with the request is not "
          "supported; put them in the model repository");
    } else {
      return bad("unknown parameter \"" + p.key + "\" for " +
                 (load ? "load" : "unload"));
    }
  }
  return Status();
}

InferenceServer::InferenceServer(const std::string& repository,
                                 ServerOptions options)
    : repository_(repository),
      options_(options),
      shared_memory_(options.shared_memory) {
  std::error_code ec;
  fs::directory_iterator it(repository, ec);
  if (ec) {
    throw std::runtime_error("cannot read the model repository '" + repository +
                             "': " + ec.message());
  }
  for (auto& entry : it) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    models_[name] = LoadModel(name, nullptr, nullptr);
  }
}

InferenceServer::VersionMap InferenceServer::LoadModel(
    const std::string& name,
    const std::string* config_json,
    std::string* no_version) {
  const fs::path folder = fs::path(repository_) / name;
  VersionMap versions;
  ModelConfig config;
  std::string config_error;
  const fs::path config_path = folder / "config.json";
  if (config_json) {
    if (!ParseModelConfig(*config_json, &config, &config_error)) {
      config_error = "the load request's config: " + config_error;
    }
  } else if (fs::exists(config_path)) {
    std::ifstream file(config_path);
    std::stringstream text;
    text << file.rdbuf();
    if (!ParseModelConfig(text.str(), &config, &config_error)) {
      config_error = config_path.string() + ": " + config_error;
    }
  }
  std::error_code ec;
  for (auto& sub : fs::directory_iterator(folder, ec)) {
    const std::string version = sub.path().filename().string();
    if (!sub.is_directory() || !IsVersionName(version)) continue;
    std::shared_ptr<ModelVersion> loaded;
    if (!config_error.empty()) {
      loaded = std::make_shared<ModelVersion>(name, version, config_error);
    } else {
      loaded = std::make_shared<ModelVersion>(
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
    std::string why = config_error;
    if (why.empty()) {
      why = ec ? "cannot read " + folder.string() + ": " + ec.message()
               : "no numbered version folder in " + folder.string();
    }
    LOG(ERROR) << "model '" << name << "': " << why;
    versions[0] = std::make_shared<ModelVersion>(name, "0", why);
    if (no_version) *no_version = why;
  }
  return versions;
}

InferenceServer::~InferenceServer() { Stop(); }

bool InferenceServer::Ready() const {
  if (stopping_) return false;
  std::lock_guard<std::mutex> lock(models_mutex_);
  for (auto& [name, versions] : models_) {
    for (auto& [number, model] : versions) {
      if (!model->ready()) return false;
    }
  }
  return true;
}

std::vector<std::string> InferenceServer::Extensions() const {
  // "pdlite_lod": our input parameter "lod" (docs/serving.md).
  std::vector<std::string> out = {"binary_tensor_data", "statistics",
                                  "model_configuration", "pdlite_lod"};
  if (options_.model_control) out.push_back("model_repository");
  if (options_.shared_memory) out.push_back("system_shared_memory");
  return out;
}

std::shared_ptr<ModelVersion> InferenceServer::FindShared(
    const std::string& model,
    const std::string& version,
    Status* status) const {
  std::lock_guard<std::mutex> lock(models_mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    auto unloaded = not_loaded_.find(model);
    if (unloaded != not_loaded_.end()) {
      *status = Status::Error(
          StatusCode::kNotFound,
          "model '" + model + "' is not loaded: " + unloaded->second);
      return nullptr;
    }
    std::string known;
    for (auto& [name, v] : models_)
      known += (known.empty() ? "'" : ", '") + name + "'";
    *status = Status::Error(StatusCode::kNotFound,
                            "unknown model '" + model + "'; the models are " +
                                (known.empty() ? "none" : known));
    return nullptr;
  }
  const auto& versions = it->second;
  if (version.empty()) return versions.rbegin()->second;
  if (IsVersionName(version)) {
    auto v = versions.find(std::stoll(version));
    if (v != versions.end()) return v->second;
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
                             std::shared_ptr<const ModelVersion>* found) const {
  Status status;
  *found = FindShared(model, version, &status);
  return status;
}

Status InferenceServer::Statistics(const std::string& model,
                                   const std::string& version,
                                   std::vector<VersionStatistics>* out) const {
  out->clear();
  if (model.empty() && !version.empty()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "statistics of version '" + version +
                             "' of which model? A version needs a model name");
  }
  if (model.empty() || version.empty()) {
    std::vector<std::shared_ptr<ModelVersion>> versions;
    {
      std::lock_guard<std::mutex> lock(models_mutex_);
      for (auto& [name, numbered] : models_) {
        if (!model.empty() && name != model) continue;
        for (auto& [n, v] : numbered) versions.push_back(v);
      }
    }
    if (!model.empty() && versions.empty()) {
      Status status;
      FindShared(model, version, &status);  // says why, naming the models
      return status;
    }
    for (auto& v : versions) out->push_back(v->Statistics());
    return Status();
  }
  Status status;
  std::shared_ptr<ModelVersion> found = FindShared(model, version, &status);
  if (found) out->push_back(found->Statistics());
  return status;
}

std::vector<std::string> InferenceServer::Versions(
    const std::string& model) const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(models_mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) return out;
  for (auto& [n, v] : it->second) out.push_back(v->version());
  return out;
}

std::vector<std::string> InferenceServer::ModelNames() const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(models_mutex_);
  for (auto& [name, v] : models_) out.push_back(name);
  return out;
}

std::vector<RepositoryEntry> InferenceServer::Index(bool ready_only) const {
  // Folders of the repository that hold no model now (added since, or
  // unloaded) are listed too, as Triton lists them.
  std::set<std::string> folders;
  std::error_code ec;
  for (auto& entry : fs::directory_iterator(repository_, ec)) {
    if (entry.is_directory(ec))
      folders.insert(entry.path().filename().string());
  }
  std::vector<RepositoryEntry> out;
  std::lock_guard<std::mutex> lock(models_mutex_);
  for (auto& [name, versions] : models_) folders.erase(name);
  auto model = models_.begin();
  auto folder = folders.begin();
  // Both sorted by name: merged, so the index is in name order.
  while (model != models_.end() || folder != folders.end()) {
    if (folder == folders.end() ||
        (model != models_.end() && model->first < *folder)) {
      for (auto& [n, v] : model->second) {
        if (ready_only && !v->ready()) continue;
        out.push_back({v->name(), v->version(),
                       v->ready() ? "READY" : "UNAVAILABLE", v->error()});
      }
      ++model;
    } else {
      if (!ready_only) {
        auto why = not_loaded_.find(*folder);
        if (why == not_loaded_.end()) {
          out.push_back({*folder, "", "", ""});
        } else {
          out.push_back({*folder, "", "UNAVAILABLE", why->second});
        }
      }
      ++folder;
    }
  }
  return out;
}

Status InferenceServer::ModelControlAllowed(const std::string& model) const {
  if (!options_.model_control) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "model '" + model +
                             "': loading and unloading models is off; start "
                             "the server with --model-control-mode explicit");
  }
  // A name is one folder of the repository, never a path out of it.
  if (model.empty() || model == "." || model == ".." ||
      model.find('/') != std::string::npos ||
      model.find('\0') != std::string::npos) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'" + model +
                             "' is not a model name: a name is one folder of "
                             "the model repository");
  }
  if (stopping_) {
    return Status::Error(StatusCode::kUnavailable,
                         "model '" + model + "': the server is shutting down");
  }
  return Status();
}

Status InferenceServer::Load(const std::string& model,
                             const std::string& config_json) {
  Status allowed = ModelControlAllowed(model);
  if (!allowed.ok()) return allowed;
  std::lock_guard<std::mutex> control(control_mutex_);
  if (stopping_) return ModelControlAllowed(model);
  std::error_code ec;
  const fs::path folder = fs::path(repository_) / model;
  if (!fs::is_directory(folder, ec)) {
    return Status::Error(StatusCode::kNotFound,
                         "model '" + model + "': no folder " + folder.string() +
                             " in the model repository");
  }
  // Why the load failed: the model's reason when it has no version (its
  // placeholder version "0" is not a folder), else each failing version's.
  std::string failed;
  VersionMap fresh =
      LoadModel(model, config_json.empty() ? nullptr : &config_json, &failed);
  if (failed.empty()) {
    for (auto& [n, v] : fresh) {
      if (!v->ready()) {
        failed += (failed.empty() ? "" : "; ") +
                  ("version " + v->version() + ": " + v->error());
      }
    }
  }
  VersionMap old;
  {
    std::unique_lock<std::mutex> lock(models_mutex_);
    auto it = models_.find(model);
    bool old_serves = false;
    if (it != models_.end()) {
      for (auto& [n, v] : it->second) old_serves |= v->ready();
    }
    if (!failed.empty() && old_serves) {
      lock.unlock();
      for (auto& [n, v] : fresh) v->Stop();
      return Status::Error(
          StatusCode::kInvalidArgument,
          "model '" + model +
              "' failed to load, and serves as before: " + failed);
    }
    if (!failed.empty()) {
      // Not served before: kept out, the reason recorded for the index,
      // so that one bad load does not make the server unready while its
      // other models serve.
      not_loaded_[model] = "its last load failed: " + failed;
      if (it != models_.end()) {
        old = std::move(it->second);
        models_.erase(it);
      }
    } else {
      not_loaded_.erase(model);
      if (it != models_.end()) old = std::move(it->second);
      models_[model] = std::move(fresh);
    }
  }
  Retire(&old);
  if (!failed.empty()) {
    for (auto& [n, v] : fresh) v->Stop();
    return Status::Error(StatusCode::kInvalidArgument,
                         "model '" + model + "' failed to load: " + failed);
  }
  LOG(INFO) << "model '" << model << "' loaded";
  return Status();
}

void InferenceServer::Retire(VersionMap* versions) {
  // A request that found a version before it left models_ still hands
  // itself over: the version takes requests until it is the last holder's
  // (polled: loads and unloads are rare), and then answers what it
  // queued. Stopping it at once would refuse those requests.
  const auto give_up = std::chrono::steady_clock::now() + kRetireWait;
  for (auto& [n, v] : *versions) {
    while (v.use_count() > 1 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (v.use_count() > 1) {
      LOG(WARNING) << "model '" << v->name() << "' version " << v->version()
                   << ": still held after "
                   << std::chrono::duration_cast<std::chrono::seconds>(
                          kRetireWait)
                          .count()
                   << " s; stopped anyway";
    }
    v->Stop();
  }
  versions->clear();
}

Status InferenceServer::Unload(const std::string& model) {
  Status allowed = ModelControlAllowed(model);
  if (!allowed.ok()) return allowed;
  std::lock_guard<std::mutex> control(control_mutex_);
  if (stopping_) return ModelControlAllowed(model);
  VersionMap old;
  {
    std::unique_lock<std::mutex> lock(models_mutex_);
    auto it = models_.find(model);
    if (it == models_.end()) {
      return Status::Error(StatusCode::kNotFound,
                           "model '" + model + "' is not loaded");
    }
    old = std::move(it->second);
    models_.erase(it);
    not_loaded_[model] = "unloaded";
  }
  Retire(&old);
  LOG(INFO) << "model '" << model << "' unloaded";
  return Status();
}

void InferenceServer::InferAsync(InferRequest request,
                                 ModelVersion::Done done) {
  // Answers a request refused before it reaches its model.
  auto refuse = [&request, &done](Status status) {
    InferResponse response;
    response.model = request.model;
    response.version = request.version;
    response.status = std::move(status);
    done(std::move(response));
  };
  Status status;
  // Held while the request is handed over: an unload that takes the
  // version away meanwhile answers what it queued before releasing it.
  std::shared_ptr<ModelVersion> model =
      FindShared(request.model, request.version, &status);
  if (!model) return refuse(status);
  std::map<std::string, std::shared_ptr<const SharedMemoryRegion>> regions;
  const bool any_shared_memory =
      !request.output_shared_memory.empty() ||
      std::any_of(request.inputs.begin(), request.inputs.end(),
                  [](const TensorData& t) { return t.shared_memory.used(); });
  if (any_shared_memory) {
    status = ReadSharedMemoryInputs(&request, &regions);
    if (!status.ok()) return refuse(status);
  }
  metrics_.AddInflight(1);
  if (request.output_shared_memory.empty()) {
    model->InferAsync(std::move(request),
                      [this, done = std::move(done)](InferResponse response) {
                        metrics_.AddInflight(-1);
                        done(std::move(response));
                      });
    return;
  }
  std::map<std::string, SharedMemoryRef> asked = request.output_shared_memory;
  model->InferAsync(std::move(request),
                    [this, done = std::move(done), asked = std::move(asked),
                     regions = std::move(regions)](InferResponse response) {
                      // Written before the request counts as answered: a client
                      // that reads the region once answered must find the
                      // output there.
                      WriteSharedMemoryOutputs(asked, regions, &response);
                      metrics_.AddInflight(-1);
                      done(std::move(response));
                    });
}

Status InferenceServer::ReadSharedMemoryInputs(
    InferRequest* request,
    std::map<std::string, std::shared_ptr<const SharedMemoryRegion>>* regions)
    const {
  const std::string model = "model '" + request->model + "': ";
  uint64_t total = 0;
  for (TensorData& in : request->inputs) {
    if (!in.shared_memory.used()) continue;
    const std::string what = model + "input '" + in.name + "'";
    std::shared_ptr<const SharedMemoryRegion> region;
    Status status = shared_memory_.Find(in.shared_memory.region, &region);
    if (!status.ok()) {
      status.message = what + ": " + status.message;
      return status;
    }
    // The shape's bytes must be what the region holds for it: checked
    // before reading, so that a shape that claims gigabytes is refused
    // rather than allocated.
    uint64_t bytes = ElementSize(in.type);
    bool overflow = false;
    for (const int64_t d : in.shape) {
      overflow |= d < 0 || __builtin_mul_overflow(
                               bytes, static_cast<uint64_t>(d), &bytes);
    }
    if (overflow || bytes != in.shared_memory.byte_size) {
      return Status::Error(StatusCode::kInvalidArgument,
                           what + ": shared_memory_byte_size is " +
                               std::to_string(in.shared_memory.byte_size) +
                               ", but shape " + ShapeString(in.shape) + " of " +
                               ProtocolTypeName(in.type) + " needs " +
                               (overflow ? std::string("more than 2^64")
                                         : std::to_string(bytes)) +
                               " bytes");
    }
    if (__builtin_add_overflow(total, bytes, &total) ||
        total > options_.max_shared_memory_input_bytes) {
      return Status::Error(
          StatusCode::kInvalidArgument,
          what + ": the request's inputs in shared memory come to more than " +
              std::to_string(options_.max_shared_memory_input_bytes) +
              " bytes, the most a request may take (--max-body-mb)");
    }
    in.bytes.resize(bytes);
    in.borrowed = std::string_view();
    status =
        region->Read(what, in.shared_memory.offset, bytes, in.bytes.data());
    if (!status.ok()) return status;
  }
  for (const auto& [name, ref] : request->output_shared_memory) {
    std::shared_ptr<const SharedMemoryRegion> region;
    Status status = shared_memory_.Find(ref.region, &region);
    if (!status.ok()) {
      status.message = model + "output '" + name + "': " + status.message;
      return status;
    }
    (*regions)[name] = std::move(region);
  }
  return Status();
}

void InferenceServer::WriteSharedMemoryOutputs(
    const std::map<std::string, SharedMemoryRef>& asked,
    const std::map<std::string, std::shared_ptr<const SharedMemoryRegion>>&
        regions,
    InferResponse* response) {
  if (!response->status.ok()) return;
  for (TensorData& out : response->outputs) {
    auto ref = asked.find(out.name);
    if (ref == asked.end()) continue;
    const std::string what =
        "model '" + response->model + "': output '" + out.name + "'";
    const std::string_view elements = out.elements();
    if (elements.size() > ref->second.byte_size) {
      response->status = Status::Error(
          StatusCode::kInvalidArgument,
          what + " has " + std::to_string(elements.size()) + " bytes (shape " +
              ShapeString(out.shape) + " of " + ProtocolTypeName(out.type) +
              "), more than its "
              "shared_memory_byte_size " +
              std::to_string(ref->second.byte_size) + " in region '" +
              ref->second.region + "'");
      return;
    }
    Status status =
        regions.at(out.name)->Write(what, ref->second.offset, elements);
    if (!status.ok()) {
      response->status = status;
      return;
    }
    out.shared_memory = ref->second;
    out.shared_memory.byte_size = elements.size();
    out.bytes.clear();
    out.bytes.shrink_to_fit();
    out.borrowed = std::string_view();
  }
}

InferResponse InferenceServer::Infer(InferRequest request) {
  std::promise<InferResponse> answer;
  std::future<InferResponse> future = answer.get_future();
  InferAsync(std::move(request),
             [&answer](InferResponse r) { answer.set_value(std::move(r)); });
  return future.get();
}

void InferenceServer::Stop() {
  std::lock_guard<std::mutex> control(control_mutex_);
  stopping_ = true;
  std::vector<std::shared_ptr<ModelVersion>> all;
  {
    std::lock_guard<std::mutex> lock(models_mutex_);
    for (auto& [name, versions] : models_) {
      for (auto& [n, model] : versions) all.push_back(model);
    }
  }
  // Outside the lock: lookups go on meanwhile, and are refused.
  for (auto& model : all) model->Stop();
}

}  // namespace serve
}  // namespace pdlite
