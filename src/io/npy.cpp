#include "io/npy.hpp"
#include "io/input_file.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/half_float.hpp"

namespace favorlab {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void fail_npy(const std::string& source, const std::string& problem) {
  throw std::invalid_argument(source + ": " + problem);
}

// Bytes as text for messages: printable ASCII kept, everything else as \xNN.
std::string printable(std::string_view s, std::size_t max_chars = 40) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max_chars) out += "...";
  return out;
}

std::uint32_t little_endian_uint(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= std::uint32_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// The header is a Python dict literal; numpy reads it with ast.literal_eval. This parser accepts exactly the dicts
// numpy accepts for our dtypes: the three keys, each once, in any order, string keys in ' or " quotes, an optional
// trailing comma, and whitespace anywhere between tokens (numpy pads with spaces and ends with '\n').
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_space();
    if (!consume('{')) malformed("expected a dict starting with '{', found '" + printable(text_.substr(pos_, 20)) + "'");
    for (;;) {
      skip_space();
      if (consume('}')) break;
      const std::string key = parse_key();
      skip_space();
      if (!consume(':')) malformed("expected ':' after key '" + key + "'");
      skip_space();
      if (key == "descr") {
        if (have_descr) malformed("key 'descr' appears twice");
        have_descr = true;
        h.descr = parse_descr();
      } else if (key == "fortran_order") {
        if (have_fortran) malformed("key 'fortran_order' appears twice");
        have_fortran = true;
        h.fortran_order = parse_bool(key);
      } else if (key == "shape") {
        if (have_shape) malformed("key 'shape' appears twice");
        have_shape = true;
        h.shape = parse_shape();
      } else {
        malformed("unexpected key '" + printable(key) + "' (expected 'descr', 'fortran_order', 'shape')");
      }
      skip_space();
      if (consume(',')) continue;
      if (consume('}')) break;
      malformed("expected ',' or '}' after the value of key '" + key + "'");
    }
    skip_space();
    if (pos_ != text_.size())
      malformed("unexpected text after the closing '}': '" + printable(text_.substr(pos_, 20)) + "'");
    if (!have_descr) malformed("missing key 'descr'");
    if (!have_fortran) malformed("missing key 'fortran_order'");
    if (!have_shape) malformed("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void malformed(const std::string& what) const { fail_npy(source_, "malformed header: " + what); }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool consume(char c) {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void skip_space() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }

  // A Python string literal in ' or " without escapes (numpy's keys and descr strings never contain any).
  std::optional<std::string> parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return std::nullopt;
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    if (s.find('\\') != std::string::npos) return std::nullopt;
    pos_ = end + 1;
    return s;
  }

  std::string parse_key() {
    auto key = parse_string();
    if (!key) malformed("expected a quoted key, found '" + printable(text_.substr(pos_, 20)) + "'");
    return *key;
  }

  std::string parse_descr() {
    if (auto s = parse_string()) return *s;
    if (peek() == '[') {
      // A structured dtype (a list of fields): valid numpy, but not an array of floats.
      std::size_t depth = 0, end = pos_;
      for (; end < text_.size(); ++end) {
        if (text_[end] == '[') ++depth;
        if (text_[end] == ']' && --depth == 0) break;
      }
      fail_npy(source_, "unsupported dtype " + printable(text_.substr(pos_, end + 1 - pos_)) +
                        " (a structured dtype): only float16/float32/float64 are supported");
    }
    malformed("key 'descr': expected a quoted dtype string such as '<f8', found '" +
              printable(text_.substr(pos_, 20)) + "'");
  }

  bool parse_bool(const std::string& key) {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    malformed("key '" + key + "': expected True or False, found '" + printable(text_.substr(pos_, 20)) + "'");
  }

  std::vector<std::int64_t> parse_shape() {
    const auto bad = [&](const std::string& why) { malformed("key 'shape': " + why); };
    if (!consume('(')) bad("expected a tuple such as (L, d), found '" + printable(text_.substr(pos_, 20)) + "'");
    std::vector<std::int64_t> shape;
    bool trailing_comma = false;
    for (;;) {
      skip_space();
      if (consume(')')) break;
      if (peek() == '-') {
        std::size_t end = pos_ + 1;
        while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
        bad("negative dimension " + printable(text_.substr(pos_, end - pos_)));
      }
      if (peek() < '0' || peek() > '9')
        bad("expected a non-negative integer, found '" + printable(text_.substr(pos_, 20)) + "'");
      std::int64_t dim = 0;
      const std::size_t start = pos_;
      while (!at_end() && peek() >= '0' && peek() <= '9') {
        const int digit = peek() - '0';
        if (dim > (kInt64Max - digit) / 10) {
          std::size_t end = pos_;
          while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
          bad("dimension " + printable(text_.substr(start, end - start)) + " is too large");
        }
        dim = dim * 10 + digit;
        ++pos_;
      }
      if (pos_ - start > 1 && text_[start] == '0')  // Python refuses "01" (numpy: "Cannot parse header")
        bad("dimension " + printable(text_.substr(start, pos_ - start)) + " has a leading zero");
      consume('L');  // Python 2 wrote long integers as 3L
      shape.push_back(dim);
      skip_space();
      trailing_comma = consume(',');
      if (trailing_comma) continue;
      skip_space();
      if (consume(')')) break;
      bad("expected ',' or ')' after a dimension, found '" + printable(text_.substr(pos_, 20)) + "'");
    }
    // (3) is the integer 3 in Python, not a tuple; numpy refuses it too.
    if (shape.size() == 1 && !trailing_comma) bad("(" + std::to_string(shape[0]) + ") is not a tuple; write (" +
                                                  std::to_string(shape[0]) + ",)");
    return shape;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

struct Dtype {
  NpyDtype type;
  std::size_t item_size;
  bool swap;  // file byte order differs from this machine's
};

Dtype parse_dtype(const std::string& descr, const std::string& source) {
  // '<' little, '>' big, '|' not applicable (numpy never writes it for floats; read as native), '=' native.
  const bool plausible = descr.size() == 3 && std::string_view("<>|=").find(descr[0]) != std::string_view::npos &&
                         descr[1] == 'f' && (descr[2] == '2' || descr[2] == '4' || descr[2] == '8');
  if (!plausible) {
    // numpy saves ml_dtypes' bfloat16 as a 2-byte void: nothing in the file says the bytes are bfloat16.
    const bool void2 = descr.size() == 3 && descr[1] == 'V' && descr[2] == '2';
    fail_npy(source, "unsupported dtype '" + printable(descr) +
                     "': only float16/float32/float64 are supported ('<f2', '<f4', '<f8', and '>' for big-endian)" +
                     (void2 ? "; a bfloat16 array saved through ml_dtypes looks like this, but its bytes could be "
                              "anything: save it as float32 (x.astype(numpy.float32)), which is exact"
                            : ""));
  }
  const bool file_big = descr[0] == '>' || (descr[0] != '<' && std::endian::native == std::endian::big);
  const bool native_big = std::endian::native == std::endian::big;
  const std::size_t size = static_cast<std::size_t>(descr[2] - '0');
  const NpyDtype type = size == 2 ? NpyDtype::float16 : size == 4 ? NpyDtype::float32 : NpyDtype::float64;
  return Dtype{type, size, file_big != native_big};
}

// C-order strides (in elements) of a shape whose element count is known not to overflow.
std::vector<std::int64_t> c_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> stride(shape.size());
  std::int64_t s = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    stride[k] = s;
    s *= std::max<std::int64_t>(shape[k], 1);
  }
  return stride;
}

