// The checkpoint layer's part of a recovery (include/roam/sched/detail/startup.hpp,
// recovery_hooks): what this process holds, which checkpoint the survivors
// restore and who gives which part of it, and installing it whole.
#include <roam/msg/detail/stable_registry.hpp>
#include <roam/obj/detail/checkpoint_support.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/detail/hook_slot.hpp>

#include "memory_store.hpp"

namespace roam::detail::ckpt {

namespace {

std::vector<std::byte> inventory() { return store().inventory(); }

bool plan(const std::vector<std::vector<std::byte>>& inventories, std::uint32_t me, std::vector<std::byte>& contribution,
          std::string& error) {
  return store().plan(inventories, me, contribution, error);
}

bool install(std::vector<std::vector<std::byte>> contributions, std::string& error) {
  if (!store().install(std::move(contributions), program_registry_hash(), error)) return false;
  // Descriptors of the failed epoch were built for its layout; the restore rebuilds them.
  forget_process_objects();
  return true;
}

const bool recovery_installed = [] {
  recovery_hooks h;
  h.inventory = &inventory;
  h.plan = &plan;
  h.install = &install;
  install_hook(g_recovery, h, "g_recovery", "ft (src/ft/recovery.cpp)");
  return true;
}();

}  // namespace

}  // namespace roam::detail::ckpt
