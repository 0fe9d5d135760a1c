#pragma once
// The `neighbour_descent` fitting method: SNE, t-SNE and UMAP (models/neighbour_embedding_model.hpp)
// run by their own optimiser, one iteration (or UMAP epoch) at a time, with a progress line every
// train.progress_seconds (the KL, the exaggeration, the rate), a checkpoint every
// train.checkpoint_every iterations and on SIGTERM / SIGINT / SIGUSR1 (the embedding, and t-SNE's
// velocity and gains in the checkpoint's two moment slots), resumed exactly by --resume. The run file
// records the repulsion's approximation and the final KL, exact where n <= probdr.dense_limit.
#include "gplvm/run/fitting_method.hpp"

namespace gplvm {

// Returns the exit code.
int fit_neighbour_descent(const FitRun& run);

}  // namespace gplvm
