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

}  // namespace harness
