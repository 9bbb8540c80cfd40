//===- TranslateToMSL.cpp - Metal Shading Language emitter ----------------===//
//
// Follows the structure of MLIR's C++ emitter: one entry point, a private
// emitter class, dispatch per op with TypeSwitch, an indenting stream, and
// errors reported through the ops' locations.
//
// Subgroup matrices map as the WGSL proposal's table says: simdgroup_load /
// simdgroup_store (transposed for col_major), make_filled_simdgroup_matrix
// for splat, simdgroup_multiply(_accumulate) for multiply and mma, and the
// scalar ops through diagonal matrices. Shapes larger than 8x8 become arrays
// of 8x8 fragments and the multiplication is unrolled over them. The other
// ops of a kernel are printed by EmitOrdinaryOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Target/MSL/TranslateToMSL.h"

#include "MSLEmitter.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Pipelines/Pipelines.h"
#include "SubgroupMatrix/Target/Translations.h"
#include "SubgroupMatrix/Transforms/PackedIntegerBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/IndentedOstream.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::msl;

namespace {

/// A position attribute of a Metal kernel and the type it has.
struct PositionAttribute {
  StringRef name;
  StringRef type;
};

constexpr PositionAttribute positionAttributes[] = {
    {"thread_position_in_grid", "uint3"},
    {"thread_position_in_threadgroup", "uint3"},
    {"threadgroup_position_in_grid", "uint3"},
    {"threads_per_threadgroup", "uint3"},
    {"threadgroups_per_grid", "uint3"},
    {"simdgroup_index_in_threadgroup", "uint"},
    {"thread_index_in_simdgroup", "uint"},
    {"threads_per_simdgroup", "uint"},
    {"simdgroups_per_threadgroup", "uint"},
};

} // namespace

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

FailureOr<std::string> MSLEmitter::getTypeName(Location loc, Type type) {
  if (type.isIndex())
    return std::string("int");
  if (type.isF16())
    return std::string("half");
  if (type.isBF16()) {
    usesBFloat = true;
    return std::string("bfloat");
  }
  if (type.isF32())
    return std::string("float");
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return std::string("bool");
    case 8:
      return std::string(isUnsigned ? "uchar" : "char");
    case 16:
      return std::string(isUnsigned ? "ushort" : "short");
    case 32:
      return std::string(isUnsigned ? "uint" : "int");
    case 64:
      return std::string(isUnsigned ? "ulong" : "long");
    }
  }
  if (auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type))
    return getMatrixTypeName(loc, matrix);
  return emitError(loc) << "type " << type
                        << " has no Metal Shading Language equivalent";
}

std::string MSLEmitter::getUnsignedTypeName(Type type) {
  if (type.isIndex())
    return "uint";
  switch (type.getIntOrFloatBitWidth()) {
  case 1:
    return "bool";
  case 8:
    return "uchar";
  case 16:
    return "ushort";
  case 64:
    return "ulong";
  default:
    return "uint";
  }
}

FailureOr<std::string>
MSLEmitter::getMatrixTypeName(Location loc, SubgroupMatrixTypeInterface type) {
  Type element = type.getElementType();
  if (!element.isF16() && !element.isF32() && !element.isBF16())
    return emitError(loc)
           << "Metal has no simdgroup matrices of " << element
           << ": only f16 (simdgroup_half8x8), bf16 (simdgroup_bfloat8x8) "
              "and f32 (simdgroup_float8x8) components exist";
  if (type.getRows() % 8 || type.getColumns() % 8)
    return emitError(loc) << "Metal simdgroup matrices are 8x8: a "
                          << type.getRows() << "x" << type.getColumns()
                          << " matrix is not a whole number of 8x8 fragments";
  std::string elementName = *getTypeName(loc, element);
  std::string structName = "sm_matrix_" + elementName + "_" +
                           std::to_string(type.getRows()) + "x" +
                           std::to_string(type.getColumns());
  if (matrixStructNames.insert(structName).second)
    matrixStructs.push_back(
        {structName, elementName, type.getRows() / 8, type.getColumns() / 8});
  return structName;
}

std::string MSLEmitter::uniqueName(StringRef hint) {
  std::string base = hint.empty() ? "v" : hint.str();
  for (char &c : base)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  // Asm names can be words of the language (an i1 constant is `true`).
  static const llvm::StringSet<> reservedWords = {
      "true",  "false",  "bool",   "int",    "uint",     "half",
      "float", "bfloat", "char",   "short",  "long",     "auto",
      "const", "return", "kernel", "device", "constant", "threadgroup"};
  if (isdigit(static_cast<unsigned char>(base[0])) ||
      reservedWords.contains(base))
    base = "v" + base;
  std::string candidate = base;
  for (unsigned suffix = 1; !usedNames.insert(candidate).second; ++suffix)
    candidate = base + "_" + std::to_string(suffix);
  return candidate;
}

