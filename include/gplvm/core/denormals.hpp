#pragma once
// Subnormal floating-point numbers flushed to zero while a scope lives (fp32 steps).
//
// On Intel cores an instruction with a subnormal operand or result takes a microcode assist of
// the order of a hundred cycles. An fp32 step meets subnormals where kernel values such as
// exp(-d^2 / 2l^2) between 1.4e-45 and 1.2e-38 are rounded to float: free latents spread over
// many lengthscales make whole bands of them. On an Intel Xeon such a step ran slower than the
// fp64 one, and PyTorch's fourteen times slower than its amortised step (docs/benchmarks.md, "The
// device machine"). AMD's Zen 4 takes no assist, so nothing changes there.
//
// ScopedFlushDenormals sets FTZ (subnormal results become zero) and DAZ (subnormal operands read
// as zero) in the thread's MXCSR, as PyTorch's torch.set_flush_denormal(True) does, and restores
// the previous control word at the end. Worker threads take the caller's control word for each
// parallel region (core/threads, and the packed GEMM's own), so a result does not depend on the
// thread count. Values below the smallest normal number (1.2e-38 in float, 2.2e-308 in double)
// read as zero; nothing else changes. Where the processor has no MXCSR (not x86-64) this is a no-op.
namespace gplvm {

class ScopedFlushDenormals {
 public:
  explicit ScopedFlushDenormals(bool enable = true);
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  unsigned saved_ = 0;
  bool changed_ = false;
};

// The calling thread's floating-point control word (MXCSR without its sticky exception flags on
// x86-64; 0 elsewhere) and its restoration: what a worker thread adopts from the thread that
// started the parallel region. Setting it clears the exception flags.
unsigned floating_point_control();
void set_floating_point_control(unsigned control);

// A worker thread of a parallel region computes under `control` (the starting thread's
// floating_point_control()) while this lives, and gets its own back afterwards. Every parallel
// region in gplvm opens one per thread, so a result does not depend on which thread computed it.
class AdoptedFloatingPointControl {
 public:
  explicit AdoptedFloatingPointControl(unsigned control);
  ~AdoptedFloatingPointControl();
  AdoptedFloatingPointControl(const AdoptedFloatingPointControl&) = delete;
  AdoptedFloatingPointControl& operator=(const AdoptedFloatingPointControl&) = delete;

 private:
  unsigned own_;
};

// Whether this thread flushes subnormals (FTZ and DAZ both set).
bool flushes_denormals();

}  // namespace gplvm
