#pragma once
/// Built-in reducers. A reducer R turns each contribution of type T into a
/// partial (`R::init`), merges partials (`R::combine`, any order and grouping)
/// and makes the result the callback receives (`R::finish`):
///   R::partial_t<T>, R::result_t<T>, init(T, key), combine(partial&, partial&&), finish(partial&&).
/// `key` is the contributor's index: the row-major linear index of an array
/// element, or the PE of a group member.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace roam {

namespace detail {

template <class T>
struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};

/// Applies `op(a_i, b_i)` element-wise to arithmetic values, vectors (equal lengths) and arrays.
template <class T, class Op>
void elementwise(T& acc, const T& v, Op op) {
  if constexpr (is_std_vector<T>::value) {
    if (acc.size() != v.size())
      throw std::invalid_argument("reduction over vectors of different lengths (" + std::to_string(acc.size()) + " and " +
                                  std::to_string(v.size()) + ")");
    for (std::size_t i = 0; i < acc.size(); ++i) {
      typename T::value_type a = acc[i];
      elementwise(a, static_cast<typename T::value_type>(v[i]), op);
      acc[i] = a;
    }
  } else if constexpr (is_std_array<T>::value) {
    for (std::size_t i = 0; i < acc.size(); ++i) elementwise(acc[i], v[i], op);
  } else {
    static_assert(std::is_arithmetic_v<T>, "roam: this reducer needs arithmetic values, or vectors/arrays of them");
    acc = op(acc, v);
  }
}

/// Applies `f(x)` to every arithmetic value inside `v` (itself, or vector/array elements).
template <class T, class F>
void each_value(T& v, F f) {
  if constexpr (is_std_vector<T>::value) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      typename T::value_type x = v[i];
      each_value(x, f);
      v[i] = x;
    }
  } else if constexpr (is_std_array<T>::value) {
    for (auto& x : v) each_value(x, f);
  } else {
    v = f(v);
  }
}

/// Reducers whose partial and result are the contribution type itself. An
/// operator with `normalize(x)` maps each contribution first (logical
/// reducers turn values into 0/1, even when there is a single contributor).
template <class Op>
struct elementwise_reducer {
  template <class T>
  using partial_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static T init(T v, std::uint64_t) {
    if constexpr (requires { Op::normalize(v); }) each_value(v, [](auto x) { return Op::normalize(x); });
    return v;
  }
  template <class T>
  static void combine(T& acc, T&& v) {
    elementwise(acc, v, Op{});
  }
  template <class T>
  static T finish(T&& acc) {
    return std::move(acc);
  }
};

