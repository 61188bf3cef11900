// The quad-tree index's arithmetic, exhaustively for small depths, against
// plain coordinates: position, parent and children, neighbours at the same
// depth, one level coarser and one finer, at the edges and wrapped around.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "../quad_index.hpp"

namespace {

using amr::quad_index;

TEST(quad_index, position_round_trips_and_indices_are_distinct) {
  for (std::uint32_t d = 0; d <= 6; ++d) {
    std::set<std::tuple<std::uint64_t, std::uint32_t>> seen;
    for (std::uint32_t x = 0; x < (1u << d); ++x)
      for (std::uint32_t y = 0; y < (1u << d); ++y) {
        const quad_index q = quad_index::at(d, x, y);
        EXPECT_EQ(q.x(), x);
        EXPECT_EQ(q.y(), y);
        EXPECT_EQ(q.depth, d);
        EXPECT_TRUE(seen.insert({q.path, q.depth}).second) << q.str();
      }
  }
  const quad_index deep = quad_index::at(quad_index::max_depth, (1u << 31) - 1, 12345);
  EXPECT_EQ(deep.x(), (1u << 31) - 1);
  EXPECT_EQ(deep.y(), 12345u);
}

TEST(quad_index, children_halve_and_parents_undo_them) {
  for (std::uint32_t d = 0; d <= 5; ++d)
    for (std::uint32_t x = 0; x < (1u << d); ++x)
      for (std::uint32_t y = 0; y < (1u << d); ++y) {
        const quad_index q = quad_index::at(d, x, y);
        for (unsigned c = 0; c < 4; ++c) {
          const quad_index k = q.child(c);
          EXPECT_EQ(k.depth, d + 1);
          EXPECT_EQ(k.x(), 2 * x + (c & 1u));
          EXPECT_EQ(k.y(), 2 * y + (c >> 1));
          EXPECT_EQ(k.quadrant(), c);
          EXPECT_EQ(k.parent(), q);
        }
      }
}

TEST(quad_index, neighbours_at_the_same_depth_stop_at_edges_or_wrap) {
  const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (std::uint32_t d = 0; d <= 5; ++d) {
    const auto n = static_cast<std::int64_t>(1u << d);
    for (std::int64_t x = 0; x < n; ++x)
      for (std::int64_t y = 0; y < n; ++y)
        for (const auto& dir : dirs) {
          const quad_index q = quad_index::at(d, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y));
          const std::int64_t nx = x + dir[0], ny = y + dir[1];
          const bool inside = nx >= 0 && ny >= 0 && nx < n && ny < n;
          const auto edge = q.neighbor(dir[0], dir[1], false);
          ASSERT_EQ(edge.has_value(), inside) << q.str();
          if (inside) {
            EXPECT_EQ(*edge, quad_index::at(d, static_cast<std::uint32_t>(nx), static_cast<std::uint32_t>(ny)));
          }
          const auto wrapped = q.neighbor(dir[0], dir[1], true);
          ASSERT_TRUE(wrapped.has_value());
          EXPECT_EQ(wrapped->x(), static_cast<std::uint32_t>((nx + n) % n));
          EXPECT_EQ(wrapped->y(), static_cast<std::uint32_t>((ny + n) % n));
        }
  }
}

// Cells of the finest depth: a block's face neighbours across levels are the
// blocks whose cells touch its face from outside.
TEST(quad_index, neighbours_across_levels_touch_the_face) {
  const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (std::uint32_t d = 1; d <= 4; ++d) {
    const auto n = 1u << d;
    for (std::uint32_t x = 0; x < n; ++x)
      for (std::uint32_t y = 0; y < n; ++y)
        for (const auto& dir : dirs) {
          const quad_index q = quad_index::at(d, x, y);
          const auto same = q.neighbor(dir[0], dir[1], true);
          const auto coarse = q.coarser_neighbor(dir[0], dir[1], true);
          ASSERT_TRUE(same && coarse);
          EXPECT_EQ(coarse->depth, d - 1);
          EXPECT_EQ(coarse->x(), same->x() / 2);
          EXPECT_EQ(coarse->y(), same->y() / 2);
          const auto fine = q.finer_neighbors(dir[0], dir[1], true);
          ASSERT_TRUE(fine);
          for (const quad_index& f : {fine->first, fine->second}) {
            EXPECT_EQ(f.depth, d + 1);
            EXPECT_EQ(f.parent(), *same);
            // Touching: one fine step from q's own fine cells along the direction.
            std::uint32_t want_x = f.x(), want_y = f.y();
            if (dir[0] == 1) want_x = (2 * x + 2) % (2 * n);
            if (dir[0] == -1) want_x = (2 * x + 2 * n - 1) % (2 * n);
            if (dir[1] == 1) want_y = (2 * y + 2) % (2 * n);
            if (dir[1] == -1) want_y = (2 * y + 2 * n - 1) % (2 * n);
            EXPECT_EQ(f.x(), want_x);
            EXPECT_EQ(f.y(), want_y);
          }
          // In order along the face.
          const bool along_y = dir[0] != 0;
          EXPECT_EQ(along_y ? fine->second.y() : fine->second.x(), (along_y ? fine->first.y() : fine->first.x()) + 1);
        }
  }
  EXPECT_FALSE(quad_index::root().coarser_neighbor(1, 0, true));
  EXPECT_FALSE(quad_index::at(2, 3, 0).finer_neighbors(1, 0, false));
}

}  // namespace
