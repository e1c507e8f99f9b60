#include "plan/vllm_plan.h"

#include <fmt/format.h>

#include "plan/vllm_budget.h"
#include "plan/vllm_rules.h"

namespace dcukit::plan {
namespace {

/// Sets the advice of `flag` to `value` with `why` (the launch script comments each flag with it).
void advise(std::vector<Advice>& advice, const std::string& flag, const std::string& value, const std::string& why) {
  for (auto& a : advice)
    if (a.flag == flag) {
      a.value = value;
      a.why = why;
      return;
    }
  advice.push_back({flag, value, why});
}

}  // namespace

BudgetModel vllm_budget_model(const VllmVersion& version) {
  const VllmRules rules = vllm_rules(version);
  BudgetModel model;
  model.budget = [rules](const ModelConfig& m, const Weights& w, const Cards& c, const Settings& s, int tp, int pp) {
    return vllm_budget(m, w, c, s, tp, pp, default_context(rules, c)).budget;
  };
  model.defaults = [rules](const Request& request, const Cards& c, Settings& s, std::vector<Advice>& advice) {
    const auto d = vllm_defaults(default_context(rules, c), c, s.max_model_len, false, std::nullopt);
    if (!request.max_num_seqs) {
      s.max_num_seqs = d.max_num_seqs;
      advise(advice, "--max-num-seqs", std::to_string(s.max_num_seqs),
             fmt::format("{}; the sampler's profiling run scales with it", d.why_seqs));
    }
    if (!request.max_num_batched_tokens) {
      s.max_num_batched_tokens = std::max<std::int64_t>(d.max_num_batched_tokens, s.max_num_seqs);
      advise(advice, "--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens),
             fmt::format("{}; the activation peak grows with it", d.why));
    }
  };
  return model;
}

}  // namespace dcukit::plan
