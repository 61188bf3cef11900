#pragma once
// The dragonfly network model (apps/dragonfly/README.md): its topology, LP
// layout, minimal routing, delays, traffic patterns and the PDES model
// (libs/pdes/include/roam/pdes/model.hpp) with its three kinds of LP:
// routers, terminals (network interfaces) and MPI processes.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <roam/pdes/model.hpp>
#include <roam/pdes/rng.hpp>

namespace dragonfly {

namespace pdes = roam::pdes;

/// Where a dragonfly's LPs and links are, all computed arithmetically: `a`
/// routers per group, `p` terminals per router, `h` global channels per
/// router, g = a*h + 1 groups (one global link between every pair).
///
/// LP ids: one block of 1 + 2p LPs per router, routers in order: the router,
/// its p terminals, then the p processes on those terminals. A group's
/// routers are consecutive, so a group is a contiguous range of a*(1 + 2p)
/// LPs (one LP chare by default: most events stay inside their chare).
/// Terminal t and process t (0 .. terminals-1) sit on router t / p.
struct topology {
  std::uint32_t a = 8, p = 4, h = 4;

  enum class kind : std::uint8_t { router, terminal, process };

  std::uint64_t groups() const noexcept { return std::uint64_t{a} * h + 1; }
  std::uint64_t routers() const noexcept { return groups() * a; }
  std::uint64_t terminals() const noexcept { return routers() * p; }
  std::uint64_t block() const noexcept { return 1 + 2 * std::uint64_t{p}; }
  std::uint64_t lps() const noexcept { return routers() * block(); }
  std::uint64_t lps_per_group() const noexcept { return a * block(); }

  pdes::lp_id router_gid(std::uint64_t r) const noexcept { return r * block(); }
  pdes::lp_id terminal_gid(std::uint64_t t) const noexcept { return (t / p) * block() + 1 + t % p; }
  pdes::lp_id process_gid(std::uint64_t q) const noexcept { return (q / p) * block() + 1 + p + q % p; }

  kind kind_of(pdes::lp_id gid) const noexcept {
    const std::uint64_t k = gid % block();
    return k == 0 ? kind::router : k <= p ? kind::terminal : kind::process;
  }
  /// The router, terminal or process number of an LP of that kind.
  std::uint64_t router_of(pdes::lp_id gid) const noexcept { return gid / block(); }
  std::uint64_t terminal_of(pdes::lp_id gid) const noexcept { return router_of(gid) * p + (gid % block() - 1); }
  std::uint64_t process_of(pdes::lp_id gid) const noexcept { return router_of(gid) * p + (gid % block() - 1 - p); }

  // A router's output ports: a-1 local ones (to the other routers of its
  // group, in order), then h global ones, then p to its terminals.
  std::uint32_t ports() const noexcept { return a - 1 + h + p; }
  std::uint32_t first_global_port() const noexcept { return a - 1; }
  std::uint32_t first_terminal_port() const noexcept { return a - 1 + h; }
  static std::uint32_t local_port(std::uint64_t from_local, std::uint64_t to_local) noexcept {
    return static_cast<std::uint32_t>(to_local < from_local ? to_local : to_local - 1);
  }
  /// Group `from`'s global channels 0 .. a*h-1 lead to the other groups in
  /// order (channel j of router k is number k*h + j): the channel to `to`.
  static std::uint64_t channel_to(std::uint64_t from, std::uint64_t to) noexcept { return to < from ? to : to - 1; }

  template <class P>
  void pup(P& pp) {
    pp | a | p | h;
  }
};

/// A link's delays (ns): the time a packet occupies it (size / bandwidth)
/// and the time its last byte takes to arrive once sent.
struct link {
  double serialization = 0;
  double latency = 0;
  template <class P>
  void pup(P& pp) {
    pp | serialization | latency;
  }
};

/// The delays of the model, in ns, for 512-byte packets (README.md).
struct delays {
  double packet_bytes = 512;
  link terminal{100.0, 10.0};  // 5.12 GB/s, between a terminal and its router
  link local{100.0, 20.0};     // 5.12 GB/s, between the routers of a group
  link global{125.0, 200.0};   // 4.096 GB/s, between groups (longer, optical)
  double router = 50.0;        // routing and crossbar, before a packet can leave
  double send_overhead = 100.0;     // a process hands a message to its terminal; also the least gap between its sends
  double receive_overhead = 100.0;  // a terminal hands a whole message to its process

