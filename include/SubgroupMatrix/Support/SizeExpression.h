//===- SizeExpression.h - the size expressions of a recorded launch -*- C++
//-*-//
//
// A kernel's `#subgroup_matrix.launch` gives sizes left to run time as
// expressions: integers and size names, multiplied with '*', ceildiv(X,Y)
// and min(X,Y); inside a runner specification they are braced
// ("f16:{M*K}:random"). The dialect's verifier checks them and
// sm-vulkan-runner evaluates them, both through this one parser. Plain C++
// (no LLVM), so that the runner carried to GPU machines can include it.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_SUPPORT_SIZEEXPRESSION_H
#define SUBGROUPMATRIX_SUPPORT_SIZEEXPRESSION_H

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace sm_launch {

/// The value of size `name`; false with `error` when there is none.
using SizeLookup = std::function<bool(const std::string &name, uint64_t &value,
                                      std::string &error)>;

namespace detail {
class SizeExpressionParser {
public:
  SizeExpressionParser(const std::string &text, const SizeLookup &lookup)
      : text(text), lookup(lookup) {}

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
    if (position < text.size() && std::isdigit((unsigned char)text[position])) {
      while (position < text.size() &&
             std::isdigit((unsigned char)text[position]))
        ++position;
      return std::strtoull(text.substr(start, position - start).c_str(),
                           nullptr, 10);
    }
    while (
        position < text.size() &&
        (std::isalnum((unsigned char)text[position]) || text[position] == '_'))
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
    uint64_t value = 0;
    if (!lookup(name, value, error))
      return std::nullopt;
    return value;
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
  const SizeLookup &lookup;
  size_t position = 0;
};
} // namespace detail

/// The value of size expression `text`, its names looked up with `lookup`;
/// nothing, with `error` set, when it is malformed or a lookup fails.
inline std::optional<uint64_t> evaluateSizeExpression(const std::string &text,
                                                      const SizeLookup &lookup,
                                                      std::string &error) {
  return detail::SizeExpressionParser(text, lookup).evaluate(error);
}

/// Calls `visit` with the text of every "{EXPRESSION}" in `word`, in order,
/// and `literal` with the text between them; false with `error` when a
/// brace is unclosed or a call returns false (having set `error`).
inline bool
forEachBracedExpression(const std::string &word,
                        const std::function<bool(const std::string &)> &literal,
                        const std::function<bool(const std::string &)> &visit,
                        std::string &error) {
  size_t position = 0;
  while (position < word.size()) {
    size_t open = word.find('{', position);
    if (open == std::string::npos)
      return literal(word.substr(position));
    size_t close = word.find('}', open);
    if (close == std::string::npos) {
      error = "'" + word + "' has an unclosed '{'";
      return false;
    }
    if (!literal(word.substr(position, open - position)) ||
        !visit(word.substr(open + 1, close - open - 1)))
      return false;
    position = close + 1;
  }
  return true;
}

/// `word` with every "{EXPRESSION}" replaced by its value; nothing, with
/// `error` set, when a brace is unclosed or an expression fails.
inline std::optional<std::string>
expandSizeExpressions(const std::string &word, const SizeLookup &lookup,
                      std::string &error) {
  std::string result;
  bool expanded = forEachBracedExpression(
      word,
      [&](const std::string &text) {
        result += text;
        return true;
      },
      [&](const std::string &expression) {
        std::optional<uint64_t> value =
            evaluateSizeExpression(expression, lookup, error);
        if (value)
          result += std::to_string(*value);
        return value.has_value();
      },
      error);
  if (!expanded)
    return std::nullopt;
  return result;
}

} // namespace sm_launch

#endif // SUBGROUPMATRIX_SUPPORT_SIZEEXPRESSION_H
