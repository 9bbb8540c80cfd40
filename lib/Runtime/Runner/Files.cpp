//===- Files.cpp - whole files read without surprises ---------------------===//

#include "Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

bool sm_runner::readWholeFile(const std::string &path, std::vector<char> &data,
                              std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "cannot read '" + path + "': " + why;
    return false;
  };
  struct stat status;
  if (stat(path.c_str(), &status) != 0)
    return fail(std::strerror(errno));
  if (!S_ISREG(status.st_mode))
    return fail(S_ISDIR(status.st_mode) ? "it is a directory"
                                        : "it is not a regular file");
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return fail(std::strerror(errno));
  data.resize(size_t(status.st_size));
  size_t read =
      data.empty() ? 0 : std::fread(data.data(), 1, data.size(), file);
  bool failed = std::ferror(file) || read != data.size();
  std::fclose(file);
  if (failed)
    return fail("it could not be read whole");
  return true;
}
