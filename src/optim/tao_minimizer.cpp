#include "gplvm/optim/tao_minimizer.hpp"

#include <petsc/private/taoimpl.h>  // Tao's context pointer: TAOBLMVM's BFGS matrix (below)
#include <petsctao.h>

#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/petsc/petsc_vector.hpp"

namespace gplvm {
namespace {

using TaoHandle = PetscHandle<Tao, TaoDestroy>;
using MatHandle = PetscHandle<Mat, MatDestroy>;

// ---------------------------------------------------------------------------------------------
// Collective validation

std::string size_problem(Index actual, Index expected, const char* what, int rank) {
  if (actual == expected) return "";
  return std::string(what) + " on rank " + std::to_string(rank) + " has " + std::to_string(actual) +
         " entries but the rank owns " + std::to_string(expected) + " parameters";
}

void validate_options(const TaoOptions& o) {
  for (const auto& [name, value] : {std::pair{"gatol", o.gatol}, {"grtol", o.grtol}, {"gttol", o.gttol}})
    require(std::isfinite(value) && value >= 0, "TAO tolerances must be finite and non-negative",
            {"", name, std::to_string(value)});
  require(
      std::isfinite(o.frtol) && o.frtol >= 0 && o.frtol_window >= 1,
      "the objective's relative tolerance must be finite and >= 0, over a window of at least one iteration",
      {"", "frtol", std::to_string(o.frtol)});
  require(o.max_iterations >= 0, "the maximum number of iterations must be non-negative",
          {"", "max_iterations", std::to_string(o.max_iterations)});
  require(o.max_function_evaluations >= 1, "the maximum number of function evaluations must be positive",
          {"", "max_function_evaluations", std::to_string(o.max_function_evaluations)});
}

// TAO treats +-PETSC_INFINITY (not IEEE infinity) as "no bound".
double to_petsc_bound(double bound) {
  if (bound >= PETSC_INFINITY) return PETSC_INFINITY;
  if (bound <= PETSC_NINFINITY) return PETSC_NINFINITY;
  return bound;
}

TaoStopReason from_petsc(TaoConvergedReason reason) {
  switch (reason) {
    case TAO_CONVERGED_GATOL:
      return TaoStopReason::gradient_absolute;
    case TAO_CONVERGED_GRTOL:
      return TaoStopReason::gradient_relative;
    case TAO_CONVERGED_GTTOL:
      return TaoStopReason::gradient_decrease;
    case TAO_CONVERGED_STEPTOL:
      return TaoStopReason::step_tolerance;
    case TAO_CONVERGED_MINF:
      return TaoStopReason::objective_minimum;
    case TAO_CONVERGED_USER:
      return TaoStopReason::stop_requested;
    case TAO_DIVERGED_MAXITS:
      return TaoStopReason::max_iterations;
    case TAO_DIVERGED_NAN:
      return TaoStopReason::not_a_number;
    case TAO_DIVERGED_MAXFCN:
      return TaoStopReason::max_function_evaluations;
    case TAO_DIVERGED_LS_FAILURE:
      return TaoStopReason::line_search_failure;
    case TAO_DIVERGED_TR_REDUCTION:
      return TaoStopReason::trust_region_reduction;
    case TAO_DIVERGED_USER:
      return TaoStopReason::user_diverged;
    case TAO_CONTINUE_ITERATING:
      return TaoStopReason::still_iterating;
  }
  throw Error("TAO returned an unknown converged reason", {"", "reason", std::to_string(reason)});
}

// ---------------------------------------------------------------------------------------------
// Callbacks: C frames lie between TaoSolve and them, so no exception may leave them. An exception
// is parked in the context and reported to PETSc as PETSC_ERR_USER; minimize() rethrows it.

struct SolveContext {
  const DistributedObjective* objective = nullptr;
  const TaoOptions* options = nullptr;
  std::vector<TaoIterate> history;
  // The latest iterates (the memory's points and the current iterate), oldest first: a resumed
  // solve starts with its memory's points.
  std::deque<TaoMemoryPoint> recent;
  std::exception_ptr error;
  bool objective_settled = false;  // the frtol test ended the solve
};

// The objective fell by at most frtol |f| over the last frtol_window iterations of this solve.
bool objective_settled(const TaoOptions& o, const std::vector<TaoIterate>& history) {
  const auto window = static_cast<std::size_t>(o.frtol_window);
  if (o.frtol <= 0 || window == 0 || history.size() <= window) return false;
  const double now = history.back().objective, before = history[history.size() - 1 - window].objective;
  return before - now <= o.frtol * std::abs(now);
}

// Enough for the memory of a solve stopped now: kTaoLbfgsHistory + 1 points before the current one.
constexpr std::size_t kRecentPoints = kTaoLbfgsHistory + 2;

// Called with context.error set: makes TaoSolve unwind with PETSC_ERR_USER.
PetscErrorCode report_exception(const char* where) {
  return PetscError(PETSC_COMM_SELF, __LINE__, where, __FILE__, PETSC_ERR_USER, PETSC_ERROR_INITIAL,
                    "an exception was thrown in %s", where);
}

PetscErrorCode evaluate_objective(Tao, Vec x, PetscReal* f, Vec g, void* raw_context) {
  auto& context = *static_cast<SolveContext*>(raw_context);
  PetscInt n = 0;
  const PetscScalar* x_data = nullptr;
  PetscScalar* g_data = nullptr;
  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &x_data));
  PetscCall(VecGetArray(g, &g_data));
  try {
    const Eigen::Map<const Vector> x_local(x_data, n);
    Eigen::Map<Vector> g_local(g_data, n);
    g_local.setZero();  // an objective that leaves an entry alone means a zero derivative
    *f = (*context.objective)(x_local, g_local);
  } catch (...) {
    context.error = std::current_exception();
  }
  PetscCall(VecRestoreArray(g, &g_data));
  PetscCall(VecRestoreArrayRead(x, &x_data));
  if (context.error) return report_exception("the objective");
  PetscFunctionReturn(0);
}

