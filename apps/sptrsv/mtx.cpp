// Matrix Market reader (mtx.hpp).
#include "mtx.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

namespace sptrsv {
namespace {

std::string lower_case(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct gz_closer {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

}  // namespace

triplets read_matrix_market(const std::string& path) {
  std::unique_ptr<gzFile_s, gz_closer> f(gzopen(path.c_str(), "rb"));
  if (!f) throw input_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::int64_t line_no = 0;
  std::string line;
  char buf[4096];
  auto next_line = [&]() -> bool {
    line.clear();
    for (;;) {
      if (gzgets(f.get(), buf, sizeof buf) == nullptr) return !line.empty();
      line += buf;
      if (!line.empty() && line.back() == '\n') break;
    }
    ++line_no;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return true;
  };
  auto fail = [&](const std::string& what) -> input_error {
    return input_error(path + ":" + std::to_string(line_no) + ": " + what);
  };
  if (!next_line()) throw input_error(path + ": empty file, not a Matrix Market file");
  std::istringstream header(line);
  std::string banner, object, format, field, symmetry;
  header >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket" || lower_case(object) != "matrix")
    throw fail("not a Matrix Market header (expected '%%MatrixMarket matrix coordinate real general')");
  if (lower_case(format) != "coordinate") throw fail("format '" + format + "': only 'coordinate' (sparse) is read");
  field = lower_case(field);
  symmetry = lower_case(symmetry);
  if (field != "real" && field != "integer" && field != "double")
    throw fail("field '" + field + "': only real or integer values are read");
  if (symmetry != "general" && symmetry != "symmetric")
    throw fail("symmetry '" + symmetry + "': only general or symmetric are read");
  do {
    if (!next_line()) throw fail("the file ends before its size line");
  } while (line.empty() || line[0] == '%');
  std::istringstream size(line);
  long long rows = -1, cols = -1, entries = -1;
  if (!(size >> rows >> cols >> entries) || rows < 1 || cols < 1 || entries < 0)
    throw fail("size line '" + line + "': expected 'rows columns entries'");
  if (rows != cols) throw fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) + ", not square");
  if (rows > 2147483647LL) throw fail("more than 2^31 - 1 rows");
  triplets t;
  t.n = rows;
  t.i.reserve(static_cast<std::size_t>(entries));
  t.j.reserve(static_cast<std::size_t>(entries));
  t.v.reserve(static_cast<std::size_t>(entries));
  for (long long e = 0; e < entries; ++e) {
    do {
      if (!next_line())
        throw input_error(path + ":" + std::to_string(line_no) + ": the file ends after " + std::to_string(e) + " of " +
                          std::to_string(entries) + " entries (truncated)");
    } while (line.empty() || line[0] == '%');
    const char* p = line.c_str();
    char* end = nullptr;
    const long long i = std::strtoll(p, &end, 10);
    if (end == p) throw fail("expected 'row column value', got '" + line + "'");
    p = end;
    const long long j = std::strtoll(p, &end, 10);
    if (end == p) throw fail("expected 'row column value', got '" + line + "'");
    p = end;
    const double v = std::strtod(p, &end);
    if (end == p) throw fail("entry (" + std::to_string(i) + ", " + std::to_string(j) + ") has no value");
    if (i < 1 || i > rows) throw fail("row index " + std::to_string(i) + " outside 1.." + std::to_string(rows));
    if (j < 1 || j > cols) throw fail("column index " + std::to_string(j) + " outside 1.." + std::to_string(cols));
    t.add(i - 1, j - 1, v);
    if (symmetry == "symmetric" && i != j) t.add(j - 1, i - 1, v);
  }
  return t;
}

}  // namespace sptrsv
