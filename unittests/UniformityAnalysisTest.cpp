//===- UniformityAnalysisTest.cpp - value and control-flow uniformity -----===//
//
// The lit tests show which ops the pass reports; these check the analysis'
// answers for individual values, which the pass never prints.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Analysis/UniformityAnalysis.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

class UniformityAnalysisTest : public ::testing::Test {
protected:
  UniformityAnalysisTest() {
    context
        .loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                     func::FuncDialect, gpu::GPUDialect, memref::MemRefDialect,
                     scf::SCFDialect, SubgroupMatrixDialect>();
    context.allowUnregisteredDialects();
  }

  void parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(module);
    analysis.emplace(module.get());
  }

  /// The op carrying `tag = "name"`.
  Operation *find(StringRef name) {
    Operation *found = nullptr;
    module->walk([&](Operation *op) {
      if (auto tag = op->getAttrOfType<StringAttr>("tag"))
        if (tag.getValue() == name)
          found = op;
    });
    EXPECT_TRUE(found) << "no op tagged " << name.str();
    return found;
  }

  bool varying(StringRef name) {
    return analysis->isVarying(find(name)->getResult(0));
  }
  bool divergent(StringRef name) {
    return analysis->getDivergenceSource(find(name)) != nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::optional<UniformityAnalysis> analysis;
};

TEST_F(UniformityAnalysisTest, SeedsAndPropagation) {
  parse(R"mlir(
    func.func @f(%buf: memref<?xi32>, %n: index) {
      %tid = gpu.thread_id x {tag = "tid"}
      %bid = gpu.block_id x {tag = "bid"}
      %sg = gpu.subgroup_id {tag = "sg"} : index
      %sum = arith.addi %tid, %n {tag = "sum"} : index
      %uni = arith.addi %bid, %n {tag = "uni"} : index
      %loaded = memref.load %buf[%tid] {tag = "loaded"} : memref<?xi32>
      %uloaded = memref.load %buf[%n] {tag = "uloaded"} : memref<?xi32>
      %red = gpu.subgroup_reduce add %loaded {tag = "red"} : (i32) -> i32
      %cred = gpu.subgroup_reduce add %loaded cluster(size = 4) {tag = "cred"} : (i32) -> i32
      %c1 = arith.constant 1 : i32
      %atomic = memref.atomic_rmw addi %c1, %buf[%n] {tag = "atomic"} : (i32, memref<?xi32>) -> i32
      return
    }
  )mlir");
  EXPECT_TRUE(varying("tid"));
  EXPECT_FALSE(varying("bid"));
  EXPECT_FALSE(varying("sg"));
  EXPECT_TRUE(varying("sum"));
  EXPECT_FALSE(varying("uni"));
  EXPECT_TRUE(varying("loaded"));
  EXPECT_FALSE(varying("uloaded"));
  EXPECT_FALSE(varying("red"));
  EXPECT_TRUE(varying("cred"));
  EXPECT_TRUE(varying("atomic"));
}

TEST_F(UniformityAnalysisTest, LoopCarriedValuesAndReconvergence) {
  parse(R"mlir(
    func.func @f(%n: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %tid = gpu.thread_id x
      // The accumulator becomes varying only on the second trip around.
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
        %next = arith.addi %acc, %tid {tag = "next"} : index
        %u = arith.addi %i, %c1 {tag = "iv_use"} : index
        scf.yield %next : index
      } {tag = "loop"}
      %after = arith.addi %n, %c1 {tag = "after"} : index
      scf.for %j = %tid to %n step %c1 {
        %in = arith.addi %j, %c1 {tag = "in_divergent"} : index
      }
      %join = arith.addi %n, %n {tag = "join"} : index
      return
    }
  )mlir");
  EXPECT_TRUE(varying("loop"));
  EXPECT_FALSE(varying("iv_use"));
  EXPECT_FALSE(divergent("next"));
  EXPECT_TRUE(divergent("in_divergent"));
  EXPECT_FALSE(divergent("join"));
  EXPECT_FALSE(varying("join"));
}

TEST_F(UniformityAnalysisTest, UnstructuredBranchesReconvergeAtPostDominator) {
  parse(R"mlir(
    func.func @f(%n: index) {
      %tid = gpu.thread_id x
      %c = arith.cmpi ult, %tid, %n : index
      cf.cond_br %c, ^then, ^else
    ^then:
      %a = arith.addi %n, %n {tag = "then"} : index
      cf.br ^join(%a : index)
    ^else:
      cf.br ^join(%n : index)
    ^join(%v: index):
      %b = arith.addi %n, %n {tag = "join"} : index
      %p = arith.addi %v, %n {tag = "phi_use"} : index
      return
    }
  )mlir");
  EXPECT_TRUE(divergent("then"));
  EXPECT_FALSE(divergent("join"));
  EXPECT_FALSE(varying("join"));
  // The join's argument merges values from divergent paths.
  EXPECT_TRUE(varying("phi_use"));
}

TEST_F(UniformityAnalysisTest, CallsCarryUniformity) {
  parse(R"mlir(
    func.func private @helper(%x: index) -> index {
      %y = arith.addi %x, %x {tag = "in_helper"} : index
      return %y : index
    }
    func.func @f(%n: index) {
      %tid = gpu.thread_id x
      %r = func.call @helper(%n) {tag = "uniform_call"} : (index) -> index
      %s = func.call @helper(%tid) {tag = "varying_call"} : (index) -> index
      return
    }
  )mlir");
  // One call site passes a thread id, so the helper's argument varies, and
  // so do both calls' results.
  EXPECT_TRUE(varying("in_helper"));
  EXPECT_TRUE(varying("varying_call"));
  EXPECT_TRUE(varying("uniform_call"));
  EXPECT_FALSE(divergent("in_helper"));
}

} // namespace
