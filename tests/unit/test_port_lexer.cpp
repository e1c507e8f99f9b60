// The port lexer: comments, literals with prefixes, raw strings, preprocessor lines with
// continuations, CUDA launch brackets, and positions.
#include <gtest/gtest.h>

#include "port/lexer.h"

using dcukit::port::lex;
using dcukit::port::LexedFile;
using dcukit::port::Token;
using dcukit::port::TokenKind;

namespace {

std::vector<const Token*> of_kind(const LexedFile& f, TokenKind k) {
  std::vector<const Token*> out;
  for (const auto& t : f.tokens)
    if (t.kind == k) out.push_back(&t);
  return out;
}

bool has_number(const LexedFile& f, const std::string& text) {
  for (const auto& t : f.tokens)
    if (t.kind == TokenKind::number && t.text == text) return true;
  return false;
}

}  // namespace

TEST(PortLexer, CommentsHideTheirContent) {
  const auto f =
      lex("int a = 1; // tid % 32\n/* 0xffffffff\n   __shfl_sync */ int b;\n/* /* nested-looking */ int c;\n");
  const auto comments = of_kind(f, TokenKind::comment);
  ASSERT_EQ(comments.size(), 3u);
  EXPECT_EQ(comments[0]->text, "// tid % 32");
  EXPECT_EQ(comments[1]->line, 2);
  // A block comment ends at the first */: "/* /*" does not nest, so `int c` is code.
  EXPECT_EQ(comments[2]->text, "/* /* nested-looking */");
  EXPECT_FALSE(has_number(f, "32"));
  EXPECT_FALSE(has_number(f, "0xffffffff"));
  const auto ids = of_kind(f, TokenKind::identifier);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.back()->text, "c");
  EXPECT_EQ(ids.back()->line, 4);
}

TEST(PortLexer, LineCommentContinuedByBackslash) {
  const auto f = lex("// a comment \\\n   still the comment 32\nint x;\n");
  const auto comments = of_kind(f, TokenKind::comment);
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_NE(comments[0]->text.find("still the comment 32"), std::string::npos);
  EXPECT_FALSE(has_number(f, "32"));
}

TEST(PortLexer, StringAndCharacterLiteralsWithPrefixes) {
  const auto f =
      lex(R"(auto a = "tid % 32"; auto b = L"x\"y"; auto c = u8"32"; auto d = U'3'; auto e = '\''; auto g = u"z"s;)");
  const auto strings = of_kind(f, TokenKind::string);
  ASSERT_EQ(strings.size(), 4u);
  EXPECT_EQ(strings[0]->text, "\"tid % 32\"");
  EXPECT_EQ(strings[1]->text, "L\"x\\\"y\"");
  EXPECT_EQ(strings[2]->text, "u8\"32\"");
  EXPECT_EQ(strings[3]->text, "u\"z\"s");  // a user-defined literal suffix belongs to it
  const auto chars = of_kind(f, TokenKind::character);
  ASSERT_EQ(chars.size(), 2u);
  EXPECT_EQ(chars[0]->text, "U'3'");
  EXPECT_EQ(chars[1]->text, "'\\''");
  EXPECT_FALSE(has_number(f, "32"));
}

TEST(PortLexer, RawStringsKeepQuotesParensAndLines) {
  const std::string src =
      "auto s = R\"cu(asm(\"mov.u32 %0, 32;\") )\" still )cu\";\nint after = 32;\n"
      "auto t = LR\"(x\\\ny)\";\n";
  const auto f = lex(src);
  const auto strings = of_kind(f, TokenKind::string);
  ASSERT_EQ(strings.size(), 2u);
  EXPECT_TRUE(strings[0]->raw);
  EXPECT_EQ(strings[0]->text, "R\"cu(asm(\"mov.u32 %0, 32;\") )\" still )cu\"");
  // No splicing inside a raw string: the backslash-newline stays.
  EXPECT_EQ(strings[1]->text, "LR\"(x\\\ny)\"");
  EXPECT_TRUE(has_number(f, "32"));  // only the one after the raw string
  int numbers = 0;
  for (const auto& t : f.tokens) numbers += t.kind == TokenKind::number && t.text == "32";
  EXPECT_EQ(numbers, 1);
}

