#include "report/report.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace simgrad::report {

namespace {

using nlohmann::json;

// Four significant digits are plenty for drawing and keep large bodies' frames small.
void round_for_drawing(json& value) {
  if (value.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value.get<double>());
    value = std::strtod(text, nullptr);
  } else if (value.is_structured()) {
    for (json& item : value) round_for_drawing(item);
  }
}

// JSON that may sit inside a <script> element: "</" would end the element early.
std::string script_json(json value) {
  round_for_drawing(value);
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += "<\\";
    else out += text[i];
  }
  return out;
}

// A number for the table: short, and "-" where it is not finite (an unbounded side).
std::string number(double v) {
  if (!std::isfinite(v)) return v > 0 ? "&infin;" : v < 0 ? "&minus;&infin;" : "-";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// A chart from a Scenario::frames() "charts" entry: {title, x_label, y_label, series: [{name, x, y}]}.
std::string chart_from_json(const json& c) {
  LineChart chart;
  chart.title = c.value("title", "");
  chart.x_label = c.value("x_label", "");
  chart.y_label = c.value("y_label", "");
  for (const json& s : c.value("series", json::array())) {
    PlotSeries series{s.value("name", ""), {}, {}};
    for (const json& v : s.value("x", json::array())) series.x.push_back(v.is_number() ? v.get<double>() : NAN);
    for (const json& v : s.value("y", json::array())) series.y.push_back(v.is_number() ? v.get<double>() : NAN);
    chart.series.push_back(std::move(series));
  }
  return render_svg(chart);
}

// The animation: both runs side by side on one canvas, stepped by a timer. The page marks
// data-script="ok" on <body> once the script ran, and data-error on any error, so that a
// headless browser's DOM dump tells whether it rendered cleanly; data-frame on the canvas counts
// the frames drawn.
constexpr const char* kScript = R"JS(
(function () {
  function flag(message) { document.body.setAttribute('data-error', String(message)); }
  window.onerror = function (message) { flag(message); };
  var consoleError = console.error;
  console.error = function () { flag(Array.prototype.join.call(arguments, ' ')); consoleError.apply(console, arguments); };
  var data = JSON.parse(document.getElementById('frames').textContent);
  var canvas = document.getElementById('animation');
  if (canvas && data.before && data.after) {
    var ctx = canvas.getContext('2d');
    var runs = [data.before, data.after], titles = ['before tuning', 'after tuning'];
    var box = [Infinity, Infinity, -Infinity, -Infinity];
    function grow(x, y) { box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y); }
    var longest = 1;
    runs.forEach(function (run) {
      var cmax = 1e-12;
      run.frames.concat(run.background ? [run.background] : []).forEach(function (f) {
        (f.lines || []).forEach(function (l) { grow(l[0], l[1]); grow(l[2], l[3]); cmax = Math.max(cmax, Math.abs(l[4] || 0)); });
        (f.points || []).forEach(function (p) { grow(p[0], p[1]); });
        (f.values || []).forEach(function (v) { cmax = Math.max(cmax, Math.abs(v)); });
        (f.arrows || []).forEach(function (a) { grow(a[0], a[1]); grow(a[0] + a[2], a[1] + a[3]); });
        if (f.field) { grow(f.field.box[0], f.field.box[1]); grow(f.field.box[2], f.field.box[3]); }
      });
      run.cmax = run.scale || cmax;
      longest = Math.max(longest, run.frames.length);
    });
    if (!(box[2] > box[0])) { box[0] -= 1; box[2] += 1; }
    if (!(box[3] > box[1])) { box[1] -= 1; box[3] += 1; }
    var half = canvas.width / 2, pad = 30;
    var scale = Math.min((half - 2 * pad) / (box[2] - box[0]), (canvas.height - 2 * pad) / (box[3] - box[1]));
    function colour(c, cmax) {
      var s = Math.max(-1, Math.min(1, (c || 0) / cmax));
      var r = s > 0 ? 120 + 135 * s : 120 * (1 + s), b = s < 0 ? 120 - 135 * s : 120 * (1 - s);
      return 'rgb(' + Math.round(r) + ',' + Math.round(120 * (1 - Math.abs(s))) + ',' + Math.round(b) + ')';
    }
    // raster.cpp's sequential_colour: viridis through five stops.
    var stops = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
    function sequential(t) {
      var u = t * 4, k = Math.min(3, Math.floor(u)), f = u - k;
      return 'rgb(' + stops[k].map(function (c, i) { return Math.round(c + f * (stops[k + 1][i] - c)); }).join(',') + ')';
    }
    var frame = 0;
    function draw() {
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      runs.forEach(function (run, r) {
        var index = Math.min(frame % longest, run.frames.length - 1), f = run.frames[index];
        if (!f) return;
        function X(x) { return r * half + pad + (x - box[0]) * scale; }
        function Y(y) { return canvas.height - pad - (y - box[1]) * scale; }
        function lines(list) {
          (list || []).forEach(function (l) {
            ctx.strokeStyle = colour(l[4], run.cmax);
            ctx.beginPath(); ctx.moveTo(X(l[0]), Y(l[1])); ctx.lineTo(X(l[2]), Y(l[3])); ctx.stroke();
          });
        }
        if (f.field) {
          var fd = f.field, lo = fd.lo, hi = fd.hi;
          if (lo === undefined || hi === undefined) {
            lo = Infinity; hi = -Infinity;  // a loop: a large grid is too many arguments for Math.min
            fd.values.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); });
          }
          var cw = (fd.box[2] - fd.box[0]) / fd.nx, ch = (fd.box[3] - fd.box[1]) / fd.ny;
          for (var j = 0; j < fd.ny; ++j) for (var i = 0; i < fd.nx; ++i) {
            var t = Math.max(0, Math.min(1, (fd.values[j * fd.nx + i] - lo) / (hi > lo ? hi - lo : 1)));
            ctx.fillStyle = sequential(t);
            var x0 = X(fd.box[0] + i * cw), y0 = Y(fd.box[1] + (j + 1) * ch);
            ctx.fillRect(x0, y0, X(fd.box[0] + (i + 1) * cw) - x0 + 0.5, Y(fd.box[1] + j * ch) - y0 + 0.5);
          }
        }
        ctx.lineWidth = 1;
        if (run.background) lines(run.background.lines);
        ctx.lineWidth = 2;
        if (run.trail) {
          ctx.strokeStyle = colour(1, 1);
          (f.points || []).forEach(function (p, k) {
            ctx.beginPath(); ctx.moveTo(X(run.frames[0].points[k][0]), Y(run.frames[0].points[k][1]));
            for (var i = 1; i <= index; ++i) ctx.lineTo(X(run.frames[i].points[k][0]), Y(run.frames[i].points[k][1]));
            ctx.stroke();
          });
        }
        lines(f.lines);
        (run.edges || []).forEach(function (ab, k) {
          var a = f.points[ab[0]], b = f.points[ab[1]];
          ctx.strokeStyle = colour(f.values[k], run.cmax);
          ctx.beginPath(); ctx.moveTo(X(a[0]), Y(a[1])); ctx.lineTo(X(b[0]), Y(b[1])); ctx.stroke();
        });
        (f.points || []).forEach(function (p, k) {
          ctx.fillStyle = (run.palette && f.classes && run.palette[f.classes[k]]) || '#222';
          ctx.beginPath(); ctx.arc(X(p[0]), Y(p[1]), 3, 0, 2 * Math.PI); ctx.fill();
        });
        ctx.strokeStyle = '#0a0'; ctx.fillStyle = '#0a0';
        (f.arrows || []).forEach(function (a) {
          var x0 = X(a[0]), y0 = Y(a[1]), x1 = X(a[0] + a[2]), y1 = Y(a[1] + a[3]);
          var ang = Math.atan2(y1 - y0, x1 - x0);
          ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
          ctx.beginPath(); ctx.moveTo(x1, y1);
          ctx.lineTo(x1 - 8 * Math.cos(ang - 0.4), y1 - 8 * Math.sin(ang - 0.4));
          ctx.lineTo(x1 - 8 * Math.cos(ang + 0.4), y1 - 8 * Math.sin(ang + 0.4));
          ctx.fill();
        });
        ctx.fillStyle = '#000'; ctx.font = '14px sans-serif';
        ctx.fillText(titles[r] + (f.label ? '  ' + f.label : ''), r * half + 8, 18);
      });
      ctx.strokeStyle = '#ccc'; ctx.beginPath(); ctx.moveTo(half, 0); ctx.lineTo(half, canvas.height); ctx.stroke();
      canvas.setAttribute('data-frame', String(frame));
    }
    draw();
    setInterval(function () { frame++; draw(); }, 50);
  }
  document.body.setAttribute('data-script', 'ok');
})();
)JS";

