// ProgramDesc <-> PaddlePaddle's protobuf bytes. The only place that sees
// the generated protobuf classes.
#pragma once

#include <string>

#include "framework/program_desc.h"

namespace paddle_lite {
namespace framework {

/// Parses a serialized ProgramDesc. `source` (a file name) is used in
/// errors. Unknown fields are skipped; a buffer that is not a ProgramDesc
/// throws InvalidArgument naming the source.
ProgramDesc ParseProgramDesc(const std::string& bytes,
                             const std::string& source);

/// Serializes as PaddlePaddle writes it (repeated scalars unpacked).
std::string SerializeProgramDesc(const ProgramDesc& program);

/// The TensorDesc message of a parameter stream. Returns false if the bytes
/// do not parse; `raw_type` is the data_type number as stored.
bool ParseTensorDesc(const std::string& bytes, int* raw_type, DDim* dims);
std::string SerializeTensorDesc(DataType type, const DDim& dims);

}  // namespace framework
}  // namespace paddle_lite
