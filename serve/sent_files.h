// Model files sent with a load request (the "file:<version>/<path>"
// parameters of Triton's model repository extension): checked, written to
// a private folder for the loader, and removed once it has read them.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "serve/types.h"

namespace pdlite {
namespace serve {

/// A file's path under the model's folder -> its bytes.
using ModelFiles = std::map<std::string, std::string>;

/// The most files one load may send, and the longest path of one.
constexpr size_t kMaxSentFiles = 1000;
constexpr size_t kMaxSentPathBytes = 1024;

/// Whether `path` (a "file:" parameter's key without "file:") names a file
/// in a version folder: "<version>/<name>[/<name>...]", at most
/// kMaxSentPathBytes, the version a number without leading zeros, each
/// name neither empty, "." nor "..", at most 255 bytes of printable
/// characters; false with `why` otherwise. So no path leaves the folder
/// the files are written to.
bool SentFilePathOk(const std::string& path, std::string* why);

/// A folder of its own (mode 0700) under the system's temporary folder
/// ($TMPDIR, else /tmp), holding the files of one load; removed, with
/// them, when destroyed.
class SentModelFolder {
 public:
  /// Writes `files` (their paths checked with SentFilePathOk) into a new
  /// folder; an error names the file and says why (a full disk).
  static Status Write(const std::string& model,
                      const ModelFiles& files,
                      std::unique_ptr<SentModelFolder>* out);
  ~SentModelFolder();
  SentModelFolder(const SentModelFolder&) = delete;
  SentModelFolder& operator=(const SentModelFolder&) = delete;

  const std::string& path() const { return path_; }
  /// `text` (a loader's error) with the folder's files named as the
  /// client sent them: "<folder>/1/model.pdmodel" becomes
  /// "file:1/model.pdmodel", and "<folder>" "the files sent".
  std::string AsSent(std::string text) const;

 private:
  explicit SentModelFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace serve
}  // namespace pdlite
