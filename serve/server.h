// The protocol-neutral core of `pdlite serve`: a model repository loaded
// at start, health, metadata and inference calls that an HTTP (and later a
// gRPC) front end translates its wire format to and from.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/log_settings.h"
#include "serve/metrics.h"
#include "serve/model.h"
#include "serve/sent_files.h"
#include "serve/shared_memory.h"
#include "serve/types.h"

namespace pdlite {
namespace serve {

constexpr const char* kServerName = "pdlite";
constexpr const char* kServerVersion = "0.1.0";

/// One entry of the model repository extension's index.
struct RepositoryEntry {
  std::string name;
  std::string version;  // "" for a model with no version loaded
  std::string state;    // "READY", "UNAVAILABLE", or "" (never loaded)
  std::string reason;   // why it is unavailable
};

/// A parameter of a load or unload call, as a front end decoded it.
struct RepositoryParameter {
  enum class Kind { kBool, kString, kBytes, kOther };
  std::string key;
  Kind kind = Kind::kOther;
  std::string text;  // the value, when a string or bytes
};

/// Checks a load's (`load`) or unload's parameters as Triton's clients send
/// them, naming `model` when one is wrong:
///   "config" (load): config.json's text, into `config_json`;
///   "file:<version>/<path>" (load; bytes, decoded from base64 over HTTP):
///     a model file, into `files`; the model is then loaded from those
///     files alone, and "config" must come too, as Triton asks;
///   "unload_dependents" (unload): a bool, ignored (no model depends on
///     another).
/// Any other key is refused.
Status CheckRepositoryParameters(const std::string& model,
                                 bool load,
                                 std::vector<RepositoryParameter> parameters,
                                 std::string* config_json,
                                 ModelFiles* files);

struct ServerOptions {
  /// Whether clients may load and unload models (the protocol's model
  /// repository extension); off, those calls are refused.
  bool model_control = false;
  /// Above 0 (and without model_control): the server looks at the
  /// repository this often, loads the model folders added or changed
  /// since, and unloads those removed (Triton's --model-control-mode poll).
  std::chrono::milliseconds repository_poll{0};
  /// Whether clients on the server's host may register shared-memory
  /// regions and name them for inputs and outputs (the system
  /// shared-memory extension); off, those calls and requests are refused.
  bool shared_memory = false;
  /// The bytes one request's inputs may take from shared memory, at most
  /// (as --max-body-mb bounds a body).
  uint64_t max_shared_memory_input_bytes = uint64_t{64} << 20;
  /// The logging extension's log_verbose_level at start (--verbose: 1):
  /// above 0, each request gets a log line.
  uint32_t log_verbose_level = 0;
  /// How long an unload or reload waits for the requests still handing
  /// themselves to a version it takes away, before stopping it anyway.
  std::chrono::milliseconds retire_wait{60000};
  /// Whether an unknown model's 404 lists the models served (at most
  /// kModelsNamed), and GET /v2/health/ready's error the models not
  /// ready; off where clients may not see the repository's index or
  /// models' metadata (restricted APIs). /metrics, which no restriction
  /// covers, names them all the same.
  bool name_models_in_errors = true;
};

class InferenceServer {
 public:
  /// Loads every model of a Triton-style repository: DIR/<model>/<n>/
  /// holds version n's files, DIR/<model>/config.json its settings. A model
  /// that fails to load is kept, not ready, with the error; the others
  /// serve. Throws std::runtime_error when DIR cannot be read at all.
  explicit InferenceServer(const std::string& repository,
                           ServerOptions options = {});
  ~InferenceServer();

  bool Live() const { return true; }
  /// Every model served is ready, and the server is not shutting down.
  bool Ready() const;
  /// The protocol extensions this server implements.
  std::vector<std::string> Extensions() const;

  /// The version `version` of `model` ("" = the highest); NotFound naming
  /// what exists otherwise. The version stays usable while `found` holds
  /// it, even if it is unloaded meanwhile (it then refuses new requests).
  Status Find(const std::string& model,
              const std::string& version,
              std::shared_ptr<const ModelVersion>* found) const;
  /// The statistics extension: every version of every model when `model`
  /// is "", every version of `model` when `version` is "", else that
  /// version; NotFound as for Find.
  Status Statistics(const std::string& model,
                    const std::string& version,
                    std::vector<VersionStatistics>* out) const;
  /// Version names of `model`, ascending; empty for an unknown model.
  std::vector<std::string> Versions(const std::string& model) const;
  std::vector<std::string> ModelNames() const;

