//===- TargetPresetsTest.cpp - presets against measured device data -------===//
//
// The presets must hold exactly the configurations that the measured device
// data lists (data/device-coopmat), so they are compared with those files.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

class TargetPresetsTest : public ::testing::Test {
protected:
  TargetPresetsTest() { context.loadDialect<SubgroupMatrixDialect>(); }

  /// Maps the component spellings of the data files to MLIR types.
  Type parseComponent(StringRef spelling) {
    Builder builder(&context);
    if (spelling == "f16")
      return builder.getF16Type();
    if (spelling == "bf16")
      return builder.getBF16Type();
    if (spelling == "f32")
      return builder.getF32Type();
    bool isSigned = spelling.starts_with("s");
    unsigned width = 0;
    if (spelling.drop_front().getAsInteger(10, width))
      return {};
    return IntegerType::get(&context, width,
                            isSigned ? IntegerType::Signed
                                     : IntegerType::Unsigned);
  }

  /// Reads a data file: one configuration per line, `M N K A B C Result
  /// [sat]`. Keeps the rows the WGSL proposal keeps: A == B, C == Result and
  /// no saturating accumulation.
  std::vector<std::string> readDeviceData(StringRef fileName) {
    std::string path = (llvm::Twine(SM_DEVICE_DATA_DIR) + "/" + fileName).str();
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
    std::vector<std::string> rows;
    if (!buffer)
      return rows;
    SmallVector<StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n');
    for (StringRef line : lines) {
      line = line.trim();
      if (line.empty() || line.starts_with("#"))
        continue;
      SmallVector<StringRef> fields;
      line.split(fields, ' ', -1, /*KeepEmpty=*/false);
      EXPECT_GE(fields.size(), 7u) << line.str();
      if (fields.size() < 7)
        continue;
      bool saturating = fields.size() > 7 && fields[7] == "1";
      if (fields[3] != fields[4] || fields[5] != fields[6] || saturating)
        continue;
      std::string row;
      llvm::raw_string_ostream os(row);
      os << fields[0] << "x" << fields[1] << "x" << fields[2] << " "
         << parseComponent(fields[3]) << " -> " << parseComponent(fields[6]);
      rows.push_back(row);
    }
    return rows;
  }

  static std::vector<std::string> describe(TargetAttr target) {
    std::vector<std::string> rows;
    for (MatrixConfigAttr config : target.getConfigs()) {
      std::string row;
      llvm::raw_string_ostream os(row);
      os << config.getM() << "x" << config.getN() << "x" << config.getK() << " "
         << config.getComponentType() << " -> " << config.getResultType();
      rows.push_back(row);
    }
    return rows;
  }

  MLIRContext context;
};

TEST_F(TargetPresetsTest, NvidiaH100MatchesMeasuredData) {
  TargetAttr target = lookupTargetPreset(&context, "nvidia-h100");
  ASSERT_TRUE(target);
  EXPECT_EQ(target.getSubgroupSize(), 32u);
  std::vector<std::string> expected =
      readDeviceData("nvidia-h100-vulkan-coopmat.txt");
  EXPECT_EQ(expected.size(), 11u);
  // Same configurations in the order the driver reports them.
  EXPECT_EQ(describe(target), expected);
}

TEST_F(TargetPresetsTest, AmdRdna3MatchesRadvData) {
  TargetAttr target = lookupTargetPreset(&context, "amd-rdna3");
  ASSERT_TRUE(target);
  EXPECT_EQ(target.getSubgroupSize(), 32u);
  std::vector<std::string> expected =
      readDeviceData("amd-navi31-radv-coopmat.txt");
  EXPECT_EQ(expected.size(), 6u);
  EXPECT_EQ(describe(target), expected);
}

