// report.hpp
#include "report.hpp"

#include <algorithm>
#include <bit>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

namespace roam_trace {

namespace {

constexpr int time_bins = 100;
constexpr std::size_t stacked_entries = 8;  // the rest is "other"
constexpr std::size_t per_pe_charts = 16;

std::string chart_js() {
  std::ifstream f(ROAM_CHARTJS, std::ios::binary);
  if (!f)
    throw trace_error(std::string("cannot read Chart.js at ") + ROAM_CHARTJS +
                      " (install libjs-chart.js): the report inlines it to stay self-contained");
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Text placed inside <script>: no "</" may end the element early.
std::string script_safe(std::string s) {
  for (std::size_t at = 0; (at = s.find("</", at)) != std::string::npos; at += 3) s.replace(at, 2, "<\\/");
  return s;
}

std::string html_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

nlohmann::json report_data(const trace_run& run, const analysis& a) {
  using nlohmann::json;
  json d;
  const std::vector<entry_total> totals = entry_totals(run, a);
  // Utilization over time, stacked by the entry methods with most time.
  std::map<std::string, std::size_t> series;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < totals.size() && i < stacked_entries; ++i) {
    series[totals[i].name] = i;
    labels.push_back(totals[i].name);
  }
  const std::size_t other = labels.size();
  if (totals.size() > stacked_entries) labels.push_back("other");
  const std::int64_t bin = std::max<std::int64_t>(1, run.end_ns / time_bins + 1);
  std::vector<std::vector<std::vector<double>>> per_pe(
      run.pe.size(), std::vector<std::vector<double>>(labels.size(), std::vector<double>(time_bins, 0)));
  for (std::size_t p = 0; p < run.pe.size(); ++p)
    for (const slice& s : a.pe[p].slices) {
      if (s.depth) continue;
      auto it = series.find(run.entry_name(run.pe[p].events[s.event].r.b));
      const std::size_t k = it != series.end() ? it->second : other;
      if (k >= labels.size()) continue;
      for (std::int64_t t = s.begin; t < s.end;) {
        const std::int64_t b = std::min<std::int64_t>(t / bin, time_bins - 1), upto = std::min(s.end, (b + 1) * bin);
        per_pe[p][k][static_cast<std::size_t>(b)] += 100.0 * static_cast<double>(upto - t) / static_cast<double>(bin);
        t = upto > t ? upto : s.end;
      }
    }
  json times = json::array();
  for (int b = 0; b < time_bins; ++b) times.push_back(static_cast<double>(b * bin) / 1e6);
  d["time_ms"] = times;
  d["series"] = labels;
  json all = json::array(), pes = json::array();
  for (std::size_t k = 0; k < labels.size(); ++k) {
    std::vector<double> avg(time_bins, 0);
    for (std::size_t p = 0; p < run.pe.size(); ++p)
      for (int b = 0; b < time_bins; ++b) avg[static_cast<std::size_t>(b)] += per_pe[p][k][static_cast<std::size_t>(b)] / static_cast<double>(run.pe.size());
    all.push_back(avg);
  }
  d["utilization_all"] = all;
  for (std::size_t p = 0; p < run.pe.size() && p < per_pe_charts; ++p) pes.push_back(per_pe[p]);
  d["utilization_pe"] = pes;
  // Top entry methods.
  json top_time = json::array(), top_count = json::array();
  for (std::size_t i = 0; i < totals.size() && i < 15; ++i)
    top_time.push_back({{"name", totals[i].name}, {"ms", static_cast<double>(totals[i].total_ns) / 1e6},
                        {"count", totals[i].count}, {"max_us", static_cast<double>(totals[i].max_ns) / 1e3}});
  std::vector<entry_total> by_count = totals;
  std::sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) { return x.count > y.count; });
  for (std::size_t i = 0; i < by_count.size() && i < 15; ++i)
    top_count.push_back({{"name", by_count[i].name}, {"count", by_count[i].count}});
  d["top_time"] = top_time;
  d["top_count"] = top_count;
  // Busy, idle, other per PE.
  json share = json::array();
  for (std::size_t p = 0; p < a.pe.size(); ++p) {
    const pe_analysis& pa = a.pe[p];
    const double span = std::max<double>(1, static_cast<double>(pa.last_ns - pa.first_ns));
    const double busy = 100.0 * static_cast<double>(pa.busy_ns) / span, idle = 100.0 * static_cast<double>(pa.idle_ns) / span;
    share.push_back({{"busy", busy}, {"idle", idle}, {"other", std::max(0.0, 100.0 - busy - idle)}});
  }
  d["share"] = share;
  // Message sizes (sends) in powers of two, and the PE-by-PE matrix.
  std::map<int, std::uint64_t> sizes;
  std::vector<std::vector<std::uint64_t>> matrix(run.pe.size(), std::vector<std::uint64_t>(run.pe.size(), 0));
  std::vector<std::vector<std::uint64_t>> matrix_bytes = matrix;
  for (std::size_t p = 0; p < run.pe.size(); ++p)
    for (const event& e : run.pe[p].events)
      if (e.r.type == record_type::send) sizes[std::bit_width(e.r.b & 0xffffffffu)]++;
  for (const flow_link& f : a.flows) {
    ++matrix[f.src_pe][f.dst_pe];
    matrix_bytes[f.src_pe][f.dst_pe] += run.pe[f.dst_pe].events[f.receive].r.b & 0xffffffffu;
  }
  json size_labels = json::array(), size_counts = json::array();
  for (const auto& [w, n] : sizes) {
    size_labels.push_back(w == 0 ? std::string("0 B") : "<" + std::to_string(std::uint64_t{1} << w) + " B");
    size_counts.push_back(n);
  }
  d["size_labels"] = size_labels;
  d["size_counts"] = size_counts;
  d["matrix"] = matrix;
  d["matrix_bytes"] = matrix_bytes;
  // Longest waits: from a send to the start of the entry it caused.
  std::vector<const flow_link*> waits;
  for (const flow_link& f : a.flows)
    if (f.started_ns >= 0) waits.push_back(&f);
  const std::size_t n = std::min<std::size_t>(20, waits.size());
  std::partial_sort(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(n), waits.end(), [](auto* x, auto* y) {
    return x->started_ns - x->sent_ns > y->started_ns - y->sent_ns;
  });
  json longest = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const flow_link& f = *waits[i];
    const auto& dev = run.pe[f.dst_pe].events;
    std::size_t begin = f.receive;
    while (begin < dev.size() && dev[begin].r.type != record_type::entry_begin) ++begin;
    longest.push_back({{"wait_us", static_cast<double>(f.started_ns - f.sent_ns) / 1e3},
                       {"sent_ms", static_cast<double>(f.sent_ns) / 1e6},
                       {"from_pe", f.src_pe},
                       {"to_pe", f.dst_pe},
                       {"entry", run.entry_name(run.pe[f.src_pe].events[f.send].r.c)},
                       {"object", begin < dev.size() ? run.object_name(dev[begin]) : std::string()}});
  }
  d["longest_waits"] = longest;
  return d;
}

