//===- DevicePlan.cpp - device plans on disk ------------------------------===//
//
// plan.txt holds one record per line: the header, the target, then
// `binary` (or one `host-source`), `kernel`, `input`, `buffer`, `output`
// records and the steps (`launch` or `copy`) each followed by its argument
// lines (indented `buffer INDEX OFFSET SIZE` or `scalar SIZE HEXBYTES`).
// Binaries, host sources and constant data are files beside it.
//
//===----------------------------------------------------------------------===//

#include "DevicePlan.h"

#include "Files.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>

using namespace sm_runner;

static const char kHeader[] = "sm-device-plan 1";

static bool writeFile(const std::string &path, const char *data, size_t size,
                      std::string &error) {
  std::ofstream file(path, std::ios::binary);
  file.write(data, std::streamsize(size));
  if (!file) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

static std::string hexOf(const std::vector<char> &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (char byte : bytes) {
    text += digits[(unsigned char)byte >> 4];
    text += digits[(unsigned char)byte & 15];
  }
  return text;
}

/// An input's or output's element as plan.txt spells it: the array's type
/// code, then `:BITS` where the buffer packs elements narrower than a byte.
static std::string formatElement(const std::string &dtype,
                                 unsigned packedBits) {
  return packedBits ? dtype + ":" + std::to_string(packedBits) : dtype;
}

/// Reads what formatElement wrote; false when the width is not one that
/// divides a byte.
static bool parseElement(const std::string &text, std::string &dtype,
                         unsigned &packedBits) {
  size_t colon = text.find(':');
  dtype = text.substr(0, colon);
  packedBits = 0;
  if (colon == std::string::npos)
    return true;
  std::string bits = text.substr(colon + 1);
  if (bits != "2" && bits != "4")
    return false;
  packedBits = unsigned(std::stoi(bits));
  return true;
}

bool sm_runner::writeDevicePlan(const DevicePlan &plan,
                                const std::string &directory,
                                std::string &error) {
  std::ostringstream text;
  text << kHeader << "\n";
  text << "target " << plan.target << "\n";
  for (size_t i = 0; i < plan.binaries.size(); ++i) {
    std::string name = "binary_" + std::to_string(i) + ".spv";
    const std::vector<uint32_t> &words = plan.binaries[i];
    if (!writeFile(directory + "/" + name,
                   reinterpret_cast<const char *>(words.data()),
                   words.size() * 4, error))
      return false;
    text << "binary " << i << " " << name << "\n";
  }
  if (!plan.hostSourceName.empty()) {
    if (!writeFile(directory + "/" + plan.hostSourceName,
                   plan.hostSource.data(), plan.hostSource.size(), error))
      return false;
    text << "host-source " << plan.hostSourceName << "\n";
  }
  for (size_t i = 0; i < plan.kernels.size(); ++i)
    text << "kernel " << i << " " << plan.kernels[i].binary << " "
         << plan.kernels[i].entry << "\n";
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    text << "input " << i << " "
         << formatElement(plan.inputs[i].dtype, plan.inputs[i].packedBits);
    for (int64_t size : plan.inputs[i].shape)
      text << " " << size;
    text << "\n";
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const DevicePlan::Buffer &buffer = plan.buffers[i];
    text << "buffer " << i << " " << buffer.size << " ";
    if (buffer.start == DevicePlan::Buffer::Start::Input) {
      text << "input " << buffer.argument << "\n";
    } else if (buffer.start == DevicePlan::Buffer::Start::Poison) {
      text << "poison\n";
    } else {
      std::string name = "buffer_" + std::to_string(i) + ".bin";
      if (!writeFile(directory + "/" + name, buffer.data.data(),
                     buffer.data.size(), error))
        return false;
      text << "data " << name << "\n";
    }
  }
  for (const DevicePlan::Step &step : plan.steps) {
    if (step.isCopy)
      text << "copy " << step.name << "\n";
    else
      text << "launch " << step.name << " " << step.kernel << " "
           << step.grid[0] << " " << step.grid[1] << " " << step.grid[2]
           << "\n";
    for (const DevicePlan::Argument &argument : step.arguments) {
      if (argument.isScalar)
        text << "  scalar " << argument.scalar.size() << " "
             << hexOf(argument.scalar) << "\n";
      else
        text << "  buffer " << argument.buffer << " " << argument.offset << " "
             << argument.size << "\n";
    }
  }
  for (const DevicePlan::Output &output : plan.outputs) {
    text << "output " << output.argument << " " << output.buffer << " "
         << output.offset << " "
         << formatElement(output.dtype, output.packedBits);
    for (int64_t size : output.shape)
      text << " " << size;
    text << "\n";
  }
  std::string content = text.str();
  return writeFile(directory + "/plan.txt", content.data(), content.size(),
                   error);
}

