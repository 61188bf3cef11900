// Per-rank copies of the program image (privatize.hpp).
#include "privatize.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <roam/roam.hpp>
#include <roam/sched/options.hpp>

extern "C" void __register_frame(void* begin);    // libgcc: unwind tables of code it cannot find itself
extern "C" void __deregister_frame(void* begin);  // (JIT compilers use them too)
extern "C" const void* _Unwind_Find_FDE(void* pc, void* bases);

// The program's main, renamed by mpi.h, when it is linked into the executable.
extern "C" int roam_ampi_main_c(int, char**) __attribute__((weak));
int roam_ampi_main_cpp(int, char**) __attribute__((weak));
int roam_ampi_main_cpp() __attribute__((weak));

namespace roam::ampi {
namespace {

struct image_settings {
  std::string program;
  bool privatize = true;
};
image_settings g_image_settings;

[[maybe_unused]] const bool g_image_options = register_runtime_options(
    "ampi image",
    {{"ampi_program", "ROAM_AMPI_PROGRAM", "PATH",
      "Adaptive MPI: the program shared object to run (ampicc's PROG.so; its launcher script passes it)",
      [](std::string_view v) { return option_parse::word(v, "a program path", g_image_settings.program); }},
     {"ampi_privatize", "ROAM_AMPI_PRIVATIZE", "[=yes|no]",
      "Adaptive MPI: each rank its own copy of the program's globals (default yes for a program shared object)",
      [](std::string_view v) { return option_parse::flag(v, g_image_settings.privatize); }}},
    [] { g_image_settings = {}; });

// Where things are in the loaded program, as offsets from `start`.
struct image_layout {
  void* handle = nullptr;
  std::uintptr_t start = 0, end = 0;  // the pages of every loaded segment
  struct segment {
    std::uintptr_t begin, end;  // offsets, page aligned
    int prot;
  };
  std::vector<segment> segments;
  std::vector<std::uintptr_t> relocated;  // offsets of words the dynamic linker wrote
  std::vector<std::uintptr_t> atexit_words;  // offsets of the GOT words that hold __cxa_atexit
  std::uintptr_t eh_frame = 0;            // offset of .eh_frame (0: none)
  std::uintptr_t init = 0;                // DT_INIT (0: none)
  std::uintptr_t init_array = 0;
  std::size_t init_count = 0;
  std::uintptr_t main_c = 0, main_args = 0, main_noargs = 0;  // offsets of the renamed mains
};
image_layout g_layout;
std::once_flag g_loaded;

constexpr std::uintptr_t page = 4096;
std::uintptr_t page_down(std::uintptr_t a) { return a & ~(page - 1); }
std::uintptr_t page_up(std::uintptr_t a) { return (a + page - 1) & ~(page - 1); }

// Thrown: the run reports it with where it happened (start-up, a rank's
// thread, a rank arriving) and stops.
[[noreturn]] void cannot(const std::string& what) {
  throw std::runtime_error("ampi: the program " + g_image_settings.program + ": " + what);
}

struct phdr_search {
  std::uintptr_t base;
  const char* name;
  const ElfW(Phdr) * phdr = nullptr;
  int count = 0;
};

// The MPI functions the program calls that this library does not provide:
// mpi.h names every function it has AMPI_<name>, so an undefined MPI_ or
// PMPI_ symbol in the program is one it lacks (a C program compiled with an
// implicit declaration). Found before the program is opened: the loader's
// process may hold another MPI library (the MPI transport's), which would
// silently provide it.
std::vector<std::string> missing_mpi_functions(const std::string& path) {
  std::vector<std::string> missing;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return missing;  // dlopen reports it
  std::vector<unsigned char> image;
  unsigned char chunk[65536];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) image.insert(image.end(), chunk, chunk + n);
  std::fclose(f);
  if (image.size() < sizeof(ElfW(Ehdr))) return missing;
  ElfW(Ehdr) eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_shentsize != sizeof(ElfW(Shdr)) ||
      eh.e_shoff + std::uint64_t{eh.e_shnum} * sizeof(ElfW(Shdr)) > image.size())
    return missing;
  std::vector<ElfW(Shdr)> sh(eh.e_shnum);
  std::memcpy(sh.data(), image.data() + eh.e_shoff, sh.size() * sizeof(ElfW(Shdr)));
  for (const ElfW(Shdr)& s : sh) {
    if (s.sh_type != SHT_DYNSYM || s.sh_link >= sh.size() || s.sh_entsize != sizeof(ElfW(Sym))) continue;
    const ElfW(Shdr)& str = sh[s.sh_link];
    if (s.sh_offset + s.sh_size > image.size() || str.sh_offset + str.sh_size > image.size()) continue;
    for (std::uint64_t off = 0; off + sizeof(ElfW(Sym)) <= s.sh_size; off += sizeof(ElfW(Sym))) {
      ElfW(Sym) sym;
      std::memcpy(&sym, image.data() + s.sh_offset + off, sizeof sym);
      if (sym.st_shndx != SHN_UNDEF || sym.st_name >= str.sh_size) continue;
      const char* name = reinterpret_cast<const char*>(image.data() + str.sh_offset + sym.st_name);
      const std::size_t len = strnlen(name, str.sh_size - sym.st_name);
      const std::string n(name, len);
      if (n.rfind("MPI_", 0) == 0 || n.rfind("PMPI_", 0) == 0) missing.push_back(n);
    }
  }
  return missing;
}