/// A name hint from the op's own asm names (arith.constant gives c16, cst).
static std::string getHint(Value value) {
  std::string hint;
  if (Operation *op = value.getDefiningOp()) {
    if (auto asmInterface = dyn_cast<OpAsmOpInterface>(op))
      asmInterface.getAsmResultNames([&](Value result, StringRef name) {
        if (result == value)
          hint = name.str();
      });
  }
  return hint;
}

LogicalResult MSLEmitter::assign(Value value, StringRef hint,
                                 const std::string &expression) {
  FailureOr<std::string> type = getTypeName(value.getLoc(), value.getType());
  if (failed(type))
    return failure();
  std::string hintText = hint.empty() ? getHint(value) : hint.str();
  std::string variable = bind(value, hintText);
  os << *type << " " << variable << " = " << expression << ";\n";
  return success();
}

std::string MSLEmitter::usePosition(StringRef attribute, StringRef component) {
  usedPositions.insert(attribute);
  std::string text = attribute.str();
  if (!component.empty())
    text += "." + component.str();
  return "int(" + text + ")";
}

//===----------------------------------------------------------------------===//
// Module and kernels
//===----------------------------------------------------------------------===//

LogicalResult MSLEmitter::emitModule(Operation *root) {
  SmallVector<gpu::GPUFuncOp> kernels;
  root->walk([&](gpu::GPUFuncOp function) {
    if (function.isKernel())
      kernels.push_back(function);
  });
  if (kernels.empty())
    return root->emitError("no gpu.func kernels to emit as Metal");

  std::string hostEntries;
  llvm::raw_string_ostream host(hostEntries);
  for (gpu::GPUFuncOp kernel : kernels) {
    usedPositions.clear();
    usedNames.clear();
    names.clear();
    std::string kernelText;
    {
      // Emit the body first: it decides which positions the kernel reads.
      std::string savedBody;
      std::swap(body, savedBody);
      if (failed(emitKernel(kernel)))
        return failure();
      os.flush();
      kernelText = body;
      std::swap(body, savedBody);
    }
    // The signature: buffers, then the positions the body used.
    std::string signature;
    llvm::raw_string_ostream sig(signature);
    std::string call;
    llvm::raw_string_ostream callStream(call);
    sig << "kernel void " << kernel.getName() << "(";
    unsigned index = 0;
    for (BlockArgument argument : kernel.getArguments().take_front(
             kernel.getFunctionType().getNumInputs())) {
      if (index)
        sig << ",\n    ", callStream << ",\n      ";
      std::string argumentName = names.lookup(argument);
      auto memref = dyn_cast<MemRefType>(argument.getType());
      FailureOr<std::string> type =
          getTypeName(argument.getLoc(),
                      memref ? memref.getElementType() : argument.getType());
      if (failed(type))
        return failure();
      if (memref) {
        sig << "device " << *type << " *" << argumentName << " [[buffer("
            << index << ")]]";
        callStream << "(device " << *type << " *)sm_buffers[" << index << "]";
      } else {
        sig << "constant " << *type << " &" << argumentName << " [[buffer("
            << index << ")]]";
        callStream << "*(constant " << *type << " *)sm_buffers[" << index
                   << "]";
      }
      ++index;
    }
    for (const PositionAttribute &position : positionAttributes) {
      if (!usedPositions.contains(position.name))
        continue;
      if (index)
        sig << ",\n    ", callStream << ",\n      ";
      sig << position.type << " " << position.name << " [[" << position.name
          << "]]";
      callStream << "sm_invocation." << position.name;
      ++index;
    }
    sig << ") {\n";
    kernelsText += signature + kernelText + "}\n\n";

    std::optional<ArrayRef<int32_t>> blockSize = kernel.getKnownBlockSize();
    SmallVector<int32_t, 3> size = {1, 1, 1};
    if (blockSize)
      size.assign(blockSize->begin(), blockSize->end());
    host << "SM_MSL_HOST_KERNEL(" << kernel.getName() << ", " << size[0] << ", "
         << size[1] << ", " << size[2] << ", \""
         << getHostRunnerSignature(kernel) << "\") {\n  " << kernel.getName()
         << "(" << call << ");\n}\n";
  }

  output << "// Generated by sm-translate --emit-msl from subgroup_matrix.\n"
         << "// Needs Metal Shading Language "
         << (usesBFloat ? "3.1 (bfloat)" : "2.3 (simdgroup_matrix)")
         << " and an Apple7 (A14, M1) or newer GPU.\n"
         << "#include <metal_stdlib>\nusing namespace metal;\n\n";
  for (const MatrixStruct &matrix : matrixStructs)
    output << "// " << matrix.rowFragments * 8 << "x"
           << matrix.columnFragments * 8 << " subgroup matrix of "
           << matrix.element << ", as 8x8 fragments.\n"
           << "struct " << matrix.name << " {\n  simdgroup_" << matrix.element
           << "8x8 f[" << matrix.rowFragments << "][" << matrix.columnFragments
           << "];\n};\n\n";
  output << kernelsText;
  output << "#ifdef SM_MSL_HOST\n"
         << "// Entry points for running these kernels on the host as C++; "
            "Metal never\n// sees them.\n"
         << hostEntries << "#endif // SM_MSL_HOST\n";
  return success();
}

