// Cartesian topologies (MPI_Dims_create, MPI_Cart_*), graph and distributed
// graph topologies (MPI_Graph_*, MPI_Dist_graph_*) and communicator
// attributes with user keys (MPI_Comm_create_keyval, set/get/delete_attr).
#include <algorithm>
#include <functional>
#include <numeric>

#include "api.hpp"

using namespace roam::ampi;

namespace {

const communicator* cart_of(MPI_Comm comm, const char* function, int* err) {
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
    return nullptr;
  }
  if (c->topology != MPI_CART) {
    *err = fail(comm, MPI_ERR_TOPOLOGY, function, "the communicator has no Cartesian topology");
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return c;
}

void coords_of(const communicator& c, int r, int* coords) {
  for (std::size_t d = c.dims.size(); d-- > 0;) {
    coords[d] = r % c.dims[d];
    r /= c.dims[d];
  }
}

// The rank at `coords` (wrapped where periodic), or MPI_PROC_NULL outside.
int rank_at(const communicator& c, const std::vector<int>& coords) {
  int r = 0;
  for (std::size_t d = 0; d < c.dims.size(); ++d) {
    int x = coords[d];
    if (x < 0 || x >= c.dims[d]) {
      if (!c.periods[d]) return MPI_PROC_NULL;
      x = ((x % c.dims[d]) + c.dims[d]) % c.dims[d];
    }
    r = r * c.dims[d] + x;
  }
  return r;
}

}  // namespace

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (nnodes <= 0 || ndims < 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Dims_create", "nnodes must be positive and ndims not negative");
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return fail(MPI_COMM_WORLD, MPI_ERR_DIMS, "MPI_Dims_create", "a negative dimension");
    if (dims[i] == 0) ++free_dims;
    else fixed *= dims[i];
  }
  if (nnodes % fixed != 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_DIMS, "MPI_Dims_create",
                std::to_string(nnodes) + " nodes cannot be split with the given dimensions");
  int rest = nnodes / fixed;
  if (free_dims == 0) {
    if (rest != 1) return fail(MPI_COMM_WORLD, MPI_ERR_DIMS, "MPI_Dims_create", "the dimensions do not multiply to nnodes");
    return MPI_SUCCESS;
  }
  // Prime factors, largest first, each to the currently smallest dimension:
  // as balanced as the factors allow.
  std::vector<int> primes;
  for (int p = 2; rest > 1 && p * p <= rest; ++p)
    while (rest % p == 0) primes.push_back(p), rest /= p;
  if (rest > 1) primes.push_back(rest);
  std::sort(primes.rbegin(), primes.rend());
  std::vector<int> made(static_cast<std::size_t>(free_dims), 1);
  for (int p : primes) *std::min_element(made.begin(), made.end()) *= p;
  std::sort(made.rbegin(), made.rend());
  std::size_t k = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = made[k++];
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Dims_create)

