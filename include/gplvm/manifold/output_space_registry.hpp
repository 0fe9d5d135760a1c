#pragma once
// Output spaces by name (model.output_space): where the data rows of a run live. The built-in ones
// are euclidean (R^D: the data as they are) and the manifolds of the wrapped GPLVM: sphere,
// kendall, spd_log_euclidean and spd_affine. Each manifold's file defines its name and how it is
// built for rows of a given width; a program may add its own space (or replace one), and the
// train configuration accepts every registered name.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

struct OutputSpace {
  // The manifold whose points have data_dim numbers; InputError naming `key` and the width when
  // none has.
  std::function<std::unique_ptr<Manifold>(Index data_dim, const std::string& key)> make;
  // A width the space has points of (the narrowest), to ask a registered space for its properties.
  Index smallest_width = 1;
};

void register_output_space(const std::string& name, OutputSpace space);
std::vector<std::string> registered_output_spaces();  // sorted
// The registered spaces that are curved (is_curved: the data are modelled in a tangent chart).
std::vector<std::string> output_manifold_names();
// The named spaces with what their points are, for help texts: "name (description), ...".
std::string output_space_help(const std::vector<std::string>& names);
// Whether the registered space of that name has the property (InputError naming
// model.output_space for an unknown name), e.g. output_space_is(name, &Manifold::is_curved).
bool output_space_is(const std::string& name, bool (Manifold::*property)() const);

// Nothing when `name` is a registered curved output space (data a model reaches through a tangent
// chart, or that a Euclidean prediction is projected onto); InputError naming `key` and those
// spaces otherwise.
void require_output_manifold(const std::string& name, const std::string& key);

// The manifold named by an output space for points of data_dim numbers (euclidean: D; sphere:
// n + 1; kendall: 2k; spd_*: n^2). InputError naming `key` and the registered names when the name
// is unknown, or naming the width when it does not fit the manifold.
std::unique_ptr<Manifold> make_output_manifold(const std::string& name, Index data_dim,
                                               const std::string& key = "model.output_space");

}  // namespace gplvm