PetscErrorCode record_iteration(Tao tao, void* raw_context) {
  auto& context = *static_cast<SolveContext*>(raw_context);
  PetscInt iteration = 0;
  PetscReal f = 0, gnorm = 0, cnorm = 0, xdiff = 0;
  TaoConvergedReason reason;
  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &iteration, &f, &gnorm, &cnorm, &xdiff, &reason));
  Vec x = nullptr, g = nullptr;
  PetscCall(TaoGetSolution(tao, &x));
  PetscCall(TaoGetGradient(tao, &g, nullptr, nullptr));
  bool stop = false;
  try {
    // BLMVM's next step records (x, projected gradient) in its matrix: the gradient vector holds
    // the projected one at every monitor call.
    context.recent.push_back({copy_out(x), copy_out(g), f, gnorm});
    if (context.recent.size() > kRecentPoints) context.recent.pop_front();
    context.history.push_back({static_cast<int>(iteration), f, gnorm});
    if (context.options->on_iteration) context.options->on_iteration(context.history.back());
    stop = context.options->should_stop && context.options->should_stop();
    // Every rank holds the same objective history (TAO's reductions), so all agree.
    if (!stop && objective_settled(*context.options, context.history))
      stop = context.objective_settled = true;
  } catch (...) {
    context.error = std::current_exception();
    return report_exception("the iteration monitor");
  }
  // The monitor runs just before TAO's convergence test, which keeps a reason already set.
  if (stop) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  PetscFunctionReturn(0);
}

// TAOBLMVM's BFGS matrix. PETSc 3.18 has no call that returns it (TaoGetLMVMMatrix answers only
// the BQNK family: src/tao/bound/impls/bqnk/bqnk.c), so it is read from the solver's context,
// whose first member it is (TAO_BLMVM, src/tao/bound/impls/blmvm/blmvm.h: `Mat M;` first), and
// checked to be an LMVM BFGS matrix before use.
struct BlmvmContextHead {
  Mat M;
};

PetscErrorCode blmvm_matrix(Tao tao, Mat* M) {
  PetscBool is_blmvm = PETSC_FALSE, is_bfgs = PETSC_FALSE;
  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(tao), TAOBLMVM, &is_blmvm));
  PetscCheck(is_blmvm && tao->data != nullptr, PetscObjectComm(reinterpret_cast<PetscObject>(tao)),
             PETSC_ERR_ARG_WRONG, "the solver is not TAOBLMVM");
  *M = static_cast<BlmvmContextHead*>(tao->data)->M;
  PetscCheck(*M != nullptr && reinterpret_cast<PetscObject>(*M)->classid == MAT_CLASSID,
             PetscObjectComm(reinterpret_cast<PetscObject>(tao)), PETSC_ERR_LIB,
             "TAOBLMVM's context does not start with its matrix (another PETSc version?)");
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(*M), MATLMVMBFGS, &is_bfgs));
  PetscCheck(is_bfgs, PetscObjectComm(reinterpret_cast<PetscObject>(tao)), PETSC_ERR_LIB,
             "TAOBLMVM's matrix is not MATLMVMBFGS");
  PetscFunctionReturn(0);
}