void read_layout() {
  image_layout& L = g_layout;
  if (const auto missing = missing_mpi_functions(g_image_settings.program); !missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 8) list += " and " + std::to_string(missing.size() - 8) + " more";
    cannot("it calls MPI functions roam's Adaptive MPI does not provide: " + list +
           " (compiled without their declaration: see the compiler's implicit-declaration warnings)");
  }
  L.handle = dlopen(g_image_settings.program.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (L.handle == nullptr) cannot(std::string("cannot be opened: ") + dlerror());
  link_map* lm = nullptr;
  if (dlinfo(L.handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) cannot("no link map");
  const std::uintptr_t base = lm->l_addr;
  phdr_search s{base, lm->l_name};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* q = static_cast<phdr_search*>(data);
        if (info->dlpi_addr != q->base || std::strcmp(info->dlpi_name, q->name) != 0) return 0;
        q->phdr = info->dlpi_phdr;
        q->count = info->dlpi_phnum;
        return 1;
      },
      &s);
  if (s.phdr == nullptr) cannot("its program headers were not found");
  L.start = ~std::uintptr_t{0};
  std::uintptr_t hdr = 0;
  for (int i = 0; i < s.count; ++i) {
    const ElfW(Phdr)& ph = s.phdr[i];
    if (ph.p_type == PT_LOAD) {
      const std::uintptr_t lo = page_down(base + ph.p_vaddr), hi = page_up(base + ph.p_vaddr + ph.p_memsz);
      const int prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
                       ((ph.p_flags & PF_X) ? PROT_EXEC : 0);
      if (!(ph.p_flags & PF_R)) cannot("it has a segment that cannot be read (built as ampicc builds programs?)");
      L.segments.push_back({lo, hi, prot});
      L.start = std::min(L.start, lo);
      L.end = std::max(L.end, hi);
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      hdr = base + ph.p_vaddr;
    }
  }
  for (auto& seg : L.segments) seg.begin -= L.start, seg.end -= L.start;
  // Segments may overlap in pages (the same page mapped twice): merge.
  std::sort(L.segments.begin(), L.segments.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  if (hdr != 0) {
    // .eh_frame_hdr: version, eh_frame_ptr encoding, ..., then eh_frame_ptr.
    const auto* h = reinterpret_cast<const unsigned char*>(hdr);
    if (h[0] == 1 && h[1] == 0x1b) {  // DW_EH_PE_pcrel | DW_EH_PE_sdata4, as the linkers write it
      std::int32_t rel;
      std::memcpy(&rel, h + 4, 4);
      L.eh_frame = hdr + 4 + static_cast<std::intptr_t>(rel) - L.start;
    }
  }
  auto addr = [&](ElfW(Addr) v) { return v < base ? v + base : v; };  // glibc relocates some entries in place
  std::uintptr_t rela = 0, relasz = 0, jmprel = 0, pltsz = 0, relr = 0, relrsz = 0, init_array = 0, init_arraysz = 0;
  std::uintptr_t symtab = 0, strtab = 0;
  for (const ElfW(Dyn)* d = lm->l_ld; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_RELA: rela = addr(d->d_un.d_ptr); break;
      case DT_RELASZ: relasz = d->d_un.d_val; break;
      case DT_JMPREL: jmprel = addr(d->d_un.d_ptr); break;
      case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
#ifdef DT_RELR
      case DT_RELR: relr = addr(d->d_un.d_ptr); break;
      case DT_RELRSZ: relrsz = d->d_un.d_val; break;
#endif
      case DT_REL: cannot("it has REL relocations (not an x86-64 shared object?)");
      case DT_TEXTREL: cannot("it has text relocations: compile every file with -fPIC (ampicc does)");
      case DT_INIT: L.init = addr(d->d_un.d_ptr) - L.start; break;
      case DT_SYMTAB: symtab = addr(d->d_un.d_ptr); break;
      case DT_STRTAB: strtab = addr(d->d_un.d_ptr); break;
      case DT_INIT_ARRAY: init_array = addr(d->d_un.d_ptr); break;
      case DT_INIT_ARRAYSZ: init_arraysz = d->d_un.d_val; break;
      default: break;
    }
  }
  auto take_rela = [&](std::uintptr_t at, std::uintptr_t size) {
    const auto* r = reinterpret_cast<const ElfW(Rela)*>(at);
    for (std::size_t i = 0; i < size / sizeof(ElfW(Rela)); ++i) {
      L.relocated.push_back(base + r[i].r_offset - L.start);
      const auto sym = ELF64_R_SYM(r[i].r_info);
      if (sym == 0 || symtab == 0 || strtab == 0) continue;
      const auto* entry = reinterpret_cast<const ElfW(Sym)*>(symtab) + sym;
      if (std::strcmp(reinterpret_cast<const char*>(strtab) + entry->st_name, "__cxa_atexit") == 0)
        L.atexit_words.push_back(base + r[i].r_offset - L.start);
    }
  };
  if (rela) take_rela(rela, relasz);
  if (jmprel) take_rela(jmprel, pltsz);
  if (relr) {  // SHT_RELR: an address, then bitmaps of the 63 words after it
    const auto* e = reinterpret_cast<const ElfW(Relr)*>(relr);
    std::uintptr_t where = 0;
    for (std::size_t i = 0; i < relrsz / sizeof(ElfW(Relr)); ++i) {
      if ((e[i] & 1) == 0) {
        where = base + e[i];
        L.relocated.push_back(where - L.start);
        where += sizeof(ElfW(Addr));
      } else {
        ElfW(Relr) bits = e[i] >> 1;
        for (std::size_t k = 0; bits != 0; ++k, bits >>= 1)
          if (bits & 1) L.relocated.push_back(where + k * sizeof(ElfW(Addr)) - L.start);
        where += 63 * sizeof(ElfW(Addr));
      }
    }
  }
  if (init_array) {
    L.init_array = init_array - L.start;
    L.init_count = init_arraysz / sizeof(void*);
  }
  auto offset_of = [&](const char* symbol) -> std::uintptr_t {
    void* p = dlsym(L.handle, symbol);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return p && a >= L.start && a < L.end ? a - L.start : 0;
  };
  L.main_c = offset_of("roam_ampi_main_c");
  L.main_args = offset_of("_Z18roam_ampi_main_cppiPPc");
  L.main_noargs = offset_of("_Z18roam_ampi_main_cppv");
  if (!L.main_c && !L.main_args && !L.main_noargs)
    cannot("it has no main of its own: build it with ampicc or ampicxx (mpi.h renames main so that each rank runs it)");
}