extern "C" int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int,
                                MPI_Comm* comm_cart) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const communicator* c = find_comm(me(), comm_old);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Cart_create", "invalid communicator");
  if (ndims < 0) return fail(comm_old, MPI_ERR_DIMS, "MPI_Cart_create", "negative ndims");
  long cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return fail(comm_old, MPI_ERR_DIMS, "MPI_Cart_create", "a dimension is not positive");
    cells *= dims[i];
  }
  if (cells > c->size)
    return fail(comm_old, MPI_ERR_DIMS, "MPI_Cart_create",
                "the grid has " + std::to_string(cells) + " cells, the communicator " + std::to_string(c->size) + " ranks");
  const int my = c->my_rank;
  // No reordering: rank r of the old communicator is rank r of the grid.
  if (int e = PMPI_Comm_split(comm_old, my < cells ? 0 : MPI_UNDEFINED, my, comm_cart)) return e;
  if (*comm_cart == MPI_COMM_NULL) return MPI_SUCCESS;
  communicator& g = me().comms.at(*comm_cart);
  g.dims.assign(dims, dims + ndims);
  g.periods.assign(static_cast<std::size_t>(ndims), 0);
  for (int i = 0; i < ndims; ++i) g.periods[static_cast<std::size_t>(i)] = periods[i] != 0;
  g.topology = MPI_CART;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_create)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cartdim_get", &err);
  if (!c) return err;
  *ndims = static_cast<int>(c->dims.size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cart_get", &err);
  if (!c) return err;
  const int n = std::min<int>(maxdims, static_cast<int>(c->dims.size()));
  std::vector<int> all(c->dims.size());
  coords_of(*c, c->my_rank, all.data());
  for (int i = 0; i < n; ++i) {
    dims[i] = c->dims[static_cast<std::size_t>(i)];
    periods[i] = c->periods[static_cast<std::size_t>(i)];
    coords[i] = all[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank_out) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cart_rank", &err);
  if (!c) return err;
  const std::vector<int> at(coords, coords + c->dims.size());
  const int r = rank_at(*c, at);
  if (r == MPI_PROC_NULL) return fail(comm, MPI_ERR_ARG, "MPI_Cart_rank", "coordinates outside a non-periodic grid");
  *rank_out = r;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int r, int maxdims, int coords[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cart_coords", &err);
  if (!c) return err;
  if (r < 0 || r >= c->size) return fail(comm, MPI_ERR_RANK, "MPI_Cart_coords", "rank " + std::to_string(r) + " is not in the grid");
  if (maxdims < static_cast<int>(c->dims.size())) return fail(comm, MPI_ERR_ARG, "MPI_Cart_coords", "maxdims is too small");
  coords_of(*c, r, coords);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cart_shift", &err);
  if (!c) return err;
  if (direction < 0 || direction >= static_cast<int>(c->dims.size()))
    return fail(comm, MPI_ERR_DIMS, "MPI_Cart_shift", "direction " + std::to_string(direction) + " is not a dimension");
  std::vector<int> at(c->dims.size());
  coords_of(*c, c->my_rank, at.data());
  const auto d = static_cast<std::size_t>(direction);
  const int mine = at[d];
  at[d] = mine - disp;
  *rank_source = rank_at(*c, at);
  at[d] = mine + disp;
  *rank_dest = rank_at(*c, at);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_shift)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = cart_of(comm, "MPI_Cart_sub", &err);
  if (!c) return err;
  std::vector<int> at(c->dims.size());
  coords_of(*c, c->my_rank, at.data());
  // Ranks that share the dropped coordinates form one grid; the old rank
  // order is the new grid's row-major order.
  int color = 0;
  std::vector<int> kept_dims, kept_periods;
  for (std::size_t d = 0; d < c->dims.size(); ++d) {
    if (remain_dims[d]) {
      kept_dims.push_back(c->dims[d]);
      kept_periods.push_back(c->periods[d]);
    } else {
      color = color * c->dims[d] + at[d];
    }
  }
  // Keeping no dimension leaves a grid of one cell: MPI_Cart_sub gives it
  // to the grid's first rank and MPI_COMM_NULL to the others (as MPICH).
  if (kept_dims.empty()) color = c->my_rank == 0 ? 0 : MPI_UNDEFINED;
  if (int e = PMPI_Comm_split(comm, color, me().comms.at(comm).my_rank, newcomm)) return e;
  if (*newcomm == MPI_COMM_NULL) return MPI_SUCCESS;
  communicator& g = me().comms.at(*newcomm);
  g.dims = kept_dims;
  g.periods = kept_periods;
  g.topology = MPI_CART;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_sub)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Topo_test", "invalid communicator");
  *status = c->topology != 0 ? c->topology : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Topo_test)

// Without reordering, rank r of `comm` is rank r of a grid of these
// dimensions, or MPI_UNDEFINED past its cells.
extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int[], int* newrank) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Cart_map", "invalid communicator");
  long cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return fail(comm, MPI_ERR_DIMS, "MPI_Cart_map", "a dimension is not positive");
    cells *= dims[i];
  }
  if (cells > c->size) return fail(comm, MPI_ERR_DIMS, "MPI_Cart_map", "more cells than ranks");
  *newrank = c->my_rank < cells ? c->my_rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cart_map)

// ---- graph topologies ---------------------------------------------------------------
namespace {
const communicator* graph_of(MPI_Comm comm, const char* function, int* err) {
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
    return nullptr;
  }
  if (c->topology != MPI_GRAPH) {
    *err = fail(comm, MPI_ERR_TOPOLOGY, function, "the communicator has no graph topology");
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return c;
}
}  // namespace

