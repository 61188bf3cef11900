#pragma once
// Which sanitizer this translation unit is built with (GCC defines
// __SANITIZE_*__, Clang answers __has_feature), and its interface headers:
// the user-level threads must tell ASan and TSan about stack switches.
#if defined(__SANITIZE_ADDRESS__)
#define ROAM_I_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROAM_I_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ROAM_I_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROAM_I_TSAN 1
#endif
#endif

#if defined(ROAM_I_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(ROAM_I_TSAN)
#include <sanitizer/tsan_interface.h>
#endif
