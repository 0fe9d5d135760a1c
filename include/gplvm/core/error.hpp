#pragma once
// Errors that say what failed and where: the file, the config key and the offending value.
// Every user-facing failure is one of these, so apps can print one line and exit non-zero.
#include <stdexcept>
#include <string>

namespace gplvm {

struct ErrorContext {
  // A constructor rather than an aggregate, so that a context naming only a file (or a file and a
  // key) needs no empty placeholders and trips no missing-initialiser warning.
  ErrorContext(std::string file_ = {}, std::string key_ = {}, std::string value_ = {})
      : file(std::move(file_)), key(std::move(key_)), value(std::move(value_)) {}
  std::string file;   // input or output file involved, if any
  std::string key;    // config key, dataset path or parameter name, if any
  std::string value;  // the offending value, if any
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, ErrorContext context = {});
  const ErrorContext& context() const noexcept { return context_; }
  const std::string& reason() const noexcept { return reason_; }
  // Whether every rank of the job raised this same error together (Communicator::agree), so that
  // each can exit with its code instead of aborting the job for ranks left in a collective.
  bool agreed() const noexcept { return agreed_; }
  void mark_agreed() noexcept { agreed_ = true; }

 private:
  std::string reason_;
  ErrorContext context_;
  bool agreed_ = false;
};

// Bad user input: data, config, command line.
class InputError : public Error {
 public:
  using Error::Error;
};

// A numerical failure that survived every recovery step (e.g. Cholesky after jitter escalation).
class NumericalError : public Error {
 public:
  using Error::Error;
};

// Throws InputError(what, context) unless condition holds. A literal message binds to the
// const char* overload, so a check that passes allocates nothing for it (a std::string parameter
// would build a heap copy of every message over 15 characters on every call, thousands per
// training step). The context is still built before the call: keep its strings short in checks
// that run per row, or test and throw directly there.
void require(bool condition, const char* what, ErrorContext context = {});
void require(bool condition, const std::string& what, ErrorContext context = {});

}  // namespace gplvm
