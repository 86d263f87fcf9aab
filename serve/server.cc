#include "serve/server.h"

#include <glog/logging.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "serve/classification.h"

namespace pdlite {
namespace serve {

namespace fs = std::filesystem;

namespace {

// A labels file's size, at most (config.json's "labels"): ImageNet's 1000
// labels take 21 KB.
constexpr size_t kMaxLabelsFileBytes = size_t{16} << 20;
// A model's config.json: a few hundred bytes in practice.
constexpr size_t kMaxConfigFileBytes = size_t{1} << 20;
bool AllDigits(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}
// Version numbers are int64; 18 digits always fit.
constexpr size_t kMaxVersionDigits = 18;
bool IsVersionName(const std::string& name) {
  return name.size() <= kMaxVersionDigits && AllDigits(name);
}

// The names of the folders in `dir` (through symlinks), in directory
// order. Never throws: std::filesystem's throwing calls would end the
// server on a folder it may not read (a volume's lost+found); `*error`
// says why the listing stopped early.
std::vector<std::string> SubFolders(const fs::path& dir,
                                    std::error_code* error) {
  std::vector<std::string> names;
  fs::directory_iterator it(dir, *error);
  for (const fs::directory_iterator end; !*error && it != end;
       it.increment(*error)) {
    std::error_code ec;
    if (it->is_directory(ec)) names.push_back(it->path().filename().string());
  }
  return names;
}

// The model folders of a repository: its folders but those a volume or a
// tool puts there, which would be models never ready, keeping the server
// not ready for good: hidden ones (".git"; a Kubernetes ConfigMap's
// "..data" and "..<time>", which poll mode meets) and "lost+found". Nor
// folders whose names cannot name a model (not UTF-8, a control
// character): no client could address them, and one in the index made
// every gRPC index and statistics answer unreadable; they go in
// `*unnamed` when given.
std::vector<std::string> ModelFolders(
    const fs::path& repository,
    std::error_code* error,
    std::vector<std::string>* unnamed = nullptr) {
  std::vector<std::string> names = SubFolders(repository, error);
  names.erase(std::remove_if(names.begin(), names.end(),
                             [unnamed](const std::string& name) {
                               if (name.empty() || name[0] == '.' ||
                                   name == "lost+found") {
                                 return true;
                               }
                               if (IsModelName(name)) return false;
                               if (unnamed) unnamed->push_back(name);
                               return true;
                             }),
              names.end());
  return names;
}

// What Fingerprint records of one path: what a symlink points to, and the
// identity, type, size and times of what it resolves to. A file replaced
// by a rename (a new inode) or rewritten (ctime) counts as changed even
// where modification times are normalized (image builders set them all
// to 0 or 1).
std::string PathIdentity(const fs::path& path) {
  std::string out;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    out += "-> " + fs::read_symlink(path, ec).string() + " ";
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return out + "unreadable: " + std::strerror(errno);
  }
  auto ns = [](const struct timespec& t) {
    return std::to_string(t.tv_sec) + "." + std::to_string(t.tv_nsec);
  };
  return out + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) +
         " " + std::to_string(st.st_mode) + " " + std::to_string(st.st_size) +
         " " + ns(st.st_mtim) + " " + ns(st.st_ctim);
}
}  // namespace

Status CheckRepositoryParameters(const std::string& model,
                                 bool load,
                                 std::vector<RepositoryParameter> parameters,
                                 std::string* config_json,
                                 ModelFiles* files) {
  using Kind = RepositoryParameter::Kind;
  const std::string what = "model '" + model + "': ";
  auto bad = [&](const std::string& why) {
    return Status::Error(StatusCode::kInvalidArgument, what + why);
  };
  for (RepositoryParameter& p : parameters) {
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
      if (p.kind != Kind::kBytes) {
        return bad("\"" + p.key +
                   "\" must hold the file's bytes (base64 over HTTP, "
                   "bytes_param over gRPC)");
      }
      std::string why;
      if (!SentFilePathOk(p.key.substr(5), &why)) {
        return bad("\"" + p.key + "\": " + why);
      }
      if (files->size() >= kMaxSentFiles) {
        return bad("a load may send at most " + std::to_string(kMaxSentFiles) +
                   " files");
      }
      (*files)[p.key.substr(5)] = std::move(p.text);
    } else {
      return bad("unknown parameter \"" + p.key + "\" for " +
                 (load ? "load" : "unload"));
    }
  }
  if (!files->empty() && config_json->empty()) {
    return bad(
        "a load that sends files needs \"config\" too (config.json's JSON; "
        "\"{}\" for the defaults): the model is loaded from the files "
        "alone, not from its folder in the repository");
  }
  return Status();
}

