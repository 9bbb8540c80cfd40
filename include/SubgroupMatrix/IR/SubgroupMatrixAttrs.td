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
  }];
  let parameters = (ins "unsigned":$m, "unsigned":$n, "unsigned":$k,
                        "::mlir::Type":$componentType,
                        "::mlir::Type":$resultType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
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

    Presets: `nvidia-h100`, `amd-rdna3`, `intel-xe-hpc`, `intel-xe-hpg`,
    `apple-m1` and `cpu-lavapipe` (emulated); `docs/Targets.md` says where
    each one's configurations come from.
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::StringAttr">:$name,
    "unsigned":$subgroupSize,
    ArrayRefParameter<"::mlir::subgroup_matrix::MatrixConfigAttr">:$configs,
    DefaultValuedParameter<"bool", "false">:$emulated,
    DefaultValuedParameter<"bool", "false">:$float64,
    DefaultValuedParameter<"bool", "false">:$int64,
    DefaultValuedParameter<"unsigned", "0">:$computeUnits,
    DefaultValuedParameter<"unsigned", "0">:$workgroupMemory);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether some configuration covers the matrix type `type`.
    bool supportsType(::mlir::subgroup_matrix::SubgroupMatrixTypeInterface type) const;
    /// Whether one configuration covers the multiplication of `left` and
    /// `right` into `result`.
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
    std::string describeSupported(::mlir::subgroup_matrix::MatrixKind kind) const;
    /// Lists, for a diagnostic, every configuration of the target.
    std::string describeConfigs() const;
    /// This target with its matrices emulated: the same type combinations,
    /// any shape whose dimensions are multiples of
    /// kEmulatedDimensionMultiple.
    TargetAttr getEmulatedForm() const {
      return get(getContext(), getName(), getSubgroupSize(), getConfigs(),
                 /*emulated=*/true, getFloat64(), getInt64(),
                 getComputeUnits(), getWorkgroupMemory());
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

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXATTRS_TD
