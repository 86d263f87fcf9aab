// `pdlite serve`: the server is a separate binary so that pdlite (and the
// core library) do not depend on the HTTP and JSON libraries it uses.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/pdlite/commands.h"

namespace pdlite {

int ServeCommand(int argc, char** argv) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    std::cerr << "pdlite serve: cannot resolve /proc/self/exe: "
              << std::strerror(errno) << "\n";
    return 1;
  }
  std::string path(self, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "pdlite_server";
  std::vector<char*> args = {const_cast<char*>(path.c_str())};
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::cerr << "pdlite serve: cannot run " << path << ": "
            << std::strerror(errno)
            << " (it is built with -DPDLITE_BUILD_SERVER=ON and installed "
               "beside pdlite)\n";
  return 1;
}

}  // namespace pdlite
