// The report's view of an epidemic calibration (simulator "contagion"): the summary, with the
// evaluation on held-out data, and the frames (Scenario::summary() and frames(),
// scenario/scenario.hpp) of its scenarios.
#pragma once

#include <nlohmann/json.hpp>

#include "core/system.hpp"
#include "sims/contagion/calibration.hpp"
#include "sims/contagion/epidemic.hpp"

namespace simgrad::report {

// The population, the tuned parameters, the data, and the calibration evaluated on the hard
// model over `days` days (evaluate_calibration): fits, forecasts and baselines. Without
// `evaluate` (a part of a split population, which cannot replay the whole), the calibration is
// left out.
nlohmann::json contagion_summary(const contagion::Population& population, const contagion::DiseaseModel& model,
                                 const contagion::CalibrationData& data, const contagion::EvaluationOptions& evaluation,
                                 int days, double population_load_s, bool evaluate = true);

// The counts simulated against the data, and a glimpse of the network: up to 200 agents found
// by breadth-first search from the seeded ones, on rings by distance, coloured by disease state
// every few days (complete populations: the seeded agents and the first others, no edges).
nlohmann::json contagion_frames(const contagion::Population& population, contagion::Epidemic& system, TrajectoryLoss& loss,
                                const contagion::CalibrationData& data, int steps);

}  // namespace simgrad::report
