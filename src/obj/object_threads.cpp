// Threaded entries (docs/design/threads.md): an object with unfinished
// threads is neither moved nor destroyed, since the threads hold its address.
// These are the msg layer's g_thread_owner hooks: count an object's threads,
// and carry out what it asked for once the last one ends.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>
#include <roam/obj/chare.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

std::uint32_t* thread_counter(const delivery_context& ctx, void* obj) noexcept {
  if (ctx.target == target_kind::chare) {
    pe_objects& objs = objects();
    auto it = objs.chares.find(chare_id_in(ctx.index));
    return it == objs.chares.end() ? nullptr : &chare_access::threads(*it->second.base);
  }
  if (ctx.target != target_kind::element) return nullptr;
  const collection_desc* d = find_collection(ctx.collection);
  if (!d || d->kind != collection_kind::array || !d->elem) return nullptr;  // group members stay put
  return &element_access::threads(*d->elem->base(obj));
}

void threads_idle(const delivery_context& ctx, void* obj) noexcept {
  std::uint32_t pe = tls_pe->id();
  if (ctx.target == target_kind::chare) {
    std::uint64_t id = chare_id_in(ctx.index);
    auto it = objects().chares.find(id);
    if (it != objects().chares.end() &&
        (it->second.base->destroy_requested() || chare_access::move_requested(*it->second.base)))
      post_closure(pe, [id]() noexcept { chare_threads_done(id); });
    return;
  }
  const collection_desc* d = find_collection(ctx.collection);
  if (!d || !d->elem || !element_access::has_request(*d->elem->base(obj))) return;
  post_closure(pe, [c = ctx.collection, idx = ctx.index, obj]() noexcept { element_threads_done(c, idx, obj); });
}

}  // namespace roam::detail