extern "C" int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int,
                                 MPI_Comm* comm_graph) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const communicator* c = find_comm(me(), comm_old);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Graph_create", "invalid communicator");
  if (nnodes < 0 || nnodes > c->size)
    return fail(comm_old, MPI_ERR_ARG, "MPI_Graph_create",
                std::to_string(nnodes) + " nodes for a communicator of " + std::to_string(c->size) + " ranks");
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i ? index[i - 1] : 0)) return fail(comm_old, MPI_ERR_ARG, "MPI_Graph_create", "index is not ascending");
  for (int e = 0; e < nedges; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return fail(comm_old, MPI_ERR_ARG, "MPI_Graph_create", "edge to " + std::to_string(edges[e]) + " is not a node");
  const int my = c->my_rank;
  // No reordering: rank r of the old communicator is node r.
  if (int e = PMPI_Comm_split(comm_old, my < nnodes ? 0 : MPI_UNDEFINED, my, comm_graph)) return e;
  if (*comm_graph == MPI_COMM_NULL) return MPI_SUCCESS;
  communicator& g = me().comms.at(*comm_graph);
  g.topology = MPI_GRAPH;
  g.graph_index.assign(index, index + nnodes);
  g.graph_edges.assign(edges, edges + nedges);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graph_create)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = graph_of(comm, "MPI_Graphdims_get", &err);
  if (!c) return err;
  *nnodes = static_cast<int>(c->graph_index.size());
  *nedges = static_cast<int>(c->graph_edges.size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = graph_of(comm, "MPI_Graph_get", &err);
  if (!c) return err;
  for (int i = 0; i < maxindex && i < static_cast<int>(c->graph_index.size()); ++i) index[i] = c->graph_index[static_cast<std::size_t>(i)];
  for (int i = 0; i < maxedges && i < static_cast<int>(c->graph_edges.size()); ++i) edges[i] = c->graph_edges[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank_in, int* nneighbors) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = graph_of(comm, "MPI_Graph_neighbors_count", &err);
  if (!c) return err;
  if (rank_in < 0 || rank_in >= static_cast<int>(c->graph_index.size()))
    return fail(comm, MPI_ERR_RANK, "MPI_Graph_neighbors_count", "rank " + std::to_string(rank_in) + " is not a node");
  const auto i = static_cast<std::size_t>(rank_in);
  *nneighbors = c->graph_index[i] - (i ? c->graph_index[i - 1] : 0);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank_in, int maxneighbors, int neighbors[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = graph_of(comm, "MPI_Graph_neighbors", &err);
  if (!c) return err;
  if (rank_in < 0 || rank_in >= static_cast<int>(c->graph_index.size()))
    return fail(comm, MPI_ERR_RANK, "MPI_Graph_neighbors", "rank " + std::to_string(rank_in) + " is not a node");
  const auto i = static_cast<std::size_t>(rank_in);
  const int first = i ? c->graph_index[i - 1] : 0;
  for (int k = first, n = 0; k < c->graph_index[i] && n < maxneighbors; ++k, ++n)
    neighbors[n] = c->graph_edges[static_cast<std::size_t>(k)];
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graph_neighbors)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int[], const int[], int* newrank) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Graph_map", "invalid communicator");
  if (nnodes < 0 || nnodes > c->size) return fail(comm, MPI_ERR_ARG, "MPI_Graph_map", "more nodes than ranks");
  *newrank = c->my_rank < nnodes ? c->my_rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Graph_map)

// ---- distributed graph topologies ---------------------------------------------------
// Each rank keeps only its own in- and out-neighbours (and their weights).
// No reordering: rank r of the old communicator is rank r of the new one.
namespace {

const communicator* dist_graph_of(MPI_Comm comm, const char* function, int* err) {
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
    return nullptr;
  }
  if (c->topology != MPI_DIST_GRAPH) {
    *err = fail(comm, MPI_ERR_TOPOLOGY, function, "the communicator has no distributed graph topology");
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return c;
}

// The communicator a distributed graph is made on: an intracommunicator.
const communicator* dist_graph_base(MPI_Comm comm_old, const char* function, int* err) {
  const communicator* c = find_comm(me(), comm_old);
  if (c == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm_old));
    return nullptr;
  }
  if (c->inter) {
    *err = fail(comm_old, MPI_ERR_COMM, function, "a distributed graph cannot be made on an intercommunicator");
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return c;
}

// Checks `n` ranks named as `what` against a communicator of `size` ranks.
int check_ranks(MPI_Comm comm, int size, int n, const int ranks[], const char* function, const char* what) {
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return fail(comm, MPI_ERR_RANK, function,
                  std::string(what) + " " + std::to_string(ranks[i]) + " is not a rank of a communicator of size " +
                      std::to_string(size));
  return MPI_SUCCESS;
}