// What a rank's copy calls instead of libc's __cxa_atexit (its C++
// globals' constructors register their destructors): libc's list of exit
// functions must not grow inside the rank's heap (a new block of it would be
// malloc'ed there, and the list would point into a slot that moves away).
// The destructors of a rank's globals are not run (docs/design/ampi.md).
extern "C" int roam_ampi_rank_atexit(void (*)(void*), void*, void*) { return 0; }

// Unwind tables registered in this process, by copy (count of rank
// elements here that hold it).
std::mutex g_frames_lock;
std::map<std::uint64_t, int> g_frames;

// Whether `p` can be read (without faulting: the kernel copies it for us).
bool readable(const void* p) {
  std::uint64_t word = 0;
  iovec local{&word, sizeof word};
  iovec remote{const_cast<void*>(p), sizeof word};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof word);
}

void protect_code(std::uint64_t image) {
  for (const auto& seg : g_layout.segments)
    if (seg.prot & PROT_EXEC)
      if (mprotect(reinterpret_cast<void*>(image + seg.begin), seg.end - seg.begin, PROT_READ | PROT_EXEC) != 0)
        cannot(std::string("its copy's code cannot be made executable: ") + std::strerror(errno));
}

}  // namespace

const std::string& program_path() { return g_image_settings.program; }
bool privatizing() { return !g_image_settings.program.empty() && g_image_settings.privatize; }

