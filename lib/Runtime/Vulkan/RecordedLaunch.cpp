//===- RecordedLaunch.cpp - the launch a SPIR-V binary records ------------===//

#include "RecordedLaunch.h"

#include "SubgroupMatrix/Support/SizeExpression.h"

using namespace sm_runner;

bool sm_runner::readRecordedLaunch(const SpirvModule &module,
                                   const std::string &entry,
                                   const std::map<std::string, uint64_t> &sizes,
                                   std::vector<std::string> &words,
                                   std::string &error) {
  words = findLaunchOptions(module, entry);
  bool missingSize = false;
  sm_launch::SizeLookup lookup = [&](const std::string &name, uint64_t &value,
                                     std::string &error) {
    auto found = sizes.find(name);
    missingSize = found == sizes.end();
    if (missingSize) {
      error = "the kernel's launch needs the size " + name + " (pass --size " +
              name + "=VALUE)";
      return false;
    }
    value = found->second;
    return true;
  };
  for (std::string &word : words) {
    std::optional<std::string> expanded =
        sm_launch::expandSizeExpressions(word, lookup, error);
    if (!expanded) {
      if (!missingSize)
        error = "the kernel's launch description is malformed: " + error;
      return false;
    }
    word = *expanded;
  }
  return true;
}