// Checks `n` weights given as `what` (MPI_UNWEIGHTED: none to check).
int check_weights(MPI_Comm comm, int n, const int weights[], const char* function, const char* what) {
  if (weights == MPI_UNWEIGHTED || n == 0) return MPI_SUCCESS;
  if (weights == MPI_WEIGHTS_EMPTY || weights == nullptr)
    return fail(comm, MPI_ERR_ARG, function, std::string(what) + " has no weights for " + std::to_string(n) + " edges");
  for (int i = 0; i < n; ++i)
    if (weights[i] < 0)
      return fail(comm, MPI_ERR_ARG, function, std::string(what) + " has a negative weight " + std::to_string(weights[i]));
  return MPI_SUCCESS;
}

// A rank's part of a distributed graph.
struct dist_edges {
  std::vector<int> sources, source_weights, destinations, dest_weights;
  bool weighted = false;
};

// Makes the new communicator (the old one's ranks in the same order) and
// gives it this rank's edges.
int make_dist_graph(MPI_Comm comm_old, dist_edges edges, MPI_Comm* comm_dist_graph) {
  const int my = me().comms.at(comm_old).my_rank;
  if (int e = PMPI_Comm_split(comm_old, 0, my, comm_dist_graph)) return e;
  communicator& g = me().comms.at(*comm_dist_graph);
  g.topology = MPI_DIST_GRAPH;
  g.dist_sources = std::move(edges.sources);
  g.dist_destinations = std::move(edges.destinations);
  g.dist_weighted = edges.weighted;
  if (edges.weighted) {
    g.dist_source_weights = std::move(edges.source_weights);
    g.dist_dest_weights = std::move(edges.dest_weights);
  }
  return MPI_SUCCESS;
}

// Whether the graph is weighted, agreed by every rank of `comm`: a rank
// with edges votes for its choice, one without votes only when it says
// MPI_UNWEIGHTED; any rank's MPI_UNWEIGHTED makes it unweighted, and
// weights beside MPI_UNWEIGHTED are an error (every rank reports it).
int agree_weighted(MPI_Comm comm, bool has_edges, const int weights[], bool* weighted, const char* function) {
  enum : int { said_unweighted = 1, gave_weights = 2 };
  int vote = weights == MPI_UNWEIGHTED ? said_unweighted : (has_edges ? gave_weights : 0);
  int all = 0;
  if (int e = PMPI_Allreduce(&vote, &all, 1, MPI_INT, MPI_BOR, comm)) return e;
  if ((all & said_unweighted) && (all & gave_weights))
    return fail(comm, MPI_ERR_ARG, function, "some ranks gave weights, others MPI_UNWEIGHTED");
  *weighted = (all & said_unweighted) == 0;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree, const int destinations[],
                                               const int destweights[], MPI_Info, int, MPI_Comm* comm_dist_graph) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* const fn = "MPI_Dist_graph_create_adjacent";
  int err = 0;
  const communicator* c = dist_graph_base(comm_old, fn, &err);
  if (!c) return err;
  if (indegree < 0 || outdegree < 0)
    return fail(comm_old, MPI_ERR_ARG, fn,
                "negative degree (indegree " + std::to_string(indegree) + ", outdegree " + std::to_string(outdegree) + ")");
  if (int e = check_ranks(comm_old, c->size, indegree, sources, fn, "source")) return e;
  if (int e = check_ranks(comm_old, c->size, outdegree, destinations, fn, "destination")) return e;
  if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
    return fail(comm_old, MPI_ERR_ARG, fn, "MPI_UNWEIGHTED for one side's weights but not the other's");
  if (int e = check_weights(comm_old, indegree, sourceweights, fn, "sourceweights")) return e;
  if (int e = check_weights(comm_old, outdegree, destweights, fn, "destweights")) return e;
  dist_edges edges;
  edges.sources.assign(sources, sources + indegree);
  edges.destinations.assign(destinations, destinations + outdegree);
  edges.weighted = sourceweights != MPI_UNWEIGHTED;
  if (edges.weighted) {
    if (indegree > 0) edges.source_weights.assign(sourceweights, sourceweights + indegree);
    if (outdegree > 0) edges.dest_weights.assign(destweights, destweights + outdegree);
  }
  return make_dist_graph(comm_old, std::move(edges), comm_dist_graph);
}
ROAM_AMPI_PMPI(Dist_graph_create_adjacent)