  /// Find, for running requests on the version found (InferAsync's
  /// `version`): an unload or reload that takes it away meanwhile waits
  /// for `found` to be released, and the version answers what is handed
  /// to it until then. A front end that looks the model up before decoding
  /// (to answer NotFound first) runs the request on what it found.
  Status FindToRun(const std::string& model,
                   const std::string& version,
                   std::shared_ptr<ModelVersion>* found) const;

  /// Runs a request on its model version (ModelVersion::InferAsync): on
  /// `version` when given (FindToRun's), else on the one the request
  /// names, found now. `done` gets the answer, on this thread when the
  /// request ran here or was refused, else on the thread that answered it.
  /// Inputs in shared memory are read first; outputs asked for in shared
  /// memory are written there before `done`, and answered without their
  /// elements.
  void InferAsync(InferRequest request,
                  ModelVersion::Done done,
                  std::shared_ptr<ModelVersion> version = nullptr);
  /// InferAsync, waiting for the answer.
  InferResponse Infer(InferRequest request,
                      std::shared_ptr<ModelVersion> version = nullptr);

  // The model repository extension. Load and Unload are refused unless
  // the server was made with model_control, and wait for any other
  // running; Index changes nothing and is always answered.

  /// Every model folder of the repository and every model loaded, one
  /// entry per version loaded; `ready_only`: only the versions that serve.
  std::vector<RepositoryEntry> Index(bool ready_only) const;
  /// Whether Load and Unload may act on `model` (the server takes them,
  /// and it is a model name), saying why not: asked before a call's body
  /// is read into its parameters.
  Status ModelControlAllowed(const std::string& model) const;
  /// Loads DIR/<model> afresh: the versions found now, with its
  /// config.json, or `config_json` (the same keys) when not empty. With
  /// `files` (and `config_json`), loads them instead, as if they were the
  /// model's folder, which need not exist. A model that serves keeps
  /// serving until the new versions are ready, and serves unchanged when
  /// any of them fails to load (the error says so).
  Status Load(const std::string& model,
              const std::string& config_json,
              const ModelFiles& files = {});
  /// Stops serving `model`: new requests are refused as for an unknown
  /// model; those taken are answered first.
  Status Unload(const std::string& model);
  /// With repository_poll: looks at the repository once now, as the
  /// polling thread does (tests call it to not wait for the next poll).
  void PollRepository();

  /// The start of a shutdown (SIGTERM), before the front ends drain: the
  /// server is no longer ready, polling and model control stop, and a
  /// version being unloaded stops waiting for requests still handing
  /// themselves to it. Requests taken are still answered.
  void BeginShutdown();
  /// BeginShutdown, then refuses new requests, answers those queued, joins
  /// the workers, and waits for the loads and unloads under way to end.
  void Stop();
  /// Whether BeginShutdown (or Stop) was called.
  bool ShuttingDown() const { return shutting_down_; }

  /// ServerOptions::name_models_in_errors.
  bool names_models_in_errors() const { return options_.name_models_in_errors; }
  Metrics& metrics() { return metrics_; }
  /// GET /metrics: the metrics' text, once the series of versions retired
  /// while still held, and released since, are dropped.
  std::string RenderMetrics();
  /// The shared-memory regions clients registered.
  SharedMemoryRegistry& shared_memory() { return shared_memory_; }
  /// The logging extension's settings (per-request log lines).
  LogSettings& log_settings() { return log_settings_; }

 private:
  using VersionMap = std::map<int64_t, std::shared_ptr<ModelVersion>>;