InferenceServer::InferenceServer(const std::string& repository,
                                 ServerOptions options)
    : repository_(repository),
      options_(options),
      shared_memory_(options.shared_memory),
      log_settings_(options.log_verbose_level) {
  std::error_code ec;
  std::vector<std::string> unnamed;
  const std::vector<std::string> folders =
      ModelFolders(repository, &ec, &unnamed);
  if (ec) {
    throw std::runtime_error("cannot read the model repository '" + repository +
                             "': " + ec.message());
  }
  for (const std::string& name : unnamed) {
    LOG(WARNING) << "model repository '" << repository << "': folder '"
                 << LoggedText(name)
                 << "' is skipped: a model's name must be UTF-8 without "
                    "control characters";
  }
  const bool polling = options_.repository_poll.count() > 0;
  for (const std::string& name : folders) {
    // Taken before loading: a file changed meanwhile is loaded again at
    // the next poll.
    if (polling) fingerprints_[name] = Fingerprint(name).text;
    models_[name] = LoadModel(name, (fs::path(repository) / name).string(),
                              nullptr, nullptr);
  }
  if (polling) poller_ = std::thread([this] { PollLoop(); });
}

InferenceServer::VersionMap InferenceServer::LoadModel(
    const std::string& name,
    const std::string& model_folder,
    const std::string* config_json,
    std::string* no_version) {
  const fs::path folder = model_folder;
  VersionMap versions;
  ModelConfig config;
  std::string config_error;
  const fs::path config_path = folder / "config.json";
  if (config_json) {
    if (!ParseModelConfig(*config_json, &config, &config_error)) {
      config_error = "the load request's config: " + config_error;
    }
  } else if (std::error_code config_ec;
             fs::symlink_status(config_path, config_ec).type() !=
             fs::file_type::not_found) {
    // Opened only when a regular file: a FIFO named config.json would
    // block the open (and the polling thread) until a writer came. A link
    // to nothing is an error, not a model without a config.
    std::error_code size_ec;
    if (config_ec) {
      config_error = config_path.string() + ": " + config_ec.message();
    } else if (!fs::is_regular_file(config_path, config_ec)) {
      config_error =
          config_path.string() + ": not a regular file (nor a link to one)";
    } else if (fs::file_size(config_path, size_ec) > kMaxConfigFileBytes) {
      config_error = config_path.string() + ": over " +
                     std::to_string(kMaxConfigFileBytes) + " bytes";
    } else {
      std::ifstream file(config_path);
      std::stringstream text;
      text << file.rdbuf();
      if (!ParseModelConfig(text.str(), &config, &config_error)) {
        config_error = config_path.string() + ": " + config_error;
      }
    }
  }
  // Labels files are read once for every version.
  for (auto& [output, file] : config.label_files) {
    if (!config_error.empty()) break;
    std::string error;
    auto labels = std::make_shared<std::vector<std::string>>();
    if (!ReadLabelsFile((folder / file).string(), kMaxLabelsFileBytes,
                        labels.get(), &error)) {
      config_error = "labels of output '" + output + "': " + error;
    }
    config.labels[output] = std::move(labels);
  }
  std::error_code ec;
  // The version folders, by number; then those the version policy serves.
  std::map<int64_t, std::string> found;
  // Numbered folders past the largest version number: said, not skipped
  // in silence.
  std::string too_long;
  for (const std::string& version : SubFolders(folder, &ec)) {
    if (AllDigits(version) && !IsVersionName(version)) {
      LOG(WARNING) << "model '" << name << "': version folder '" << version
                   << "' has more than " << kMaxVersionDigits
                   << " digits, and is ignored";
      too_long += (too_long.empty() ? "" : ", ") + version;
    }
    if (!IsVersionName(version)) continue;
    auto [it, added] = found.emplace(std::stoll(version), version);
    // "1" and "01": which would serve would depend on directory order.
    if (!added && config_error.empty()) {
      config_error = "version folders '" + std::min(it->second, version) +
                     "' and '" + std::max(it->second, version) +
                     "' are both version " + std::to_string(it->first);
    }
  }
  std::vector<std::string> serve;
  // A version the policy names that has no folder: not ready, saying so.
  std::vector<int64_t> missing;
  using Policy = ModelConfig::VersionPolicy;
  if (!config_error.empty() || config.version_policy == Policy::kAll) {
    for (auto& [n, v] : found) serve.push_back(v);
  } else if (config.version_policy == Policy::kLatest) {
    for (auto it = found.rbegin();
         it != found.rend() &&
         static_cast<int64_t>(serve.size()) < config.latest_versions;
         ++it) {
      serve.push_back(it->second);
    }
  } else {
    for (const int64_t n : config.specific_versions) {
      auto it = found.find(n);
      if (it == found.end()) {
        missing.push_back(n);
      } else {
        serve.push_back(it->second);
      }
    }
  }
  for (const std::string& version : serve) {
    std::shared_ptr<ModelVersion> loaded;
    if (!config_error.empty()) {
      loaded = std::make_shared<ModelVersion>(name, version, config_error);
    } else {
      loaded = std::make_shared<ModelVersion>(
          name, version, (folder / version).string(), config, &metrics_);
    }
    if (loaded->ready()) {
      LOG(INFO) << "model '" << name << "' version " << version << " ready ("
                << config.instances << " instance(s), " << config.threads
                << " thread(s) each"
                << (loaded->batches()
                        ? ", batches up to " +
                              std::to_string(config.max_batch_size)
                        : std::string())
                << ")";
      // The queue limit counts a waiting batch's requests too.
      if (loaded->batches() && config.batch_delay_us > 0 &&
          config.queue_limit < config.max_batch_size) {
        LOG(WARNING) << "model '" << name << "' version " << version
                     << ": queue_limit " << config.queue_limit
                     << " is less than max_batch_size " << config.max_batch_size
                     << ": a batch of one-row requests waits out "
                        "batch_delay_us with at most "
                     << config.queue_limit << " of them";
      }
    } else {
      LOG(ERROR) << "model '" << name << "' version " << version
                 << " failed to load: " << loaded->error();
    }
    versions[std::stoll(version)] = std::move(loaded);
  }
  for (const int64_t n : missing) {
    const std::string why = "the version_policy names version " +
                            std::to_string(n) + ", but there is no folder " +
                            (folder / std::to_string(n)).string();
    LOG(ERROR) << "model '" << name << "': " << why;
    versions[n] = std::make_shared<ModelVersion>(name, std::to_string(n), why);
  }
  if (ec) {
    // A listing that stopped early (EMFILE, EIO) must not pass for a model
    // without the versions it missed: the load fails, and a model that
    // serves serves on.
    for (auto& [n, v] : versions) v->Stop();
    versions.clear();
  }
  if (versions.empty()) {
    // Reported rather than dropped, so a typo in the layout is visible.
    std::string why = config_error;
    if (why.empty()) {
      why = ec ? "cannot read " + folder.string() + ": " + ec.message()
               : "no numbered version folder in " + folder.string();
      if (!ec && !too_long.empty()) {
        why += " (" + too_long + ": more than " +
               std::to_string(kMaxVersionDigits) + " digits)";
      }
    }
    LOG(ERROR) << "model '" << name << "': " << why;
    versions[0] = std::make_shared<ModelVersion>(name, "0", why);
    if (no_version) *no_version = why;
  }
  return versions;
}

