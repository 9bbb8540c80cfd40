//===- SubgroupMatrixAttrs.td - subgroup_matrix attributes -*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXATTRS_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXATTRS_TD

include "SubgroupMatrix/IR/SubgroupMatrixBase.td"

def SubgroupMatrix_MatrixConfigAttr
    : AttrDef<SubgroupMatrix_Dialect, "MatrixConfig"> {
  let mnemonic = "config";
  let summary = "one matrix multiplication shape and type a device supports";
  let description = [{
    One supported configuration, as Vulkan's
    `VkCooperativeMatrixPropertiesKHR` and WebGPU's `GPUSubgroupMatrixConfig`
    describe it: `left<MxKxT>`, `right<KxNxT>` and `result<MxNxR>` may be used
    together, where `T` is the component type and `R` the result type.

    ```mlir
    #subgroup_matrix.config<16x16x16, f16 -> f32>   // M x N x K, T -> R
    ```

    A flexible-dimension granularity of workgroup-scope matrices ends in
    `workgroup = N`, the number of invocations a workgroup must have for
    it (VkCooperativeMatrixFlexibleDimensionsPropertiesNV's
    `workgroupInvocations`): it covers `workgroup` matrix types, the others
    subgroup ones.

    ```mlir
    #subgroup_matrix.config<32x16x16, f16 -> f32, workgroup = 128>
    ```
  }];
  let parameters = (ins "unsigned":$m, "unsigned":$n, "unsigned":$k,
                        "::mlir::Type":$componentType,
                        "::mlir::Type":$resultType,
                        DefaultValuedParameter<"unsigned", "0">
                            :$workgroupInvocations);
  let builders = [
    AttrBuilder<(ins "unsigned":$m, "unsigned":$n, "unsigned":$k,
                     "::mlir::Type":$componentType,
                     "::mlir::Type":$resultType), [{
      return $_get($_ctxt, m, n, k, componentType, resultType,
                   /*workgroupInvocations=*/0);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The scope of the matrices this configuration covers.
    ::mlir::subgroup_matrix::MatrixScope getScope() const {
      return getWorkgroupInvocations()
                 ? ::mlir::subgroup_matrix::MatrixScope::Workgroup
                 : ::mlir::subgroup_matrix::MatrixScope::Subgroup;
    }
    /// Whether `type` is a left, right or result matrix type that this
    /// configuration covers.
    bool covers(::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether this configuration is exactly the multiplication of `left` and
    /// `right` into `result`.
    bool matchesMultiply(::mlir::Type left, ::mlir::Type right,
                         ::mlir::Type result) const;
    /// Whether `type` is built of whole matrices of this configuration: its
    /// kind's types, each dimension a multiple of the covered shape's.
    bool composes(::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether `left` times `right` into `result` is built of this
    /// configuration's multiplications (composes each, shapes that
    /// multiply).
    bool composesMultiply(::mlir::Type left, ::mlir::Type right,
                          ::mlir::Type result) const;
  }];
}

def SubgroupMatrix_TargetAttr : AttrDef<SubgroupMatrix_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the matrix configurations and subgroup size of a device";
  let description = [{
    Describes what a device can run: its subgroup size and the list of
    matrix configurations it supports. Attach it as the
    `subgroup_matrix.target` attribute of a `gpu.module` (or of the top-level
    module); passes that take a `target=NAME` option use a named preset
    instead.

    A named preset can be written by name alone and is printed that way
    while it is unchanged; any other target lists its contents. The name is
    optional for a custom target.

    ```mlir
    gpu.module @kernels attributes {
        subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
    }
    ```

    ```mlir
    #subgroup_matrix.target<"my-device", subgroup_size = 32,
        configs = [<16x16x16, f16 -> f32>, <16x16x32, si8 -> si32>]>
    ```

    A device without matrix units is marked `emulated`: its configurations
    name the type combinations it computes, with any shape whose dimensions
    are multiples of 8, and the lowerings build every matrix from ordinary
    per-invocation values instead of the device's matrix instructions.

    ```mlir
    #subgroup_matrix.target<"my-cpu", subgroup_size = 8,
        configs = [<8x8x8, f16 -> f32>], emulated>
    ```

    Scalar types beyond 32 bits are device features too: `float64` and
    `int64` say that kernels may compute in `f64` and `i64` (Vulkan's
    `shaderFloat64` and `shaderInt64`); without them the lowerings refuse
    such kernels by name.

    ```mlir
    #subgroup_matrix.target<"my-gpu", subgroup_size = 32,
        configs = [<16x16x16, f16 -> f32>], float64, int64>
    ```

    Two sizes of the device guide how kernels are tiled: `compute_units`,
    the streaming multiprocessors or compute units a grid spreads over
    (split K gives each a workgroup where the tiles of C cannot), and
    `workgroup_memory`, the bytes of workgroup (shared) memory one
    workgroup may use (Vulkan's `maxComputeSharedMemorySize`). Written
    after the configurations; left out, they are unknown: no split of K,
    and 48 KiB of workgroup memory. `sm-vulkan-runner --list-coopmat`
    prints both as the device reports them.

    ```mlir
    #subgroup_matrix.target<"my-gpu", subgroup_size = 32,
        configs = [<16x16x16, f16 -> f32>], compute_units = 108,
        workgroup_memory = 49152, float64, int64>
    ```

    Last, `nv_coopmat2 = [...]` lists the device's `VK_NV_cooperative_matrix2`
    features (`workgroup_scope`, `flexible_dimensions`, `reductions`,
    `conversions`, `per_element_operations`, `tensor_addressing`,
    `block_loads`), as `sm-vulkan-runner --list-coopmat` prints them; left
    out, the device has none.

    ```mlir
    #subgroup_matrix.target<"my-cpu", subgroup_size = 8,
        configs = [<8x8x8, f16 -> f32>], float64, int64,
        nv_coopmat2 = [flexible_dimensions, reductions]>
    ```

    With `flexible_dimensions`, `flexible_granularities = [...]` lists the
    granularities the device reports for subgroup-scope matrices
    (VkCooperativeMatrixFlexibleDimensionsPropertiesNV) and
    `flexible_max_dimension` the largest dimension: a matrix whose
    dimensions are multiples of a granularity's, none above that largest
    one, is a native matrix of the device as a configuration's is, and so
    is a multiplication whose M, N and K are such multiples.

    ```mlir
    #subgroup_matrix.target<"my-cpu", subgroup_size = 8,
        configs = [<8x8x8, f16 -> f32>],
        nv_coopmat2 = [flexible_dimensions],
        flexible_granularities = [<8x8x8, f16 -> f32>],
        flexible_max_dimension = 256>
    ```

    Last of all, the facts that decide how kernels are planned and run:
    `vendor = nvidia` (also `amd`, `intel`, `apple` or `mesa`; left out, the
    vendor is unknown), which chooses the tiling defaults and tuning table
    measured on that vendor's devices, and `backend = opencl` (Intel's
    `SPV_INTEL` kernels) or `backend = metal` (left out, `vulkan`), which
    chooses the runtime's path. `sm-vulkan-runner --list-coopmat` prints the
    vendor its driver reports. A target's behaviour follows these fields,
    never its name.

    ```mlir
    #subgroup_matrix.target<"my-gpu", subgroup_size = 32,
        configs = [<16x16x16, f16 -> f32>], vendor = nvidia>
    ```

    Presets: `nvidia-h100`, `amd-rdna3`, `intel-xe-hpc`, `intel-xe-hpg`,
    `apple-m1`, `apple-m3` (with bfloat), `cpu-lavapipe` (emulated) and
    `cpu-lavapipe-coopmat`
    (Mesa 26's lavapipe with its native matrices); `docs/Targets.md` says
    where each one's configurations come from.
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::StringAttr">:$name,
    "unsigned":$subgroupSize,
    ArrayRefParameter<"::mlir::subgroup_matrix::MatrixConfigAttr">:$configs,
    DefaultValuedParameter<"bool", "false">:$emulated,
    DefaultValuedParameter<"bool", "false">:$float64,
    DefaultValuedParameter<"bool", "false">:$int64,
    DefaultValuedParameter<"unsigned", "0">:$computeUnits,
    DefaultValuedParameter<"unsigned", "0">:$workgroupMemory,
    DefaultValuedParameter<"::mlir::subgroup_matrix::CooperativeMatrix2Feature",
        "::mlir::subgroup_matrix::CooperativeMatrix2Feature::None">
        :$coopmat2Features,
    OptionalArrayRefParameter<"::mlir::subgroup_matrix::MatrixConfigAttr">
        :$flexibleGranularities,
    DefaultValuedParameter<"unsigned", "0">:$flexibleMaxDimension,
    DefaultValuedParameter<"::mlir::subgroup_matrix::Vendor",
        "::mlir::subgroup_matrix::Vendor::Unknown">:$vendor,
    DefaultValuedParameter<"::mlir::subgroup_matrix::TargetBackend",
        "::mlir::subgroup_matrix::TargetBackend::Vulkan">:$backend);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether some configuration covers the matrix type `type`, or it is
    /// a flexible-dimension matrix of some granularity.
    bool supportsType(::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether `type` is a flexible-dimension matrix of `granularity`:
    /// its dimensions are multiples of the granularity's for its kind and
    /// none exceeds flexible_max_dimension.
    bool isFlexibleShapeOf(
        ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type,
        ::mlir::subgroup_matrix::MatrixConfigAttr granularity) const;
    /// The workgroup sizes (invocations) in which the workgroup-scope
    /// matrix `type` is a flexible-dimension matrix of the target: one per
    /// granularity of which it is; none for a subgroup matrix.
    ::llvm::SmallVector<unsigned> getWorkgroupInvocationsOf(
        ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether one configuration covers the multiplication of `left` and
    /// `right` into `result`, or one flexible granularity does.
    bool supportsMultiply(::mlir::Type left, ::mlir::Type right,
                          ::mlir::Type result) const;
    /// Whether some configuration composes `type` (MatrixConfigAttr::composes),
    /// for lowerings that build larger matrices from the target's (Metal's
    /// arrays of 8x8 simdgroup matrices).
    bool supportsComposedType(::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether one configuration composes the multiplication of `left` and
    /// `right` into `result`.
    bool supportsComposedMultiply(::mlir::Type left, ::mlir::Type right,
                                  ::mlir::Type result) const;
    /// Lists, for a diagnostic, the types of kind `kind` that the target
    /// supports (for example `left<16x16xf16>, left<16x32xsi8>`).
    /// Of `scope` only: a workgroup's matrices with the workgroup sizes
    /// each shape holds for.
    std::string describeSupported(
        ::mlir::subgroup_matrix::MatrixKind kind,
        ::mlir::subgroup_matrix::MatrixScope scope =
            ::mlir::subgroup_matrix::MatrixScope::Subgroup) const;
    /// Lists, for a diagnostic, every configuration of the target.
    /// With `scope` workgroup, the workgroup-scope granularities instead,
    /// with the workgroup size of each.
    std::string describeConfigs(
        ::mlir::subgroup_matrix::MatrixScope scope =
            ::mlir::subgroup_matrix::MatrixScope::Subgroup) const;
    /// This target with its matrices emulated: the same type combinations,
    /// any shape whose dimensions are multiples of
    /// kEmulatedDimensionMultiple.
    TargetAttr getEmulatedForm() const {
      return get(getContext(), getName(), getSubgroupSize(), getConfigs(),
                 /*emulated=*/true, getFloat64(), getInt64(),
                 getComputeUnits(), getWorkgroupMemory(),
                 CooperativeMatrix2Feature::None,
                 /*flexibleGranularities=*/{}, /*flexibleMaxDimension=*/0,
                 getVendor(), getBackend());
    }
    /// Whether the device has every VK_NV_cooperative_matrix2 feature of
    /// `features`.
    bool hasCoopmat2(CooperativeMatrix2Feature features) const {
      return ::mlir::subgroup_matrix::bitEnumContainsAll(getCoopmat2Features(),
                                                         features);
    }
    /// The workgroup memory a kernel may use: `workgroup_memory` where the
    /// target gives it, else kDefaultWorkgroupMemory.
    unsigned getWorkgroupMemoryLimit() const {
      return getWorkgroupMemory() ? getWorkgroupMemory()
                                  : kDefaultWorkgroupMemory;
    }
    /// The workgroup memory assumed of a target that does not say: what
    /// every device the presets describe except Apple's offers.
    static constexpr unsigned kDefaultWorkgroupMemory = 48 * 1024;
    /// The dimension every matrix of an emulated target is a multiple of.
    static constexpr unsigned kEmulatedDimensionMultiple = 8;
  }];
}

def SubgroupMatrix_LaunchAttr : AttrDef<SubgroupMatrix_Dialect, "Launch"> {
  let mnemonic = "launch";
  let summary = "how a kernel is launched and checked on its own";
  let description = [{
    Attached to a kernel as `subgroup_matrix.launch` by the stages that make
    kernels (the contraction, element-wise and row-group kernels of
    `sm-linalg-to-gpu`, `sm-tile-matmul`), it says how to run the kernel
    alone: the SPIR-V serializer records it in the binary, and
    `sm-vulkan-runner` runs a binary that records one without arguments on
    its command line.

    - `grid`: the workgroup counts in x, y and z, each an integer or a size
      expression;
    - `arguments`: one `sm-vulkan-runner` buffer specification per buffer
      argument of the kernel, in order (`"f16:{M*K}:random"`);
    - `sizes`: the sizes left to run time, which follow the buffers as
      32-bit scalars, in order;
    - `check`: an `sm-vulkan-runner` check of the results, where the kernel
      has a plain reference (`"gemm:M={M},N={N},K={K},A=0,B=1,C=2,acc=2"`).

    A size expression is an integer, a name from `sizes`, a product of them
    with `*`, or `ceildiv(X,Y)` or `min(X,Y)` of expressions; within a
    buffer or check specification it is written in braces. Every name used
    must be one of `sizes`.

    ```mlir
    gpu.module @kernels {
      gpu.func @matmul(%a: memref<?xf16>, %b: memref<?xf16>,
                       %c: memref<?xf32>, %m: index, %n: index, %k: index)
          kernel attributes {
          subgroup_matrix.launch = #subgroup_matrix.launch<
              grid = ["ceildiv(N,128)", "ceildiv(M,128)", 1],
              arguments = ["f16:{M*K}:random", "f16:{K*N}:random",
                           "f32:{M*N}:random"],
              sizes = ["M", "N", "K"],
              check = "gemm:M={M},N={N},K={K},A=0,B=1,C=2,acc=2">} {
        gpu.return
      }
    }
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr">:$grid,
    ArrayRefParameter<"::mlir::StringAttr">:$arguments,
    ArrayRefParameter<"::mlir::StringAttr">:$sizes,
    OptionalParameter<"::mlir::StringAttr">:$check);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A launch from the texts of its parts (an empty `check`: none).
    static LaunchAttr get(::mlir::MLIRContext *context,
                          ::llvm::ArrayRef<std::string> grid,
                          ::llvm::ArrayRef<std::string> arguments,
                          ::llvm::ArrayRef<std::string> sizes,
                          ::llvm::StringRef check);
    /// The `sm-vulkan-runner` options that launch and check the kernel
    /// (" --grid X,Y,Z --arg ... --scalar i32:{M} ... --check ..."), a grid
    /// expression in braces.
    std::string getRunnerOptions() const;
  }];
}

def SubgroupMatrix_ContractionPlanAttr
    : AttrDef<SubgroupMatrix_Dialect, "ContractionPlan"> {
  let mnemonic = "contraction_plan";
  let summary = "how a matrix product is tiled into a kernel";
  let description = [{
    The complete tiling of one contraction's kernel, which
    `sm-plan-kernels` chooses (from the target's sizes, the tuning table and
    the tiling options) and attaches as `subgroup_matrix.plan` to the
    linalg op, and `sm-contractions-to-kernels` follows. Written by hand, it
    is checked against the contraction and the target like the options are.

    - `config`: the target's matrix configuration the kernel multiplies with;
    - `tile_m` x `tile_n`: the workgroup tile of C; `tile_k`: the depth of one
      step of the K loop;
    - `subgroups_m` x `subgroups_n`: the grid of subgroups in a workgroup;
    - `padding`: elements added to every row of the workgroup copies;
    - `stages`: workgroup buffers per operand (1, or 2 for double buffering);
      `prefetch`: with one stage, whether the next step is loaded before this
      one is multiplied;
    - `preload_c`: whether the accumulators start as C (else from zero, with
      C added as they are stored);
    - `stage_b_transposed`: whether an 8-bit row-major B is transposed as it
      is staged;
    - `vector_width`: elements an invocation copies at once;
    - `group_m`: tile rows consecutive workgroups walk before the next column;
    - `split_k`: parts K is split into (1: none).

    ```mlir
    func.func @matmul(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>,
                      %c: memref<4096x4096xf32>) {
      linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<
          config = <16x16x16, f16 -> f32>, tile_m = 128, tile_n = 128,
          tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8,
          stages = 1, prefetch = true, preload_c = false,
          stage_b_transposed = false, vector_width = 8, group_m = 8,
          split_k = 1>}
          ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>)
          outs(%c : memref<4096x4096xf32>)
      return
    }
    ```
  }];
  let parameters = (ins
    "::mlir::subgroup_matrix::MatrixConfigAttr":$config,
    "int64_t":$tile_m, "int64_t":$tile_n, "int64_t":$tile_k,
    "int64_t":$subgroups_m, "int64_t":$subgroups_n, "int64_t":$padding,
    "int64_t":$stages, "bool":$prefetch, "bool":$preload_c,
    "bool":$stage_b_transposed, "int64_t":$vector_width, "int64_t":$group_m,
    "int64_t":$split_k);
  let assemblyFormat = "`<` struct(params) `>`";
}

def SubgroupMatrix_DotProductPlanAttr
    : AttrDef<SubgroupMatrix_Dialect, "DotProductPlan"> {
  let mnemonic = "dot_product_plan";
  let summary = "how a product with few rows becomes a kernel of dot products";
  let description = [{
    A product with a few rows (a decode step: one token, or a handful, times
    a weight) is bound by reading the weight once, not by multiplying; no
    tiling of subgroup matrices reads it at the memory's rate.
    `sm-plan-kernels` attaches this plan instead of a `contraction_plan`
    where M is at most the target's crossover and B is stored N x K (as a
    linear layer's weight is), and `sm-contractions-to-kernels` then builds a
    kernel of dot products: each subgroup computes `columns` columns of C for
    every row, its invocations reading `vector_width` consecutive elements
    of each column of B at a time (`unroll` of them in flight), dequantizing
    them in registers where a gathering prologue computes B, multiplying in
    f32 (integers in i32) and adding across the subgroup at the end; the
    fused epilogue applies before the one store. One launch, no split of K.

    - `subgroups`: subgroups per workgroup;
    - `columns`: columns of C per subgroup;
    - `vector_width`: elements of K an invocation reads at once (it divides
      K);
    - `unroll`: such reads per invocation per step of the K loop.

    ```mlir
    func.func @decode(%x: memref<1x4096xf16>, %w: memref<4096x4096xf16>,
                      %y: memref<1x4096xf32>) {
      linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                     affine_map<(m, n, k) -> (n, k)>,
                                     affine_map<(m, n, k) -> (m, n)>]
          {subgroup_matrix.plan = #subgroup_matrix.dot_product_plan<
              subgroups = 8, columns = 1, vector_width = 8, unroll = 2>}
          ins(%x, %w : memref<1x4096xf16>, memref<4096x4096xf16>)
          outs(%y : memref<1x4096xf32>)
      return
    }
    ```
  }];
  let parameters = (ins "int64_t":$subgroups, "int64_t":$columns,
                        "int64_t":$vector_width, "int64_t":$unroll);
  let assemblyFormat = "`<` struct(params) `>`";
}

def SubgroupMatrix_AttentionPlanAttr
    : AttrDef<SubgroupMatrix_Dialect, "AttentionPlan"> {
  let mnemonic = "attention_plan";
  let summary = "how an attention is tiled into a flash-attention kernel";
  let description = [{
    The tiling of one attention's kernel, which `sm-plan-kernels` chooses
    and attaches as `subgroup_matrix.plan` to the attention's
    `linalg.softmax`, and `sm-attention-to-kernels` follows: the matrix
    configuration of both products, the subgroups of a workgroup (each a
    matrix height of queries), the keys per step of the loop, and whether
    the online softmax runs on per-invocation scalars through workgroup
    memory (else on result matrices). Written by hand, it is checked against
    the attention and the target like the options are.

    ```mlir
    func.func @softmax(%s: memref<8x128x128xf32>, %p: memref<8x128x128xf32>) {
      linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<
          config = <16x16x16, f16 -> f32>, subgroups = 4, key_block = 64,
          softmax_in_workgroup_memory = true>}
          dimension(2) ins(%s : memref<8x128x128xf32>)
          outs(%p : memref<8x128x128xf32>)
      return
    }
    ```
  }];
  let parameters = (ins
    "::mlir::subgroup_matrix::MatrixConfigAttr":$config,
    "int64_t":$subgroups, "int64_t":$key_block,
    "bool":$softmax_in_workgroup_memory);
  let assemblyFormat = "`<` struct(params) `>`";
}

def SubgroupMatrix_DecodeAttentionPlanAttr
    : AttrDef<SubgroupMatrix_Dialect, "DecodeAttentionPlan"> {
  let mnemonic = "decode_attention_plan";
  let summary = "how an attention with a few queries splits its keys";
  let description = [{
    An attention with a few query rows per head (a decode step against a KV
    cache) reads every key and value once and does little with them: a
    flash-attention kernel, one workgroup per block of queries, would leave
    most of the GPU idle. `sm-plan-kernels` attaches this plan to the
    softmax of such an attention instead of an `attention_plan`, and
    `sm-attention-to-kernels` builds two kernels: the first splits each
    head's keys into runs, each workgroup of `subgroups` subgroups computing
    the running maximum, sum of exponentials and weighted values of its run
    (invocations take parts of a key's row, a subgroup several keys at
    once); the second combines a head's runs, rescaled to the largest
    maximum, and writes the output.

    The runs are given one of two ways:
    - `keys_per_workgroup`: keys of one head each workgroup reads (as many
      runs as that makes; the key count must be static);
    - `runs`: runs per head, each of an equal share of the keys rounded up
      to whole steps of the workgroup (the key count may be dynamic, a KV
      cache's length: the number of workgroups stays the same, runs past
      the last key read nothing).

    and
    - `subgroups`: subgroups per workgroup of the first kernel;
    - `keys_in_flight` (optional, 4): keys each invocation reads before
      using any of them, whose scores rescale the running state once.

    ```mlir
    func.func @decode_attention(%scores: memref<32x1x4096xf32>,
                                %probabilities: memref<32x1x4096xf32>) {
      linalg.softmax {subgroup_matrix.plan =
          #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 256,
                                                 subgroups = 4>}
          dimension(2) ins(%scores : memref<32x1x4096xf32>)
          outs(%probabilities : memref<32x1x4096xf32>)
      return
    }
    func.func @decode_attention_cache(%scores: memref<8x1x?xf32>,
                                      %probabilities: memref<8x1x?xf32>) {
      linalg.softmax {subgroup_matrix.plan =
          #subgroup_matrix.decode_attention_plan<runs = 33, subgroups = 4>}
          dimension(2) ins(%scores : memref<8x1x?xf32>)
          outs(%probabilities : memref<8x1x?xf32>)
      return
    }
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$keys_per_workgroup,
                        "int64_t":$subgroups,
                        DefaultValuedParameter<"int64_t", "4">:$keys_in_flight,
                        DefaultValuedParameter<"int64_t", "0">:$runs);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXATTRS_TD
