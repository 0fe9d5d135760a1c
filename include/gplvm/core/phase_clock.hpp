#pragma once
// Where a training step's time goes: the phases of a step (docs/guide/training.md, "Where the time
// goes") and one process-wide clock that charges every moment of a recorded run to exactly one of
// them. A phase is entered by a ScopedPhase guard, which charges the time since the last switch to
// the phase it replaces and gives the time back to that phase when it ends, so nested guards
// split time exclusively and the phases of a run add up to its wall time by construction (integer
// clock ticks, no rounding). A switch reads the steady clock once and allocates nothing; while no
// run is recorded a guard only tests a flag.
//
// The clock belongs to the thread that calls MPI (core/threads.hpp: the main thread, outside
// parallel regions); guards are never placed where a rank's worker threads run.
// Timing only observes: nothing that is computed reads the clock.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gplvm {

// The phases, in the order the breakdown lists them. `other` is whatever no guard names.
enum class StepPhase : std::uint8_t {
  other,
  batch_draw,  // the batch's rows drawn from the keyed permutation
  model,       // the model's step outside the phases below (the VAE and sparse kinds: all of it)
  batch_rows,
  row_exchange,
  encoder_forward,
  latent_exchange,
  active_gather,
  active_factor,
  active_whiten,
  whitened_gather,
  remainder,
  partials_sum,
  combine,
  combine_gather,
  combine_sum,
  encoder_backward,
  gradient_sum,
  collectives,  // a collective no guard above names (Communicator's default)
  gradient_norm,
  norm_gather,
  adam,
  adam_allgather,
  stop_poll,
  progress,
  checkpoint,
};
inline constexpr std::size_t kNumStepPhases = static_cast<std::size_t>(StepPhase::checkpoint) + 1;

// What a phase spends its time on: computing, in a collective (waiting for the other ranks
// included), or writing (progress lines, checkpoints).
enum class PhaseKind { compute, collective, io };

std::string_view phase_name(StepPhase phase);  // "encoder_forward", ...
PhaseKind phase_kind(StepPhase phase);
inline StepPhase step_phase(std::size_t index) {
  return static_cast<StepPhase>(index);
}

// Steady-clock ticks (nanoseconds) per phase.
using PhaseTicks = std::array<std::int64_t, kNumStepPhases>;

class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts recording with every total zero and `other` current.
  void start();
  // Charges the open interval and stops recording; later switches change nothing.
  void stop();
  bool running() const noexcept { return running_; }
  StepPhase current() const noexcept { return current_; }
  // Charges the time since the last switch to the current phase and makes `phase` current;
  // returns the phase it replaced.
  StepPhase switch_to(StepPhase phase) noexcept;
  // The totals so far, the current phase's open interval charged (while recording).
  const PhaseTicks& totals();
  // The ticks charged to the phases of one kind so far (open interval charged).
  std::int64_t ticks_of(PhaseKind kind);
  // Ticks from start() to the last charge: the sum of totals() exactly.
  std::int64_t elapsed_ticks() const noexcept;

 private:
  void charge(Clock::time_point now) noexcept;

  PhaseTicks ticks_{};
  StepPhase current_ = StepPhase::other;
  Clock::time_point started_{}, since_{};
  bool running_ = false;
};

// The process's clock (one training run records at a time).
PhaseClock& phase_clock() noexcept;

// `phase` for the guard's lifetime; the phase it replaced afterwards.
class ScopedPhase {
 public:
  explicit ScopedPhase(StepPhase phase) noexcept : previous_(phase_clock().switch_to(phase)) {}
  ~ScopedPhase() { phase_clock().switch_to(previous_); }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  StepPhase previous_;
};

// A collective's guard (parallel/communicator.hpp): `collectives`, unless a collective or I/O
// phase is current, which then keeps the time (the caller named what the collective is for).
class ScopedCollective {
 public:
  ScopedCollective() noexcept;
  ~ScopedCollective();
  ScopedCollective(const ScopedCollective&) = delete;
  ScopedCollective& operator=(const ScopedCollective&) = delete;

 private:
  StepPhase previous_;
  bool switched_ = false;
};

// Records the phases for its lifetime (a training run): start() on construction, stop() after.
class PhaseRecording {
 public:
  PhaseRecording() { phase_clock().start(); }
  ~PhaseRecording() { phase_clock().stop(); }
  PhaseRecording(const PhaseRecording&) = delete;
  PhaseRecording& operator=(const PhaseRecording&) = delete;
};

}  // namespace gplvm
