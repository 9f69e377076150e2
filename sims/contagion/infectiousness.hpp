// The infectiousness profile: daily increments of a Gamma distribution function, GradABM's
// form (mean 5.5 days, sd 2.14). The profile is then tuned as a vector (disease_model.hpp), so
// only its starting values come from here.
#pragma once

#include <vector>

namespace simgrad::contagion {

// g[k] = F(k + 1) - F(k) for k = 0..days-1, F the Gamma CDF with this mean and sd.
std::vector<double> gamma_profile(double mean, double sd, int days);

}  // namespace simgrad::contagion