bool sm_runner::readDevicePlan(const std::string &directory, DevicePlan &plan,
                               std::string &error) {
  std::vector<char> bytes;
  std::string path = directory + "/plan.txt";
  if (!readWholeFile(path, bytes, error))
    return false;
  std::istringstream text(std::string(bytes.begin(), bytes.end()));
  std::string line;
  unsigned number = 0;
  auto fail = [&](const std::string &why) {
    error = path + ":" + std::to_string(number) + ": " + why;
    return false;
  };
  plan = DevicePlan();
  if (!std::getline(text, line) || line != kHeader) {
    number = 1;
    return fail("not a device plan (expected '" + std::string(kHeader) + "')");
  }
  number = 1;
  auto readShape = [](std::istringstream &fields, std::vector<int64_t> &shape) {
    int64_t size;
    while (fields >> size) {
      if (size < 0)
        return false;
      shape.push_back(size);
    }
    return fields.eof();
  };
  while (std::getline(text, line)) {
    ++number;
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    bool isArgument = line.rfind("  ", 0) == 0;
    if (isArgument) {
      if (plan.steps.empty())
        return fail("an argument line before any step");
      DevicePlan::Argument argument;
      if (kind == "buffer") {
        if (!(fields >> argument.buffer >> argument.offset >> argument.size) ||
            argument.buffer >= plan.buffers.size() ||
            argument.offset + argument.size >
                plan.buffers[argument.buffer].size)
          return fail("a malformed buffer argument");
      } else if (kind == "scalar") {
        size_t size;
        std::string hex;
        if (!(fields >> size >> hex) || hex.size() != 2 * size || size > 8)
          return fail("a malformed scalar argument");
        argument.isScalar = true;
        for (size_t i = 0; i < size; ++i)
          argument.scalar.push_back(
              char(std::stoi(hex.substr(2 * i, 2), nullptr, 16)));
      } else {
        return fail("an unknown argument kind '" + kind + "'");
      }
      plan.steps.back().arguments.push_back(std::move(argument));
      continue;
    }
    if (kind == "target") {
      fields >> plan.target;
    } else if (kind == "binary") {
      size_t index;
      std::string name;
      if (!(fields >> index >> name) || index != plan.binaries.size())
        return fail("a malformed binary record");
      std::vector<char> data;
      if (!readWholeFile(directory + "/" + name, data, error))
        return false;
      if (data.size() % 4)
        return fail("binary '" + name + "' is not a whole number of words");
      plan.binaries.emplace_back(data.size() / 4);
      std::copy(data.begin(), data.end(),
                reinterpret_cast<char *>(plan.binaries.back().data()));
    } else if (kind == "host-source") {
      std::vector<char> data;
      if (!(fields >> plan.hostSourceName) || !plan.binaries.empty())
        return fail("a malformed host-source record");
      if (!readWholeFile(directory + "/" + plan.hostSourceName, data, error))
        return false;
      plan.hostSource.assign(data.begin(), data.end());
    } else if (kind == "kernel") {
      size_t index;
      DevicePlan::Kernel kernel;
      size_t binaries = plan.hostSourceName.empty() ? plan.binaries.size() : 1;
      if (!(fields >> index >> kernel.binary >> kernel.entry) ||
          index != plan.kernels.size() || kernel.binary >= binaries)
        return fail("a malformed kernel record");
      plan.kernels.push_back(kernel);
    } else if (kind == "input") {
      size_t index;
      DevicePlan::Input input;
      std::string element;
      if (!(fields >> index >> element) || index != plan.inputs.size() ||
          !parseElement(element, input.dtype, input.packedBits) ||
          !readShape(fields, input.shape))
        return fail("a malformed input record");
      plan.inputs.push_back(std::move(input));
    } else if (kind == "buffer") {
      size_t index;
      std::string start;
      DevicePlan::Buffer buffer;
      if (!(fields >> index >> buffer.size >> start) ||
          index != plan.buffers.size())
        return fail("a malformed buffer record");
      if (start == "input") {
        buffer.start = DevicePlan::Buffer::Start::Input;
        if (!(fields >> buffer.argument) || buffer.argument < 0 ||
            size_t(buffer.argument) >= plan.inputs.size())
          return fail("a buffer of an input the plan does not take");
      } else if (start == "poison") {
        buffer.start = DevicePlan::Buffer::Start::Poison;
      } else if (start == "data") {
        buffer.start = DevicePlan::Buffer::Start::Data;
        std::string name;
        fields >> name;
        if (!readWholeFile(directory + "/" + name, buffer.data, error))
          return false;
        if (buffer.data.size() != buffer.size)
          return fail("constant '" + name + "' does not hold " +
                      std::to_string(buffer.size) + " bytes");
      } else {
        return fail("a buffer that starts as '" + start + "'");
      }
      plan.buffers.push_back(std::move(buffer));
    } else if (kind == "launch" || kind == "copy") {
      DevicePlan::Step step;
      step.isCopy = kind == "copy";
      if (!(fields >> step.name))
        return fail("a step without a name");
      if (!step.isCopy && (!(fields >> step.kernel >> step.grid[0] >>
                             step.grid[1] >> step.grid[2]) ||
                           step.kernel >= plan.kernels.size()))
        return fail("a malformed launch record");
      plan.steps.push_back(std::move(step));
    } else if (kind == "output") {
      DevicePlan::Output output;
      std::string element;
      if (!(fields >> output.argument >> output.buffer >> output.offset >>
            element) ||
          !parseElement(element, output.dtype, output.packedBits) ||
          output.buffer >= plan.buffers.size() ||
          !readShape(fields, output.shape))
        return fail("a malformed output record");
      plan.outputs.push_back(std::move(output));
    } else {
      return fail("an unknown record '" + kind + "'");
    }
  }
  for (const DevicePlan::Step &step : plan.steps)
    if (step.isCopy && step.arguments.size() != 2)
      return fail("a copy needs a source and a target");
  return true;
}

