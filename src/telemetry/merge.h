#pragma once
// Several sources' readings of the same devices as one: a figure comes from the first source
// that has it, and the device keeps which source that was.
#include "telemetry/types.h"

namespace dcukit::telemetry {

/// How devices without bus ids are paired.
enum class Pairing {
  position,  ///< the same position, when both list the same number of devices (different sources)
  index,     ///< the same index (outputs of one tool, which numbers devices the same way)
};

/// Adds `next` to `base`. A device of `next` is the same device as one of `base` when their bus
/// ids match; when either lacks a bus id, as `pairing` says, if the vendors do not disagree. A
/// matched device gains the figures it lacks (with their sources); an unmatched one is appended
/// (renumbered past base's indices if its index is taken). Links, checks, facts and warnings are
/// appended.
void merge_into(Snapshot& base, const Snapshot& next, Pairing pairing = Pairing::position);

}  // namespace dcukit::telemetry
