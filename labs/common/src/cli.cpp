#include "labs/cli.hpp"

#include <algorithm>
#include <sstream>

namespace harness {

Args::Args(int argc, char** argv, std::map<std::string, std::string> options,
           std::vector<std::string> flags)
    : options_(std::move(options)), program_(argc > 0 ? argv[0] : "program") {
  options_.emplace("help", "print this help");
  flags.push_back("help");
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'\n" + usage());
    std::string name = arg.substr(2), value = "1";
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (std::find(flags.begin(), flags.end(), name) == flags.end()) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value\n" + usage());
      value = argv[++i];
    }
    if (!options_.count(name)) throw UsageError("unknown option --" + name + "\n" + usage());
    values_[name] = value;
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Args::get_int(const std::string& name, long long fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(it->second, &used, 0);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " takes a whole number, not '" + it->second + "'");
}

std::string Args::usage() const {
  std::ostringstream o;
  o << "usage: " << program_ << " [options]\n";
  for (const auto& [name, help] : options_) o << "  --" << name << "  " << help << "\n";
  return o.str();
}

}  // namespace harness
