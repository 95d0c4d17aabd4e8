#pragma once
// Words filled into lines of at most `width` characters (bytes), continuation lines starting with `indent`, no newline
// after the last line. A Markdown code span (`...`) counts as one word, so that it never breaks across lines.
#include <string>
#include <vector>

namespace favorlab {

inline std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent = "") {
  std::vector<std::string> words;
  std::string word;
  bool in_code = false;
  for (char ch : text) {
    if (ch == '`') in_code = !in_code;
    if (ch == ' ' && !in_code) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  if (!word.empty()) words.push_back(word);
  std::string out, line;
  for (const std::string& w : words) {
    if (!line.empty() && line != indent && line.size() + 1 + w.size() > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + w;
  }
  return out + line;
}

}  // namespace favorlab
