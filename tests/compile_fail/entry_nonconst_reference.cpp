// expect: roam: entry method parameters must be values or const references
#include <roam/roam.hpp>

#include <vector>

struct a : roam::chare<a> {
  void fill(std::vector<int>& out) { out.push_back(1); }
};
void f(roam::chare_proxy<a> p, std::vector<int>& v) { p.send<&a::fill>(v); }
