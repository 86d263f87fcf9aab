// NumPy .npy files (format 1.0-3.0, C order, little-endian): the tensor
// format of the command line tool and the tests.
#pragma once

#include <string>

#include "framework/tensor.h"

namespace paddle_lite {
namespace framework {

/// Reads a .npy file into a CPU tensor. Throws NotFound for a missing file
/// and InvalidArgument naming the file for a bad header, Fortran order,
/// big-endian or unsupported dtype, or a data size that disagrees with the
/// shape.
Tensor ReadNpy(const std::string& path);
Tensor ParseNpy(const std::string& bytes, const std::string& source);

/// Writes a CPU tensor as .npy version 1.0, header padded to 64 bytes
/// (what np.save writes).
void WriteNpy(const std::string& path, const Tensor& tensor);
std::string SerializeNpy(const Tensor& tensor);

}  // namespace framework
}  // namespace paddle_lite
