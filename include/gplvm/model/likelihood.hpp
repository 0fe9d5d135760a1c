#pragma once
// The data term's output space: how stored data rows relate to the D outputs the GP models.
//
// The Gaussian likelihood on R^D is the identity: the GP's outputs are the data as stored, and
// models read the rows in place (the SAS step's whitened path, unchanged). A wrapped likelihood
// on a Riemannian output manifold (sphere, shape space, SPD matrices; docs/architecture.md,
// "Likelihoods") is, with a constant basepoint p, a Gaussian on the tangent space at p: data
// rows map to tangent coordinates by the log map at p (once, when the data are loaded), the
// change of variables adds a per-row log-Jacobian that does not depend on the model's parameters,
// and predictions map back to the manifold by the exp map. A basepoint that depends on the
// latents needs the objective itself; that kind extends this interface with the adjoints.
#include <memory>
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

class Likelihood {
 public:
  virtual ~Likelihood() = default;

  virtual std::string name() const = 0;  // the model.likelihood value
  virtual Index data_dim() const = 0;    // numbers per stored row
  virtual Index output_dim() const = 0;  // D modelled by the GP (tangent coordinates)
  // The outputs are the stored rows: callers may skip to_outputs and read the data in place.
  virtual bool is_identity() const = 0;

  // Stored rows (n x data_dim) -> the GP's outputs (n x output_dim), and each row's
  // log-Jacobian of that change of variables (n; zeros for the identity).
  virtual void to_outputs(const DataRef& rows, RowMatrix& outputs, Vector& log_jacobian) const = 0;
  // GP outputs (predictive means, samples; n x output_dim) -> rows in the data's space.
  virtual void to_data(const DataRef& outputs, RowMatrix& rows) const = 0;
};

// A Gaussian likelihood on R^D: identity maps.
class GaussianLikelihood final : public Likelihood {
 public:
  explicit GaussianLikelihood(Index data_dim);
  std::string name() const override { return "gaussian"; }
  Index data_dim() const override { return dim_; }
  Index output_dim() const override { return dim_; }
  bool is_identity() const override { return true; }
  void to_outputs(const DataRef& rows, RowMatrix& outputs, Vector& log_jacobian) const override;
  void to_data(const DataRef& outputs, RowMatrix& rows) const override;

 private:
  Index dim_;
};

// The likelihood of a model.likelihood value ("gaussian") for data_dim numbers per row;
// InputError naming model.likelihood otherwise.
std::unique_ptr<Likelihood> make_likelihood(const std::string& name, Index data_dim);

}  // namespace gplvm