  /// The least offset of any send the model makes (the conservative
  /// scheduler's lookahead): a process's send, a terminal's injection
  /// (serialization + latency), a router's forward (its delay, then a link),
  /// a terminal's delivery.
  double lookahead() const noexcept {
    const double fastest_link = std::min({terminal.serialization + terminal.latency, local.serialization + local.latency,
                                          global.serialization + global.latency});
    return std::min({send_overhead, receive_overhead, terminal.serialization + terminal.latency, router + fastest_link});
  }
  template <class P>
  void pup(P& pp) {
    pp | packet_bytes | terminal | local | global | router | send_overhead | receive_overhead;
  }
};

enum class traffic : std::uint8_t { uniform, transpose, neighbor };

inline const char* traffic_name(traffic t) noexcept {
  switch (t) {
    case traffic::uniform: return "uniform";
    case traffic::transpose: return "transpose";
    case traffic::neighbor: return "neighbor";
  }
  return "?";
}

/// One LP's state; one type for all three kinds (the engine has one), the
/// fields of the other kinds stay zero.
struct lp_state {
  // Changed by event handlers (restored by reverse handlers):
  std::vector<double> next_free;  ///< router: per output port; terminal: its injection link; when it is free again
  std::uint64_t sent = 0;         ///< process: messages generated
  // Changed by commit handlers only (never rolled back), for the totals:
  std::uint64_t packets = 0;        ///< terminal: packets received
  std::uint64_t hops = 0;           ///< terminal: router-to-router hops of those packets
  double waited = 0;                ///< terminal: their queueing delays (ns), summed
  std::uint64_t messages = 0;       ///< process: messages received
  double latency = 0;               ///< process: their latencies (ns), summed
  double max_latency = 0;           ///< process: the largest
  double last_delivery = 0;         ///< process: when the last one arrived

  friend bool operator==(const lp_state&, const lp_state&) = default;
  template <class P>
  void pup(P& pp) {
    pp | next_free | sent | packets | hops | waited | messages | latency | max_latency | last_delivery;
  }
};

/// An event's payload. `saved` and `port` are written by the handler that
/// runs it (the state it overwrote, for its reverse handler).
struct message {
  enum class kind : std::uint8_t {
    generate,  ///< process to itself: time to send the next message
    inject,    ///< process to its terminal: a message to split into packets
    packet,    ///< terminal or router to router or terminal: one packet arrives
    deliver,   ///< terminal to process: the last packet of a message arrived
  };
  double created = 0;        ///< when the source process generated the message
  double waited = 0;         ///< packet: time spent queued so far (ns)
  double saved = 0;          ///< the next_free value the handler overwrote
  std::uint32_t source = 0;  ///< source process (= terminal) number
  std::uint32_t dest = 0;    ///< destination process (= terminal) number
  std::uint16_t packet = 0;  ///< packet: its index in the message
  std::uint16_t hops = 0;    ///< packet: router-to-router links crossed so far
  std::uint16_t port = 0;    ///< router: the output port the packet took
  kind what = kind::generate;
};

/// The printed statistics: one LP's part (summarize), merged over all LPs
/// in gid order by the engine (so the sums come out the same on any PE or
/// process count).
struct lp_totals {
  std::uint64_t sent = 0, packets = 0, hops = 0, messages = 0;
  double waited = 0, latency = 0, max_latency = 0, last_delivery = 0;
  template <class P>
  void pup(P& pp) {
    pp | sent | packets | hops | messages | waited | latency | max_latency | last_delivery;
  }
};

struct model {
  using state = lp_state;
  using message = dragonfly::message;
  using lp = pdes::lp<model>;

  topology topo;
  delays d;
  dragonfly::traffic pattern = traffic::uniform;
  std::uint64_t messages = 100;   ///< per process
  std::uint32_t packets = 4;      ///< per message
  double interval = 1000;         ///< mean of the exponential part of the gap between a process's sends (ns)
  std::uint64_t grid_rows = 1;    ///< transpose: processes as a grid_rows x (terminals / grid_rows) matrix

