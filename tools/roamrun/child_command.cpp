#include "child_command.hpp"

#include "tcp/tcp_config.hpp"

namespace roam::detail::roamrun {

namespace tcp = roam::detail::tcp;

namespace {
std::vector<std::pair<std::string, std::string>> contract(const job_info& job, std::uint32_t node) {
  std::vector<std::pair<std::string, std::string>> env{{"ROAM_TRANSPORT", "tcp"},
                                                       {tcp::env_node, std::to_string(node)},
                                                       {tcp::env_nodes, std::to_string(job.nodes)},
                                                       {tcp::env_launcher, job.launcher_address}};
  if (job.spares) env.emplace_back("ROAM_SPARES", std::to_string(job.spares));
  return env;
}
}  // namespace

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

child_command local_command(const options& o, const job_info& job, std::uint32_t node) {
  child_command c;
  c.argv.push_back(o.program);
  c.argv.insert(c.argv.end(), o.program_args.begin(), o.program_args.end());
  c.env = contract(job, node);
  c.env.emplace_back(tcp::env_secret, job.secret_hex);
  return c;
}

child_command ssh_command(const options& o, const job_info& job, std::uint32_t node, const std::string& host,
                          const std::vector<std::string>& ssh,
                          const std::vector<std::pair<std::string, std::string>>& forwarded) {
  std::string remote = "cd " + shell_quote(job.cwd) + " && IFS= read -r " + tcp::env_secret + " && export " +
                       tcp::env_secret + " && exec env";
  for (const auto& [k, v] : forwarded) remote += " " + shell_quote(k + "=" + v);
  for (const auto& [k, v] : contract(job, node)) remote += " " + shell_quote(k + "=" + v);
  // The node's host as named in --hosts: the runtime keeps in-memory
  // checkpoint copies on other hosts (a name, not a lookup: aliases of one
  // machine would count as several hosts).
  remote += " " + shell_quote("ROAM_HOST=" + host);
  remote += " " + shell_quote(o.program);
  for (const auto& a : o.program_args) remote += " " + shell_quote(a);

  child_command c;
  c.argv = ssh;
  c.argv.push_back(host);
  c.argv.push_back(remote);
  c.stdin_text = job.secret_hex + "\n";
  return c;
}

}  // namespace roam::detail::roamrun
