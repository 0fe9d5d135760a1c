#pragma once
// Reference numbers from NumPy / SciPy / scikit-learn through /usr/bin/python3, for tests that
// compare against an independent implementation (and skip where Python or its packages are missing).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm::testing {

inline constexpr const char* kPython = "/usr/bin/python3";

inline void write_matrix(std::ostream& out, const Matrix& M) {
  out.precision(17);
  out << M.rows() << " " << M.cols() << "\n";
  for (Index i = 0; i < M.rows(); ++i) {
    for (Index j = 0; j < M.cols(); ++j) out << M(i, j) << " ";
    out << "\n";
  }
}

// The numbers the script prints (whitespace-separated) for the input matrices, which it finds in
// the list M (NumPy arrays); empty when Python, NumPy or the script's imports cannot be run.
inline std::vector<double> python_reference(const std::string& script, const std::vector<Matrix>& inputs) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = (dir / ("python_reference_" + std::to_string(::getpid()))).string();
  {
    std::ofstream in(stem + ".txt");
    for (const Matrix& m : inputs) write_matrix(in, m);
    std::ofstream py(stem + ".py");
    py << "import sys\nimport numpy as np\n"
          "def matrices(path):\n"
          "    tok = open(path).read().split()\n"
          "    out, at = [], 0\n"
          "    while at < len(tok):\n"
          "        r, c = int(tok[at]), int(tok[at + 1]); at += 2\n"
          "        out.append(np.array(tok[at:at + r * c], dtype=float).reshape(r, c)); at += r * c\n"
          "    return out\n"
          "M = matrices(sys.argv[1])\n"
       << script;
  }
  const std::string command = std::string(kPython) + " " + stem + ".py " + stem + ".txt 2>/dev/null";
  std::vector<double> values;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    double v;
    while (std::fscanf(pipe, "%lf", &v) == 1) values.push_back(v);
    if (::pclose(pipe) != 0) values.clear();
  }
  std::filesystem::remove(stem + ".txt");
  std::filesystem::remove(stem + ".py");
  return values;
}

}  // namespace gplvm::testing