// Every rank names any edges (sources[i] -> its degrees[i] destinations);
// each edge goes to both of its ends in one all-to-all. A rank lists its
// edges by the rank that named them, then in that rank's order, so both
// ends of repeated edges list them in the same order (with their weights).
extern "C" int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int weights[], MPI_Info, int,
                                      MPI_Comm* comm_dist_graph) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* const fn = "MPI_Dist_graph_create";
  int err = 0;
  const communicator* c = dist_graph_base(comm_old, fn, &err);
  if (!c) return err;
  const int size = c->size;
  if (n < 0) return fail(comm_old, MPI_ERR_ARG, fn, "negative number of sources " + std::to_string(n));
  long total = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0)
      return fail(comm_old, MPI_ERR_ARG, fn, "negative degree " + std::to_string(degrees[i]) + " of source " + std::to_string(i));
    total += degrees[i];
  }
  if (int e = check_ranks(comm_old, size, n, sources, fn, "source")) return e;
  if (int e = check_ranks(comm_old, size, static_cast<int>(total), destinations, fn, "destination")) return e;
  if (int e = check_weights(comm_old, static_cast<int>(total), weights, fn, "weights")) return e;
  bool weighted = false;
  if (int e = agree_weighted(comm_old, total > 0, weights, &weighted, fn)) return e;
  // To each end of each edge: (1: out-edge to / 0: in-edge from, the other end, weight).
  std::vector<std::vector<int>> to(static_cast<std::size_t>(size));
  for (int i = 0, k = 0; i < n; ++i)
    for (int d = 0; d < degrees[i]; ++d, ++k) {
      const int w = weighted && weights != MPI_UNWEIGHTED ? weights[k] : 1;
      const int s = sources[i], t = destinations[k];
      to[static_cast<std::size_t>(s)].insert(to[static_cast<std::size_t>(s)].end(), {1, t, w});
      to[static_cast<std::size_t>(t)].insert(to[static_cast<std::size_t>(t)].end(), {0, s, w});
    }
  std::vector<int> sendcounts(static_cast<std::size_t>(size)), recvcounts(sendcounts.size());
  std::vector<int> sdispls(sendcounts.size()), rdispls(sendcounts.size());
  std::vector<int> out;
  for (std::size_t r = 0; r < to.size(); ++r) {
    sdispls[r] = static_cast<int>(out.size());
    sendcounts[r] = static_cast<int>(to[r].size());
    out.insert(out.end(), to[r].begin(), to[r].end());
  }
  if (int e = PMPI_Alltoall(sendcounts.data(), 1, MPI_INT, recvcounts.data(), 1, MPI_INT, comm_old)) return e;
  int received = 0;
  for (std::size_t r = 0; r < to.size(); ++r) rdispls[r] = received, received += recvcounts[r];
  std::vector<int> in(static_cast<std::size_t>(received));
  if (int e = PMPI_Alltoallv(out.data(), sendcounts.data(), sdispls.data(), MPI_INT, in.data(), recvcounts.data(),
                             rdispls.data(), MPI_INT, comm_old))
    return e;
  dist_edges edges;
  edges.weighted = weighted;
  for (std::size_t k = 0; k + 2 < in.size(); k += 3) {
    if (in[k] == 1) {
      edges.destinations.push_back(in[k + 1]);
      edges.dest_weights.push_back(in[k + 2]);
    } else {
      edges.sources.push_back(in[k + 1]);
      edges.source_weights.push_back(in[k + 2]);
    }
  }
  return make_dist_graph(comm_old, std::move(edges), comm_dist_graph);
}
ROAM_AMPI_PMPI(Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = dist_graph_of(comm, "MPI_Dist_graph_neighbors_count", &err);
  if (!c) return err;
  *indegree = static_cast<int>(c->dist_sources.size());
  *outdegree = static_cast<int>(c->dist_destinations.size());
  *weighted = c->dist_weighted ? 1 : 0;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Dist_graph_neighbors_count)