  /// The largest divisor of n not above sqrt(n): the transpose grid's rows.
  static std::uint64_t grid_rows_for(std::uint64_t n) noexcept {
    std::uint64_t best = 1;
    for (std::uint64_t r = 1; r * r <= n; ++r)
      if (n % r == 0) best = r;
    return best;
  }

  void init(state& s, lp& l) {
    switch (topo.kind_of(l.gid())) {
      case topology::kind::router: s.next_free.assign(topo.ports(), 0.0); break;
      case topology::kind::terminal: s.next_free.assign(1, 0.0); break;
      case topology::kind::process:
        if (messages > 0) {
          message m;
          m.what = message::kind::generate;
          m.source = static_cast<std::uint32_t>(topo.process_of(l.gid()));
          l.send(l.gid(), d.send_overhead + pdes::exponential(l.rng(), interval), m);
        }
        break;
    }
  }

  void event(state& s, pdes::bitfield& bf, message& m, lp& l) {
    switch (m.what) {
      case message::kind::generate: generate(s, bf, m, l); break;
      case message::kind::inject: inject(s, m, l); break;
      case message::kind::packet:
        if (topo.kind_of(l.gid()) == topology::kind::router) forward(s, m, l);
        else arrive(m, l);
        break;
      case message::kind::deliver: break;  // counted when committed
    }
  }

  void reverse(state& s, pdes::bitfield& bf, message& m, lp& l) {
    switch (m.what) {
      case message::kind::generate:
        --s.sent;
        if (bf.c0) pdes::reverse_unif(l.rng());
        if (bf.c1) pdes::reverse_unif(l.rng());
        break;
      case message::kind::inject: s.next_free[0] = m.saved; break;
      case message::kind::packet:
        if (topo.kind_of(l.gid()) == topology::kind::router) s.next_free[m.port] = m.saved;
        break;
      case message::kind::deliver: break;
    }
  }

  /// The statistics: only committed events count, in each LP's event order
  /// (so the sums come out the same under every scheduler).
  void commit(state& s, pdes::bitfield&, message& m, lp& l) {
    if (m.what == message::kind::packet && topo.kind_of(l.gid()) == topology::kind::terminal) {
      ++s.packets;
      s.hops += m.hops;
      s.waited += m.waited;
    } else if (m.what == message::kind::deliver) {
      const double latency = l.now() - m.created;
      ++s.messages;
      s.latency += latency;
      s.max_latency = std::max(s.max_latency, latency);
      s.last_delivery = l.now();
    }
  }

  void final(state&, lp&) {}

  using summary = lp_totals;
  summary summarize(const state& s, lp&) const {
    return {s.sent, s.packets, s.hops, s.messages, s.waited, s.latency, s.max_latency, s.last_delivery};
  }
  static void merge(summary& sum, const summary& t) {
    sum.sent += t.sent;
    sum.packets += t.packets;
    sum.hops += t.hops;
    sum.messages += t.messages;
    sum.waited += t.waited;
    sum.latency += t.latency;
    sum.max_latency = std::max(sum.max_latency, t.max_latency);
    sum.last_delivery = std::max(sum.last_delivery, t.last_delivery);
  }

  template <class P>
  void pup(P& pp) {
    pp | topo | d | pattern | messages | packets | interval | grid_rows;
  }

 private:
  /// Process: send the next message to its terminal, and schedule the one
  /// after (bf.c0: a destination was drawn, bf.c1: a gap was drawn).
  void generate(state& s, pdes::bitfield& bf, message& m, lp& l) {
    message out;
    out.what = message::kind::inject;
    out.source = m.source;
    out.dest = static_cast<std::uint32_t>(destination(m.source, bf, l));
    out.created = l.now();
    l.send(topo.terminal_gid(m.source), d.send_overhead, out);
    if (++s.sent < messages) {
      bf.c1 = 1;
      l.send(l.gid(), d.send_overhead + pdes::exponential(l.rng(), interval), m);
    }
  }