// Fortran order lists the first index fastest. Walk the file with an odometer over the multi-index (first digit
// fastest) and keep the matching C offset up to date: O(1) per element on average, any rank.
std::vector<double> fortran_to_c_order(const std::vector<double>& file_order, const std::vector<std::int64_t>& shape) {
  std::vector<double> c_order(file_order.size());
  const auto stride = c_strides(shape);
  std::vector<std::int64_t> digit(shape.size());
  std::int64_t offset = 0;
  for (const double value : file_order) {
    c_order[static_cast<std::size_t>(offset)] = value;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      ++digit[k];
      offset += stride[k];
      if (digit[k] < shape[k]) break;
      offset -= shape[k] * stride[k];
      digit[k] = 0;
    }
  }
  return c_order;
}

std::string index_string(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  const auto stride = c_strides(shape);
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) s += ", ";
    s += std::to_string(flat / stride[k]);
    flat %= stride[k];
  }
  return s + "]";
}

// Element count of a shape, or nullopt when count · item_size would overflow (a zero dimension makes it 0 whatever
// the others are, as numpy has it).
std::optional<std::int64_t> element_count(const std::vector<std::int64_t>& shape, std::size_t item_size) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  const std::int64_t limit = kInt64Max / static_cast<std::int64_t>(item_size);
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0 || n > limit / d) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace

