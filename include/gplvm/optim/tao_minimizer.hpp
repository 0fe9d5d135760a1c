#pragma once
// Bound-constrained L-BFGS (PETSc TAO, TAOBLMVM) for full-batch objectives whose parameters are
// distributed over a communicator: each rank owns a contiguous slice of one global vector (any
// length, zero included) and evaluates the objective collectively.
//
// PETSc is an implementation detail: this header includes no PETSc header, every PETSc error
// becomes a gplvm::Error carrying PETSc's message, and the solver is configured only by
// TaoOptions (TaoSetFromOptions is never called, so a stray -tao_* option cannot change a run).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_session.hpp"  // TaoMinimizer needs a live PetscSession

namespace gplvm {

// Why TAO stopped (PETSc's TaoConvergedReason).
enum class TaoStopReason {
  gradient_absolute,   // ||g|| <= gatol
  gradient_relative,   // ||g|| / |f| <= grtol
  gradient_decrease,   // ||g|| / ||g_0|| <= gttol
  step_tolerance,      // the step became too small to change the iterate
  objective_minimum,   // f fell below TAO's lower bound on the objective
  stop_requested,      // TaoOptions::should_stop returned true
  objective_relative,  // f fell by at most frtol |f| over the last frtol_window iterations
  max_iterations,
  max_function_evaluations,
  not_a_number,  // the objective or gradient became NaN or infinite
  line_search_failure,
  trust_region_reduction,
  user_diverged,
  still_iterating,  // never returned after TaoSolve; listed for completeness
};

// True for the three gradient tolerances: a run that stopped there has a small projected gradient.
bool stopped_on_gradient_tolerance(TaoStopReason reason) noexcept;
// True where the run converged: a gradient tolerance, or the objective's relative change.
bool stopped_converged(TaoStopReason reason) noexcept;
// A short name, e.g. "gradient_absolute (||g|| <= gatol)".
std::string to_string(TaoStopReason reason);

// One TAO iteration as its monitor saw it (iteration 0 is the initial point).
struct TaoIterate {
  int iteration = 0;
  double objective = 0;
  double gradient_norm = 0;  // of the projected gradient (bound-constrained), the one tested
};

struct TaoOptions {
  // TAO's three gradient tolerances (TaoSetTolerances); a tolerance of 0 is switched off.
  double gatol = 1e-8;
  double grtol = 1e-8;
  double gttol = 0;
  int max_iterations = 1000;
  int max_function_evaluations = 100000;
  // Converged when f fell by at most frtol |f| over the last frtol_window iterations (0: off): L-BFGS
  // on a GPLVM's bound creeps for hundreds of iterations at changes no result shows (1,920
  // iterations where the first few hundred were within 0.1% of the end).
  double frtol = 0;
  int frtol_window = 10;
  // Called on every rank after each iteration (after the history records it), e.g. for progress.
  std::function<void(const TaoIterate&)> on_iteration;
  // Polled on every rank after each iteration; true ends the solve cleanly at the current iterate
  // (reason stop_requested), e.g. on SIGTERM. Must answer the same on every rank (agree first).
  std::function<bool()> should_stop;
};

// L-BFGS's memory: the iterates whose updates built TAO's limited-memory BFGS matrix, oldest first
// (at most kTaoLbfgsHistory + 1 of them; the last is the iterate before the solve's final one).
// Replaying them (MatLMVMUpdate, each after the initial-scaling value TAO sets there) on a fresh
// matrix rebuilds it bit for bit: its pairs are differences of consecutive points, and its initial
// Hessian scaling (TAO's scalar one, fixed here) is a function of the newest pair. A solve that
// starts with this memory at the iterate that followed it continues as the solve that recorded it.
struct TaoMemoryPoint {
  Vector x;                  // this rank's slice of the iterate
  Vector gradient;           // this rank's slice of the projected gradient there (what BLMVM records)
  double objective = 0;      // TAO's (minimised) objective there
  double gradient_norm = 0;  // of the projected gradient
};
struct TaoMemory {
  std::vector<TaoMemoryPoint> points;
};
// The BFGS matrix's number of pairs (PETSc's default, set explicitly).
constexpr int kTaoLbfgsHistory = 5;

struct TaoResult {
  Vector solution;  // this rank's slice of the final iterate
  TaoStopReason reason = TaoStopReason::still_iterating;
  bool converged = false;  // stopped_on_gradient_tolerance(reason)
  int iterations = 0;
  double objective = 0;             // at the solution
  double gradient_norm = 0;         // projected, at the solution
  std::vector<TaoIterate> history;  // one entry per monitor call, iteration 0 first
  // Set when the solve was stopped by TaoOptions::should_stop (reason stop_requested) and its
  // memory was verified to be rebuilt exactly by a replay (the matrix's inverse applied to the last
  // gradient, compared bit for bit); false (points empty) when a reset of the memory (a gradient
  // step after a non-descent direction, a failed line search) or a rejected pair made the recent
  // iterates an incomplete record of it.
  bool memory_restorable = false;
  TaoMemory memory;
};

// Collective: given this rank's slice of x, returns the GLOBAL objective (the same on every rank)
// and writes this rank's slice of its gradient. It must throw on every rank alike or on none
// (the rest of TAO is collective: a rank that throws alone leaves the others waiting).
using DistributedObjective = std::function<double(const ConstVectorRef& local_x, VectorRef local_gradient)>;

class TaoMinimizer {
 public:
  // Collective over comm: a vector with `local_size` entries on this rank. Bounds default to
  // (-inf, +inf) everywhere. Needs a PetscSession that outlives it (Error if PETSc is not
  // initialised). Throws InputError on
  // every rank for bad options or sizes.
  TaoMinimizer(const Communicator& comm, Index local_size, TaoOptions options = {});
  ~TaoMinimizer();
  TaoMinimizer(const TaoMinimizer&) = delete;
  TaoMinimizer& operator=(const TaoMinimizer&) = delete;

  Index local_size() const noexcept;

  // This rank's slice of the lower and upper bounds; +-infinity means unbounded. Collective
  // (InputError on every rank if any rank's bounds are NaN, inverted or of the wrong size).
  void set_bounds(const ConstVectorRef& lower, const ConstVectorRef& upper);

  // Minimises from this rank's slice of the initial point (projected onto the bounds first, as
  // BLMVM does). Collective. An exception thrown by the objective is rethrown unchanged; a PETSc
  // failure is a gplvm::Error with PETSc's message. Can be called again (a fresh solve each time).
  // With `memory` (TaoResult::memory of a stopped solve, `initial` its final iterate) the L-BFGS
  // matrix is rebuilt from it before the first step instead of starting empty; InputError on every
  // rank if its points do not fit (sizes, NaN or Inf, more than kTaoLbfgsHistory + 1 points).
  TaoResult minimize(const ConstVectorRef& initial, const DistributedObjective& objective,
                     const TaoMemory* memory = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gplvm
