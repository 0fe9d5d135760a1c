#include "gplvm/probdr/graph_gp_kernel.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

GraphKernelKind parse_graph_kernel(const std::string& name) {
  if (name == "matern") return GraphKernelKind::matern;
  if (name == "heat") return GraphKernelKind::heat;
  throw InputError("unknown graph-GP kernel '" + name + "' (expected 'matern' or 'heat')",
                   {"", kGraphGpKernelKey, name});
}

void require_valid(const GraphKernel& kernel) {
  if (kernel.kind != GraphKernelKind::matern) return;
  require(std::isfinite(kernel.nu) && kernel.nu > 0, "the Matern smoothness nu must be finite and > 0",
          {"", kGraphGpSmoothnessKey, std::to_string(kernel.nu)});
}

void require_valid(const GraphGpHyperparameters& hyper) {
  require(std::isfinite(hyper.kappa) && hyper.kappa > 0,
          "the graph-GP lengthscale kappa must be finite and > 0",
          {"", kGraphGpLengthscaleKey, std::to_string(hyper.kappa)});
  require(std::isfinite(hyper.signal_variance) && hyper.signal_variance >= 0,
          "the graph-GP signal variance must be finite and >= 0",
          {"", kGraphGpSignalKey, std::to_string(hyper.signal_variance)});
  require(std::isfinite(hyper.noise_variance) && hyper.noise_variance >= 0,
          "the graph-GP noise variance must be finite and >= 0",
          {"", kGraphGpNoiseKey, std::to_string(hyper.noise_variance)});
}

Vector to_log_parameters(const GraphGpHyperparameters& hyper) {
  return Vector{{std::log(hyper.kappa), std::log(hyper.signal_variance), std::log(hyper.noise_variance)}};
}

GraphGpHyperparameters from_log_parameters(const ConstVectorRef& log_parameters) {
  return {std::exp(log_parameters[0]), std::exp(log_parameters[1]), std::exp(log_parameters[2])};
}

Vector spectral_values(const GraphKernel& kernel, double kappa, const ConstVectorRef& eigenvalues) {
  const double k2 = kappa * kappa;
  if (kernel.kind == GraphKernelKind::heat) return (-0.5 * k2 * eigenvalues.array()).exp();
  return (2.0 * kernel.nu / k2 + eigenvalues.array()).pow(-kernel.nu);
}

// matern: a = 2 nu / kappa^2 + lambda, da/dlog kappa = -4 nu / kappa^2, so
//   ds/dlog kappa = -nu a^(-nu-1) da/dlog kappa = s (4 nu^2 / kappa^2) / a.
// heat: ds/dlog kappa = -kappa^2 lambda s.
Vector spectral_log_kappa_derivative(const GraphKernel& kernel, double kappa,
                                     const ConstVectorRef& eigenvalues) {
  const double k2 = kappa * kappa;
  const Vector s = spectral_values(kernel, kappa, eigenvalues);
  if (kernel.kind == GraphKernelKind::heat) return -k2 * eigenvalues.cwiseProduct(s);
  const double nu = kernel.nu;
  return (4.0 * nu * nu / k2) * s.array() / (2.0 * nu / k2 + eigenvalues.array());
}

}  // namespace gplvm