std::size_t npy_item_size(NpyDtype dtype) {
  return dtype == NpyDtype::float16 ? 2 : dtype == NpyDtype::float32 ? 4 : 8;
}

const char* npy_descr(NpyDtype dtype) {
  return dtype == NpyDtype::float16 ? "<f2" : dtype == NpyDtype::float32 ? "<f4" : "<f8";
}

std::string npy_shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace {

// The preamble and header of a .npy file, parsed and checked.
struct Layout {
  Header header;
  Dtype dtype{};
  std::size_t data_offset = 0;  // where the data starts
  std::size_t data_bytes = 0;   // how many data bytes the header promises
};

std::size_t preamble_length(std::string_view bytes) { return static_cast<unsigned char>(bytes[6]) == 1 ? 10 : 12; }

// The length of preamble + header from the file's first bytes (at most 12 are looked at): checks the magic, the
// version and that `bytes` holds the header length. The magic is checked first, on whatever bytes there are, so a
// file that is not a .npy is refused after reading a few bytes.
std::size_t header_end(std::string_view bytes, const std::string& source) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
    fail_npy(source, "not a .npy file (bad magic string: expected \\x93NUMPY, found '" +
                     printable(bytes.substr(0, kMagic.size())) + "')");
  if (bytes.size() < 8) fail_npy(source, "truncated header: the file ends inside the version bytes");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail_npy(source, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                     " (supported: 1.0, 2.0, 3.0)");
  const std::size_t preamble = preamble_length(bytes);
  if (bytes.size() < preamble) fail_npy(source, "truncated header: the file ends inside the header length");
  return preamble + little_endian_uint(bytes, 8, preamble - 8);
}

// `bytes` starts with the file and holds at least its whole header (or all the file has, if it ends earlier).
Layout parse_layout(std::string_view bytes, const std::string& source) {
  const std::size_t end = header_end(bytes, source);
  const std::size_t preamble = preamble_length(bytes);
  if (bytes.size() < end)
    fail_npy(source, "truncated header: the header declares " + std::to_string(end - preamble) +
                         " bytes, the file has " + std::to_string(bytes.size() - preamble) + " after the preamble");
  Layout layout;
  layout.header = HeaderParser(bytes.substr(preamble, end - preamble), source).parse();
  layout.dtype = parse_dtype(layout.header.descr, source);
  layout.data_offset = end;
  const auto count = element_count(layout.header.shape, layout.dtype.item_size);
  if (!count)
    fail_npy(source,
         "shape " + npy_shape_string(layout.header.shape) + " has too many elements (the byte count overflows)");
  layout.data_bytes = static_cast<std::size_t>(*count) * layout.dtype.item_size;
  return layout;
}

// Compares the data bytes found with the header's promise.
void check_data_size(const Layout& layout, std::size_t found, const std::string& source) {
  const std::size_t expected = layout.data_bytes;
  if (found < expected)
    fail_npy(source, "truncated data: expected " + std::to_string(expected) + " bytes for shape " +
                     npy_shape_string(layout.header.shape) + " of '" + layout.header.descr + "', found " +
                     std::to_string(found));
  if (found > expected)
    fail_npy(source, "trailing bytes: expected " + std::to_string(expected) + " bytes of data, found " +
                     std::to_string(found) + " (" + std::to_string(found - expected) + " extra)");
}

