// gplvm generate: synthetic data sets with their true latents (/Y, /latent_true, /labels).
// gp_rff is generated in row blocks on every rank (any N); the others on rank 0. binary_tree also
// writes /codes.
#include <cstdio>
#include <limits>
#include <map>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/synthetic/manifold_generators.hpp"
#include "gplvm/synthetic/synthetic.hpp"
#include "gplvm/synthetic/synthetic_binary_tree.hpp"

namespace gplvm {
namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;  // rows or columns: far beyond any disk
constexpr double kMaxReal = std::numeric_limits<double>::max();
// Rows when --n is not given: several default batches (sas.batch_size = 1024), so the default
// data train with the default settings and an epoch holds more than one step.
constexpr std::int64_t kDefaultRows = 5000;
// Manifold data sets are trained by exact GPs on their tangent coordinates: a few hundred points.
constexpr std::int64_t kDefaultManifoldRows = 500;

// The default data dimension of a generator: the cycle's images must be square (16 x 16).
std::int64_t default_dim(const std::string& kind) {
  return kind == "cycle" ? 256 : 50;
}

// The generators name their parameters (output_dim, num_rows, ...); the command's errors name the
// options that set them.
InputError with_option_names(const InputError& e) {
  static const std::map<std::string, std::string> option = {{"num_rows", "--n"},
                                                            {"output_dim", "--d"},
                                                            {"latent_dim", "--q"},
                                                            {"noise", "--noise"},
                                                            {"noise_variance", "--noise"},
                                                            {"point_noise", "--noise"},
                                                            {"lengthscale", "--lengthscale"},
                                                            {"depth", "--depth"},
                                                            {"points_per_leaf", "--per-leaf"},
                                                            {"landmarks", "--landmarks"},
                                                            {"samples_per_node", "--per-node"}};
  const auto it = option.find(e.context().key);
  return InputError(e.reason(),
                    {e.context().file, it == option.end() ? e.context().key : it->second, e.context().value});
}

// Runs a generator on the ranks that call it, with its errors naming the command's options.
template <class F>
SyntheticData generate_named(F&& generator) {
  try {
    return generator();
  } catch (const InputError& e) {
    throw with_option_names(e);
  }
}

// The tree's size: --n points spread over the 2^depth leaves, or --per-leaf points on each (800 by
// default); both at once must agree.
std::int64_t tree_rows(const CommandLine& cl, std::int64_t depth) {
  const std::int64_t leaves = std::int64_t{1} << depth;
  const std::int64_t per_leaf = cl.integer_or("per-leaf", 50, 1, kMaxCount >> depth);
  if (!cl.value("n")) return leaves * per_leaf;
  const std::int64_t n = cl.integer_or("n", 0, 1, kMaxCount);
  require(!cl.value("per-leaf") || n == leaves * per_leaf,
          "--n and --per-leaf disagree: a tree of depth " + std::to_string(depth) + " with --per-leaf " +
              std::to_string(per_leaf) + " has " + std::to_string(leaves * per_leaf) +
              " points (give one of them)",
          {"", "--n", std::to_string(n)});
  return n;
}

// The synthetic binary tree on rank 0 (its size and width follow from --depth and --per-node;
// --n and --d may restate them, and its noise is fixed by the construction).
SyntheticData generate_sbt(const CommandLine& cl, const Communicator& comm, std::uint64_t& total,
                           RowMatrix& codes) {
  const std::int64_t depth = cl.integer_or("depth", 4, 2, 12);
  const std::int64_t nodes = binary_tree_nodes(depth);
  const std::int64_t per_node = cl.integer_or("per-node", 20, 1, kMaxCount / nodes);
  require(!cl.value("n") || cl.integer_or("n", 0, 1, kMaxCount) == nodes * per_node,
          "--n disagrees with the binary tree: depth " + std::to_string(depth) + " with --per-node " +
              std::to_string(per_node) + " has " + std::to_string(nodes * per_node) + " rows",
          {"", "--n", cl.value("n").value_or("")});
  require(!cl.value("d") || cl.integer_or("d", 0, 1, kMaxCount) == nodes,
          "--d disagrees with the binary tree: depth " + std::to_string(depth) + " has codes of length " +
              std::to_string(nodes),
          {"", "--d", cl.value("d").value_or("")});
  require(!cl.value("noise"),
          "the binary tree's noise is its fixed angle oscillation: --noise does not apply",
          {"", "--noise", cl.value("noise").value_or("")});
  const std::uint64_t seed = cl.unsigned_or("seed", 0);
  total = static_cast<std::uint64_t>(nodes * per_node);
  SyntheticData data;
  data.Y.resize(0, nodes);
  data.latent_true.resize(0, 2);
  codes.resize(0, nodes);
  comm.on_root([&] {
    data = generate_named([&] {
      SyntheticBinaryTree tree = synthetic_binary_tree(depth, seed, per_node);
      codes = std::move(tree.codes);
      return std::move(tree.data);
    });
  });
  return data;
}

bool is_manifold_kind(const std::string& kind) {
  return kind == "sphere_curve" || kind == "shapes" || kind == "spd_tensors" || kind == "spd_covariances";
}

// Data on an output manifold (serial, on rank 0). Their width is fixed by the manifold (shapes:
// 2 x --landmarks), so --d and --q do not apply; float64 only, since float32 rounding would put
// the points off their manifold by more than its membership tolerance.
SyntheticData generate_manifold_data(const CommandLine& cl, const std::string& kind, const Communicator& comm,
                                     std::uint64_t& begin, std::uint64_t& total) {
  for (const char* option : {"d", "q", "lengthscale", "depth", "per-leaf", "per-node", "float32"})
    require(!cl.has(option), "--" + std::string(option) + " does not apply to --kind " + kind,
            {"", "--" + std::string(option), kind});
  require(kind == "shapes" || !cl.has("landmarks"), "--landmarks applies to --kind shapes only",
          {"", "--landmarks", kind});
  // Each row is drawn on its own (no GP over the rows), so the count is bounded by memory only.
  const std::int64_t n = cl.integer_or("n", kDefaultManifoldRows, 1, kMaxCount);
  const std::int64_t landmarks = cl.integer_or("landmarks", 20, 3, 100000);
  const std::uint64_t seed = cl.unsigned_or("seed", 0);
  const double noise = cl.real_or("noise", kind == "shapes" ? 0.01 : 0.02, 0, kMaxReal);
  total = static_cast<std::uint64_t>(n);
  begin = comm.is_root() ? 0 : total;
  SyntheticData data;
  const Index width = kind == "sphere_curve"  ? 3
                      : kind == "shapes"      ? 2 * landmarks
                      : kind == "spd_tensors" ? 9
                                              : 100;
  data.Y.resize(0, width);
  data.latent_true.resize(0, kind == "sphere_curve" ? 1 : 2);
  comm.on_root([&] {
    data = generate_named([&] {
      if (kind == "sphere_curve") return sphere_curve(n, seed, noise);
      if (kind == "shapes") return planar_shapes(n, landmarks, seed, noise);
      if (kind == "spd_tensors") return spd_tensors(n, seed, noise);
      return spd_covariances(n, seed, noise);
    });
  });
  // Every rank writes with the same layout (the writer checks it collectively).
  const SyntheticData layout = kind == "sphere_curve"  ? sphere_curve(1, 0, 0)
                               : kind == "shapes"      ? planar_shapes(1, landmarks, 0, 0)
                               : kind == "spd_tensors" ? spd_tensors(1, 0, 0)
                                                       : spd_covariances(1, 0, 0);
  data.point_shape = layout.point_shape;
  data.output_space = layout.output_space;
  return data;
}

// This rank's rows of the requested generator: [begin, begin + rows of the result).
SyntheticData generate_local(const CommandLine& cl, const std::string& kind, const Communicator& comm,
                             std::uint64_t& begin, std::uint64_t& total, RowMatrix& codes) {
  require(kind == "gp" || kind == "gp_rff" || kind == "swiss_roll" || kind == "cycle" || kind == "tree" ||
              kind == "binary_tree" || is_manifold_kind(kind),
          "unknown generator (gp, gp_rff, swiss_roll, cycle, tree, binary_tree, sphere_curve, shapes, "
          "spd_tensors, spd_covariances)",
          {"", "--kind", kind});
  if (is_manifold_kind(kind)) return generate_manifold_data(cl, kind, comm, begin, total);
  if (kind == "binary_tree") {
    SyntheticData data = generate_sbt(cl, comm, total, codes);
    begin = comm.is_root() ? 0 : total;
    return data;
  }
  const std::int64_t depth = cl.integer_or("depth", 4, 1, 20);
  const std::int64_t n =
      kind == "tree" ? tree_rows(cl, depth) : cl.integer_or("n", kDefaultRows, 1, kMaxCount);
  const std::int64_t d = cl.integer_or("d", default_dim(kind), 1, kMaxCount),
                     q = cl.integer_or("q", 2, 1, kMaxCount);
  const std::uint64_t seed = cl.unsigned_or("seed", 0);
  const double noise = cl.real_or("noise", kind == "gp" || kind == "gp_rff" ? 0.01 : 0.05, 0, kMaxReal);
  const double lengthscale = cl.real_or("lengthscale", 1.0, 0, kMaxReal);
  if (lengthscale == 0) throw InputError("lengthscale must be positive", {"", "--lengthscale", "0"});
  if (kind == "gp_rff") {
    const RowPartition part(static_cast<std::uint64_t>(n), comm.size());
    begin = part.begin(comm.rank());
    total = static_cast<std::uint64_t>(n);
    return generate_named([&] {
      return GpRandomFeatures(n, d, q, seed, 1.0, lengthscale, noise)
          .generate_rows(static_cast<Index>(begin), static_cast<Index>(part.count(comm.rank())));
    });
  }
  total = static_cast<std::uint64_t>(n);
  begin = comm.is_root() ? 0 : total;
  // The exact generators are serial: rank 0 writes every row, after every rank has learnt whether
  // the parameters were valid (the others would otherwise wait in the collective write).
  SyntheticData data;
  data.Y.resize(0, d);
  data.latent_true.resize(0, kind == "gp" ? q : 2);
  comm.on_root([&] {
    data = generate_named([&] {
      if (kind == "gp") return gp_samples(n, d, q, seed, 1.0, lengthscale, noise);
      if (kind == "swiss_roll") return swiss_roll(n, d, seed, noise);
      if (kind == "cycle") return rotating_pattern_cycle(n, d, seed, noise);
      return binary_tree_rows(depth, n, d, seed, noise);
    });
  });
  return data;
}

}  // namespace

