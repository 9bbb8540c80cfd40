// RUN: sm-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{matrix dimensions must be positive 32-bit integers, got 0}}
func.func private @zero_rows(!subgroup_matrix.left<0x16xf16>)

// -----

// expected-error @+1 {{matrix dimensions must be positive 32-bit integers, got 0}}
func.func private @zero_columns(!subgroup_matrix.result<16x0xf32>)

// -----

// expected-error @+1 {{matrix dimensions must be positive}}
func.func private @negative(!subgroup_matrix.right<-16x16xf16>)

// -----

// expected-error @+1 {{expected static shape}}
func.func private @dynamic(!subgroup_matrix.right<?x16xf16>)

// -----

// expected-error @+1 {{expected a shape of rows x columns, got 3 dimension(s)}}
func.func private @three_dimensions(!subgroup_matrix.left<16x16x16xf16>)

// -----

// expected-error @+1 {{expected a shape of rows x columns, got 1 dimension(s)}}
func.func private @one_dimension(!subgroup_matrix.left<16xf16>)

// -----

// expected-error @+1 {{matrix dimensions must be positive 32-bit integers, got 4294967296}}
func.func private @too_large(!subgroup_matrix.left<4294967296x16xf16>)

// -----

// expected-error @+1 {{matrix component type must be one of f16, bf16, f32, si8, ui8, si32 or ui32, got 'i8'}}
func.func private @signless_component(!subgroup_matrix.left<16x32xi8>)

// -----

// expected-error @+1 {{matrix component type must be one of f16, bf16, f32, si8, ui8, si32 or ui32, got 'f64'}}
func.func private @f64_component(!subgroup_matrix.result<8x8xf64>)

// -----

// expected-error @+1 {{matrix component type must be one of f16, bf16, f32, si8, ui8, si32 or ui32, got 'si16'}}
func.func private @si16_component(!subgroup_matrix.result<8x8xsi16>)

// -----

// expected-error @+1 {{expected an M x N x K shape, got 2 dimension(s)}}
module attributes {test.config = #subgroup_matrix.config<16x16, f16 -> f32>} {}

// -----

// expected-error @+1 {{matrix dimensions must be positive 32-bit integers, got 0}}
module attributes {test.config = #subgroup_matrix.config<16x0x16, f16 -> f32>} {}

// -----

// expected-error @+1 {{configuration types must be one of f16, bf16, f32, si8, ui8, si32 or ui32, got 'i32'}}
module attributes {test.config = #subgroup_matrix.config<16x16x32, si8 -> i32>} {}

// -----

// expected-error @+1 {{unknown target preset 'nvidia-h200'; known presets: nvidia-h100, amd-rdna3, intel-xe-hpc, intel-xe-hpg, apple-m1}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h200">} {}

// -----

// expected-error @+1 {{subgroup size must be a power of two, got 24}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<subgroup_size = 24, configs = [<16x16x16, f16 -> f32>]>} {}

// -----

// expected-error @+1 {{subgroup size must be a power of two, got 0}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<subgroup_size = 0, configs = [<16x16x16, f16 -> f32>]>} {}

// -----

// expected-error @+1 {{a target must list at least one matrix configuration}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"empty", subgroup_size = 32, configs = []>} {}

// -----

// expected-error @+1 {{target name must not be empty}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>]>} {}

// -----

// expected-error @+1 {{expected 'subgroup_size'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<configs = [<16x16x16, f16 -> f32>]>} {}

// -----

// expected-error @+1 {{matrix dimensions must be positive}}
module attributes {test.config = #subgroup_matrix.config<-16x16x16, f16 -> f32>} {}

// -----

// expected-error @+1 {{expected 'compute_units = N', 'workgroup_memory = BYTES', 'emulated', 'float64', 'int64', 'nv_coopmat2 = [...]', 'vendor = V' or 'backend = B' (in that order), got 'float16'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], float16>} {}

// -----

// expected-error @+1 {{expected 'compute_units = N', 'workgroup_memory = BYTES', 'emulated', 'float64', 'int64', 'nv_coopmat2 = [...]', 'vendor = V' or 'backend = B' (in that order), got 'float64'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], int64, float64>} {}

// -----

// The device's sizes come before the flags.
// expected-error @+1 {{expected 'compute_units = N', 'workgroup_memory = BYTES', 'emulated', 'float64', 'int64', 'nv_coopmat2 = [...]', 'vendor = V' or 'backend = B' (in that order), got 'compute_units'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], int64, compute_units = 8>} {}

// -----

// expected-error @+1 {{expected 'compute_units = N', 'workgroup_memory = BYTES', 'emulated', 'float64', 'int64', 'nv_coopmat2 = [...]', 'vendor = V' or 'backend = B' (in that order), got 'compute_units'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], workgroup_memory = 16384, compute_units = 8>} {}

// -----

// expected-error @+1 {{expected integer value}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], compute_units = many>} {}

// -----

// expected-error @+1 {{unknown VK_NV_cooperative_matrix2 feature 'tensor_cores'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [reductions, tensor_cores]>} {}

// -----

// The cooperative matrix 2 features come after the flags, and only the
// vendor and backend after them.
// expected-error @+1 {{expected 'vendor = V' or 'backend = B' last, got 'int64'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [reductions], int64>} {}

// -----

// expected-error @+1 {{flexible_granularities need the 'flexible_dimensions' feature in nv_coopmat2}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [reductions], flexible_granularities = [<8x8x8, f16 -> f32>], flexible_max_dimension = 64>} {}

// -----

// expected-error @+1 {{flexible granularity #subgroup_matrix.config<8x8x128, f16 -> f32> exceeds flexible_max_dimension = 64}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<8x8x128, f16 -> f32>], flexible_max_dimension = 64>} {}

// -----

// expected-error @+1 {{an emulated target has no flexible dimensions}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], emulated, nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<8x8x8, f16 -> f32>], flexible_max_dimension = 64>} {}

// -----

// The largest dimension comes with the granularities.
// expected-error @+1 {{expected ', flexible_max_dimension = N' after the flexible granularities}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<8x8x8, f16 -> f32>]>} {}

// -----

// expected-error @+1 {{unknown vendor 'nvdia' (nvidia, amd, intel, apple, mesa, unknown)}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], vendor = nvdia>} {}

// -----

// expected-error @+1 {{unknown backend 'cuda' (vulkan, opencl, metal)}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], vendor = nvidia, backend = cuda>} {}

// -----

// The backend comes after the vendor.
// expected-error @+1 {{expected '>'}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], backend = metal, vendor = apple>} {}

// -----

// expected-error @+1 {{expected a matrix scope, 'subgroup' or 'workgroup', got 'device'}}
func.func private @unknown_scope(!subgroup_matrix.left<16x16xf16, device>)

// -----

// expected-error @+1 {{flexible granularity #subgroup_matrix.config<32x16x16, f16 -> f32, workgroup = 128> is of workgroup scope, which needs the 'workgroup_scope' feature in nv_coopmat2}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<32x16x16, f16 -> f32, workgroup = 128>], flexible_max_dimension = 256>} {}

// -----

// expected-error @+1 {{configuration #subgroup_matrix.config<16x16x16, f16 -> f32, workgroup = 128> is of workgroup scope: configs are subgroup matrices, workgroup-scope ones are flexible_granularities}}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"x", subgroup_size = 32, configs = [<16x16x16, f16 -> f32, workgroup = 128>]>} {}
