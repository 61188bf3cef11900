// roam::iso_heap: the program's malloc and operator new, replaced so that a
// migratable thread started with thread_options{.isomalloc_heap = true} is
// served from its isomalloc slot while it runs (docs/design/isomalloc.md,
// "Thread heaps"). Opt-in: only programs that link this library get it.
//
// Every call asks one thread-local word (tls_heap_route): null, as for all
// code but such a thread (and the runtime's calls, which pause it), means the
// C library's allocator; a free() looks at the address: inside the isomalloc
// range it goes to its slot's heap, else to the C library. Glibc supports
// replacing malloc this way (the executable's definitions win, and the
// library's own calls come here too). Under AddressSanitizer and
// ThreadSanitizer the "C library" is the sanitizer's allocator (its
// __interceptor_ entry points), so everything but slot memory stays checked.
#include <dlfcn.h>
#include <malloc.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include <roam/iso/detail/heap_routing.hpp>
#include <roam/sched/detail/heap_route.hpp>

// Built without instrumentation in sanitizer builds (src/CMakeLists.txt: it
// runs during the sanitizer's start-up), which say so with this definition.
#if defined(ROAM_ISO_HEAP_UNDER_SANITIZER)
#define ROAM_I_SANITIZED_MALLOC 1
#endif

extern "C" {
#if defined(ROAM_I_SANITIZED_MALLOC)
void* __interceptor_malloc(std::size_t);
void __interceptor_free(void*);
void* __interceptor_calloc(std::size_t, std::size_t);
void* __interceptor_realloc(void*, std::size_t);
void* __interceptor_memalign(std::size_t, std::size_t);
std::size_t __interceptor_malloc_usable_size(void*);
#else
void* __libc_malloc(std::size_t);
void __libc_free(void*);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
#endif
}

namespace {

namespace iso = roam::detail::iso;
using roam::detail::tls_heap_route;

#if defined(ROAM_I_SANITIZED_MALLOC)
void* real_malloc(std::size_t n) { return __interceptor_malloc(n); }
void real_free(void* p) { __interceptor_free(p); }
void* real_calloc(std::size_t n, std::size_t s) { return __interceptor_calloc(n, s); }
void* real_realloc(void* p, std::size_t n) { return __interceptor_realloc(p, n); }
void* real_memalign(std::size_t a, std::size_t n) { return __interceptor_memalign(a, n); }
std::size_t real_usable_size(void* p) { return __interceptor_malloc_usable_size(p); }
#else
void* real_malloc(std::size_t n) { return __libc_malloc(n); }
void real_free(void* p) { __libc_free(p); }
void* real_calloc(std::size_t n, std::size_t s) { return __libc_calloc(n, s); }
void* real_realloc(void* p, std::size_t n) { return __libc_realloc(p, n); }
void* real_memalign(std::size_t a, std::size_t n) { return __libc_memalign(a, n); }
// The C library exports no second name for it: found once, after start-up
// (nothing calls it before main).
std::size_t real_usable_size(void* p) {
  using fn = std::size_t (*)(void*);
  static const fn next = reinterpret_cast<fn>(::dlsym(RTLD_NEXT, "malloc_usable_size"));
  return next ? next(p) : 0;
}
#endif

bool power_of_two(std::size_t a) { return a != 0 && (a & (a - 1)) == 0; }

void* allocate(std::size_t n, std::size_t align) noexcept {
  if (tls_heap_route != nullptr) [[unlikely]]
    return iso::routed_allocate(n, align);
  return align <= alignof(std::max_align_t) ? real_malloc(n) : real_memalign(align, n);
}

void release(void* p) noexcept {
  if (iso::in_range(p)) [[unlikely]]
    return iso::routed_release(p);
  real_free(p);
}

void* new_or_throw(std::size_t n, std::size_t align) {
  for (;;) {
    if (void* p = allocate(n, align)) return p;
    std::new_handler h = std::get_new_handler();
    if (h == nullptr) throw std::bad_alloc();
    h();
  }
}

}  // namespace

extern "C" {

void roam_iso_heap_linked() {}

void* malloc(std::size_t n) { return allocate(n, alignof(std::max_align_t)); }

void free(void* p) { release(p); }

void* calloc(std::size_t count, std::size_t size) {
  if (tls_heap_route == nullptr) [[likely]]
    return real_calloc(count, size);
  std::size_t n = 0;
  if (__builtin_mul_overflow(count, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* p = iso::routed_allocate(n, alignof(std::max_align_t));
  if (p) std::memset(p, 0, n);
  return p;
}

void* realloc(void* p, std::size_t n) {
  if (p == nullptr) return allocate(n, alignof(std::max_align_t));
  if (!iso::in_range(p)) [[likely]]
    return real_realloc(p, n);  // the process's block stays the process's
  if (n == 0) {
    iso::routed_release(p);
    return nullptr;
  }
  return iso::routed_reallocate(p, n);
}

void* reallocarray(void* p, std::size_t count, std::size_t size) {
  std::size_t n = 0;
  if (__builtin_mul_overflow(count, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, n);
}

int posix_memalign(void** out, std::size_t align, std::size_t n) {
  if (!power_of_two(align) || align % sizeof(void*) != 0) return EINVAL;
  void* p = allocate(n, align);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(std::size_t align, std::size_t n) {
  if (!power_of_two(align)) {
    errno = EINVAL;
    return nullptr;
  }
  return allocate(n, align);
}

void* memalign(std::size_t align, std::size_t n) { return aligned_alloc(align, n); }

void* valloc(std::size_t n) { return allocate(n, 4096); }

void* pvalloc(std::size_t n) { return allocate((n + 4095) / 4096 * 4096, 4096); }

std::size_t malloc_usable_size(void* p) {
  if (p == nullptr) return 0;
  if (iso::in_range(p)) [[unlikely]]
    return iso::routed_usable_size(p);
  return real_usable_size(p);
}

// The C library's strdup calls malloc, but the sanitizers replace it with
// their own, which would not: these keep it routed everywhere.
char* strdup(const char* text) {
  const std::size_t n = std::strlen(text) + 1;
  auto* copy = static_cast<char*>(allocate(n, alignof(std::max_align_t)));
  if (copy) std::memcpy(copy, text, n);
  return copy;
}

char* strndup(const char* text, std::size_t most) {
  const std::size_t n = strnlen(text, most);
  auto* copy = static_cast<char*>(allocate(n + 1, alignof(std::max_align_t)));
  if (copy) {
    std::memcpy(copy, text, n);
    copy[n] = '\0';
  }
  return copy;
}

}  // extern "C"

// operator new and delete: the C++ library's call malloc, but a sanitizer's
// have their own allocator; these make both go through the functions above.
void* operator new(std::size_t n) { return new_or_throw(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return new_or_throw(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return new_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return new_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