  std::shared_ptr<ModelVersion> FindShared(const std::string& model,
                                           const std::string& version,
                                           Status* status) const;
  // Loads every version folder of `folder` (DIR/<model>, or the files a
  // load sent) as `model`; `config_json` as in Load. Never empty: a model
  // with no version folder gets a version "0" that is not ready, and the
  // reason in `no_version` (when not null).
  VersionMap LoadModel(const std::string& model,
                       const std::string& folder,
                       const std::string* config_json,
                       std::string* no_version);
  // Load and Unload, once allowed; the caller holds control_mutex_. The
  // versions they take out of models_ are added to `retired`, for the
  // caller to Retire once it has released control_mutex_.
  Status LoadLocked(const std::string& model,
                    const std::string& config_json,
                    const ModelFiles& files,
                    std::vector<VersionMap>* retired);
  Status UnloadLocked(const std::string& model,
                      std::vector<VersionMap>* retired);
  // What PollRepository compares of a model folder: config.json's text,
  // and every entry under each numbered version folder (through
  // symlinks): where a symlink points, inode, type, size and times.
  struct FolderPrint {
    std::string text;
    bool has_versions = false;  // any numbered version folder
    bool readable = true;       // every listing in it succeeded
  };
  FolderPrint Fingerprint(const std::string& model) const;
  // PollRepository's work, which may throw; the versions it takes out of
  // models_ go to `retired`.
  void PollOnce(std::vector<VersionMap>* retired);
  // Counts a load, unload or poll under way, from before it takes
  // control_mutex_ until its retirements end, for Stop to wait for.
  class ControlCall;
  // The polling thread's loop, until Stop.
  void PollLoop();
  // Output name -> the region it is written to.
  using RegionMap =
      std::map<std::string, std::shared_ptr<const SharedMemoryRegion>>;
  // Checks the ranges of the request's inputs and outputs in shared
  // memory, gives each such input the reader that fills the model's input
  // when the request runs, and sets the request's before_answer to write
  // the outputs asked for there.
  Status ResolveSharedMemory(InferRequest* request) const;
  // Writes the outputs asked for in shared memory there; they keep their
  // name, type and shape, and lose their elements.
  static void WriteSharedMemoryOutputs(
      const std::map<std::string, SharedMemoryRef>& asked,
      const RegionMap& regions,
      InferResponse* response);
  // Stops versions taken out of models_ once no request is still handing
  // itself to them (at most retire_wait, or until a shutdown begins), and
  // releases them. Called without control_mutex_, so that a slow request
  // of one model holds up neither the loads of others nor a shutdown.
  void Retire(std::vector<VersionMap>* retired);
  // Whether a set of `model`'s versions is being retired.
  bool Retiring(const std::string& model) const;
  // Adds `versions`, taken out of models_, to `retired`, counted in
  // retiring_ until Retire is done with them.
  void AddRetiring(const std::string& model,
                   VersionMap versions,
                   std::vector<VersionMap>* retired);
  // "60 s" (or "250 ms"): options_.retire_wait, for messages.
  std::string RetireWaitText() const;
  // Drops the series of lingering_ versions released since, unless a
  // version of the same number serves again. Under models_mutex_.
  void ForgetReleasedLocked();

  const std::string repository_;
  const ServerOptions options_;
  Metrics metrics_;
  SharedMemoryRegistry shared_memory_;
  LogSettings log_settings_;
  // Held by Load, Unload and Stop, so that they run one at a time.
  mutable std::mutex control_mutex_;
  // Guards models_, not_loaded_ and retiring_; held only to look up or
  // swap.
  mutable std::mutex models_mutex_;
  // model name -> version number -> loaded version.
  std::map<std::string, VersionMap> models_;
  // Why a model of the repository is not loaded: unloaded, or its last
  // load failed.
  std::map<std::string, std::string> not_loaded_;
  // Model -> how many of its sets of versions are being retired. A load
  // of a model with one waits for it (up to retire_wait, then is refused),
  // so that however often clients reload a model, it has at most one copy
  // loading or serving besides those retiring (each held up to
  // retire_wait).
  std::map<std::string, int> retiring_;
  // Versions stopped while a request still held them (past retire_wait):
  // their metrics series go once they are released (ForgetReleasedLocked),
  // so that /metrics does not keep them for good. Under models_mutex_.
  struct Lingering {
    std::string model;
    int64_t number;
    std::string version;
    std::weak_ptr<const ModelVersion> held;
  };
  std::vector<Lingering> lingering_;
  // Loads, unloads and polls under way (ControlCall), which Stop waits for;
  // under control_calls_mutex_.
  int control_calls_ = 0;
  std::mutex control_calls_mutex_;
  std::condition_variable control_calls_done_;
  // With repository_poll: each model folder's fingerprint when it was last
  // loaded (or found failing), under control_mutex_; and the thread.
  std::map<std::string, std::string> fingerprints_;
  std::mutex poll_mutex_;
  std::condition_variable poll_wakeup_;
  // Set by BeginShutdown, under poll_mutex_ (the polling thread checks it
  // before it waits).
  std::atomic<bool> shutting_down_{false};
  std::thread poller_;
};

}  // namespace serve
}  // namespace pdlite
