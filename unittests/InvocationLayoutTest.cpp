//===- InvocationLayoutTest.cpp - per-invocation layouts -----------------===//
//
// The vector each invocation holds, for the shapes of the extension's own
// examples and of the presets.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/InvocationLayout.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/SubgroupMatrixToInvocations.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

class InvocationLayoutTest : public ::testing::Test {
protected:
  InvocationLayoutTest() : builder(&context) {
    context.loadDialect<SubgroupMatrixDialect>();
  }

  VectorType layout(SubgroupMatrixTypeInterface type, unsigned subgroup) {
    std::string error;
    FailureOr<InvocationLayout> result =
        InvocationLayout::get(type, subgroup, error);
    EXPECT_TRUE(succeeded(result)) << error;
    return succeeded(result) ? result->getVectorType() : VectorType();
  }
  std::string error(SubgroupMatrixTypeInterface type, unsigned subgroup) {
    std::string message;
    EXPECT_TRUE(failed(InvocationLayout::get(type, subgroup, message)));
    return message;
  }

  MLIRContext context;
  Builder builder;
};

TEST_F(InvocationLayoutTest, SubgroupOf16) {
  Type f16 = builder.getF16Type(), f32 = builder.getF32Type();
  Type si8 = IntegerType::get(&context, 8, IntegerType::Signed);
  // K = 16 = N: one f16 column per invocation.
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 8, 16, f16), 16),
            VectorType::get({8}, builder.getI16Type()));
  // VNNI: two f16 rows per i32.
  EXPECT_EQ(layout(RightMatrixType::get(&context, 16, 16, f16), 16),
            VectorType::get({8}, builder.getI32Type()));
  // K = 32 > N = 16: two 8-bit columns per i16.
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 8, 32, si8), 16),
            VectorType::get({8}, builder.getI16Type()));
  // Four 8-bit rows per i32.
  EXPECT_EQ(layout(RightMatrixType::get(&context, 32, 16, si8), 16),
            VectorType::get({8}, builder.getI32Type()));
  // tf32, K = 8 < N = 16: rows spread over two invocations.
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 8, 8, f32), 16),
            VectorType::get({4}, f32));
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 1, 8, f32), 16),
            VectorType::get({1}, f32));
  // Split shapes: 32 rows in 4 chunks, 32 columns in 2 tiles.
  EXPECT_EQ(layout(ResultMatrixType::get(&context, 32, 32, f32), 16),
            VectorType::get({64}, f32));
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 32, 16, f16), 16),
            VectorType::get({32}, builder.getI16Type()));
}

TEST_F(InvocationLayoutTest, SubgroupOf8) {
  Type f16 = builder.getF16Type();
  Type ui8 = IntegerType::get(&context, 8, IntegerType::Unsigned);
  // K = 16 > N = 8: two f16 columns per i32, as IGC requires for DG2.
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 8, 16, f16), 8),
            VectorType::get({8}, builder.getI32Type()));
  EXPECT_EQ(layout(LeftMatrixType::get(&context, 4, 32, ui8), 8),
            VectorType::get({4}, builder.getI32Type()));
  EXPECT_EQ(layout(RightMatrixType::get(&context, 16, 16, f16), 8),
            VectorType::get({16}, builder.getI32Type()));
}

TEST_F(InvocationLayoutTest, WhatTheExtensionCannotHold) {
  Type f16 = builder.getF16Type(), bf16 = builder.getBF16Type();
  EXPECT_NE(error(LeftMatrixType::get(&context, 12, 16, f16), 16)
                .find("M = 12 is above 8 and not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(error(LeftMatrixType::get(&context, 3, 16, f16), 16)
                .find("M = 3 is not a row count of the instruction"),
            std::string::npos);
  EXPECT_NE(error(ResultMatrixType::get(&context, 8, 24, f16), 16)
                .find("N = 24 is not a multiple of the subgroup size 16"),
            std::string::npos);
  EXPECT_NE(error(ResultMatrixType::get(&context, 8, 16, bf16), 16)
                .find("accumulates into f32, f16 or 32-bit integers only"),
            std::string::npos);
}

TEST_F(InvocationLayoutTest, BuiltinNames) {
  Type i16 = builder.getI16Type(), i32 = builder.getI32Type();
  Type f32 = builder.getF32Type();
  // The name LLVM's SPIR-V backend documents for f16 on PVC.
  EXPECT_EQ(
      getIntelMultiplyBuiltinName(VectorType::get({8}, i16),
                                  VectorType::get({8}, i32),
                                  VectorType::get({8}, f32)),
      "_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_sDv8_iDv8_fi");
  // Repeated vector types are substitutions; scalars are not.
  EXPECT_EQ(getIntelMultiplyBuiltinName(VectorType::get({8}, i32),
                                        VectorType::get({8}, i32),
                                        VectorType::get({8}, i32)),
            "_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_iS_S_i");
  EXPECT_EQ(getIntelMultiplyBuiltinName(i16, VectorType::get({8}, i32), f32),
            "_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELisDv8_ifi");
  EXPECT_EQ(getIntelMultiplyOperands(builder.getF16Type()), 0xC00u);
  EXPECT_EQ(getIntelMultiplyOperands(
                IntegerType::get(&context, 8, IntegerType::Signed)),
            0x33u);
  EXPECT_EQ(getIntelMultiplyOperands(
                IntegerType::get(&context, 8, IntegerType::Unsigned)),
            0x30u);
}

} // namespace