constexpr const char* kStyle = R"CSS(
body { font-family: sans-serif; margin: 2em; max-width: 1000px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } td:first-child { text-align: left; }
canvas { border: 1px solid #ccc; }
pre { background: #f8f8f8; padding: 0.5em; overflow-x: auto; }
.figure { margin: 1em 0; }
)CSS";

}  // namespace

nlohmann::json report_to_json(const ReportInput& in) {
  json losses = json::array(), parameters = json::array();
  for (const PlotSeries& s : in.losses) losses.push_back({{"name", s.name}, {"x", s.x}, {"y", s.y}});
  for (const ReportParameter& p : in.parameters)
    parameters.push_back({{"name", p.name}, {"unit", p.unit}, {"initial", p.initial}, {"tuned", p.tuned},
                          {"lower", p.lower}, {"upper", p.upper}, {"gradient", p.gradient}});
  return {{"version", in.version}, {"title", in.title}, {"simulator", in.simulator}, {"description", in.description}, {"losses", losses},
          {"parameters", parameters}, {"initial_loss", in.initial_loss}, {"relaxed_loss", in.relaxed_loss},
          {"hard_loss", in.hard_loss}, {"adjoint_norms", in.adjoint_norms}, {"before", in.before},
          {"after", in.after}, {"extra", in.extra}};
}

