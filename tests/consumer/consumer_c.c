/* Uses the installed C API (<simgrad/simgrad.h>, libsimgrad.so): the built-in scenario's loss
 * and gradient. Exits 0 when both are finite, 1 otherwise. */
#include <math.h>
#include <stdio.h>

#include <simgrad/simgrad.h>

int main(void) {
  simgrad_scenario scenario;
  double loss = 0, gradient[3];
  size_t size = 0;
  if (simgrad_scenario_load_file(NULL, &scenario) != SIMGRAD_OK ||
      simgrad_gradient(scenario, &loss, gradient, 3, &size) != SIMGRAD_OK) {
    fprintf(stderr, "consumer_c: %s\n", simgrad_last_error());
    return 1;
  }
  simgrad_scenario_free(scenario);
  const int finite = isfinite(loss) && isfinite(gradient[0]) && isfinite(gradient[1]) && isfinite(gradient[2]);
  printf("simgrad %s through the C API: loss %g, gradient [%g, %g, %g]\n", simgrad_version(), loss, gradient[0],
         gradient[1], gradient[2]);
  return finite ? 0 : 1;
}
