//===- sm-run.cpp - run a whole program on arrays -------------------------===//
//
// Compiles a linalg program (or its compiled form) for a target and runs it
// on .npy arrays, on a Vulkan device (on the CPU through the host runners
// for Intel and Apple targets): argument i comes from the i-th
// --input, result i goes to DIR/result_<i>.npy, and each memref argument
// the program writes to DIR/arg_<i>.npy. --repeat N then times N more runs
// on the device and prints each kernel's time beside the total.
//
// Exit status: 0 on success, 2 on errors (each reported as a diagnostic;
// no output file is written after an error).
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/InitAll.h"
#include "SubgroupMatrix/Runtime/Runtime.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
namespace cl = llvm::cl;

static cl::OptionCategory category("sm-run options");
static cl::opt<std::string> programPath(cl::Positional, cl::Required,
                                        cl::desc("PROGRAM.mlir"),
                                        cl::cat(category));
static cl::opt<std::string>
    target("target", cl::Required,
           cl::desc("Target preset to compile for (nvidia-h100, "
                    "cpu-lavapipe, ...)"),
           cl::cat(category));
static cl::opt<std::string>
    entry("entry",
          cl::desc("Function to run (default: the only one that "
                   "launches kernels)"),
          cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("A .npy array for the next argument, in order (bf16 as "
                    "uint16)"),
           cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir", cl::init("."),
              cl::desc("Where result_<i>.npy and arg_<i>.npy go"),
              cl::cat(category));
static cl::opt<unsigned>
    repeat("repeat", cl::init(0),
           cl::desc("Time N further runs on the device and print each "
                    "kernel's time beside the total"),
           cl::cat(category));
static cl::opt<std::string> emitPlan(
    "emit-plan",
    cl::desc("Write what the device would run (binaries, buffers, launches) "
             "and the inputs into DIR, for sm-plan-runner, and stop"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> nvCoopmat2(
    "nv-coopmat2", cl::init(true),
    cl::desc("Use the VK_NV_cooperative_matrix2 features the target lists "
             "(--nv-coopmat2=false: SPV_KHR_cooperative_matrix alone)"),
    cl::cat(category));
static cl::opt<int>
    deviceIndex("device", cl::init(-1),
                cl::desc("Vulkan device to use (default: the CPU device for "
                         "cpu-lavapipe, else the first GPU)"),
                cl::cat(category));

/// The most timed runs, so that a typo cannot keep the device busy for
/// hours.
constexpr unsigned kMaxRepeat = 100000;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // A malformed command line is a bad input like any other: exit status 2
  // (cl's default would be 1).
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "sm-run: compile a program for a target and run it on .npy "
          "arrays\n",
          &llvm::errs()))
    return 2;
  // cpu-lavapipe-coopmat's lavapipe runs through the loader of its root.
  std::string rootError;
  if (!runtime::enterTargetEnvironment(target, argv, rootError)) {
    llvm::errs() << "sm-run: error: " << rootError << "\n";
    return 1;
  }
  if (repeat > kMaxRepeat) {
    llvm::errs() << "sm-run: error: --repeat " << repeat << " is more than the "
                 << kMaxRepeat << " allowed\n";
    return 2;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerSubgroupMatrixDialect(registry);
  // Intel targets translate their kernels to LLVM IR for the host runner.
  registerAllToLLVMIRTranslations(registry);
  registerAllPasses();
  registerSubgroupMatrixPassesAndPipelines();
  MLIRContext context(registry);
  // Diagnostics name the op; its generic form after them helps no user.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceManager;
  SourceMgrDiagnosticHandler handler(sourceManager, &context);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(programPath, &error);
  if (!file) {
    llvm::errs() << "sm-run: error: " << error << "\n";
    return 2;
  }
  sourceManager.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceManager, &context);
  if (!module)
    return 2;

  // The arrays are read before anything is compiled, so that a missing file
  // is reported at once.
  SmallVector<runtime::NpyArray> arrays;
  for (const std::string &path : inputs) {
    runtime::NpyArray array;
    if (!runtime::readNpy(path, array, error)) {
      llvm::errs() << "sm-run: error: " << error << "\n";
      return 2;
    }
    arrays.push_back(std::move(array));
  }

  FailureOr<std::unique_ptr<runtime::CompiledProgram>> program =
      runtime::CompiledProgram::compile(std::move(module), target, entry,
                                        {/*nvCooperativeMatrix2=*/nvCoopmat2});
  if (failed(program))
    return 2;
  if (!emitPlan.empty()) {
    if (std::error_code code = llvm::sys::fs::create_directories(emitPlan)) {
      llvm::errs() << "sm-run: error: cannot create '" << emitPlan
                   << "': " << code.message() << "\n";
      return 2;
    }
    if (failed(runtime::Device::writePlan(**program, arrays, emitPlan)))
      return 2;
    llvm::outs() << "plan: " << emitPlan << "\n";
    return 0;
  }
  FailureOr<std::unique_ptr<runtime::Device>> device =
      runtime::Device::open(&context, deviceIndex, target);
  if (failed(device))
    return 2;
  llvm::outs() << "device: " << (*device)->describe() << "\n";
  runtime::RunTimings timings;
  FailureOr<runtime::RunResults> results =
      (*device)->run(**program, arrays, repeat ? &timings : nullptr, repeat);
  if (failed(results))
    return 2;

  if (std::error_code code = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "sm-run: error: cannot create '" << outputDir
                 << "': " << code.message() << "\n";
    return 2;
  }
  auto write = [&](const std::string &name,
                   const runtime::NpyArray &array) -> bool {
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, name);
    if (!runtime::writeNpy(std::string(path), array, error)) {
      llvm::errs() << "sm-run: error: " << error << "\n";
      return false;
    }
    llvm::outs() << name << ": " << array.describe() << "\n";
    return true;
  };
  for (auto [index, array] : llvm::enumerate(results->results))
    if (!write("result_" + std::to_string(index) + ".npy", array))
      return 2;
  for (auto &[argument, array] : results->writtenArguments)
    if (!write("arg_" + std::to_string(argument) + ".npy", array))
      return 2;

  if (repeat) {
    if (timings.steps.empty()) {
      llvm::outs() << "time: not measured (the device has no timestamps)\n";
    } else {
      llvm::outs() << llvm::format("time: %.3f us per run (mean of %u runs, "
                                   "first step to last)\n",
                                   timings.totalMicroseconds, timings.runs);
      double sum = 0;
      for (auto [index, step] : llvm::enumerate(timings.steps)) {
        sum += step.second;
        llvm::outs() << llvm::format("  %2zu %-40s %10.3f us\n", index,
                                     step.first.c_str(), step.second);
      }
      llvm::outs() << llvm::format("steps: %.3f us summed", sum);
      if (timings.hostMicroseconds > 0)
        llvm::outs() << llvm::format(
            "; host: %.3f us per run, submission to completion",
            timings.hostMicroseconds);
      llvm::outs() << "\n";
    }
  }
  return 0;
}
