// gplvm embed: the short form of a ProbDR fit, as a scikit-learn user would call it:
//
//   gplvm embed --method isomap --data X.h5 --output R.h5 [--graph.k=15 --model.latent_dim=3 ...]
//
// is `gplvm train` with model.kind = "probdr", probdr.method, data.path and output.path set, and
// every other key at its default unless given (a --config file, then --key=value overrides, as
// train takes them). The run file is a train run file: info, evaluate, embedding-metrics and export
// read it.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/probdr/probdr_method.hpp"

namespace gplvm {
namespace {

CommandLine embed_command_line() {
  return CommandLine(
      "embed",
      {{"method", true, "the ProbDR method (probdr.method)"},
       {"data", true, "HDF5 file with the N x D data (data.path)"},
       {"output", true, "run file to write (output.path)"},
       {"config", true, "TOML configuration file for the other keys (gplvm train --help)"},
       {"force", false, "replace an existing run file"},
       {"resume", true, "auto, or a checkpoint to resume from (sne, tsne, umap; gplvm train --help)"}},
      true);
}

std::string method_list() {
  std::string text;
  for (const std::string& name : registered_probdr_methods())
    text += "  " + name + ": " + probdr_method(name).summary + "\n";
  return text;
}

}  // namespace

int embed_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = embed_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf(
          "%s\nmethods:\n%sother keys: gplvm train --help (model.kind = probdr)\n",
          cl.help("Embed data by a classical method read as probabilistic inference (model.kind = probdr): a "
                  "Wishart model, or a neighbour embedding (sne, tsne, umap).")
              .c_str(),
          method_list().c_str());
    return kExitOk;
  }
  Arguments train = {"--model.kind=probdr", "--probdr.method=" + cl.required("method"),
                     "--data.path=" + cl.required("data"), "--output.path=" + cl.required("output")};
  if (cl.has("config")) train.push_back("--config=" + cl.value_or("config", ""));
  if (cl.has("force")) train.push_back("--force");
  if (cl.has("resume")) train.push_back("--resume=" + cl.value_or("resume", ""));
  if (cl.has("json")) train.push_back("--json");
  for (const std::string& o : cl.overrides()) train.push_back("--" + o);
  return train_command(train, comm);
}

}  // namespace gplvm
