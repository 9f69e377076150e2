#include "scenario/tuning_run.hpp"

#include <stdexcept>

#include "tune/methods.hpp"

namespace simgrad::scenario {

namespace {

// The optimizer a tuning run drives: the scenario's settings; the run stops on its iteration
// budget or target, never on a small gradient (a tuner's caller decides when it is done).
std::unique_ptr<tune::Optimizer> tuning_optimizer(const TuneOptions& options) {
  if (!is_tuning_method(options.optimizer))
    throw std::invalid_argument("optimizer: expected lbfgs, adam, normalized_gd, levenberg_marquardt or cmaes, got \"" +
                                options.optimizer + "\"");
  tune::OptimizerOptions opt;
  opt.max_iterations = options.iterations;
  opt.learning_rate = options.learning_rate;
  opt.target_loss = options.target_loss;
  opt.seed = options.seed;
  opt.gradient_tolerance = 0.0;
  return tune::make_optimizer(options.optimizer, opt);
}

}  // namespace

bool is_tuning_method(const std::string& optimizer) {
  return optimizer == "lbfgs" || optimizer == "adam" || optimizer == "normalized_gd" ||
         optimizer == "levenberg_marquardt" || optimizer == "cmaes";
}

TuningRun::TuningRun(Scenario& scenario, const TuneOptions& options, std::span<const double> x0)
    : scenario_(scenario),
      options_(options),
      guarded_(scenario.problem()),
      objective_(scenario.problem().space().objective(guarded_)),
      x0_(x0.empty() ? scenario.problem().initial() : std::vector<double>(x0.begin(), x0.end())),
      optimizer_(tuning_optimizer(options)) {
  const tune::ParameterSpace& space = scenario.problem().space();
  optimizer_->init(objective_, space.to_optimizer(x0_), space.optimizer_lower(), space.optimizer_upper());
}

TuningRun::~TuningRun() = default;

double TuningRun::initial_loss() {
  if (!have_initial_loss_) {
    initial_loss_ = scenario_.problem().value(x0_);
    have_initial_loss_ = true;
  }
  return initial_loss_;
}

void TuningRun::load(std::istream& in, double initial_loss) {
  optimizer_->load(in);
  initial_loss_ = initial_loss;
  have_initial_loss_ = true;
}

const tune::IterationRecord& TuningRun::iterate() { return optimizer_->iterate(); }

std::vector<double> TuningRun::best_parameters() const {
  const std::span<const double> z = optimizer_->best_x();
  if (z.empty()) return x0_;
  return scenario_.problem().space().to_physical(z);
}

}  // namespace simgrad::scenario