const char* page_script = R"JS(
const D = JSON.parse(document.getElementById('roam-data').textContent);
const palette = ['#4e79a7','#f28e2b','#e15759','#76b7b2','#59a14f','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
function stacked(id, series) {
  new Chart(document.getElementById(id), {type: 'bar',
    data: {labels: D.time_ms.map(t => t.toFixed(2)), datasets: series.map((v, k) => ({label: D.series[k], data: v,
      backgroundColor: palette[k % palette.length], barPercentage: 1.0, categoryPercentage: 1.0}))},
    options: {animation: false, scales: {x: {stacked: true, title: {display: true, text: 'time (ms)'}},
      y: {stacked: true, min: 0, max: 100, title: {display: true, text: 'utilization %'}}}}});
}
function bars(id, labels, values, label, color) {
  new Chart(document.getElementById(id), {type: 'bar', data: {labels: labels, datasets: [{label: label, data: values,
    backgroundColor: color}]}, options: {animation: false, indexAxis: 'y'}});
}
stacked('util-all', D.utilization_all);
D.utilization_pe.forEach((s, p) => {
  const box = document.createElement('div');
  box.className = 'chart';
  box.innerHTML = '<h3>PE ' + p + '</h3><canvas id="util-pe-' + p + '"></canvas>';
  document.getElementById('per-pe').appendChild(box);
  stacked('util-pe-' + p, s);
});
bars('top-time', D.top_time.map(e => e.name), D.top_time.map(e => e.ms), 'total ms', '#4e79a7');
bars('top-count', D.top_count.map(e => e.name), D.top_count.map(e => e.count), 'invocations', '#f28e2b');
new Chart(document.getElementById('share'), {type: 'bar', data: {labels: D.share.map((_, p) => 'PE ' + p),
  datasets: [['busy', '#59a14f'], ['idle', '#bab0ac'], ['other', '#e15759']].map(([k, c]) => ({label: k,
    data: D.share.map(s => s[k]), backgroundColor: c}))},
  options: {animation: false, indexAxis: 'y', scales: {x: {stacked: true, max: 100}, y: {stacked: true}}}});
bars('sizes', D.size_labels, D.size_counts, 'messages sent', '#76b7b2');
const m = document.getElementById('matrix');
const most = Math.max(1, ...D.matrix.flat());
let html = '<tr><th>from \\ to</th>' + D.matrix.map((_, j) => '<th>PE ' + j + '</th>').join('') + '</tr>';
D.matrix.forEach((row, i) => {
  html += '<tr><th>PE ' + i + '</th>' + row.map((v, j) => {
    const a = v / most;
    return '<td title="' + D.matrix_bytes[i][j] + ' bytes" style="background: rgba(225,87,89,' + a.toFixed(3) +
      ');color:' + (a > 0.6 ? '#fff' : '#000') + '">' + v + '</td>';
  }).join('') + '</tr>';
});
m.innerHTML = html;
const w = document.getElementById('waits');
w.innerHTML = '<tr><th>wait (us)</th><th>sent at (ms)</th><th>from</th><th>to</th><th>entry</th><th>object</th></tr>' +
  D.longest_waits.map(r => '<tr><td>' + r.wait_us.toFixed(1) + '</td><td>' + r.sent_ms.toFixed(3) + '</td><td>PE ' +
    r.from_pe + '</td><td>PE ' + r.to_pe + '</td><td>' + r.entry.replace(/</g, '&lt;') + '</td><td>' +
    r.object.replace(/</g, '&lt;') + '</td></tr>').join('');
document.body.dataset.ready = '1';
)JS";

}  // namespace

