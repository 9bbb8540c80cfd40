//===- ExecutionPlan.h - a host function evaluated for given shapes -*- C++
//-*-===//
//
// The host function that sm-linalg-to-gpu writes allocates buffers, computes
// launch sizes from its arguments' shapes and launches kernels. The runtime
// executes it by evaluating it once per set of argument shapes into an
// ExecutionPlan: the buffers the program needs, the launches and copies in
// program order, with every size and scalar known, and which buffers hold
// the results. A plan is then run on a device as one submission, as often as
// wanted; none of its steps depends on data that is on the device.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_RUNTIME_EXECUTIONPLAN_H
#define SUBGROUPMATRIX_RUNTIME_EXECUTIONPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <string>
#include <variant>

namespace mlir::subgroup_matrix::runtime {

/// A buffer that the program uses: one of its arguments, one it allocates,
/// or a constant it reads (`memref.get_global`), whose contents the plan
/// carries so that they are uploaded once.
struct PlanBuffer {
  enum class Origin { Argument, Allocation, Constant };
  Origin origin = Origin::Allocation;
  /// The function argument, for Origin::Argument.
  unsigned argument = 0;
  /// The element type and the shape it was created with.
  Type elementType;
  SmallVector<int64_t> shape;
  int64_t sizeInBytes = 0;
  /// The initial contents, for Origin::Constant.
  ElementsAttr initialValue;
};

/// One argument of a launch: a range of a buffer, or a scalar.
struct LaunchArgument {
  bool isBuffer = false;
  /// The buffer and the byte range the kernel sees (a view's offset and
  /// extent).
  unsigned buffer = 0;
  int64_t offsetInBytes = 0;
  int64_t sizeInBytes = 0;
  /// The scalar's type and value (integers and index as their 64-bit
  /// value; floats through `floatValue`).
  Type scalarType;
  int64_t integerValue = 0;
  double floatValue = 0;
};

/// A kernel launch.
struct PlanLaunch {
  std::string kernelModule;
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  SmallVector<LaunchArgument> arguments;
  Location location;
};

/// A copy between two buffers (`memref.copy` of contiguous views).
struct PlanCopy {
  unsigned source = 0, target = 0;
  int64_t sourceOffsetInBytes = 0, targetOffsetInBytes = 0;
  int64_t sizeInBytes = 0;
};

/// A buffer the program returns, viewed with the returned shape.
struct PlanResult {
  unsigned buffer = 0;
  int64_t offsetInBytes = 0;
  Type elementType;
  SmallVector<int64_t> shape;
};

/// The host function, evaluated for one set of argument shapes.
struct ExecutionPlan {
  SmallVector<PlanBuffer> buffers;
  SmallVector<std::variant<PlanLaunch, PlanCopy>> steps;
  SmallVector<PlanResult> results;
  /// The arguments (by position) that some launch or copy may write.
  SmallVector<unsigned> writtenArguments;
};

/// Evaluates `host` for arguments of `argumentShapes` (one per function
/// argument; an argument that is not a memref takes its value from
/// `scalarArguments` at the same position). Reports a located error and
/// fails on ops the runtime does not execute (a host function that reads
/// device memory, for example), shapes that do not match the argument
/// types, and launches of kernels whose sizes do not fit.
FailureOr<ExecutionPlan>
planExecution(func::FuncOp host, ArrayRef<SmallVector<int64_t>> argumentShapes,
              ArrayRef<double> scalarArguments = {});

/// The function of `module` to run: the one named `entry`, else the only
/// public function with a body that launches kernels. Reports an error
/// naming the candidates when there is no single one.
FailureOr<func::FuncOp> findHostFunction(ModuleOp module, StringRef entry);

} // namespace mlir::subgroup_matrix::runtime

#endif // SUBGROUPMATRIX_RUNTIME_EXECUTIONPLAN_H