// The values of `data` (exactly layout.data_bytes bytes) in C order, refusing NaN and ±∞.
NpyArray convert(const Layout& layout, std::string_view data, const std::string& source) {
  const Dtype& dtype = layout.dtype;
  const std::size_t n = layout.data_bytes / dtype.item_size;
  std::vector<double> file_order(n);
  // Byte order swapped on the integer image of each value (a byte array reversed in place drew a false
  // -Wstringop-overflow from GCC 12 once vectorized for AVX2).
  for (std::size_t i = 0; i < n; ++i) {
    const char* at = data.data() + i * dtype.item_size;
    if (dtype.type == NpyDtype::float16) {
      std::uint16_t bits;
      std::memcpy(&bits, at, sizeof bits);
      if (dtype.swap) bits = __builtin_bswap16(bits);
      file_order[i] = float16_to_float(bits);  // exact
    } else if (dtype.type == NpyDtype::float32) {
      std::uint32_t bits;
      std::memcpy(&bits, at, sizeof bits);
      if (dtype.swap) bits = __builtin_bswap32(bits);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      file_order[i] = f;
    } else {
      std::uint64_t bits;
      std::memcpy(&bits, at, sizeof bits);
      if (dtype.swap) bits = __builtin_bswap64(bits);
      std::memcpy(&file_order[i], &bits, sizeof(double));
    }
  }

  NpyArray out;
  out.shape = layout.header.shape;
  out.dtype = dtype.type;
  if (!layout.header.fortran_order || layout.header.shape.size() < 2) {
    out.values = std::move(file_order);
  } else {
    out.values = fortran_to_c_order(file_order, layout.header.shape);
  }

  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(out.values[i]) && bad++ == 0) first_bad = i;
  }
  if (bad > 0)
    fail_npy(source, "contains NaN/Inf (" + std::to_string(bad) + (bad == 1 ? " value" : " values") + ", first at " +
                     index_string(static_cast<std::int64_t>(first_bad), out.shape) + ")");
  return out;
}

// Appends up to `n` more bytes of `in` to `bytes`, a few KiB at a time: what is held follows what the file really
// contains, never a size a header claims.
void read_up_to(std::istream& in, std::size_t n, std::string& bytes) {
  char buf[65536];
  while (n > 0 && in) {
    const std::size_t want = std::min(n, sizeof buf);
    in.read(buf, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    bytes.append(buf, got);
    n -= got;
    if (got < want) break;
  }
}

struct OpenedNpy {
  std::ifstream in;
  Layout layout;
  bool regular = true;  // a regular file (its size is known); else a pipe or a device
};

// Opens `path` and reads its header only (12 bytes, then the header length): a file that is not a .npy is refused
// after its first bytes, whatever its size (/dev/zero included). A regular file's size settles the data size before
// anything is allocated for the data.
void open_npy(const std::filesystem::path& path, const std::string& source, OpenedNpy& f) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) fail_npy(source, "cannot open: it is a directory");
  // A FIFO would block the open until some process writes, a device never ends, a pipe cannot be read twice (header,
  // then data): inputs are regular files (io/input_file.hpp).
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) check_input_file(path, "");
  f.in.open(path, std::ios::binary);
  if (!f.in) fail_npy(source, std::string("cannot open: ") + std::strerror(errno));
  std::string head;
  read_up_to(f.in, 12, head);
  if (f.in.bad()) fail_npy(source, std::string("cannot read: ") + std::strerror(errno));
  const std::size_t end = header_end(head, source);
  read_up_to(f.in, end - std::min(end, head.size()), head);
  if (f.in.bad()) fail_npy(source, std::string("cannot read: ") + std::strerror(errno));
  f.layout = parse_layout(head, source);
  f.regular = std::filesystem::is_regular_file(path, ec);
  if (f.regular) {
    const auto bytes = static_cast<std::size_t>(std::filesystem::file_size(path, ec));
    if (ec) fail_npy(source, "cannot read its size: " + ec.message());
    check_data_size(f.layout, bytes - std::min(bytes, f.layout.data_offset), source);
  }
}

}  // namespace

