#include "plan/vllm_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "plan/vllm_budget.h"
#include "plan/vllm_rules.h"

namespace dcukit::plan {

BudgetModel vllm_budget_model(const ChosenVllm& vllm) {
  const VllmRules rules = vllm_rules(vllm.version);
  BudgetModel model;
  model.vllm = vllm;
  model.budget = [rules](const ModelConfig& m, const Weights& w, const Cards& c, const Settings& s, int tp, int pp) {
    return vllm_budget(m, w, c, s, tp, pp, default_context(rules, c)).budget;
  };
  model.defaults = [rules](const Asked& asked, const Cards& c, Settings& s) -> Status {
    const auto d = vllm_defaults(default_context(rules, c), c, s.max_model_len, false, std::nullopt);
    if (!asked.max_num_seqs) {
      if (asked.max_num_batched_tokens && *asked.max_num_batched_tokens < d.max_num_seqs)
        return Error{fmt::format(
            "--max-num-batched-tokens {} is below --max-num-seqs {}, vLLM {}'s default on {}; vLLM refuses it. "
            "Pass --max-num-seqs {} or less, or --max-num-batched-tokens {} or more",
            *asked.max_num_batched_tokens, d.max_num_seqs, rules.version.upstream(), c.name,
            *asked.max_num_batched_tokens, d.max_num_seqs)};
      s.max_num_seqs = d.max_num_seqs;
      s.why.max_num_seqs = fmt::format("{}; the sampler's profiling run scales with it", d.why_seqs);
    }
    if (!asked.max_num_batched_tokens) {
      s.max_num_batched_tokens = std::max<std::int64_t>(d.max_num_batched_tokens, s.max_num_seqs);
      s.why.max_num_batched_tokens =
          s.max_num_batched_tokens > d.max_num_batched_tokens
              ? fmt::format("--max-num-seqs {}: vLLM needs a token a sequence a step ({} by default)", s.max_num_seqs,
                            d.why)
              : fmt::format("{}; the activation peak grows with it", d.why);
    }
    return {};
  };
  return model;
}

}  // namespace dcukit::plan
