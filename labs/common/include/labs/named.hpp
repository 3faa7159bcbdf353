// Finding a lab's variant (or case) by name, with an error listing the known names.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

// `table` holds records with a `const char* name`; `what` is "variant", "case"...
template <class Record>
const Record& find_by_name(const std::vector<Record>& table, const std::string& name,
                           const char* what = "variant") {
  std::string known;
  for (const Record& r : table) {
    if (name == r.name) return r;
    known += (known.empty() ? "" : ", ") + std::string(r.name);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + name + "'; known: " + known);
}

// The names in `table`, then `more`: what --variant takes, as its help lists it.
template <class Record>
std::vector<std::string> names_of(const std::vector<Record>& table,
                                  const std::vector<std::string>& more = {}) {
  std::vector<std::string> names;
  for (const Record& r : table) names.emplace_back(r.name);
  names.insert(names.end(), more.begin(), more.end());
  return names;
}

}  // namespace harness
