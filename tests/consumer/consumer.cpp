// Uses simgrad as an installed library: DiffTaichi's three-mass triangle, the gradient of its
// final-area loss with respect to the rest lengths, checked against central differences; then
// the scenario library and the reports: the built-in scenario loaded, its loss and its report.
// Exits 0 when every component agrees and the scenario runs, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <simgrad/core/rollout.hpp>
#include <simgrad/report/report.hpp>
#include <simgrad/scenario/scenario.hpp>
#include <simgrad/scenario/scenario_report.hpp>
#include <simgrad/sims/softbody/losses.hpp>
#include <simgrad/sims/softbody/mass_spring.hpp>

namespace sb = simgrad::softbody;

// The loss of the triangle with the given rest lengths, and its gradient when asked.
double triangle_loss(const std::vector<double>& rest, std::vector<double>* gradient) {
  sb::MassSpringModel<2> model = sb::make_difftaichi_triangle();
  for (std::size_t s = 0; s < rest.size(); ++s) model.rest_length.values()[s] = rest[s];
  model.rest_length.set_differentiable(gradient != nullptr);
  sb::MassSpring<2> system(model);
  sb::TriangleAreaLoss loss(system, {0, 1, 2}, 0.1);
  simgrad::Rollout rollout(system, loss, 1024);
  if (gradient == nullptr) return rollout.loss();
  const double value = rollout.loss_and_gradient();
  gradient->assign(model.rest_length.adjoints().begin(), model.rest_length.adjoints().end());
  return value;
}

// The built-in scenario (the same triangle, tuned from the command line by default): its loss at
// the initial parameters is finite, and its report page renders.
bool scenario_runs() {
  const auto scenario = simgrad::scenario::load_scenario({});
  simgrad::tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  const double loss = problem.value(x);
  const std::string page = simgrad::report::render_report(simgrad::scenario::gather_report(*scenario, x, x));
  const bool ok = std::isfinite(loss) && page.find("<html") != std::string::npos;
  std::printf("scenario %s (%s): loss %.9g, report %zu bytes: %s\n", scenario->name.c_str(), scenario->simulator().c_str(),
              loss, page.size(), ok ? "ok" : "FAILED");
  return ok;
}

int main() {
  const std::vector<double> rest = {0.1, 0.1, 0.1 * std::sqrt(2.0)};
  std::vector<double> gradient;
  const double value = triangle_loss(rest, &gradient);
  bool ok = std::isfinite(value) && gradient.size() == rest.size();
  for (std::size_t s = 0; ok && s < rest.size(); ++s) {
    const double h = 1e-6;
    std::vector<double> plus = rest, minus = rest;
    plus[s] += h;
    minus[s] -= h;
    const double fd = (triangle_loss(plus, nullptr) - triangle_loss(minus, nullptr)) / (2.0 * h);
    const bool agrees = std::abs(gradient[s] - fd) <= 1e-4 * std::abs(fd) + 1e-9 && (gradient[s] > 0) == (fd > 0);
    std::printf("rest_length[%zu]: ad %.9g  fd %.9g  %s\n", s, gradient[s], fd, agrees ? "ok" : "MISMATCH");
    ok = ok && agrees;
  }
  std::printf("loss %.9g: %s\n", value, ok ? "ok" : "FAILED");
  ok = scenario_runs() && ok;
  return ok ? 0 : 1;
}
