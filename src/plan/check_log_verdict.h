#pragma once
// The verdict on one checked run: vLLM's available KV per GPU (printed, or from its blocks), each
// compared line within its tolerance or not, whether plan's block rules reproduce vLLM's figures,
// and, where a run is outside, the terms plan is unsure of, worst first.
#include <optional>

#include "plan/check_log.h"

namespace dcukit::plan::logcheck {

/// The activation peak vLLM printed: the figure itself, or 0.6.4's peak less the weights.
std::optional<double> printed_activation(const VllmLogFigures& f);

/// vLLM's available KV per GPU: printed, or the bytes of the blocks it printed. Where ranks differ
/// and the blocks need less than every printed rank has, a rank the excerpt does not show had the
/// smallest budget: its figure is the blocks' bytes. `derived` says the figure came from blocks.
std::optional<double> vllm_available(const RunCheck& c, bool& derived);

/// Sets each compared line's verdict: weights within the KV tolerance rule of their own (5% or
/// 0.35 GiB), the figures that follow from the KV (blocks, tokens, concurrency) within the KV's
/// relative tolerance and one block. True when every compared line is within.
bool compare_lines(RunCheck& c, double avail);

/// Whether plan's block, token and concurrency rules give what vLLM printed from vLLM's own available KV.
void reproduce(RunCheck& c, const ModelConfig& m, double vllm_avail, bool derived);

/// Names the terms plan is unsure of, worst first, in c.uncertain.
void name_uncertain_terms(RunCheck& c);

}  // namespace dcukit::plan::logcheck
