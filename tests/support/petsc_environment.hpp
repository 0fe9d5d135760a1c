#pragma once
// One PETSc session for a whole MPI test binary, as main() holds one: set up after MPI_Init and torn
// down before MPI_Finalize (both inside RUN_ALL_TESTS). Register it once per binary:
//   const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new PetscEnvironment);
#include <gtest/gtest.h>

#include <memory>

#include "gplvm/petsc/petsc_session.hpp"

namespace gplvm::testing {

class PetscEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { session_ = std::make_unique<PetscSession>(); }
  void TearDown() override { session_.reset(); }

 private:
  std::unique_ptr<PetscSession> session_;
};

}  // namespace gplvm::testing
