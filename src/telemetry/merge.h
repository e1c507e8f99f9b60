#pragma once
// Several sources' readings of the same devices as one: a figure comes from the first source
// that has it, and the device keeps which source that was.
#include "telemetry/types.h"

namespace dcukit::telemetry {

/// Adds `next` to `base`. A device of `next` is the same device as one of `base` when their bus
/// ids match; when either lacks a bus id, when both list the same number of devices and the
/// vendors do not disagree, the one at the same position. A matched device gains the figures it
/// lacks (with their sources); an unmatched one is appended (renumbered past base's indices if
/// its index is taken). Links, checks, facts and warnings are appended.
void merge_into(Snapshot& base, const Snapshot& next);

}  // namespace dcukit::telemetry