InferenceServer::~InferenceServer() { Stop(); }

bool InferenceServer::Ready() const {
  if (ShuttingDown()) return false;
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
  std::vector<std::string> out = {
      "binary_tensor_data",  "classification", "statistics",
      "model_configuration", "logging",        "pdlite_lod"};
  // The index is answered in every mode; loads and unloads with explicit.
  if (options_.model_control || options_.repository_poll.count() > 0) {
    out.push_back("model_repository");
  }
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
    std::string message = "unknown model '" + model + "'";
    if (options_.name_models_in_errors) {
      // A few names, to catch a misspelling: a repository may have
      // thousands.
      constexpr size_t kModelsNamed = 10;
      std::string known;
      size_t named = 0;
      for (auto& [name, v] : models_) {
        if (named++ == kModelsNamed) break;
        known += (known.empty() ? "'" : ", '") + name + "'";
      }
      if (models_.size() > kModelsNamed) {
        known += " and " + std::to_string(models_.size() - kModelsNamed) +
                 " more (GET /v2/repository/index lists them)";
      }
      message += "; the models are " + (known.empty() ? "none" : known);
    }
    *status = Status::Error(StatusCode::kNotFound, message);
    return nullptr;
  }
  const auto& versions = it->second;
  if (version.empty()) {
    // The highest version that is ready, as Triton chooses; the highest,
    // to say why, when none is.
    for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
      if (v->second->ready()) return v->second;
    }
    return versions.rbegin()->second;
  }
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