std::string report_html(const trace_run& run, const analysis& a) {
  const std::string js = chart_js();
  std::string command;
  for (const auto& c : run.command_line) command += (command.empty() ? "" : " ") + c;
  char when[64] = "?";
  const std::time_t t = static_cast<std::time_t>(run.start_unix_ns / 1'000'000'000);
  if (std::tm tm{}; gmtime_r(&t, &tm)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>roam trace: " +
       html_escaped(run.program) + "</title>\n<style>\n"
       "body{font-family:sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
       ".chart{max-width:1000px}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:1em}"
       "table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right}"
       "dt{font-weight:bold;float:left;width:9em}dd{margin-left:10em}\n</style></head><body>\n";
  h += "<h1>roam trace: " + html_escaped(run.program) + "</h1>\n<dl>";
  h += "<dt>command</dt><dd><code>" + html_escaped(command) + "</code></dd>";
  h += "<dt>PEs</dt><dd>" + std::to_string(run.pes) + " in " + std::to_string(run.nodes) + " process(es), transport " +
       html_escaped(run.transport) + "</dd>";
  h += "<dt>started</dt><dd>" + std::string(when) + "</dd>";
  char dur[64];
  std::snprintf(dur, sizeof dur, "%.3f ms", static_cast<double>(run.end_ns) / 1e6);
  h += "<dt>traced</dt><dd>" + std::string(dur) + ", " + std::to_string(a.flows.size()) + " messages linked to their entries</dd></dl>\n";
  h += "<h2>Utilization over time, all PEs, by entry method</h2><div class=\"chart\"><canvas id=\"util-all\"></canvas></div>\n";
  h += "<h2>Utilization over time per PE</h2><div class=\"grid\" id=\"per-pe\"></div>\n";
  h += "<div class=\"grid\"><div><h2>Entry methods by total time</h2><canvas id=\"top-time\"></canvas></div>"
       "<div><h2>Entry methods by invocations</h2><canvas id=\"top-count\"></canvas></div></div>\n";
  h += "<div class=\"grid\"><div><h2>Busy, idle and runtime overhead per PE (%)</h2><canvas id=\"share\"></canvas></div>"
       "<div><h2>Message sizes</h2><canvas id=\"sizes\"></canvas></div></div>\n";
  h += "<h2>Messages from PE to PE</h2><table id=\"matrix\"></table>\n";
  h += "<h2>Longest waits: from a send to the start of the entry it caused</h2><table id=\"waits\"></table>\n";
  h += "<script id=\"roam-data\" type=\"application/json\">" + script_safe(report_data(run, a).dump()) + "</script>\n";
  h += "<script>" + script_safe(js) + "</script>\n<script>" + page_script + "</script>\n</body></html>\n";
  return h;
}

}  // namespace roam_trace