namespace {
// Copies up to `max` neighbours, and their weights when the graph has them
// and the program asked (not MPI_UNWEIGHTED).
void copy_neighbors(const std::vector<int>& ranks, const std::vector<int>& weights, bool weighted, int max,
                    int ranks_out[], int weights_out[]) {
  const std::size_t n = std::min(ranks.size(), static_cast<std::size_t>(std::max(max, 0)));
  std::copy_n(ranks.begin(), n, ranks_out);
  if (weighted && weights_out != MPI_UNWEIGHTED && weights_out != MPI_WEIGHTS_EMPTY && weights_out != nullptr)
    std::copy_n(weights.begin(), n, weights_out);
}
}  // namespace

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                         int maxoutdegree, int destinations[], int destweights[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* const fn = "MPI_Dist_graph_neighbors";
  int err = 0;
  const communicator* c = dist_graph_of(comm, fn, &err);
  if (!c) return err;
  if (maxindegree < 0 || maxoutdegree < 0) return fail(comm, MPI_ERR_ARG, fn, "negative maxindegree or maxoutdegree");
  copy_neighbors(c->dist_sources, c->dist_source_weights, c->dist_weighted, maxindegree, sources, sourceweights);
  copy_neighbors(c->dist_destinations, c->dist_dest_weights, c->dist_weighted, maxoutdegree, destinations, destweights);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Dist_graph_neighbors)

// ---- attributes -------------------------------------------------------------------

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                                       int* keyval, void* extra_state) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const int k = r.next_keyval++;
  r.keyvals[k] = keyval_record{reinterpret_cast<std::uint64_t>(copy_fn), reinterpret_cast<std::uint64_t>(delete_fn),
                               reinterpret_cast<std::uint64_t>(extra_state)};
  *keyval = k;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_create_keyval)

extern "C" int PMPI_Comm_free_keyval(int* keyval) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (me().keyvals.erase(*keyval) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_KEYVAL, "MPI_Comm_free_keyval", "invalid keyval " + std::to_string(*keyval));
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_free_keyval)

namespace roam::ampi {
// Runs keyval's delete function on comm's value (the program's code: its
// own heap routing).
int delete_attribute(MPI_Comm comm, int keyval, std::uint64_t value) {
  rank& r = me();
  auto k = r.keyvals.find(keyval);
  if (k == r.keyvals.end() || k->second.delete_fn == 0) return MPI_SUCCESS;
  auto* fn = reinterpret_cast<MPI_Comm_delete_attr_function*>(k->second.delete_fn);
  return fn(comm, keyval, reinterpret_cast<void*>(value), reinterpret_cast<void*>(k->second.extra_state));
}

// Copies comm's attributes to newcomm as their keyvals' copy functions say.
int copy_attributes(MPI_Comm comm, MPI_Comm newcomm) {
  const std::map<int, std::uint64_t> from = me().comms.at(comm).attributes;
  for (const auto& [keyval, value] : from) {
    rank& r = me();
    auto k = r.keyvals.find(keyval);
    if (k == r.keyvals.end() || k->second.copy_fn == 0) continue;
    void* out = nullptr;
    int flag = 0;
    if (k->second.copy_fn == 1) {  // MPI_COMM_DUP_FN
      out = reinterpret_cast<void*>(value);
      flag = 1;
    } else {
      auto* fn = reinterpret_cast<MPI_Comm_copy_attr_function*>(k->second.copy_fn);
      if (int e = fn(comm, keyval, reinterpret_cast<void*>(k->second.extra_state), reinterpret_cast<void*>(value), &out, &flag))
        return e;
    }
    if (flag) me().comms.at(newcomm).attributes[keyval] = reinterpret_cast<std::uint64_t>(out);
  }
  return MPI_SUCCESS;
}
}  // namespace roam::ampi

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_set_attr", "invalid communicator");
  if (r.keyvals.count(keyval) == 0)
    return fail(comm, MPI_ERR_KEYVAL, "MPI_Comm_set_attr", "invalid keyval " + std::to_string(keyval));
  auto old = c->attributes.find(keyval);
  if (old != c->attributes.end())
    if (int e = delete_attribute(comm, keyval, old->second)) return e;
  me().comms.at(comm).attributes[keyval] = reinterpret_cast<std::uint64_t>(attribute_val);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_set_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_delete_attr", "invalid communicator");
  auto it = c->attributes.find(keyval);
  if (it == c->attributes.end())
    return fail(comm, MPI_ERR_KEYVAL, "MPI_Comm_delete_attr", "no attribute for keyval " + std::to_string(keyval));
  const std::uint64_t value = it->second;
  if (int e = delete_attribute(comm, keyval, value)) return e;
  me().comms.at(comm).attributes.erase(keyval);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_delete_attr)
