#include "tune/sweep.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/csv.hpp"
#include "core/diagnostics.hpp"
#include "tune/batch.hpp"

namespace simgrad::tune {
namespace {

constexpr std::size_t kMostPoints = 10'000'000;  // a table beyond this is a mistyped count

// The component called `name`, or an error that says what the names are.
std::size_t component_named(const ParameterSpace& space, std::string_view name, std::string_view context) {
  for (std::size_t c = 0; c < space.size(); ++c) {
    if (space.component_name(c) == name) return c;
  }
  for (const Parameter& p : space.parameters()) {
    if (p.name == name) {
      throw std::invalid_argument(std::string(context) + ": '" + std::string(name) + "' has " +
                                  std::to_string(p.initial.size()) + " components; name one, as " +
                                  std::string(name) + "[0]");
    }
  }
  std::string known;
  for (const Parameter& p : space.parameters()) known += (known.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument(std::string(context) + ": no tuned parameter '" + std::string(name) +
                              "' (the scenario tunes: " + known + ")");
}

// A number of the spec, or an error naming the spec.
double number_in(std::string_view field, std::string_view spec) {
  const auto value = parse_number(field);
  if (!value) throw std::invalid_argument("--param " + std::string(spec) + ": '" + std::string(field) + "' is not a number");
  return *value;
}

// Throws unless `value` lies in the component's bounds.
void check_in_bounds(const ParameterSpace& space, std::size_t component, double value, std::string_view context) {
  const double lower = space.physical_lower()[component], upper = space.physical_upper()[component];
  if (value < lower || value > upper) {
    char text[160];
    std::snprintf(text, sizeof text, ": %s = %.17g is outside its bounds [%.17g, %.17g]",
                  space.component_name(component).c_str(), value, lower, upper);
    throw std::invalid_argument(std::string(context) + text);
  }
}

// Prints a number so that reading it back gives the same double.
std::string exact(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

SweepAxis parse_sweep_axis(const ParameterSpace& space, std::string_view spec) {
  const std::size_t equals = spec.find('=');
  if (equals == std::string_view::npos) {
    throw std::invalid_argument("--param " + std::string(spec) + ": expected NAME=LOW:HIGH:COUNT or NAME=V1,V2,...");
  }
  const std::string context = "--param " + std::string(spec);
  SweepAxis axis;
  axis.component = component_named(space, spec.substr(0, equals), context);
  axis.name = space.component_name(axis.component);
  const std::string_view values = spec.substr(equals + 1);
  if (values.find(':') != std::string_view::npos) {
    const std::size_t first = values.find(':'), second = values.find(':', first + 1);
    if (second == std::string_view::npos) throw std::invalid_argument(context + ": expected LOW:HIGH:COUNT");
    const double low = number_in(values.substr(0, first), spec);
    const double high = number_in(values.substr(first + 1, second - first - 1), spec);
    const auto count = parse_integer(values.substr(second + 1));
    if (!count || *count < 1 || std::size_t(*count) > kMostPoints) {
      throw std::invalid_argument(context + ": COUNT must be a whole number from 1 to " + std::to_string(kMostPoints));
    }
    for (std::int64_t k = 0; k < *count; ++k) {
      // Both ends exactly, whatever the rounding of the steps between.
      const double t = *count == 1 ? 0.0 : double(k) / double(*count - 1);
      axis.values.push_back(k == *count - 1 && *count > 1 ? high : low + (high - low) * t);
    }
  } else {
    std::size_t start = 0;
    while (start <= values.size()) {
      const std::size_t comma = std::min(values.find(',', start), values.size());
      axis.values.push_back(number_in(values.substr(start, comma - start), spec));
      start = comma + 1;
    }
  }
  for (double v : axis.values) check_in_bounds(space, axis.component, v, context);
  return axis;
}

std::vector<SweepAxis> read_sweep_points(const ParameterSpace& space, std::string_view text, const std::string& file,
                                         std::size_t& point_count) {
  CsvReader reader(text);
  if (!reader.next()) throw std::invalid_argument(file + ": no header (component names, one per column)");
  std::vector<SweepAxis> axes;
  for (std::size_t k = 0; k < reader.size(); ++k) {
    const std::string context = file + ":" + std::to_string(reader.line()) + ": column " + std::to_string(k + 1);
    SweepAxis axis;
    axis.component = component_named(space, reader[k], context);
    axis.name = space.component_name(axis.component);
    axes.push_back(std::move(axis));
  }
  point_count = 0;
  while (reader.next()) {
    if (reader.size() != axes.size()) {
      throw std::invalid_argument(file + ":" + std::to_string(reader.line()) + ": " + std::to_string(reader.size()) +
                                  " values for " + std::to_string(axes.size()) + " columns");
    }
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const std::string context = file + ":" + std::to_string(reader.line()) + ": column " + std::to_string(k + 1);
      const auto value = parse_number(reader[k]);
      if (!value) throw std::invalid_argument(context + ": '" + std::string(reader[k]) + "' is not a number");
      check_in_bounds(space, axes[k].component, *value, context);
      axes[k].values.push_back(*value);
    }
    ++point_count;
  }
  if (point_count == 0) throw std::invalid_argument(file + ": no points after the header");
  return axes;
}

std::vector<double> grid_points(const ParameterSpace& space, const std::vector<SweepAxis>& axes) {
  std::size_t count = 1;
  for (const SweepAxis& axis : axes) {
    count *= axis.values.size();
    if (count > kMostPoints) throw std::invalid_argument("the sweep's grid has more than " + std::to_string(kMostPoints) + " points");
  }
  const std::vector<double> initial = space.initial_physical();
  const std::size_t n = initial.size();
  std::vector<double> points(count * n);
  for (std::size_t p = 0; p < count; ++p) {
    std::copy(initial.begin(), initial.end(), points.begin() + std::ptrdiff_t(p * n));
    std::size_t rest = p;
    for (std::size_t k = axes.size(); k-- > 0;) {
      points[p * n + axes[k].component] = axes[k].values[rest % axes[k].values.size()];
      rest /= axes[k].values.size();
    }
  }
  return points;
}

std::vector<double> list_points(const ParameterSpace& space, const std::vector<SweepAxis>& axes,
                                std::size_t point_count) {
  const std::vector<double> initial = space.initial_physical();
  const std::size_t n = initial.size();
  std::vector<double> points(point_count * n);
  for (std::size_t p = 0; p < point_count; ++p) {
    std::copy(initial.begin(), initial.end(), points.begin() + std::ptrdiff_t(p * n));
    for (const SweepAxis& axis : axes) points[p * n + axis.component] = axis.values.at(p);
  }
  return points;
}

SweepTable sweep(Problem& problem, const std::vector<SweepAxis>& axes, std::span<const double> points, bool gradient) {
  const std::size_t n = problem.dimension(), count = points.size() / n, k = axes.size();
  SweepTable table;
  for (const SweepAxis& axis : axes) table.columns.push_back(axis.name);
  table.columns.push_back("loss");
  if (gradient) {
    for (const SweepAxis& axis : axes) table.columns.push_back("dloss/d" + axis.name);
  }
  // One batch: a row is the loss, whether the rollout went non-finite, and the derivatives.
  const std::size_t width = 2 + (gradient ? k : 0);
  std::vector<double> results(count * width);
  std::vector<double> full_gradient(n);
  batch_executor().run(count, width, results, [&](std::size_t p, std::span<double> row) {
    const std::span<const double> x = points.subspan(p * n, n);
    try {
      row[0] = gradient ? problem.value_and_gradient(x, full_gradient) : problem.value(x);
      row[1] = 0.0;
      if (gradient) {
        for (std::size_t a = 0; a < k; ++a) row[2 + a] = full_gradient[axes[a].component];
      }
    } catch (const NonFiniteError&) {
      std::fill(row.begin(), row.end(), 0.0);
      row[0] = std::numeric_limits<double>::infinity();
      row[1] = 1.0;
    }
  });
  table.rows.reserve(count * table.width());
  for (std::size_t p = 0; p < count; ++p) {
    const double* result = &results[p * width];
    for (const SweepAxis& axis : axes) table.rows.push_back(points[p * n + axis.component]);
    table.rows.push_back(result[0]);
    for (std::size_t a = 0; a < width - 2; ++a) table.rows.push_back(result[2 + a]);
    table.non_finite_rollouts += result[1] != 0.0 ? 1 : 0;
  }
  return table;
}

std::string sweep_csv(const SweepTable& table) {
  std::string text;
  for (std::size_t c = 0; c < table.width(); ++c) {
    if (c > 0) text += ',';
    text += table.columns[c];
  }
  text += '\n';
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    for (std::size_t c = 0; c < table.width(); ++c) {
      if (c > 0) text += ',';
      text += exact(table.rows[r * table.width() + c]);
    }
    text += '\n';
  }
  return text;
}

}  // namespace simgrad::tune
