// Subcommands of the pdlite tool. Each returns the process exit code:
// 0 success, 1 failure (the error is printed), 2 bad arguments, 3 outputs
// differ from --expected.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pdlite {

/// Values of flags that may repeat (--input, --lod), in order.
struct RepeatedFlags {
  std::vector<std::string> inputs;  // NAME=FILE.npy
  std::vector<std::string> lods;    // NAME=0,3,5[;0,1,3]
};

int RunCommand(const RepeatedFlags& repeated);
int InspectCommand();
int KernelsCommand();

/// Prints the usage text to stderr and returns 2.
int Usage(const std::string& problem);

/// Splits "NAME=VALUE"; returns false if there is no '=' or an empty side.
bool SplitAssignment(const std::string& text, std::string* name,
                     std::string* value);

}  // namespace pdlite
