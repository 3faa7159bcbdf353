#include "labs/cli.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <system_error>
#include <utility>

#include "labs/result_writer.hpp"

namespace harness {

namespace {

const Option* find_option(const std::vector<Option>& options, const std::string& name) {
  const auto it =
      std::find_if(options.begin(), options.end(), [&](const Option& o) { return o.name == name; });
  return it == options.end() ? nullptr : &*it;
}

// "a, b, or c", as the help has always listed the variants.
std::string listed(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += items.size() > 2 ? ", " : " ";
    if (i > 0 && i + 1 == items.size()) text += "or ";
    text += items[i];
  }
  return text;
}

std::string help_text(const Option& o) {
  if (o.choices.empty()) return o.help;
  return o.help.empty() ? listed(o.choices) : o.help + ": " + listed(o.choices);
}

// `text`, the value of --name, as a base-10 whole number (from_chars: no leading blanks
// or '+', never octal); *fits is false for one past long long.
long long whole_number(const std::string& name, const std::string& text, bool* fits) {
  long long v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error == std::errc::invalid_argument || end != text.data() + text.size()) {
    throw UsageError("--" + name + " takes a whole number, not '" + text + "'");
  }
  *fits = error != std::errc::result_out_of_range;
  return v;
}

}  // namespace

Args::Args(int argc, char** argv, std::vector<Option> options, std::string notes)
    : options_(std::move(options)),
      notes_(std::move(notes)),
      program_(argc > 0 ? argv[0] : "program") {
  options_.push_back({"help", "", "print this help", ""});
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h") arg = "--help";
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'\n" + usage());
    std::string name = arg.substr(2);
    const auto eq = name.find('=');
    if (eq != std::string::npos) name = name.substr(0, eq);
    // The name is checked first: a misspelt last option is unknown, not short of a value.
    const Option* option = find_option(options_, name);
    if (!option) throw UsageError("unknown option --" + name + "\n" + usage());
    std::string value = "1";
    if (option->value.empty()) {
      if (eq != std::string::npos) throw UsageError("--" + name + " takes no value");
    } else if (eq != std::string::npos) {
      value = arg.substr(2 + eq + 1);
    } else {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value (" + option->value + ")");
      value = argv[++i];
    }
    values_[name] = value;
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Args::get_int(const std::string& name, long long fallback, long long min,
                        long long max) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  bool fits = true;
  const long long v = whole_number(name, it->second, &fits);
  if (!fits || v < min || v > max) {
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    throw UsageError("--" + name + " must be " +
                     (min == 1 ? "positive (" + range + ")" : "from " + range) + ", not " +
                     it->second);
  }
  return v;
}

int Args::get_positive(const std::string& name, int fallback) const {
  return static_cast<int>(get_int(name, fallback, 1, INT_MAX));
}

int Args::get_power_of_two(const std::string& name, int fallback, int min, int max) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  bool fits = true;
  const long long v = whole_number(name, it->second, &fits);
  if (!fits || v < min || v > max || (v & (v - 1)) != 0) {
    throw UsageError("--" + name + " must be a power of two from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not " + it->second);
  }
  return static_cast<int>(v);
}

std::string Args::get_choice(const std::string& name, const std::string& fallback) const {
  const std::string value = get(name, fallback);
  const Option* option = find_option(options_, name);
  if (!option || option->choices.empty()) return value;
  const auto& choices = option->choices;
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  std::string known;
  for (const std::string& c : choices) known += (known.empty() ? "" : ", ") + c;
  throw UsageError("--" + name + " must be one of " + known + ", not '" + value + "'");
}

void Args::forbid_together(const std::string& a, const std::string& b,
                           const std::string& why) const {
  if (has(a) && has(b)) throw UsageError("--" + a + " and --" + b + " exclude each other: " + why);
}

std::string Args::usage() const {
  std::vector<std::pair<std::string, std::string>> rows;
  std::size_t width = 0;
  for (const Option& o : options_) {
    std::string left = (o.name == "help" ? "-h, --" : "--") + o.name;
    if (!o.value.empty()) left += " " + o.value;
    std::string right = help_text(o);
    if (!o.fallback.empty()) right += " (default: " + o.fallback + ")";
    width = std::max(width, left.size());
    rows.emplace_back(std::move(left), std::move(right));
  }
  std::ostringstream out;
  out << "usage: " << program_ << " [options]\n";
  for (const auto& [left, right] : rows) {
    out << "  " << left << std::string(width - left.size() + 2, ' ') << right << "\n";
  }
  out << notes_;
  return out.str();
}

std::string Args::usage_json(const std::string& program) const {
  std::string doc = "{\"program\": " + json_string(program) + ", \"options\": [";
  for (std::size_t i = 0; i < options_.size(); ++i) {
    const Option& o = options_[i];
    doc += std::string(i ? "," : "") + "\n  {\"name\": " + json_string(o.name) +
           ", \"value\": " + (o.value.empty() ? "null" : json_string(o.value)) +
           ", \"help\": " + json_string(help_text(o)) +
           ", \"default\": " + (o.fallback.empty() ? "null" : json_string(o.fallback)) +
           ", \"choices\": [";
    for (std::size_t c = 0; c < o.choices.size(); ++c) {
      doc += (c ? ", " : "") + json_string(o.choices[c]);
    }
    doc += "]}";
  }
  return doc + "\n]}\n";
}

}  // namespace harness
