#pragma once
// The negated exact log marginal likelihood of the GPLVM (the ScaLAPACK engine of
// objectives/exact_distributed.hpp) as a function of TAO's distributed parameter slice: what the
// exact model's full-batch training minimises.
//
// Distribution. Data rows and their latents stay with the rank that owns them under the
// RowPartition. Each evaluation allgathers the latents (N x Q doubles, small next to the N^2 / P
// of the kernel matrix), broadcasts the H + 1 hyperparameters from rank 0, and builds
// ExactDistributedGp; the gradient comes back replicated and each rank keeps its own rows' part.
// Every evaluation is collective over the communicator.
#include <memory>

#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// The negated exact log marginal likelihood as a DistributedObjective of flat parameters.
//
// Layout. The global parameter vector is [kernel log-hyperparameters (H), log noise variance,
// latents X row-major (N x Q)], the same at any rank count. Rank r's slice is its own rows'
// latents, preceded on rank 0 by the H + 1 shared parameters.
class ExactGplvmObjective {
 public:
  // Keeps a view of Y_local and a reference to comm, which must outlive the objective (pass a
  // row-major block: a DataRef bound to anything else holds a temporary copy that dies with the
  // call), and a clone of the kernel, whose hyperparameters each evaluation overwrites. Every
  // evaluation builds ExactDistributedGp with these options; with_gradient is forced on.
  ExactGplvmObjective(const Kernel& kernel, const DataRef& Y_local, const RowPartition& partition,
                      const Communicator& comm, ExactDistributedOptions options = {});
  ~ExactGplvmObjective();
  ExactGplvmObjective(const ExactGplvmObjective&) = delete;
  ExactGplvmObjective& operator=(const ExactGplvmObjective&) = delete;

  Index latent_dim() const noexcept;
  Index num_shared() const noexcept;  // H + 1
  Index local_rows() const noexcept;
  Index local_size() const noexcept;  // local_rows() * Q (+ H + 1 on rank 0)

  // This rank's slice from its latents (local_rows() x Q) and, used on rank 0 only, the kernel's
  // log-hyperparameters and the noise variance. Not collective.
  Vector pack(const ConstMatrixRef& latents_local, const ConstVectorRef& log_hyperparameters,
              double noise_variance) const;
  Matrix local_latents(const ConstVectorRef& local_x) const;  // not collective
  // Rank 0's [log-hyperparameters, log noise variance], on every rank (a broadcast).
  Vector shared_parameters(const ConstVectorRef& local_x) const;

  // -log p(Y | X, theta, s2) and this rank's slice of its gradient. Collective.
  double operator()(const ConstVectorRef& local_x, VectorRef local_gradient);
  std::int64_t evaluations() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gplvm
