// A small `--name value` command-line reader for the lab programs, with errors
// that name the option and the rule, and a help that shows every option's value
// and default.
#pragma once
#include <climits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One accepted option, as the help shows it: `--name VALUE  help: choices (default:
// fallback)`.
struct Option {
  std::string name;   // without the leading --
  std::string value;  // the value's placeholder, e.g. "N" or "FILE"; empty: a flag
  std::string help;
  std::string fallback;  // what applies without the option; empty: the help shows none
  // The values it takes, when they can be listed (e.g. the variants): the help
  // lists them, and `--help --format json` gives them to other programs.
  std::vector<std::string> choices = {};
};

class Args {
 public:
  // `--help` and `-h` are always accepted. `notes` ends the help (e.g. the exit
  // statuses). Throws UsageError for an unknown option, a missing value, a value
  // given to a flag, or an argument that is no option.
  Args(int argc, char** argv, std::vector<Option> options, std::string notes = "");
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  // The value as a base-10 whole number from min to max (`fallback`, unchecked,
  // when the option is absent): never wraps, never reads 010 as octal.
  long long get_int(const std::string& name, long long fallback, long long min = LLONG_MIN,
                    long long max = LLONG_MAX) const;
  // A count or a size: from 1 to INT_MAX.
  int get_positive(const std::string& name, int fallback) const;
  // A power of two from min to max (a block size), and the message says so.
  int get_power_of_two(const std::string& name, int fallback, int min, int max) const;
  // The value, which must be one of the option's choices.
  std::string get_choice(const std::string& name, const std::string& fallback) const;
  // Refuses `a` and `b` given together, saying `why`.
  void forbid_together(const std::string& a, const std::string& b, const std::string& why) const;
  std::string usage() const;
  // The options as one JSON document, for other programs (grader sweep):
  // {"program": ..., "options": [{"name", "value", "help", "default", "choices"}]}.
  std::string usage_json(const std::string& program) const;

 private:
  std::vector<Option> options_;
  std::string notes_;
  std::map<std::string, std::string> values_;
  std::string program_;
};

}  // namespace harness
