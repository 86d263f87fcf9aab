#include "framework/model_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "framework/program_io.h"
#include "framework/program_validator.h"

namespace paddle_lite {
namespace framework {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

bool IsDir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string DirName(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The names in folder `dir`, sorted; a folder that cannot be opened (no
// permission) is an error that says why, not a folder without a model.
std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  PADDLE_ENFORCE(d != nullptr, errors::NotFound("Cannot open folder '", dir,
                                                "': ", strerror(errno), "."));
  while (dirent* e = readdir(d)) names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string ReadFileToString(const std::string& path) {
  // Without blocking, and checked on what was opened: a FIFO put where a
  // model file should be would otherwise wait for a writer for ever.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    PADDLE_THROW(errors::NotFound("Cannot open file '", path, "'",
                                  fd >= 0 ? " (not a regular file)." : "."));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  std::string bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  char chunk[64 << 10];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    PADDLE_ENFORCE(n > 0, errors::NotFound("Reading file '", path,
                                           "' failed: ", strerror(errno)));
    bytes.append(chunk, static_cast<size_t>(n));
  }
  return bytes;
}

void WriteStringToFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  // errno, as the open left it: why (a folder by that name, no such
  // folder, no permission).
  PADDLE_ENFORCE(out.good(), errors::NotFound("Cannot write file '", path,
                                              "': ", strerror(errno), "."));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  PADDLE_ENFORCE(out.good(), errors::ResourceExhausted(
                                 "Writing '", path, "' failed (disk full?)."));
}

ModelFiles ResolveModelFiles(const std::string& path,
                             const std::string& params_file) {
  ModelFiles files;
  if (IsDir(path)) {
    std::vector<std::string> pdmodels;
    for (auto& name : ListDir(path)) {
      if (EndsWith(name, ".pdmodel")) pdmodels.push_back(name);
    }
    PADDLE_ENFORCE(pdmodels.size() <= 1,
                   errors::InvalidArgument(
                       "Folder '", path, "' holds ", pdmodels.size(),
                       " .pdmodel files; name the program file instead."));
    if (pdmodels.size() == 1) {
      files.program_file = Join(path, pdmodels[0]);
    } else if (IsFile(Join(path, "__model__"))) {
      files.program_file = Join(path, "__model__");
    } else if (IsFile(Join(path, "model"))) {
      files.program_file = Join(path, "model");
    } else {
      PADDLE_THROW(errors::NotFound(
          "Folder '", path,
          "' holds no model: expected a *.pdmodel file, '__model__' or "
          "'model'."));
    }
  } else {
    PADDLE_ENFORCE(IsFile(path),
                   errors::NotFound("Model path '", path,
                                    "' is neither a folder nor a file."));
    files.program_file = path;
  }
  if (!params_file.empty()) {
    PADDLE_ENFORCE(
        IsFile(params_file),
        errors::NotFound("Parameter file '", params_file, "' ",
                         IsDir(params_file) ? "is a folder; give the combined "
                                              "parameter file (a folder of one "
                                              "file per parameter is found "
                                              "beside the program by itself)."
                                            : "does not exist."));
    files.params_file = params_file;
    return files;
  }
  std::string dir = DirName(files.program_file);
  if (EndsWith(files.program_file, ".pdmodel")) {
    std::string combined =
        files.program_file.substr(0, files.program_file.size() - 8) +
        ".pdiparams";
    if (IsFile(combined)) {
      files.params_file = combined;
      return files;
    }
  }
  for (const char* name : {"__params__", "params"}) {
    if (IsFile(Join(dir, name))) {
      files.params_file = Join(dir, name);
      return files;
    }
  }
  files.params_dir = dir;  // one file per parameter (checked when loading)
  return files;
}

void ByteReader::Read(void* dst, size_t n, const std::string& what) {
  std::memcpy(dst, Skip(n, what), n);
}

const char* ByteReader::Skip(size_t n, const std::string& what) {
  PADDLE_ENFORCE(n <= remaining(),
                 errors::InvalidArgument(
                     source_, ": truncated while reading ", what, " (needs ", n,
                     " bytes at offset ", pos_, ", ", remaining(), " left)."));
  const char* p = data_ + pos_;
  pos_ += n;
  return p;
}