ReportInput report_from_json(const nlohmann::json& j) {
  // Non-finite numbers were saved as null.
  auto number = [](const json& v) { return v.is_number() ? v.get<double>() : NAN; };
  // A bound saved as null was unbounded on that side.
  auto bound = [](const json& v, double side) { return v.is_number() ? v.get<double>() : side * INFINITY; };
  auto numbers = [&](const json& list) {
    std::vector<double> out;
    for (const json& v : list) out.push_back(number(v));
    return out;
  };
  try {
    ReportInput in;
    in.version = j.value("version", "before 0.1.0");
    in.title = j.at("title").get<std::string>();
    in.simulator = j.at("simulator").get<std::string>();
    in.description = j.at("description").get<std::string>();
    for (const json& s : j.at("losses")) in.losses.push_back({s.at("name").get<std::string>(), numbers(s.at("x")), numbers(s.at("y"))});
    for (const json& p : j.at("parameters"))
      in.parameters.push_back({p.at("name").get<std::string>(), p.at("unit").get<std::string>(), number(p.at("initial")),
                               number(p.at("tuned")), bound(p.at("lower"), -1.0), bound(p.at("upper"), 1.0),
                               number(p.at("gradient"))});
    in.initial_loss = number(j.at("initial_loss"));
    in.relaxed_loss = number(j.at("relaxed_loss"));
    in.hard_loss = number(j.at("hard_loss"));
    in.adjoint_norms = numbers(j.at("adjoint_norms"));
    in.before = j.at("before");
    in.after = j.at("after");
    in.extra = j.at("extra");
    return in;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("report.json: ") + e.what());
  }
}

