#include "gplvm/petsc/petsc_error.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// PETSc reports an error through the handler on top of its stack, once where it happened
// (PETSC_ERROR_INITIAL, with the message) and once per caller unwinding (PETSC_ERROR_REPEAT).
// This handler keeps the first report, prints nothing and lets the error code propagate.
PetscErrorCode record_petsc_error(MPI_Comm, int line, const char* function, const char* file,
                                  PetscErrorCode code, PetscErrorType type, const char* message,
                                  void* context) {
  auto& recorded = *static_cast<std::string*>(context);
  if (type == PETSC_ERROR_INITIAL) {
    recorded = std::string(message ? message : "") + " [" + (function ? function : "?") + ", " +
               (file ? file : "?") + ":" + std::to_string(line) + "]";
  } else if (recorded.empty()) {
    // An error code returned without SETERRQ: name at least where it surfaced.
    recorded = std::string("[") + (function ? function : "?") + ", " + (file ? file : "?") + ":" +
               std::to_string(line) + "]";
  }
  return code;
}

}  // namespace

PetscErrorScope::PetscErrorScope(std::string& recorded) : recorded_(recorded) {
  recorded_.clear();
  pushed_ = PetscPushErrorHandler(record_petsc_error, &recorded_) == 0;
}

PetscErrorScope::~PetscErrorScope() {
  if (pushed_) PetscPopErrorHandler();
}

void check_petsc(PetscErrorCode code, const char* call, const std::string& recorded) {
  if (code == 0) return;
  const char* generic = nullptr;
  PetscErrorMessage(code, &generic, nullptr);
  std::string what = std::string("PETSc ") + call + " failed (error " + std::to_string(code);
  if (generic) what += ": " + std::string(generic);
  what += ")";
  if (!recorded.empty()) what += ": " + recorded;
  throw Error(what, {"", call, std::to_string(code)});
}

}  // namespace gplvm
