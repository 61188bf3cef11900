#pragma once
/// \file
/// std::complex<float|double|long double> as message parameters, future
/// values and pup fields: two numbers copied as bytes (one memcpy for whole
/// vectors of them). A header of its own so that <complex> is not in every
/// translation unit that serializes.
#include <complex>
#include <concepts>

#include <roam/msg/pup.hpp>

namespace roam {
template <std::floating_point T>
inline constexpr bool bitwise_serializable<std::complex<T>> = true;
}  // namespace roam
