#include "labs/dataset.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace harness {

namespace {

// Why `path` cannot be read, in one line: only a missing file is fixed by generating it.
DatasetError unreadable(const std::string& path, int error) {
  if (error == ENOENT) {
    return DatasetError(path +
                        ": does not exist; generate it with `python3 -m datasets.generate` "
                        "(see the lab README)");
  }
  if (error == EACCES || error == EPERM) {
    return DatasetError(path + ": cannot be read: permission denied");
  }
  return DatasetError(path + ": cannot be read: " + std::strerror(error));
}

// Refuses what is not a regular file: a directory opens on Linux, and reading a FIFO
// or a device waits or never ends.
void require_regular(const std::string& path, mode_t mode) {
  if (S_ISDIR(mode)) {
    throw DatasetError(path + ": is a directory, not a dataset file: name one of its .bin files");
  }
  if (!S_ISREG(mode)) {
    throw DatasetError(path +
                       ": is not a regular file (a FIFO, a device or a socket): name a "
                       "dataset file");
  }
}

class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ~OpenFile() { ::close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

template <class T>
std::vector<T> read_binary_file(const std::string& path, long long expected_count) {
  // The type first, by name: opening a FIFO for reading waits for a writer, and opening
  // a device may act on it. Then again on the open file, which cannot change under us;
  // O_NONBLOCK keeps a FIFO swapped in between the two from blocking the open.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw unreadable(path, errno);
  require_regular(path, info.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw unreadable(path, errno);
  const OpenFile file(fd);
  if (::fstat(fd, &info) != 0) throw unreadable(path, errno);
  require_regular(path, info.st_mode);

  // Every size check before a byte is read or allocated.
  const long long bytes = static_cast<long long>(info.st_size);
  if (bytes % static_cast<long long>(sizeof(T)) != 0) {
    throw DatasetError(path + ": " + std::to_string(bytes) + " bytes is not a whole number of " +
                       std::to_string(sizeof(T)) + "-byte values: the file is truncated");
  }
  const long long count = bytes / static_cast<long long>(sizeof(T));
  if (expected_count >= 0 && count != expected_count) {
    throw DatasetError(path + ": holds " + std::to_string(count) + " values, expected " +
                       std::to_string(expected_count) +
                       (count < expected_count ? " (truncated?)" : "") +
                       "; regenerate it with `python3 -m datasets.generate`");
  }
  if (count == 0) throw DatasetError(path + ": the file is empty");
  if (count > kMaxDatasetValues) {
    throw DatasetError(path + ": holds " + std::to_string(count) +
                       " values, more than any dataset (2^28, datasets/schema.py): not a dataset "
                       "file");
  }

  std::vector<T> values(static_cast<std::size_t>(count));
  char* at = reinterpret_cast<char*>(values.data());
  for (long long done = 0; done < bytes;) {
    const ssize_t got = ::read(fd, at + done, static_cast<std::size_t>(bytes - done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw unreadable(path, errno);
    if (got == 0) {
      throw DatasetError(path + ": read failed after " + std::to_string(done) + " of " +
                         std::to_string(bytes) + " bytes (the file shrank)");
    }
    done += got;
  }
  return values;
}

template std::vector<std::int32_t> read_binary_file(const std::string&, long long);
template std::vector<float> read_binary_file(const std::string&, long long);

std::string dataset_path(const std::string& default_dir, const std::string& case_name) {
  const char* env = std::getenv("LAB_DATA_DIR");
  const std::string dir = env && *env ? env : default_dir;
  return dir + "/" + case_name + ".bin";
}

}  // namespace harness
