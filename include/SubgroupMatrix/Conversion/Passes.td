//===- Passes.td - subgroup_matrix conversion passes -------*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_CONVERSION_PASSES_TD
#define SUBGROUPMATRIX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// The stages of the `sm-lower-to-vulkan` pipeline (lib/Pipelines), in order.
// After sm-attach-vulkan-target, each works on the gpu.modules that carry a
// `spirv.target_env`: the copies being lowered, not the originals kept for
// the host.
//===----------------------------------------------------------------------===//

def AttachVulkanTargetPass : Pass<"sm-attach-vulkan-target", "ModuleOp"> {
  let summary = "give each gpu.module a copy to lower for Vulkan";
  let description = [{
    The first stage of `sm-lower-to-vulkan` after the checks. For every
    `gpu.module` it checks what Vulkan requires of kernels (memref
    arguments in global memory, which become storage buffers; a known
    workgroup size, which the shader declares), gives each kernel the
    `spirv.entry_point_abi` carrying that size, and inserts a copy of the
    module before it: the copy is what the later stages lower into a
    `spirv.module`, the original stays for the host code that launches its
    kernels. The copy carries the Vulkan target environment of its target
    (`spirv.target_env`: SPIR-V 1.6, the Vulkan memory model, cooperative
    matrices, 8- and 16-bit storage and arithmetic, bf16, the device's
    cooperative-matrix properties and subgroup size) and the target itself
    (`subgroup_matrix.target`), so that later stages, and tests of them,
    read both from the IR. The target is the `target` option's preset, else
    the `subgroup_matrix.target` attribute in scope.

    ```mlir
    // sm-opt --sm-attach-vulkan-target=target=nvidia-h100
    gpu.module @kernels {
      gpu.func @fill(%out: memref<256xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        gpu.return
      }
    }
    // becomes a copy named for its SPIR-V module, before the original
    gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<...>, subgroup_matrix.target = ...} { ... }
    gpu.module @kernels { ... }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to lower for, overriding any target attribute">,
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def NormalizeKernelMemoryPass
    : Pass<"sm-normalize-kernel-memory", "ModuleOp"> {
  let summary = "bring kernel memory to the forms SPIR-V addresses";
  let description = [{
    MLIR's GPU-to-SPIR-V conversion has no workgroup attributions, and
    SPIR-V's access chains address a buffer through static strides. This
    stage turns every workgroup attribution of a kernel into a workgroup
    `memref.alloc` at the start of its body (one variable per workgroup,
    the same meaning), folds accesses through `memref.subview` into
    accesses of the viewed buffer, and reports each subgroup matrix load
    or store whose memref still has dynamic strides or offset.

    ```mlir
    // sm-opt --sm-normalize-kernel-memory
    gpu.module @kernels {
      gpu.func @k(%out: memref<256xf16>) workgroup(%tile: memref<256xf16, #gpu.address_space<workgroup>>) kernel {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %m = subgroup_matrix.load %tile[%c0] stride %c16
            : memref<256xf16, #gpu.address_space<workgroup>>
            -> !subgroup_matrix.left<16x16xf16>
        subgroup_matrix.store %m, %out[%c0] stride %c16
            : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
        gpu.return
      }
    }
    // becomes
    gpu.func @k(%out: memref<256xf16>) kernel {
      %tile = memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def EmulateMatricesPass : Pass<"sm-emulate-matrices", "ModuleOp"> {
  let summary = "emulate the subgroup matrices of kernels in per-invocation code";
  let description = [{
    Rewrites the matrices of the kernels that cannot use matrix units into
    the scalars each invocation holds: all kernels on a target marked
    `emulated` (`cpu-lavapipe`: devices without cooperative matrices),
    those using a shape or type the target lacks with
    `emulation=unsupported`, every kernel with `emulation=all`. Each matrix
    becomes the per-invocation layout of the Intel path, unpacked
    (invocation i holds column i of each subgroup-wide tile); loads and
    stores become plain accesses (column-major memory, where an
    invocation's column is contiguous, is read and written four elements at
    a time when the buffer's accesses are provably aligned, else element by
    element); `mma` becomes multiply-adds in f32 or 32-bit integers whose
    left-matrix elements come by subgroup broadcast or shuffle; `convert`,
    `map` and `reduce` work in registers as on the Intel path. The buffers
    of an emulated function are flattened to 1-D first (the emulation
    addresses every element by its linear index), and with `robust-access`
    its matrix loads and stores are guarded before they are taken apart.
    Emulated functions are marked `subgroup_matrix.emulated`, which later
    stages read. `sm-lower-to-vulkan` runs it before the SPIR-V conversion;
    `sm-lower-to-metal` runs it (with the defaults: only kernels marked
    `subgroup_matrix.emulate`, such as the products `chooseProductForm`
    emulates) before the MSL emitter prints the per-invocation code.

    Operands reach the invocations that need them by subgroup broadcast and
    shuffle (`emulated-exchange=subgroup`) or through workgroup memory
    (`emulated-exchange=workgroup`: a scratch buffer of a few KB per
    subgroup, ordered by subgroup barriers, sized from `known_block_size`).
    Broadcasts are 2.8x faster on lavapipe, workgroup memory 1.7-4x faster
    on the H100 (docs/performance.md), so the default, `auto`, uses
    workgroup memory on targets with matrix units whose kernel has a known
    workgroup size, and broadcasts on targets marked `emulated`. With the
    workgroup exchange, an operand that was loaded from workgroup memory in
    the multiplication's block with no possible write in between is not
    exchanged at all (the staged
    tiles of a GEMM kernel): each invocation reads the elements of its rows
    and columns there in place, and the multiplications sharing an operand
    share its reads (the corpus's f32 linear layer, 1024x4096x1024 with
    bias and ReLU, on the H100: 247.6 us, against 785 us with the workgroup
    exchange and smaller tiles).

    ```mlir
    // sm-opt --sm-emulate-matrices=emulation=all
    gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
      gpu.func @copy(%in: memref<256xf32>, %out: memref<256xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %m = subgroup_matrix.load %in[%c0] stride %c16
            : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
        subgroup_matrix.store %m, %out[%c0] stride %c16
            : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
        gpu.return
      }
    }
    // becomes a kernel of plain loads and stores
    gpu.func @copy(%in: memref<256xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, subgroup_matrix.emulated} {
    ```
  }];
  let options = [
    Option<"robustAccess", "robust-access", "bool", /*default=*/"false",
           "Bounds-check the matrix loads and stores of emulated kernels "
           "before emulating them">,
    Option<"emulation", "emulation", "std::string", /*default=*/"\"none\"",
           "Which kernels emulate their matrices with ordinary SPIR-V: "
           "'none' (only on targets without matrix units), 'unsupported' "
           "(also kernels using shapes or types the target lacks) or 'all'">,
    Option<"emulatedExchange", "emulated-exchange", "std::string",
           /*default=*/"\"auto\"",
           "How emulated mma and multiply share operand elements between "
           "invocations: 'subgroup' (broadcasts and shuffles), 'workgroup' "
           "(through workgroup memory between subgroup barriers) or 'auto' "
           "(workgroup on targets with matrix units when the workgroup size "
           "is known, else subgroup)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::spirv::SPIRVDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def UseNVCooperativeMatrix2Pass
    : Pass<"sm-use-nv-cooperative-matrix2", "ModuleOp"> {
  let summary = "reductions, maps and conversions of kind through "
                "VK_NV_cooperative_matrix2 where the target lists it";
  let description = [{
    SPV_KHR_cooperative_matrix gives no invocation the position of the
    elements it holds, so reductions, maps that read the row or column or
    compute more than the matrices' own arithmetic, and conversions of a
    result into a left or right matrix go through workgroup memory
    (`sm-expand-through-workgroup-memory`). SPV_NV_cooperative_matrix2 does
    them in registers. On a kernel module whose target lists the feature
    (`nv_coopmat2 = [...]`; presets `nvidia-h100` and
    `cpu-lavapipe-coopmat`):
    - `reductions`: `reduce` of a result matrix becomes
      OpCooperativeMatrixReduceNV (Row, Column, or both for `all`) with a
      combining function built from the reduction's kind;
    - `per_element_operations`: a `map` that would go through workgroup
      memory becomes OpCooperativeMatrixPerElementOpNV, whose function is
      the map's body with the row and column, every input's element and the
      values the body uses from outside as arguments; a map whose result
      type differs from its first input's applies to a matrix of zeros of
      the result's type;
    - `conversions`: `convert` of a result into a left or right matrix
      becomes OpCooperativeMatrixConvertNV (same component type) or the
      conversion instruction of the two component types;
    - `tensor_addressing`: a `load` or `store` with bounds, of a kernel's
      buffer or workgroup allocation, becomes
      OpCooperativeMatrixLoadTensorNV or OpCooperativeMatrixStoreTensorNV
      from the buffer's first element: a one-dimensional tensor layout
      sliced at element [0, 0], and a tensor view whose dimensions, strides
      (`stride`, 1) and permutation (swapped for `col_major`) address the
      rows or columns and whose clip is the bounds, kept within the matrix.
      A clipped load leaves the elements of a matrix of zeros.

    MLIR's SPIR-V dialect has none of these instructions: each op becomes a
    call of a stand-in function named for the instruction, and
    `sm-translate --serialize-spirv` (and the runtime, which serializes the
    same way) writes the instruction in place of the call, with its
    capability and the SPV_NV_cooperative_matrix2 extension (and
    SPV_NV_tensor_addressing, with the types of the layouts and views, for
    tensor loads and stores). Everything
    else, and every op on a target without the feature, keeps the
    SPV_KHR_cooperative_matrix lowering. `sm-lower-to-vulkan` runs this
    stage unless `nv-coopmat2=false`.

    ```mlir
    // sm-opt --sm-use-nv-cooperative-matrix2
    gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
      gpu.func @row_max(%in: memref<64xf32>, %out: memref<64xf32>) kernel {
        %c0 = arith.constant 0 : index
        %c8 = arith.constant 8 : index
        %m = subgroup_matrix.load %in[%c0] stride %c8
            : memref<64xf32> -> !subgroup_matrix.result<8x8xf32>
        %r = subgroup_matrix.reduce max rows %m : !subgroup_matrix.result<8x8xf32>
        subgroup_matrix.store %r, %out[%c0] stride %c8
            : !subgroup_matrix.result<8x8xf32>, memref<64xf32>
        gpu.return
      }
    }
    // The reduction becomes
    //   %r = func.call @__sm_nv_coopmat2__reduce_rows__0(%m)
    // and the module gains the stand-in and its combining function
    //   func.func private @sm_nv_coopmat2_combine(%a: f32, %b: f32) -> f32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::ub::UBDialect",
  ];
}

def PackWideAccessesPass : Pass<"sm-pack-wide-accesses", "ModuleOp"> {
  let summary = "retype buffers so that vector accesses become wide ones";
  let description = [{
    SPIR-V has no pointer casts, so a `vector.load` of four f16 from a
    buffer of f16 cannot be one 64-bit access. This stage retypes each 1-D
    buffer of a kernel (an argument or a workgroup `memref.alloc`) that is
    accessed only `W` elements at a time (by `vector.load`/`vector.store`
    of 32, 64 or 128 bits bit-cast to i32 words, and by subgroup matrix
    loads and stores at multiples of `W`) into a buffer of those words;
    each access then becomes one wide access. A buffer whose vector
    accesses cannot be packed is an error, except in emulated kernels
    (marked `subgroup_matrix.emulated`), whose vector accesses are an
    optimisation and become scalar accesses instead, as they do in the
    other functions an emulated kernel calls.

    ```mlir
    // sm-opt --sm-pack-wide-accesses
    gpu.module @kernels {
      gpu.func @copy(%in: memref<256xf16>, %out: memref<256xf16>) kernel {
        %c0 = arith.constant 0 : index
        %v = vector.load %in[%c0] : memref<256xf16>, vector<4xf16>
        vector.store %v, %out[%c0] : memref<256xf16>, vector<4xf16>
        gpu.return
      }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def HoldBFloat16AsBitsPass : Pass<"sm-hold-bf16-as-bits", "ModuleOp"> {
  let summary = "hold bf16 values as 16-bit integers on targets without "
                "bf16";
  let description = [{
    Devices without bf16 matrices (targets marked `emulated`, and those
    whose configurations have no bf16, as Mesa 26's lavapipe) have no bf16
    type in SPIR-V. By this stage every bf16 computation of their kernels
    happens in f32 (the emulation widens, and its conversions are
    integer arithmetic on the bits), so what is left of bf16 is storage and
    moves: buffers, loads, stores, selects and bit casts. This stage
    retypes them to i16 (constants keep their bits) and removes the bit
    casts that became no-ops; an arithmetic op still computing in bf16 is
    an error. Kernels for targets with bf16 matrices are left as they are.

    ```mlir
    // sm-opt --sm-hold-bf16-as-bits
    gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
      gpu.func @copy(%in: memref<16xbf16>, %out: memref<16xbf16>) kernel {
        %c0 = arith.constant 0 : index
        %x = memref.load %in[%c0] : memref<16xbf16>
        memref.store %x, %out[%c0] : memref<16xbf16>
        gpu.return
      }
    }
    // becomes
    gpu.func @copy(%in: memref<16xi16>, %out: memref<16xi16>) kernel {
      %x = memref.load %in[%c0] : memref<16xi16>
    ```
  }];
}

def ConvertKernelsToSPIRVPass
    : Pass<"sm-convert-kernels-to-spirv", "ModuleOp"> {
  let summary = "convert the prepared gpu.modules into spirv.modules";
  let description = [{
    The conversion itself: per-invocation allocations become
    Function-storage variables (which only loads and stores may use); each
    scalar or vector result of an `scf.for` becomes `lb < ub ? result :
    init` (upstream's SCF lowering stores a loop's results only in its
    body, so a loop that runs no iteration, such as an invocation's share
    of a row shorter than its workgroup, would yield undefined values);
    memref memory spaces become storage classes (global memory storage
    buffers, workgroup memory workgroup variables); and MLIR's own SPIR-V
    conversions (GPU, SCF, arith, cf, func, math, memref, index, ub and
    what is left of vector) with this project's cooperative-matrix patterns
    turn each gpu.module into a `spirv.module` named `__spv__NAME`, with
    the Vulkan memory model. f16 and i8 memrefs are never emulated through
    wider types: that would change the meaning of matrix strides. The
    target environment is the module's `spirv.target_env`.

    ```mlir
    // sm-opt --sm-convert-kernels-to-spirv
    gpu.module @kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, StorageBuffer16BitAccess, VulkanMemoryModel, CooperativeMatrixKHR], [SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage, SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<>>} {
      gpu.func @copy(%in: memref<256xf16>, %out: memref<256xf16>) kernel
          attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %m = subgroup_matrix.load %in[%c0] stride %c16
            : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
        subgroup_matrix.store %m, %out[%c0] stride %c16
            : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
        gpu.return
      }
    }
    // becomes
    spirv.module @__spv__kernels Logical Vulkan ... { ... }
    ```
  }];
  let dependentDialects = [
    "::mlir::spirv::SPIRVDialect",
  ];
}

def MarkSharedAccessesNonPrivatePass
    : Pass<"sm-mark-shared-accesses-nonprivate", "spirv::ModuleOp"> {
  let summary = "make accesses to shared memory visible under the Vulkan "
                "memory model";
  let description = [{
    Under the Vulkan memory model, plain loads and stores are private to
    the invocation and barriers do not order them. This stage marks every
    `spirv.Load` and `spirv.Store` of workgroup or storage-buffer memory
    `NonPrivatePointer`, so that what one invocation writes, another reads
    after a barrier. An atomic whose memory semantics order memory but name
    no storage class (as MLIR's lowering of `memref.atomic_rmw` leaves them,
    and Vulkan forbids) gets its pointer's: `UniformMemory` for storage
    buffers, `WorkgroupMemory` for workgroup memory. `sm-lower-to-vulkan`
    runs it after lowering the ABI attributes, which adds the loads of
    scalar arguments.

    ```mlir
    // sm-opt --pass-pipeline=builtin.module(spirv.module(sm-mark-shared-accesses-nonprivate))
    spirv.module Logical Vulkan {
      spirv.GlobalVariable @tile : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>
      spirv.func @read() -> f32 "None" {
        %c0 = spirv.Constant 0 : i32
        %base = spirv.mlir.addressof @tile : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>
        %p = spirv.AccessChain %base[%c0] : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>, i32 -> !spirv.ptr<f32, Workgroup>
        %x = spirv.Load "Workgroup" %p : f32
        spirv.ReturnValue %x : f32
      }
    }
    // becomes
    %x = spirv.Load "Workgroup" %p ["NonPrivatePointer"] : f32
    ```
  }];
}

def PreserveInfNanPass : Pass<"sm-preserve-inf-nan", "spirv::ModuleOp"> {
  let summary = "keep infinities, NaN and signed zeros in Vulkan kernels";
  let description = [{
    Without the `SignedZeroInfNanPreserve` execution mode a Vulkan driver
    may compute as if no float were infinite or NaN and the sign of zero
    did not matter (folding `x - x` to 0 and `x * 0` to 0), where the
    program's semantics, and upstream MLIR's CPU execution of it, keep
    them. This stage declares the mode on every entry point for f32, and
    for f16 and f64 where the module computes in them (capabilities
    `Float16`, `Float64`), with the `SignedZeroInfNanPreserve` capability;
    the runtime refuses a kernel whose device does not keep them
    (`shaderSignedZeroInfNanPreserveFloat16/32/64`).

    ```mlir
    // sm-opt --pass-pipeline=builtin.module(spirv.module(sm-preserve-inf-nan))
    spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, Float16], []> {
      spirv.func @main() "None" {
        spirv.Return
      }
      spirv.EntryPoint "GLCompute" @main
    }
    // becomes
    spirv.ExecutionMode @main "SignedZeroInfNanPreserve", 16
    ```
  }];
}

def AddVulkanCapabilitiesPass
    : Pass<"sm-add-vulkan-capabilities", "spirv::ModuleOp"> {
  let summary = "declare the capabilities spirv-update-vce does not derive";
  let description = [{
    `spirv-update-vce` derives a module's capabilities from its ops and
    types, but not some that Vulkan kernels need: `VulkanMemoryModel`, from
    the module's memory model; `GroupNonUniform`, which SPIR-V requires
    of modules reading the subgroup built-ins (`SubgroupId`,
    `NumSubgroups`, `SubgroupSize`, `SubgroupLocalInvocationId`);
    `VulkanMemoryModelDeviceScope`, for memory scopes of `Device`; and
    `BFloat16CooperativeMatrixKHR`, which `SPV_KHR_bfloat16` requires of
    cooperative matrices of bf16 (MLIR derives only `BFloat16TypeKHR`). This
    stage adds them to the module's version-capability-extension triple;
    the last stage of `sm-lower-to-vulkan`.

    ```mlir
    // sm-opt --pass-pipeline=builtin.module(spirv.module(sm-add-vulkan-capabilities))
    spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader], []> {
    }
    // becomes
    spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, VulkanMemoryModel], []> {
    ```
  }];
}

def LowerToIntelPass : Pass<"sm-lower-to-intel", "ModuleOp"> {
  let summary = "lower subgroup matrices to the per-invocation Intel form";
  let description = [{
    Rewrites every kernel of the module's `gpu.module`s into the form of
    `SPV_INTEL_subgroup_matrix_multiply_accumulate`: each subgroup matrix
    becomes the vector one invocation holds, exactly as the extension maps
    matrix data to invocations.

    - A result or accumulator (M x N) is one column per invocation: element
      `t * M + r` is row r of column `t * S + lane` (S: subgroup size).
    - B (K x N) is the invocation's column, VNNI-packed: two 16-bit or four
      8-bit rows per 32-bit value.
    - A (M x K), per chunk of up to 8 rows: with K >= S each invocation packs
      K / S consecutive columns into one value per row; with K < S (tf32)
      the rows of a column are spread over S / K invocations.

    Loads and stores move each invocation's elements with the op's stride
    and layout; `mma` and `multiply` become calls of
    `__spirv_SubgroupMatrixMultiplyAccumulateINTEL` (Itanium-mangled, with
    the packing and signedness operands and K), one per 8-row chunk and per
    S-wide column tile; scalar ops work element by element. Kernels get the
    `intel_reqd_sub_group_size` of the target.

    Kernels marked `subgroup_matrix.emulate` (the kernel stage marks those
    whose products the target's matrices lack, such as 32-bit integers)
    take the emulated form instead, as `sm-emulate-matrices` builds it:
    scalar multiply-adds per invocation, operands exchanged by subgroup
    shuffles. They are marked `subgroup_matrix.emulated`.

    The module is first checked against the target (`target` option or
    attribute: `intel-xe-hpc`, subgroup 16, or `intel-xe-hpg`, subgroup 8;
    marked kernels against its emulation) and for uniformity; shapes or
    types the extension cannot express are errors naming the rule.

    ```mlir
    // sm-opt --sm-lower-to-intel=target=intel-xe-hpc examples/gemm_f16.mlir
    %r = func.call @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_sDv8_iDv8_fi(
        %k16, %a, %b, %c, %operands)
        : (i32, vector<8xi16>, vector<8xi32>, vector<8xf32>, i32) -> vector<8xf32>
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to lower for, overriding any target attribute">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

// The tiling options of sm-tile-matmul and sm-plan-kernels
// (MatmulTiling in TilingPlan.h), and the tuning table that fills what they
// leave open.
defvar MatmulTilingOptions = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"0",
           "Rows of C per workgroup">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"0",
           "Columns of C per workgroup">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"0",
           "Depth of one step of the K loop">,
    Option<"subgroupsM", "subgroups-m", "int64_t", /*default=*/"0",
           "Subgroups per workgroup along M">,
    Option<"subgroupsN", "subgroups-n", "int64_t", /*default=*/"0",
           "Subgroups per workgroup along N">,
    Option<"padding", "padding", "int64_t", /*default=*/"-1",
           "Elements added to each row of the workgroup copies (-1: target "
           "default)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Workgroup buffers per operand: 1, or 2 for double buffering">,
    Option<"prefetch", "prefetch", "int64_t", /*default=*/"-1",
           "With one stage, load the next K step into registers before "
           "multiplying this one (1) or after (0); -1: target default">,
    Option<"preloadC", "preload-c", "int64_t", /*default=*/"-1",
           "Start the accumulators from C loaded before the K loop (1), or "
           "from zero with C added as they are stored (0); -1: target "
           "default (0)">,
    Option<"stageBTransposed", "stage-b-transposed", "int64_t",
           /*default=*/"-1",
           "Transpose a row-major 8-bit B as it is staged, so that its "
           "matrices are read column-major (1), or stage it as it is (0); "
           "-1: target default (0)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Elements each invocation copies at once">,
    Option<"groupM", "group-m", "int64_t", /*default=*/"0",
           "Tile rows consecutive workgroups walk down before moving to the "
           "next tile column (1: row-major order)">,
];
defvar TuningTableOption =
  Option<"tuningTable", "tuning-table", "std::string", /*default=*/"\"\"",
           "Tuning table the tiling of a problem comes from where no tiling "
           "option is given: a file (data/tuning/*.tuning format), 'none', "
           "or empty for the target's shipped table">;

def TileMatmulPass : Pass<"sm-tile-matmul", "ModuleOp"> {
  let summary = "turn linalg.matmul on memrefs into a tiled subgroup-matrix "
                "GPU kernel and its launch";
  let description = [{
    Replaces every `linalg.matmul` on statically shaped, row-major memrefs
    (C += A * B, with B either K x N or transposed, N x K) by a `gpu.module`
    holding one kernel written in `subgroup_matrix` and a `gpu.launch_func`
    of it:

    - each workgroup computes a `tile-m` x `tile-n` tile of C with
      `subgroups-m` x `subgroups-n` subgroups; each subgroup owns a block of
      result matrices of the target's preferred configuration for the input
      and accumulator types, kept in registers across the K loop and stored
      once;
    - the K loop walks `tile-k` columns of A and rows of B at a time, copying
      them cooperatively into workgroup memory whose rows are padded by
      `padding` elements against bank conflicts; with `stages=2` (double
      buffering) the copy of the next step is loaded into registers while
      the current one is multiplied and two workgroup buffers alternate, so
      one barrier per step suffices; `stages=1` loads, stores and multiplies
      one step at a time, between two barriers, and with `prefetch=1` it
      loads the next step into registers before multiplying this one, as
      two stages do, but stores it into the same buffer after a barrier
      (the default on Vulkan devices: on the H100 two workgroups share an
      SM only when each has at most 24 KiB of workgroup memory, which two
      stages of the default tiles exceed);
    - the accumulators start from zero and C (which `linalg.matmul`
      accumulates into) is added as they are stored, a row of result
      matrices at a time, so that C takes no registers through the K loop;
      `preload-c=1` loads C into them before the loop instead;
    - with `stage-b-transposed=1`, a K x N (row-major) B of 8-bit elements
      is transposed on its way into workgroup memory (each invocation
      loads blocks of eight rows of four elements and stores each of their
      four columns as 64 bits), so that its matrices are read column-major,
      as for a B given N x K: a row-major 8-bit right matrix is the layout
      the H100's driver loads slowest;
    - with `vector-width=W`, each invocation copies W consecutive elements
      at once (`vector.load`/`vector.store` of 64 or 128 bits, which the
      Vulkan lowering turns into single wide accesses); where rows are no
      multiple of W the width halves, down to 64 bits, then to single
      elements; 1 copies scalars;
    - with `group-m=G`, consecutive workgroups walk down G tile rows before
      the next tile column, so that the workgroups running together share
      tiles of A and B in the L2 cache;
    - sizes that are not multiples of the tiles are handled: copies past the
      edges read zeros, and workgroups at the edges of C go through
      workgroup memory so that nothing outside C is read or written.

    Options left at 0 take the target's defaults: on `nvidia-h100`
    128x128x32 tiles of 2x2 subgroups with 4x4 16x16 matrices each, 16-byte
    copies, one stage and groups of 8 tile rows, the fastest measured on the
    H100 (docs/performance.md); on `amd-rdna3` the same with 4x4 subgroups
    of 2x2 matrices, which RDNA3 holds without spilling registers; elsewhere
    2x2 subgroups of 2x2 matrices, scalar copies, two stages and row-major
    launch order. A preceding `linalg.fill` of C with a constant becomes
    the initial value of the accumulators. Where no tiling option is
    given, a tuning table may choose the tiling: the one shipped for the
    preset (`data/tuning/nvidia-h100.tuning`, which `bench/tune` measures
    and writes), or the file `tuning-table=` names; a line applies to
    contractions of its element types and B layout whose M and N are from
    its own to twice them and K from half to twice. The kernel carries a
    `subgroup_matrix.launch` attribute (grid, arguments and the GEMM check)
    that the Vulkan lowering and `sm-vulkan-runner` use to run it with no
    hand-written command line.

    ```mlir
    // sm-opt --sm-tile-matmul=target=nvidia-h100
    func.func @matmul(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>,
                      %c: memref<4096x4096xf32>) {
      linalg.matmul ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>)
                    outs(%c : memref<4096x4096xf32>)
      return
    }
    // becomes
    gpu.module @matmul_kernels attributes {subgroup_matrix.target = ...} {
      gpu.func @matmul(...) workgroup(...) kernel ... { ... }
    }
    func.func @matmul(%a: memref<4096x4096xf16>, ...) {
      %a1 = memref.collapse_shape %a [[0, 1]]
          : memref<4096x4096xf16> into memref<16777216xf16>
      ...
      gpu.launch_func @matmul_kernels::@matmul blocks in (%c32, %c32, %c1)
          threads in (%c128, %c1, %c1) args(%a1 : memref<16777216xf16>, ...)
    }
    ```
  }];
  let options = !listconcat([
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to generate for (else the module's target attribute)">
  ], MatmulTilingOptions, [TuningTableOption]);
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

//===----------------------------------------------------------------------===//
// The stages of the `sm-linalg-to-gpu` pipeline (lib/Pipelines), in order.
// The three kernel stages put their kernels into the program's gpu.module
// @kernels (made, with the target attached, by the first that needs it) and
// number them in the order they make them.
//===----------------------------------------------------------------------===//

def FuseElementwisePass : Pass<"sm-fuse-elementwise", "ModuleOp"> {
  let summary = "merge element-wise ops on tensors into the ops that read them";
  let description = [{
    Dispatch formation on tensors, the first stage of `sm-linalg-to-gpu`.
    Graph compilers write programs op by op: a softmax as a max, the shifted
    exponentials, their sum and a quotient; a layer norm as a dozen
    generics; named element-wise ops (`linalg.add`, `linalg.exp`,
    `linalg.elementwise`, `linalg.transpose`, ...), fills as generics,
    reductions kept as `[rows, 1]` by a reshape. This stage brings them to
    generics and merges each element-wise generic into the generics that
    read it (upstream's element-wise fusion):

    - an element of a tensor that a body uses from outside
      (`tensor.extract` with constant indices) becomes an input;
    - a generic that only yields a value from outside becomes `linalg.fill`,
      and named element-wise ops become generics;
    - a generic that reads a tensor through a reshape that only adds or
      drops unit dimensions reads the tensor itself (not a product's
      reshapes, which `sm-normalize-contractions` folds);
    - an element-wise producer merges into its readers when every reader
      is an element-wise generic or a reduction that is not a product; a
      producer with several readers is computed again in each, and its
      tensor is gone.

    After it, a chain of element-wise ops is one generic (an epilogue or a
    prologue of a product), and a written-out softmax or norm is a few
    reductions and one element-wise op over the same rows, which
    `sm-elementwise-to-kernels` makes one kernel.

    ```mlir
    // sm-opt --sm-fuse-elementwise
    #x = affine_map<(i, j) -> (i, j)>
    #row = affine_map<(i, j) -> (i)>
    func.func @sum_of_exponentials(%x: tensor<4x32xf32>, %init: tensor<4xf32>)
        -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4x32xf32>
      %exp = linalg.exp ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
          -> tensor<4x32xf32>
      %sum = linalg.generic {indexing_maps = [#x, #row],
                             iterator_types = ["parallel", "reduction"]}
          ins(%exp : tensor<4x32xf32>) outs(%init : tensor<4xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %v, %acc : f32
        linalg.yield %s : f32
      } -> tensor<4xf32>
      return %sum : tensor<4xf32>
    }
    // becomes one reduction that reads %x and computes the exponential
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def WarnUninitializedReductionsPass
    : Pass<"sm-warn-uninitialized-reductions", "ModuleOp"> {
  let summary = "warn of reductions into tensors that hold no values";
  let description = [{
    A reduction (a contraction, a `linalg.reduce`, a generic with a
    reduction loop) whose body reads its output starts from that output's
    values. When the output is a `tensor.empty()` they are undefined: the
    program's result is whatever the allocation held (upstream's CPU
    execution and every device may differ). The program is still compiled;
    this stage, the first of `sm-linalg-to-gpu` after inlining, reports a
    warning at each such op, naming the output to fill first.

    ```mlir
    // sm-opt --sm-warn-uninitialized-reductions
    func.func @product(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
      %c = tensor.empty() : tensor<4x4xf32>
      // warning: 'linalg.matmul' op reduces into output 0, a tensor.empty()
      // whose values are undefined ...
      %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>)
          outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
      return %r : tensor<4x4xf32>
    }
    ```
  }];
}

def RaiseSoftmaxPass : Pass<"sm-raise-softmax", "ModuleOp"> {
  let summary = "a softmax written out as its reductions becomes linalg.softmax";
  let description = [{
    Front-ends write softmax out: torch-mlir's decomposition, JAX's
    `jax.nn.softmax`, ONNX and IREE imports give a maximum along one
    dimension (from -inf or the lowest finite value, `maximumf` or
    `maxnumf`), `exp` of each element's difference from it, the sum of
    those (from zero) and the division by it. On tensors, before dispatch
    formation merges those pieces into other ops, this stage replaces each
    such chain by `linalg.softmax` over that dimension, so that the
    attention kernel (`sm-attention-to-kernels`) and the row kernels see
    one softmax; what the division's body does after dividing (a narrowing
    to f16, say) follows as an element-wise op. The reductions may write
    their rows without the dimension or keep it as a size-1 dimension
    (torch's keepdim, read back through a zero in the map). TOSA's form
    (upstream's TOSA-to-linalg) is taken too: the reductions as
    `linalg.reduce` (made generics first) with their rows kept by a
    `tensor.expand_shape`, which the readers read through, and the
    division as a reciprocal (`1 / sum`) and a multiply by it. The chain
    must be the only reader of each intermediate. Anything else is left as
    it is.

    ```mlir
    // sm-opt --sm-raise-softmax
    #all = affine_map<(i, j) -> (i, j)>
    #row = affine_map<(i, j) -> (i)>
    func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %lowest = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %rows = tensor.empty() : tensor<4xf32>
      %full = tensor.empty() : tensor<4x8xf32>
      %m0 = linalg.fill ins(%lowest : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
      %m = linalg.generic {indexing_maps = [#all, #row], iterator_types = ["parallel", "reduction"]}
          ins(%x : tensor<4x8xf32>) outs(%m0 : tensor<4xf32>) {
      ^bb0(%a: f32, %acc: f32):
        %r = arith.maximumf %a, %acc : f32
        linalg.yield %r : f32
      } -> tensor<4xf32>
      %e = linalg.generic {indexing_maps = [#all, #row, #all], iterator_types = ["parallel", "parallel"]}
          ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %d = arith.subf %a, %b : f32
        %r = math.exp %d : f32
        linalg.yield %r : f32
      } -> tensor<4x8xf32>
      %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
      %s = linalg.generic {indexing_maps = [#all, #row], iterator_types = ["parallel", "reduction"]}
          ins(%e : tensor<4x8xf32>) outs(%s0 : tensor<4xf32>) {
      ^bb0(%a: f32, %acc: f32):
        %r = arith.addf %a, %acc : f32
        linalg.yield %r : f32
      } -> tensor<4xf32>
      // All four become:
      // %p = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) ...
      %p = linalg.generic {indexing_maps = [#all, #row, #all], iterator_types = ["parallel", "parallel"]}
          ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %r = arith.divf %a, %b : f32
        linalg.yield %r : f32
      } -> tensor<4x8xf32>
      return %p : tensor<4x8xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TosaToLinalgPass : Pass<"sm-tosa-to-linalg", "ModuleOp"> {
  let summary = "lower a program written in TOSA to linalg, as upstream does";
  let description = [{
    The first stage of `sm-linalg-to-gpu`: a program in TOSA (as TensorFlow
    Lite's converter and torch-mlir's TOSA path write them) becomes the
    linalg program on tensors that the later stages take, through upstream
    MLIR's own lowering: the passes of `tosa-to-linalg-pipeline`
    (decompositions, shape inference, broadcasting, named ops, then the
    element-wise ops), followed by `tosa-to-arith` (constants),
    `tosa-to-tensor` (reshapes, slices, pads, concatenations) and
    `tosa-to-scf` (control flow); `tosa.apply_scale`, which the lowering of
    `tosa.rescale` leaves in its bodies, becomes integer arithmetic. A
    program that declares no `tosa.target_env` (front ends attach none) is
    validated against all of specification 1.0 at level `none`: every
    profile and extension, dynamic sizes included; a declared target is
    held to as upstream holds it. Shape operands left without users are
    dropped. A TOSA op that none of them lowers is reported at its location.
    A module without TOSA ops is left as it is, so that a linalg program is
    never simplified behind its author's back.

    ```mlir
    // sm-opt --sm-tosa-to-linalg
    func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %y = tosa.clamp %x {min_val = 0.0 : f32, max_val = 3.4e38 : f32}
          : (tensor<4x8xf32>) -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    }
    // becomes a linalg.generic of arith.minimumf and arith.maximumf
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ComputeF64InF32Pass : Pass<"sm-compute-f64-in-f32", "ModuleOp"> {
  let summary = "compute a program's f64 arithmetic in f32 on targets without f64";
  let description = [{
    Metal has no `double`, and Xe-HPG no f64 hardware: a kernel that
    computes in f64 is refused there (`sm-check-target` names the op). A
    program whose f64 is internal (a variance accumulated in f64 between
    f32 inputs and outputs, as torch exports write `var` and `layer_norm`)
    can run in f32 instead, less exactly: this stage (`sm-linalg-to-gpu`'s
    `f64=f32`) rewrites every f64 value of the program's functions to f32,
    its constants rounded, `arith.extf` to f64 and `arith.truncf` from it
    dropped where they become f32 to f32, and attaches a remark to each op
    it changes. It changes nothing on a target with `float64`. f64 that
    crosses the program's interface (an argument or result of f64) or that
    is reinterpreted (`arith.bitcast`) is reported instead: converting it is
    the caller's choice.

    ```mlir
    // sm-opt --sm-compute-f64-in-f32=target=apple-m1
    func.func @square(%x: f32) -> f32 {
      %w = arith.extf %x : f32 to f64
      %s = arith.mulf %w, %w : f64
      %n = arith.truncf %s : f64 to f32
      return %n : f32
    }
    // becomes (remark: computes in f32, not f64: target 'apple-m1' has no
    // f64 (f64=f32))
    %s = arith.mulf %x, %x : f32
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"",
           "The target preset whose `float64` decides (default: the "
           "module's target)">,
    Option<"mode", "f64", "std::string", /*default=*/"\"f32\"",
           "'f32' (compute in f32) or 'native' (change nothing: the "
           "lowering refuses f64 where the target lacks it)">,
  ];
}

def FoldBatchLoopsPass : Pass<"sm-fold-batch-loops", "ModuleOp"> {
  let summary = "fold the leading batch loops of a program on tensors into one";
  let description = [{
    Kernels take one batch dimension (the grid's z or y), but attention
    written on 4-D tensors has two leading ones, batch and heads. This
    stage rewrites each `linalg.generic` whose first two loops are parallel
    and appear together (or not at all) in every indexing map, and each
    4-D `linalg.softmax` over a later dimension, into its 3-D form between
    `tensor.collapse_shape` and `tensor.expand_shape`, which then cancel
    between neighbours. An input broadcast over the two loops through zeros
    in its map (a [1, 1, queries, keys] mask, which torch-mlir reads as
    `(b, h, i, j) -> (0, 0, i, j)`) is first read through a collapse of
    those size-1 dimensions, with a map of loops only. An input of an
    attention's ops (the steps from the scores' product to a softmax over
    4 or more dimensions, and on to the product with V) that is broadcast
    over the heads loop (K and V of multi-query attention,
    `(b, h, i, j, d) -> (b, j, d)`; BERT's [batch, keys] padding mask) is
    read through a copy repeated over the heads, which the attention
    kernel reads through, so that the products fold as the softmax does.
    The fold is repeated on the ops of attentions whose softmax still has
    two batch loops before its rows: JAX's grouped-query einsum (batch,
    key-value heads, queries per key-value head) takes two rounds; other
    ops fold once.

    ```mlir
    // sm-opt --sm-fold-batch-loops
    #map = affine_map<(b, h, i, j) -> (b, h, i, j)>
    func.func @scale(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
      %e = tensor.empty() : tensor<2x4x8x8xf32>
      %y = linalg.generic {indexing_maps = [#map, #map],
                           iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
          ins(%x : tensor<2x4x8x8xf32>) outs(%e : tensor<2x4x8x8xf32>) {
      ^bb0(%v: f32, %out: f32):
        %s = arith.addf %v, %v : f32
        linalg.yield %s : f32
      } -> tensor<2x4x8x8xf32>
      return %y : tensor<2x4x8x8xf32>
    }
    // becomes a generic on tensor<8x8x8xf32> between reshapes
    %c = tensor.collapse_shape %x [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def NormalizeContractionsPass : Pass<"sm-normalize-contractions", "ModuleOp"> {
  let summary = "write every contraction on tensors as one matrix product";
  let description = [{
    Front-ends spell contractions many ways: generics with several batch, M,
    N or K loops in any order, named ops with `indexing_maps`, matrix-vector
    products, operands transposed or broadcast by a `linalg.transpose` or
    `linalg.broadcast` before them. Kernels take one form: at most one
    batch, one M, N and K loop, A as [m, k] or [k, m], B as [k, n] or
    [n, k] and C as [m, n], each after the batch. This stage rewrites each
    contraction on tensors (upstream's `linalg::inferContractionDims`: batch
    loops in all three operands, M loops in A and C, N loops in B and C, K
    loops in A and B) into that form:

    - a transpose or broadcast that only feeds the contraction folds into
      its indexing map, so that the contraction reads the original tensor;
    - loops of one role are grouped in the order C (for K: A) holds them,
      and each operand whose dimensions are not already grouped that way is
      transposed (a copy);
    - each group becomes one dimension through `tensor.collapse_shape`
      (a view, once bufferized: several M loops of a row-major tensor are
      one M), a missing M or N (a matrix-vector product) a unit dimension;
    - the result is expanded back, and transposed back when C's loops were
      not grouped.

    A contraction already in the kernels' form is left alone, as are dot
    products (no M and no N loop) and bodies that read `linalg.index`.

    Convolutions are contractions first: each convolution on tensors
    (upstream's `isaConvolutionOpInterface`: a named op of any layout, or a
    generic whose input map windows the image, `d1 * 2 + d4`) with output
    channels and static sizes becomes a contraction whose A is its window,
    a `linalg.generic` that copies the input through the convolution's map
    into [groups, batch and output image, window and input channels]
    (implicit GEMM). The contraction kernel computes that generic as it
    stages A, so the window is never stored. Depthwise convolutions and 1x1
    convolutions with unit strides (`sm-unit-convolutions-to-contractions`)
    are left alone. A quantized convolution (`conv_2d_nhwc_hwcf_q`, ...)
    becomes a quantized contraction.

    Quantized contractions (`linalg.quantized_matmul`, `quantized_batch_matmul`
    and generics with their body) become the product of the stored 8-bit
    values and the zero points' corrections, `- zb rowsum(A) - za colsum(B)
    + K za zb`: the sums are reductions of their own (a convolution's window
    sums read the input through the window), the corrections an element-wise
    op after the product, whose kernel fuses it.

    Around contractions, the stage also tidies what front-ends write (after
    `sm-fuse-elementwise` merged element-wise chains): a `batch_matmul` of
    batch one whose
    result is only reshaped to 2-D becomes a `matmul`; products that start
    from one fill get a fill each; and an element-wise generic that reads a
    product through the reshape back to the contraction's loops is collapsed
    onto the product (upstream's fold of a reshape by collapsing loops), so
    that it fuses as the product's epilogue.

    ```mlir
    // sm-opt --sm-normalize-contractions
    // Attention scores on [batch, seq, heads, dim] operands.
    #q = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
    #k = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
    #s = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
    func.func @scores(%q: tensor<2x64x8x32xf16>, %k: tensor<2x64x8x32xf16>,
                      %acc: tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32> {
      %r = linalg.generic {indexing_maps = [#q, #k, #s],
          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
          ins(%q, %k : tensor<2x64x8x32xf16>, tensor<2x64x8x32xf16>)
          outs(%acc : tensor<2x8x64x64xf32>) {
      ^bb0(%a: f16, %b: f16, %c: f32):
        %x = arith.extf %a : f16 to f32
        %y = arith.extf %b : f16 to f32
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %c, %p : f32
        linalg.yield %s : f32
      } -> tensor<2x8x64x64xf32>
      return %r : tensor<2x8x64x64xf32>
    }
    // becomes Q and K transposed to [b, h, s, d] and [b, h, t, d],
    // collapsed to 16 batches, and one batched product with B as [n, k]
    %p = linalg.generic ... ins(%qt, %kt : tensor<16x64x32xf16>, tensor<16x64x32xf16>)
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BufferizeProgramPass : Pass<"sm-bufferize-program", "ModuleOp"> {
  let summary = "bufferize a program into dense row-major buffers";
  let description = [{
    One-shot bufferization of the whole program, function boundaries
    included, into dense row-major buffers (identity layouts), whatever
    layout the input uses: the form kernels take. A program without
    tensors keeps its buffers. Sizes read off the results of ops, views and
    new buffers (`tensor.dim`, `memref.dim`: how the earlier stages and
    bufferization size what they make) are read off the program's
    arguments instead, before and after bufferization, and values then
    unused are erased: a fill kept only for its size would be a kernel, and
    a copy with such a user could not be read through (attention's copies
    of K and V). Element-wise `arith` and `math` ops on whole
    tensors (an `arith.extsi` of a weight) first become the
    `linalg.generic` they are. A rank-0 operand of a linalg op (a scale or
    a zero point given as `tensor<f32>`, a dot product's result) becomes a
    one-element view read through the constant index 0, since kernels
    address buffers by position; a named op becomes its generic for that.

    ```mlir
    // sm-opt --sm-bufferize-program
    func.func @copy(%x: tensor<16xf32>) -> tensor<16xf32> {
      return %x : tensor<16xf32>
    }
    // becomes
    func.func @copy(%x: memref<16xf32>) -> memref<16xf32> {
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ScalarAccessesToGenericsPass
    : Pass<"sm-scalar-accesses-to-generics", "ModuleOp"> {
  let summary = "move single elements of buffers with kernels, not the host";
  let description = [{
    The runtime moves whole buffers, never their elements, so a host
    function's `memref.store` (a `tensor.from_elements`, a `tensor.insert`)
    and the `memref.load`s whose values linalg ops use (a `tensor.extract`
    of a scale, of an argmax's index) become work for kernels: a store at
    constant indices becomes a `linalg.generic` of no loops that writes
    that element, computing the stored value in its body (the loads it
    reads become loads of the kernel); a value from loads that a linalg
    body uses is computed at the start of the body; a load at constant
    indices that is a linalg op's scalar input (a fill's value) becomes an
    input of the loaded buffer, indexed by a constant map. A load moves only
    where nothing writes memory between it and its new place; what cannot
    move (a branch or a loop bound on device data, a store at a computed
    index) stays, for the runtime to report.

    ```mlir
    // sm-opt --sm-scalar-accesses-to-generics
    func.func @first(%x: memref<4xi64>, %y: memref<1xi64>) {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %v = memref.load %x[%c3] : memref<4xi64>
      memref.store %v, %y[%c0] : memref<1xi64>
      return
    }
    // becomes
    // (the map is affine_map<() -> (0)>)
    linalg.generic {indexing_maps = [...], iterator_types = []} outs(%y : memref<1xi64>) {
    ^bb0(%out: i64):
      %v = memref.load %x[%c3] : memref<4xi64>
      linalg.yield %v : i64
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def InsertShapeChecksPass : Pass<"sm-insert-shape-checks", "ModuleOp"> {
  let summary = "assert that the caller's arrays agree on dynamic sizes";
  let description = [{
    Kernels read each dynamic size off one operand only, so arrays of
    disagreeing shapes would be read and written past their ends. Before
    each linalg op on buffers whose operands spell one loop with dynamic
    sizes, this stage asserts on the host (`cf.assert` at the op's
    location) that the arrays the caller passed agree on it. Buffers the
    program allocates are sized by the program itself and are not checked.

    ```mlir
    // sm-opt --sm-insert-shape-checks
    func.func @add(%x: memref<?xf32>, %y: memref<?xf32>) {
      linalg.add ins(%x, %x : memref<?xf32>, memref<?xf32>) outs(%y : memref<?xf32>)
      return
    }
    // becomes
    %same = arith.cmpi eq, %n, %m : index
    cf.assert %same, ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def UnitConvolutionsToContractionsPass
    : Pass<"sm-unit-convolutions-to-contractions", "ModuleOp"> {
  let summary = "turn 1x1 convolutions into matrix products";
  let description = [{
    1x1 `linalg.conv_2d_nhwc_hwcf` (a (N*H*W) x C by C x F product) and
    `linalg.conv_2d_nchw_fchw` (per image, F x C by C x (H*W)) with unit
    strides and dilations become matrix products over views of the same
    buffers. Any other convolution on buffers (a wider window, strides,
    dilations, dynamic sizes) stays: `sm-elementwise-to-kernels` computes
    it as one sum over the window per output element (taking dynamic sizes
    as kernel arguments).

    ```mlir
    // sm-opt --sm-unit-convolutions-to-contractions
    func.func @conv(%x: memref<1x8x8x32xf16>, %w: memref<1x1x32x64xf16>,
                    %y: memref<1x8x8x64xf32>) {
      linalg.conv_2d_nhwc_hwcf
          {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : memref<1x8x8x32xf16>, memref<1x1x32x64xf16>)
          outs(%y : memref<1x8x8x64xf32>)
      return
    }
    // becomes a product of the collapsed views
    %a = memref.collapse_shape %x [[0, 1, 2], [3]] : memref<1x8x8x32xf16> into memref<64x32xf16>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ApplyPrecisionPolicyPass
    : Pass<"sm-apply-precision-policy", "ModuleOp"> {
  let summary = "accumulate half-precision products in f32";
  let description = [{
    Matrix units multiply f16 and bf16 into f32 accumulators, and every
    GPU backend compiles an f16 or bf16 `linalg.matmul` that writes f16 or
    bf16 that way: the products are summed in f32 and rounded once, on
    store (docs/Precision.md). This stage makes that explicit on buffers:
    each contraction of f16 or bf16 inputs into an f16 or bf16 buffer C
    writes an f32 buffer instead, which starts as C's fill (the fill
    value, widened) or as C widened, and an element-wise truncation writes
    C from it. The later stages fuse the truncation into the contraction's
    kernel, so the f32 buffer never reaches memory. Other reductions into
    f16 or bf16 (a sum along rows, a pooling, a dot product) likewise sum
    in f32: their bodies compute in f32 into an f32 copy of the output,
    rounded once into it.

    With `accumulate=f16`, f16 products into f16 keep their f16
    accumulators (faster where the target has them, less exact); bf16
    outputs are widened either way, since no matrix unit accumulates in
    bf16.

    f32 products on a target without an f32 -> f32 matrix configuration
    (the H100's cooperative matrices have none) become kernels that emulate
    their matrices in exact f32 arithmetic (`f32-matmul=emulate`, the
    default; the kernel stages choose that). `f32-matmul=f16` or `=bf16`
    trades exactness for the matrix units: A and B are rounded to that
    type by element-wise truncations (which the contraction's kernel takes
    over as it stages 2-D operands) and the product accumulates in f32;
    a target without matrices of that type keeps the f32 product.

    A product of f16 or bf16 into f32 on a target whose matrix units
    multiply f32 and not that type (Metal's `simdgroup_float8x8` on
    `apple-m1`) has its operands widened: A and B become f32 through
    element-wise extensions, which the product's kernel takes over as it
    stages them (exact: every f16 and bf16 value is an f32), and the
    product runs on the f32 matrices. Which form each product takes (the
    target's own matrices, widened operands, or the emulation) is decided
    in one place, `chooseProductForm`; `report=1` says where a product's
    operands are widened.

    ```mlir
    // sm-opt --sm-apply-precision-policy
    func.func @mm(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>,
                  %c: memref<64x48xbf16>) {
      %zero = arith.constant 0.0 : bf16
      linalg.fill ins(%zero : bf16) outs(%c : memref<64x48xbf16>)
      linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>)
                    outs(%c : memref<64x48xbf16>)
      return
    }
    // becomes a product into f32 and its rounding
    %wide = memref.alloc() : memref<64x48xf32>
    linalg.fill ins(%cst : f32) outs(%wide : memref<64x48xf32>)
    linalg.generic ... ins(%a, %b : ...) outs(%wide : memref<64x48xf32>)
    linalg.generic ... ins(%wide : memref<64x48xf32>) outs(%c : memref<64x48xbf16>)
    ```
  }];
  let options = [
    Option<"accumulate", "accumulate", "std::string", /*default=*/"\"f32\"",
           "What f16 products into f16 accumulate in: 'f32' (rounded once, "
           "on store) or 'f16' (the target's f16 accumulators)">,
    Option<"f32Matmul", "f32-matmul", "std::string",
           /*default=*/"\"emulate\"",
           "How f32 products run on targets without f32 matrices: 'emulate' "
           "(exact, in ordinary arithmetic) or 'f16' / 'bf16' (inputs "
           "rounded to that type, multiplied by the matrix units into f32)">,
    Option<"targetName", "target", "std::string", /*default=*/"",
           "The target preset whose matrix configurations decide whether "
           "f32 products are rounded and half-precision operands widened "
           "(default: the module's target)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on each product whose operands are widened into the "
           "target's f32 matrices">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def PlanKernelsPass : Pass<"sm-plan-kernels", "ModuleOp"> {
  let summary = "choose how every attention and contraction is tiled";
  let description = [{
    Kernel configuration as a stage of its own: for every attention (see
    `sm-attention-to-kernels`) and every other matrix product (see
    `sm-contractions-to-kernels`) on the host, chooses the tiling of its
    kernel from the options, the target's tuning table and the target's
    sizes (`compute_units` decides split K, `workgroup_memory` the key block
    of attention), and attaches it as the `subgroup_matrix.plan` attribute:
    a `#subgroup_matrix.attention_plan` on the attention's `linalg.softmax`,
    a `#subgroup_matrix.contraction_plan` on the product. The kernel stages
    follow the plans; a test or a user may write them by hand instead (they
    are checked as the options are), and ops that carry one keep it. It also
    decides which element-wise neighbours each product's kernel takes in,
    and records that fusion: the integer `subgroup_matrix.fusion_group`,
    the same on the product and on each op fused into it, which
    `sm-contractions-to-kernels` reads. What the options ask that cannot be
    honoured, and what the kernel a plan describes could not do (more
    workgroup memory than the target has, tile copies the invocations
    cannot share, a split of K the product does not allow), is reported
    here.

    ```mlir
    // sm-opt --sm-plan-kernels=target=nvidia-h100
    func.func @matmul(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>,
                      %c: memref<4096x4096xf32>) {
      linalg.matmul ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>)
                    outs(%c : memref<4096x4096xf32>)
      return
    }
    // becomes
    linalg.matmul {subgroup_matrix.fusion_group = 0 : i64, subgroup_matrix.plan
        = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>,
        tile_m = 128, tile_n = 128, tile_k = 32, ...>} ins(...) outs(...)
    ```
  }];
  let options = !listconcat([
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to plan for (else the module's target attribute)">
  ], MatmulTilingOptions, [
    Option<"splitK", "split-k", "int64_t", /*default=*/"0",
           "Parts K is split into (0: enough to fill the device where the "
           "tiles of C cannot, 1: no split)">,
    Option<"dotProductRows", "dot-product-rows", "int64_t", /*default=*/"-1",
           "Products of at most this many rows (M, static) take dot "
           "products instead of a tiled product, where B is stored N x K "
           "(-1: the target's crossover, 0: never)">,
    Option<"decodeAttentionQueries", "decode-attention-queries", "int64_t",
           /*default=*/"-1",
           "Attentions of at most this many query rows per head (static) "
           "split their keys over workgroups and combine the runs in a "
           "second kernel (-1: 4, 0: never)">,
    TuningTableOption,
    Option<"attentionSubgroups", "attention-subgroups", "int64_t",
           /*default=*/"0",
           "Subgroups per attention workgroup, each a matrix height of "
           "queries (0: 8 on Vulkan where every block of queries is "
           "whole, 16 at head dimension 64; else 4)">,
    Option<"attentionSubgroupRows", "attention-subgroup-rows", "int64_t",
           /*default=*/"0",
           "Queries per subgroup of an attention workgroup, a multiple of "
           "the matrix height: above the target's configurations only "
           "with VK_NV_cooperative_matrix2 flexible dimensions (0: the "
           "planner's choice)">,
    Option<"attentionKeyBlock", "attention-key-block", "int64_t",
           /*default=*/"0",
           "Keys per step of the attention loop, a multiple of the matrix "
           "width (0: 64, fewer where workgroup memory is short)">,
    Option<"attentionSoftmax", "attention-softmax", "std::string",
           /*default=*/"\"\"",
           "Where attention's online softmax runs: 'registers' (map, reduce "
           "and convert of result matrices) or 'workgroup-memory' (scalars, "
           "one round trip per key block); empty: registers where the "
           "matrices do reductions, maps and conversions of kind "
           "themselves (VK_NV_cooperative_matrix2 on Vulkan, every other "
           "backend), else workgroup memory">,
    Option<"nvCoopmat2", "nv-coopmat2", "bool", /*default=*/"true",
           "Plan for the VK_NV_cooperative_matrix2 features the target "
           "lists (false: for SPV_KHR_cooperative_matrix alone, as "
           "sm-lower-to-vulkan=nv-coopmat2=false lowers)">
  ]);
  let dependentDialects = [
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

def AttentionToKernelsPass : Pass<"sm-attention-to-kernels", "ModuleOp"> {
  let summary = "make attention one kernel, and other softmaxes generics";
  let description = [{
    Attention, softmax(f(Q K^T)) V (two `linalg.batch_matmul`s around
    `linalg.softmax`, element-wise scale and mask ops on the scores,
    including additive masks read from other tensors, casts of P and
    O; heads folded into the batch by reshapes, or as a second leading
    dimension of `linalg.generic` products and a 4-D softmax, whose
    two leading loops are folded into one first; sequence lengths
    static or dynamic), becomes one flash-attention kernel where the
    target has a configuration for it, tiled as the
    `#subgroup_matrix.attention_plan` on its `linalg.softmax` says
    (`sm-plan-kernels` attaches it; without one, the target's defaults
    apply). Every other `linalg.softmax` becomes the
    four generics that compute it (a max, the shifted exponentials, their
    sum, the quotient), which the element-wise stage makes kernels of.
    test/Conversion/LinalgToSubgroupMatrix/attention*.mlir show the kernel.

    ```mlir
    // sm-opt --sm-attention-to-kernels=target=nvidia-h100
    func.func @softmax(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
      linalg.softmax dimension(1) ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>)
      return
    }
    // becomes, without a product around it to fuse with, generics
    linalg.generic ...
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to generate for (else the module's target attribute)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Attach to each op a remark that names the kernel it became and "
           "why that kind of kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

def ContractionsToKernelsPass
    : Pass<"sm-contractions-to-kernels", "ModuleOp"> {
  let summary = "make every matrix product a tiled subgroup-matrix kernel";
  let description = [{
    Every matrix product (`linalg.matmul`, `linalg.batch_matmul`,
    `linalg.batch_reduce_matmul`, or a
    `linalg.generic` contraction; either operand transposed through its
    indexing map; f16, bf16, f32 and 8-bit inputs as the target allows)
    becomes a tiled kernel, as `sm-tile-matmul` builds it, tiled as the
    `#subgroup_matrix.contraction_plan` attached to it says
    (`sm-plan-kernels` attaches it; without one, the target's defaults and
    shipped tuning table apply), with batches along the grid's z dimension. Around it, the kernel
    takes over:
    - element-wise extensions of its inputs (`arith.extsi`/`extui` of
      8-bit integers, `arith.extf` of f16) that write temporaries: the
      kernel reads the narrow data; other element-wise producers that
      keep the element type (a scale) are applied as tiles are staged;
    - a producer of A or B that computes it from other buffers through
      maps of dimensions and constants (`+`, and `*`, `floordiv`, `mod`
      by constants): a dequantization of 8-bit weights with per-column
      scales and zero points, or of 4-bit values packed two to a byte
      with a scale per group of K, or a cast of f32 activations. The
      kernel reads the stored buffers and runs the producer's body as it
      stages the tile, so the weight moves in its stored form;
    - a chain of element-wise consumers of its result (bias along rows or
      columns, scale, ReLU, GELU, SiLU, clamp, residual add, casts) whose
      intermediate buffers nothing else reads: they run on the
      accumulators before the single store, as `subgroup_matrix.map`
      where whole result matrices can take them, else element by element
      on the way to memory.
    Where `sm-plan-kernels` recorded the fusion (`subgroup_matrix.fusion_group`
    on the product), the kernel takes in the ops of that group and no
    others; without a record it decides as above.

    M, N and K may be dynamic: the kernel then takes them as arguments after
    its buffers (M, N, K in that order), and the launch reads them off A and
    B and computes its grid; element-wise kernels take their dynamic loop
    sizes likewise. Where operands spell one loop with dynamic sizes, the
    host asserts that they agree (`cf.assert` at the op's location), so that
    arrays of disagreeing shapes are an error before anything runs rather
    than reads and writes past a buffer.

    Split K: where the tiles of C cannot fill the device (NVIDIA and AMD
    presets: fewer tiles than compute units), K is split in 2, 4 or 8 parts
    that run as separate workgroups along the grid's z and write partial
    products into a workspace, which a reduction kernel then adds into C
    (the plan's `split_k`; `sm-plan-kernels{split-k=N}` forces N parts,
    `split-k=1` turns it off). Where C was
    filled with a constant, the reduction writes the constant plus the parts
    and the fill needs no kernel of its own. Each part's slice of the
    workspace has M rounded up to whole workgroup tiles of rows, so a
    decode step's few rows are stored as whole result matrices. A fused
    epilogue then runs after the reduction, as a kernel of its own;
    contractions with a batch or dynamic sizes are not split.
    Small M (up to the matrix height, static) gets its own tiling: one
    result matrix per subgroup, four subgroups along N, K steps of 128
    bytes of A's row, and with split K two workgroups per compute unit.

    ```mlir
    // sm-opt --sm-contractions-to-kernels=target=nvidia-h100
    func.func @matmul(%a: memref<128x64xf16>, %b: memref<64x128xf16>,
                      %c: memref<128x128xf32>) {
      linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>)
                    outs(%c : memref<128x128xf32>)
      return
    }
    // becomes
    gpu.launch_func @kernels::@matmul_0 ...
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to generate for (else the module's target attribute)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Attach to each op a remark that names the kernel it became and "
           "why that kind of kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

def ElementwiseToKernelsPass
    : Pass<"sm-elementwise-to-kernels", "ModuleOp"> {
  let summary = "make every other linalg op a kernel, or report it";
  let description = [{
    The last stage of `sm-linalg-to-gpu`: every linalg op left on the host
    (named ops are generalized) becomes a kernel of its own, one invocation
    per output element; reduction loops run inside the invocation. Anything
    else (a dynamic batch count, non-unit convolutions, bodies with ops
    other than arith and math) is reported where it is; nothing stays on
    the host unannounced.

    ```mlir
    // sm-opt --sm-elementwise-to-kernels=target=nvidia-h100
    func.func @add(%x: memref<256xf32>, %y: memref<256xf32>) {
      linalg.add ins(%x, %x : memref<256xf32>, memref<256xf32>) outs(%y : memref<256xf32>)
      return
    }
    // becomes
    gpu.launch_func @kernels::@elementwise_0 ...
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to generate for (else the module's target attribute)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Attach to each op a remark that names the kernel it became and "
           "why that kind of kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ConvertGPUMMAPass : Pass<"sm-convert-gpu-mma", "ModuleOp"> {
  let summary = "rewrite upstream gpu.subgroup_mma_* ops into subgroup_matrix";
  let description = [{
    Rewrites the cooperative-matrix ops of upstream's `gpu` dialect, and the
    `!gpu.mma_matrix` values they pass around (through `scf` loops too), into
    this dialect, so that code written for upstream's NVVM or SPIR-V
    lowering reaches every path of this project:

    | upstream | subgroup_matrix |
    | --- | --- |
    | `!gpu.mma_matrix<MxNxT, "AOp">` / `"BOp"` / `"COp"` | `left<MxNxT>` / `right` / `result` (`i8` and `i32` signed unless upstream says `ui8`) |
    | `subgroup_mma_load_matrix` / `store_matrix` | `load` / `store`; `leadDimension` is the stride, `transpose` is `col_major` |
    | `subgroup_mma_compute` | `mma` (`a_transpose`/`b_transpose` only record how operands were loaded and are dropped; `ui8` inputs accumulate into `ui32`, converted from and back to upstream's signed `i32` at no cost) |
    | `subgroup_mma_constant_matrix` | `splat` |
    | `subgroup_mma_elementwise` | `map` whose body is the named op (`maxf`/`minf` as `arith.maximumf`/`minimumf`, `negates` as `0 - x`) |

    `subgroup_mma_extract_thread_local` and `insert_thread_local` expose the
    layout of one vendor and are reported, as are element types without a
    component (f64) and functions that take matrices as arguments.

    ```mlir
    // sm-opt --sm-convert-gpu-mma
    func.func @tile(%A: memref<64x64xf16>, %B: memref<64x64xf16>,
                    %C: memref<64x64xf32>, %i: index, %j: index, %k: index) {
      %a = gpu.subgroup_mma_load_matrix %A[%i, %k] {leadDimension = 64 : index}
          : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %b = gpu.subgroup_mma_load_matrix %B[%k, %j] {leadDimension = 64 : index}
          : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %c = gpu.subgroup_mma_load_matrix %C[%i, %j] {leadDimension = 64 : index}
          : memref<64x64xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
      %d = gpu.subgroup_mma_compute %a, %b, %c
          : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp">
            -> !gpu.mma_matrix<16x16xf32, "COp">
      gpu.subgroup_mma_store_matrix %d, %C[%i, %j] {leadDimension = 64 : index}
          : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x64xf32>
      return
    }
    // becomes (each op gets a stride constant of its own, which
    // canonicalization merges)
    %c64 = arith.constant 64 : index
    %a = subgroup_matrix.load %A[%i, %k] stride %c64
        : memref<64x64xf16> -> !subgroup_matrix.left<16x16xf16>
    %c64_0 = arith.constant 64 : index
    %b = subgroup_matrix.load %B[%k, %j] stride %c64_0
        : memref<64x64xf16> -> !subgroup_matrix.right<16x16xf16>
    %c64_1 = arith.constant 64 : index
    %c = subgroup_matrix.load %C[%i, %j] stride %c64_1
        : memref<64x64xf32> -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %a, %b, %c
        : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
          -> !subgroup_matrix.result<16x16xf32>
    %c64_2 = arith.constant 64 : index
    subgroup_matrix.store %d, %C[%i, %j] stride %c64_2
        : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::subgroup_matrix::SubgroupMatrixDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Metal
//===----------------------------------------------------------------------===//

def AttachMetalTargetPass : Pass<"sm-attach-metal-target", "ModuleOp"> {
  let summary = "settle the target each gpu.module lowers to Metal for";
  let description = [{
    The first stage of `sm-lower-to-metal`. Every `gpu.module` gets the
    `subgroup_matrix.target` attribute the later stages read: the `target`
    option's preset, else the target attribute in scope, else the
    description of what Metal Shading Language itself expresses (named
    `metal`: 8x8 simdgroup matrices of f32, f16 and bf16, multiplied within
    one type or from f16 or bf16 into f32). A target whose subgroups are
    not Metal's 32 threads is an error.

    ```mlir
    // sm-opt --sm-attach-metal-target=target=apple-m1
    gpu.module @kernels {
      gpu.func @fill(%out: memref<64xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        gpu.return
      }
    }
    // becomes
    gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
      ...
    }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to lower for, overriding any target attribute">,
  ];
  let dependentDialects = ["::mlir::subgroup_matrix::SubgroupMatrixDialect"];
}

#endif // SUBGROUPMATRIX_CONVERSION_PASSES_TD
