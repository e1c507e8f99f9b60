#include "plan/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>

#include "plan/fields.h"
#include "util/text.h"
#include "util/json_text.h"

namespace dcukit::plan {
namespace {

constexpr std::uint64_t kMaxTotalSize = 1ull << 50;  // 1 PiB: far above any checkpoint

/// The N of "layers.N." in a tensor name: nullopt when there is none, an error when N does not
/// fit 64 bits (layers.99999999999999999999.x).
Result<std::optional<std::uint64_t>> layer_index(std::string_view name) {
  for (std::size_t at = name.find("layers."); at != std::string_view::npos; at = name.find("layers.", at + 1)) {
    if (at > 0 && name[at - 1] != '.') continue;
    const auto digits = name.substr(at + 7);
    std::size_t n = 0;
    while (n < digits.size() && digits[n] >= '0' && digits[n] <= '9') ++n;
    if (n == 0 || n == digits.size() || digits[n] != '.') continue;
    std::uint64_t v = 0;
    if (std::from_chars(digits.data(), digits.data() + n, v).ec != std::errc{})
      return Error{fmt::format("tensor {} has a layer index that does not fit 64 bits", show(nlohmann::json(name)))};
    return std::optional<std::uint64_t>(v);
  }
  return std::optional<std::uint64_t>{};
}

/// Bytes per element of the dtypes safetensors defines; 0 for one this reader does not size.
std::uint64_t element_bytes(std::string_view dtype) {
  static const std::pair<std::string_view, std::uint64_t> kSizes[] = {
      {"F64", 8}, {"I64", 8}, {"U64", 8}, {"F32", 4}, {"I32", 4}, {"U32", 4}, {"F16", 2}, {"BF16", 2},
      {"I16", 2}, {"U16", 2}, {"I8", 1},  {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}};
  for (const auto& [name, bytes] : kSizes)
    if (name == dtype) return bytes;
  return 0;
}

/// The shape is whole numbers whose product, in the dtype's size, is the tensor's bytes: a
/// header claiming 2^120 elements in 2 bytes is damaged, not a tiny model.
Status check_shape(const nlohmann::json& t, const std::string& dtype, std::uint64_t stored, const std::string& where) {
  auto shape = t.find("shape");
  if (shape == t.end() || !shape->is_array())
    return Error{fmt::format("{} has no shape (a list of whole numbers); the header is damaged", where)};
  std::uint64_t elements = 1;
  bool overflow = false;
  for (const auto& d : *shape) {
    if (!d.is_number_unsigned())
      return Error{fmt::format("{} has shape {}, not a list of whole numbers; the header is damaged", where, show(*shape))};
    const auto n = d.get<std::uint64_t>();
    if (n != 0 && elements > (std::uint64_t{1} << 62) / n) overflow = true;
    elements = overflow ? elements : elements * n;
  }
  const std::uint64_t size = element_bytes(dtype);
  if (overflow || (size > 0 && elements * size != stored))
    return Error{fmt::format("{}: shape {} of {} does not match its {} bytes of data; the header is damaged: "
                             "re-download the file",
                             where, show(*shape), dtype, stored)};
  return {};
}

}  // namespace

Status add_safetensors_header(std::string_view header, std::uint64_t data_bytes, std::int64_t num_layers,
                              std::string_view origin, SafetensorsTotal& total) {
  const auto j = util::parse_json(header);
  if (j.is_discarded() || !j.is_object())
    return Error{
        fmt::format("{}: the safetensors header is not a JSON object; the file is damaged: re-download it", origin)};
  for (const auto& [name, t] : j.items()) {
    if (name == "__metadata__") continue;
    const auto where = fmt::format("{}: tensor {}", origin, show(nlohmann::json(name)));
    if (!t.is_object())
      return Error{fmt::format("{} is {}, not an object with dtype, shape and data_offsets", where, show(t))};
    auto off = t.find("data_offsets");
    if (off == t.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      return Error{fmt::format("{} has no valid data_offsets (two whole numbers, start and end)", where)};
    const auto start = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
    if (end < start)
      return Error{fmt::format("{} ends ({}) before it starts ({}); the header is damaged", where, end, start)};
    if (end > data_bytes)
      return Error{
          fmt::format("{} ends at byte {} of the data, past the {} the file holds; the download is "
                      "incomplete: re-download it",
                      where, end, data_bytes)};
    auto dtype = t.find("dtype");
    if (dtype == t.end() || !dtype->is_string())
      return Error{
          fmt::format("{} has dtype {}, not a name such as BF16", where, dtype == t.end() ? "missing" : show(*dtype))};
    const auto stored = end - start;
    if (Status s = check_shape(t, dtype->get<std::string>(), stored, where); !s) return s;
    const auto served = dtype->get<std::string>() == "F32" ? stored / 2 : stored;  // vLLM loads floats in 16-bit
    auto layer = layer_index(name);
    if (!layer) return Error{fmt::format("{}: {}", origin, layer.error().message)};
    const bool mtp = util::starts_with(name, "mtp.") || util::starts_with(name, "model.mtp.") ||
                     (*layer && num_layers >= 0 && **layer >= static_cast<std::uint64_t>(num_layers));
    ++total.tensors;
    total.stored_bytes += stored;
    (mtp ? total.excluded_bytes : total.bytes) += served;
  }
  ++total.files;
  return {};
}

Result<SafetensorsTotal> read_safetensors(const std::filesystem::path& dir, std::int64_t num_layers) {
  namespace fs = std::filesystem;
  SafetensorsTotal total;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const auto size = fs::file_size(file, ec);
    if (ec) return Error{fmt::format("{}: cannot read its size ({})", file.string(), ec.message())};
    std::ifstream in(file, std::ios::binary);
    unsigned char len_bytes[8] = {};
    if (size < 8 || !in.read(reinterpret_cast<char*>(len_bytes), 8))
      return Error{fmt::format("{}: shorter than the 8-byte safetensors header length; the download is incomplete",
                               file.string())};
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | len_bytes[i];
    if (len == 0 || len > kMaxHeaderBytes)
      return Error{
          fmt::format("{}: header length {} is not plausible (safetensors headers are under 100 MiB); "
                      "is this a Git LFS pointer instead of the file?",
                      file.string(), len)};
    if (len > size - 8)
      return Error{fmt::format("{}: the header says {} bytes but the file has {}; the download is incomplete",
                               file.string(), len, size - 8)};
    std::string header(len, '\0');
    if (!in.read(header.data(), static_cast<std::streamsize>(len)))
      return Error{fmt::format("{}: the header is cut short; the download is incomplete", file.string())};
    if (Status s = add_safetensors_header(header, size - 8 - len, num_layers, file.string(), total); !s)
      return s.error();
  }
  return total;
}

Result<std::optional<std::uint64_t>> parse_index_total_size(std::string_view text, std::string_view origin) {
  const auto j = util::parse_json(text);
  if (j.is_discarded() || !j.is_object()) return Error{fmt::format("{}: not a JSON object; re-download it", origin)};
  auto meta = j.find("metadata");
  if (meta == j.end() || !meta->is_object() || !meta->contains("total_size")) return std::optional<std::uint64_t>{};
  FieldReader f{std::string(origin)};
  const auto bytes = f.integer(*meta, "total_size", 0, 1, static_cast<std::int64_t>(kMaxTotalSize), "metadata.");
  if (!f.ok()) return f.status().error();
  return std::optional<std::uint64_t>(static_cast<std::uint64_t>(bytes));
}

}  // namespace dcukit::plan
