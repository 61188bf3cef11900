// Out-of-line segments of message frames (docs/design/zero-copy.md): which
// buffers travel as segments, that no byte of them is copied on the way
// (pack, unpack, re-pack, +serialize), the by-value form of fan-out
// messages, and that corrupt or mismatched segments are errors, never UB.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <roam/roam.hpp>
#include <roam/msg/detail/packed_payload.hpp>
#include <roam/msg/detail/wire.hpp>

namespace segments_test {

namespace rd = roam::detail;

namespace {

struct zc : roam::chare<zc> {
  void take(roam::bytes a, int x, roam::buffer<double> b, std::string s) { (void)a, (void)x, (void)b, (void)s; }
};
using impl = rd::entry_impl<zc, &zc::take>;

roam::bytes filled(std::size_t n, int seed) {
  auto b = roam::bytes::uninitialized(n);
  auto w = b.mutable_span();
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<std::byte>((i * 7 + static_cast<std::size_t>(seed)) & 0xff);
  return b;
}

rd::message* typed(const roam::bytes& a, const roam::buffer<double>& b,
                   rd::target_kind target = rd::target_kind::chare) {
  rd::message* m = rd::build_entry_message<zc, &zc::take, false>(roam::send_options{}, a, 5, b, std::string("s"));
  m->target = target;
  m->dst_pe = 0;
  return m;
}

void dispose(rd::message* m) {
  m->ops->destroy(m);
  rd::free_message(m);
}

impl::args_tuple args_of(rd::message* u) {
  impl::args_tuple args{};
  rd::unpack_packed(u, args);
  return args;
}

struct packed_frame {
  rd::out_frame frame;
  std::vector<rd::frame_segment> segments;
};
packed_frame pack(const rd::message& m) {
  packed_frame p{rd::pack_message(m), {}};
  p.segments = p.frame.take_segments();
  return p;
}

}  // namespace

TEST(segments, buffers_over_16_kib_travel_as_segments_that_share_the_buffer) {
  roam::bytes big = filled(100000, 1);
  roam::buffer<double> small(100);
  rd::message* m = typed(big, small);
  rd::out_frame f = rd::pack_message(*m);
  ASSERT_EQ(f.segments().size(), 1u);
  EXPECT_EQ(f.segments()[0].bytes, 100000u);
  EXPECT_EQ(f.segments()[0].block.data(), big.data()) << "the segment is the buffer's own memory";
  EXPECT_LT(f.size(), 1200u) << "inline: header, the small buffer and the other arguments";
  EXPECT_EQ(big.use_count(), 3u) << "the caller, the message's argument, the frame";
  dispose(m);
  f = rd::out_frame{};
  EXPECT_EQ(big.use_count(), 1u);
}

TEST(segments, the_threshold_is_more_than_16_kib) {
  for (std::size_t n : {std::size_t{16384}, std::size_t{16385}}) {
    rd::message* m = typed(filled(n, 2), {});
    EXPECT_EQ(rd::pack_message(*m).segments().size(), n > 16384 ? 1u : 0u) << n;
    dispose(m);
  }
}

TEST(segments, unpacked_buffers_adopt_the_received_blocks_without_a_copy) {
  roam::bytes big = filled(1 << 20, 3);
  roam::buffer<double> doubles(3000, 1.25);  // 24000 bytes: a segment too
  rd::message* m = typed(big, doubles);
  auto p = pack(*m);
  ASSERT_EQ(p.segments.size(), 2u);
  dispose(m);
  rd::message* u = rd::unpack_message(p.frame.bytes(), p.segments);
  EXPECT_TRUE(u->flags & rd::work_segments);
  auto args = args_of(u);
  EXPECT_EQ(std::get<0>(args).data(), big.data()) << "no copy: the same block";
  EXPECT_EQ(std::get<2>(args).data(), doubles.data());
  EXPECT_EQ(std::get<0>(args), big);
  EXPECT_EQ(std::get<1>(args), 5);
  EXPECT_EQ(std::get<2>(args), doubles);
  EXPECT_EQ(std::get<3>(args), "s");
  dispose(u);
  p.segments.clear();
  EXPECT_EQ(big.use_count(), 2u) << "the caller and the unpacked argument";
  args = {};
  EXPECT_EQ(big.use_count(), 1u);
  EXPECT_EQ(doubles.use_count(), 1u);
}

TEST(segments, a_received_message_packs_again_with_the_same_blocks) {
  roam::bytes big = filled(50000, 4);
  rd::message* m = typed(big, {});
  auto p = pack(*m);
  dispose(m);
  rd::message* u = rd::unpack_message(p.frame.bytes(), p.segments);
  rd::out_frame again = rd::pack_message(*u);
  EXPECT_TRUE(std::equal(again.bytes().begin(), again.bytes().end(), p.frame.bytes().begin(), p.frame.bytes().end()));
  ASSERT_EQ(again.segments().size(), 1u);
  EXPECT_EQ(again.segments()[0].block.data(), big.data());
  dispose(u);
}

TEST(segments, serialize_round_trips_keep_the_blocks) {
  roam::bytes big = filled(70000, 5);
  rd::message* m = typed(big, {});
  rd::message* u = rd::roundtrip_through_wire(m);
  EXPECT_EQ(u->payload, rd::payload_kind::packed);
  auto args = args_of(u);
  EXPECT_EQ(std::get<0>(args).data(), big.data());
  dispose(u);
}

TEST(segments, fan_out_messages_hold_their_segments_by_value_and_copy_bytewise) {
  roam::bytes big = filled(40000, 6);
  rd::message* m = typed(big, {}, rd::target_kind::array_all);
  auto p = pack(*m);
  dispose(m);
  rd::message* u = rd::unpack_message(p.frame.bytes(), p.segments);
  EXPECT_EQ(rd::trailer_of(*u).by_reference, 0u);
  p.segments.clear();
  EXPECT_EQ(big.use_count(), 1u) << "a fan-out message holds copies, not references";
  // What the object layer's forward_copy does: copy the envelope and the payload bytes.
  rd::message* copy = rd::allocate_message(u->payload_bytes);
  copy->ops = u->ops;
  copy->flags = u->flags;
  copy->payload = u->payload;
  copy->payload_bytes = u->payload_bytes;
  copy->target = u->target;
  std::memcpy(copy->payload_ptr(), u->payload_ptr(), u->payload_bytes);
  for (rd::message* x : {u, copy}) {
    auto args = args_of(x);
    EXPECT_EQ(std::get<0>(args), big);
    EXPECT_NE(std::get<0>(args).data(), big.data());
  }
  // A fan-out message forwarded to another node packs its segments again.
  rd::out_frame again = rd::pack_message(*copy);
  ASSERT_EQ(again.segments().size(), 1u);
  EXPECT_EQ(again.segments()[0].bytes, 40000u);
  EXPECT_EQ(std::memcmp(again.segments()[0].block.data(), big.data(), 40000), 0);
  dispose(u);
  dispose(copy);
}

TEST(segments, the_number_of_segments_must_match_the_header) {
  rd::message* m = typed(filled(20000, 7), roam::buffer<double>(3000));
  auto p = pack(*m);
  dispose(m);
  ASSERT_EQ(p.segments.size(), 2u);
  std::vector<rd::frame_segment> fewer;
  fewer.push_back(p.segments[0]);
  EXPECT_THROW(rd::unpack_message(p.frame.bytes(), fewer), roam::wire_error);
  EXPECT_THROW(rd::unpack_message(p.frame.bytes()), roam::wire_error);
  std::vector<rd::frame_segment> more = p.segments;
  more.push_back({rd::block_ref::allocate(10), 10});
  EXPECT_THROW(rd::unpack_message(p.frame.bytes(), more), roam::wire_error);
  // Received in place (no room for segments): refused too.
  std::byte* at = nullptr;
  void* block = rd::allocate_frame_block(p.frame.size(), at);
  std::memcpy(at, p.frame.data(), p.frame.size());
  EXPECT_THROW(rd::unpack_message_in_place(block, p.frame.size()), roam::wire_error);
  rd::free_frame_block(block);
  // A segment without memory.
  std::vector<rd::frame_segment> hollow = p.segments;
  hollow[1].block.reset();
  EXPECT_THROW(rd::unpack_message(p.frame.bytes(), hollow), roam::wire_error);
}

TEST(segments, a_segment_of_the_wrong_length_is_a_pup_error_and_leaks_nothing) {
  roam::bytes big = filled(30000, 8);
  rd::message* m = typed(big, roam::buffer<double>(5000));
  auto p = pack(*m);
  dispose(m);
  for (std::size_t which : {0u, 1u})
    for (std::size_t off_by : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
      const std::size_t right = p.segments[which].bytes;
      const std::size_t bytes = off_by == 0 ? 0 : off_by == 1 ? right - 1 : off_by == 2 ? right + 1 : right + 8000;
      std::vector<rd::frame_segment> wrong = p.segments;
      wrong[which] = {rd::block_ref::allocate(bytes), bytes};
      rd::block_ref watch = wrong[which].block;
      rd::message* u = rd::unpack_message(p.frame.bytes(), wrong);
      EXPECT_THROW(args_of(u), roam::pup_error) << which << " " << bytes;
      dispose(u);
      wrong.clear();
      EXPECT_EQ(watch.use_count(), 1u) << "every reference dropped";
    }
  p.segments.clear();
  EXPECT_EQ(big.use_count(), 1u);
}

TEST(segments, every_header_bit_flip_of_a_segmented_frame_is_rejected) {
  rd::message* m = typed(filled(20000, 9), {});
  auto p = pack(*m);
  dispose(m);
  for (std::size_t byte = 0; byte < p.frame.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<std::byte> bad(p.frame.bytes().begin(), p.frame.bytes().end());
      bad[byte] ^= std::byte(1u << bit);
      std::vector<rd::frame_segment> segs = p.segments;
      EXPECT_THROW(rd::unpack_message(bad, segs), roam::wire_error) << byte << ":" << bit;
    }
}

// The unpacker's view of segments, directly: taking them in order, too few,
// too many, and lengths that do not match.
TEST(segments, the_unpacker_takes_segments_in_order_and_counts_leftovers) {
  auto a = rd::block_ref::allocate(40000), b = rd::block_ref::allocate(20000);
  std::memset(a.data(), 1, 40000);
  std::memset(b.data(), 2, 20000);
  // A payload of two out-of-line buffers: [count][1] twice.
  std::vector<std::byte> payload(18);
  const std::uint64_t na = 40000, nb = 20000;
  std::memcpy(payload.data(), &na, 8);
  payload[8] = std::byte{1};
  std::memcpy(payload.data() + 9, &nb, 8);
  payload[17] = std::byte{1};
  auto entries_for = [&](std::vector<std::pair<rd::block_ref, std::size_t>> segs) {
    std::vector<rd::segment_entry> e;
    for (auto& [blk, n] : segs)
      e.push_back({static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(blk.release())), n});
    return e;
  };
  auto release_all = [](std::vector<rd::segment_entry>& e) {
    for (auto& x : e) rd::block_ref(reinterpret_cast<rd::shared_block*>(static_cast<std::uintptr_t>(x.where))).reset();
  };
  {
    auto e = entries_for({{a, 40000}, {b, 20000}});
    rd::segment_table t(e, nullptr, true);
    auto p = roam::pup_er::unpacker(payload.data(), payload.size());
    rd::pup_impl::attach_segments(p, &t);
    roam::bytes x, y;
    p | x | y;
    EXPECT_EQ(x.data(), a.data());
    EXPECT_EQ(y.data(), b.data());
    EXPECT_EQ(t.unused(), 0u);
    release_all(e);  // taken entries are cleared: nothing to release
  }
  {
    auto e = entries_for({{a, 40000}, {b, 20000}});
    rd::segment_table t(e, nullptr, true);
    auto p = roam::pup_er::unpacker(payload.data(), 9);  // only the first buffer
    rd::pup_impl::attach_segments(p, &t);
    roam::bytes x;
    p | x;
    EXPECT_EQ(t.unused(), 1u) << "unpack_packed reports this as an error";
    release_all(e);
  }
  {
    auto e = entries_for({{a, 40000}});
    rd::segment_table t(e, nullptr, true);
    auto p = roam::pup_er::unpacker(payload.data(), payload.size());
    rd::pup_impl::attach_segments(p, &t);
    roam::bytes x, y;
    p | x;
    EXPECT_THROW(p | y, roam::pup_error) << "a second out-of-line buffer, but one segment arrived";
    release_all(e);
  }
  {
    auto e = entries_for({{b, 20000}, {a, 40000}});  // swapped: lengths do not match
    rd::segment_table t(e, nullptr, true);
    auto p = roam::pup_er::unpacker(payload.data(), payload.size());
    rd::pup_impl::attach_segments(p, &t);
    roam::bytes x;
    EXPECT_THROW(p | x, roam::pup_error);
    release_all(e);
  }
  EXPECT_EQ(a.use_count(), 1u);
  EXPECT_EQ(b.use_count(), 1u);
}

TEST(segments, random_segment_lengths_and_contents_never_crash) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  rd::message* m = typed(filled(20000, 10), roam::buffer<double>(2500));
  auto p = pack(*m);
  dispose(m);
  for (int i = 0; i < 200; ++i) {
    std::vector<rd::frame_segment> segs;
    for (int k = 0; k < 2; ++k) {
      const std::size_t n = rng() % 3 == 0 ? p.segments[static_cast<std::size_t>(k)].bytes : rng() % 50000;
      auto blk = rd::block_ref::allocate(n);
      for (std::size_t j = 0; j < n; j += 97) blk.data()[j] = std::byte(rng());
      segs.push_back({std::move(blk), n});
    }
    rd::message* u = rd::unpack_message(p.frame.bytes(), segs);
    try {
      (void)args_of(u);
    } catch (const roam::pup_error&) {
    }
    dispose(u);
  }
}

}  // namespace segments_test
