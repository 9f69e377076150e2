#include "scenario/scenario_source.hpp"

#include "scenario/scenario_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <system_error>
#include <utility>

namespace simgrad::scenario::detail {

namespace {

// Deep enough for any scenario, shallow enough that recursion cannot exhaust the stack.
constexpr int max_depth = 256;

// A recursive-descent JSON parser (RFC 8259, no extensions) that tracks line and column.
class PositionParser {
public:
  PositionParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  // Parses the one top-level value and checks nothing but whitespace follows it.
  void parse_document(nlohmann::json& value, SourceNode& source) {
    skip_bom();
    skip_whitespace();
    parse_value(value, source, "", 0);
    skip_whitespace();
    if (!at_end()) error("unexpected " + describe_next() + " after the end of the JSON value");
  }

private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  // Moves one byte forward; columns count characters, so UTF-8 continuation bytes don't count.
  void advance() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;
    }
  }

  [[noreturn]] void error_at(int line, int column, std::string message,
                             std::string path = {}) const {
    throw ScenarioError(name_, line, column, std::move(path), std::move(message));
  }
  [[noreturn]] void error(std::string message) const {
    error_at(line_, column_, std::move(message));
  }

  // Names what comes next in words, for "expected X, got Y".
  std::string describe_next() const {
    if (at_end()) return "end of file";
    const unsigned char c = static_cast<unsigned char>(peek());
    if (c == '"') return "a string";
    if (c == '\'') return "a single quote (JSON strings take double quotes)";
    if (c == '-' || std::isdigit(c)) return "a number";
    if (std::isalpha(c)) {
      std::size_t end = pos_;
      while (end < text_.size() && end - pos_ < 24 &&
             std::isalnum(static_cast<unsigned char>(text_[end])))
        ++end;
      return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
    }
    if (std::isprint(c)) return std::string("'") + static_cast<char>(c) + "'";
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02X", c);
    return hex;
  }