bool sm_runner::checkPlanInputs(const DevicePlan &plan,
                                const std::vector<const NpyArray *> &inputs,
                                std::string &error) {
  if (inputs.size() != plan.inputs.size()) {
    error = "the plan takes " + std::to_string(plan.inputs.size()) +
            " inputs, but " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const DevicePlan::Input &expected = plan.inputs[i];
    // The same type, or the other signedness of an integer type.
    const std::string &given = inputs[i]->dtype;
    bool integers = (given[0] == 'i' || given[0] == 'u') &&
                    (expected.dtype[0] == 'i' || expected.dtype[0] == 'u');
    bool sameType =
        given == expected.dtype || (integers && given[1] == expected.dtype[1]);
    if (inputs[i]->shape != expected.shape || !sameType) {
      NpyArray wanted;
      wanted.dtype = expected.dtype;
      wanted.shape = expected.shape;
      error = "input " + std::to_string(i) + " is " + inputs[i]->describe() +
              ", but the plan was made for " + wanted.describe();
      return false;
    }
  }
  return true;
}

/// The bytes of a buffer of `size` bytes that packs `array`'s elements (one
/// per byte) `bits` wide, the first in the low bits of the first byte, as
/// the kernels' emulation of narrow integers reads them.
static std::vector<char> packElements(const NpyArray &array, unsigned bits,
                                      uint64_t size) {
  std::vector<char> packed(size, 0);
  unsigned mask = (1u << bits) - 1;
  for (size_t i = 0; i < array.data.size(); ++i) {
    size_t bit = i * bits;
    if (bit / 8 >= packed.size())
      return {};
    packed[bit / 8] |=
        char((unsigned(uint8_t(array.data[i])) & mask) << (bit % 8));
  }
  return packed;
}

/// Unpacks `packed` into `array` (one element per byte), sign-extended for
/// signed type codes.
static void unpackElements(const char *packed, unsigned bits, NpyArray &array) {
  unsigned mask = (1u << bits) - 1;
  bool isSigned = array.dtype[0] == 'i';
  for (size_t i = 0; i < array.data.size(); ++i) {
    size_t bit = i * bits;
    unsigned value = (unsigned(uint8_t(packed[bit / 8])) >> (bit % 8)) & mask;
    if (isSigned && (value >> (bits - 1)))
      value |= ~mask;
    array.data[i] = char(value);
  }
}

