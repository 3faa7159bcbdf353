// Reading a --data file, without a GPU (label `harness`): each file that is no dataset
// is refused at once, with one line that names it and says what it is.
#include "labs/dataset.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

// A fresh folder of this test's, readable by everyone (the permission test reads as
// another user).
std::string fresh_folder() {
  std::string pattern = testing::TempDir() + "dataset_test.XXXXXX";
  const char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  chmod(pattern.c_str(), 0755);
  return pattern;
}

std::string write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// What read_binary_file<int32_t> throws for `path`; "" when it reads the file.
std::string refusal(const std::string& path, long long expected = -1) {
  try {
    harness::read_binary_file<std::int32_t>(path, expected);
  } catch (const harness::DatasetError& e) {
    return e.what();
  }
  return "";
}

class Dataset : public testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }
  const std::string dir_ = fresh_folder();
};

TEST_F(Dataset, AWholeFileIsRead) {
  const std::string path =
      write_file(dir_ + "/two.bin", std::string("\x01\0\0\0\xff\xff\xff\xff", 8));
  EXPECT_EQ(harness::read_binary_file<std::int32_t>(path, 2), (std::vector<std::int32_t>{1, -1}));
  EXPECT_EQ(harness::read_binary_file<std::int32_t>(path), (std::vector<std::int32_t>{1, -1}));
}

TEST_F(Dataset, AMissingFileIsGenerated) {
  EXPECT_EQ(refusal(dir_ + "/none.bin"),
            dir_ +
                "/none.bin: does not exist; generate it with `python3 -m datasets.generate` "
                "(see the lab README)");
}

TEST_F(Dataset, AFolderIsNamedAsOne) {
  EXPECT_EQ(refusal(dir_),
            dir_ + ": is a directory, not a dataset file: name one of its .bin files");
}

// Once waited for a writer that never came, with no message.
TEST_F(Dataset, AFifoIsRefusedWithoutWaiting) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(refusal(fifo),
            fifo + ": is not a regular file (a FIFO, a device or a socket): name a dataset file");
}

// A 20 GB file once grew the program to 16 GB of memory before its size was checked;
// this one (sparse, no disk) is refused by its size alone, with the case's count or without.
TEST_F(Dataset, AFileLargerThanAnyDatasetIsRefusedBeforeItIsRead) {
  const std::string path = dir_ + "/big.bin";
  const long long values = harness::kMaxDatasetValues + 1;
  ASSERT_EQ(truncate(write_file(path, "").c_str(), values * 4), 0);
  EXPECT_EQ(refusal(path), path +
                               ": holds 268435457 values, more than any dataset (2^28, "
                               "datasets/schema.py): not a dataset file");
  EXPECT_EQ(refusal(path, 1 << 24),
            path +
                ": holds 268435457 values, expected 16777216; regenerate it with "
                "`python3 -m datasets.generate`");
}

// Once advised regenerating the data, which cannot help.
TEST_F(Dataset, AnUnreadableFileSaysPermission) {
  const std::string path = write_file(dir_ + "/secret.bin", std::string(8, '\0'));
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  // Root reads any file: read it as nobody, in a child process, and hear its answer.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    if (geteuid() == 0 && setuid(65534) != 0) _exit(1);
    const std::string why = refusal(path);
    _exit(write(pipe_fds[1], why.data(), why.size()) == static_cast<ssize_t>(why.size()) ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string why;
  char buffer[512];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) why.append(buffer, got);
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the reading child failed";
  EXPECT_EQ(why, path + ": cannot be read: permission denied");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