  void skip_bom() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  void skip_whitespace() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      advance();
  }

  // Consumes `c` or reports what was expected instead.
  void expect(char c, std::string_view what) {
    if (peek() != c) error("expected " + std::string(what) + ", got " + describe_next());
    advance();
  }

  void parse_value(nlohmann::json& value, SourceNode& source, const std::string& path,
                   int depth) {
    if (depth > max_depth) error("nested deeper than " + std::to_string(max_depth) + " levels");
    source.line = line_;
    source.column = column_;
    if (source.key_line == 0) {
      source.key_line = line_;
      source.key_column = column_;
    }
    const char c = peek();
    if (c == '{') return parse_object(value, source, path, depth);
    if (c == '[') return parse_array(value, source, path, depth);
    if (c == '"') {
      value = parse_string();
      return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(value);
    if (c == '/') error("comments are not allowed in JSON");
    if (parse_literal("true")) value = true;
    else if (parse_literal("false")) value = false;
    else if (parse_literal("null")) value = nullptr;
    else error("expected a value, got " + describe_next());
  }

  bool parse_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    const std::size_t after = pos_ + word.size();
    if (after < text_.size() && std::isalnum(static_cast<unsigned char>(text_[after])))
      return false;  // "nullx" is not null followed by junk, it is one bad word
    for (std::size_t i = 0; i < word.size(); ++i) advance();
    return true;
  }

  void parse_object(nlohmann::json& value, SourceNode& source, const std::string& path,
                    int depth) {
    value = nlohmann::json::object();
    advance();  // '{'
    skip_whitespace();
    if (peek() == '}') {
      advance();
      return;
    }
    while (true) {
      skip_whitespace();
      if (peek() == '}') error("trailing comma before '}'");
      if (peek() != '"') error("expected a field name in double quotes, got " + describe_next());
      SourceNode member;
      member.key_line = line_;
      member.key_column = column_;
      member.key = parse_string();
      const std::string member_path = field_path(path, member.key);
      if (value.contains(member.key)) {
        const auto first = std::find_if(source.children.begin(), source.children.end(),
                                        [&](const SourceNode& s) { return s.key == member.key; });
        error_at(member.key_line, member.key_column,
                 "duplicate field (first at line " + std::to_string(first->key_line) + ")",
                 member_path);
      }
      skip_whitespace();
      expect(':', "':' after the field name");
      skip_whitespace();
      nlohmann::json member_value;
      parse_value(member_value, member, member_path, depth + 1);
      value.emplace(member.key, std::move(member_value));
      source.children.push_back(std::move(member));
      skip_whitespace();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == '"') error("missing ',' between fields");
      expect('}', "',' or '}' after a field");
      break;
    }
    // Same order as the json object's std::map, so lookups can binary-search.
    std::sort(source.children.begin(), source.children.end(),
              [](const SourceNode& a, const SourceNode& b) { return a.key < b.key; });
  }

  void parse_array(nlohmann::json& value, SourceNode& source, const std::string& path,
                   int depth) {
    value = nlohmann::json::array();
    advance();  // '['
    skip_whitespace();
    if (peek() == ']') {
      advance();
      return;
    }
    while (true) {
      skip_whitespace();
      if (peek() == ']') error("trailing comma before ']'");
      SourceNode element;
      nlohmann::json element_value;
      parse_value(element_value, element, index_path(path, value.size()), depth + 1);
      value.push_back(std::move(element_value));
      source.children.push_back(std::move(element));
      skip_whitespace();
      if (peek() == ',') {
        advance();
        continue;
      }
      constexpr std::string_view value_starts = "{[\"-0123456789tfn";
      if (!at_end() && value_starts.find(peek()) != std::string_view::npos)
        error("missing ',' between array elements");
      expect(']', "',' or ']' after an array element");
      break;
    }
  }

  // Four hex digits after "\u", as a UTF-16 code unit.
  unsigned parse_hex4() {
    unsigned unit = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned digit;
      if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
      else error("invalid \\u escape: expected 4 hex digits");
      unit = unit * 16 + digit;
      advance();
    }
    return unit;
  }

  // A \u escape (the "\u" already consumed), joining surrogate pairs into one code point.
  unsigned parse_unicode_escape() {
    const unsigned unit = parse_hex4();
    if (unit >= 0xDC00 && unit <= 0xDFFF) error("invalid \\u escape: unpaired low surrogate");
    if (unit < 0xD800 || unit > 0xDBFF) return unit;
    if (text_.substr(pos_, 2) != "\\u") error("invalid \\u escape: unpaired high surrogate");
    advance();
    advance();
    const unsigned low = parse_hex4();
    if (low < 0xDC00 || low > 0xDFFF) error("invalid \\u escape: unpaired high surrogate");
    return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }

  static void append_utf8(std::string& out, unsigned code_point) {
    if (code_point < 0x80) {
      out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
      out += static_cast<char>(0xC0 | (code_point >> 6));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
      out += static_cast<char>(0xE0 | (code_point >> 12));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code_point >> 18));
      out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
  }

  // Length of the well-formed UTF-8 sequence at pos_ (no overlongs, no surrogates), or 0.
  std::size_t utf8_sequence_length() const {
    const auto byte = [&](std::size_t i) {
      return pos_ + i < text_.size() ? static_cast<unsigned char>(text_[pos_ + i]) : 0u;
    };
    const unsigned b0 = byte(0);
    const auto continuation = [&](std::size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
      return byte(i) >= lo && byte(i) <= hi;
    };
    if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
      const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80;
      const unsigned hi = b0 == 0xED ? 0x9F : 0xBF;
      return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
      const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80;
      const unsigned hi = b0 == 0xF4 ? 0x8F : 0xBF;
      return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
    }
    return 0;
  }

  std::string parse_string() {
    const int start_line = line_;
    const int start_column = column_;
    advance();  // opening quote
    std::string out;
    while (true) {
      if (at_end()) error_at(start_line, start_column, "unterminated string");
      const unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        advance();
        return out;
      }
      if (c == '\n' || c == '\r') error("line break inside a string (write \\n instead)");
      if (c < 0x20) error("control character inside a string (escape it as \\u00XX)");
      if (c == '\\') {
        advance();
        const char escape = peek();
        if (escape == 'u') {
          advance();
          append_utf8(out, parse_unicode_escape());
          continue;
        }
        static constexpr std::string_view from = "\"\\/bfnrt";
        static constexpr std::string_view to = "\"\\/\b\f\n\r\t";
        const std::size_t which = from.find(escape);
        if (at_end() || which == std::string_view::npos)
          error("invalid escape in string: \\" + describe_next());
        out += to[which];
        advance();
        continue;
      }
      if (c < 0x80) {
        out += static_cast<char>(c);
        advance();
        continue;
      }
      const std::size_t length = utf8_sequence_length();
      if (length == 0) error("invalid UTF-8 inside a string");
      for (std::size_t i = 0; i < length; ++i) {
        out += peek();
        advance();
      }
    }
  }

  // Consumes a run of digits, returning how many there were.
  std::size_t digits() {
    std::size_t count = 0;
    while (peek() >= '0' && peek() <= '9') {
      advance();
      ++count;
    }
    return count;
  }

  // Numbers as nlohmann's own parser stores them: non-negative integers unsigned, negative
  // ones signed, anything with a fraction or exponent (or too big for 64 bits) a double.
  void parse_number(nlohmann::json& value) {
    const std::size_t start = pos_;
    const int start_column = column_;
    const auto invalid = [&] {
      std::size_t end = pos_;
      while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                                    text_[end] == '.' || text_[end] == '-' || text_[end] == '+'))
        ++end;
      error_at(line_, start_column,
               "invalid number '" + std::string(text_.substr(start, end - start)) + "'");
    };
    if (peek() == '-') advance();
    const bool leading_zero = peek() == '0';
    const std::size_t integer_digits = digits();
    if (integer_digits == 0 || (leading_zero && integer_digits > 1)) invalid();
    bool integral = true;
    if (peek() == '.') {
      advance();
      integral = false;
      if (digits() == 0) invalid();
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      integral = false;
      if (peek() == '+' || peek() == '-') advance();
      if (digits() == 0) invalid();
    }
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '.') invalid();
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      if (*first == '-') {
        std::int64_t signed_value;
        if (std::from_chars(first, last, signed_value).ec == std::errc{}) {
          value = signed_value;
          return;
        }
      } else {
        std::uint64_t unsigned_value;
        if (std::from_chars(first, last, unsigned_value).ec == std::errc{}) {
          value = unsigned_value;
          return;
        }
      }
    }
    double real;
    if (std::from_chars(first, last, real).ec == std::errc{}) {
      value = real;
      return;
    }
    // Out of range: nlohmann's parser rounds an underflow to zero or a subnormal and rejects
    // an overflow; its answer keeps the two parsers in agreement.
    const std::string_view token = text_.substr(start, pos_ - start);
    try {
      value = nlohmann::json::parse(token);
    } catch (const nlohmann::json::exception&) {
      error_at(line_, start_column, "number out of range: " + std::string(token));
    }
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// Keys that read unambiguously after a dot.
bool is_plain_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

SourceNode* SourceNode::member(std::string_view name) {
  const auto it = std::lower_bound(
      children.begin(), children.end(), name,
      [](const SourceNode& node, std::string_view wanted) { return node.key < wanted; });
  return it != children.end() && it->key == name ? &*it : nullptr;
}

void parse_with_positions(std::string_view text, ScenarioDocument& document) {
  PositionParser(text, document.name).parse_document(document.value, document.source);
}

std::string field_path(std::string_view parent, std::string_view key) {
  if (!is_plain_key(key)) return std::string(parent) + "[" +
           nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "]";
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

std::string index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

}  // namespace simgrad::scenario::detail
