//===- PackedIntegerBuffers.cpp - i2/i4 buffers read as bytes -------------===//

#include "SubgroupMatrix/Transforms/PackedIntegerBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The width of `type`'s elements when they are packed several to a byte.
static unsigned getPackedWidth(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  auto integer =
      memref ? dyn_cast<IntegerType>(memref.getElementType()) : nullptr;
  return integer && (integer.getWidth() == 2 || integer.getWidth() == 4)
             ? integer.getWidth()
             : 0;
}

/// Whether `user` converts a loaded element to a wider type (how kernels
/// use a packed weight), and whether it reads the element as signed.
static std::optional<bool> getConversionSignedness(Operation *user) {
  if (isa<arith::ExtSIOp, arith::SIToFPOp>(user))
    return true;
  if (isa<arith::ExtUIOp, arith::UIToFPOp>(user))
    return false;
  return std::nullopt;
}

/// The element that `load` reads, as an i8 of the same value (signed or
/// not), taken out of the byte of `bytes` that holds it.
static Value loadFromByte(OpBuilder &b, memref::LoadOp load, Value bytes,
                          unsigned width, bool isSigned) {
  Location loc = load.getLoc();
  int64_t perByte = 8 / width;
  Value index = load.getIndices()[0];
  Value byteIndex = arith::DivUIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, perByte));
  Value byte = memref::LoadOp::create(b, loc, bytes, byteIndex);
  Type i8 = b.getI8Type();
  // The element's lowest bit within its byte, as an i8.
  Value slot = arith::RemUIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, perByte));
  Value shift = arith::MulIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, i8, slot),
      arith::ConstantIntOp::create(b, loc, i8, width));
  if (!isSigned) {
    Value shifted = arith::ShRUIOp::create(b, loc, byte, shift);
    return arith::AndIOp::create(
        b, loc, shifted,
        arith::ConstantIntOp::create(b, loc, i8, (1 << width) - 1));
  }
  // The element's top bit moved to the byte's, then shifted back down with
  // its sign.
  Value up = arith::SubIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i8, 8 - width), shift);
  Value top = arith::ShLIOp::create(b, loc, byte, up);
  return arith::ShRSIOp::create(
      b, loc, top, arith::ConstantIntOp::create(b, loc, i8, 8 - width));
}

/// Rewrites the conversion `user` of a packed element to read `element`
/// (the same value as an i8).
static void convertFromByte(OpBuilder &b, Operation *user, Value element) {
  b.setInsertionPoint(user);
  Type result = user->getResult(0).getType();
  Location loc = user->getLoc();
  Value converted;
  if (isa<arith::SIToFPOp>(user))
    converted = arith::SIToFPOp::create(b, loc, result, element);
  else if (isa<arith::UIToFPOp>(user))
    converted = arith::UIToFPOp::create(b, loc, result, element);
  else if (result.isInteger(8))
    converted = element;
  else if (isa<arith::ExtSIOp>(user))
    converted = arith::ExtSIOp::create(b, loc, result, element);
  else
    converted = arith::ExtUIOp::create(b, loc, result, element);
  user->getResult(0).replaceAllUsesWith(converted);
  user->erase();
}

/// Rewrites the packed argument `argument` of `kernel` (see
/// readPackedIntegersAsBytes).
static LogicalResult readArgumentAsBytes(gpu::GPUFuncOp kernel,
                                         BlockArgument argument) {
  auto type = cast<MemRefType>(argument.getType());
  unsigned width = getPackedWidth(type);
  auto fail = [&](Operation *op, StringRef what) {
    return op->emitOpError()
           << what << " a buffer of " << type.getElementType()
           << " elements in a way the host-compiled paths (Metal source, the "
              "Intel kernels' LLVM IR) do not support: they read packed "
              "integers as bytes, one element at a time, each converted to a "
              "wider type";
  };
  if (type.getRank() != 1 || !type.getLayout().isIdentity())
    return kernel.emitOpError()
           << "takes " << type
           << ", packed elements in a buffer of more than one dimension, "
              "which the host-compiled paths (Metal source, the Intel "
              "kernels' LLVM IR) do not support: they read packed integers "
              "from 1-D buffers only";
  SmallVector<memref::LoadOp> loads;
  for (Operation *user : argument.getUsers()) {
    auto load = dyn_cast<memref::LoadOp>(user);
    if (!load)
      return fail(user, "uses");
    for (Operation *elementUser : load->getUsers())
      if (!getConversionSignedness(elementUser))
        return fail(elementUser, "uses an element of");
    loads.push_back(load);
  }

  int64_t size = type.getDimSize(0);
  int64_t perByte = 8 / width;
  auto bytesType = MemRefType::get(
      {ShapedType::isDynamic(size) ? size
                                   : int64_t(llvm::divideCeil(size, perByte))},
      IntegerType::get(kernel.getContext(), 8), MemRefLayoutAttrInterface(),
      type.getMemorySpace());
  argument.setType(bytesType);
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs[argument.getArgNumber()] = bytesType;
  kernel.setFunctionType(
      FunctionType::get(kernel.getContext(), inputs, kernel.getResultTypes()));

  OpBuilder b(kernel.getContext());
  for (memref::LoadOp load : loads) {
    // One load of the byte per signedness its conversions read it with
    // (unsigned first).
    Value elements[2];
    for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
      bool isSigned = *getConversionSignedness(user);
      Value &element = elements[isSigned];
      if (!element) {
        b.setInsertionPoint(load);
        element = loadFromByte(b, load, argument, width, isSigned);
      }
      convertFromByte(b, user, element);
    }
    load.erase();
  }
  return success();
}

LogicalResult
mlir::subgroup_matrix::readPackedIntegersAsBytes(gpu::GPUModuleOp module) {
  for (auto kernel : module.getOps<gpu::GPUFuncOp>())
    for (BlockArgument argument : kernel.getArguments().take_front(
             kernel.getFunctionType().getNumInputs()))
      if (getPackedWidth(argument.getType()) &&
          failed(readArgumentAsBytes(kernel, argument)))
        return failure();
  return success();
}
