// Taking a checkpoint (include/roam/ft/checkpoint.hpp): PE 0 waits for
// quiescence, every PE packs its objects, each process writes its file,
// PE 0 writes the manifest and publishes the directory. docs/design/checkpoint.md.
#include <roam/ft/checkpoint.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>

#include <roam/coll/detail/checkpoint_support.hpp>
#include <roam/coll/quiescence.hpp>
#include <roam/lb/detail/checkpoint_support.hpp>
#include <roam/machine/detail/hosts.hpp>
#include <roam/ft/memory_checkpoint.hpp>
#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/crc32c.hpp>
#include <roam/msg/detail/remote.hpp>
#include <roam/msg/detail/stable_registry.hpp>
#include <roam/sched/detail/startup.hpp>

#include "memory_store.hpp"
#include "ft_options.hpp"
#include "state.hpp"

namespace roam::detail::ckpt {

ft_state& state() {
  static ft_state s;
  return s;
}

std::string describe_meta(std::span<const std::byte> meta) {
  try {
    saved_object o;
    unpack_into(meta, o);
    return o.name;
  } catch (const std::exception&) {
    return {};
  }
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// PE 0: the checkpoint is over, one way or the other.
void finish(checkpoint_result r) {
  coordinator& c = state().coord;
  r.seconds = seconds_since(c.started);
  r.number = c.number;
  r.pes = c.id.pes;
  r.processes = c.id.processes;
  callback<checkpoint_result> done = std::move(c.done);
  c = coordinator{};
  done.send(std::move(r));
}

void abandon_here(std::uint64_t number) { store().abandon(number); }

// A received buffer kept as it is (its block), not copied again.
class buffer_region final : public byte_region {
 public:
  explicit buffer_region(buffer<std::byte> b) : b_(std::move(b)) {}
  std::span<const std::byte> bytes() const noexcept override { return b_.span(); }

 private:
  buffer<std::byte> b_;
};

void fail(std::string why) {
  coordinator& c = state().coord;
  if (!c.partial.empty()) abandon_checkpoint(c.partial);
  if (c.in_memory && c.number != 0) {
    const runtime_state& rt = tls_pe->runtime();
    for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
      post_control_uncounted<&abandon_here>(rt.first_pe_of(node), c.number);
  }
  checkpoint_result r;
  r.error = std::move(why);
  finish(std::move(r));
}

program_record program_record_of(coordinator& c) {
  program_record rec;
  rec.readonlies = readonly_globals_packed();
  std::sort(c.collections.begin(), c.collections.end(),
            [](const collection_wire& a, const collection_wire& b) { return a.id < b.id; });
  rec.collections = c.collections;
  rec.highest_id = c.highest_id;
  rec.objects = c.objects;
  rec.done = c.done;
  return rec;
}

void commit_here(std::uint64_t number, buffer<std::byte> manifest);
void committed(std::uint32_t process);

// PE 0, in memory: every file is in, and its copies at its buddies: the
// manifest goes to every process, which then drops the previous checkpoint.
void maybe_commit_in_memory() {
  coordinator& c = state().coord;
  if (c.reported < c.id.processes || c.copies < c.id.processes * c.copies_each) return;
  std::vector<std::byte> manifest;
  try {
    manifest = manifest_bytes(c.id, pack(program_record_of(c)), c.files);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  c.memory_bytes = manifest.size();
  for (const file_entry& f : c.files) c.memory_bytes += f.size;
  const runtime_state& rt = tls_pe->runtime();
  const buffer<std::byte> bytes{std::span<const std::byte>(manifest)};
  for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
    post_control_uncounted<&commit_here>(rt.first_pe_of(node), c.number, bytes);
}

void commit_here(std::uint64_t number, buffer<std::byte> manifest) {
  store().commit(number, std::make_shared<buffer_region>(std::move(manifest)));
  post_control_uncounted<&committed>(0, tls_pe->runtime().my_node);
}

void committed(std::uint32_t) {
  coordinator& c = state().coord;
  if (!c.active || !c.in_memory) return;
  if (++c.committed < c.id.processes) return;
  checkpoint_result r;
  r.ok = true;
  r.in_memory = true;
  r.path = "memory";
  r.bytes = c.memory_bytes;
  r.objects = c.objects;
  finish(std::move(r));
}

// A buddy of `from`: keeps its copy of that process's file.
void copy_kept(std::uint32_t) {
  coordinator& c = state().coord;
  if (!c.active || !c.in_memory) return;
  ++c.copies;
  maybe_commit_in_memory();
}

void keep_buddy_copy(std::uint64_t number, std::uint32_t processes, std::uint32_t pes, std::uint32_t from,
                     buffer<std::byte> file) {
  store().add_file(number, processes, pes, from, std::make_shared<buffer_region>(std::move(file)));
  post_control_uncounted<&copy_kept>(0, from);
}

// PE 0: a process wrote its file (or could not).
void file_written(std::uint32_t process, std::string name, std::uint64_t size, std::uint32_t crc, std::uint32_t records,
                  std::string error, std::vector<collection_wire> collections, std::uint32_t highest_id) {
  coordinator& c = state().coord;
  if (!c.active) return;
  if (!error.empty() && c.error.empty()) c.error = std::move(error);
  if (c.files.size() <= process) c.files.resize(process + 1);
  c.files[process] = file_entry{std::move(name), size, crc, records};
  c.objects += records;
  for (auto& w : collections)
    if (std::none_of(c.collections.begin(), c.collections.end(),
                     [&](const collection_wire& k) { return k.id == w.id; }))
      c.collections.push_back(w);
  c.highest_id = std::max(c.highest_id, highest_id);
  if (++c.reported < c.id.processes) return;
  if (!c.error.empty()) return fail(c.error);
  if (c.in_memory) return maybe_commit_in_memory();
  const program_record rec = program_record_of(c);
  checkpoint_result r;
  try {
    const std::vector<std::byte> blob = pack(rec);
    // Pruned after the callback: removing the old checkpoints is not the new one's latency.
    r.path = publish_checkpoint(c.partial, c.id, blob, c.files, 0, c.durable).string();
    c.partial.clear();  // published: nothing to abandon
    r.bytes = std::filesystem::file_size(std::filesystem::path(r.path) / "manifest");
    for (const file_entry& f : c.files) r.bytes += f.size;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  r.ok = true;
  r.objects = c.objects;
  const std::filesystem::path root = c.root;
  const std::uint64_t number = c.number;
  const std::uint32_t keep = c.keep;
  finish(std::move(r));
  prune_checkpoints(root, number, keep);
}

// Packed states go to the file in batches of about this many bytes: big
// enough for few system calls, small enough that the disk starts early and
// a checkpoint holds little more memory than the objects themselves.
constexpr std::size_t batch_bytes = std::size_t{8} << 20;

// What a PE packed and has not handed to the file yet. States are packed
// into one buffer reused batch after batch: no allocation and no fresh pages
// per object (the first touch of fresh memory costs as much as the copy). A
// state larger than the buffer makes it grow to that size, once.
struct batch {
  std::unique_ptr<std::byte[]> arena{new std::byte[batch_bytes]};  // not zeroed: every byte used is packed
  std::size_t capacity = batch_bytes;
  std::size_t used = 0;
  std::vector<saved_object> who;
  std::vector<std::span<const std::byte>> states;
};

// The process's data file in `partial`.
std::unique_ptr<data_file_stream> new_stream(const std::string& partial, const file_identity& id, std::uint32_t node) {
  return std::make_unique<data_file_stream>(partial, id, node);
}

// Hands a batch to the process's file (opened by the first one), then empties
// it. Only the file offset is taken under the lock: the CRCs, the layout and
// the write happen on each PE in parallel.
void write_batch(batch& b, const std::string& partial, const file_identity& id) {
  if (b.who.empty()) return;
  std::vector<std::vector<std::byte>> metas;
  metas.reserve(b.who.size());
  for (const saved_object& o : b.who) metas.push_back(pack(o));
  std::vector<record_out> records;
  std::vector<data_file_stream::record_crcs> crcs;
  records.reserve(b.who.size());
  crcs.reserve(b.who.size());
  for (std::size_t i = 0; i < b.who.size(); ++i) {
    records.push_back({metas[i], b.states[i]});
    crcs.push_back(data_file_stream::crcs_of(records.back()));
  }
  ft_state& s = state();
  data_file_stream* stream = nullptr;
  std::uint64_t offset = 0;
  try {
    const data_file_stream::batch laid_out = data_file_stream::prepare(records, crcs);
    {
      std::lock_guard lock(s.mutex);
      writer_round& w = s.round;
      if (w.error.empty()) {
        if (!w.stream) w.stream = new_stream(partial, id, tls_pe->runtime().my_node);
        stream = w.stream.get();
        offset = stream->reserve(laid_out);
      }
    }
    // The stream lives until the last PE has finished packing, after this write.
    if (stream) stream->write(laid_out, offset);
  } catch (const std::exception& e) {
    std::lock_guard lock(s.mutex);
    if (s.round.error.empty()) s.round.error = e.what();
  }
  b.used = 0;
  b.who.clear();
  b.states.clear();
}

// Packs one object into the batch, writing the batch first when it is full.
void pack_into_batch(batch& b, saved_object&& who, const detail::class_ops& cls, void* obj, const std::string& partial,
                     const file_identity& id) {
  const std::size_t size = cls.state_size(obj);
  if (b.used + size > b.capacity) write_batch(b, partial, id);
  if (size > b.capacity) {
    b.arena.reset(new std::byte[size]);
    b.capacity = size;
  }
  const std::span<std::byte> out(b.arena.get() + b.used, size);
  cls.pack_to(obj, out);
  b.used += size;
  b.who.push_back(std::move(who));
  b.states.push_back(out);
}

// The `copies` processes that keep a copy of this one's file: the next ones
// in the buddy ring (on other hosts first, when hosts are known), else simply
// the next ones. The ring is one cycle through every process, so the first
// processes - 1 steps along it are all distinct and never this one.
std::vector<std::uint32_t> buddies_of(const runtime_state& rt, std::uint32_t processes, std::uint32_t copies) {
  const auto& hosts = node_hosts();
  std::vector<std::uint32_t> ring;
  if (hosts.size() == processes) ring = buddy_ring(hosts);
  std::vector<std::uint32_t> buddies;
  std::uint32_t at = rt.my_node;
  for (std::uint32_t k = 0; k < copies; ++k) {
    at = ring.empty() ? (at + 1) % processes : ring[at];
    buddies.push_back(at);
  }
  return buddies;
}

// In memory: this process keeps its file and sends each buddy the same bytes
// (shared, not copied: the transport sends from them).
void keep_in_memory(const runtime_state& rt, const file_identity& id, buffer<std::byte> file, std::uint32_t copies) {
  for (std::uint32_t buddy : buddies_of(rt, id.processes, copies))
    post_control_uncounted<&keep_buddy_copy>(rt.first_pe_of(buddy), id.number, id.processes, id.pes, rt.my_node, file);
  store().add_file(id.number, id.processes, id.pes, rt.my_node, std::make_shared<buffer_region>(std::move(file)));
}

void report_file(const runtime_state& rt, const file_entry& entry, const std::string& error) {
  post_control_uncounted<&file_written>(0, rt.my_node, entry.name, entry.size, entry.crc, entry.records, error,
                                        known_collections(), highest_program_wide_id());
}

std::uint32_t local_pe(const runtime_state& rt) { return tls_pe->id() - rt.first_pe; }

// In memory, second step on every PE of a process: packs its objects straight
// into its stretch of the process's file; the last one seals the file.
void pack_stretch(std::uint64_t program_hash, std::uint64_t number, std::uint32_t processes, std::uint32_t pes) {
  runtime_state& rt = tls_pe->runtime();
  const file_identity id{program_hash, number, processes, pes};
  const std::uint32_t me = local_pe(rt);
  ft_state& s = state();
  std::vector<sized_object> objects;
  std::span<std::byte> stretch;
  {
    std::lock_guard lock(s.mutex);
    memory_round& m = s.memory;
    std::uint64_t offset = first_record_offset();
    for (std::uint32_t k = 0; k < me; ++k) offset += m.lengths[k];
    stretch = {m.bytes + offset, static_cast<std::size_t>(m.lengths[me])};
    objects = std::move(m.objects[me]);
  }
  record_writer out(stretch);
  std::string error;
  for (const sized_object& o : objects) {
    try {
      const std::span<std::byte> state_at = out.begin_record(o.meta, o.state);
      o.cls->pack_to(o.obj, state_at);
      out.end_record();
    } catch (const std::exception& e) {
      error = "PE " + std::to_string(tls_pe->id()) + ": " + o.name + ": packing its state: " + e.what();
      break;
    }
  }
  if (error.empty() && out.length() != stretch.size())
    error = "PE " + std::to_string(tls_pe->id()) + ": packed " + std::to_string(out.length()) + " of the " +
            std::to_string(stretch.size()) + " bytes sized (a state changed size between sizing and packing)";
  objects.clear();
  memory_round done;
  {
    std::lock_guard lock(s.mutex);
    memory_round& m = s.memory;
    m.crcs[me] = out.crc();
    m.records[me] = out.records();
    if (!error.empty() && m.error.empty()) m.error = std::move(error);
    if (++m.packed < rt.ppn) return;
    done = std::exchange(m, memory_round{});
  }
  // The process's last PE: the records' CRC from the stretches', in file order; header and footer.
  file_entry entry;
  if (done.error.empty()) {
    std::uint32_t crc = 0;
    std::uint64_t records = 0;
    for (std::uint32_t k = 0; k < rt.ppn; ++k) {
      crc = crc32c_combine(crc, done.crcs[k], done.lengths[k]);
      records += done.records[k];
    }
    try {
      if (records > std::numeric_limits<std::uint32_t>::max())
        throw checkpoint_error(std::to_string(records) + " objects in one process, more than a data file holds");
      entry = seal_data_file({done.bytes, done.file.size()}, id, rt.my_node, static_cast<std::uint32_t>(records), crc);
      keep_in_memory(rt, id, std::move(done.file), done.copies);
    } catch (const std::exception& e) {
      done.error = e.what();
    }
  }
  report_file(rt, entry, done.error);
}

// In memory, first step on every PE: sizes its objects (their metas packed
// now); the process's last PE allocates the whole file and starts the second step.
void size_here(const file_identity& id, std::string refused, std::uint32_t copies) {
  runtime_state& rt = tls_pe->runtime();
  std::vector<sized_object> objects;
  std::uint64_t length = 0;
  if (refused.empty()) {
    refused = pack_objects_for_checkpoint([&](saved_object&& who, const detail::class_ops& cls, void* obj) {
      sized_object o{pack(who), std::move(who.name), &cls, obj, cls.state_size(obj)};
      length += record_length(o.meta.size(), o.state);
      objects.push_back(std::move(o));
    });
  }
  ft_state& s = state();
  std::string error;
  {
    std::lock_guard lock(s.mutex);
    memory_round& m = s.memory;
    if (m.objects.empty()) {
      m.objects.resize(rt.ppn);
      m.lengths.assign(rt.ppn, 0);
      m.crcs.assign(rt.ppn, 0);
      m.records.assign(rt.ppn, 0);
    }
    if (!refused.empty() && m.error.empty()) m.error = std::move(refused);
    m.copies = copies;
    m.objects[local_pe(rt)] = std::move(objects);
    m.lengths[local_pe(rt)] = length;
    if (++m.sized < rt.ppn) return;
    // The process's last PE: one allocation for the whole file.
    std::uint64_t records_length = 0;
    for (std::uint64_t l : m.lengths) records_length += l;
    if (m.error.empty()) {
      const std::uint64_t file_length = data_file_length(records_length);
      try {
        m.file = buffer<std::byte>::uninitialized(static_cast<std::size_t>(file_length));
        m.bytes = m.file.mutable_data();  // the only reference: no copy
      } catch (const std::bad_alloc&) {
        m.error = "process " + std::to_string(rt.my_node) + ": cannot allocate " + std::to_string(file_length) +
                  " bytes for its in-memory checkpoint";
      }
    }
    if (!m.error.empty()) {
      error = std::move(m.error);
      m = memory_round{};
    }
  }
  if (!error.empty()) return report_file(rt, file_entry{}, error);
  for (std::uint32_t k = 0; k < rt.ppn; ++k)
    if (rt.first_pe + k != tls_pe->id())
      post_control_uncounted<&pack_stretch>(rt.first_pe + k, id.program_hash, id.number, id.processes, id.pes);
  pack_stretch(id.program_hash, id.number, id.processes, id.pes);
}

// Every PE, at the cut: packs its objects into its process's file.
void pack_here(std::string partial, std::uint64_t program_hash, std::uint64_t number, std::uint32_t processes,
               std::uint32_t pes, bool durable, std::uint32_t copies) {
  runtime_state& rt = tls_pe->runtime();
  const file_identity id{program_hash, number, processes, pes};
  std::string refused;
  if (auto why = parked_work_here(); !why.empty()) refused = "the program is not at a consistent cut: " + why;
  if (auto why = partial_reduction_here(); refused.empty() && !why.empty())
    refused = "a checkpoint cannot be taken while a reduction is partly contributed: " + why;
  if (auto why = lb::detail::balancing_in_progress_here(); refused.empty() && !why.empty())
    refused = "a checkpoint cannot be taken during load balancing: " + why;
  if (partial.empty()) return size_here(id, std::move(refused), copies);
  if (refused.empty()) {
    batch b;
    refused = pack_objects_for_checkpoint([&](saved_object&& o, const detail::class_ops& cls, void* obj) {
      pack_into_batch(b, std::move(o), cls, obj, partial, id);
    });
    if (refused.empty()) write_batch(b, partial, id);
  }
  std::unique_ptr<data_file_stream> stream;
  std::string error;
  {
    ft_state& s = state();
    std::lock_guard lock(s.mutex);
    writer_round& w = s.round;
    if (!refused.empty() && w.error.empty()) w.error = std::move(refused);
    if (++w.finished < rt.ppn) return;
    stream = std::move(w.stream);
    error = std::move(w.error);
    w = writer_round{};
  }
  // The process's last PE: completes the file (a process without objects writes an empty one).
  file_entry entry;
  if (error.empty()) {
    try {
      if (!stream) stream = new_stream(partial, id, rt.my_node);
      entry = stream->finish(durable);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  stream.reset();  // an unfinished file is removed
  report_file(rt, entry, error);
}

// PE 0: nothing runs and nothing is in flight anywhere.
void quiescent() {
  coordinator& c = state().coord;
  if (!c.active) return;
  try {
    if (c.in_memory) {
      c.number = store().next_number();
    } else {
      c.number = last_number(c.root) + 1;
      c.partial = begin_checkpoint(c.root, c.number);
    }
  } catch (const std::exception& e) {
    c.partial.clear();
    return fail(e.what());
  }
  c.id.number = c.number;
  // PE 0's +ftcopies decides for every process (they must agree on it).
  c.copies_each = c.in_memory ? std::min(ft_options().copies, c.id.processes - 1) : 0;
  const std::uint32_t pes = tls_pe->runtime().num_pes;
  for (std::uint32_t pe = 0; pe < pes; ++pe)
    post_control_uncounted<&pack_here>(pe, c.partial.string(), c.id.program_hash, c.id.number, c.id.processes,
                                       c.id.pes, c.durable, c.copies_each);
}

void request(std::string dir, callback<checkpoint_result> done, std::uint32_t keep, bool durable, bool in_memory) {
  coordinator& c = state().coord;
  if (c.active) {
    checkpoint_result r;
    r.error = "a checkpoint " + (c.in_memory ? std::string("in memory") : "into " + c.root.string()) +
              " is being taken; one at a time";
    done.send(std::move(r));
    return;
  }
  runtime_state& rt = tls_pe->runtime();
  c = coordinator{};
  c.active = true;
  c.root = dir;
  c.done = std::move(done);
  c.keep = std::max<std::uint32_t>(keep, 1);
  c.durable = durable;
  c.in_memory = in_memory;
  c.started = std::chrono::steady_clock::now();
  c.id.program_hash = program_registry_hash();
  c.id.processes = rt.num_nodes;
  c.id.pes = rt.num_pes;
  on_quiescence(callback<void>::function<&quiescent>(pe_id{0}));
}

std::string reset_at_start(runtime_state& rt) {
  // In-memory checkpoints outlive the runtime of an epoch, not the run.
  if (!rt.opts.recovered) store().clear();
  ft_state& s = state();
  std::lock_guard lock(s.mutex);
  s.coord = coordinator{};
  s.round = writer_round{};
  s.memory = memory_round{};
  s.restart = restart_state{};
  return {};
}
void release_at_end(runtime_state&) {
  ft_state& s = state();
  std::lock_guard lock(s.mutex);
  s.restart = restart_state{};
  s.coord = coordinator{};
}
const bool hooks = register_run_hooks({&reset_at_start, &release_at_end});

}  // namespace

}  // namespace roam::detail::ckpt

namespace roam {

void checkpoint(std::string_view dir, callback<checkpoint_result> done, checkpoint_options options) {
  (void)detail::ckpt::hooks;
  detail::this_pe("roam::checkpoint");
  detail::post_control<&detail::ckpt::request>(0, 0, std::string(dir), std::move(done), options.keep,
                                               options.durable, false);
}

void checkpoint_in_memory(callback<checkpoint_result> done) {
  (void)detail::ckpt::hooks;
  detail::this_pe("roam::checkpoint_in_memory");
  detail::post_control<&detail::ckpt::request>(0, 0, std::string(), std::move(done), 1u, false, true);
}

}  // namespace roam
