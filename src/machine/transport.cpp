#include <roam/machine/detail/transport.hpp>

#include <cstdlib>
#include <string_view>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace roam::detail {

namespace {
bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

}  // namespace

// Messages between processes allocate and free large buffers all the time:
// a std::vector argument is copied into the message and unpacked into a new
// vector on every delivery. glibc serves blocks above its mmap threshold
// (128 KiB at first) with mmap and unmaps them on free, and trims the heap
// top beyond its trim threshold, so such a buffer is page-faulted in anew on
// every use: 10 % of the time of a 1 MiB std::vector ping-pong, 2.3x its
// one-way time overall (docs/perf.md, 2026-11-22). Keeping them in the heap
// makes them reuse mapped memory, as MPI libraries' own start-up tuning does.
// Between the PEs of one process the same holds (a marshalled std::vector is
// allocated by the sender's thread and freed by the receiver's): a 1 MiB
// cross-PE ping-pong page-faulted 34,888 times untuned, 2,469 tuned, and ran
// 3-5 % faster, quiet or with a competing process (docs/perf.md, 2026-11-28).
// The user's own MALLOC_* / GLIBC_TUNABLES settings win; ROAM_MALLOC_TUNING=0
// turns this off. (roam::buffer memory and large message blocks do not
// depend on it: they come from the block cache, byte_block.hpp.)
void tune_malloc_for_messages() noexcept {
#ifdef __GLIBC__
  if (const char* v = std::getenv("ROAM_MALLOC_TUNING"); v && std::string_view(v) == "0") return;
  if (env_set("MALLOC_MMAP_THRESHOLD_") || env_set("MALLOC_TRIM_THRESHOLD_") || env_set("GLIBC_TUNABLES")) return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest accepted value on 64-bit
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

std::string detect_transport() {
  if (const char* t = std::getenv("ROAM_TRANSPORT"); t && *t) return t;
  // Set by OpenMPI's mpirun, by MPICH/Hydra and by Slurm's PMI.
  if (env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMI_SIZE") || env_set("PMIX_RANK")) return "mpi";
  return "";
}

namespace {
// A count or rank from variable `name`: false (and `error`) when unset or not a number.
bool read_count(const char* name, std::uint32_t& out, std::string& error) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    error = std::string(name) + " is not set";
    return false;
  }
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0' || n > 0xffffffffUL) {
    error = std::string(name) + "='" + v + "' is not a number";
    return false;
  }
  out = static_cast<std::uint32_t>(n);
  return true;
}
}  // namespace

bool job_size_from_environment(const std::string& kind, std::uint32_t& processes, std::uint32_t& rank,
                               std::string& error) {
  bool ok = false;
  if (kind == "tcp") {
    ok = read_count("ROAM_TCP_NODES", processes, error) && read_count("ROAM_TCP_NODE", rank, error);
  } else if (kind == "mpi") {
    ok = env_set("OMPI_COMM_WORLD_SIZE")
             ? read_count("OMPI_COMM_WORLD_SIZE", processes, error) && read_count("OMPI_COMM_WORLD_RANK", rank, error)
             : read_count("PMI_SIZE", processes, error) && read_count("PMI_RANK", rank, error);
  } else {
    error = "unknown transport '" + kind + "'";
  }
  if (ok && rank >= processes) {
    error = "rank " + std::to_string(rank) + " of a job of " + std::to_string(processes) + " processes";
    ok = false;
  }
  if (!ok) error = kind + " job: " + error;
  return ok;
}

std::unique_ptr<transport> make_transport(const std::string& kind, std::string& error) {
  if (kind == "tcp" || kind == "mpi") tune_malloc_for_messages();
  if (kind == "tcp") return make_tcp_transport(error);
  if (kind == "mpi") {
#ifdef ROAM_HAVE_MPI
    return make_mpi_transport(error);
#else
    error = "this program was started under MPI, but roam was built without MPI (no MPI found at configure "
            "time; install OpenMPI, e.g. scripts/install-deps.sh, and reconfigure)";
    return nullptr;
#endif
  }
  error = "unknown transport '" + kind + "' (ROAM_TRANSPORT must be tcp or mpi)";
  return nullptr;
}

}  // namespace roam::detail
