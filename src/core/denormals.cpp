#include "gplvm/core/denormals.hpp"

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define GPLVM_HAS_MXCSR 1
#endif

namespace gplvm {
namespace {

constexpr unsigned kFlushToZero = 0x8000;     // MXCSR bit 15: subnormal results become zero
constexpr unsigned kDenormalsAreZero = 0x40;  // MXCSR bit 6: subnormal operands read as zero
constexpr unsigned kFlushBoth = kFlushToZero | kDenormalsAreZero;
constexpr unsigned kStatusFlags = 0x3f;  // MXCSR bits 0-5: sticky exception flags, not control

}  // namespace

unsigned floating_point_control() {
#ifdef GPLVM_HAS_MXCSR
  return _mm_getcsr() & ~kStatusFlags;
#else
  return 0;
#endif
}

void set_floating_point_control(unsigned control) {
#ifdef GPLVM_HAS_MXCSR
  _mm_setcsr(control);
#else
  (void)control;
#endif
}

bool flushes_denormals() {
#ifdef GPLVM_HAS_MXCSR
  return (floating_point_control() & kFlushBoth) == kFlushBoth;
#else
  return false;
#endif
}

AdoptedFloatingPointControl::AdoptedFloatingPointControl(unsigned control) : own_(floating_point_control()) {
  set_floating_point_control(control);
}

AdoptedFloatingPointControl::~AdoptedFloatingPointControl() {
  set_floating_point_control(own_);
}

ScopedFlushDenormals::ScopedFlushDenormals(bool enable) : saved_(floating_point_control()) {
#ifdef GPLVM_HAS_MXCSR
  if (enable && (saved_ & kFlushBoth) != kFlushBoth) {
    set_floating_point_control(saved_ | kFlushBoth);
    changed_ = true;
  }
#else
  (void)enable;
#endif
}

ScopedFlushDenormals::~ScopedFlushDenormals() {
  if (changed_) set_floating_point_control(saved_);
}

}  // namespace gplvm