bool sm_runner::getInputBytes(const DevicePlan &plan,
                              const DevicePlan::Buffer &buffer,
                              const NpyArray &input, std::vector<char> &bytes,
                              std::string &error) {
  unsigned packedBits = plan.inputs[buffer.argument].packedBits;
  bytes =
      packedBits ? packElements(input, packedBits, buffer.size) : input.data;
  if (bytes.size() != buffer.size) {
    error = "input " + std::to_string(buffer.argument) + " holds " +
            std::to_string(bytes.size()) + " bytes, the plan " +
            std::to_string(buffer.size);
    return false;
  }
  return true;
}

/// An empty array of `output`'s type and shape.
static NpyArray makeOutputArray(const DevicePlan::Output &output) {
  NpyArray array;
  array.dtype = output.dtype;
  array.shape = output.shape;
  return array;
}

bool sm_runner::getOutputSize(const DevicePlan &plan,
                              const DevicePlan::Output &output, uint64_t &size,
                              std::string &error) {
  NpyArray array = makeOutputArray(output);
  size = output.packedBits
             ? uint64_t(array.getNumElements() * output.packedBits + 7) / 8
             : uint64_t(array.getNumElements() * array.getElementSize());
  if (array.getElementSize() <= 0 ||
      output.offset + size > plan.buffers[output.buffer].size) {
    error = "an output of the plan (" + array.describe() +
            ") does not fit in its buffer";
    return false;
  }
  return true;
}

NpyArray sm_runner::decodeOutput(const DevicePlan::Output &output,
                                 const char *bytes) {
  NpyArray array = makeOutputArray(output);
  array.data.resize(array.getNumElements() * array.getElementSize());
  if (output.packedBits)
    unpackElements(bytes, output.packedBits, array);
  else
    std::copy(bytes, bytes + array.data.size(), array.data.begin());
  return array;
}

bool sm_runner::readPlanInputs(const DevicePlan &plan,
                               const std::string &directory,
                               std::vector<std::string> paths,
                               std::vector<NpyArray> &inputs,
                               std::string &error) {
  if (paths.empty())
    for (size_t i = 0; i < plan.inputs.size(); ++i)
      paths.push_back(directory + "/input_" + std::to_string(i) + ".npy");
  inputs.assign(paths.size(), NpyArray());
  for (size_t i = 0; i < paths.size(); ++i)
    if (!mlir::subgroup_matrix::runtime::readNpy(paths[i], inputs[i], error))
      return false;
  return true;
}

/// The file each output of `plan` is written to: result_<i>.npy for the
/// results, arg_<i>.npy for the arguments the program writes.
static std::vector<std::string> getOutputFileNames(const DevicePlan &plan) {
  std::vector<std::string> names;
  int resultIndex = 0;
  for (const DevicePlan::Output &output : plan.outputs)
    names.push_back(output.argument < 0
                        ? "result_" + std::to_string(resultIndex++) + ".npy"
                        : "arg_" + std::to_string(output.argument) + ".npy");
  return names;
}

bool sm_runner::writePlanOutputs(const DevicePlan &plan,
                                 const std::string &directory,
                                 const std::vector<NpyArray> &outputs,
                                 std::string &error) {
  mkdir(directory.c_str(), 0755);
  std::vector<std::string> names = getOutputFileNames(plan);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!mlir::subgroup_matrix::runtime::writeNpy(directory + "/" + names[i],
                                                  outputs[i], error))
      return false;
    std::printf("%s: %s\n", names[i].c_str(), outputs[i].describe().c_str());
  }
  return true;
}

bool sm_runner::readPlanOutputs(const DevicePlan &plan,
                                const std::string &directory,
                                std::vector<NpyArray> &outputs,
                                std::string &error) {
  std::vector<std::string> names = getOutputFileNames(plan);
  outputs.assign(names.size(), NpyArray());
  for (size_t i = 0; i < names.size(); ++i)
    if (!mlir::subgroup_matrix::runtime::readNpy(directory + "/" + names[i],
                                                 outputs[i], error))
      return false;
  return true;
}
