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

// Where things are in the loaded program and in a rank's copy of it. The
// copy holds the program and the shared libraries that were loaded with it
// (the program's own: ones the loader's process did not have already), each
// at its offset `at` in the copy, the program at 0.
struct image_layout {
  void* handle = nullptr;
  std::uintptr_t start = 0, end = 0;  // the program's pages, as loaded
  struct object {
    std::string name;
    std::uintptr_t start, end;  // its pages, as loaded
    std::uintptr_t at;          // its offset in a copy
  };
  std::vector<object> objects;  // the program first
  std::uintptr_t span = 0;      // bytes of a copy
  struct segment {
    std::uintptr_t begin, end;  // offsets in a copy, page aligned
    std::uintptr_t from;        // where its bytes are, as loaded
    int prot;
  };
  std::vector<segment> segments;
  std::vector<std::uintptr_t> relocated;     // offsets in a copy of words the dynamic linker wrote
  std::vector<std::uintptr_t> atexit_words;  // offsets of the GOT words that hold __cxa_atexit
  std::vector<std::uintptr_t> eh_frames;     // offsets of each object's .eh_frame
  struct initializers {
    std::uintptr_t init = 0;        // DT_INIT (0: none)
    std::uintptr_t array = 0;       // DT_INIT_ARRAY (0: none)
    std::size_t count = 0;
  };
  std::vector<initializers> inits;  // in the order they run: libraries first, the program last
  std::uintptr_t main_c = 0, main_args = 0, main_noargs = 0;  // offsets of main (or of mpi.h's renamed mains)
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

// An object loaded in the process (dl_iterate_phdr's view of it).
struct loaded_object {
  std::uintptr_t base;
  std::string name;
  const ElfW(Phdr) * phdr;
  int count;
};

std::vector<loaded_object> loaded_objects() {
  std::vector<loaded_object> all;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        static_cast<std::vector<loaded_object>*>(data)->push_back(
            {info->dlpi_addr, info->dlpi_name ? info->dlpi_name : "", info->dlpi_phdr, info->dlpi_phnum});
        return 0;
      },
      &all);
  return all;
}

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

// One loaded object's part of the layout: its segments, relocations,
// unwind table and initializers, at offset `at` of a copy.
void read_object(const loaded_object& o, std::uintptr_t at) {
  image_layout& L = g_layout;
  const std::uintptr_t base = o.base;
  const std::string what = L.objects.empty() ? std::string("it") : "its library " + o.name;
  std::uintptr_t start = ~std::uintptr_t{0}, end = 0, hdr = 0;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < o.count; ++i) {
    const ElfW(Phdr)& ph = o.phdr[i];
    if (ph.p_type == PT_LOAD) {
      start = std::min(start, page_down(base + ph.p_vaddr));
      end = std::max(end, page_up(base + ph.p_vaddr + ph.p_memsz));
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      hdr = base + ph.p_vaddr;
    } else if (ph.p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
    }
  }
  if (end == 0) cannot(what + " has no loadable segment");
  if (dynamic == nullptr) cannot(what + " has no dynamic section (not a shared object?)");
  L.objects.push_back({o.name, start, end, at});
  auto in_copy = [&](std::uintptr_t address) { return at + (address - start); };
  for (int i = 0; i < o.count; ++i) {
    const ElfW(Phdr)& ph = o.phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t lo = page_down(base + ph.p_vaddr), hi = page_up(base + ph.p_vaddr + ph.p_memsz);
    const int prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
                     ((ph.p_flags & PF_X) ? PROT_EXEC : 0);
    if (!(ph.p_flags & PF_R)) cannot(what + " has a segment that cannot be read (built as ampicc builds programs?)");
    L.segments.push_back({in_copy(lo), in_copy(hi), lo, prot});
  }
  if (hdr != 0) {
    // .eh_frame_hdr: version, eh_frame_ptr encoding, ..., then eh_frame_ptr.
    const auto* h = reinterpret_cast<const unsigned char*>(hdr);
    if (h[0] == 1 && h[1] == 0x1b) {  // DW_EH_PE_pcrel | DW_EH_PE_sdata4, as the linkers write it
      std::int32_t rel;
      std::memcpy(&rel, h + 4, 4);
      L.eh_frames.push_back(in_copy(hdr + 4 + static_cast<std::intptr_t>(rel)));
    }
  }
  auto addr = [&](ElfW(Addr) v) { return v < base ? v + base : v; };  // glibc relocates some entries in place
  std::uintptr_t rela = 0, relasz = 0, jmprel = 0, pltsz = 0, relr = 0, relrsz = 0, init_array = 0, init_arraysz = 0;
  std::uintptr_t symtab = 0, strtab = 0;
  image_layout::initializers init;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_RELA: rela = addr(d->d_un.d_ptr); break;
      case DT_RELASZ: relasz = d->d_un.d_val; break;
      case DT_JMPREL: jmprel = addr(d->d_un.d_ptr); break;
      case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