int generate_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl(
      "generate",
      {{"kind", true,
        "gp | gp_rff | swiss_roll | cycle | tree | binary_tree | sphere_curve | shapes | spd_tensors | "
        "spd_covariances"},
       {"output", true, "HDF5 file to write"},
       {"n", true,
        "number of points (default 5000, more than one default batch of 1024; tree: spread over "
        "the leaves, default 800; manifold kinds: default 500)"},
       {"d", true, "data dimension (default 50; cycle: a square number, default 256 = 16 x 16)"},
       {"q", true, "latent dimension for gp and gp_rff (default 2)"},
       {"seed", true, "seed (default 0)"},
       {"noise", true,
        "noise: a variance for gp/gp_rff (default 0.01), a standard deviation otherwise (0.05)"},
       {"lengthscale", true, "kernel lengthscale for gp/gp_rff (default 1)"},
       {"depth", true, "tree depth (default 4; binary_tree: 2..12, N = per-node (2^depth - 1))"},
       {"per-node", true, "binary_tree samples per node (default 20)"},
       {"per-leaf", true, "tree points per leaf instead of --n (default 50)"},
       {"landmarks", true, "shapes: landmarks per shape (default 20)"},
       {"float32", false, "store /Y as float32"}},
      false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Write a synthetic data set with /Y, /latent_true and /labels "
                                "(binary_tree also /codes, each row's clean binary code).")
                            .c_str());
    return kExitOk;
  }
  const std::string kind = cl.required("kind"), output = cl.required("output");
  Hdf5ResultWriter::check_writable(output);
  clean_stale_temporaries_beside(output, comm);
  std::uint64_t begin = 0, total = 0;
  RowMatrix codes;
  const SyntheticData data = generate_local(cl, kind, comm, begin, total, codes);
  const std::string description = comm.broadcast(data.description);  // attributes are written collectively
  Hdf5ResultWriter out(output, comm.raw());
  out.write_distributed_rows("/Y", data.Y, begin, total,
                             cl.has("float32") ? StorageType::float32 : StorageType::float64,
                             data.point_shape);
  if (!data.output_space.empty()) out.write_attribute("/Y", kOutputSpaceAttribute, data.output_space);
  out.write_distributed_rows("/latent_true", RowMatrix(data.latent_true), begin, total);
  out.write_distributed_int64("/labels", data.labels, begin, total);
  if (kind == "binary_tree") out.write_distributed_rows("/codes", codes, begin, total);
  out.write_attribute("/", "generator", description);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w = json_summary("generate");
      w.key("output").value(output).key("kind").value(kind);
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
