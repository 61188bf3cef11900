#include <gtest/gtest.h>

#include <atomic>

#include "support/run_roam.hpp"

namespace creation_test {

using roam_test::run_on;

namespace {

struct tally : roam::chare<tally> {
  explicit tally(long expected) : expected_(expected) {}
  void add(long v) {
    sum_ += v;
    if (++count_ == expected_) roam::exit(sum_ == expected_ * (expected_ + 1) / 2 ? 0 : 5);
  }
  long expected_, count_ = 0, sum_ = 0;
};

struct target : roam::chare<target> {
  explicit target(roam::chare_proxy<tally> t) : tally_(t) {}
  void value(long v) { tally_.send<&tally::add>(v); }
  roam::chare_proxy<tally> tally_;
};

// Forwards a proxy to a chare that may not exist yet; the third party sends at once.
struct relay : roam::group_member<relay> {
  void use(roam::chare_proxy<target> t, long first, long count) {
    first += static_cast<long>(roam::my_pe().value()) * count;
    for (long i = 0; i < count; ++i) t.send<&target::value>(first + i);
  }
};

}  // namespace

TEST(creation, messages_sent_right_after_creation_are_never_lost) {
  for (unsigned pes : {1u, 2u, 4u}) {
    // 50 chares, each gets 20 values from 'main' and from every PE through relays,
    // sent before the chare can possibly have been constructed on its PE.
    constexpr long chares = 50, per_sender = 20;
    long senders = 1 + pes;
    long total = chares * per_sender * senders;
    int rc = run_on(pes, [&](const roam::args&) {
      auto t = roam::create_chare_on<tally>(roam::pe_id{0}, total);
      auto relays = roam::create_group<relay>();
      long next = 1;
      for (long c = 0; c < chares; ++c) {
        auto tg = roam::create_chare<target>(t);
        for (long i = 0; i < per_sender; ++i) tg.send<&target::value>(next + i);
        next += per_sender;
        // Negative priority: may overtake the creation message on the target PE.
        relays.send<&relay::use>(roam::priority(-1), tg, next, per_sender);
        next += per_sender * static_cast<long>(pes);
      }
    });
    EXPECT_EQ(rc, 0) << pes << " PEs";
  }
}

namespace {
struct elem : roam::element<elem> {
  explicit elem(roam::chare_proxy<tally> t) : tally_(t) {}
  void value(long v) { tally_.send<&tally::add>(v); }
  roam::chare_proxy<tally> tally_;
};
struct array_user : roam::group_member<array_user> {
  void use(roam::array_proxy<elem> a, long base) {
    for (int i = 0; i < static_cast<int>(a.size()); ++i) a[i].send<&elem::value>(base + i);
  }
};
}  // namespace

TEST(creation, an_array_proxy_is_usable_on_other_pes_before_their_elements_exist) {
  for (unsigned pes : {2u, 4u}) {
    constexpr int n = 64;
    long total = static_cast<long>(n) * pes;
    int rc = run_on(pes, [&](const roam::args&) {
      auto t = roam::create_chare_on<tally>(roam::pe_id{0}, total);
      auto users = roam::create_group<array_user>();
      auto a = roam::create_array<elem>(roam::array_options<1>({n}, roam::round_robin_map()), t);
      // Every PE sends to every element; with priority -1 these can overtake creation.
      for (unsigned pe = 0; pe < pes; ++pe)
        users[roam::pe_id{pe}].send<&array_user::use>(roam::priority(-1), a, 1 + static_cast<long>(pe) * n);
    });
    EXPECT_EQ(rc, 0) << pes << " PEs";
  }
}

namespace {
std::atomic<int> g_destroyed{0};
struct mortal : roam::chare<mortal> {
  ~mortal() { ++g_destroyed; }
  void die() { destroy_self(); }
  int alive() { return g_destroyed.load(); }
};
}  // namespace

TEST(creation, chares_are_destroyed_by_proxy_or_by_themselves) {
  g_destroyed = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_chare_on<mortal>(roam::pe_id{1});
    auto b = roam::create_chare_on<mortal>(roam::pe_id{0});
    auto witness = roam::create_chare_on<mortal>(roam::pe_id{1});
    a.destroy();
    co_await b.call<&mortal::die>();
    // FIFO from this PE to PE 1: the destroy ran before this call returns.
    int destroyed = co_await witness.call<&mortal::alive>();
    roam::exit(destroyed == 2 ? 0 : 9);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_destroyed.load(), 3);  // the witness at exit
}

void exit_zero() { roam::exit(0); }

TEST(creation, objects_still_alive_at_exit_are_destroyed) {
  g_destroyed = 0;
  int rc = run_on(2, [](const roam::args&) {
    for (int i = 0; i < 10; ++i) (void)roam::create_chare<mortal>();
    // Exit once every creation message has run.
    roam::on_quiescence(roam::callback<>::function<&exit_zero>(roam::pe_id{0}));
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_destroyed.load(), 10);
}

TEST(proxies, are_values_that_compare_by_destination) {
  int rc = run_on(2, [](const roam::args&) {
    auto a = roam::create_chare_on<mortal>(roam::pe_id{1});
    auto b = roam::create_chare_on<mortal>(roam::pe_id{1});
    auto a2 = a;
    bool ok = a == a2 && !(a == b) && a.pe() == roam::pe_id{1};
    roam::exit(ok ? 0 : 1);
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace creation_test