std::string render_report(const ReportInput& in) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << xml_escape(in.title, false)
    << "</title><style>" << kStyle << "</style></head>\n<body data-script=\"pending\">\n";
  h << "<h1>" << xml_escape(in.title, false) << "</h1>\n<p>simulator: <b>" << xml_escape(in.simulator, false) << "</b>. "
    << xml_escape(in.description, false) << "</p>\n<p class=\"version\">made by simgrad " << xml_escape(in.version, false) << "</p>\n";

  h << "<h2>Loss</h2>\n<table id=\"scores\"><tr><th>score</th><th>loss</th></tr>"
    << "<tr><td>initial</td><td>" << number(in.initial_loss) << "</td></tr>"
    << "<tr><td>tuned, relaxed model (as tuned)</td><td>" << number(in.relaxed_loss) << "</td></tr>"
    << "<tr><td>tuned, hard model (relaxations at their hard twins)</td><td>" << number(in.hard_loss)
    << "</td></tr></table>\n";
  LineChart losses;
  losses.title = "best loss against rollouts";
  losses.x_label = "rollouts";
  losses.y_label = "best loss";
  losses.y_scale = AxisScale::log10;
  losses.series = in.losses;
  h << "<div class=\"figure\" id=\"loss-plot\">" << render_svg(losses) << "</div>\n";

  h << "<h2>Parameters</h2>\n<table id=\"parameters\"><tr><th>parameter</th><th>unit</th><th>initial</th>"
       "<th>tuned</th><th>lower</th><th>upper</th><th>gradient at the end</th></tr>\n";
  for (const ReportParameter& p : in.parameters)
    h << "<tr><td>" << xml_escape(p.name, false) << "</td><td>" << xml_escape(p.unit, false) << "</td><td>" << number(p.initial)
      << "</td><td>" << number(p.tuned) << "</td><td>" << number(p.lower) << "</td><td>" << number(p.upper)
      << "</td><td>" << number(p.gradient) << "</td></tr>\n";
  h << "</table>\n";

  h << "<h2>Adjoint norms</h2>\n";
  if (in.adjoint_norms.empty()) {
    h << "<p>Not a rollout: no per-step adjoints.</p>\n";
  } else {
    LineChart norms;
    norms.title = "||dL/ds_t|| per step at the tuned values (growth or decay shows exploding or vanishing gradients)";
    norms.x_label = "step t";
    norms.y_label = "adjoint norm";
    norms.y_scale = AxisScale::log10;
    PlotSeries s{"adjoint norm", {}, in.adjoint_norms};
    for (std::size_t t = 0; t < in.adjoint_norms.size(); ++t) s.x.push_back(static_cast<double>(t));
    norms.series.push_back(std::move(s));
    h << "<div class=\"figure\" id=\"adjoint-plot\">" << render_svg(norms) << "</div>\n";
  }

  h << "<h2>The simulation before and after tuning</h2>\n";
  const bool animated = in.before.is_object() && in.after.is_object();
  if (animated) {
    h << "<p>" << xml_escape(in.after.value("legend", ""), false) << "</p>\n"
      << "<canvas id=\"animation\" width=\"960\" height=\"420\" data-frame=\"0\"></canvas>\n";
    for (const auto& [run, frames] : {std::pair{"before tuning: ", &in.before}, std::pair{"after tuning: ", &in.after}})
      for (json c : frames->value("charts", json::array())) {
        c["title"] = run + c.value("title", "");
        h << "<div class=\"figure chart\">" << chart_from_json(c) << "</div>\n";
      }
  } else {
    h << "<p>The " << xml_escape(in.simulator, false) << " simulator draws no animation.</p>\n";
  }
  if (!in.extra.is_null())
    h << "<h2>Details</h2>\n<pre>" << xml_escape(in.extra.dump(2, ' ', false, json::error_handler_t::replace), false)
      << "</pre>\n";

  json frames = {{"before", animated ? in.before : json()}, {"after", animated ? in.after : json()}};
  h << "<script type=\"application/json\" id=\"frames\">" << script_json(frames) << "</script>\n";
  h << "<script>" << kScript << "</script>\n</body></html>\n";
  return h.str();
}

}  // namespace simgrad::report
