// gplvm generate: synthetic data sets with their true latents (/Y, /latent_true, /labels).
// gp_rff is generated in row blocks on every rank (any N); the others on rank 0.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/synthetic/synthetic.hpp"

namespace gplvm {
namespace {

std::int64_t parse_int(const CommandLine& cl, const std::string& name, std::int64_t fallback) {
  const auto v = cl.value(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const long long x = std::stoll(*v, &used);
    if (used == v->size()) return x;
  } catch (const std::exception&) {
  }
  throw InputError("expected an integer", {"", "--" + name, *v});
}

double parse_double(const CommandLine& cl, const std::string& name, double fallback) {
  const auto v = cl.value(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const double x = std::stod(*v, &used);
    if (used == v->size()) return x;
  } catch (const std::exception&) {
  }
  throw InputError("expected a number", {"", "--" + name, *v});
}

// This rank's rows of the requested generator: [begin, begin + rows of the result).
SyntheticData generate_local(const CommandLine& cl, const std::string& kind, const Communicator& comm,
                             std::uint64_t& begin, std::uint64_t& total) {
  const std::int64_t n = parse_int(cl, "n", 1000), d = parse_int(cl, "d", 50), q = parse_int(cl, "q", 2);
  const auto seed = static_cast<std::uint64_t>(parse_int(cl, "seed", 0));
  const double noise = parse_double(cl, "noise", kind == "gp" || kind == "gp_rff" ? 0.01 : 0.05);
  const double lengthscale = parse_double(cl, "lengthscale", 1.0);
  require(kind == "gp" || kind == "gp_rff" || kind == "swiss_roll" || kind == "cycle" || kind == "tree",
          "unknown generator (gp, gp_rff, swiss_roll, cycle, tree)", {"", "--kind", kind});
  if (kind == "gp_rff") {
    const GpRandomFeatures generator(n, d, q, seed, 1.0, lengthscale, noise);
    const RowPartition part(static_cast<std::uint64_t>(n), comm.size());
    begin = part.begin(comm.rank());
    total = static_cast<std::uint64_t>(n);
    return generator.generate_rows(static_cast<Index>(begin), static_cast<Index>(part.count(comm.rank())));
  }
  total = kind == "tree"
              ? static_cast<std::uint64_t>((1ll << parse_int(cl, "depth", 4)) * parse_int(cl, "per-leaf", 50))
              : static_cast<std::uint64_t>(n);
  begin = comm.is_root() ? 0 : total;
  if (!comm.is_root()) {  // the exact generators are serial: rank 0 writes every row
    SyntheticData none;
    none.Y.resize(0, d);
    none.latent_true.resize(0, kind == "gp" ? q : 2);
    return none;
  }
  if (kind == "gp") return gp_samples(n, d, q, seed, 1.0, lengthscale, noise);
  if (kind == "swiss_roll") return swiss_roll(n, d, seed, noise);
  if (kind == "cycle") return rotating_pattern_cycle(n, d, seed, noise);
  return binary_tree(parse_int(cl, "depth", 4), parse_int(cl, "per-leaf", 50), d, seed, noise);
}

}  // namespace

int generate_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("generate",
                 {{"kind", true, "gp | gp_rff | swiss_roll | cycle | tree"},
                  {"output", true, "HDF5 file to write"},
                  {"n", true, "number of points (default 1000)"},
                  {"d", true, "data dimension (default 50; cycle: a square number, e.g. 256)"},
                  {"q", true, "latent dimension for gp and gp_rff (default 2)"},
                  {"seed", true, "seed (default 0)"},
                  {"noise", true,
                   "noise: a variance for gp/gp_rff (default 0.01), a standard deviation otherwise (0.05)"},
                  {"lengthscale", true, "kernel lengthscale for gp/gp_rff (default 1)"},
                  {"depth", true, "tree depth (default 4)"},
                  {"per-leaf", true, "tree points per leaf (default 50)"},
                  {"float32", false, "store /Y as float32"}},
                 false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Write a synthetic data set with /Y, /latent_true and /labels.").c_str());
    return kExitOk;
  }
  const std::string kind = cl.required("kind"), output = cl.required("output");
  Hdf5ResultWriter::check_writable(output);
  clean_stale_temporaries_beside(output, comm);
  std::uint64_t begin = 0, total = 0;
  const SyntheticData data = generate_local(cl, kind, comm, begin, total);
  const std::string description = comm.broadcast(data.description);  // attributes are written collectively
  Hdf5ResultWriter out(output, comm.raw());
  out.write_distributed_rows("/Y", data.Y, begin, total,
                             cl.has("float32") ? StorageType::float32 : StorageType::float64);
  out.write_distributed_rows("/latent_true", RowMatrix(data.latent_true), begin, total);
  out.write_distributed_int64("/labels", data.labels, begin, total);
  out.write_attribute("/", "generator", description);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w(0);
      w.begin_object().key("command").value("generate").key("output").value(output).key("kind").value(kind);
      w.key("rows").value(total).key("cols").value(static_cast<std::int64_t>(data.Y.cols()));
      w.key("description").value(description).end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: %s\n", output.c_str(), description.c_str());
    }
  }
  return kExitOk;
}

}  // namespace gplvm
