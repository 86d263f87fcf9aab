// A LoD (sequence offsets) as text, the form `pdlite run --lod` and the
// server's gRPC `lod` parameter take: offsets separated by ',', levels by
// ';' ("0,3,5" or "0,2;0,3,5").
#pragma once

#include <string>

#include "paddle_lite/paddle_lite.h"

namespace pdlite {

/// Appends the levels of `text` to `lod`; false for anything but digits,
/// ',' and ';', an empty level or offset, or an offset past 18 digits.
bool ParseLoDText(const std::string& text, paddle_lite::LoD* lod);
/// The text form of `lod` ("" for none).
std::string FormatLoDText(const paddle_lite::LoD& lod);

}  // namespace pdlite
