// section_regroup_check: a section's multicast tree follows members that
// migrated (src/obj/section_regroup.cpp), on one process, on TCP nodes and on
// MPI ranks. Two rounds: every element moves, then 30 multicasts and one
// more after quiescence (which closes the stale layout if the members'
// reports came after the 30). Every member must see all 62 in order, exactly
// once; the newest layout known to the root's process (PE 0's: it made the
// section and hosts a member) must place each member on the PE it is on,
// and be version 2 when the members could move (one regroup per round).
//   section_regroup_check [+p N | +ppn K ...runtime options]
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/obj/detail/sections.hpp>
#include <roam/roam.hpp>

namespace {

constexpr int elements = 24;
constexpr int casts = 30;
constexpr int total = 2 * (casts + 1);
bool is_member(int i) { return i % 3 != 1; }

struct roamer : roam::element<roamer> {
  roamer() = default;
  explicit roamer(roam::migrating) {}
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  void tag(int t) {
    if (t != received_) ++out_of_order_;
    received_ = t + 1;
    ++count_;
  }
  // Slots 3i, 3i+1, 3i+2: what element i received, how many out of order, its PE + 1.
  void census(roam::callback<std::vector<long>> cb) {
    std::vector<long> v(3 * elements, 0);
    const int i = this_index()[0];
    v[3 * i] = count_;
    v[3 * i + 1] = out_of_order_;
    v[3 * i + 2] = static_cast<long>(roam::my_pe().value()) + 1;
    contribute(v, roam::sum, cb);
  }
  void pup(roam::pup_er& p) { p | received_ | count_ | out_of_order_; }

  int received_ = 0;
  long count_ = 0, out_of_order_ = 0;
};

int failures = 0;
void expect(const std::string& what, long got, long want) {
  if (got == want) return;
  std::printf("%s: %ld, expected %ld\n", what.c_str(), got, want);
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    const std::uint32_t pes = roam::num_pes();
    auto a = roam::create_array<roamer>(roam::index<1>{elements});
    std::vector<roam::index<1>> members;
    for (int i = 0; i < elements; ++i)
      if (is_member(i)) members.push_back({i});
    auto sec = roam::section_proxy<roamer>::of(a, members);
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < elements; ++i)
        a[i].send<&roamer::move_to>(static_cast<std::uint32_t>(i + 1 + round) % pes);
      co_await roam::quiescence();
      for (int t = 0; t < casts; ++t) sec.send<&roamer::tag>(round * (casts + 1) + t);
      co_await roam::quiescence();
      sec.send<&roamer::tag>(round * (casts + 1) + casts);
      co_await roam::quiescence();
    }
    auto [f, p] = roam::make_future<std::vector<long>>();
    a.send<&roamer::census>(roam::callback<std::vector<long>>::to_future(p));
    const std::vector<long> c = co_await f;

    // The newest layout in this (the root's) process.
    const roam::detail::section_layout* newest = nullptr;
    for (std::uint32_t v = 0;; ++v) {
      const roam::detail::section_layout* l = roam::detail::find_section_layout(sec.descriptor(), v);
      if (!l) break;
      newest = l;
    }
    std::vector<long> placed(elements, -1);
    for (std::size_t r = 0; r < newest->tree_pes.size(); ++r)
      for (const auto& key : newest->keys[r]) placed[static_cast<std::size_t>(key.v[0])] = newest->tree_pes[r];
    for (int i = 0; i < elements; ++i) {
      const std::string who = "element " + std::to_string(i);
      expect(who + " multicasts received", c[3 * i], is_member(i) ? total : 0);
      expect(who + " multicasts out of order", c[3 * i + 1], 0);
      if (is_member(i)) expect(who + " placed by the newest layout on pe", placed[i], c[3 * i + 2] - 1);
    }
    expect("newest layout version", newest->version, pes > 1 ? 2 : 0);
    std::printf("section_regroup_check: %s (layout version %u on %u pes)\n", failures == 0 ? "OK" : "FAILED",
                newest->version, pes);
    roam::exit(failures == 0 ? 0 : 1);
  });
}
