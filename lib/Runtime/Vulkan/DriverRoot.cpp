//===- DriverRoot.cpp - Vulkan drivers from a newer Debian root -----------===//

#include "DriverRoot.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace sm_runner {

namespace {
/// Set in the environment of a process started through the root's loader.
constexpr const char *kActiveVariable = "SM_VULKAN_ROOT_ACTIVE";
constexpr const char *kLoaderPath = "/lib64/ld-linux-x86-64.so.2";
constexpr const char *kManifestDirectory = "/sm-icd.d/";

bool isFile(const std::string &path) { return access(path.c_str(), R_OK) == 0; }

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// VK_DRIVER_FILES for the root: each manifest replaced by the root's of the
/// same name (setup.sh writes them without the architecture in the name).
std::string mapDriverFiles(const std::string &root, const char *current) {
  std::string lavapipe = root + kManifestDirectory + "lvp_icd.json";
  if (!current || !*current)
    return lavapipe;
  std::string mapped, entries = current;
  size_t start = 0;
  while (start <= entries.size()) {
    size_t end = entries.find(':', start);
    if (end == std::string::npos)
      end = entries.size();
    std::string entry = entries.substr(start, end - start);
    std::string name = baseName(entry);
    size_t architecture = name.find(".x86_64");
    if (architecture != std::string::npos)
      name.erase(architecture, std::strlen(".x86_64"));
    std::string replacement = root + kManifestDirectory + name;
    if (!entry.empty())
      mapped += (mapped.empty() ? "" : ":") +
                (isFile(replacement) ? replacement : entry);
    start = end + 1;
  }
  return mapped;
}
} // namespace

bool targetNeedsDriverRoot(const std::string &target) {
  return target == "cpu-lavapipe-coopmat";
}

bool targetRunsOnCpu(const std::string &target) {
  return target == "cpu-lavapipe" || target == "cpu-lavapipe-coopmat";
}

bool inDriverRoot() { return std::getenv(kActiveVariable) != nullptr; }

std::string findDriverRoot(bool required) {
  if (const char *root = std::getenv("SM_VULKAN_ROOT"); root && *root)
    return root;
#ifdef SM_DEFAULT_VULKAN_ROOT
  if (required && isFile(std::string(SM_DEFAULT_VULKAN_ROOT) + kLoaderPath))
    return SM_DEFAULT_VULKAN_ROOT;
#endif
  return "";
}

bool enterDriverRoot(char **argv, bool required, std::string &error) {
  if (inDriverRoot())
    return true;
  std::string root = findDriverRoot(required);
  if (root.empty()) {
    if (!required)
      return true;
    error = "this target runs on Mesa 26's lavapipe, which utils/setup.sh "
            "installs (as root) in a Debian root at .deps/vulkan-root; there "
            "is none (or set SM_VULKAN_ROOT to one)";
    return false;
  }
  std::string loader = root + kLoaderPath;
  std::string lavapipe = root + kManifestDirectory + "lvp_icd.json";
  if (!isFile(loader) || !isFile(lavapipe)) {
    error = "the Vulkan root " + root + " has no " +
            (isFile(loader) ? lavapipe : loader) +
            " (make it again with utils/setup.sh)";
    return false;
  }
  // Through the loader /proc/self/exe names the loader: resolve it first.
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) {
    error = std::string("cannot find this program: ") + std::strerror(errno);
    return false;
  }
  self[length] = '\0';
  std::string libraries =
      root + "/usr/lib/x86_64-linux-gnu:" + root + "/lib/x86_64-linux-gnu";
  setenv("VK_DRIVER_FILES",
         mapDriverFiles(root, std::getenv("VK_DRIVER_FILES")).c_str(), 1);
  unsetenv("VK_ICD_FILENAMES");
  setenv(kActiveVariable, root.c_str(), 1);
  std::vector<char *> arguments = {const_cast<char *>(loader.c_str()),
                                   const_cast<char *>("--library-path"),
                                   const_cast<char *>(libraries.c_str()), self};
  for (char **argument = argv + 1; *argument; ++argument)
    arguments.push_back(*argument);
  arguments.push_back(nullptr);
  execv(loader.c_str(), arguments.data());
  error = "cannot run " + std::string(self) + " through " + loader + ": " +
          std::strerror(errno);
  return false;
}

} // namespace sm_runner