#ifdef DT_RELR
      case DT_RELR: relr = addr(d->d_un.d_ptr); break;
      case DT_RELRSZ: relrsz = d->d_un.d_val; break;
#endif
      case DT_REL: cannot(what + " has REL relocations (not an x86-64 shared object?)");
      case DT_TEXTREL: cannot(what + " has text relocations: compile every file with -fPIC (ampicc does)");
      case DT_INIT: init.init = in_copy(addr(d->d_un.d_ptr)); break;
      case DT_SYMTAB: symtab = addr(d->d_un.d_ptr); break;
      case DT_STRTAB: strtab = addr(d->d_un.d_ptr); break;
      case DT_INIT_ARRAY: init_array = addr(d->d_un.d_ptr); break;
      case DT_INIT_ARRAYSZ: init_arraysz = d->d_un.d_val; break;
      default: break;
    }
  }
  auto take_rela = [&](std::uintptr_t where, std::uintptr_t size) {
    const auto* r = reinterpret_cast<const ElfW(Rela)*>(where);
    for (std::size_t i = 0; i < size / sizeof(ElfW(Rela)); ++i) {
      L.relocated.push_back(in_copy(base + r[i].r_offset));
      const auto sym = ELF64_R_SYM(r[i].r_info);
      if (sym == 0 || symtab == 0 || strtab == 0) continue;
      const auto* entry = reinterpret_cast<const ElfW(Sym)*>(symtab) + sym;
      if (std::strcmp(reinterpret_cast<const char*>(strtab) + entry->st_name, "__cxa_atexit") == 0)
        L.atexit_words.push_back(in_copy(base + r[i].r_offset));
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
        L.relocated.push_back(in_copy(where));
        where += sizeof(ElfW(Addr));
      } else {
        ElfW(Relr) bits = e[i] >> 1;
        for (std::size_t k = 0; bits != 0; ++k, bits >>= 1)
          if (bits & 1) L.relocated.push_back(in_copy(where + k * sizeof(ElfW(Addr))));
        where += 63 * sizeof(ElfW(Addr));
      }
    }
  }
  if (init_array) {
    init.array = in_copy(init_array);
    init.count = init_arraysz / sizeof(void*);
  }
  L.inits.insert(L.inits.begin(), init);  // the objects a later one needs run first
  L.span = std::max(L.span, at + (end - start));
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
  // What the process had before: the libraries that come with the program
  // and were not here (its own shared libraries) are copied with it.
  const std::vector<loaded_object> before = loaded_objects();
  L.handle = dlopen(g_image_settings.program.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (L.handle == nullptr) cannot(std::string("cannot be opened: ") + dlerror());
  link_map* lm = nullptr;
  if (dlinfo(L.handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) cannot("no link map");
  const std::vector<loaded_object> after = loaded_objects();
  auto was_here = [&](const loaded_object& o) {
    return std::any_of(before.begin(), before.end(),
                       [&](const loaded_object& b) { return b.base == o.base && b.name == o.name; });
  };
  const auto program = std::find_if(after.begin(), after.end(), [&](const loaded_object& o) {
    return o.base == lm->l_addr && o.name == lm->l_name;
  });
  if (program == after.end()) cannot("its program headers were not found");
  read_object(*program, 0);
  L.start = L.objects[0].start;
  L.end = L.objects[0].end;
  for (const loaded_object& o : after)
    if (&o != &*program && !o.name.empty() && !was_here(o)) read_object(o, page_up(L.span));
  // Segments may overlap in pages (the same page mapped twice): each is
  // copied whole, the overlap twice with the same bytes.
  std::sort(L.segments.begin(), L.segments.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  auto offset_of = [&](const char* symbol) -> std::uintptr_t {
    void* p = dlsym(L.handle, symbol);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return p && a >= L.start && a < L.end ? a - L.start : 0;
  };
  // ampicc keeps the program's main; a program whose objects were compiled
  // with mpi.h's rename (built some other way) has the renamed one.
  L.main_c = offset_of("main");
  if (!L.main_c) L.main_c = offset_of("roam_ampi_main_c");
  L.main_args = offset_of("_Z18roam_ampi_main_cppiPPc");
  L.main_noargs = offset_of("_Z18roam_ampi_main_cppv");
  if (!L.main_c && !L.main_args && !L.main_noargs)
    cannot("it has no main of its own (build it with ampicc or ampicxx, which make PROG.so with the program's main)");
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
  auto* copy = static_cast<std::byte*>(thread_heap_allocate(L.span, page));
  for (const auto& seg : L.segments)
    std::memcpy(copy + seg.begin, reinterpret_cast<const void*>(seg.from), seg.end - seg.begin);
  // A word pointing into the program or one of its libraries points into
  // the copy's (the libraries are few: a scan of them per word).
  const auto to = reinterpret_cast<std::uintptr_t>(copy);
  for (std::uintptr_t off : L.relocated) {
    std::uintptr_t w;
    std::memcpy(&w, copy + off, sizeof w);
    for (const auto& o : L.objects)
      if (w >= o.start && w < o.end) {
        w = to + o.at + (w - o.start);
        std::memcpy(copy + off, &w, sizeof w);
        break;
      }
  }
  for (std::uintptr_t off : L.atexit_words) {
    const auto fn = reinterpret_cast<std::uintptr_t>(&roam_ampi_rank_atexit);
    std::memcpy(copy + off, &fn, sizeof fn);
  }
  const auto image = reinterpret_cast<std::uint64_t>(copy);
  image_arrived(image);
  // The copy's constructors, on the rank's thread: what they allocate is the
  // rank's. The libraries' first, as the dynamic linker orders them.
  using init_fn = void (*)(int, char**, char**);
  for (const auto& init : L.inits) {
    if (init.init) reinterpret_cast<void (*)()>(image + init.init)();
    for (std::size_t i = 0; i < init.count; ++i) {
      init_fn f;
      std::memcpy(&f, copy + init.array + i * sizeof(void*), sizeof f);
      if (reinterpret_cast<std::uintptr_t>(f) + 1 > 1) f(0, nullptr, environ);
    }
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
  if (g_layout.eh_frames.empty()) return;
  std::lock_guard lock(g_frames_lock);
  if (g_frames[image]++ != 0) return;
  for (std::uintptr_t table : g_layout.eh_frames) __register_frame(reinterpret_cast<void*>(image + table));
  // Have libgcc sort the tables now, while the copy is here: afterwards it
  // reads them only for an address inside the copy.
  for (const auto& seg : g_layout.segments)
    if (seg.prot & PROT_EXEC) {
      struct {
        void* a[3];
      } bases{};
      _Unwind_Find_FDE(reinterpret_cast<void*>(image + seg.begin + 1), &bases);
    }
}

void image_leaving(std::uint64_t image) {
  if (image == 0 || g_layout.eh_frames.empty()) return;
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
  for (std::uintptr_t at : g_layout.eh_frames) {
    void* table = reinterpret_cast<void*>(image + at);
    if (readable(table)) __deregister_frame(table);
  }
}

}  // namespace roam::ampi
