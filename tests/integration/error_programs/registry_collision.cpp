// A collision planted in any of the stable-id registries (argv[1] names
// which) must stop the program at start-up, naming the registry, the id and
// both names, before main runs. Real ids are 64-bit hashes of names, so each
// collision is forced by registering something else under a real id.
#include <cstdio>
#include <cstring>
#include <memory>

#include <roam/roam.hpp>

namespace {

struct real : roam::chare<real> {
  void work() {}
  void pup(roam::pup_er&) {}
};
struct real_cell : roam::element<real_cell> {};

std::uint32_t impostor_map(const roam::detail::index_storage&, const roam::detail::index_storage&, std::uint8_t,
                           std::uint32_t) {
  return 0;
}
std::unique_ptr<roam::detail::partial_base> impostor_partial() { return nullptr; }
void impostor_deliver(const std::byte*, void*) {}

void plant(const char* kind) {
  using namespace roam::detail;
  static const class_ops impostor_class{"impostor_class", [](void*) noexcept {}, class_ops_for<real>.id};
  static element_ops impostor_element = element_ops_holder<real_cell>::ops;
  static chare_ops impostor_chare = chare_ops_holder<real>::ops;
  static const entry_ops impostor_entry{entry_impl<real, &real::work>::id, "impostor::work", "impostor", false,
                                        nullptr, nullptr, nullptr, nullptr};
  static const callback_ops impostor_callback{future_callback<long>::id, "impostor_callback", &impostor_deliver};
  (void)future_callback<long>::registered;
  (void)entry_impl<real, &real::work>::registered;
  (void)element_ops_holder<real_cell>::registered;
  (void)chare_ops_holder<real>::registered;
  (void)class_registered<real>;
  impostor_element.class_name = "impostor_cell";
  impostor_chare.cls = &impostor_class;
  if (!std::strcmp(kind, "entry")) register_entry(&impostor_entry);
  else if (!std::strcmp(kind, "class")) register_class(&impostor_class);
  else if (!std::strcmp(kind, "element")) register_element_ops(&impostor_element);
  else if (!std::strcmp(kind, "chare")) register_chare_ops(&impostor_chare);
  else if (!std::strcmp(kind, "map")) register_map("block", &impostor_map);
  else if (!std::strcmp(kind, "callback")) register_callback_ops(&impostor_callback);
  else if (!std::strcmp(kind, "partial")) {
    (void)typed_partial<roam::reducers::sum_t, long>::registered;
    register_partial_kind(typed_partial<roam::reducers::sum_t, long>::id, &impostor_partial, "impostor_partial");
  } else if (!std::strcmp(kind, "reducer")) {
    (void)reducer_identity<roam::reducers::sum_t>::registered;
    register_reducer(reducer_identity<roam::reducers::sum_t>::id, "impostor_reducer");
  } else std::fprintf(stderr, "registry_collision: unknown kind %s\n", kind);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) plant(argv[1]);
  return roam::run(argc, argv, [](const roam::args&) {
    std::printf("main ran\n");
    roam::exit(0);
  });
}
