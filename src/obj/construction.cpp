// Building a collection's initial members on each PE, and the construction
// context that base-class constructors read to learn who they are.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

const construction_context& current_construction(const char* base) {
  if (!tls_constructing) {
    std::fprintf(stderr,
                 "roam: %s constructed directly; create it through roam::create_chare / create_array / "
                 "create_group / create_nodegroup\n",
                 base);
    std::abort();
  }
  return *tls_constructing;
}

// ---- construction ---------------------------------------------------------

void construct_local_members(const collection_desc* desc, void* (*make)(const void*, const construction_context&),
                             const void* args) {
  pe_objects& objs = objects();
  local_collection& lc = objs.get(desc->id);
  lc.desc = desc;
  std::uint32_t me = tls_pe->id();
  std::uint32_t pes = tls_pe->runtime().num_pes;
  construction_context ctx;
  ctx.desc = desc;
  ctx.pe = me;
  auto build = [&]() {
    tls_constructing = &ctx;
    try {
      void* obj = make(args, ctx);
      lc.elements.insert(ctx.index, obj);
      lc.order.push_back({obj, ctx.index});
      if (desc->elem && g_population_counter.here) g_population_counter.here(desc, 0);
      member_lifecycle(lifecycle_step::born, desc, ctx.index, obj);
    } catch (const std::exception& e) {
      report_fatal(describe_target(desc->kind == collection_kind::array ? target_kind::element : target_kind::group_member,
                                   desc, ctx.index, desc->dims, "constructor") +
                   ": threw: " + e.what());
    }
    tls_constructing = nullptr;
  };
  if (desc->kind == collection_kind::group) {
    ctx.index.v[0] = static_cast<std::int32_t>(me);
    build();
  } else if (!desc->sparse) {
    // Walk the index space in row-major order and build what maps here.
    for (std::uint64_t l = 0; l < desc->volume; ++l) {
      index_storage idx = delinearize(l, desc->shape, desc->dims);
      std::uint32_t pe = desc->map(idx, desc->shape, desc->dims, pes);
      if (pe >= pes) {
        report_fatal("array " + std::string(desc->cls->name) + ": map '" + desc->map_name + "' returned pe " +
                     std::to_string(pe) + " outside [0," + std::to_string(pes) + ")");
        return;
      }
      if (pe != me) continue;
      ctx.index = idx;
      build();
    }
  }
  lc.constructed = true;
  if (desc->elem && g_population_counter.constructed) g_population_counter.constructed(desc);
  auto pending = std::move(lc.pending);
  lc.pending.clear();
  for (message* m : pending) deliver(m, work_action::run);
}

void* local_group_member(std::uint32_t collection) noexcept {
  local_collection* lc = objects().find(collection);
  return lc && lc->constructed && !lc->order.empty() ? lc->order.front().obj : nullptr;
}

}  // namespace roam::detail