Status InferenceServer::FindToRun(const std::string& model,
                                  const std::string& version,
                                  std::shared_ptr<ModelVersion>* found) const {
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
  std::error_code ec;
  const std::vector<std::string> listed = ModelFolders(repository_, &ec);
  std::set<std::string> folders(listed.begin(), listed.end());
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
  if (options_.repository_poll.count() > 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "model '" + LoggedText(model) +
                             "': the server loads and unloads models as the "
                             "repository changes (--model-control-mode "
                             "poll), not when asked");
  }
  if (!options_.model_control) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "model '" + LoggedText(model) +
                             "': loading and unloading models is off; start "
                             "the server with --model-control-mode explicit");
  }
  // A name is one folder of the repository, never a path out of it.
  if (!IsModelName(model)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'" + LoggedText(model) +
                             "' is not a model name: a name is one folder of "
                             "the model repository (at most 255 bytes), "
                             "UTF-8 without control characters");
  }
  // Nor one of the folders the repository's listing leaves out.
  if (model[0] == '.' || model == "lost+found") {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'" + model +
                             "' is not a model name: hidden folders and "
                             "lost+found are never models");
  }
  if (ShuttingDown()) {
    return Status::Error(StatusCode::kUnavailable,
                         "model '" + model + "': the server is shutting down");
  }
  return Status();
}

class InferenceServer::ControlCall {
 public:
  explicit ControlCall(InferenceServer* server) : server_(server) {
    std::lock_guard<std::mutex> lock(server_->control_calls_mutex_);
    ++server_->control_calls_;
  }
  ~ControlCall() {
    {
      std::lock_guard<std::mutex> lock(server_->control_calls_mutex_);
      --server_->control_calls_;
    }
    server_->control_calls_done_.notify_all();
  }
  ControlCall(const ControlCall&) = delete;
  ControlCall& operator=(const ControlCall&) = delete;

 private:
  InferenceServer* server_;
};

Status InferenceServer::Load(const std::string& model,
                             const std::string& config_json,
                             const ModelFiles& files) {
  ControlCall call(this);
  Status allowed = ModelControlAllowed(model);
  if (!allowed.ok()) return allowed;
  std::vector<VersionMap> retired;
  Status status;
  // A copy of the model still being retired (another client's reload or
  // unload, held by a slow request) is waited for, without control_mutex_,
  // before another is loaded; past retire_wait, LoadLocked refuses.
  const auto give_up = std::chrono::steady_clock::now() + options_.retire_wait;
  for (;;) {
    while (Retiring(model) && !ShuttingDown() &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard<std::mutex> control(control_mutex_);
    if (ShuttingDown()) return ModelControlAllowed(model);
    // Another load may have begun retiring one since: waited for too.
    if (Retiring(model) && std::chrono::steady_clock::now() < give_up) {
      continue;
    }
    status = LoadLocked(model, config_json, files, &retired);
    break;
  }
  Retire(&retired);
  return status;
}

Status InferenceServer::LoadLocked(const std::string& model,
                                   const std::string& config_json,
                                   const ModelFiles& files,
                                   std::vector<VersionMap>* retired) {
  if (Retiring(model)) {
    return Status::Error(
        StatusCode::kUnavailable,
        "model '" + model +
            "': its previous copy is still answering the requests it took, "
            "after " +
            RetireWaitText() + "; load it again once it has");
  }
  std::error_code ec;
  fs::path folder = fs::path(repository_) / model;
  const bool in_repository = fs::is_directory(folder, ec);
  // The files a load sent, removed once loaded: the versions hold the
  // model in memory.
  std::unique_ptr<SentModelFolder> sent;
  if (!files.empty()) {
    Status written = SentModelFolder::Write(model, files, &sent);
    if (!written.ok()) return written;
    folder = sent->path();
  } else if (!in_repository) {
    return Status::Error(StatusCode::kNotFound,
                         "model '" + model + "': no folder " + folder.string() +
                             " in the model repository");
  }
  // Why the load failed: the model's reason when it has no version (its
  // placeholder version "0" is not a folder), else each failing version's.
  std::string failed;
  VersionMap fresh =
      LoadModel(model, folder.string(),
                config_json.empty() ? nullptr : &config_json, &failed);
  if (failed.empty()) {
    for (auto& [n, v] : fresh) {
      if (!v->ready()) {
        failed += (failed.empty() ? "" : "; ") +
                  ("version " + v->version() + ": " + v->error());
      }
    }
  }
  if (sent) failed = sent->AsSent(failed);
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
      // other models serve. A model that is no folder of the repository
      // (its files were sent) leaves nothing: names that come and go must
      // not grow the record.
      if (in_repository) {
        not_loaded_[model] = "its last load failed: " + failed;
      } else {
        not_loaded_.erase(model);
      }
      if (it != models_.end()) {
        old = std::move(it->second);
        models_.erase(it);
      }
    } else {
      not_loaded_.erase(model);
      if (it != models_.end()) old = std::move(it->second);
      models_[model] = fresh;
    }
  }
  // A drain that began while this load ran did not see its versions:
  // BeginShutdown set the flag before it looked.
  if (failed.empty() && ShuttingDown()) {
    for (auto& [n, v] : fresh) v->Drain();
  }
  if (!old.empty()) AddRetiring(model, std::move(old), retired);
  if (!failed.empty()) {
    for (auto& [n, v] : fresh) v->Stop();
    return Status::Error(StatusCode::kInvalidArgument,
                         "model '" + model + "' failed to load: " + failed);
  }
  LOG(INFO) << "model '" << model << "' loaded";
  return Status();
}