NpyArray decode_npy(std::string_view bytes, const std::string& source) {
  const Layout layout = parse_layout(bytes, source);
  check_data_size(layout, bytes.size() - layout.data_offset, source);
  return convert(layout, bytes.substr(layout.data_offset), source);
}

NpyHeader read_npy_header(const std::filesystem::path& path) {
  const std::string source = path.string();
  OpenedNpy f;
  open_npy(path, source, f);
  return {f.layout.header.shape, f.layout.dtype.type, static_cast<std::int64_t>(f.layout.data_offset)};
}

NpyArray read_npy(const std::filesystem::path& path) {
  const std::string source = path.string();
  OpenedNpy f;
  open_npy(path, source, f);
  std::string data;
  if (f.regular) data.reserve(f.layout.data_bytes);  // checked against the file's size
  read_up_to(f.in, f.layout.data_bytes, data);
  if (f.in.bad()) fail_npy(source, std::string("cannot read: ") + std::strerror(errno));
  std::size_t found = data.size();
  if (found == f.layout.data_bytes) {  // anything after the data? (a pipe or a device has no size to ask)
    std::string extra;
    read_up_to(f.in, 1, extra);
    found += extra.size();
  }
  check_data_size(f.layout, found, source);
  return convert(f.layout, data, source);
}

std::string encode_npy(const std::vector<std::int64_t>& shape, std::span<const double> values, NpyDtype dtype,
                       const std::string& source) {
  const std::size_t item_size = npy_item_size(dtype);
  for (const std::int64_t d : shape)
    if (d < 0) fail_npy(source, "cannot write shape " + npy_shape_string(shape) + ": negative dimension");
  const auto count = element_count(shape, item_size);
  if (!count) fail_npy(source, "cannot write shape " + npy_shape_string(shape) + ": too many elements");
  if (static_cast<std::size_t>(*count) != values.size())
    fail_npy(source, "cannot write shape " + npy_shape_string(shape) + ": it holds " + std::to_string(*count) +
                     " values, " + std::to_string(values.size()) + " given");

  const std::string dict = std::string("{'descr': '") + npy_descr(dtype) +
                           "', 'fortran_order': False, 'shape': " + npy_shape_string(shape) + ", }";
  // Pad with spaces so that preamble + header (ending in '\n') is a multiple of 64; version 2.0 only when the
  // header no longer fits version 1.0's uint16 length (numpy does the same).
  std::size_t preamble = 10;
  std::size_t header_length = (preamble + dict.size() + 1 + 63) / 64 * 64 - preamble;
  int major = 1;
  if (header_length > 0xffff) {
    preamble = 12;
    header_length = (preamble + dict.size() + 1 + 63) / 64 * 64 - preamble;
    major = 2;
  }

  std::string out;
  out.reserve(preamble + header_length + values.size() * item_size);
  out += kMagic;
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((header_length >> (8 * i)) & 0xff);
  out += dict;
  out.append(header_length - dict.size() - 1, ' ');
  out += '\n';

  const bool swap = std::endian::native == std::endian::big;
  unsigned char raw[8];
  for (const double v : values) {
    if (dtype == NpyDtype::float16) {
      const std::uint16_t h = double_to_float16(v);  // rounded once, as numpy's astype(float16)
      std::memcpy(raw, &h, sizeof h);
    } else if (dtype == NpyDtype::float32) {
      const auto f = static_cast<float>(v);
      std::memcpy(raw, &f, sizeof f);
    } else {
      std::memcpy(raw, &v, sizeof v);
    }
    if (swap) std::reverse(raw, raw + item_size);
    out.append(reinterpret_cast<const char*>(raw), item_size);
  }
  return out;
}

void write_npy(const std::filesystem::path& path, const std::vector<std::int64_t>& shape,
               std::span<const double> values, NpyDtype dtype) {
  const std::string bytes = encode_npy(shape, values, dtype, path.string());  // validates before touching the file
  AtomicFileWriter writer(path);
  writer.commit(bytes);
}

}  // namespace favorlab