// BLMVM's initial-Hessian value at an iterate (TaoSolve_BLMVM sets it before each update).
PetscReal blmvm_delta(double f, double gnorm) {
  PetscReal gnorm2 = gnorm * gnorm;
  if (gnorm2 == 0.0) gnorm2 = PETSC_MACHINE_EPSILON;
  return f == 0.0 ? 2.0 / gnorm2 : 2.0 * std::abs(f) / gnorm2;
}

// The one BFGS configuration of every solve: kTaoLbfgsHistory pairs, and a scalar initial Hessian
// (y's / y'y of the newest pair) instead of PETSc's default diagonal one, whose vector accumulates
// every update since the last reset and so could not be rebuilt from a bounded record.
PetscErrorCode configure_lbfgs(Mat M) {
  PetscFunctionBeginUser;
  PetscCall(MatLMVMSetHistorySize(M, kTaoLbfgsHistory));
  PetscCall(MatLMVMSymBroydenSetScaleType(M, MAT_LMVM_SYMBROYDEN_SCALE_SCALAR));
  PetscFunctionReturn(0);
}

// Feeds the memory's points to an allocated BFGS matrix as TaoSolve_BLMVM fed them (x and g are
// work vectors of the solution's layout).
PetscErrorCode replay(Mat M, const std::vector<TaoMemoryPoint>& points, Vec x, Vec g) {
  PetscFunctionBeginUser;
  for (const TaoMemoryPoint& p : points) {
    copy_into(x, p.x);
    copy_into(g, p.gradient);
    PetscCall(MatLMVMSymBroydenSetDelta(M, blmvm_delta(p.objective, p.gradient_norm)));
    PetscCall(MatLMVMUpdate(M, x, g));
  }
  PetscFunctionReturn(0);
}

