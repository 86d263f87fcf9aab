#include "serve/sent_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace pdlite {
namespace serve {

namespace fs = std::filesystem;

bool SentFilePathOk(const std::string& path, std::string* why) {
  if (path.size() > kMaxSentPathBytes) {
    *why = "the path is longer than " + std::to_string(kMaxSentPathBytes) +
           " bytes";
    return false;
  }
  const std::vector<std::string> names = SplitPath(path);
  if (names.size() < 2) {
    *why = "a file is sent as \"file:<version>/<name>\" (as \"file:1/" +
           std::string("model.pdmodel\"), in a numbered version folder");
    return false;
  }
  const std::string& version = names.front();
  // No leading zeros: "01" and "1" would both be version 1.
  if (version.empty() || version.size() > 18 ||
      version.find_first_not_of("0123456789") != std::string::npos ||
      (version.size() > 1 && version[0] == '0')) {
    *why = "'" + version + "' is not a version number (the path starts " +
           "with the version folder, a number without leading zeros)";
    return false;
  }
  for (const std::string& name : names) {
    if (name.empty() || name == "." || name == "..") {
      *why = "each name in the path must be neither empty, '.' nor '..'";
      return false;
    }
    if (name.size() > 255) {
      *why = "a name in the path is longer than 255 bytes";
      return false;
    }
    for (unsigned char c : name) {
      if (c < 0x20 || c == 0x7f) {
        *why = "the path holds a control character";
        return false;
      }
    }
  }
  return true;
}

namespace {

// Writes all of `bytes` to a new file `path` (never through a symlink, never
// over a file); 0, or the errno that stopped it.
int WriteNewFile(const fs::path& path, const std::string& bytes) {
  const int fd = ::open(
      path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      return error;
    }
    done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0 ? 0 : errno;
}

}  // namespace

Status SentModelFolder::Write(const std::string& model,
                              const ModelFiles& files,
                              std::unique_ptr<SentModelFolder>* out) {
  const std::string what = "model '" + model + "': ";
  std::error_code ec;
  const fs::path temp = fs::temp_directory_path(ec);
  if (ec) {
    return Status::Error(
        StatusCode::kInternal,
        what + "no temporary folder for the files sent: " + ec.message());
  }
  std::string pattern = (temp / "pdlite-load-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::Error(StatusCode::kInternal,
                         what + "cannot make a folder in " + temp.string() +
                             " for the files sent: " + std::strerror(errno));
  }
  // Owned from here: removed however the writes end. By its canonical
  // path (a $TMPDIR through a symlink resolved), the one the loader's
  // errors would name.
  std::unique_ptr<SentModelFolder> folder(new SentModelFolder(pattern));
  const fs::path canonical = fs::canonical(pattern, ec);
  if (!ec) folder->path_ = canonical.string();
  for (const auto& [path, bytes] : files) {
    const fs::path target = fs::path(folder->path()) / path;
    fs::create_directories(target.parent_path(), ec);
    const int error = ec ? ec.value() : WriteNewFile(target, bytes);
    if (error != 0) {
      // A file sent as a folder of another ("file:1/a" and "file:1/a/b"),
      // or a path too long for the file system, is the request's fault; a
      // full disk is the server's.
      const bool clash = error == EEXIST || error == ENOTDIR || error == EISDIR;
      const bool client = clash || error == ENAMETOOLONG;
      return Status::Error(
          client ? StatusCode::kInvalidArgument : StatusCode::kInternal,
          what + "cannot write \"file:" + path + "\" (" +
              std::to_string(bytes.size()) +
              " bytes): " + std::strerror(error) +
              (clash ? " (a file sent is also a folder of another)" : ""));
    }
  }
  *out = std::move(folder);
  return Status();
}

SentModelFolder::~SentModelFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string SentModelFolder::AsSent(std::string text) const {
  auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  replace_all(path_ + "/", "file:");
  replace_all(path_, "the files sent");
  return text;
}

}  // namespace serve
}  // namespace pdlite
