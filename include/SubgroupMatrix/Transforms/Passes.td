//===- Passes.td - subgroup_matrix passes ------------------*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_PASSES_TD
#define SUBGROUPMATRIX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckTargetPass : Pass<"sm-check-target", "ModuleOp"> {
  let summary = "report what a module uses that its target cannot run";
  let description = [{
    Checks every kernel against the target that governs it, the way a
    driver's pipeline creation would, and reports all problems at once:

    - every subgroup matrix type that no configuration of the target covers,
      naming the types of that kind the target does support;
    - every `mma` and `multiply` whose three types are not one configuration
      of the target, listing the target's configurations;
    - every kernel that uses subgroup matrices (directly or through the
      functions it calls) whose known workgroup size (`known_block_size` of
      `gpu.func`, or the `workgroup_size` of `spirv.entry_point_abi`) has an x
      dimension that is not a multiple of the target's subgroup size;
    - every `gpu.shuffle` whose constant width is not the target's subgroup
      size (a kernel written for subgroups of 32 cannot shuffle within 32
      lanes where subgroups hold 8), in kernels with or without matrices.

    The target is the preset named by the `target` option; without it, the
    `subgroup_matrix.target` attribute of the enclosing `gpu.module` or of
    the top-level module. A module that uses subgroup matrices with no
    target at all is an error.

    ```mlir
    // sm-opt --sm-check-target=target=nvidia-h100
    gpu.module @kernels {
      // error: kernel 'k' uses subgroup matrices with a workgroup size x of
      // 48, which is not a multiple of the subgroup size 32 of target
      // 'nvidia-h100'
      gpu.func @k(%buf: memref<256xf16>) kernel
          attributes {known_block_size = array<i32: 48, 1, 1>} {
        %c0 = arith.constant 0 : index
        %c8 = arith.constant 8 : index
        // error: '!subgroup_matrix.left<8x8xf16>' is not supported by target
        // 'nvidia-h100'; it supports left<16x16xf16>, left<16x8xf16>, ...
        %a = subgroup_matrix.load %buf[%c0] stride %c8
            : memref<256xf16> -> !subgroup_matrix.left<8x8xf16>
        gpu.return
      }
    }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Preset to check against, overriding any target attribute">,
    Option<"allowEmulation", "allow-emulation", "bool", /*default=*/"false",
           "Accept what the emulated form of the target takes (every shape "
           "and type combination it could run in ordinary code), as "
           "sm-lower-to-vulkan does with emulation=unsupported or all">,
    Option<"composedShapes", "composed-shapes", "bool", /*default=*/"false",
           "Accept matrices built of several of a configuration's (each "
           "dimension a multiple, the same types), as sm-lower-to-metal "
           "does: Metal's larger matrices are arrays of 8x8 ones">,
    Option<"emulationRequests", "emulation-requests", "bool",
           /*default=*/"false",
           "Check kernels that ask for emulation (subgroup_matrix.emulate) "
           "against the target's emulation, as sm-lower-to-vulkan does, "
           "which emulates them">,
  ];
  let dependentDialects = ["::mlir::subgroup_matrix::SubgroupMatrixDialect"];
}

def CheckUniformityPass : Pass<"sm-check-uniformity", "ModuleOp"> {
  let summary = "report subgroup matrix ops that may run in divergent control "
                "flow";
  let description = [{
    Subgroup matrix operations are executed by a whole subgroup together, so
    every invocation of the subgroup must reach them, with the same operand
    values. This pass runs the subgroup uniformity analysis on every
    function and reports:

    - every subgroup matrix op that may execute in control flow that
      diverges inside a subgroup: inside an `scf.if`, `scf.for`,
      `scf.while` or `scf.index_switch` whose condition, bounds or selector
      depend on the invocation, or in blocks of an unstructured region that
      are reached only on some paths of a conditional branch on such a value
      before the paths meet again;
    - every subgroup matrix op whose memref indices, stride or scalar
      operand may differ between the invocations of a subgroup.

    Values that depend on the invocation are those derived from
    `gpu.thread_id`, `gpu.lane_id` and `gpu.global_id`, from the results of
    atomics and shuffles, and from memory read at such addresses. Control
    flow reconverges after the op that diverged: code after a loop over a
    thread-dependent range (for example behind a barrier) is not flagged.

    The WGSL proposal makes this an error by default; `severity=warning`
    reports warnings instead and `severity=off` disables the check.

    ```mlir
    // sm-opt --sm-check-uniformity
    gpu.module @kernels {
      gpu.func @k(%buf: memref<256xf16>) kernel {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %one = arith.constant 1.0 : f16
        %m = subgroup_matrix.splat %one
            : f16 -> !subgroup_matrix.result<16x16xf16>
        %tid = gpu.thread_id x
        %c = arith.cmpi ult, %tid, %c16 : index
        // note: control flow diverges here, on a value that depends on the
        // invocation
        scf.if %c {
          // error: 'subgroup_matrix.store' op may execute in control flow
          // that diverges within a subgroup
          subgroup_matrix.store %m, %buf[%c0] stride %c16
              : !subgroup_matrix.result<16x16xf16>, memref<256xf16>
        }
        gpu.return
      }
    }
    ```
  }];
  let options = [
    Option<"severity", "severity", "std::string", /*default=*/"\"error\"",
           "How to report violations: error, warning or off">,
  ];
}

def RobustAccessPass : Pass<"sm-robust-access", "ModuleOp"> {
  let summary = "bounds-check every subgroup matrix load and store";
  let description = [{
    Wraps each `subgroup_matrix.load` and `store` of every kernel in an
    `scf.if` on whether the whole matrix lies inside its memref: a load out
    of range yields a zero matrix and a store out of range does nothing, in
    the spirit of WebGPU's robust buffer access. The check uses only the
    op's (uniform) operands, so the guarded ops stay in uniform control
    flow.

    Statically shaped memrefs are bounded by their shape. A runtime-sized
    `memref<?xT>` kernel argument is bounded by its length, which SPIR-V's
    logical addressing cannot query: the kernel gets one more argument, a
    `memref<?xi32>` with the length in elements of every argument by
    position (`sm-vulkan-runner --append-lengths` supplies it).
    `sm-lower-to-vulkan=robust-access=1` runs this before lowering.

    ```mlir
    // sm-opt --sm-robust-access
    gpu.module @kernels {
      gpu.func @copy(%buf: memref<?xf16>, %out: memref<1024xf16>, %i: index,
                     %s: index) kernel {
        %c0 = arith.constant 0 : index
        %l = subgroup_matrix.load %buf[%i] stride %s
            : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
        subgroup_matrix.store %l, %out[%c0] stride %s
            : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
        gpu.return
      }
    }
    // becomes a kernel with the lengths argument, in which
    gpu.func @copy(%buf: memref<?xf16>, %out: memref<1024xf16>, %i: index,
                   %s: index, %lengths: memref<?xi32>) kernel {
      // ... offset + stride * (rows - 1) + columns <= length ...
      %length = memref.load %lengths[%c0_1] : memref<?xi32>
      %m = scf.if %ok -> (!subgroup_matrix.left<16x16xf16>) {
        %l = subgroup_matrix.load %buf[%i] stride %s : ...
        scf.yield %l : !subgroup_matrix.left<16x16xf16>
      } else {
        %zero = arith.constant 0.000000e+00 : f16
        %z = subgroup_matrix.splat %zero : f16 -> !subgroup_matrix.left<16x16xf16>
        scf.yield %z : !subgroup_matrix.left<16x16xf16>
      }
      // and the store runs only if it fits in %out's 1024 elements
      scf.if %fits {
        subgroup_matrix.store %m, %out[%c0] stride %s : ...
      }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def PromoteBFloat16MapsPass : Pass<"sm-promote-bf16-maps", "ModuleOp"> {
  let summary = "compute the bf16 arithmetic of kernels in f32";
  let description = [{
    SPIR-V has bf16 conversions (SPV_KHR_bfloat16) but no bf16 arithmetic,
    and Intel's compiler takes no bf16 type at all, so a `subgroup_matrix.map`
    on bf16 elements, or an element-wise kernel that a front-end wrote in
    bf16, cannot compute in bf16 on those paths. This pass rewrites every map
    body, and every arith and math op elsewhere (constants and selects only
    hold bf16 values), so that each op taking or producing bf16 computes in
    f32:
    its bf16 operands are extended with `arith.extf` and its bf16 results
    rounded back with `arith.truncf`. Rounding after every op keeps the
    result of each correctly rounded operation (add, sub, mul, div, sqrt)
    exactly what bf16 arithmetic gives. `sm-lower-to-vulkan` and
    `sm-lower-to-intel` run it before lowering.

    ```mlir
    // sm-opt --sm-promote-bf16-maps
    func.func @add(%p: !subgroup_matrix.result<16x16xbf16>,
                   %q: !subgroup_matrix.result<16x16xbf16>)
        -> !subgroup_matrix.result<16x16xbf16> {
      %r = subgroup_matrix.map %p, %q
          : !subgroup_matrix.result<16x16xbf16>,
            !subgroup_matrix.result<16x16xbf16>
            -> !subgroup_matrix.result<16x16xbf16> {
      ^bb0(%row: index, %col: index, %x: bf16, %y: bf16):
        %s = arith.addf %x, %y : bf16
        subgroup_matrix.yield %s : bf16
      }
      return %r : !subgroup_matrix.result<16x16xbf16>
    }
    // becomes, in the body
    ^bb0(%row: index, %col: index, %x: bf16, %y: bf16):
      %yw = arith.extf %y : bf16 to f32
      %xw = arith.extf %x : bf16 to f32
      %sw = arith.addf %xw, %yw : f32
      %s = arith.truncf %sw : f32 to bf16
      subgroup_matrix.yield %s : bf16
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AccumulateInF32Pass : Pass<"sm-accumulate-in-f32", "ModuleOp"> {
  let summary = "make linalg reductions into f16 or bf16 accumulate in f32";
  let description = [{
    Rewrites every `linalg.generic` that has a reduction loop and an f16 or
    bf16 output so that it accumulates in f32 and rounds once: each such
    output is extended into an f32 tensor (or buffer), the body computes in
    f32 (its f16/bf16 arguments extended, its arith and math ops on f32,
    extensions and truncations between f16/bf16 and f32 dropped), and the
    f32 result is truncated back into the original output.

    This is the precision policy of `sm-linalg-to-gpu` (f16/bf16 products
    accumulate in f32), written for the upstream reference: the checker of
    test/Integration/Reference runs `--linalg-generalize-named-ops
    --sm-accumulate-in-f32` before upstream MLIR's CPU pipeline, so that the
    reference sums as the compiled program does instead of rounding every
    partial sum to f16. A body it cannot compute in f32 (a bitcast of an
    f16 value, an op with regions) is left as it is.

    ```mlir
    // sm-opt --sm-accumulate-in-f32
    func.func @product(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>,
                       %c: tensor<4x4xf16>) -> tensor<4x4xf16> {
      %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                            affine_map<(m, n, k) -> (k, n)>,
                                            affine_map<(m, n, k) -> (m, n)>],
                           iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>)
          outs(%c : tensor<4x4xf16>) {
      ^bb0(%x: f16, %y: f16, %acc: f16):
        %p = arith.mulf %x, %y : f16
        %s = arith.addf %acc, %p : f16
        linalg.yield %s : f16
      } -> tensor<4x4xf16>
      return %r : tensor<4x4xf16>
    }
    // becomes an extension of %c into tensor<4x4xf32>, the same generic
    // with an f32 output and body, and a truncation of its result:
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xw = arith.extf %x : f16 to f32
      %yw = arith.extf %y : f16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FlattenBuffersPass : Pass<"sm-flatten-buffers", "ModuleOp"> {
  let summary = "fold subviews into accesses and make N-D buffers 1-D";
  let description = [{
    Brings every function to the form in which each element access names
    its buffer and one linear index, which the per-invocation lowerings
    (emulated matrices, the Intel form) address. First, every access
    through a `memref.subview` (subgroup_matrix `load` and `store`,
    `memref.load`/`store`, `vector.load`/`store`) is rewritten to access the
    subview's source at the same element. Then every buffer of rank 2 or
    more with static strides and offset, a kernel's memref argument or a
    `memref.alloc` in any memory space, becomes the 1-D buffer of the same
    memory, and each access uses the element's linear index (offset plus
    the sum of index times stride). A matrix's `stride` operand counts
    elements of the buffer, so it is unchanged. Buffers used by anything
    else stay as they are. `sm-lower-to-vulkan` runs this on the kernels it
    emulates; `sm-lower-to-intel` folds the subviews.

    ```mlir
    // sm-opt --sm-flatten-buffers
    gpu.module @kernels {
      gpu.func @copy(%A: memref<64x256xf16>, %out: memref<256xf16>,
                     %row: index, %k: index) kernel {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %c256 = arith.constant 256 : index
        %a = subgroup_matrix.load %A[%row, %k] stride %c256
            : memref<64x256xf16> -> !subgroup_matrix.left<16x16xf16>
        subgroup_matrix.store %a, %out[%c0] stride %c16
            : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
        gpu.return
      }
    }
    // becomes, with %A retyped to memref<16384xf16>
    gpu.func @copy(%A: memref<16384xf16>, %out: memref<256xf16>, ...) kernel {
      %i = arith.muli %row, %c256_0 : index
      %l = arith.addi %i, %k : index
      %a = subgroup_matrix.load %A[%l] stride %c256
          : memref<16384xf16> -> !subgroup_matrix.left<16x16xf16>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ExpandMathPass : Pass<"sm-expand-math", "ModuleOp"> {
  let summary = "expand the math that device languages lack";
  let description = [{
    Rewrites what kernels compute into operations every path has: the bf16
    arithmetic of `subgroup_matrix.map` bodies computes in f32 (as
    `sm-promote-bf16-maps` does; SPIR-V converts bf16 but has no bf16
    arithmetic), `math.erf` and `math.erfc` become upstream's f32
    polynomial approximations (the GLSL extended instructions lack them),
    f16 transcendentals (`math.exp`, `log`, `tanh`, `powf`, ...) compute in
    f32 and round to f16 once (a device's 16-bit instructions may be
    several ulps off; Vulkan allows 1 + 2|x| for e^x),
    `arith.ceildivsi`, `floordivsi` and `ceildivui` (bounds of dynamic
    sizes) become plain divisions, and in Vulkan kernels (gpu.modules
    carrying `spirv.target_env`) conversions between f32 and bf16 become
    integer arithmetic on the bits (upstream's bf16 expansion), since a
    SPIR-V conversion to bf16 rounds as the driver likes (the H100's
    truncates) where `arith.truncf` rounds to nearest even; conversions
    between bf16 and f64 go through f32 first, and f64 `math.exp`,
    `math.exp2` and `math.tanh` become f64 arithmetic (GLSL.std.450 has
    them in 16 and 32 bits only; other f64 transcendental ops are
    reported). Works on the
    gpu.modules being lowered
    (those carrying `spirv.target_env`, or all when none does).

    ```mlir
    // sm-opt --sm-expand-math
    gpu.module @kernels {
      gpu.func @tiles(%n: index, %out: memref<1xindex>) kernel {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %t = arith.ceildivui %n, %c16 : index
        memref.store %t, %out[%c0] : memref<1xindex>
        gpu.return
      }
    }
    // becomes, without ceildivui
    %t = arith.select ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def ExpandThroughWorkgroupMemoryPass
    : Pass<"sm-expand-through-workgroup-memory", "ModuleOp"> {
  let summary = "do what cooperative matrices cannot through workgroup "
                "memory";
  let description = [{
    Rewrites the `map`, `reduce` and `convert` ops that the target's
    subgroup matrices cannot compute in registers into a store of their
    operands to a per-subgroup scratch tile in workgroup memory, a loop of
    each invocation over its share of the elements between
    `subgroup_matrix.subgroup_barrier`s, and a load of the result.

    A `load` or `store` with bounds becomes the plain op where the matrix
    lies inside its bounds, and otherwise moves the matrix through the
    tile: each invocation reads (or writes) its share of the elements
    inside the bounds, one by one, and zeros fill the rest of a loaded
    matrix. The barriers stay outside the branch on whether the matrix is
    whole, which the subgroups of one workgroup may take differently.

    What stays in registers is the `register-ops` option:

    - `component-wise` (Vulkan): `SPV_KHR_cooperative_matrix` has
      component-wise arithmetic and conversions between types of one use,
      and nothing else: no access to an element by its row and column, no
      reductions, no change of use. Maps with other bodies, reductions and
      changes of kind go through memory.
    - `kind-changes` (Metal): simdgroup matrices have no element-wise
      operations at all, and one type for every kind. Every map and
      reduction, and every conversion that changes the component type,
      goes through memory.

    The tiles are allocated once per kernel (a slice per subgroup of its
    known workgroup size); such ops in functions other than kernels are
    reported, as those cannot allocate workgroup memory. Kernels without
    such ops, and emulated ones (which compute every element in registers),
    are left as they are. Works on the gpu.modules being lowered (those
    carrying `spirv.target_env`, or all when none does), with the subgroup
    size of their target.

    ```mlir
    // sm-opt --sm-expand-through-workgroup-memory
    gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
      gpu.func @relu(%buf: memref<256xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        %c0 = arith.constant 0 : index
        %c16 = arith.constant 16 : index
        %m = subgroup_matrix.load %buf[%c0] stride %c16
            : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
        %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
            -> !subgroup_matrix.result<16x16xf32> {
        ^bb0(%row: index, %col: index, %x: f32):
          %zero = arith.constant 0.0 : f32
          %y = arith.maximumf %x, %zero : f32
          subgroup_matrix.yield %y : f32
        }
        subgroup_matrix.store %r, %buf[%c0] stride %c16
            : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
        gpu.return
      }
    }
    // becomes a kernel with scratch tiles for its subgroup (maximumf is not
    // among the operations cooperative matrices do component-wise), whose
    // invocations each compute 8 of the 256 elements
    gpu.func @relu(%buf: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %scratch = memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let options = [
    Option<"registerOps", "register-ops",
           "::mlir::subgroup_matrix::MatrixRegisterOps",
           /*default=*/"::mlir::subgroup_matrix::MatrixRegisterOps::ComponentWise",
           "What the target's matrices compute in registers",
           [{::llvm::cl::values(
             clEnumValN(::mlir::subgroup_matrix::MatrixRegisterOps::ComponentWise,
                        "component-wise",
                        "component-wise arithmetic and changes of component "
                        "type (Vulkan cooperative matrices)"),
             clEnumValN(::mlir::subgroup_matrix::MatrixRegisterOps::KindChanges,
                        "kind-changes",
                        "only changes of kind that keep the component type "
                        "(Metal simdgroup matrices)"))}]>,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // SUBGROUPMATRIX_TRANSFORMS_PASSES_TD
