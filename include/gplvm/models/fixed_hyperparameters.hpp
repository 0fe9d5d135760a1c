#pragma once
// model.fixed_hyperparameters: kernel hyperparameters held at their initial values (the hGP-LVM
// paper fixes hyperboloid_exp's kappa). A name is the kernel's own (log_kappa) or the same without
// its log_ prefix (kappa); the model zeroes their gradient entries before any optimiser sees them,
// so Adam's moments stay zero and the values keep their initial bits.
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

// Indices in the flat parameter vector of the named hyperparameters of `kernel`, whose
// hyperparameters start at kernel_offset. InputError naming model.fixed_hyperparameters and the
// name (with the kernel's names in the message) for a name the kernel does not have.
std::vector<Index> fixed_hyperparameter_indices(const Kernel& kernel, const std::vector<std::string>& names,
                                                Index kernel_offset);

}  // namespace gplvm
