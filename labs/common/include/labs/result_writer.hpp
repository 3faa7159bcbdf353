// What a lab program prints, in the format its --format option asks for: a table
// for people (the default), CSV, or one JSON document for other programs (the
// grader's sweep reads it). A program prints every line through one ResultWriter,
// so that CSV and JSON stay parseable: in CSV, lines that are no row go to stderr;
// in JSON, they go into the document.
//
//   csv:  a header line of the columns' keys, then one line per row (RFC 4180 quoting)
//   json: {"program": ..., "device": ..., "context": {...}, "columns": [...],
//          "rows": [{key: value, ...}, ...], "notes": [...], "error": ...}
//
// In both, numbers are numbers, printed in full (the shortest text that reads back
// as the same double), an empty cell is empty (csv) or null (json), and so is a
// time that was not measured (NaN).
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "labs/cli.hpp"

namespace harness {

enum class Format { Table, Csv, Json };

// The --format option that every program printing rows takes (run_program adds it).
Option format_option();
// "table", "csv" or "json"; anything else is a UsageError naming --format.
Format parse_format(const std::string& text);

// One value of a row: empty, a whole number, a real or a text. `shown_as` gives
// the table a text of its own (e.g. "4096 x 256 = 1048576" for the number).
class Cell {
 public:
  // Implicit, so that a row is written as its values: {name, blocks, ms, "ok"}.
  Cell() = default;
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Cell(T v) : value_(static_cast<long long>(v)) {}
  Cell(double v) : value_(v) {}
  Cell(std::string v) : value_(std::move(v)) {}
  Cell(const char* v) : value_(std::string(v)) {}

  Cell shown_as(std::string text) const;

  bool empty() const { return std::holds_alternative<std::monostate>(value_); }
  const std::variant<std::monostate, long long, double, std::string>& value() const {
    return value_;
  }
  const std::optional<std::string>& shown() const { return shown_; }

 private:
  std::variant<std::monostate, long long, double, std::string> value_;
  std::optional<std::string> shown_;
};

// One column. The key names it in CSV and JSON: lower_snake_case, its unit last
// (time_ms, gbps, gflops; ratios and percentages say so: vs_cpu, copy_pct). The
// rest says how the table shows it.
class Column {
 public:
  // Right-aligned in `width` characters, left-aligned in -width when negative.
  explicit Column(std::string key, int width = 0);
  Column& titled(std::string title);  // the table's header, when not the key
  Column& fixed(int digits);          // a real with this many digits after the point (else %g)
  Column& suffix(std::string text);   // after a value, inside the width: "x", "%"
  Column& missing(std::string text);  // what an empty cell shows: "-", "auto" (else nothing)
  Column& gap(std::string text);      // what comes before the cell (else a space, none first)

  const std::string& key() const { return key_; }
  const std::string& title() const { return title_; }
  // The gap before this column when it is the index-th.
  std::string gap_at(std::size_t index) const;
  // The cell's text in the table, padded to the width.
  std::string table_text(const Cell& cell) const;
  std::string padded(const std::string& text) const;

 private:
  std::string key_, title_;
  int width_ = 0;
  int digits_ = -1;
  std::string suffix_, missing_;
  std::optional<std::string> gap_;
};

// The field values of CSV and JSON.
std::string csv_field(const std::string& text);  // quoted when it holds , " CR or LF
std::string json_string(const std::string& text);
std::string number_text(double v);  // shortest round trip; "" when not finite
std::string csv_value(const Cell& cell);
std::string json_value(const Cell& cell);

// printf into a string, for composing lines.
std::string str_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

enum class TableHeader { Shown, Hidden };

class ResultWriter {
 public:
  using Fields = std::vector<std::pair<std::string, Cell>>;

  ResultWriter(std::string program, Format format);
  // For tests: where rows (out) and, in CSV, the other lines (side) go.
  ResultWriter(std::string program, Format format, std::ostream& out, std::ostream& side);

  Format format() const { return format_; }
  // The `device: ...` line; the document's "device".
  void device(const std::string& description);
  // A line of text (`text`, e.g. "data: x.bin, 8 samples") whose values are `fields`:
  // the table prints the line, JSON records the fields in "context".
  void context(const std::string& text, const Fields& fields);
  // A line of text with no values to record (a footnote, why a result is wrong):
  // the table prints it, JSON keeps it in "notes".
  void note(const std::string& text);
  // Starts the one table of the run: its header line (unless hidden), or CSV's.
  void table(std::vector<Column> columns, TableHeader header = TableHeader::Shown);
  // One row, its cells in the columns' order; missing trailing cells are empty,
  // and the table leaves them out of the line (no trailing gap).
  void row(std::vector<Cell> cells);
  // Ends the output: JSON writes the document. Once; later calls do nothing.
  void finish();
  // Ends the output of a run that failed: JSON writes the document with `error`.
  void fail(const std::string& error);

 private:
  void side_line(const std::string& text);

  std::string program_;
  Format format_;
  std::ostream& out_;
  std::ostream& side_;
  std::optional<std::string> device_;
  Fields context_;
  std::vector<Column> columns_;
  bool has_table_ = false;
  std::vector<std::vector<Cell>> rows_;  // JSON only: written at the end
  std::vector<std::string> notes_;
  std::optional<std::string> error_;
  bool finished_ = false;
};

}  // namespace harness
