// What the engine around a model needs of the model's split over processes, whatever the split's
// shape (elements and their ghosts: core/subdomain.hpp; slabs of grid rows: core/row_slabs.hpp).
#pragma once

namespace simgrad {

class ProcessSplit {
 public:
  virtual ~ProcessSplit() = default;
  // True on every process when `flag` is true on any: a failure one process meets inside a step
  // is every process's, or the others would wait for it at the next exchange. Collective.
  virtual bool any(bool flag) const = 0;
};

}  // namespace simgrad