TEST_F(TargetPresetsTest, LavapipeCoopmatMatchesMesaData) {
  TargetAttr target = lookupTargetPreset(&context, "cpu-lavapipe-coopmat");
  ASSERT_TRUE(target);
  EXPECT_EQ(target.getSubgroupSize(), 8u);
  EXPECT_FALSE(target.getEmulated());
  EXPECT_EQ(target.getWorkgroupMemory(), 32u * 1024);
  std::vector<std::string> expected =
      readDeviceData("cpu-lavapipe-coopmat.txt");
  EXPECT_EQ(expected.size(), 4u);
  EXPECT_EQ(describe(target), expected);
  using F = CooperativeMatrix2Feature;
  EXPECT_TRUE(target.hasCoopmat2(F::FlexibleDimensions | F::Reductions |
                                 F::Conversions | F::PerElementOperations));
  EXPECT_FALSE(target.hasCoopmat2(F::WorkgroupScope));
  EXPECT_FALSE(target.hasCoopmat2(F::TensorAddressing));
  EXPECT_FALSE(target.hasCoopmat2(F::BlockLoads));
  // cpu-lavapipe keeps every matrix emulated.
  TargetAttr emulated = lookupTargetPreset(&context, "cpu-lavapipe");
  EXPECT_TRUE(emulated.getEmulated());
  EXPECT_EQ(emulated.getCoopmat2Features(), F::None);
}

/// The flexible-dimension granularities and largest dimension of the
/// presets are those `sm-vulkan-runner --list-coopmat` printed on the
/// devices: the target attribute on the last line of each file.
TEST_F(TargetPresetsTest, FlexibleDimensionsMatchListedTargets) {
  std::pair<StringRef, StringRef> presetsAndListings[] = {
      {"nvidia-h100", "nvidia-h100-list-coopmat.txt"},
      {"cpu-lavapipe-coopmat", "cpu-lavapipe-coopmat-list-coopmat.txt"}};
  for (auto [presetName, fileName] : presetsAndListings) {
    std::string path = (llvm::Twine(SM_DEVICE_DATA_DIR) + "/" + fileName).str();
    auto buffer = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(buffer)) << "cannot read " << path;
    StringRef text = (*buffer)->getBuffer().trim();
    StringRef lastLine = text.substr(text.rfind('\n') + 1);
    auto listed =
        dyn_cast_or_null<TargetAttr>(parseAttribute(lastLine, &context));
    ASSERT_TRUE(listed) << lastLine.str();
    TargetAttr preset = lookupTargetPreset(&context, presetName);
    ASSERT_TRUE(preset);
    EXPECT_FALSE(listed.getFlexibleGranularities().empty()) << presetName.str();
    EXPECT_EQ(preset.getFlexibleGranularities(),
              listed.getFlexibleGranularities())
        << presetName.str();
    EXPECT_EQ(preset.getFlexibleMaxDimension(),
              listed.getFlexibleMaxDimension())
        << presetName.str();
    EXPECT_EQ(preset.getConfigs(), listed.getConfigs()) << presetName.str();
    EXPECT_EQ(preset.getCoopmat2Features(), listed.getCoopmat2Features())
        << presetName.str();
  }
  // Multiples of a granularity are native up to the largest dimension.
  TargetAttr h100 = lookupTargetPreset(&context, "nvidia-h100");
  Builder builder(&context);
  Type f16 = builder.getF16Type(), f32 = builder.getF32Type();
  auto left = LeftMatrixType::get(&context, 32, 48, f16);
  auto right = RightMatrixType::get(&context, 48, 64, f16);
  auto result = ResultMatrixType::get(&context, 32, 64, f32);
  EXPECT_TRUE(h100.supportsType(left));
  EXPECT_TRUE(h100.supportsMultiply(left, right, result));
  // K = 24 is no multiple of 16.
  EXPECT_FALSE(
      h100.supportsMultiply(LeftMatrixType::get(&context, 16, 24, f16),
                            RightMatrixType::get(&context, 24, 16, f16),
                            ResultMatrixType::get(&context, 16, 16, f32)));
  EXPECT_FALSE(
      h100.supportsType(ResultMatrixType::get(&context, 16, 2048, f32)));
  // The emulated form has none.
  EXPECT_TRUE(h100.getEmulatedForm().getFlexibleGranularities().empty());
}

