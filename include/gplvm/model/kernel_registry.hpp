#pragma once
// Kernels by name: `model.kernel` in a configuration is an expression over registered names,
// e.g. "eq_ard", "matern52", "eq_ard+linear", "(matern32+linear)*periodic" (+ is a sum, * a
// product, * binds tighter). Built-in kernels: eq_ard, matern32, matern52, linear, periodic,
// hyperboloid_exp (inputs in Lorentz coordinates), sphere_eq (inputs unit vectors).
// A program (or a test) can register its own kernel under a new name; nothing else changes.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/model/kernel.hpp"

namespace gplvm {

// Initial values a factory starts a kernel from (each kernel takes what it has).
struct KernelInit {
  double variance = 1.0;
  double lengthscale = 1.0;  // every latent dimension
  double period = 1.0;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(Index input_dim, const KernelInit& init)>;

// The inputs of most kernels: coordinates in R^Q.
inline constexpr const char* kEuclideanKernelDomain = "euclidean";

// Adds (or replaces) a kernel name. Names are lower-case letters, digits and '_'. input_domain
// names the latent space whose points the kernel takes (its model.latent_space value, e.g.
// "lorentz" for points of the hyperboloid in Lorentz coordinates).
void register_kernel(const std::string& name, KernelFactory factory,
                     const std::string& input_domain = kEuclideanKernelDomain);
// The input domain a kernel was registered with; InputError naming model.kernel for an unknown name.
std::string kernel_input_domain(const std::string& name);
bool is_registered_kernel(const std::string& name);
std::vector<std::string> registered_kernels();  // sorted

// Builds the kernel of an expression; InputError naming the expression (key model.kernel) for an
// unknown name or a malformed expression.
std::unique_ptr<Kernel> make_kernel(const std::string& expression, Index input_dim,
                                    const KernelInit& init = {});

}  // namespace gplvm
