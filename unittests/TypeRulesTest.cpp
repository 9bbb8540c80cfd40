//===- TypeRulesTest.cpp - component, storage and accumulator rules -------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

class TypeRulesTest : public ::testing::Test {
protected:
  TypeRulesTest() : builder(&context) {
    f16 = builder.getF16Type();
    bf16 = builder.getBF16Type();
    f32 = builder.getF32Type();
    si8 = IntegerType::get(&context, 8, IntegerType::Signed);
    ui8 = IntegerType::get(&context, 8, IntegerType::Unsigned);
    si32 = IntegerType::get(&context, 32, IntegerType::Signed);
    ui32 = IntegerType::get(&context, 32, IntegerType::Unsigned);
  }

  MLIRContext context;
  Builder builder;
  Type f16, bf16, f32, si8, ui8, si32, ui32;
};

TEST_F(TypeRulesTest, ComponentTypes) {
  for (Type type : {f16, bf16, f32, si8, ui8, si32, ui32})
    EXPECT_TRUE(isValidComponentType(type));
  for (Type type : std::initializer_list<Type>{
           builder.getI8Type(), builder.getI32Type(), builder.getF64Type(),
           builder.getI16Type(),
           Type(IntegerType::get(&context, 16, IntegerType::Signed)),
           builder.getIndexType()})
    EXPECT_FALSE(isValidComponentType(type));
}

TEST_F(TypeRulesTest, AccumulatorPairsAreExactlyTheContractOnes) {
  std::vector<Type> all = {f16, bf16, f32, si8, ui8, si32, ui32};
  std::set<std::pair<const void *, const void *>> valid = {
      {f16.getAsOpaquePointer(), f16.getAsOpaquePointer()},
      {f16.getAsOpaquePointer(), f32.getAsOpaquePointer()},
      {bf16.getAsOpaquePointer(), f32.getAsOpaquePointer()},
      {f32.getAsOpaquePointer(), f32.getAsOpaquePointer()},
      {si8.getAsOpaquePointer(), si32.getAsOpaquePointer()},
      {ui8.getAsOpaquePointer(), ui32.getAsOpaquePointer()},
      {si32.getAsOpaquePointer(), si32.getAsOpaquePointer()},
      {ui32.getAsOpaquePointer(), ui32.getAsOpaquePointer()},
  };
  for (Type component : all)
    for (Type result : all)
      EXPECT_EQ(isValidAccumulatorType(component, result),
                valid.count({component.getAsOpaquePointer(),
                             result.getAsOpaquePointer()}) == 1)
          << "component and result pair differs from the contract";
}

TEST_F(TypeRulesTest, StorageAndScalarTypes) {
  EXPECT_EQ(getStorageType(f16), f16);
  EXPECT_EQ(getStorageType(bf16), bf16);
  EXPECT_EQ(getStorageType(si8), builder.getI8Type());
  EXPECT_EQ(getStorageType(ui8), builder.getI8Type());
  EXPECT_EQ(getStorageType(ui32), builder.getI32Type());
  EXPECT_EQ(getScalarType(f32), f32);
  EXPECT_EQ(getScalarType(bf16), bf16);
  for (Type type : {si8, ui8, si32, ui32})
    EXPECT_EQ(getScalarType(type), builder.getI32Type());
}

} // namespace