std::string memory_problem(const TaoMemory& memory, Index local_size, int rank) {
  if (memory.points.size() > static_cast<std::size_t>(kTaoLbfgsHistory) + 1)
    return "the L-BFGS memory holds " + std::to_string(memory.points.size()) + " points (at most " +
           std::to_string(kTaoLbfgsHistory + 1) + ")";
  for (std::size_t i = 0; i < memory.points.size(); ++i) {
    const TaoMemoryPoint& p = memory.points[i];
    const std::string which = "L-BFGS memory point " + std::to_string(i);
    std::string problem = size_problem(p.x.size(), local_size, (which + "'s iterate").c_str(), rank);
    if (problem.empty())
      problem = size_problem(p.gradient.size(), local_size, (which + "'s gradient").c_str(), rank);
    if (!problem.empty()) return problem;
    if (!p.x.allFinite() || !p.gradient.allFinite() || !std::isfinite(p.objective) ||
        !std::isfinite(p.gradient_norm) || p.gradient_norm < 0)
      return which + " on rank " + std::to_string(rank) + " contains NaN, Inf or a negative norm";
  }
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Stop reasons

bool stopped_on_gradient_tolerance(TaoStopReason reason) noexcept {
  return reason == TaoStopReason::gradient_absolute || reason == TaoStopReason::gradient_relative ||
         reason == TaoStopReason::gradient_decrease;
}

bool stopped_converged(TaoStopReason reason) noexcept {
  return stopped_on_gradient_tolerance(reason) || reason == TaoStopReason::objective_relative;
}

std::string to_string(TaoStopReason reason) {
  switch (reason) {
    case TaoStopReason::gradient_absolute:
      return "gradient_absolute (||g|| <= gatol)";
    case TaoStopReason::gradient_relative:
      return "gradient_relative (||g|| / |f| <= grtol)";
    case TaoStopReason::gradient_decrease:
      return "gradient_decrease (||g|| / ||g0|| <= gttol)";
    case TaoStopReason::step_tolerance:
      return "step_tolerance (step too small)";
    case TaoStopReason::objective_minimum:
      return "objective_minimum (f below TAO's lower bound)";
    case TaoStopReason::stop_requested:
      return "stop_requested (the caller asked to stop)";
    case TaoStopReason::objective_relative:
      return "objective_relative (f changed by <= frtol |f| over the last iterations)";
    case TaoStopReason::max_iterations:
      return "max_iterations";
    case TaoStopReason::max_function_evaluations:
      return "max_function_evaluations";
    case TaoStopReason::not_a_number:
      return "not_a_number (NaN or Inf objective or gradient)";
    case TaoStopReason::line_search_failure:
      return "line_search_failure";
    case TaoStopReason::trust_region_reduction:
      return "trust_region_reduction";
    case TaoStopReason::user_diverged:
      return "user_diverged";
    case TaoStopReason::still_iterating:
      return "still_iterating";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// TaoMinimizer

struct TaoMinimizer::State {
  Communicator comm;
  Index local_size = 0;
  TaoOptions options;
  VecHandle lower, upper;
  std::string petsc_error;  // filled by the error handler while a PetscErrorScope is alive

  State(const Communicator& c, Index n, TaoOptions o) : comm(c), local_size(n), options(std::move(o)) {}

  void check(PetscErrorCode code, const char* call) const { check_petsc(code, call, petsc_error); }

  void create_vector(VecHandle& vec) {
    check(VecCreateMPI(comm.raw(), static_cast<PetscInt>(local_size), PETSC_DETERMINE, vec.out()),
          "VecCreateMPI");
  }
};

TaoMinimizer::TaoMinimizer(const Communicator& comm, Index local_size, TaoOptions options) {
  require_petsc_session("TAO");
  validate_options(options);
  // PetscInt is 32-bit in this PETSc build: the local and the global length must fit.
  const bool fits = local_size >= 0 && local_size <= std::numeric_limits<PetscInt>::max();
  comm.agree_on_problem(fits ? ""
                             : "rank " + std::to_string(comm.rank()) + " asks for " +
                                   std::to_string(local_size) + " parameters (0 to 2^31 - 1 allowed)",
                        "local_size");
  const auto global = comm.allreduce_sum(static_cast<std::int64_t>(local_size));
  require(global <= std::numeric_limits<PetscInt>::max(),
          "too many parameters for this PETSc build (32-bit indices)", {"", "size", std::to_string(global)});

  state_ = std::make_unique<State>(comm, local_size, std::move(options));
  PetscErrorScope scope(state_->petsc_error);
  state_->create_vector(state_->lower);
  state_->create_vector(state_->upper);
  state_->check(VecSet(state_->lower.get(), PETSC_NINFINITY), "VecSet");
  state_->check(VecSet(state_->upper.get(), PETSC_INFINITY), "VecSet");
}

TaoMinimizer::~TaoMinimizer() = default;

Index TaoMinimizer::local_size() const noexcept {
  return state_->local_size;
}

void TaoMinimizer::set_bounds(const ConstVectorRef& lower, const ConstVectorRef& upper) {
  const int rank = state_->comm.rank();
  std::string problem = size_problem(lower.size(), state_->local_size, "the lower bound", rank);
  if (problem.empty()) problem = size_problem(upper.size(), state_->local_size, "the upper bound", rank);
  for (Index i = 0; problem.empty() && i < lower.size(); ++i)
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || lower[i] > upper[i])
      problem = "bounds of local parameter " + std::to_string(i) + " on rank " + std::to_string(rank) +
                " are not an interval: [" + std::to_string(lower[i]) + ", " + std::to_string(upper[i]) + "]";
  state_->comm.agree_on_problem(problem, "bounds");

  PetscErrorScope scope(state_->petsc_error);
  copy_into(state_->lower.get(), lower.unaryExpr(&to_petsc_bound));
  copy_into(state_->upper.get(), upper.unaryExpr(&to_petsc_bound));
}

TaoResult TaoMinimizer::minimize(const ConstVectorRef& initial, const DistributedObjective& objective,
                                 const TaoMemory* memory) {
  State& s = *state_;
  std::string problem = size_problem(initial.size(), s.local_size, "the initial point", s.comm.rank());
  if (problem.empty() && !initial.allFinite())
    problem = "the initial point on rank " + std::to_string(s.comm.rank()) + " contains NaN or Inf";
  s.comm.agree_on_problem(problem, "initial point");
  const bool resumed = memory != nullptr && !memory->points.empty();
  if (resumed) s.comm.agree_on_problem(memory_problem(*memory, s.local_size, s.comm.rank()), "L-BFGS memory");

  SolveContext context;
  context.objective = &objective;
  context.options = &s.options;
  PetscErrorScope scope(s.petsc_error);
  // A fresh Tao per solve: no state carries over from an earlier solve but the memory passed in.
  VecHandle x;
  TaoHandle tao;
  s.create_vector(x);
  copy_into(x.get(), initial);
  s.check(TaoCreate(s.comm.raw(), tao.out()), "TaoCreate");
  s.check(TaoSetType(tao.get(), TAOBLMVM), "TaoSetType");
  s.check(TaoSetSolution(tao.get(), x.get()), "TaoSetSolution");
  s.check(TaoSetObjectiveAndGradient(tao.get(), nullptr, evaluate_objective, &context),
          "TaoSetObjectiveAndGradient");
  s.check(TaoSetVariableBounds(tao.get(), s.lower.get(), s.upper.get()), "TaoSetVariableBounds");
  s.check(TaoSetTolerances(tao.get(), s.options.gatol, s.options.grtol, s.options.gttol), "TaoSetTolerances");
  s.check(TaoSetMaximumIterations(tao.get(), s.options.max_iterations), "TaoSetMaximumIterations");
  s.check(TaoSetMaximumFunctionEvaluations(tao.get(), s.options.max_function_evaluations),
          "TaoSetMaximumFunctionEvaluations");
  s.check(TaoSetMonitor(tao.get(), record_iteration, &context, nullptr), "TaoSetMonitor");
  Mat lbfgs = nullptr;
  s.check(blmvm_matrix(tao.get(), &lbfgs), "TAOBLMVM's BFGS matrix");
  s.check(configure_lbfgs(lbfgs), "configuring the L-BFGS matrix");
  VecHandle work_x, work_g;
  s.create_vector(work_x);
  s.create_vector(work_g);
  if (resumed) {
    // The matrix as the stopped solve left it; BLMVM keeps a recycled matrix instead of resetting
    // it, and its next update pairs the resumed iterate with the memory's last point.
    s.check(TaoSetUp(tao.get()), "TaoSetUp");
    s.check(replay(lbfgs, memory->points, work_x.get(), work_g.get()), "replaying the L-BFGS memory");
    s.check(TaoLMVMRecycle(tao.get(), PETSC_TRUE), "TaoLMVMRecycle");
    context.recent.assign(memory->points.begin(), memory->points.end());
  }

  const PetscErrorCode solved = TaoSolve(tao.get());
  if (context.error) std::rethrow_exception(context.error);
  s.check(solved, "TaoSolve");

  TaoResult result;
  PetscInt iterations = 0;
  PetscReal cnorm = 0, xdiff = 0;
  TaoConvergedReason reason;
  s.check(TaoGetSolutionStatus(tao.get(), &iterations, &result.objective, &result.gradient_norm, &cnorm,
                               &xdiff, &reason),
          "TaoGetSolutionStatus");
  result.reason = context.objective_settled ? TaoStopReason::objective_relative : from_petsc(reason);
  result.converged = stopped_converged(result.reason);
  result.iterations = static_cast<int>(iterations);
  result.solution = copy_out(x.get());
  result.history = std::move(context.history);
  if (result.reason == TaoStopReason::stop_requested && !context.recent.empty()) {
    // The points before the final iterate, checked against the matrix itself: a replay on a fresh
    // matrix must apply the same inverse to the final gradient, bit for bit.
    std::vector<TaoMemoryPoint> points(context.recent.begin(), context.recent.end() - 1);
    if (points.size() > static_cast<std::size_t>(kTaoLbfgsHistory) + 1)
      points.erase(points.begin(), points.end() - (kTaoLbfgsHistory + 1));
    bool same = true;
    if (!points.empty()) {
      MatHandle shadow;
      s.check(MatCreate(s.comm.raw(), shadow.out()), "MatCreate");
      s.check(MatSetType(shadow.get(), MATLMVMBFGS), "MatSetType");
      s.check(configure_lbfgs(shadow.get()), "configuring the L-BFGS matrix");
      s.check(MatLMVMAllocate(shadow.get(), work_x.get(), work_g.get()), "MatLMVMAllocate");
      s.check(replay(shadow.get(), points, work_x.get(), work_g.get()), "replaying the L-BFGS memory");
      VecHandle probe, expected, actual;
      s.create_vector(probe);
      s.create_vector(expected);
      s.create_vector(actual);
      copy_into(probe.get(), context.recent.back().gradient);
      s.check(MatSolve(lbfgs, probe.get(), expected.get()), "MatSolve");
      s.check(MatSolve(shadow.get(), probe.get(), actual.get()), "MatSolve");
      PetscBool equal = PETSC_FALSE;
      s.check(VecEqual(expected.get(), actual.get(), &equal), "VecEqual");
      same = equal == PETSC_TRUE;
    }
    result.memory_restorable = same;
    if (same) result.memory.points = std::move(points);
  }
  return result;
}

}  // namespace gplvm
