#include "gplvm/model/kernel.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

void Kernel::psi_statistics(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                            PsiStatistics&) const {
  throw Error("psi-statistics are not implemented for kernel '" + name() + "'");
}

void Kernel::psi_backward(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&, const PsiStatistics&,
                          double, const ConstMatrixRef&, const ConstMatrixRef&, Matrix*, Matrix*, Matrix*,
                          VectorRef) const {
  throw Error("psi-statistics are not implemented for kernel '" + name() + "'");
}

}  // namespace gplvm