bool InferenceServer::Retiring(const std::string& model) const {
  std::lock_guard<std::mutex> lock(models_mutex_);
  return retiring_.count(model) != 0;
}

void InferenceServer::AddRetiring(const std::string& model,
                                  VersionMap versions,
                                  std::vector<VersionMap>* retired) {
  // Counted once the caller holds it to Retire, which uncounts it: a
  // count whose Retire never came would refuse the model's loads for good.
  retired->push_back(std::move(versions));
  try {
    std::lock_guard<std::mutex> lock(models_mutex_);
    ++retiring_[model];
  } catch (const std::bad_alloc&) {
    // Not counted: loads are not held back for this copy.
  }
}

void InferenceServer::Retire(std::vector<VersionMap>* retired) {
  if (retired->empty()) return;
  // A request that found a version before it left models_ still hands
  // itself over: the version takes requests until it is the last holder's
  // (polled: loads and unloads are rare), and then answers what it
  // queued. Stopping it at once would refuse those requests. In a
  // shutdown it stops at once: its runs and its queue are still answered.
  const auto give_up = std::chrono::steady_clock::now() + options_.retire_wait;
  for (VersionMap& versions : *retired) {
    for (auto& [n, v] : versions) {
      while (v.use_count() > 1 && !ShuttingDown() &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (v.use_count() > 1 && !ShuttingDown()) {
        LOG(WARNING) << "model '" << v->name() << "' version " << v->version()
                     << ": still held after " << RetireWaitText()
                     << "; stopped anyway";
      }
      v->Stop();
      // Its metrics go with it, unless a version of the same number took
      // its place (a reload): names and versions that come and go must not
      // grow /metrics without bound. Under the lock, so that a load that
      // puts the number back meanwhile keeps its own counts. A version
      // still held may still record requests: forgotten once released.
      std::lock_guard<std::mutex> lock(models_mutex_);
      ForgetReleasedLocked();
      auto model = models_.find(v->name());
      const bool replaced =
          model != models_.end() && model->second.count(n) != 0;
      if (!replaced && v.use_count() == 1) {
        metrics_.Forget(v->name(), v->version());
      } else if (!replaced) {
        lingering_.push_back({v->name(), n, v->version(), v});
      }
    }
    // Released here, before the model may load again.
    const std::string model = versions.begin()->second->name();
    versions.clear();
    std::lock_guard<std::mutex> lock(models_mutex_);
    auto count = retiring_.find(model);
    if (count != retiring_.end() && --count->second == 0) {
      retiring_.erase(count);
    }
  }
  retired->clear();
}

void InferenceServer::ForgetReleasedLocked() {
  auto released = [this](const Lingering& l) {
    if (!l.held.expired()) return false;
    auto model = models_.find(l.model);
    if (model == models_.end() || model->second.count(l.number) == 0) {
      metrics_.Forget(l.model, l.version);
    }
    return true;
  };
  lingering_.erase(
      std::remove_if(lingering_.begin(), lingering_.end(), released),
      lingering_.end());
}

std::string InferenceServer::RenderMetrics() {
  {
    std::lock_guard<std::mutex> lock(models_mutex_);
    ForgetReleasedLocked();
  }
  return metrics_.Render();
}

std::string InferenceServer::RetireWaitText() const {
  const auto ms = options_.retire_wait.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s"
                        : std::to_string(ms) + " ms";
}

Status InferenceServer::Unload(const std::string& model) {
  ControlCall call(this);
  Status allowed = ModelControlAllowed(model);
  if (!allowed.ok()) return allowed;
  std::vector<VersionMap> retired;
  Status status;
  {
    std::lock_guard<std::mutex> control(control_mutex_);
    if (ShuttingDown()) return ModelControlAllowed(model);
    status = UnloadLocked(model, &retired);
  }
  Retire(&retired);
  return status;
}

Status InferenceServer::UnloadLocked(const std::string& model,
                                     std::vector<VersionMap>* retired) {
  std::error_code ec;
  const bool in_repository =
      fs::is_directory(fs::path(repository_) / model, ec);
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
    // Recorded for the index and later requests, unless the model is no
    // folder of the repository (loaded from files sent): then it is
    // unknown from now on, so that names that come and go leave nothing.
    if (in_repository) not_loaded_[model] = "unloaded";
  }
  if (!old.empty()) AddRetiring(model, std::move(old), retired);
  LOG(INFO) << "model '" << model << "' unloaded";
  return Status();
}