void DeserializeTensor(ByteReader* reader,
                       const std::string& var,
                       Tensor* tensor) {
  const std::string where = "variable '" + var + "'";
  auto lod_version = reader->ReadPod<uint32_t>(where + " LoD version");
  PADDLE_ENFORCE(lod_version == 0,
                 errors::InvalidArgument(
                     reader->source(), ": ", where, " has LoD stream version ",
                     lod_version, ", expected 0 (corrupted file?)."));
  auto lod_levels = reader->ReadPod<uint64_t>(where + " LoD level count");
  PADDLE_ENFORCE(
      lod_levels < 16,
      errors::InvalidArgument(reader->source(), ": ", where, " claims ",
                              lod_levels, " LoD levels (corrupted file?)."));
  LoD lod;
  for (uint64_t level = 0; level < lod_levels; ++level) {
    auto bytes = reader->ReadPod<uint64_t>(where + " LoD size");
    PADDLE_ENFORCE(
        bytes % 8 == 0 && bytes <= reader->remaining(),
        errors::InvalidArgument(reader->source(), ": ", where,
                                " has a bad LoD level size ", bytes, "."));
    std::vector<size_t> offsets(bytes / 8);
    for (auto& o : offsets) o = reader->ReadPod<uint64_t>(where + " LoD");
    lod.push_back(std::move(offsets));
  }
  auto version = reader->ReadPod<uint32_t>(where + " tensor version");
  PADDLE_ENFORCE(version == 0,
                 errors::InvalidArgument(reader->source(), ": ", where,
                                         " has tensor version ", version,
                                         ", expected 0 (corrupted file?)."));
  auto desc_size = reader->ReadPod<int32_t>(where + " descriptor size");
  PADDLE_ENFORCE(desc_size >= 0 && desc_size < (1 << 20),
                 errors::InvalidArgument(reader->source(), ": ", where,
                                         " has descriptor size ", desc_size,
                                         " (corrupted file?)."));
  std::string desc(
      reader->Skip(static_cast<size_t>(desc_size), where + " descriptor"),
      static_cast<size_t>(desc_size));
  int raw_type = 0;
  DDim dims;
  PADDLE_ENFORCE(ParseTensorDesc(desc, &raw_type, &dims),
                 errors::InvalidArgument(reader->source(), ": ", where,
                                         " has an unreadable TensorDesc."));
  PADDLE_ENFORCE(
      IsValidDataType(raw_type),
      errors::InvalidArgument(reader->source(), ": ", where,
                              " has unknown element type ", raw_type, "."));
  for (auto d : dims) {
    PADDLE_ENFORCE(d >= 0,
                   errors::InvalidArgument(reader->source(), ": ", where,
                                           " has negative dims ", dims, "."));
  }
  auto type = static_cast<DataType>(raw_type);
  tensor->Resize(dims);
  size_t bytes = static_cast<size_t>(Product(dims)) * SizeOf(type);
  PADDLE_ENFORCE(
      bytes <= reader->remaining(),
      errors::InvalidArgument(reader->source(), ": truncated: ", where, " (",
                              type, dims, ") needs ", bytes, " bytes of data, ",
                              reader->remaining(), " left."));
  void* data = tensor->mutable_data(platform::CPUPlace{}, type);
  reader->Read(data, bytes, where + " data");
  tensor->set_lod(std::move(lod));
}

void SerializeTensor(const Tensor& tensor, std::string* out) {
  PADDLE_ENFORCE(
      tensor.place().is_host(),
      errors::InvalidArgument("SerializeTensor needs a CPU tensor."));
  auto put = [out](const void* p, size_t n) {
    out->append(static_cast<const char*>(p), n);
  };
  uint32_t zero32 = 0;
  put(&zero32, 4);
  uint64_t levels = tensor.lod().size();
  put(&levels, 8);
  for (auto& level : tensor.lod()) {
    uint64_t bytes = level.size() * 8;
    put(&bytes, 8);
    for (size_t o : level) {
      uint64_t v = o;
      put(&v, 8);
    }
  }
  put(&zero32, 4);
  std::string desc = SerializeTensorDesc(tensor.dtype(), tensor.dims());
  int32_t size = static_cast<int32_t>(desc.size());
  put(&size, 4);
  out->append(desc);
  if (tensor.memory_size() > 0) put(tensor.raw_data(), tensor.memory_size());
}

namespace {

void CheckAgainstDesc(const ProgramDesc& program,
                      const std::string& name,
                      const Tensor& t,
                      const std::string& source) {
  const VarDesc* desc = program.blocks[0].FindVar(name);
  PADDLE_ENFORCE(t.dtype() == desc->dtype,
                 errors::InvalidArgument(
                     source, ": parameter '", name, "' holds ", t.dtype(),
                     " data but the program declares ", desc->dtype,
                     " (program and parameters do not belong together?)."));
  bool dims_ok = desc->dims.size() == t.dims().size();
  for (size_t i = 0; dims_ok && i < desc->dims.size(); ++i) {
    dims_ok = desc->dims[i] < 0 || desc->dims[i] == t.dims()[i];
  }
  // 2.5+ may save a 0-D parameter where the program says [1], and back.
  if (!dims_ok && t.numel() == 1 && Product(desc->dims) == 1) dims_ok = true;
  PADDLE_ENFORCE(dims_ok,
                 errors::InvalidArgument(
                     source, ": parameter '", name, "' has dims ", t.dims(),
                     " but the program declares ", desc->dims,
                     " (program and parameters do not belong together?)."));
}

}  // namespace