void load_program() {
  if (g_image_settings.program.empty()) return;
  const process_heap_scope process_heap;
  std::call_once(g_loaded, read_layout);
}

std::uint64_t make_rank_image() {
  if (!privatizing()) return 0;
  load_program();
  const image_layout& L = g_layout;
  const std::uintptr_t span = L.end - L.start;
  auto* copy = static_cast<std::byte*>(thread_heap_allocate(span, page));
  for (const auto& seg : L.segments)
    std::memcpy(copy + seg.begin, reinterpret_cast<const void*>(L.start + seg.begin), seg.end - seg.begin);
  const std::uintptr_t delta = reinterpret_cast<std::uintptr_t>(copy) - L.start;
  for (std::uintptr_t off : L.relocated) {
    std::uintptr_t w;
    std::memcpy(&w, copy + off, sizeof w);
    if (w >= L.start && w < L.end) {
      w += delta;
      std::memcpy(copy + off, &w, sizeof w);
    }
  }
  for (std::uintptr_t off : L.atexit_words) {
    const auto fn = reinterpret_cast<std::uintptr_t>(&roam_ampi_rank_atexit);
    std::memcpy(copy + off, &fn, sizeof fn);
  }
  const auto image = reinterpret_cast<std::uint64_t>(copy);
  image_arrived(image);
  // The copy's constructors, on the rank's thread: what they allocate is the
  // rank's.
  using init_fn = void (*)(int, char**, char**);
  if (L.init) reinterpret_cast<void (*)()>(image + L.init)();
  for (std::size_t i = 0; i < L.init_count; ++i) {
    init_fn f;
    std::memcpy(&f, copy + L.init_array + i * sizeof(void*), sizeof f);
    if (reinterpret_cast<std::uintptr_t>(f) + 1 > 1) f(0, nullptr, environ);
  }
  return image;
}

int run_program_main(std::uint64_t image, int argc, char** argv) {
  if (program_path().empty()) {  // linked into the executable
    if (roam_ampi_main_c) return roam_ampi_main_c(argc, argv);
    if (static_cast<int (*)(int, char**)>(roam_ampi_main_cpp)) return roam_ampi_main_cpp(argc, argv);
    if (static_cast<int (*)()>(roam_ampi_main_cpp)) return roam_ampi_main_cpp();
    std::fprintf(stderr, "ampi: the program has no main of its own: build it with ampicc or ampicxx (mpi.h renames "
                         "main so that each rank runs it)\n");
    return 1;
  }
  load_program();
  const image_layout& L = g_layout;
  const std::uintptr_t at = image != 0 ? image : L.start;
  if (L.main_c) return reinterpret_cast<int (*)(int, char**)>(at + L.main_c)(argc, argv);
  if (L.main_args) return reinterpret_cast<int (*)(int, char**)>(at + L.main_args)(argc, argv);
  return reinterpret_cast<int (*)()>(at + L.main_noargs)();
}

void image_arrived(std::uint64_t image) {
  if (image == 0) return;
  load_program();
  const process_heap_scope process_heap;  // libgcc's records of the tables
  protect_code(image);
  if (g_layout.eh_frame == 0) return;
  std::lock_guard lock(g_frames_lock);
  if (g_frames[image]++ != 0) return;
  __register_frame(reinterpret_cast<void*>(image + g_layout.eh_frame));
  // Have libgcc sort the tables now, while the copy is here: afterwards it
  // reads them only for an address inside the copy.
  for (const auto& seg : g_layout.segments)
    if (seg.prot & PROT_EXEC) {
      struct {
        void* a[3];
      } bases{};
      _Unwind_Find_FDE(reinterpret_cast<void*>(image + seg.begin + 1), &bases);
      break;
    }
}

void image_leaving(std::uint64_t image) {
  if (image == 0 || g_layout.eh_frame == 0) return;
  const process_heap_scope process_heap;
  std::lock_guard lock(g_frames_lock);
  auto it = g_frames.find(image);
  if (it == g_frames.end() || --it->second != 0) return;
  g_frames.erase(it);
  // libgcc reads the table's first word to deregister it. When the copy is
  // already gone (the run ends with this rank still blocked: its thread was
  // unwound and its slot given back first), the registration stays: libgcc
  // sorted it at registration and only reads it for a PC inside the copy,
  // where nothing runs any more.
  void* table = reinterpret_cast<void*>(image + g_layout.eh_frame);
  if (readable(table)) __deregister_frame(table);
}

}  // namespace roam::ampi
