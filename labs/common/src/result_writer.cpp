#include "labs/result_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace harness {

namespace {

const std::vector<std::string> kFormats = {"table", "csv", "json"};

}  // namespace

Option format_option() {
  return {"format", "FORMAT", "how results are printed", "table", kFormats};
}

Format parse_format(const std::string& text) {
  if (text == "table") return Format::Table;
  if (text == "csv") return Format::Csv;
  if (text == "json") return Format::Json;
  throw UsageError("--format must be one of table, csv, json, not '" + text + "'");
}

Cell Cell::shown_as(std::string text) const {
  Cell c = *this;
  c.shown_ = std::move(text);
  return c;
}

Column::Column(std::string key, int width) : key_(std::move(key)), width_(width) { title_ = key_; }

Column& Column::titled(std::string title) {
  title_ = std::move(title);
  return *this;
}

Column& Column::fixed(int digits) {
  digits_ = digits;
  return *this;
}

Column& Column::suffix(std::string text) {
  suffix_ = std::move(text);
  return *this;
}

Column& Column::missing(std::string text) {
  missing_ = std::move(text);
  return *this;
}

Column& Column::gap(std::string text) {
  gap_ = std::move(text);
  return *this;
}

std::string Column::gap_at(std::size_t index) const {
  if (gap_) return *gap_;
  return index == 0 ? "" : " ";
}

std::string Column::padded(const std::string& text) const {
  const std::size_t width = static_cast<std::size_t>(width_ < 0 ? -width_ : width_);
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return width_ < 0 ? text + fill : fill + text;
}

std::string Column::table_text(const Cell& cell) const {
  if (cell.shown()) return padded(*cell.shown());
  std::string text;
  if (const auto* i = std::get_if<long long>(&cell.value())) {
    text = std::to_string(*i) + suffix_;
  } else if (const auto* d = std::get_if<double>(&cell.value())) {
    text = (digits_ >= 0 ? str_printf("%.*f", digits_, *d) : str_printf("%g", *d)) + suffix_;
  } else if (const auto* s = std::get_if<std::string>(&cell.value())) {
    text = *s + suffix_;
  } else {
    text = missing_;
  }
  return padded(text);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      // \n, \t and \r by name, as people write them; other control characters by number.
      const char* named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : nullptr;
      out += named ? std::string(named) : str_printf("\\u%04x", static_cast<unsigned>(c));
    } else {
      out += c;  // UTF-8 passes through
    }
  }
  return out + "\"";
}

std::string number_text(double v) {
  if (!std::isfinite(v)) return "";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string csv_value(const Cell& cell) {
  if (const auto* i = std::get_if<long long>(&cell.value())) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell.value())) return number_text(*d);
  if (const auto* s = std::get_if<std::string>(&cell.value())) return csv_field(*s);
  return "";
}

std::string json_value(const Cell& cell) {
  if (const auto* i = std::get_if<long long>(&cell.value())) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell.value())) {
    const std::string text = number_text(*d);
    return text.empty() ? "null" : text;
  }
  if (const auto* s = std::get_if<std::string>(&cell.value())) return json_string(*s);
  return "null";
}

std::string str_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

ResultWriter::ResultWriter(std::string program, Format format)
    : ResultWriter(std::move(program), format, std::cout, std::cerr) {}

ResultWriter::ResultWriter(std::string program, Format format, std::ostream& out,
                           std::ostream& side)
    : program_(std::move(program)), format_(format), out_(out), side_(side) {}

void ResultWriter::side_line(const std::string& text) {
  (format_ == Format::Csv ? side_ : out_) << text << '\n';
}

void ResultWriter::device(const std::string& description) {
  device_ = description;
  if (format_ != Format::Json) side_line("device: " + description);
}

void ResultWriter::context(const std::string& text, const Fields& fields) {
  if (format_ != Format::Json) {
    side_line(text);
    return;
  }
  for (const auto& [key, value] : fields) {
    bool replaced = false;
    for (auto& field : context_) {
      if (field.first == key) {
        field.second = value;
        replaced = true;
      }
    }
    if (!replaced) context_.emplace_back(key, value);
  }
}

void ResultWriter::note(const std::string& text) {
  if (format_ == Format::Json) {
    notes_.push_back(text);
  } else {
    side_line(text);
  }
}

void ResultWriter::table(std::vector<Column> columns, TableHeader header) {
  if (has_table_) throw std::logic_error("a program run prints one table");
  has_table_ = true;
  columns_ = std::move(columns);
  if (format_ == Format::Table && header == TableHeader::Shown) {
    std::string line;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      line += columns_[i].gap_at(i) + columns_[i].padded(columns_[i].title());
    }
    out_ << line << '\n';
  } else if (format_ == Format::Csv) {
    std::string line;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      line += (i ? "," : "") + csv_field(columns_[i].key());
    }
    out_ << line << '\n';
  }
}

void ResultWriter::row(std::vector<Cell> cells) {
  if (!has_table_) throw std::logic_error("a row before its table");
  if (cells.size() > columns_.size()) throw std::logic_error("a row with more cells than columns");
  std::string line;
  switch (format_) {
    case Format::Table:
      for (std::size_t i = 0; i < cells.size(); ++i) {
        line += columns_[i].gap_at(i) + columns_[i].table_text(cells[i]);
      }
      out_ << line << '\n';
      break;
    case Format::Csv:
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        line += (i ? "," : "") + (i < cells.size() ? csv_value(cells[i]) : std::string());
      }
      out_ << line << '\n';
      break;
    case Format::Json:
      cells.resize(columns_.size());
      rows_.push_back(std::move(cells));
      break;
  }
}

void ResultWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (format_ == Format::Json) {
    std::string doc = "{\n  \"program\": " + json_string(program_) +
                      ",\n  \"device\": " + (device_ ? json_string(*device_) : "null") +
                      ",\n  \"context\": {";
    for (std::size_t i = 0; i < context_.size(); ++i) {
      doc +=
          (i ? ", " : "") + json_string(context_[i].first) + ": " + json_value(context_[i].second);
    }
    doc += "},\n  \"columns\": [";
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      doc += (i ? ", " : "") + json_string(columns_[i].key());
    }
    doc += "],\n  \"rows\": [";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      doc += std::string(r ? "," : "") + "\n    {";
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        doc += (i ? ", " : "") + json_string(columns_[i].key()) + ": " + json_value(rows_[r][i]);
      }
      doc += "}";
    }
    doc += rows_.empty() ? "],\n  \"notes\": [" : "\n  ],\n  \"notes\": [";
    for (std::size_t i = 0; i < notes_.size(); ++i) {
      doc += (i ? ", " : "") + json_string(notes_[i]);
    }
    doc += "],\n  \"error\": " + (error_ ? json_string(*error_) : std::string("null")) + "\n}\n";
    out_ << doc;
  }
  out_.flush();
}

void ResultWriter::fail(const std::string& error) {
  error_ = error;
  finish();
}

}  // namespace harness
