//===- KernelSignature.cpp - what a kernel takes, checked before a run ----===//

#include "KernelSignature.h"

using namespace sm_runner;

bool sm_runner::parseKernelSignature(const std::string &text,
                                     std::vector<KernelParameter> &parameters) {
  parameters.clear();
  if (text.empty())
    return true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string entry = text.substr(start, comma - start);
    size_t colon = entry.find(':');
    if (colon == std::string::npos)
      return false;
    std::string role = entry.substr(0, colon), type = entry.substr(colon + 1);
    KernelParameter parameter;
    if (role != "buffer" && role != "scalar")
      return false;
    parameter.isScalar = role == "scalar";
    if (type == "bf16") {
      parameter.kind = KernelParameter::Kind::BFloat;
      parameter.bitWidth = 16;
    } else if (type.size() > 1 && (type[0] == 'f' || type[0] == 'i') &&
               type.find_first_not_of("0123456789", 1) == std::string::npos &&
               type.size() < 5) {
      parameter.kind = type[0] == 'f' ? KernelParameter::Kind::Float
                                      : KernelParameter::Kind::Integer;
      parameter.bitWidth = unsigned(std::stoul(type.substr(1)));
    } else if (type != "?") {
      return false;
    }
    parameters.push_back(parameter);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

std::string sm_runner::describeParameter(const KernelParameter &parameter) {
  std::string type;
  switch (parameter.kind) {
  case KernelParameter::Kind::Opaque:
    type = "untyped";
    break;
  case KernelParameter::Kind::Float:
    type = "f" + std::to_string(parameter.bitWidth);
    break;
  case KernelParameter::Kind::BFloat:
    type = "bf16";
    break;
  case KernelParameter::Kind::Integer:
    type = "i" + std::to_string(parameter.bitWidth);
    break;
  }
  return type + (parameter.isScalar ? " scalar" : " buffer");
}

/// Whether an argument of element type `type` can be bound to `parameter`.
/// Integers match by width whatever their signedness (SPIR-V and LLVM
/// integers are signless). A buffer of 32-bit or 16-bit integers may also
/// hold narrower data packed into its words (the lowerings pack 8- and
/// 16-bit elements where the device cannot address them), but never wider
/// or floating-point data of its own width.
static bool accepts(const KernelParameter &parameter, ElementType type) {
  unsigned width = unsigned(getElementSize(type)) * 8;
  switch (parameter.kind) {
  case KernelParameter::Kind::Opaque:
    return true;
  case KernelParameter::Kind::BFloat:
    return type == ElementType::BF16;
  case KernelParameter::Kind::Float:
    return isFloat(type) && type != ElementType::BF16 &&
           width == parameter.bitWidth;
  case KernelParameter::Kind::Integer:
    // 16-bit integers are how kernels hold bf16 (and f16) where the device
    // has no such type: the bits travel unchanged.
    if (width == parameter.bitWidth && (!isFloat(type) || width == 16))
      return true;
    return !parameter.isScalar && width < parameter.bitWidth;
  }
  return false;
}

static std::string withArticle(const std::string &noun) {
  bool vowelSound =
      !noun.empty() && (noun[0] == 'f' || noun[0] == 'i' || noun[0] == 'u');
  return (vowelSound ? "an " : "a ") + noun;
}

std::string
sm_runner::checkArguments(const std::string &entry,
                          const std::vector<KernelParameter> &parameters,
                          const std::vector<BufferSpec> &arguments) {
  if (arguments.size() != parameters.size()) {
    std::string takes;
    for (size_t i = 0; i < parameters.size(); ++i)
      takes += (i ? ", " : "") + describeParameter(parameters[i]);
    return "kernel '" + entry + "' takes " + std::to_string(parameters.size()) +
           " argument" + (parameters.size() == 1 ? "" : "s") +
           (parameters.empty() ? "" : " (" + takes + ")") + ", but " +
           std::to_string(arguments.size()) +
           " --arg/--scalar were given (see --help)";
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    const KernelParameter &parameter = parameters[i];
    const BufferSpec &argument = arguments[i];
    if (!accepts(parameter, argument.type))
      return "argument " + std::to_string(i) + " of kernel '" + entry +
             "' is " + withArticle(describeParameter(parameter)) +
             ", but the command line gives it " +
             getElementTypeName(argument.type) + " data";
    if (parameter.isScalar && argument.count != 1)
      return "argument " + std::to_string(i) + " of kernel '" + entry +
             "' is " + withArticle(describeParameter(parameter)) +
             ", but the command line gives it " +
             std::to_string(argument.count) +
             " elements (use --scalar TYPE:VALUE)";
  }
  return "";
}

std::string
sm_runner::checkKernelArguments(const std::string &entry,
                                const std::string &signature,
                                const std::vector<BufferSpec> &arguments) {
  std::vector<KernelParameter> parameters;
  if (!parseKernelSignature(signature, parameters))
    return "the kernel file describes the arguments of '" + entry +
           "' in a form this runner does not read: '" + signature + "'";
  return checkArguments(entry, parameters, arguments);
}

std::string sm_runner::checkLaunchArguments(const std::string &entry,
                                            const std::string &signature,
                                            const DevicePlan::Step &step) {
  std::vector<KernelParameter> parameters;
  if (!parseKernelSignature(signature, parameters))
    return "the kernel file describes the arguments of '" + entry +
           "' in a form this runner does not read: '" + signature + "'";
  if (parameters.size() != step.arguments.size())
    return step.name + " passes " + std::to_string(step.arguments.size()) +
           " arguments to kernel '" + entry + "', which takes " +
           std::to_string(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    const KernelParameter &parameter = parameters[i];
    const DevicePlan::Argument &argument = step.arguments[i];
    bool sizeFits = !argument.isScalar || !parameter.bitWidth ||
                    argument.scalar.size() * 8 == parameter.bitWidth;
    if (parameter.isScalar != argument.isScalar || !sizeFits)
      return "argument " + std::to_string(i) + " of kernel '" + entry +
             "' is " + withArticle(describeParameter(parameter)) + ", but " +
             step.name + " passes " +
             (argument.isScalar
                  ? "a scalar of " + std::to_string(argument.scalar.size()) +
                        " bytes"
                  : std::string("a buffer"));
  }
  return "";
}