struct plus_op {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct times_op {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a * b); }
};
struct min_op {
  template <class T>
  T operator()(T a, T b) const { return b < a ? b : a; }
};
struct max_op {
  template <class T>
  T operator()(T a, T b) const { return a < b ? b : a; }
};
struct land_op {
  template <class T>
  static T normalize(T a) { return static_cast<T>(a != T{}); }
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>((a != T{}) && (b != T{})); }
};
struct lor_op {
  template <class T>
  static T normalize(T a) { return static_cast<T>(a != T{}); }
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>((a != T{}) || (b != T{})); }
};
struct lxor_op {
  template <class T>
  static T normalize(T a) { return static_cast<T>(a != T{}); }
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>((a != T{}) != (b != T{})); }
};
template <class Op>
struct integral_only {
  template <class T>
  T operator()(T a, T b) const {
    static_assert(std::is_integral_v<T>, "roam: bitwise reducers need integral values");
    return Op{}(a, b);
  }
};
struct band_op {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
struct bor_op {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
struct bxor_op {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};

}  // namespace detail

namespace reducers {
using sum_t = detail::elementwise_reducer<detail::plus_op>;
using product_t = detail::elementwise_reducer<detail::times_op>;
using min_t = detail::elementwise_reducer<detail::min_op>;
using max_t = detail::elementwise_reducer<detail::max_op>;
using logical_and_t = detail::elementwise_reducer<detail::land_op>;
using logical_or_t = detail::elementwise_reducer<detail::lor_op>;
using logical_xor_t = detail::elementwise_reducer<detail::lxor_op>;
using bitwise_and_t = detail::elementwise_reducer<detail::integral_only<detail::band_op>>;
using bitwise_or_t = detail::elementwise_reducer<detail::integral_only<detail::bor_op>>;
using bitwise_xor_t = detail::elementwise_reducer<detail::integral_only<detail::bxor_op>>;

/// Every contribution with its contributor's key, sorted by key.
struct set_t {
  template <class T>
  using partial_t = std::vector<std::pair<std::uint64_t, T>>;
  template <class T>
  using result_t = std::vector<std::pair<std::uint64_t, T>>;
  template <class T>
  static partial_t<T> init(T v, std::uint64_t key) {
    partial_t<T> p;
    p.emplace_back(key, std::move(v));
    return p;
  }
  template <class T>
  static void combine(partial_t<T>& acc, partial_t<T>&& v) {
    acc.insert(acc.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  }
  template <class T>
  static result_t<T> finish(partial_t<T>&& acc) {
    std::stable_sort(acc.begin(), acc.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return std::move(acc);
  }
};

/// Concatenation (gather): every contribution, ordered by contributor key
/// (row-major index for arrays, PE for groups), whatever order they arrived in.
struct concat_t : set_t {  // keyed partials as set_t; only the result differs
  template <class T>
  using result_t = std::vector<T>;
  template <class T>
  static result_t<T> finish(partial_t<T>&& acc) {
    auto sorted = set_t::finish(std::move(acc));
    result_t<T> out;
    out.reserve(sorted.size());
    for (auto& [k, v] : sorted) out.push_back(std::move(v));
    return out;
  }
};
}  // namespace reducers

/// Count, mean and (population and sample) variance of the contributions.
/// Merged with Chan et al.'s pairwise update, so the order of merging does not
/// lose precision the way naive sums of squares do.
struct statistics {
  std::uint64_t count = 0;
  double mean = 0;
  double m2 = 0;  ///< sum of squared deviations from the mean
  double variance() const noexcept { return count ? m2 / static_cast<double>(count) : 0; }
  double sample_variance() const noexcept { return count > 1 ? m2 / static_cast<double>(count - 1) : 0; }
  template <class P>
  void pup(P& p) {
    p | count | mean | m2;
  }
  friend bool operator==(const statistics&, const statistics&) = default;
};

namespace reducers {
struct statistics_t {
  template <class T>
  using partial_t = statistics;
  template <class T>
  using result_t = statistics;
  template <class T>
  static statistics init(T v, std::uint64_t) {
    static_assert(std::is_arithmetic_v<T>, "roam: the statistics reducer needs arithmetic values");
    return {1, static_cast<double>(v), 0};
  }
  template <class T>
  static void combine(statistics& a, statistics&& b) {
    if (b.count == 0) return;
    if (a.count == 0) {
      a = b;
      return;
    }
    double n = static_cast<double>(a.count + b.count);
    double delta = b.mean - a.mean;
    a.mean += delta * static_cast<double>(b.count) / n;
    a.m2 += b.m2 + delta * delta * static_cast<double>(a.count) * static_cast<double>(b.count) / n;
    a.count += b.count;
  }
  template <class T>
  static statistics finish(statistics&& a) {
    return a;
  }
};

/// Several reductions in one: contributions are std::tuple<T...>, reduced
/// component-wise by reducers R... (`roam::tuple_of(roam::sum, roam::max)`).
template <class... R>
struct tuple_t {
  template <class T>
  struct types;
  template <class... T>
  struct types<std::tuple<T...>> {
    static_assert(sizeof...(T) == sizeof...(R), "roam: tuple reducer and tuple value have different sizes");
    using partial = std::tuple<typename R::template partial_t<T>...>;
    using result = std::tuple<typename R::template result_t<T>...>;
  };
  template <class T>
  using partial_t = typename types<T>::partial;
  template <class T>
  using result_t = typename types<T>::result;

