#pragma once
// What a process holds of in-memory checkpoints: its own data file and its
// buddy's copy of each (docs/design/fault-tolerance.md), and each
// checkpoint's manifest once it is committed. It outlives the runtime of an
// epoch (a recovery starts a new runtime in the same process) and is cleared
// when a run starts from main.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "format.hpp"

namespace roam::detail::ckpt {

struct held_checkpoint {
  std::uint64_t number = 0;
  std::uint32_t processes = 0;  ///< of the run that took it
  std::uint32_t pes = 0;
  std::shared_ptr<const byte_region> manifest;                           ///< null until committed
  std::map<std::uint32_t, std::shared_ptr<const byte_region>> files;  ///< process -> its data file
};

class memory_store {
 public:
  /// The number the next in-memory checkpoint takes.
  std::uint64_t next_number();
  /// Keeps process `process`'s data file of checkpoint `number` (its own, or a buddy's copy).
  void add_file(std::uint64_t number, std::uint32_t processes, std::uint32_t pes, std::uint32_t process,
                std::shared_ptr<const byte_region> file);
  /// Checkpoint `number` is complete everywhere: keeps its manifest and drops every older one.
  void commit(std::uint64_t number, std::shared_ptr<const byte_region> manifest);
  /// Drops an uncommitted checkpoint (it failed).
  void abandon(std::uint64_t number);
  /// Bytes held (files and manifests).
  std::uint64_t bytes() const;

  /// What it holds, for a recovery's inventory.
  std::vector<std::byte> inventory() const;
  /// Chooses the newest checkpoint that `inventories` (every live process's)
  /// hold completely; `contribution`: what process `me` gives of it.
  bool plan(const std::vector<std::vector<std::byte>>& inventories, std::uint32_t me,
            std::vector<std::byte>& contribution, std::string& error) const;
  /// Every contribution (kept, not copied: the parts point into them): keeps
  /// that checkpoint whole (and nothing else) and loads it for the restore.
  bool install(std::vector<std::vector<std::byte>> contributions, std::uint64_t program_hash,
               std::string& error);
  /// The checkpoint the last install() loaded (null if none).
  std::shared_ptr<loaded_checkpoint> installed() const;

  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<held_checkpoint> held_;  // oldest first
  std::uint64_t last_number_ = 0;
  std::shared_ptr<loaded_checkpoint> installed_;
};

memory_store& store();

}  // namespace roam::detail::ckpt