LogicalResult MSLEmitter::emitKernel(gpu::GPUFuncOp kernel) {
  os.indent();
  unsigned index = 0;
  for (BlockArgument argument : kernel.getArguments().take_front(
           kernel.getFunctionType().getNumInputs()))
    bind(argument, "arg" + std::to_string(index++));
  // Workgroup memory: threadgroup arrays shared by the threadgroup.
  for (BlockArgument attribution : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape())
      return kernel.emitError("workgroup memory must have a static shape to "
                              "become a threadgroup array");
    FailureOr<std::string> element =
        getTypeName(attribution.getLoc(), type.getElementType());
    if (failed(element))
      return failure();
    std::string variable = bind(attribution, "workgroup");
    os << "threadgroup " << *element << " " << variable << "["
       << type.getNumElements() << "];\n";
  }
  if (!kernel.getPrivateAttributions().empty())
    return kernel.emitError("private attributions are not supported");
  if (!llvm::hasSingleElement(kernel.getBody()))
    return kernel.emitError("kernels with several blocks (unstructured "
                            "control flow) cannot be emitted as Metal; "
                            "use scf");
  if (failed(emitBlock(kernel.getBody().front())))
    return failure();
  os.unindent();
  return success();
}

LogicalResult MSLEmitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOperation(op)))
      return failure();
  return success();
}

LogicalResult MSLEmitter::emitOperation(Operation &op) {
  Dialect *dialect = op.getDialect();
  if (isa_and_nonnull<arith::ArithDialect, math::MathDialect>(dialect))
    return emitArith(op);
  if (isa_and_nonnull<gpu::GPUDialect>(dialect))
    return emitGPU(op);
  if (isa_and_nonnull<scf::SCFDialect>(dialect))
    return emitSCF(op);
  if (isa_and_nonnull<memref::MemRefDialect>(dialect))
    return emitMemRef(op);
  if (isa_and_nonnull<SubgroupMatrixDialect>(dialect))
    return emitMatrix(op);
  return op.emitOpError("cannot be emitted as Metal Shading Language");
}

//===----------------------------------------------------------------------===//
// subgroup_matrix
//===----------------------------------------------------------------------===//