InferenceServer::FolderPrint InferenceServer::Fingerprint(
    const std::string& model) const {
  // Bounded: a model of more entries than this is compared by its first
  // ones (in directory order, which stays the same while nothing changes);
  // and so are directory symlinks that loop.
  constexpr int kMaxEntries = 10000;
  constexpr int kMaxDepth = 16;
  const fs::path folder = fs::path(repository_) / model;
  FolderPrint print;
  std::error_code ec;
  std::error_code size_ec;
  if (fs::is_regular_file(folder / "config.json", ec) &&
      fs::file_size(folder / "config.json", size_ec) <= kMaxConfigFileBytes) {
    std::ifstream config(folder / "config.json", std::ios::binary);
    std::stringstream text;
    text << config.rdbuf();
    print.text += "config.json\n" + text.str() + "\n";
    // The labels files it names, which a load reads too.
    ModelConfig parsed;
    std::string error;
    if (ParseModelConfig(text.str(), &parsed, &error)) {
      for (const auto& [output, file] : parsed.label_files) {
        print.text +=
            "labels " + file + " " + PathIdentity(folder / file) + "\n";
      }
    }
  } else {
    print.text += "config.json " + PathIdentity(folder / "config.json") + "\n";
  }
  std::vector<std::string> versions = SubFolders(folder, &ec);
  if (ec) print.readable = false;
  versions.erase(
      std::remove_if(versions.begin(), versions.end(),
                     [](const std::string& v) { return !IsVersionName(v); }),
      versions.end());
  std::sort(versions.begin(), versions.end());
  print.has_versions = !versions.empty();
  int count = 0;
  for (const std::string& version : versions) {
    const fs::path root = folder / version;
    // A version folder is often a symlink to the model's folder: where it
    // points, and the files there, are what count.
    print.text += "version " + version + " " + PathIdentity(root) + "\n";
    std::vector<std::string> entries;
    std::error_code walk_ec;
    // The version folder itself: one this user may not open is recorded
    // as such (skip_permission_denied below would read it as empty), and
    // the other versions and config.json are still watched (a load that
    // would serve it fails, saying why; a version_policy that leaves out a
    // retired version closed for good serves the others). Other errors
    // (EIO, EMFILE) pass: the model is left as it is until a poll reads
    // it.
    const fs::directory_iterator opened(root, walk_ec);
    if (walk_ec == std::errc::permission_denied) {
      print.text += "  cannot be opened: " + walk_ec.message() + "\n";
      continue;
    }
    if (walk_ec) {
      print.readable = false;
      continue;
    }
    // A folder inside it that this user may not open (a volume's
    // lost+found) is recorded, not entered: the loader never reads it,
    // and stopping there would leave the model unwatched for good.
    fs::recursive_directory_iterator it(
        root,
        fs::directory_options::follow_directory_symlink |
            fs::directory_options::skip_permission_denied,
        walk_ec);
    for (const fs::recursive_directory_iterator end;
         !walk_ec && it != end && count < kMaxEntries; it.increment(walk_ec)) {
      if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
      entries.push_back(it->path().lexically_relative(root).string() + " " +
                        PathIdentity(it->path()));
      ++count;
    }
    std::sort(entries.begin(), entries.end());
    for (const std::string& e : entries) print.text += e + "\n";
    if (walk_ec) print.readable = false;
  }
  return print;
}

void InferenceServer::PollRepository() {
  if (options_.repository_poll.count() <= 0) return;
  ControlCall call(this);
  std::vector<VersionMap> retired;
  try {
    PollOnce(&retired);
  } catch (const std::exception& e) {
    // Memory running out, or a library that throws: the models serve on,
    // and the next poll tries again.
    LOG(ERROR) << "polling the model repository '" << repository_
               << "' failed: " << e.what();
  }
  // Once control_mutex_ is released, so that Stop need not wait for it.
  Retire(&retired);
}

