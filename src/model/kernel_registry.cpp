#include "gplvm/model/kernel_registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_manifold.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/hyperboloid_exp_kernel.hpp"
#include "gplvm/model/linear_kernel.hpp"
#include "gplvm/model/matern_kernel.hpp"
#include "gplvm/model/periodic_kernel.hpp"
#include "gplvm/model/product_kernel.hpp"
#include "gplvm/model/sphere_eq_kernel.hpp"
#include "gplvm/model/sum_kernel.hpp"

namespace gplvm {
namespace {

constexpr const char* kKey = "model.kernel";

// The built-ins are added where the registry is made, not by static initialisers in the kernels'
// own files: a static library drops an object file nothing refers to, and its registration with it.
struct Registry {
  Registry();
  std::mutex mutex;
  std::map<std::string, KernelFactory> factories;
  std::map<std::string, std::string> input_domains;  // absent: euclidean
  std::map<std::string, KernelSetting> settings;     // by key
};

Registry::Registry() {
  const auto lengthscales = [](Index q, const KernelInit& init) {
    return Vector::Constant(std::max<Index>(q, 0), init.lengthscale);
  };
  factories["eq_ard"] = [](Index q, const KernelInit& init) {
    return std::make_unique<EqArdKernel>(init.variance, init.lengthscale, q);
  };
  factories["matern32"] = [=](Index q, const KernelInit& init) {
    return std::make_unique<MaternArdKernel>(MaternSmoothness::three_halves, init.variance,
                                             lengthscales(q, init));
  };
  factories["matern52"] = [=](Index q, const KernelInit& init) {
    return std::make_unique<MaternArdKernel>(MaternSmoothness::five_halves, init.variance,
                                             lengthscales(q, init));
  };
  factories["linear"] = [](Index q, const KernelInit& init) {
    return std::make_unique<LinearArdKernel>(Vector::Constant(std::max<Index>(q, 0), init.variance));
  };
  factories["periodic"] = [=](Index q, const KernelInit& init) {
    return std::make_unique<PeriodicKernel>(init.variance, lengthscales(q, init), init.period);
  };
  // Inputs are Lorentz coordinates (q = Q + 1 columns); the lengthscale is kappa.
  factories["hyperboloid_exp"] = [](Index q, const KernelInit& init) {
    return std::make_unique<HyperboloidExpKernel>(init.variance, init.lengthscale, q);
  };
  input_domains["hyperboloid_exp"] = kLorentzSpace;
  // Inputs are unit vectors in R^{Q+1} (q = Q + 1 columns).
  factories["sphere_eq"] = [](Index q, const KernelInit& init) {
    return std::make_unique<SphereEqKernel>(init.variance, init.lengthscale, q);
  };
  input_domains["sphere_eq"] = kSphereSpace;
}

Registry& registry() {
  static Registry r;
  return r;
}

bool is_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string joined_names() {
  std::string out;
  for (const auto& name : registered_kernels()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// Recursive descent over
//   sum     := product ('+' product)*
//   product := factor ('*' factor)*
//   factor  := name | '(' sum ')'
// with whitespace between tokens; + and * are left-associative.
class Parser {
 public:
  Parser(const std::string& expression, Index input_dim, const KernelInit& init)
      : text_(expression), input_dim_(input_dim), init_(init) {}

  std::unique_ptr<Kernel> parse() {
    auto kernel = sum();
    skip_space();
    if (pos_ != text_.size()) fail(std::string("unexpected '") + text_[pos_] + "'");
    return kernel;
  }

 private:
  std::unique_ptr<Kernel> sum() {
    auto left = product();
    while (accept('+')) left = std::make_unique<SumKernel>(std::move(left), product());
    return left;
  }

  std::unique_ptr<Kernel> product() {
    auto left = factor();
    while (accept('*')) left = std::make_unique<ProductKernel>(std::move(left), factor());
    return left;
  }

  std::unique_ptr<Kernel> factor() {
    if (accept('(')) {
      auto inner = sum();
      if (!accept(')')) fail("missing ')'");
      return inner;
    }
    skip_space();
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && is_name_character(text_[pos_])) ++pos_;
    if (pos_ == begin)
      fail(pos_ == text_.size() ? "a kernel name is missing at the end"
                                : std::string("a kernel name is expected before '") + text_[pos_] + "'");
    return build(text_.substr(begin, pos_ - begin));
  }

  std::unique_ptr<Kernel> build(const std::string& name) {
    KernelFactory factory;
    {
      Registry& r = registry();
      const std::lock_guard lock(r.mutex);
      const auto it = r.factories.find(name);
      if (it != r.factories.end()) factory = it->second;
    }
    if (!factory) fail("unknown kernel '" + name + "'");
    auto kernel = factory(input_dim_, init_);
    if (!kernel) fail("the factory of kernel '" + name + "' made no kernel");
    return kernel;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("kernel expression '" + text_ + "': " + what + " (registered kernels: " +
                         joined_names() + "; combine them with + and *, and parentheses)",
                     {"", kKey, text_});
  }

  const std::string& text_;
  Index input_dim_;
  const KernelInit& init_;
  std::size_t pos_ = 0;
};

}  // namespace

double KernelInit::setting(const std::string& key, double fallback) const {
  const auto it = settings.find(key);
  return it == settings.end() ? fallback : it->second;
}

void register_kernel(const std::string& name, KernelFactory factory, const std::string& input_domain,
                     std::vector<KernelSetting> settings) {
  const bool valid_name = !name.empty() && std::all_of(name.begin(), name.end(), is_name_character);
  require(valid_name, "a kernel name must be lower-case letters, digits and '_'", {"", kKey, name});
  require(static_cast<bool>(factory), "a registered kernel needs a factory", {"", kKey, name});
  require(!input_domain.empty(), "a registered kernel needs an input domain", {"", kKey, name});
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (const KernelSetting& setting : settings) {
    require(setting.key.rfind("model.", 0) == 0 && setting.key.size() > 6,
            "a kernel setting's configuration key must be model.<name>",
            {"", kKey, name + ": " + setting.key});
    require(setting.initial > 0 && std::isfinite(setting.initial),
            "a kernel setting's default must be positive",
            {"", setting.key, std::to_string(setting.initial)});
  }
  r.factories[name] = std::move(factory);
  r.input_domains[name] = input_domain;
  for (KernelSetting& setting : settings) r.settings[setting.key] = std::move(setting);
}

std::vector<KernelSetting> registered_kernel_settings() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<KernelSetting> settings;
  for (const auto& [key, setting] : r.settings) settings.push_back(setting);
  return settings;
}

std::string kernel_input_domain(const std::string& name) {
  require(is_registered_kernel(name), "unknown kernel '" + name + "' (known: " + joined_names() + ")",
          {"", kKey, name});
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto it = r.input_domains.find(name);
  return it == r.input_domains.end() ? kEuclideanKernelDomain : it->second;
}

bool is_registered_kernel(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.factories.count(name) > 0;
}

std::vector<std::string> registered_kernels() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;  // a std::map keeps them sorted
}

std::string kernel_help() {
  std::map<std::string, std::string> by_domain;
  for (const std::string& name : registered_kernels()) {
    std::string& names = by_domain[kernel_input_domain(name)];
    names += (names.empty() ? "" : ", ") + name;
  }
  std::string text;
  for (const auto& [domain, names] : by_domain) text += (text.empty() ? "" : "; ") + domain + ": " + names;
  return text;
}

std::unique_ptr<Kernel> make_kernel(const std::string& expression, Index input_dim, const KernelInit& init) {
  return Parser(expression, input_dim, init).parse();
}

}  // namespace gplvm
