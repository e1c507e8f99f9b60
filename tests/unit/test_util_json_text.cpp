// util::json_text: dump() that does not throw on bytes that are not UTF-8.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "util/json_text.h"

using dcukit::util::json_text;

TEST(UtilJsonText, ValidTextIsWrittenAsDumpWritesIt) {
  const nlohmann::json j = {{"name", "K100_AI"}, {"temp", 41.5}, {"list", {1, 2}}, {"utf8", "海光"}};
  EXPECT_EQ(json_text(j), j.dump());
  EXPECT_EQ(json_text(j, 2), j.dump(2));
}

TEST(UtilJsonText, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  nlohmann::ordered_json j;
  j["card"] = std::string("BW\xA4" "1000");  // a GBK byte from a pasted terminal
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  std::string text;
  ASSERT_NO_THROW(text = json_text(j));
  EXPECT_EQ(text, "{\"card\":\"BW\xEF\xBF\xBD" "1000\"}");
  EXPECT_EQ(nlohmann::json::parse(text)["card"], "BW\xEF\xBF\xBD" "1000");  // and it reads back
}
