#pragma once
// A 2-D grid size given as text, "WxH" (e.g. "32x16"). Only the form is checked here; the caller bounds the sides.
#include <cstdint>
#include <string>
#include <utility>

namespace favorlab {

// {W, H}; anything but two integers joined by one 'x' throws std::invalid_argument
// "<option> must be WxH with positive integers, got '<text>'".
std::pair<std::int64_t, std::int64_t> parse_grid_size(const std::string& text, const std::string& option);

}  // namespace favorlab
