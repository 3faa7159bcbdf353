// What the lab programs print for --format table, csv and json: CSV quoting, JSON
// escaping, numbers, and the table kept as it was, without a GPU (label `harness`).
#include "labs/result_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/cli.hpp"

namespace {

using harness::Cell;
using harness::Column;
using harness::Format;
using harness::ResultWriter;

std::vector<Column> columns() {
  return {Column("variant", -8), Column("blocks", 6).missing("auto"), Column("time_ms", 8).fixed(3),
          Column("vs_cpu", 7).fixed(1).suffix("x"), Column("check").gap("  ")};
}

struct Output {
  std::string out, side;
};

// A run of every kind of line, in `format`.
Output run(Format format) {
  std::ostringstream out, side;
  ResultWriter w("lab9_demo", format, out, side);
  w.device("Some GPU, sm_90");
  w.context("data: a \"b\".bin, 8 values", {{"data", "a \"b\".bin"}, {"n", 8}});
  w.table(columns());
  w.row({"global", 64, 1.5, 12.25, "ok"});
  w.row({"shared", Cell(), NAN, Cell(), "WRONG"});
  w.note("  shared: bin 0 expected 1, got 2");
  w.row({"a,b", 1, 0.1});  // no check: the table line ends at the last cell given
  w.finish();
  return {out.str(), side.str()};
}

TEST(ResultWriter, TheTableIsPaddedAsPrintfWould) {
  const Output o = run(Format::Table);
  EXPECT_EQ(o.out,
            "device: Some GPU, sm_90\n"
            "data: a \"b\".bin, 8 values\n"
            "variant  blocks  time_ms  vs_cpu  check\n"
            "global       64    1.500   12.2x  ok\n"
            "shared     auto      nan          WRONG\n"
            "  shared: bin 0 expected 1, got 2\n"
            "a,b           1    0.100\n");
  EXPECT_EQ(o.side, "");
}

TEST(ResultWriter, CsvIsAHeaderThenOneLinePerRowAndTheRestGoesToStderr) {
  const Output o = run(Format::Csv);
  EXPECT_EQ(o.out,
            "variant,blocks,time_ms,vs_cpu,check\n"
            "global,64,1.5,12.25,ok\n"
            "shared,,,,WRONG\n"
            "\"a,b\",1,0.1,,\n");
  EXPECT_EQ(o.side,
            "device: Some GPU, sm_90\n"
            "data: a \"b\".bin, 8 values\n"
            "  shared: bin 0 expected 1, got 2\n");
}

TEST(ResultWriter, JsonIsOneDocumentWithNumbersAsNumbers) {
  const Output o = run(Format::Json);
  EXPECT_EQ(o.out,
            "{\n"
            "  \"program\": \"lab9_demo\",\n"
            "  \"device\": \"Some GPU, sm_90\",\n"
            "  \"context\": {\"data\": \"a \\\"b\\\".bin\", \"n\": 8},\n"
            "  \"columns\": [\"variant\", \"blocks\", \"time_ms\", \"vs_cpu\", \"check\"],\n"
            "  \"rows\": [\n"
            "    {\"variant\": \"global\", \"blocks\": 64, \"time_ms\": 1.5, \"vs_cpu\": 12.25, "
            "\"check\": \"ok\"},\n"
            "    {\"variant\": \"shared\", \"blocks\": null, \"time_ms\": null, \"vs_cpu\": null, "
            "\"check\": \"WRONG\"},\n"
            "    {\"variant\": \"a,b\", \"blocks\": 1, \"time_ms\": 0.1, \"vs_cpu\": null, "
            "\"check\": null}\n"
            "  ],\n"
            "  \"notes\": [\"  shared: bin 0 expected 1, got 2\"],\n"
            "  \"error\": null\n"
            "}\n");
  EXPECT_EQ(o.side, "");
}

TEST(ResultWriter, AFailedRunStillEndsItsDocument) {
  std::ostringstream out, side;
  ResultWriter w("lab9_demo", Format::Json, out, side);
  w.fail("no NVIDIA driver or GPU found");
  w.finish();  // once only
  EXPECT_EQ(out.str(),
            "{\n  \"program\": \"lab9_demo\",\n  \"device\": null,\n  \"context\": {},\n"
            "  \"columns\": [],\n  \"rows\": [],\n  \"notes\": [],\n"
            "  \"error\": \"no NVIDIA driver or GPU found\"\n}\n");
}

TEST(ResultWriter, CellsShownAsTextKeepTheirValue) {
  std::ostringstream out, side;
  ResultWriter table("p", Format::Table, out, side);
  table.table({Column("variant", -14), Column("operations", 12)}, harness::TableHeader::Hidden);
  table.row({Cell("even_odd").shown_as("even_odd (A)"), Cell(4096).shown_as("64 x 64")});
  EXPECT_EQ(out.str(), "even_odd (A)        64 x 64\n");
  EXPECT_EQ(harness::json_value(Cell(4096).shown_as("64 x 64")), "4096");
  EXPECT_EQ(harness::csv_value(Cell("even_odd").shown_as("even_odd (A)")), "even_odd");
}

TEST(ResultWriter, GapsMakeSentencesOfRows) {
  std::ostringstream out, side;
  ResultWriter w("p", Format::Table, out, side);
  w.table({Column("index").gap("h_data["), Column("value").gap("] = ")},
          harness::TableHeader::Hidden);
  w.row({3, -7});
  EXPECT_EQ(out.str(), "h_data[3] = -7\n");
}

TEST(ResultWriter, OneTablePerRun) {
  std::ostringstream out, side;
  ResultWriter w("p", Format::Csv, out, side);
  EXPECT_THROW(w.row({1}), std::logic_error);
  w.table({Column("a")});
  EXPECT_THROW(w.row({1, 2}), std::logic_error);
  EXPECT_THROW(w.table({Column("b")}), std::logic_error);
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(harness::csv_field("plain text"), "plain text");
  EXPECT_EQ(harness::csv_field("4096 x 256, slice 32"), "\"4096 x 256, slice 32\"");
  EXPECT_EQ(harness::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(harness::csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(harness::csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(harness::csv_field(""), "");
}

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(harness::json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(harness::json_string("tab\tnew\nret\r"), "\"tab\\tnew\\nret\\r\"");
  EXPECT_EQ(harness::json_string(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(harness::json_string("\b\f"), "\"\\u0008\\u000c\"");
  EXPECT_EQ(harness::json_string("d\xc3\xa9j\xc3\xa0 / <ok>"), "\"d\xc3\xa9j\xc3\xa0 / <ok>\"");
}

TEST(NumberText, ShortestTextThatReadsBackTheSameDouble) {
  EXPECT_EQ(harness::number_text(0.1), "0.1");
  EXPECT_EQ(harness::number_text(849.5), "849.5");
  EXPECT_EQ(harness::number_text(100.0), "100");
  EXPECT_EQ(harness::number_text(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(harness::number_text(1e21), "1e+21");
  EXPECT_EQ(harness::number_text(2.5e-7), "2.5e-07");
  EXPECT_EQ(harness::number_text(NAN), "");
  EXPECT_EQ(harness::number_text(INFINITY), "");
  EXPECT_EQ(harness::json_value(Cell(-INFINITY)), "null");
  EXPECT_EQ(harness::json_value(Cell(-3)), "-3");
  EXPECT_EQ(harness::json_value(Cell(9007199254740993LL)), "9007199254740993");
  EXPECT_EQ(harness::json_value(Cell()), "null");
}

TEST(Format, TableCsvOrJson) {
  EXPECT_EQ(harness::parse_format("table"), Format::Table);
  EXPECT_EQ(harness::parse_format("csv"), Format::Csv);
  EXPECT_EQ(harness::parse_format("json"), Format::Json);
  EXPECT_THROW(harness::parse_format("xml"), harness::UsageError);
}

TEST(Format, TheOptionListsItsChoicesInTheHelpAndInJson) {
  const char* argv[] = {"lab9_demo", "--format", "xml"};
  const harness::Args args(3, const_cast<char**>(argv), {harness::format_option()});
  try {
    args.get_choice("format", "table");
    FAIL() << "xml accepted";
  } catch (const harness::UsageError& e) {
    EXPECT_STREQ(e.what(), "--format must be one of table, csv, json, not 'xml'");
  }
  EXPECT_NE(args.usage().find("--format FORMAT  how results are printed: table, csv, or json "
                              "(default: table)"),
            std::string::npos)
      << args.usage();
  EXPECT_EQ(args.usage_json("lab9_demo"),
            "{\"program\": \"lab9_demo\", \"options\": [\n"
            "  {\"name\": \"format\", \"value\": \"FORMAT\", \"help\": \"how results are printed: "
            "table, csv, or json\", \"default\": \"table\", \"choices\": [\"table\", \"csv\", "
            "\"json\"]},\n"
            "  {\"name\": \"help\", \"value\": null, \"help\": \"print this help\", \"default\": "
            "null, \"choices\": []}\n"
            "]}\n");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
