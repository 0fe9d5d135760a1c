// gplvm info: what a data or run file holds.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {

int info_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("info", {{"dataset", true, "data set path for data files (default /Y)"}}, false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("usage: gplvm info FILE.h5 — describe a data or run file.").c_str());
    return kExitOk;
  }
  require(cl.positional().size() == 1, "gplvm info takes exactly one file",
          {"", "file", std::to_string(cl.positional().size()) + " given"});
  const std::string path = cl.positional().front();
  const Hdf5ResultReader file(path, comm.raw());
  JsonWriter w(0);
  w.begin_object().key("file").value(path);
  std::string text;
  if (file.exists("/params/shared")) {
    const auto n = file.read_attribute_int64("/", "num_data");
    const auto steps = file.read_attribute_int64("/", "steps");
    const std::string model = file.read_attribute_string("/", "model");
    const std::string latents = file.read_attribute_string("/", "latents");
    const double noise = file.read_scalar("/params/noise_variance");
    w.key("type").value(file.exists("/state") ? "checkpoint" : "run").key("model").value(model);
    w.key("latents").value(latents).key("num_data").value(n).key("steps").value(steps);
    w.key("noise_variance").value(noise);
    // The kernel's hyperparameters under the names it gives them (none for models without a GP
    // decoder, such as the VAE).
    std::string kernel_text;
    if (file.has_attribute("/", "kernel")) {
      w.key("kernel").value(file.read_attribute_string("/", "kernel"));
      w.key("kernel_hyperparameters").begin_object();
      for (const std::string& name : file.group_members("/params/kernel")) {
        const Vector values = file.read_values("/params/kernel/" + name);
        if (values.size() == 1) {
          w.key(name).value(values[0]);
        } else {
          w.key(name).begin_array();
          for (Index i = 0; i < values.size(); ++i) w.value(values[i]);
          w.end_array();
        }
        char entry[96];
        std::snprintf(entry, sizeof entry, "%s %s = %.4g%s", kernel_text.empty() ? "" : ",", name.c_str(),
                      values[0], values.size() > 1 ? "..." : "");
        kernel_text += entry;
      }
      w.end_object();
      kernel_text = ", kernel " + file.read_attribute_string("/", "kernel") + " (" + kernel_text + ")";
    }
    char line[768];
    std::snprintf(line, sizeof line, "%s: %s run (%s latents), N = %lld, %lld steps%s, noise = %.4g\n",
                  path.c_str(), model.c_str(), latents.c_str(), static_cast<long long>(n),
                  static_cast<long long>(steps), kernel_text.c_str(), noise);
    text = line;
  } else {
    const std::string dataset = cl.value_or("dataset", "/Y");
    const DatasetInfo info = inspect_dataset(path, dataset, comm.raw());
    w.key("type").value("data").key("dataset").value(dataset).key("rows").value(info.rows).key("cols").value(
        info.cols);
    w.key("labels").value(info.has_labels);
    text = path + ": " + dataset + " " + std::to_string(info.rows) + " x " + std::to_string(info.cols) +
           (info.has_labels ? ", with /labels\n" : ", no labels\n");
  }
  w.end_object();
  if (comm.is_root()) std::printf("%s", cl.has("json") ? (w.str() + "\n").c_str() : text.c_str());
  return kExitOk;
}

}  // namespace gplvm
