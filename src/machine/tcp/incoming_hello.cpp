#include "tcp/incoming_hello.hpp"

#include "tcp/handshake.hpp"

namespace roam::detail::tcp {

hello_verdict judge_incoming_hello(frame_decoder& dec, const tcp_config& cfg,
                                   const std::function<bool(std::uint32_t)>& expected) {
  hello_verdict v;
  const auto f = dec.next();
  if (f.st == frame_decoder::status::need_more) {
    v.waiting = true;
    return v;
  }
  if (f.st == frame_decoder::status::error) {
    v.refusal = "malformed handshake (" + dec.error_message() + ")";
    return v;
  }
  if (f.kind != frame_kind::hello) {
    v.refusal = "the first frame was a " + std::string(kind_name(f.kind)) + " frame, not a hello";
    return v;
  }
  const hello h = decode_hello(f.payload);
  v.refusal = hello_refusal(h, cfg.secret, cfg.node);
  if (v.refusal.empty() && (h.from >= cfg.nodes || !expected(h.from)))
    v.refusal = "unexpected hello from " + endpoint_name(h.from) +
                (h.from < cfg.nodes ? " (already connected, or it should be dialled by us)" : " (no such node)");
  v.from = h.from;
  return v;
}

}  // namespace roam::detail::tcp