  /// The traffic pattern's destination for process `q` (one draw, flagged in
  /// bf.c0, for the random ones).
  std::uint64_t destination(std::uint64_t q, pdes::bitfield& bf, lp& l) const {
    const std::uint64_t n = topo.terminals();
    switch (pattern) {
      case traffic::uniform: {
        if (n == 1) return q;
        bf.c0 = 1;
        const auto x = static_cast<std::uint64_t>(pdes::integer(l.rng(), 0, static_cast<long>(n) - 2));
        return x >= q ? x + 1 : x;  // any process but q
      }
      case traffic::transpose: {
        // q is (row, col) of a grid_rows x cols matrix; its transpose holds it at (col, row).
        const std::uint64_t cols = n / grid_rows;
        return (q % cols) * grid_rows + q / cols;
      }
      case traffic::neighbor: {
        // The other p-1 processes on q's router and the p on the next router of its group.
        const std::uint64_t p = topo.p, router = q / p, mine = q % p;
        const std::uint64_t next_router = router - router % topo.a + (router % topo.a + 1) % topo.a;
        const std::uint64_t choices = (p - 1) + (topo.a > 1 ? p : 0);
        if (choices == 0) return q;
        bf.c0 = 1;
        const auto x = static_cast<std::uint64_t>(pdes::integer(l.rng(), 0, static_cast<long>(choices) - 1));
        if (x < p - 1) return router * p + (x >= mine ? x + 1 : x);
        return next_router * p + (x - (p - 1));
      }
    }
    return q;
  }

  /// Terminal: split a message into packets and send them back to back on
  /// the link to its router, after whatever it is still sending.
  void inject(state& s, message& m, lp& l) {
    const double start = std::max(l.now(), s.next_free[0]);
    m.saved = s.next_free[0];
    message out = m;
    out.what = message::kind::packet;
    out.hops = 0;
    const pdes::lp_id router = topo.router_gid(m.source / topo.p);
    for (std::uint32_t k = 0; k < packets; ++k) {
      const double leaves = start + k * d.terminal.serialization;
      out.packet = static_cast<std::uint16_t>(k);
      out.waited = leaves - l.now();
      l.send(router, leaves + d.terminal.serialization + d.terminal.latency - l.now(), out);
    }
    s.next_free[0] = start + packets * d.terminal.serialization;
  }

  /// Terminal: a packet arrived; the last one of its message completes it
  /// (packets of a message take the same path through FIFO ports, so they
  /// arrive in order).
  void arrive(const message& m, lp& l) {
    if (m.packet + 1u < packets) return;
    message out = m;
    out.what = message::kind::deliver;
    l.send(topo.process_gid(m.dest), d.receive_overhead, out);
  }

  struct hop {
    std::uint32_t port;
    pdes::lp_id next;
    const link* over;
  };

  /// Minimal routing from router `r` towards terminal `t`: to the terminal
  /// if it is here; within the destination group, straight to its router;
  /// else to the router of this group that has the global channel to the
  /// destination group, and over that channel.
  hop route(std::uint64_t r, std::uint64_t t) const {
    const std::uint64_t a = topo.a, dest_router = t / topo.p;
    if (r == dest_router)
      return {topo.first_terminal_port() + static_cast<std::uint32_t>(t % topo.p), topo.terminal_gid(t), &d.terminal};
    const std::uint64_t group = r / a, dest_group = dest_router / a;
    if (group == dest_group)
      return {topology::local_port(r % a, dest_router % a), topo.router_gid(dest_router), &d.local};
    const std::uint64_t channel = topology::channel_to(group, dest_group);
    const std::uint64_t owner = channel / topo.h;
    if (owner != r % a) return {topology::local_port(r % a, owner), topo.router_gid(group * a + owner), &d.local};
    const std::uint64_t back = topology::channel_to(dest_group, group);  // the same link seen from the other end
    return {topo.first_global_port() + static_cast<std::uint32_t>(channel % topo.h),
            topo.router_gid(dest_group * a + back / topo.h), &d.global};
  }

  /// Router: send the packet on along its route, once the router delay has
  /// passed and the output port has sent what it already holds (output
  /// queueing, unbounded buffers).
  void forward(state& s, message& m, lp& l) {
    const hop next = route(topo.router_of(l.gid()), m.dest);
    double& free_at = s.next_free[next.port];
    const double leaves = std::max(l.now() + d.router, free_at);
    m.saved = free_at;
    m.port = static_cast<std::uint16_t>(next.port);
    free_at = leaves + next.over->serialization;
    message out = m;
    out.waited += leaves - (l.now() + d.router);
    if (next.over != &d.terminal) ++out.hops;
    l.send(next.next, leaves + next.over->serialization + next.over->latency - l.now(), out);
  }
};

}  // namespace dragonfly
