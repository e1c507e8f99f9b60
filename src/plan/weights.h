#pragma once
// How many bytes of weights a model puts on each GPU. Exact from the safetensors headers where
// the shards are present (or the index's total_size), otherwise counted from config.json.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"
#include "plan/model_config.h"
#include "plan/safetensors.h"

namespace dcukit::plan {

/// Where the total came from, weakest last.
enum class WeightSource { safetensors_headers, index_total_size, computed };

/// "safetensors headers", "index total_size", "computed from config.json".
std::string_view to_string(WeightSource source);
/// The value to_string spells `text`, or nullopt.
std::optional<WeightSource> parse_weight_source(std::string_view text);

/// The weights counted from config.json in the served dtype, split the way tensor and pipeline
/// parallelism split them. Bytes, not parameters.
struct WeightBreakdown {
  double embed = 0;       ///< input embedding (vocab-parallel: split by TP)
  double lm_head = 0;     ///< output projection; 0 when tied to the embedding
  double layers = 0;      ///< all decoder layers, everything below included
  double replicated = 0;  ///< inside layers, held whole by every TP rank (norms, routers, MLA down-projections)
  double kv_proj = 0;     ///< inside layers, k/v projections: replicated once TP exceeds the KV heads
  double final_norm = 0;  ///< with an output projection where there is one (OPT-350m): the last stage's, whole
  double inputs = 0;      ///< learned positions and an input projection (OPT): the first stage's, whole
  double vision = 0;      ///< a vision tower and its projector (estimated): the first stage's, split by TP
  /// The RoPE cos/sin table: a buffer every stage builds whole at load time. Not in the checkpoint, so
  /// neither in total() nor scaled to the files' size.
  double rope = 0;
  /// Each decoder layer's share of `layers`, `replicated` and `kv_proj`, in order: pipeline stages
  /// hold runs of layers that need not weigh the same (a dense first layer before MoE ones).
  struct Layer {
    double all = 0, replicated = 0, kv_proj = 0;
  };
  std::vector<Layer> per_layer;

  double total() const { return embed + lm_head + layers + final_norm + inputs + vision; }
  /// What a TP rank of the first pipeline stage holds beside its layers: its share of the embedding
  /// and of a vision tower.
  double first_stage_ends(int tp) const { return (embed + vision) / tp + inputs; }
  /// What a TP rank of the last stage holds beside its layers: the output projection (a copy of the
  /// embedding where they are tied) and the final norm.
  double last_stage_ends(int tp) const { return (lm_head > 0 ? lm_head : embed) / tp + final_norm; }
};

/// Counts from config.json. Embeddings and norms stay 16-bit; linear layers take the
/// quantization_config's width (GPTQ/AWQ int4 with a scale and zero per group, fp8 one byte).
WeightBreakdown compute_weights(const ModelConfig& model);

/// A model's weights: the total and where it came from, and the split by TP and PP.
struct Weights {
  std::uint64_t total_bytes = 0;
  WeightSource source = WeightSource::computed;
  std::string detail;  ///< what was read: "4 files, 339 tensors"
  WeightBreakdown computed;

  /// total_bytes over the computed total: what the computed split is scaled by.
  double scale() const;
  /// Bytes on the busiest GPU with this TP and PP: the computed split scaled to total_bytes; under
  /// PP the largest of per_stage() (an average layer where the per-layer split is unknown).
  std::uint64_t per_gpu(const ModelConfig& model, int tp, int pp) const;
  /// Bytes on a GPU of each pipeline stage, first to last, layers split as vLLM's get_pp_indices
  /// does (the remainder to the stages before the last); the first holds the embedding, the last
  /// the final norm and the output projection (a copy of the embedding where they are tied).
  std::vector<std::uint64_t> per_stage(const ModelConfig& model, int tp, int pp) const;
};

/// Weights of `model` from the files next to its config.json, else computed. A quantization the
/// computation cannot size, with no safetensors to read, is an error that says so.
Result<Weights> count_weights(const ModelConfig& model);

} // namespace dcukit::plan
