#pragma once
// Kernels by name: `model.kernel` in a configuration is an expression over registered names,
// e.g. "eq_ard", "matern52", "eq_ard+linear", "(matern32+linear)*periodic" (+ is a sum, * a
// product, * binds tighter). Built-in kernels: eq_ard, matern32, matern52, linear, periodic,
// hyperboloid_exp (inputs in Lorentz coordinates), sphere_eq (inputs unit vectors).
// A program (or a test) can register its own kernel under a new name; nothing else changes.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

// Initial values a factory starts a kernel from (each kernel takes what it has).
struct KernelInit {
  double variance = 1.0;
  double lengthscale = 1.0;  // every latent dimension
  double period = 1.0;
  // Initial values of the hyperparameters kernels declare a configuration key for
  // (KernelSetting), by key; a factory reads its own with setting().
  std::map<std::string, double> settings = {};
  // The value given for `key`, or `fallback` (the kernel's declared default) when none was.
  double setting(const std::string& key, double fallback) const;
};

// A hyperparameter whose initial value a kernel takes from its own configuration key, declared at
// registration: the train configuration accepts the key (with this default, help and a positive
// value) and hands its value to every kernel through KernelInit::settings, so a kernel with a new
// kind of hyperparameter needs no edit anywhere else.
struct KernelSetting {
  std::string key;       // e.g. "model.kernel_alpha"
  double initial = 1.0;  // the default
  std::string help;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(Index input_dim, const KernelInit& init)>;

// The inputs of most kernels: coordinates in R^Q.
inline constexpr const char* kEuclideanKernelDomain = kEuclideanSpace;

// Adds (or replaces) a kernel name. Names are lower-case letters, digits and '_'. input_domain
// names the latent space whose points the kernel takes (its model.latent_space value, e.g.
// kLorentzSpace for points of the hyperboloid in Lorentz coordinates).
void register_kernel(const std::string& name, KernelFactory factory,
                     const std::string& input_domain = kEuclideanKernelDomain,
                     std::vector<KernelSetting> settings = {});
// Every setting the registered kernels declare, by key (a key two kernels declare appears once).
std::vector<KernelSetting> registered_kernel_settings();
// The input domain a kernel was registered with; InputError naming model.kernel for an unknown name.
std::string kernel_input_domain(const std::string& name);
bool is_registered_kernel(const std::string& name);
std::vector<std::string> registered_kernels();  // sorted
// The registered kernels grouped by input domain, for help texts: "euclidean: eq_ard, linear; ...".
std::string kernel_help();

// Builds the kernel of an expression; InputError naming the expression (key model.kernel) for an
// unknown name or a malformed expression.
std::unique_ptr<Kernel> make_kernel(const std::string& expression, Index input_dim,
                                    const KernelInit& init = {});

}  // namespace gplvm
