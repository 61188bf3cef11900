#pragma once
// A PNG file of 8-bit RGB pixels, compressed by zlib (a few lines over the
// format's chunks; no libpng).
#include <cstdint>
#include <string>
#include <vector>

namespace amr {

// Writes width×height pixels (rgb: 3 bytes each, rows top to bottom) to
// `path`; false with `error` set if the file cannot be written.
bool write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb, std::string& error);

}  // namespace amr
