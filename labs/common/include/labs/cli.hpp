// A small `--name value` command-line reader for the lab programs, with errors
// that list the accepted options.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `options` maps each accepted name (without --) to its help text; names listed
  // in `flags` take no value.
  Args(int argc, char** argv, std::map<std::string, std::string> options,
       std::vector<std::string> flags = {});
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  long long get_int(const std::string& name, long long fallback) const;
  std::string usage() const;

 private:
  std::map<std::string, std::string> options_;
  std::map<std::string, std::string> values_;
  std::string program_;
};

}  // namespace harness
