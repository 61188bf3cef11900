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
#include <roam/msg/buffer.hpp>
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
  bool in_memory = false;      ///< checkpoint_in_memory: files in memory, copies at buddies (+ftcopies)
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
  // In memory: copies each file gets (+ftcopies, at most processes - 1),
  // buddy copies kept, then processes that committed.
  std::uint32_t copies_each = 0;
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

/// An object of an in-memory checkpoint, sized in the first step and packed
/// in the second (both at the same cut: nothing runs in between).
struct sized_object {
  std::vector<std::byte> meta;  ///< its saved_object, packed
  std::string name;             ///< "array cell[1,2,3]", for errors
  const class_ops* cls = nullptr;
  void* obj = nullptr;
  std::size_t state = 0;  ///< state_size when sized
};

/// A process's in-memory data file, built in place by its PEs (under
/// ft_state::mutex): each sizes its objects, the last allocates the file,
/// each packs its stretch, the last seals the file.
struct memory_round {
  std::vector<std::vector<sized_object>> objects;  ///< by local PE
  std::vector<std::uint64_t> lengths;              ///< by local PE: its stretch's bytes
  std::vector<std::uint32_t> crcs, records;        ///< by local PE, once packed
  buffer<std::byte> file;
  std::byte* bytes = nullptr;  ///< file's, writable (the PEs write disjoint stretches)
  std::string error;           ///< the first failure or refusal
  std::uint32_t sized = 0, packed = 0;
  std::uint32_t copies = 0;    ///< other processes that keep a copy of the file (PE 0's +ftcopies)
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
  std::vector<std::uint64_t> exchanged;  ///< what every PE collected (restart_exchange)
  std::uint32_t installs_acked = 0;
};

struct ft_state {
  std::mutex mutex;
  coordinator coord;
  writer_round round;
  memory_round memory;
  restart_state restart;
};

ft_state& state();

/// "array cell[1,2,3]" from a record's meta, or "" when it does not decode.
std::string describe_meta(std::span<const std::byte> meta);

}  // namespace roam::detail::ckpt
