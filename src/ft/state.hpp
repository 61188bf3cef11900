#pragma once
// The checkpoint layer's state: per process, reset at the start of each run.
// The coordinator's part is touched on PE 0 only; the rest under `mutex`
// (the PEs of a process hand their packed objects to one writer, and share
// one loaded checkpoint when restarting).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <roam/coll/callback.hpp>
#include <roam/ft/checkpoint.hpp>
#include <roam/obj/detail/checkpoint_support.hpp>

#include "format.hpp"

namespace roam::detail::ckpt {

/// What the manifest keeps of the program as a whole (format.hpp's program blob).
struct program_record {
  std::vector<std::byte> readonlies;
  std::vector<collection_wire> collections;  ///< every collection any process knew
  std::uint32_t highest_id = 0;              ///< program-wide ids given out so far
  std::uint64_t objects = 0;
  callback<checkpoint_result> done;
  void pup(pup_er& p) { p | readonlies | collections | highest_id | objects | done; }
};

/// PE 0 while a checkpoint is taken.
struct coordinator {
  bool active = false;
  std::filesystem::path root;
  callback<checkpoint_result> done;
  std::uint32_t keep = 2;
  bool durable = true;
  bool in_memory = false;      ///< checkpoint_in_memory: files in memory, a copy at each buddy
  std::chrono::steady_clock::time_point started;
  std::uint64_t number = 0;
  std::filesystem::path partial;
  file_identity id;
  // Filled by the processes' reports:
  std::uint32_t reported = 0;
  std::vector<file_entry> files;
  std::string error;
  std::vector<collection_wire> collections;
  std::uint32_t highest_id = 0;
  std::uint64_t objects = 0;
  // In memory: buddy copies kept, then processes that committed.
  std::uint32_t copies = 0;
  std::uint32_t committed = 0;
  std::uint64_t memory_bytes = 0;
};

/// A process's data file, written in batches by its PEs as they pack (under
/// ft_state::mutex); the last PE to finish packing completes it.
struct writer_round {
  std::unique_ptr<data_file_stream> stream;  ///< opened by the first batch
  std::string error;                         ///< the first failure or refusal
  std::uint32_t finished = 0;                ///< PEs done packing
};

/// A restart in progress in this process.
struct restart_state {
  std::shared_ptr<loaded_checkpoint> loaded;
  program_record record;
  std::vector<saved_object> saved;  ///< record i's meta, decoded
  std::chrono::steady_clock::time_point started;
  // PE 0:
  std::uint32_t pes_reported = 0;
  std::uint64_t objects = 0;
};

struct ft_state {
  std::mutex mutex;
  coordinator coord;
  writer_round round;
  restart_state restart;
};

ft_state& state();

/// "array cell[1,2,3]" from a record's meta, or "" when it does not decode.
std::string describe_meta(std::span<const std::byte> meta);

}  // namespace roam::detail::ckpt
