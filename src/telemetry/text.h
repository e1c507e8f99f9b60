#pragma once
// Text helpers for reading vendor tools' output: a captured file made ready to parse (capture
// header, ANSI escapes, CRLF and common indentation removed), and figures read the way the
// tools print them: units glued on ("45.0C", "400W", "(800Mhz)"), "N/A" and its cousins.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/types.h"
#include "util/text.h"

namespace dcukit::telemetry {

/// A captured output ready for the parsers.
struct Capture {
  std::string name;                ///< the file's path (for messages)
  std::vector<std::string> lines;  ///< the output, cleaned
  /// The command that made it, when the file says (a "# command:" header or a "$ tool ..." line).
  std::string command;
  bool declared_not_output = false;  ///< the header says the file holds no tool output
  /// What cleaning the paste took off, said with the reading: "a '> ' quote before every line".
  std::vector<std::string> cleaned;
};

/// Cleans `raw`: drops a "# ---- verbatim output below this line ----" header (keeping its
/// "# command:"), ANSI escapes (raw ESC and pasted "^[" forms), CR, trailing blanks, the quote
/// marks of a mail or forum reply ("> " before most lines), tabs that indent a line, and the
/// indentation every line shares.
Capture prepare_capture(std::string_view raw, std::string name);

/// The lines joined with '\n'.
std::string join_lines(const std::vector<std::string>& lines, std::size_t from = 0);

using util::contains;
using util::icontains;
using util::lower;
using util::split;  // keeps empty fields
using util::starts_with;
using util::trim;
/// Splits on runs of blanks (spaces and tabs).
std::vector<std::string> split_ws(std::string_view s);
/// The first and the last of split_ws's words; empty where `s` holds none (a line cut after its label).
std::string first_word(std::string_view s);
std::string last_word(std::string_view s);
/// Splits on runs of at least two blanks, or on tabs when the line has any.
std::vector<std::string> split_columns(std::string_view s);

/// A number and the unit printed after it: "45.0C" -> {45, "C"}, "(800Mhz)" -> {800, "Mhz"}.
struct Quantity {
  double value = 0;
  std::string unit;
};

/// True for the tools' ways of saying "no value": "", "N/A", "[N/A]", "None", "Unsupported",
/// "unknown", "-", "[Not Supported]", "Requested functionality has been deprecated", "inf".
bool is_missing(std::string_view s);
/// A number with an optional unit glued or spaced after it; nullopt for missing values and text.
std::optional<Quantity> parse_quantity(std::string_view s);
std::optional<double> parse_double(std::string_view s);
/// `v` rounded to the nearest whole number when it is finite and within [lo, hi]; nullopt otherwise
/// (a cast of 1e20 or NaN to an integer is undefined behaviour).
std::optional<std::int64_t> whole_number(double v, double lo = -9.2e18, double hi = 9.2e18);
/// The quantity rounded to a whole number ("16x" -> 16, "1980 MHz" -> 1980); util::parse_int
/// takes a bare integer only.
std::optional<std::int64_t> parse_whole(std::string_view s);
/// Bytes from a size in the given or printed unit: B, KB/KiB, MB/MiB, GB/GiB, TB/TiB. The GPU
/// tools all mean binary units, whether they print "MB" (amd-smi) or "MiB" (nvidia-smi).
std::optional<std::uint64_t> parse_bytes(std::string_view s, std::string_view default_unit = "B");
/// Bytes for `value` in `unit` (binary units as above); nullopt for an unknown unit.
std::optional<std::uint64_t> to_bytes(double value, std::string_view unit);
/// The PCIe generation of a per-lane rate in GT/s (2.5 -> 1 ... 64 -> 6).
std::optional<std::int64_t> pcie_gen_from_gts(double gts);
/// A text value, nullopt when missing.
std::optional<std::string> text_value(std::string_view s);

/// The vendor a name or vendor string points at ("Chengdu C-3000 IC Design" -> hygon).
std::optional<Vendor> vendor_from_text(std::string_view s);
/// "0x6210", from "0x6210", "6210" (hex) or a decimal when `decimal` ("29857" -> "0x74a1").
std::optional<std::string> pci_id(std::string_view s, bool decimal = false);
/// rocm-smi's "GFX Version" prints major, minor and a two-digit stepping run together
/// ("gfx9010", "gfx11001"); this gives the ISA name ("gfx90a", "gfx1101").
std::optional<std::string> decode_rocm_smi_gfx_version(std::string_view s);
/// A PCI address from a KFD/rocminfo BDFID (bus << 8 | device << 3 | function).
std::string bus_id_from_bdfid(std::uint64_t bdfid);

}  // namespace dcukit::telemetry
