/* exit() called by a rank (the rank part is exit.cpp). Written in C and
 * compiled with unwind tables: the C library declares exit() noexcept for
 * C++, but a rank that exits blocks for good and, when the program ends,
 * the runtime unwinds its stack through this frame. */
#include <stdlib.h>

int roam_ampi_exit_on_rank(int status); /* exit.cpp: returns 0 off a rank */
void roam_ampi_libc_exit(int status);   /* exit.cpp: the C library's exit */

void exit(int status) {
  roam_ampi_exit_on_rank(status);
  roam_ampi_libc_exit(status);
  for (;;) {
  }
}
