//===- RecordedLaunch.cpp - the launch a SPIR-V binary records ------------===//

#include "RecordedLaunch.h"

#include <algorithm>
#include <cctype>
#include <optional>

using namespace sm_runner;

namespace {

/// Evaluates a size expression: integers and size names, multiplied with
/// '*', ceildiv(X,Y) and min(X,Y).
class SizeExpression {
public:
  SizeExpression(const std::string &text,
                 const std::map<std::string, uint64_t> &sizes)
      : text(text), sizes(sizes) {}

  std::optional<uint64_t> evaluate(std::string &error) {
    std::optional<uint64_t> value = product(error);
    if (value && position != text.size()) {
      error = "unexpected '" + text.substr(position) + "' in '" + text + "'";
      return std::nullopt;
    }
    return value;
  }

private:
  std::optional<uint64_t> product(std::string &error) {
    std::optional<uint64_t> value = atom(error);
    while (value && position < text.size() && text[position] == '*') {
      ++position;
      std::optional<uint64_t> factor = atom(error);
      if (!factor)
        return std::nullopt;
      *value *= *factor;
    }
    return value;
  }

  std::optional<uint64_t> atom(std::string &error) {
    size_t start = position;
    if (position < text.size() && std::isdigit(text[position])) {
      while (position < text.size() && std::isdigit(text[position]))
        ++position;
      return std::strtoull(text.substr(start, position - start).c_str(),
                           nullptr, 10);
    }
    while (position < text.size() &&
           (std::isalnum(text[position]) || text[position] == '_'))
      ++position;
    std::string name = text.substr(start, position - start);
    if ((name == "ceildiv" || name == "min") && position < text.size() &&
        text[position] == '(') {
      ++position;
      std::optional<uint64_t> x = product(error);
      if (!x || !expect(',', error))
        return std::nullopt;
      std::optional<uint64_t> y = product(error);
      if (!y || !expect(')', error))
        return std::nullopt;
      if (name == "min")
        return std::min(*x, *y);
      if (*y == 0) {
        error = "division by zero in '" + text + "'";
        return std::nullopt;
      }
      return (*x + *y - 1) / *y;
    }
    if (name.empty()) {
      error = "expected a number or a size name in '" + text + "'";
      return std::nullopt;
    }
    auto found = sizes.find(name);
    if (found == sizes.end()) {
      error = "the kernel's launch needs the size " + name + " (pass --size " +
              name + "=VALUE)";
      return std::nullopt;
    }
    return found->second;
  }

  bool expect(char c, std::string &error) {
    if (position < text.size() && text[position] == c) {
      ++position;
      return true;
    }
    error = std::string("expected '") + c + "' in '" + text + "'";
    return false;
  }

  const std::string &text;
  const std::map<std::string, uint64_t> &sizes;
  size_t position = 0;
};

/// Replaces every "{EXPRESSION}" in `word` by its value; false with `error`.
bool expandSizes(std::string &word,
                 const std::map<std::string, uint64_t> &sizes,
                 std::string &error) {
  std::string result;
  size_t position = 0;
  while (position < word.size()) {
    size_t open = word.find('{', position);
    if (open == std::string::npos) {
      result += word.substr(position);
      break;
    }
    size_t close = word.find('}', open);
    if (close == std::string::npos) {
      error = "the kernel's launch description has an unclosed '{' in '" +
              word + "'";
      return false;
    }
    result += word.substr(position, open - position);
    std::optional<uint64_t> value =
        SizeExpression(word.substr(open + 1, close - open - 1), sizes)
            .evaluate(error);
    if (!value)
      return false;
    result += std::to_string(*value);
    position = close + 1;
  }
  word = result;
  return true;
}

} // namespace

bool sm_runner::readRecordedLaunch(const SpirvModule &module,
                                   const std::string &entry,
                                   const std::map<std::string, uint64_t> &sizes,
                                   std::vector<std::string> &words,
                                   std::string &error) {
  words = findLaunchOptions(module, entry);
  for (std::string &word : words)
    if (!expandSizes(word, sizes, error))
      return false;
  return true;
}
