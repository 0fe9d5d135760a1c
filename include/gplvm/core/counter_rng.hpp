#pragma once
// Counter-based random numbers (Philox4x32-10, Salmon et al. 2011).
//
// A draw is a pure function of (seed, purpose, epoch, step, index): there is no hidden state, so
// the sample a rank draws for a data row never depends on the number of ranks, on which rank
// draws it, or on the order of the calls. That is what makes runs reproducible across rank counts
// and resumable from a checkpoint that stores only (epoch, step).
#include <array>
#include <cstdint>

namespace gplvm {

// Independent streams. Values are part of the reproducibility contract: never renumber.
enum class RngPurpose : std::uint8_t {
  permutation = 1,         // per-epoch shuffle of the data rows
  encoder_init = 2,        // MLP weights and biases
  latent_init = 3,         // free latents
  reparameterisation = 4,  // Bayesian SAS epsilon
  generator = 5,           // synthetic data sets
  psi_nodes = 6,           // fixed Monte Carlo nodes of the numerical Psi-statistics
  predictive_sample = 7,   // gplvm predict --samples
  wrapped_psi = 8,         // Monte Carlo Psi-statistics of wrapped-normal latents (Bayesian hGP-LVM)
  active_set = 9,          // the rows drawn as inducing inputs at each active-set refresh
  pair_sample = 10,        // the pairs of rows of sampled all-pairs metrics (embedding-metrics)
  brownian_motion = 11,    // the steps of Brownian paths on a trained latent space (gplvm brownian)
  geodesic_pairs = 12,     // random pairs of points joined by geodesics (gplvm geodesic --random-pairs)
  negative_sample = 13,    // the vertices UMAP's negative sampling pushes each point away from
  test = 200,              // reserved for tests
};

class CounterRng {
 public:
  using Block = std::array<std::uint32_t, 4>;

  explicit CounterRng(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t seed() const noexcept { return seed_; }

  // Four independent 32-bit words for this key. epoch < 2^24, step < 2^32.
  Block block(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step, std::uint64_t index) const;
  // Uniform in the open interval (0, 1), 53 random bits.
  double uniform(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step, std::uint64_t index) const;
  // Standard normal (Box-Muller on one block).
  double normal(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step, std::uint64_t index) const;

  // The raw Philox4x32-10 bijection, exposed for known-answer tests.
  static Block philox(Block counter, std::array<std::uint32_t, 2> key);

 private:
  std::uint64_t seed_;
};

}  // namespace gplvm