TEST_F(TargetPresetsTest, AppleAndIntelPresets) {
  TargetAttr apple = lookupTargetPreset(&context, "apple-m1");
  ASSERT_TRUE(apple);
  EXPECT_EQ(describe(apple),
            (std::vector<std::string>{"8x8x8 f32 -> f32", "8x8x8 f16 -> f16"}));
  // apple-m3 adds MSL 3.1's bfloat matrices, multiplied into f32.
  TargetAttr appleBFloat = lookupTargetPreset(&context, "apple-m3");
  ASSERT_TRUE(appleBFloat);
  EXPECT_EQ(describe(appleBFloat),
            (std::vector<std::string>{"8x8x8 f32 -> f32", "8x8x8 f16 -> f16",
                                      "8x8x8 bf16 -> f32"}));
  EXPECT_EQ(appleBFloat.getBackend(), TargetBackend::Metal);
  EXPECT_FALSE(appleBFloat.getFloat64());

  TargetAttr hpc = lookupTargetPreset(&context, "intel-xe-hpc");
  TargetAttr hpg = lookupTargetPreset(&context, "intel-xe-hpg");
  ASSERT_TRUE(hpc && hpg);
  EXPECT_EQ(hpc.getSubgroupSize(), 16u);
  EXPECT_EQ(hpg.getSubgroupSize(), 8u);
  // Every Intel configuration has N a multiple of the subgroup size and the
  // K of its component type.
  for (TargetAttr target : {hpc, hpg}) {
    for (MatrixConfigAttr config : target.getConfigs()) {
      EXPECT_EQ(config.getN() % target.getSubgroupSize(), 0u);
      unsigned width = config.getComponentType().getIntOrFloatBitWidth();
      unsigned expectedK = width == 8 ? 32 : width == 16 ? 16 : 8;
      EXPECT_EQ(config.getK(), expectedK);
    }
  }
  // tf32 exists on Xe-HPC only.
  Builder builder(&context);
  auto hasF32 = [&](TargetAttr target) {
    return llvm::any_of(target.getConfigs(), [&](MatrixConfigAttr config) {
      return config.getComponentType() == builder.getF32Type();
    });
  };
  EXPECT_TRUE(hasF32(hpc));
  EXPECT_FALSE(hasF32(hpg));
}

TEST_F(TargetPresetsTest, EveryNameResolvesAndUnknownDoesNot) {
  EXPECT_EQ(getTargetPresetNames().size(), 8u);
  for (StringRef name : getTargetPresetNames()) {
    TargetAttr target = lookupTargetPreset(&context, name);
    ASSERT_TRUE(target) << name.str();
    EXPECT_EQ(target.getName().getValue(), name);
  }
  EXPECT_FALSE(lookupTargetPreset(&context, "nvidia-h200"));
  EXPECT_FALSE(lookupTargetPreset(&context, ""));
}

TEST_F(TargetPresetsTest, PresetPrintsByNameAndParsesBack) {
  TargetAttr target = lookupTargetPreset(&context, "nvidia-h100");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << Attribute(target);
  EXPECT_EQ(text, "#subgroup_matrix.target<\"nvidia-h100\">");
  EXPECT_EQ(parseAttribute(text, &context), Attribute(target));
}

