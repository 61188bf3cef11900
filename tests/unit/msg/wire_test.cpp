#include <gtest/gtest.h>

#include <random>

#include <roam/roam.hpp>
#include <roam/msg/detail/wire.hpp>

namespace wire_test {

namespace {
struct wired : roam::chare<wired> {
  void take(std::vector<int> v, std::string s) { (void)v, (void)s; }
};
using impl = roam::detail::entry_impl<wired, &wired::take>;

roam::detail::message* typed_message() {
  roam::detail::message* m =
      roam::detail::build_entry_message<wired, &wired::take, false>(roam::send_options{-4, true},
                                                                    std::vector<int>{1, 2, 3}, std::string("xyz"));
  m->target = roam::detail::target_kind::chare;
  m->dst_pe = 1;
  m->src_pe = 0;
  m->index.v[0] = 99;
  return m;
}
void dispose(roam::detail::message* m) {
  m->ops->destroy(m);
  roam::detail::free_message(m);
}
// The inline bytes of a packed message (these arguments have no segments).
std::vector<std::byte> packed(const roam::detail::message& m) {
  auto f = roam::detail::pack_message(m);
  EXPECT_FALSE(f.has_segments());
  return {f.bytes().begin(), f.bytes().end()};
}
}  // namespace

TEST(wire, a_message_survives_packing_and_unpacking_with_its_envelope) {
  auto* m = typed_message();
  auto frame = packed(*m);
  auto* u = roam::detail::unpack_message(frame);
  EXPECT_EQ(u->ops, &impl::ops);
  EXPECT_EQ(u->priority, -4);
  EXPECT_EQ(u->flags, roam::detail::work_lifo);
  EXPECT_EQ(u->target, roam::detail::target_kind::chare);
  EXPECT_EQ(u->payload, roam::detail::payload_kind::packed);
  EXPECT_EQ(u->index.v[0], 99);
  EXPECT_EQ(u->dst_pe, 1u);
  // The payload decodes to the original arguments.
  auto args = roam::unpack<impl::args_tuple>(
      std::span(static_cast<const std::byte*>(u->payload_ptr()), u->payload_bytes));
  EXPECT_EQ(std::get<0>(args), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(std::get<1>(args), "xyz");
  // Packing the unpacked message gives the same frame.
  EXPECT_EQ(packed(*u), frame);
  dispose(m);
  dispose(u);
}

TEST(wire, every_truncation_of_a_frame_is_rejected) {
  auto* m = typed_message();
  auto frame = packed(*m);
  for (std::size_t n = 0; n < frame.size(); ++n)
    EXPECT_THROW(roam::detail::unpack_message(std::span(frame).first(n)), roam::wire_error) << n;
  dispose(m);
}

TEST(wire, every_single_bit_flip_is_rejected) {
  auto* m = typed_message();
  auto frame = packed(*m);
  for (std::size_t byte = 0; byte < frame.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = frame;
      bad[byte] ^= std::byte(1u << bit);
      EXPECT_THROW(roam::detail::unpack_message(bad), roam::wire_error) << byte << ":" << bit;
    }
  }
  dispose(m);
}

// Above 16 KiB of payload only the header is checksummed (the payload's length
// is still exact): every header bit flip and every truncation is rejected,
// and a payload survives intact.
TEST(wire, large_frames_check_their_header_and_length) {
  auto* m = roam::detail::build_entry_message<wired, &wired::take, false>(
      roam::send_options{}, std::vector<int>(20000, 7), std::string("big"));
  m->target = roam::detail::target_kind::chare;
  auto frame = packed(*m);
  ASSERT_GT(frame.size(), 64u * 1024);
  for (std::size_t byte = 0; byte < 72; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = frame;
      bad[byte] ^= std::byte(1u << bit);
      EXPECT_THROW(roam::detail::unpack_message(bad), roam::wire_error) << byte << ":" << bit;
    }
  }
  for (std::size_t n : {std::size_t{0}, std::size_t{71}, std::size_t{72}, frame.size() / 2, frame.size() - 1})
    EXPECT_THROW(roam::detail::unpack_message(std::span(frame).first(n)), roam::wire_error) << n;
  auto* u = roam::detail::unpack_message(frame);
  auto args = roam::unpack<impl::args_tuple>(std::span(static_cast<const std::byte*>(u->payload_ptr()), u->payload_bytes));
  EXPECT_EQ(std::get<0>(args), std::vector<int>(20000, 7));
  dispose(m);
  dispose(u);
}

TEST(wire, random_garbage_is_rejected_without_crashing) {
  unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::byte> junk(rng() % 300);
    for (auto& b : junk) b = std::byte(rng());
    EXPECT_THROW(roam::detail::unpack_message(junk), roam::wire_error);
  }
}

TEST(entries, identifiers_are_stable_hashes_of_class_and_entry_names) {
  constexpr auto id = impl::id;
  static_assert(id == roam::stable_hash(roam::type_name<decltype(&wired::take)>(),
                                       roam::stable_hash(roam::member_name<&wired::take>(),
                                                         roam::stable_hash("/", roam::stable_hash(roam::type_name<wired>())))));
  EXPECT_EQ(roam::detail::find_entry(id), &impl::ops);
  EXPECT_NE(id, (roam::detail::entry_impl<wired, &wired::take>::id + 1));
  EXPECT_NE(impl::ops.name.find("wired::take"), std::string_view::npos);
  EXPECT_NE(impl::ops.class_name.find("wired"), std::string_view::npos);
}

namespace {
struct first_kind : roam::chare<first_kind> {
  explicit first_kind(int) {}
  template <class T>
  void take(T) {}
};
struct second_kind : roam::chare<second_kind> {
  explicit second_kind(int) {}
};
}  // namespace

// Clang prints function template specialisations without their template
// arguments, so names alone would give these the same identifier.
TEST(entries, template_instantiations_get_distinct_identifiers) {
  using roam::detail::construct_chare;
  using roam::detail::control_impl;
  EXPECT_NE((control_impl<&construct_chare<first_kind, int>, first_kind>::id),
            (control_impl<&construct_chare<second_kind, int>, second_kind>::id));
  EXPECT_NE((roam::detail::entry_impl<first_kind, &first_kind::take<int>>::id),
            (roam::detail::entry_impl<first_kind, &first_kind::take<double>>::id));
}

}  // namespace wire_test