void InferenceServer::PollOnce(std::vector<VersionMap>* retired) {
  std::error_code ec;
  const std::vector<std::string> folders = ModelFolders(repository_, &ec);
  if (ec) {
    // A repository that cannot be read now (a volume being remounted)
    // changes nothing: the models serve on.
    LOG_EVERY_N(WARNING, 10) << "cannot read the model repository '"
                             << repository_ << "': " << ec.message();
    return;
  }
  // Taken before control_mutex_, which Stop also needs: walking a large
  // repository on a slow volume must not hold it.
  std::map<std::string, FolderPrint> now;
  for (const std::string& name : folders) {
    if (ShuttingDown()) return;
    now[name] = Fingerprint(name);
  }
  std::lock_guard<std::mutex> control(control_mutex_);
  for (const auto& [name, print] : now) {
    if (ShuttingDown()) return;
    // A listing that failed (a volume's passing error, EMFILE) says
    // nothing about the model: it is looked at again at the next poll.
    if (!print.readable) {
      LOG_EVERY_N(WARNING, 10)
          << "model '" << name << "': cannot read its folder; left as it is";
      continue;
    }
    auto known = fingerprints_.find(name);
    if (known != fingerprints_.end() && known->second == print.text) continue;
    // Recorded whatever follows: a model that fails is tried again once
    // its files change, not at every poll.
    const bool added = known == fingerprints_.end();
    fingerprints_[name] = print.text;
    if (!print.has_versions) {
      // Every version folder gone: unloaded, as a removed folder is,
      // rather than served from versions no longer on disk.
      const std::string why = "no numbered version folder in " +
                              (fs::path(repository_) / name).string();
      if (!added) UnloadLocked(name, retired);
      std::lock_guard<std::mutex> lock(models_mutex_);
      if (models_.count(name) == 0) not_loaded_[name] = why;
      LOG(WARNING) << "model '" << name << "': " << why;
      continue;
    }
    LOG(INFO) << "model '" << name << "': " << (added ? "added" : "changed")
              << " in the repository; loading it";
    Status status = LoadLocked(name, "", {}, retired);
    if (!status.ok()) LOG(ERROR) << status.message;
  }
  for (auto it = fingerprints_.begin(); it != fingerprints_.end();) {
    if (now.count(it->first) != 0) {
      ++it;
      continue;
    }
    if (ShuttingDown()) return;
    LOG(INFO) << "model '" << it->first
              << "': removed from the repository; unloading it";
    UnloadLocked(it->first, retired);
    {
      // Gone from the repository: an unknown model from now on, so that
      // names that come and go leave nothing behind.
      std::lock_guard<std::mutex> lock(models_mutex_);
      not_loaded_.erase(it->first);
    }
    it = fingerprints_.erase(it);
  }
}

void InferenceServer::PollLoop() {
  std::unique_lock<std::mutex> lock(poll_mutex_);
  for (;;) {
    poll_wakeup_.wait_for(lock, options_.repository_poll,
                          [this] { return shutting_down_.load(); });
    if (shutting_down_) return;
    lock.unlock();
    PollRepository();
    lock.lock();
  }
}

void InferenceServer::InferAsync(InferRequest request,
                                 ModelVersion::Done done,
                                 std::shared_ptr<ModelVersion> version) {
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
      version ? std::move(version)
              : FindShared(request.model, request.version, &status);
  if (!model) return refuse(status);
  const bool any_shared_memory =
      !request.output_shared_memory.empty() ||
      std::any_of(request.inputs.begin(), request.inputs.end(),
                  [](const TensorData& t) { return t.shared_memory.used(); });
  if (any_shared_memory) {
    status = ResolveSharedMemory(&request);
    if (!status.ok()) return refuse(status);
  }
  // Counted out once: by the answer, or here if InferAsync throws before
  // it hands the request on.
  auto counted = std::make_shared<std::atomic<bool>>(true);
  metrics_.AddInflight(1);
  try {
    model->InferAsync(
        std::move(request),
        [this, counted, done = std::move(done)](InferResponse response) {
          if (counted->exchange(false)) metrics_.AddInflight(-1);
          done(std::move(response));
        });
  } catch (...) {
    if (counted->exchange(false)) metrics_.AddInflight(-1);
    throw;
  }
}

