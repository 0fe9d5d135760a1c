#pragma once
// The built-in ProbDR methods, one file each (src/probdr/<name>_method.cpp), listed by the registry
// (probdr_method.cpp) rather than registered by static initialisers, which a static library drops.
#include "gplvm/probdr/probdr_method.hpp"

namespace gplvm {

ProbdrMethod cmds_method();                 // "cmds"
ProbdrMethod kpca_method();                 // "kpca"
ProbdrMethod laplacian_eigenmaps_method();  // "le"
ProbdrMethod pca_method();                  // "pca"
ProbdrMethod isomap_method();               // "isomap"
ProbdrMethod lle_method();                  // "lle"
ProbdrMethod diffusion_maps_method();       // "dmaps"
ProbdrMethod sne_method();                  // "sne"
ProbdrMethod tsne_method();                 // "tsne"
ProbdrMethod umap_method();                 // "umap"

}  // namespace gplvm
