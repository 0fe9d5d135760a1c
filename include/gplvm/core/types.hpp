#pragma once
// Matrix and vector types shared by every layer.
//
// Latents, kernel blocks and adjoints are column-major (Eigen's default, and what LAPACK wants).
// Data rows (Y) are row-major: a batch is gathered row by row from the local data block, and a
// row-major gather is contiguous. Functions take data as DataRef so that a row range of a batch
// can be passed without a copy.
#include <Eigen/Core>
#include <cstdint>

namespace gplvm {

using Index = Eigen::Index;
using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using DataRef = Eigen::Ref<const RowMatrix>;
using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;
using VectorRef = Eigen::Ref<Vector>;
using ConstVectorRef = Eigen::Ref<const Vector>;

// The same shapes in any scalar type (fp32 mode: include/gplvm/train/precision.hpp).
template <typename Scalar>
using MatrixT = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <typename Scalar>
using RowMatrixT = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename Scalar>
using VectorT = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
template <typename Scalar>
using DataRefT = Eigen::Ref<const RowMatrixT<Scalar>>;
using RowMatrixF = RowMatrixT<float>;
using DataRefF = DataRefT<float>;

// Elements [begin, end) of a vector.
struct IndexRange {
  Index begin = 0, end = 0;
};

}  // namespace gplvm