Status InferenceServer::ResolveSharedMemory(InferRequest* request) const {
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
                               " in region '" + in.shared_memory.region +
                               "', but shape " + ShapeString(in.shape) +
                               " of " + ProtocolTypeName(in.type) + " needs " +
                               (overflow ? std::string("more than 2^64")
                                         : std::to_string(bytes)) +
                               " bytes");
    }
    if (__builtin_add_overflow(total, bytes, &total) ||
        total > options_.max_shared_memory_input_bytes) {
      return Status::Error(
          StatusCode::kInvalidArgument,
          what + " (region '" + in.shared_memory.region +
              "'): the request's inputs in shared memory come to more than " +
              std::to_string(options_.max_shared_memory_input_bytes) +
              " bytes, the most a request may take (--max-body-mb)");
    }
    // Checked now, read when the request runs (an object that shrinks
    // meanwhile fails the request then).
    status = region->CheckRange(what, in.shared_memory.offset, bytes);
    if (!status.ok()) return status;
    in.bytes.clear();
    in.borrowed = std::string_view();
    in.read_shared_memory = [region, what, offset = in.shared_memory.offset,
                             bytes](char* out) {
      return region->Read(what, offset, bytes, out);
    };
  }
  if (request->output_shared_memory.empty()) return Status();
  RegionMap regions;
  for (const auto& [name, ref] : request->output_shared_memory) {
    const std::string what = model + "output '" + name + "'";
    std::shared_ptr<const SharedMemoryRegion> region;
    Status status = shared_memory_.Find(ref.region, &region);
    if (!status.ok()) {
      status.message = what + ": " + status.message;
      return status;
    }
    // Refused before the model runs, as for an input.
    status = region->CheckRange(what, ref.offset, ref.byte_size);
    if (!status.ok()) return status;
    if (!region->writable()) {
      return Status::Error(
          StatusCode::kInvalidArgument,
          what + ": shared-memory region '" + ref.region +
              "' could be opened only for reading, so outputs cannot go "
              "there");
    }
    regions[name] = std::move(region);
  }
  // Written before the request counts as answered (statistics included):
  // a client that reads the region once answered finds the output there,
  // and a write that fails fails the request.
  request->before_answer = [asked = request->output_shared_memory,
                            regions = std::move(regions)](InferResponse* r) {
    WriteSharedMemoryOutputs(asked, regions, r);
  };
  return Status();
}

void InferenceServer::WriteSharedMemoryOutputs(
    const std::map<std::string, SharedMemoryRef>& asked,
    const RegionMap& regions,
    InferResponse* response) {
  if (!response->status.ok()) return;
  // Every size is checked before any output is written, so that a refused
  // answer leaves the regions as they were.
  for (const TensorData& out : response->outputs) {
    auto ref = asked.find(out.name);
    if (ref == asked.end()) continue;
    const size_t bytes = out.elements().size();
    if (bytes > ref->second.byte_size) {
      response->status = Status::Error(
          StatusCode::kInvalidArgument,
          "model '" + response->model + "': output '" + out.name + "' has " +
              std::to_string(bytes) + " bytes (shape " +
              ShapeString(out.shape) + " of " + DatatypeName(out) +
              "), more than its shared_memory_byte_size " +
              std::to_string(ref->second.byte_size) + " in region '" +
              ref->second.region + "'");
      return;
    }
    Status status = regions.at(out.name)->CheckWrite(
        "model '" + response->model + "': output '" + out.name + "'",
        ref->second.offset, bytes);
    if (!status.ok()) {
      response->status = status;
      return;
    }
  }
  for (TensorData& out : response->outputs) {
    auto ref = asked.find(out.name);
    if (ref == asked.end()) continue;
    const std::string what =
        "model '" + response->model + "': output '" + out.name + "'";
    const std::string_view elements = out.elements();
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

InferResponse InferenceServer::Infer(InferRequest request,
                                     std::shared_ptr<ModelVersion> version) {
  std::promise<InferResponse> answer;
  std::future<InferResponse> future = answer.get_future();
  InferAsync(
      std::move(request),
      [&answer](InferResponse r) { answer.set_value(std::move(r)); },
      std::move(version));
  return future.get();
}

void InferenceServer::BeginShutdown() {
  {
    // Under the mutex: the polling thread checks it before it waits.
    std::lock_guard<std::mutex> lock(poll_mutex_);
    shutting_down_ = true;
  }
  poll_wakeup_.notify_all();
  // Batches waiting for more requests run now: the front ends are
  // finishing what they took, and waiting out a long batch_delay_us
  // could outlast the exit timeout. (Loads are refused from here on; one
  // under way adds versions that still wait.)
  std::vector<std::shared_ptr<ModelVersion>> all;
  {
    std::lock_guard<std::mutex> lock(models_mutex_);
    for (auto& [name, versions] : models_) {
      for (auto& [n, model] : versions) all.push_back(model);
    }
  }
  for (auto& model : all) model->Drain();
}

void InferenceServer::Stop() {
  BeginShutdown();
  // Joined before the models stop: a load it is doing finishes first.
  if (poller_.joinable()) poller_.join();
  {
    // A load under way finishes first; none starts after (ShuttingDown).
    std::lock_guard<std::mutex> control(control_mutex_);
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
  // A load or unload under way ends soon now that the shutdown began (its
  // old versions are stopped at once); they must end before the server is
  // destroyed.
  std::unique_lock<std::mutex> lock(control_calls_mutex_);
  control_calls_done_.wait(lock, [this] { return control_calls_ == 0; });
}

}  // namespace serve
}  // namespace pdlite