TEST_F(TargetPresetsTest, SupportQueries) {
  TargetAttr target = lookupTargetPreset(&context, "nvidia-h100");
  Builder builder(&context);
  Type f16 = builder.getF16Type(), f32 = builder.getF32Type();
  Type si8 = IntegerType::get(&context, 8, IntegerType::Signed);
  Type si32 = IntegerType::get(&context, 32, IntegerType::Signed);

  auto left = LeftMatrixType::get(&context, 16, 16, f16);
  auto right = RightMatrixType::get(&context, 16, 16, f16);
  auto result = ResultMatrixType::get(&context, 16, 16, f32);
  EXPECT_TRUE(target.supportsType(left));
  EXPECT_TRUE(target.supportsMultiply(left, right, result));
  // Each type exists in some configuration, but 16x8x16 with a 16x16 right
  // operand is not one configuration.
  auto narrowResult = ResultMatrixType::get(&context, 16, 8, f32);
  EXPECT_TRUE(target.supportsType(narrowResult));
  EXPECT_FALSE(target.supportsMultiply(left, right, narrowResult));
  // 8x8 matrices exist on no configuration.
  EXPECT_FALSE(target.supportsType(LeftMatrixType::get(&context, 8, 8, f16)));
  // Integer configurations need K = 32.
  EXPECT_FALSE(target.supportsType(LeftMatrixType::get(&context, 16, 16, si8)));
  EXPECT_TRUE(
      target.supportsMultiply(LeftMatrixType::get(&context, 16, 32, si8),
                              RightMatrixType::get(&context, 32, 16, si8),
                              ResultMatrixType::get(&context, 16, 16, si32)));
  EXPECT_EQ(target.describeSupported(MatrixKind::Right),
            "right<16x16xf16>, right<16x8xf16>, right<8x8xf16>, "
            "right<32x16xui8>, right<32x16xsi8>, right<32x8xui8>, "
            "right<32x8xsi8>, right<16x16xbf16>, "
            "right<16x16xf16> multiples up to 1024, "
            "right<32x16xui8> multiples up to 1024, "
            "right<32x16xsi8> multiples up to 1024, "
            "right<16x16xbf16> multiples up to 1024");

  // Workgroup scope: multiples of the granularities of each workgroup size,
  // never a subgroup configuration's shape as such.
  auto workgroupLeft =
      LeftMatrixType::get(&context, 64, 32, f16, MatrixScope::Workgroup);
  auto workgroupRight =
      RightMatrixType::get(&context, 32, 64, f16, MatrixScope::Workgroup);
  auto workgroupResult =
      ResultMatrixType::get(&context, 64, 64, f32, MatrixScope::Workgroup);
  EXPECT_TRUE(target.supportsType(workgroupLeft));
  EXPECT_TRUE(
      target.supportsMultiply(workgroupLeft, workgroupRight, workgroupResult));
  EXPECT_FALSE(target.supportsMultiply(left, workgroupRight, workgroupResult));
  EXPECT_EQ(target.getWorkgroupInvocationsOf(workgroupLeft),
            (SmallVector<unsigned>{32, 64, 128, 256}));
  EXPECT_EQ(target.getWorkgroupInvocationsOf(LeftMatrixType::get(
                &context, 16, 16, f16, MatrixScope::Workgroup)),
            (SmallVector<unsigned>{32, 64}));
  EXPECT_TRUE(target.getWorkgroupInvocationsOf(left).empty());
  EXPECT_EQ(
      target.describeSupported(MatrixKind::Result, MatrixScope::Workgroup),
      "result<16x16xf16, workgroup> multiples up to 1024 in workgroups "
      "of 32 or 64 invocations, "
      "result<16x16xf32, workgroup> multiples up to 1024 in workgroups "
      "of 32 or 64 invocations, "
      "result<16x16xui32, workgroup> multiples up to 1024 in workgroups "
      "of 32 or 64 invocations, "
      "result<16x16xsi32, workgroup> multiples up to 1024 in workgroups "
      "of 32 or 64 invocations, "
      "result<32x16xf16, workgroup> multiples up to 1024 in workgroups "
      "of 128 invocations, "
      "result<32x16xf32, workgroup> multiples up to 1024 in workgroups "
      "of 128 invocations, "
      "result<32x16xui32, workgroup> multiples up to 1024 in workgroups "
      "of 128 invocations, "
      "result<32x16xsi32, workgroup> multiples up to 1024 in workgroups "
      "of 128 invocations, "
      "result<32x32xf16, workgroup> multiples up to 1024 in workgroups "
      "of 256 invocations, "
      "result<32x32xf32, workgroup> multiples up to 1024 in workgroups "
      "of 256 invocations, "
      "result<32x32xui32, workgroup> multiples up to 1024 in workgroups "
      "of 256 invocations, "
      "result<32x32xsi32, workgroup> multiples up to 1024 in workgroups "
      "of 256 invocations");
  // Lavapipe's VK_NV_cooperative_matrix2 has no workgroup scope.
  EXPECT_EQ(lookupTargetPreset(&context, "cpu-lavapipe-coopmat")
                .describeSupported(MatrixKind::Left, MatrixScope::Workgroup),
            "no workgroup-scope matrices");
}