  template <class T>
  static partial_t<T> init(T v, std::uint64_t key) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return partial_t<T>(R::init(std::move(std::get<I>(v)), key)...);
    }(std::index_sequence_for<R...>{});
  }
  template <class T>
  static void combine(partial_t<T>& acc, partial_t<T>&& v) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (R::template combine<std::tuple_element_t<I, T>>(std::get<I>(acc), std::move(std::get<I>(v))), ...);
    }(std::index_sequence_for<R...>{});
  }
  template <class T>
  static result_t<T> finish(partial_t<T>&& acc) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return result_t<T>(R::template finish<std::tuple_element_t<I, T>>(std::move(std::get<I>(acc)))...);
    }(std::index_sequence_for<R...>{});
  }
};

/// Deterministic combining order: keeps every contribution with its key and, at
/// the root, folds them with R in key order. The result is bitwise the same
/// whatever the PE count, tree shape or arrival order (floating-point sums
/// otherwise vary in their last bits); it costs memory for all contributions.
template <class R>
struct deterministic_t : set_t {  // keyed partials as set_t; folded with R at the end
  template <class T>
  using result_t = typename R::template result_t<T>;
  template <class T>
  static result_t<T> finish(partial_t<T>&& keyed) {
    auto acc = set_t::finish(std::move(keyed));  // sorted by key
    auto folded = R::template init<T>(std::move(acc.front().second), acc.front().first);
    for (std::size_t i = 1; i < acc.size(); ++i)
      R::template combine<T>(folded, R::template init<T>(std::move(acc[i].second), acc[i].first));
    return R::template finish<T>(std::move(folded));
  }
};

/// A user reducer from a function `void Fn(T& acc, const T& v)` (associative and commutative).
template <auto Fn>
struct custom_t {
  template <class T>
  using partial_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static T init(T v, std::uint64_t) {
    return v;
  }
  template <class T>
  static void combine(T& acc, T&& v) {
    Fn(acc, v);
  }
  template <class T>
  static T finish(T&& acc) {
    return std::move(acc);
  }
};
}  // namespace reducers

inline constexpr reducers::sum_t sum{};
inline constexpr reducers::product_t product{};
inline constexpr reducers::min_t min{};
inline constexpr reducers::max_t max{};
inline constexpr reducers::logical_and_t logical_and{};
inline constexpr reducers::logical_or_t logical_or{};
inline constexpr reducers::logical_xor_t logical_xor{};
inline constexpr reducers::bitwise_and_t bitwise_and{};
inline constexpr reducers::bitwise_or_t bitwise_or{};
inline constexpr reducers::bitwise_xor_t bitwise_xor{};
inline constexpr reducers::concat_t concat{};
inline constexpr reducers::set_t set{};
inline constexpr reducers::statistics_t stats{};

/// What a reduction with reducer object `R` over values of type T delivers:
/// `roam::reduction_result_t<decltype(roam::concat), int>` is std::vector<int>.
template <class R, class T>
using reduction_result_t = typename std::remove_cvref_t<R>::template result_t<T>;

/// `roam::tuple_of(roam::sum, roam::max)`: one reduction over std::tuple values.
template <class... R>
constexpr reducers::tuple_t<R...> tuple_of(R...) noexcept {
  return {};
}
/// `roam::deterministic(roam::sum)`: the same reduction, combined in contributor-key order.
template <class R>
constexpr reducers::deterministic_t<R> deterministic(R) noexcept {
  return {};
}
/// `roam::custom_reducer<&my_combine>()`.
template <auto Fn>
constexpr reducers::custom_t<Fn> custom_reducer() noexcept {
  return {};
}

}  // namespace roam
