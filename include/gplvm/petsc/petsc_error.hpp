#pragma once
// PETSc's errors as gplvm::Error: the code's text, and the specific message PETSc raised it with.
#include <petscsys.h>

#include <string>

namespace gplvm {

// Routes PETSc's error reports to `recorded` for the lifetime of the scope: the first report of an
// error (where it happened, with its message) is kept and nothing is printed, so the message ends
// up in the gplvm::Error instead of a traceback on stderr. The handler stack is global, so a scope
// is opened only around the project's own PETSc calls.
class PetscErrorScope {
 public:
  explicit PetscErrorScope(std::string& recorded);
  ~PetscErrorScope();
  PetscErrorScope(const PetscErrorScope&) = delete;
  PetscErrorScope& operator=(const PetscErrorScope&) = delete;

 private:
  std::string& recorded_;
  bool pushed_ = false;
};

// Throws gplvm::Error for a nonzero PETSc error code: PETSc's text for the code and, if an error
// scope recorded one, the specific message and where it was raised.
void check_petsc(PetscErrorCode code, const char* call, const std::string& recorded = {});

}  // namespace gplvm