TEST_F(TargetPresetsTest, EmulatedTargetTakesMultiplesOfEight) {
  TargetAttr target = lookupTargetPreset(&context, "cpu-lavapipe");
  ASSERT_TRUE(target);
  EXPECT_TRUE(target.getEmulated());
  EXPECT_EQ(target.getSubgroupSize(), 8u);
  EXPECT_FALSE(lookupTargetPreset(&context, "nvidia-h100").getEmulated());
  Builder builder(&context);
  Type f16 = builder.getF16Type(), f32 = builder.getF32Type();
  Type si8 = IntegerType::get(&context, 8, IntegerType::Signed);
  Type si32 = IntegerType::get(&context, 32, IntegerType::Signed);
  // Shapes no configuration lists, as long as every dimension is a multiple
  // of 8 and the types are a configuration's.
  auto left = LeftMatrixType::get(&context, 24, 40, f16);
  auto right = RightMatrixType::get(&context, 40, 8, f16);
  auto result = ResultMatrixType::get(&context, 24, 8, f32);
  EXPECT_TRUE(target.supportsType(left));
  EXPECT_TRUE(target.supportsMultiply(left, right, result));
  EXPECT_FALSE(target.supportsType(LeftMatrixType::get(&context, 12, 16, f16)));
  // Shapes that do not multiply, and types no configuration pairs.
  EXPECT_FALSE(target.supportsMultiply(
      left, RightMatrixType::get(&context, 32, 8, f16), result));
  EXPECT_FALSE(
      target.supportsMultiply(LeftMatrixType::get(&context, 16, 16, si8),
                              RightMatrixType::get(&context, 16, 16, si8),
                              ResultMatrixType::get(&context, 16, 16, f32)));
  EXPECT_TRUE(
      target.supportsMultiply(LeftMatrixType::get(&context, 16, 16, si8),
                              RightMatrixType::get(&context, 16, 16, si8),
                              ResultMatrixType::get(&context, 16, 16, si32)));
  // A target with matrix units, emulated, takes the same type pairs at any
  // multiple of 8 (the H100's flexible dimensions are multiples of 16).
  TargetAttr h100 = lookupTargetPreset(&context, "nvidia-h100");
  auto wide = LeftMatrixType::get(&context, 24, 16, f16);
  EXPECT_FALSE(h100.supportsType(wide));
  EXPECT_TRUE(h100.getEmulatedForm().supportsType(wide));
}

TEST_F(TargetPresetsTest, EmulatedCustomTargetPrintsAndParsesBack) {
  const char *text = "#subgroup_matrix.target<\"cpu\", subgroup_size = 8, "
                     "configs = [<8x8x8, f16 -> f32>], emulated>";
  Attribute parsed = parseAttribute(text, &context);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(cast<TargetAttr>(parsed).getEmulated());
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << parsed;
  EXPECT_EQ(printed, text);
}

} // namespace
