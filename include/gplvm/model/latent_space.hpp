#pragma once
// Where latents live. A model asks its latent space, never assumes R^Q, for everything that
// depends on the geometry:
//   - the manifold of its points (manifold(), gplvm/manifold/manifold.hpp): membership,
//     distances, and what optimisers of point parameters (free latents, inducing inputs) call to
//     stay on it (riemannian_gradient, retract, tangent_squared_norms, transport). A latent is
//     stored as ambient_dim() numbers (R^Q: Q; the hyperboloid and the sphere: Q + 1), of which
//     intrinsic_dim() = Q are free;
//   - encoders output tangent vectors at the origin (R^Q), mapped to latents by from_origin_tangent
//     (the identity in R^Q, the exponential map at the hyperboloid's origin for Lorentz);
//   - a variational posterior q(x) is a location (ambient) and diagonal variances in the tangent
//     space at it: sample_posterior draws a reparameterised sample from standard normal noise, and
//     kl_to_prior gives KL(q || p) summed over rows, in closed form where one exists or as a
//     one-sample Monte Carlo estimate at the same samples (the wrapped normal's density).
// Every map has its adjoint, so objectives and models differentiate through any space. Kernels
// take ambient coordinates. docs/architecture.md, "Latent spaces", shows how the Lorentz model
// plugs in.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

class LatentSpace {
 public:
  virtual ~LatentSpace() = default;

  // The geometry of the latents: every geometric question goes here.
  virtual const Manifold& manifold() const = 0;
  // The model.latent_space value: the manifold's name unless the space registers another.
  virtual std::string name() const { return manifold().name(); }
  Index intrinsic_dim() const { return manifold().intrinsic_dim(); }
  Index ambient_dim() const { return manifold().ambient_dim(); }
  // How its points are written, for messages and `gplvm info` (e.g. "on the hyperboloid (Lorentz
  // coordinates)"); empty for plain coordinates.
  virtual std::string coordinates_note() const { return ""; }
  // What the latents are, in a few words for help texts; the manifold's description by default.
  virtual std::string description() const { return manifold().description(); }

  // Curved: points move by Riemannian steps (the hyperboloid, the sphere); R^Q is the one flat space.
  bool is_curved() const { return manifold().is_curved(); }
  // Whether sample_posterior and kl_to_prior are defined on the space (Bayesian latents:
  // bayesian_sas, bayesian_gplvm); where not, they throw InputError naming model.latent_space, and the
  // train configuration refuses Bayesian kinds up front.
  virtual bool has_posterior() const { return true; }

  // X (n x ambient) from tangent vectors V (n x intrinsic) at the origin, and the adjoint:
  // given dL/dX, ADDS dL/dV.
  virtual void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const = 0;
  virtual void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                            MatrixRef dV) const = 0;

  // Free latents started from principal components (model.init = "pca"): how many leading
  // components a start takes, and the points their scores P (n x start_components(), already
  // scaled) give. By default Q components, as tangent coordinates at the origin
  // (from_origin_tangent). The sphere takes Q + 1 and projects them radially onto itself: a loop in
  // the data then starts as a loop around the sphere, where Q tangent coordinates would fold it.
  virtual Index start_components() const { return intrinsic_dim(); }
  virtual void from_start_components(const ConstMatrixRef& P, Matrix& X) const { from_origin_tangent(P, X); }

  // Samples of q(x_n) at locations L (n x ambient) with tangent variances V (n x intrinsic) from
  // standard normal eps (n x intrinsic), and the adjoint: given dL/dX, ADDS dL/dL and dL/dV.
  virtual void sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                const ConstMatrixRef& eps, Matrix& X) const = 0;
  virtual void sample_posterior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                         const ConstMatrixRef& eps, const ConstMatrixRef& dX,
                                         MatrixRef d_location, MatrixRef d_variance) const = 0;

  // KL(q || prior) summed over the rows; `samples` are the rows' samples from sample_posterior
  // (ignored by a closed form, the Monte Carlo estimate's points otherwise).
  virtual bool has_closed_form_kl() const = 0;
  virtual double kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                             const ConstMatrixRef& samples) const = 0;
  // ADDS scale * dKL/dlocation and scale * dKL/dvariance (and, for Monte Carlo estimates, the
  // samples' part scale * dKL/dX to *d_samples, to be pushed through sample_posterior_backward).
  virtual void kl_to_prior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                    const ConstMatrixRef& samples, double scale, MatrixRef d_location,
                                    MatrixRef d_variance, Matrix* d_samples) const = 0;
  // A control variate for a Monte Carlo KL estimate (model.kl_estimator = "control_variate"),
  // summed over the rows: a function of the rows' location, variance and the standard normal noise
  // eps of their samples whose expectation over eps is exactly zero, so that adding it keeps the
  // estimate's expectation (and its gradient's) while removing the estimate's noise to first order.
  // Zero where the KL is in closed form.
  virtual double kl_control_variate(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                    const ConstMatrixRef& eps) const {
    return 0.0;
  }
  // ADDS scale * its derivatives with respect to location and variance (eps held).
  virtual void kl_control_variate_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                           const ConstMatrixRef& eps, double scale, MatrixRef d_location,
                                           MatrixRef d_variance) const {}
};

// Q itself when Q >= 1; InputError naming model.latent_dim otherwise (a space checks its Q before
// building its manifold).
Index checked_latent_dim(Index intrinsic_dim);

// Latent spaces by name (model.latent_space): built-in euclidean, lorentz and sphere; a program may add
// its own (or replace one), and the train configuration accepts every registered name.
using LatentSpaceFactory = std::function<std::unique_ptr<LatentSpace>(Index intrinsic_dim)>;
void register_latent_space(const std::string& name, LatentSpaceFactory factory);
std::vector<std::string> registered_latent_spaces();  // sorted

// The registered spaces with a property, as "a, b or c" (for messages; "none" when none has it),
// e.g. latent_spaces_where(&LatentSpace::is_curved).
std::string latent_spaces_where(bool (LatentSpace::*property)() const);
// Every registered space with its description, for help texts: "name (description); ...".
std::string latent_space_help();
// Whether the registered space of that name has the property (InputError naming
// model.latent_space for an unknown name).
bool latent_space_is(const std::string& name, bool (LatentSpace::*property)() const);

// The space of a registered model.latent_space value with Q intrinsic dimensions; InputError
// naming model.latent_space and the registered names otherwise.
std::unique_ptr<LatentSpace> make_latent_space(const std::string& name, Index intrinsic_dim);
// The space whose points have `ambient_dim` coordinates (stored latents: R^Q has Q, the hyperboloid
// Q + 1); InputError naming the space and the width when no Q >= 1 fits.
std::unique_ptr<LatentSpace> latent_space_with_ambient_dim(const std::string& name, Index ambient_dim);

// Kernels read ambient coordinates, so a kernel expression must suit the space its inputs come
// from: every kernel named in it must have been registered with that space as its input domain
// (kernel_registry.hpp): on the hyperboloid its kernels (hyperboloid_exp), on the sphere the
// sphere's (sphere_eq), on R^Q the others (a kernel of Lorentz points applied to R^Q would read the
// first coordinate as time-like). InputError naming model.kernel otherwise.
void require_kernel_fits_latent_space(const std::string& kernel_expression, const std::string& space_name);

}  // namespace gplvm
