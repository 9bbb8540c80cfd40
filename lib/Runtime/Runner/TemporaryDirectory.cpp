//===- TemporaryDirectory.cpp - a scratch directory that never stays ------===//

#include "TemporaryDirectory.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <vector>

using namespace sm_runner;

namespace {
/// The directories that exist now; exit() removes them.
std::mutex liveMutex;
std::set<std::string> &getLiveDirectories() {
  static std::set<std::string> live;
  return live;
}

void removeLiveDirectories() {
  std::lock_guard<std::mutex> lock(liveMutex);
  for (const std::string &path : getLiveDirectories()) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  getLiveDirectories().clear();
}
} // namespace

bool TemporaryDirectory::create(const std::string &prefix, std::string &error) {
  // The set first: exit() destroys statics constructed after a handler was
  // registered before it runs that handler.
  static bool registered =
      (getLiveDirectories(), std::atexit(removeLiveDirectories) == 0);
  if (!registered) {
    error = "cannot register the removal of temporary files at exit";
    return false;
  }
  std::error_code code;
  std::filesystem::path base = std::filesystem::temp_directory_path(code);
  if (code)
    base = "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!mkdtemp(name.data())) {
    error = "cannot create a temporary directory like '" + pattern + "'";
    return false;
  }
  path = name.data();
  std::lock_guard<std::mutex> lock(liveMutex);
  getLiveDirectories().insert(path);
  return true;
}

void TemporaryDirectory::remove() {
  if (path.empty())
    return;
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
  std::lock_guard<std::mutex> lock(liveMutex);
  getLiveDirectories().erase(path);
  path.clear();
}
