#include "machine/transport.hpp"

#include <cstdlib>
#include <string_view>

namespace roam::detail {

namespace {
bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}
}  // namespace

std::string detect_transport() {
  if (const char* t = std::getenv("ROAM_TRANSPORT"); t && *t) return t;
  // Set by OpenMPI's mpirun, by MPICH/Hydra and by Slurm's PMI.
  if (env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMI_SIZE") || env_set("PMIX_RANK")) return "mpi";
  return "";
}

std::unique_ptr<transport> make_transport(const std::string& kind, std::string& error) {
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
