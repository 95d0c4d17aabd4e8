#include "io/grid_size.hpp"

#include <stdexcept>

namespace favorlab {

std::pair<std::int64_t, std::int64_t> parse_grid_size(const std::string& text, const std::string& option) {
  const auto x = text.find('x');
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    std::size_t used = 0;
    const std::int64_t width = std::stoll(text.substr(0, x), &used);
    if (used != x) throw std::invalid_argument("trailing");
    const std::int64_t height = std::stoll(text.substr(x + 1), &used);
    if (used != text.size() - x - 1) throw std::invalid_argument("trailing");
    return {width, height};
  } catch (const std::exception&) {
    throw std::invalid_argument(option + " must be WxH with positive integers, got '" + text + "'");
  }
}

}  // namespace favorlab