TEST(PortLexer, DirectivesWithContinuationsAndMacroBodies) {
  const std::string src =
      "  #  define REDUCE(v) \\\n"
      "    for (int o = 16; o > 0; o >>= 1) \\\n"
      "      v += __shfl_xor_sync(0xffffffff, v, o)\n"
      "int x = a # b;\n"
      "#include <cuda_runtime.h>\n"
      "#if defined(X) /* comment\n spanning */ && Y\n"
      "#endif\n";
  const auto f = lex(src);
  ASSERT_EQ(f.directives.size(), 4u);  // define, include, if, endif
  EXPECT_EQ(f.directives[0].name, "define");
  EXPECT_EQ(f.directives[0].line, 1);
  EXPECT_EQ(f.directives[0].last_line, 3);
  EXPECT_EQ(f.tokens[f.directives[0].first].text, "REDUCE");
  // Every token of the macro body belongs to the directive, with its own line.
  bool saw_mask = false;
  for (std::size_t i = f.directives[0].first; i < f.directives[0].end; ++i)
    if (f.tokens[i].text == "0xffffffff") {
      saw_mask = true;
      EXPECT_EQ(f.tokens[i].line, 3);
    }
  EXPECT_TRUE(saw_mask);
  // A # inside a line is not a directive; <...> after #include is one header name.
  EXPECT_EQ(f.directives[1].name, "include");
  EXPECT_EQ(f.tokens[f.directives[1].first].kind, TokenKind::header_name);
  EXPECT_EQ(f.tokens[f.directives[1].first].text, "<cuda_runtime.h>");
  // A block comment spanning lines does not end the directive: Y belongs to the #if.
  EXPECT_EQ(f.directives[2].name, "if");
  bool y_in_if = false;
  for (std::size_t i = f.directives[2].first; i < f.directives[2].end; ++i) y_in_if |= f.tokens[i].text == "Y";
  EXPECT_TRUE(y_in_if);
}

TEST(PortLexer, SpliceInsideAnIdentifier) {
  const auto f = lex("int cuda\\\nMalloc = 0;\n");
  const auto ids = of_kind(f, TokenKind::identifier);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[1]->text, "cudaMalloc");
  EXPECT_EQ(ids[1]->line, 1);
}

TEST(PortLexer, LaunchBracketsAndTemplateClosers) {
  const auto f = lex("k<<<grid, block, 0, s>>>(x); std::vector<std::vector<int>> v; a >> 5;");
  std::vector<std::string> puncts;
  for (const auto& t : f.tokens)
    if (t.kind == TokenKind::punct) puncts.push_back(t.text);
  EXPECT_EQ(puncts[0], "<<<");
  EXPECT_NE(std::find(puncts.begin(), puncts.end(), ">>>"), puncts.end());
  // Outside a launch, >> stays >>.
  EXPECT_EQ(std::count(puncts.begin(), puncts.end(), ">>"), 2);
}

TEST(PortLexer, NumbersWithSeparatorsSuffixesAndExponents) {
  const auto f = lex("x = 1'000'000 + 0xFFFFFFFFu + 1.5e-3f + 0x1p+4 + 32ull;");
  EXPECT_TRUE(has_number(f, "1'000'000"));
  EXPECT_TRUE(has_number(f, "0xFFFFFFFFu"));
  EXPECT_TRUE(has_number(f, "1.5e-3f"));
  EXPECT_TRUE(has_number(f, "0x1p+4"));
  EXPECT_TRUE(has_number(f, "32ull"));
}

TEST(PortLexer, LinesAndColumnsCountCodePoints) {
  const auto f = lex("// 中文注释\nint a; /* é */ int b = tid % 32;\n");
  const Token* b = nullptr;
  for (const auto& t : f.tokens)
    if (t.text == "32") b = &t;
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->line, 2);
  EXPECT_EQ(b->column, 30);  // é is one column
  EXPECT_EQ(f.line_count, 3);
  EXPECT_EQ(dcukit::port::line_text("// 中文注释\nint a;\n", lex("// 中文注释\nint a;\n"), 2), "int a;");
}

TEST(PortLexer, UnterminatedInputEnds) {
  const auto a = lex("/* never closed");
  ASSERT_EQ(a.tokens.size(), 1u);
  EXPECT_EQ(a.tokens[0].kind, TokenKind::comment);
  const auto b = lex("auto s = \"open\nint x;");
  EXPECT_EQ(b.tokens.back().text, ";");
  const auto c = lex("R\"(no end");
  EXPECT_EQ(c.tokens.back().kind, TokenKind::string);
}
