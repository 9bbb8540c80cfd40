//===- SubgroupMatrixBase.td - subgroup_matrix dialect base -*- tablegen -*-===//
//
// The dialect definition and the interface shared by its three matrix types.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXBASE_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def SubgroupMatrix_Dialect : Dialect {
  let name = "subgroup_matrix";
  let cppNamespace = "::mlir::subgroup_matrix";
  let summary = "Matrices distributed over the invocations of a subgroup";
  let description = [{
    The `subgroup_matrix` dialect models the small matrices that matrix units
    (tensor cores, XMX engines, Apple simdgroup matrices) operate on. A
    subgroup matrix is owned by a whole subgroup: its elements are spread over
    the invocations in a way that only the target knows, so the IR never looks
    at single elements. Programs load matrices from memory, combine them with
    multiply-accumulates and scalar arithmetic, and store them back.

    The dialect follows the WGSL subgroup-matrix proposal. There are three
    matrix kinds because Vulkan and Direct3D specialise matrices by their
    role in a multiplication: `left` (A, M x K), `right` (B, K x N) and
    `result` (the accumulator, M x N).

    Every operation of this dialect must execute in subgroup-uniform control
    flow with subgroup-uniform operands; the `sm-check-uniformity` pass
    diagnoses programs that may violate this.

    A kernel in which each subgroup (one per workgroup here) computes one
    16x16 tile of C = A * B, walking K sixteen columns of A (and rows of B)
    at a time:

    ```mlir
    // sm-opt --sm-lower-to-vulkan=target=nvidia-h100
    gpu.module @kernels {
      gpu.func @tile(%A: memref<64x256xf16>, %B: memref<256x128xf16>,
                     %C: memref<64x128xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %c128 = arith.constant 128 : index
        %c256 = arith.constant 256 : index
        %zero = arith.constant 0.0 : f32
        %x = gpu.block_id x
        %y = gpu.block_id y
        %i = arith.muli %y, %c16 : index
        %j = arith.muli %x, %c16 : index
        %init = subgroup_matrix.splat %zero
            : f32 -> !subgroup_matrix.result<16x16xf32>
        %acc = scf.for %k = %c0 to %c256 step %c16
            iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
          %a = subgroup_matrix.load %A[%i, %k] stride %c256
              : memref<64x256xf16> -> !subgroup_matrix.left<16x16xf16>
          %b = subgroup_matrix.load %B[%k, %j] stride %c128
              : memref<256x128xf16> -> !subgroup_matrix.right<16x16xf16>
          %d = subgroup_matrix.mma %a, %b, %c
              : !subgroup_matrix.left<16x16xf16>,
                !subgroup_matrix.right<16x16xf16>
                -> !subgroup_matrix.result<16x16xf32>
          scf.yield %d : !subgroup_matrix.result<16x16xf32>
        }
        subgroup_matrix.store %acc, %C[%i, %j] stride %c128
            : !subgroup_matrix.result<16x16xf32>, memref<64x128xf32>
        gpu.return
      }
    }
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Name of the discardable attribute that attaches a target description
    /// to a `gpu.module` or to the top-level module.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return "subgroup_matrix.target";
    }

    /// Name of the unit attribute that marks a function whose matrices
    /// sm-emulate-matrices took apart into per-invocation scalars; later
    /// stages of the Vulkan pipeline treat such functions differently.
    static constexpr ::llvm::StringLiteral getEmulatedAttrName() {
      return "subgroup_matrix.emulated";
    }

    /// Name of the unit attribute by which a kernel asks for its matrices
    /// to be emulated whatever its target can do: `sm-contractions-to-kernels`
    /// sets it on kernels of types the target's matrix units lack (f32
    /// products on the H100). sm-check-target checks such a kernel against
    /// the target's emulation (getEmulationTarget), and sm-emulate-matrices
    /// emulates it.
    static constexpr ::llvm::StringLiteral getEmulateAttrName() {
      return "subgroup_matrix.emulate";
    }

    /// Name of the discardable attribute by which `sm-plan-kernels` (or a
    /// test, by hand) gives a linalg contraction its
    /// `#subgroup_matrix.contraction_plan` and the softmax of an attention
    /// its `#subgroup_matrix.attention_plan`, which the kernel stages of
    /// `sm-linalg-to-gpu` follow.
    static constexpr ::llvm::StringLiteral getPlanAttrName() {
      return "subgroup_matrix.plan";
    }

    /// Name of the discardable attribute (an integer) by which
    /// `sm-plan-kernels` records the fusion it decided: the same value on a
    /// contraction and on each op its kernel takes in. Emission
    /// (`sm-contractions-to-kernels`) fuses those ops and no others.
    static constexpr ::llvm::StringLiteral getFusionGroupAttrName() {
      return "subgroup_matrix.fusion_group";
    }

    /// Name of the discardable attribute, a `#subgroup_matrix.launch`, that
    /// says how to launch and check a kernel on its own (the kernel stages
    /// write it, the SPIR-V serializer records it for sm-vulkan-runner).
    static constexpr ::llvm::StringLiteral getLaunchAttrName() {
      return "subgroup_matrix.launch";
    }

  private:
    /// Registration of types and attributes, next to their storage classes.
    void registerTypes();
    void registerAttributes();

  public:
  }];
  let hasCanonicalizer = 0;
  let usePropertiesForAttributes = 1;
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Matrix type interface
//===----------------------------------------------------------------------===//

def SubgroupMatrix_MatrixTypeInterface
    : TypeInterface<"SubgroupMatrixTypeInterface"> {
  let cppNamespace = "::mlir::subgroup_matrix";
  let description = [{
    Implemented by the three subgroup matrix types. Gives the shape, the
    component type and the role of a matrix without caring which kind it is.
  }];
  let methods = [
    InterfaceMethod<"Number of rows of the matrix.", "unsigned", "getRows">,
    InterfaceMethod<"Number of columns of the matrix.", "unsigned",
                    "getColumns">,
    InterfaceMethod<"Component type of the matrix elements.", "::mlir::Type",
                    "getElementType">,
    InterfaceMethod<"The role of the matrix in a multiplication.",
                    "::mlir::subgroup_matrix::MatrixKind", "getKind">,
    InterfaceMethod<"Whether a subgroup or a whole workgroup holds the "
                    "matrix.",
                    "::mlir::subgroup_matrix::MatrixScope", "getScope">,
  ];
}

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXBASE_TD