void LoadCombinedParams(const ProgramDesc& program,
                        const std::string& params_bytes,
                        const std::string& source,
                        Scope* scope) {
  ByteReader reader(params_bytes, source);
  auto names = program.ParameterNames();
  for (auto& name : names) {
    PADDLE_ENFORCE(
        reader.remaining() > 0,
        errors::InvalidArgument(
            source, ": truncated: the file ends before parameter '", name,
            "' (", &name - names.data(), " of ", names.size(), " read)."));
    Tensor* t = scope->Var(name)->GetMutable<Tensor>();
    DeserializeTensor(&reader, name, t);
    CheckAgainstDesc(program, name, *t, source);
  }
  PADDLE_ENFORCE(reader.remaining() == 0,
                 errors::InvalidArgument(
                     source, ": ", reader.remaining(),
                     " bytes are left after the program's ", names.size(),
                     " parameters (program and parameters do not belong "
                     "together?)."));
}

void LoadSeparateParams(const ProgramDesc& program,
                        const std::string& dir,
                        Scope* scope) {
  for (auto& name : program.ParameterNames()) {
    // A name is a file in `dir`, never a path out of it: a program must not
    // read (or tell whether there is) any other file the process can read.
    PADDLE_ENFORCE(
        !name.empty() && name != "." && name != ".." &&
            name.find('/') == std::string::npos &&
            name.find('\0') == std::string::npos,
        errors::InvalidArgument(
            "Parameter '", name,
            "' cannot be a file of the model folder (a name with '/', or "
            "'.' or '..'): one file per parameter reads only files in '",
            dir, "'."));
    std::string path = Join(dir, name);
    PADDLE_ENFORCE(
        IsFile(path),
        errors::NotFound("Parameter file '", path, "' for variable '", name,
                         "' is missing (the model folder has no "
                         "combined params file either)."));
    std::string bytes = ReadFileToString(path);
    ByteReader reader(bytes, path);
    Tensor* t = scope->Var(name)->GetMutable<Tensor>();
    DeserializeTensor(&reader, name, t);
    PADDLE_ENFORCE(
        reader.remaining() == 0,
        errors::InvalidArgument(path, ": ", reader.remaining(),
                                " bytes left after variable '", name, "'."));
    CheckAgainstDesc(program, name, *t, path);
  }
}

Model LoadModel(const std::string& path, const std::string& params_file) {
  Model model;
  model.files = ResolveModelFiles(path, params_file);
  auto program = std::make_shared<ProgramDesc>(ParseProgramDesc(
      ReadFileToString(model.files.program_file), model.files.program_file));
  ValidateProgram(*program, model.files.program_file);
  model.weights = std::make_shared<Scope>();
  if (!model.files.params_file.empty()) {
    LoadCombinedParams(*program, ReadFileToString(model.files.params_file),
                       model.files.params_file, model.weights.get());
  } else {
    LoadSeparateParams(*program, model.files.params_dir, model.weights.get());
  }
  model.program = std::move(program);
  return model;
}

Model LoadModelFromBuffers(const std::string& program_bytes,
                           const std::string& params_bytes) {
  Model model;
  auto program = std::make_shared<ProgramDesc>(
      ParseProgramDesc(program_bytes, "<program buffer>"));
  ValidateProgram(*program, "<program buffer>");
  model.weights = std::make_shared<Scope>();
  LoadCombinedParams(*program, params_bytes, "<params buffer>",
                     model.weights.get());
  model.program = std::move(program);
  return model;
}

void SaveModel(const ProgramDesc& program,
               const Scope& weights,
               const std::string& prefix) {
  WriteStringToFile(prefix + ".pdmodel", SerializeProgramDesc(program));
  std::string params;
  for (auto& name : program.ParameterNames()) {
    Variable* var = weights.FindVar(name);
    PADDLE_ENFORCE(var != nullptr && var->IsType<Tensor>() &&
                       var->Get<Tensor>().IsInitialized(),
                   errors::NotFound("SaveModel: parameter '", name,
                                    "' has no value in the scope."));
    SerializeTensor(var->Get<Tensor>(), &params);
  }
  WriteStringToFile(prefix + ".pdiparams", params);
}

}  // namespace framework
}  // namespace paddle_lite
