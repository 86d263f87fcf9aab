#include "tools/pdlite/lod_text.h"

#include <sstream>
#include <vector>

namespace pdlite {

bool ParseLoDText(const std::string& text, paddle_lite::LoD* lod) {
  std::stringstream levels(text);
  std::string level;
  while (std::getline(levels, level, ';')) {
    std::vector<size_t> offsets;
    std::stringstream items(level);
    std::string item;
    while (std::getline(items, item, ',')) {
      // 18 digits always fit: stoull never throws here.
      if (item.empty() || item.size() > 18 ||
          item.find_first_not_of("0123456789") != std::string::npos) {
        return false;
      }
      offsets.push_back(static_cast<size_t>(std::stoull(item)));
    }
    if (offsets.empty()) return false;
    lod->push_back(std::move(offsets));
  }
  return !lod->empty();
}

std::string FormatLoDText(const paddle_lite::LoD& lod) {
  std::string text;
  for (size_t l = 0; l < lod.size(); ++l) {
    if (l > 0) text += ';';
    for (size_t i = 0; i < lod[l].size(); ++i) {
      if (i > 0) text += ',';
      text += std::to_string(lod[l][i]);
    }
  }
  return text;
}

}  // namespace pdlite