LogicalResult MSLEmitter::emitMatrix(Operation &op) {
  // Declares the matrix result of `op`, uninitialised; fragments follow.
  auto declare = [&](Value result) -> FailureOr<std::string> {
    auto type = cast<SubgroupMatrixTypeInterface>(result.getType());
    FailureOr<std::string> typeName = getMatrixTypeName(result.getLoc(), type);
    if (failed(typeName))
      return failure();
    std::string variable = bind(result, "m");
    os << *typeName << " " << variable << ";\n";
    return variable;
  };
  auto fragmentsOf = [](Value matrix) {
    auto type = cast<SubgroupMatrixTypeInterface>(matrix.getType());
    return std::make_pair(type.getRows() / 8, type.getColumns() / 8);
  };
  auto fragment = [](const std::string &matrix, unsigned i, unsigned j) {
    return (matrix + ".f[" + Twine(i) + "][" + Twine(j) + "]").str();
  };
  auto elementName = [&](Value matrix) {
    return *getTypeName(
        matrix.getLoc(),
        cast<SubgroupMatrixTypeInterface>(matrix.getType()).getElementType());
  };

  // simdgroup_load/store of each fragment: fragment (i, j) starts at row
  // 8i and column 8j, that is 8i * stride + 8j elements from [0, 0]
  // (8j * stride + 8i when column-major, loaded transposed).
  auto access = [&](bool isLoad, Value matrix, const std::string &variable,
                    Value memref, ValueRange indices, Value stride,
                    bool colMajor) -> LogicalResult {
    if (isa<VectorType>(cast<MemRefType>(memref.getType()).getElementType()))
      return op.emitOpError("cannot be emitted as Metal: ")
             << memref.getType()
             << " packs components into words; simdgroup_load and "
                "simdgroup_store address components";
    FailureOr<std::string> index = getElementAddress(&op, memref, indices);
    if (failed(index))
      return failure();
    auto [rows, columns] = fragmentsOf(matrix);
    std::string strideName = name(stride);
    for (unsigned i = 0; i < rows; ++i) {
      for (unsigned j = 0; j < columns; ++j) {
        unsigned major = colMajor ? j : i, minor = colMajor ? i : j;
        std::string address = name(memref) + " + " + *index;
        if (major)
          address += " + " + std::to_string(8 * major) + " * " + strideName;
        if (minor)
          address += " + " + std::to_string(8 * minor);
        os << (isLoad ? "simdgroup_load(" : "simdgroup_store(")
           << fragment(variable, i, j) << ", " << address << ", " << strideName
           << ", ulong2(0, 0), " << (colMajor ? "true" : "false") << ");\n";
      }
    }
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](LoadOp load) -> LogicalResult {
        // sm-lower-to-metal takes them through workgroup memory.
        if (load.isBounded())
          return load.emitOpError(
              "with bounds has no simdgroup_load form: run sm-lower-to-metal "
              "first, which loads it through workgroup memory");
        FailureOr<std::string> variable = declare(load.getResult());
        if (failed(variable))
          return failure();
        return access(true, load.getResult(), *variable, load.getSource(),
                      load.getIndices(), load.getStride(), load.getColMajor());
      })
      .Case([&](StoreOp store) -> LogicalResult {
        if (store.isBounded())
          return store.emitOpError(
              "with bounds has no simdgroup_store form: run "
              "sm-lower-to-metal first, which stores it through workgroup "
              "memory");
        if (failed(getMatrixTypeName(store.getLoc(), store.getMatrixType())))
          return failure();
        return access(false, store.getValue(), name(store.getValue()),
                      store.getTarget(), store.getIndices(), store.getStride(),
                      store.getColMajor());
      })
      .Case([&](SplatOp splat) -> LogicalResult {
        FailureOr<std::string> variable = declare(splat.getResult());
        if (failed(variable))
          return failure();
        auto [rows, columns] = fragmentsOf(splat.getResult());
        std::string element = elementName(splat.getResult());
        for (unsigned i = 0; i < rows; ++i)
          for (unsigned j = 0; j < columns; ++j)
            os << fragment(*variable, i, j)
               << " = make_filled_simdgroup_matrix<" << element << ", 8, 8>("
               << name(splat.getValue()) << ");\n";
        return success();
      })
      .Case<MmaOp, MultiplyOp>([&](auto multiply) -> LogicalResult {
        Value result = multiply.getResult();
        FailureOr<std::string> variable = declare(result);
        if (failed(variable))
          return failure();
        auto [rows, columns] = fragmentsOf(result);
        unsigned depth = fragmentsOf(multiply.getLeft()).second;
        std::string left = name(multiply.getLeft());
        std::string right = name(multiply.getRight());
        std::optional<std::string> accumulator;
        if constexpr (std::is_same_v<decltype(multiply), MmaOp>)
          accumulator = name(multiply.getAcc());
        for (unsigned i = 0; i < rows; ++i) {
          for (unsigned j = 0; j < columns; ++j) {
            std::string d = fragment(*variable, i, j);
            for (unsigned k = 0; k < depth; ++k) {
              std::string a = fragment(left, i, k), b = fragment(right, k, j);
              if (k == 0 && !accumulator)
                os << "simdgroup_multiply(" << d << ", " << a << ", " << b
                   << ");\n";
              else
                os << "simdgroup_multiply_accumulate(" << d << ", " << a << ", "
                   << b << ", " << (k == 0 ? fragment(*accumulator, i, j) : d)
                   << ");\n";
            }
          }
        }
        return success();
      })
      .Case<ScalarAddOp, ScalarSubOp, ScalarMulOp, ScalarDivOp>(
          [&](auto scalarOp) -> LogicalResult {
            Value result = scalarOp.getResult();
            FailureOr<std::string> variable = declare(result);
            if (failed(variable))
              return failure();
            auto [rows, columns] = fragmentsOf(result);
            std::string element = elementName(result);
            std::string scalar = name(scalarOp.getScalar());
            std::string matrixType = "simdgroup_" + element + "8x8";
            // The diagonal-matrix identities of the WGSL proposal:
            //   m + s = m * I + filled(s),   m - s = m * I + filled(-s),
            //   m * s = m * diag(s),         m / s = m * diag(1 / s).
            bool additive = isa<ScalarAddOp, ScalarSubOp>(scalarOp);
            std::string helper = uniqueName(scalarOp->getName().stripDialect());
            if (additive) {
              os << matrixType << " " << helper << "_identity = " << matrixType
                 << "(" << element << "(1));\n";
              os << matrixType << " " << helper
                 << "_filled = make_filled_simdgroup_matrix<" << element
                 << ", 8, 8>("
                 << (isa<ScalarSubOp>(scalarOp) ? "-" + scalar : scalar)
                 << ");\n";
            } else {
              os << matrixType << " " << helper << "_diagonal = " << matrixType
                 << "("
                 << (isa<ScalarDivOp>(scalarOp) ? element + "(1) / " + scalar
                                                : scalar)
                 << ");\n";
            }
            std::string matrix = name(scalarOp.getMatrix());
            for (unsigned i = 0; i < rows; ++i)
              for (unsigned j = 0; j < columns; ++j) {
                if (additive)
                  os << "simdgroup_multiply_accumulate("
                     << fragment(*variable, i, j) << ", "
                     << fragment(matrix, i, j) << ", " << helper
                     << "_identity, " << helper << "_filled);\n";
                else
                  os << "simdgroup_multiply(" << fragment(*variable, i, j)
                     << ", " << fragment(matrix, i, j) << ", " << helper
                     << "_diagonal);\n";
              }
            return success();
          })
      .Case([&](ConvertOp convert) -> LogicalResult {
        // Every kind is one simdgroup matrix type: a change of kind alone
        // is a copy. sm-lower-to-metal moves the others through
        // threadgroup memory.
        if (convert.getSourceType().getElementType() !=
            convert.getResultType().getElementType())
          return convert.emitOpError(
              "changes the component type, which Metal's simdgroup matrices "
              "cannot do in registers: run --sm-lower-to-metal first");
        FailureOr<std::string> typeName =
            getMatrixTypeName(convert.getLoc(), convert.getResultType());
        if (failed(typeName))
          return failure();
        os << *typeName << " " << bind(convert.getResult(), "m") << " = "
           << name(convert.getSource()) << ";\n";
        return success();
      })
      .Case<MapOp, ReduceOp>([&](auto) {
        return op.emitOpError("needs the elements' positions, which Metal's "
                              "simdgroup matrices do not give: run "
                              "--sm-lower-to-metal first");
      })
      .Case([&](SubgroupBarrierOp) {
        os << "simdgroup_barrier(mem_flags::mem_threadgroup);\n";
        return success();
      })
      .Default([&](Operation *) {
        return op.emitOpError("cannot be emitted as Metal Shading Language");
      });
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult mlir::subgroup_matrix::translateToMSL(Operation *op,
                                                    raw_ostream &os) {
  MSLEmitter emitter(os);
  return emitter.emitModule(op);
}

