// Singleton chares that migrate: every message still reaches them exactly
// once, their state travels, proxies and destroy keep working.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "support/run_roam.hpp"

namespace chmig {

using roam_test::run_on;

std::vector<long> g_result;

// Visits PEs in turn (one hop every `hop_every` messages) while every PE's
// sender streams numbered messages at it.
template <bool Packed>
struct rover : roam::chare<rover<Packed>> {
  static constexpr bool pup_on_migration = Packed;
  rover() = default;
  explicit rover(roam::migrating) {}
  rover(long expected, int hop_every, roam::promise<std::vector<long>> done)
      : expected_(expected), hop_every_(hop_every), done_(done), ballast_(50000) {
    std::iota(ballast_.begin(), ballast_.end(), 7);
  }

  void take(std::uint32_t from, long k) {
    ++received_;
    sum_ += static_cast<long>(from) * 1000003 + k;
    if (received_ % hop_every_ == 0)
      this->migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    if (received_ == expected_) {
      long intact = 1;
      for (std::size_t i = 0; i < ballast_.size(); ++i) intact &= ballast_[i] == static_cast<long>(i) + 7;
      done_.set_value(std::vector<long>{received_, sum_, arrivals_, intact, unpacks_});
    }
  }
  void after_migration() { ++arrivals_; }
  void pup(roam::pup_er& p) {
    p | expected_ | hop_every_ | done_ | ballast_ | received_ | sum_ | arrivals_ | unpacks_;
    if (p.is_unpacking()) ++unpacks_;
  }

  long expected_ = 0;
  int hop_every_ = 1;
  roam::promise<std::vector<long>> done_;
  std::vector<long> ballast_;
  long received_ = 0, sum_ = 0, arrivals_ = 0, unpacks_ = 0;
};

template <bool Packed>
struct streamer : roam::group_member<streamer<Packed>> {
  void stream(roam::chare_proxy<rover<Packed>> to, long count) {
    for (long k = 0; k < count; ++k) to.template send<&rover<Packed>::take>(roam::my_pe().value(), k);
  }
};

struct settler : roam::chare<settler> {
  settler() = default;
  void go(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  void ask(roam::promise<std::uint32_t> where) { where.set_value(roam::my_pe().value()); }
  void pup(roam::pup_er&) {}
};

struct stuck : roam::chare<stuck> {  // no pup: cannot migrate
  void go() { migrate_to(roam::pe_id{1}); }
};

template <bool Packed>
std::vector<long> storm(unsigned pes, long per_pe, int hop_every, std::vector<std::string> extra = {}) {
  g_result.clear();
  int rc = run_on(pes, [=](const roam::args&) -> roam::task<> {
    auto [f, p] = roam::make_future<std::vector<long>>();
    auto r = roam::create_chare_on<rover<Packed>>(roam::pe_id{0}, per_pe * roam::num_pes(), hop_every, p);
    auto senders = roam::create_group<streamer<Packed>>();
    senders.template send<&streamer<Packed>::stream>(r, per_pe);
    g_result = co_await f;
    roam::exit(0);
  }, std::move(extra));
  EXPECT_EQ(rc, 0);
  return g_result;
}

long expected_sum(unsigned pes, long per_pe) {
  long s = 0;
  for (unsigned pe = 0; pe < pes; ++pe)
    for (long k = 0; k < per_pe; ++k) s += static_cast<long>(pe) * 1000003 + k;
  return s;
}

TEST(chare_migration, every_message_arrives_once_while_the_chare_moves_within_a_process) {
  std::vector<long> r = storm<false>(4, 3000, 97);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], 12000);
  EXPECT_EQ(r[1], expected_sum(4, 3000));
  EXPECT_GE(r[2], 100) << "it moved";
  EXPECT_EQ(r[3], 1) << "state intact";
  EXPECT_EQ(r[4], 0) << "moved as itself, never unpacked";
}

TEST(chare_migration, packed_moves_deliver_every_message_once_and_keep_the_state) {
  std::vector<long> r = storm<true>(3, 2000, 151);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], 6000);
  EXPECT_EQ(r[1], expected_sum(3, 2000));
  EXPECT_GE(r[2], 30);
  EXPECT_EQ(r[3], 1);
  EXPECT_EQ(r[4], r[2]) << "one unpack per move";
}

TEST(chare_migration, moves_through_the_wire_format_under_serialize) {
  std::vector<long> r = storm<false>(2, 1500, 61, {"+serialize"});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], 3000);
  EXPECT_EQ(r[1], expected_sum(2, 1500));
  EXPECT_EQ(r[3], 1);
  EXPECT_EQ(r[4], r[2]);
}

TEST(chare_migration, a_moved_chare_answers_through_old_proxies_and_can_be_destroyed) {
  static std::vector<std::uint32_t> where;
  where.clear();
  int rc = run_on(3, [](const roam::args&) -> roam::task<> {
    auto s = roam::create_chare_on<settler>(roam::pe_id{0});
    for (std::uint32_t pe : {2u, 1u, 0u, 2u}) {
      s.send<&settler::go>(pe);
      auto [f, p] = roam::make_future<std::uint32_t>();
      s.send<&settler::ask>(p);
      where.push_back(co_await f);
    }
    EXPECT_EQ(s.pe().value(), 0u) << "a proxy names the birth PE";
    s.destroy();
    auto [fq, pq] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(pq));
    co_await fq;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(where, (std::vector<std::uint32_t>{2, 1, 0, 2}));
}

TEST(chare_migration, a_chare_without_pup_cannot_migrate_and_says_so) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) {
    auto s = roam::create_chare_on<stuck>(roam::pe_id{0});
    s.send<&stuck::go>();
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("chare chmig::stuck #0.1 on pe 0: cannot migrate: it needs a pup function"), std::string::npos) << err;
}

}  // namespace chmig