LogicalResult mlir::subgroup_matrix::lowerAndTranslateToMSL(
    Operation *module, raw_ostream &os, StringRef targetName) {
  PassManager pm(module->getContext(), module->getName().getStringRef());
  LowerToMetalOptions options;
  options.target = targetName.str();
  buildLowerToMetalPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  // MSL has no 2- or 4-bit integers.
  WalkResult unpacked = module->walk([](gpu::GPUModuleOp kernels) {
    return failed(readPackedIntegersAsBytes(kernels)) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
  });
  if (unpacked.wasInterrupted())
    return failure();
  return translateToMSL(module, os);
}

void mlir::subgroup_matrix::registerToMSLTranslation() {
  TranslateFromMLIRRegistration registration(
      "emit-msl",
      "emit Metal Shading Language for the kernels of the gpu.modules "
      "(lowered by sm-lower-to-metal first)",
      [](Operation *module, raw_ostream &os) {
        return lowerAndTranslateToMSL(module, os);
      },
      [](DialectRegistry &registry) {
        // Host code next to the gpu.modules (sm-tile-matmul's launch,
        // sm-linalg-to-gpu's shape assertions, for example) is parsed and
        // left alone.
        registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                        func::FuncDialect, gpu::GPUDialect, math::MathDialect,
                        memref::MemRefDialect, scf::SCFDialect,
                        SubgroupMatrixDialect, vector::VectorDialect>();
      });
}
