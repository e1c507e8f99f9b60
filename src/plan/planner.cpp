#include "plan/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/units.h"

namespace dcukit::plan {
namespace {

using core::Support;

using core::kGiB;  // bytes; the arithmetic below is in double
constexpr std::array<int, 4> kTp{1, 2, 4, 8};
constexpr std::array<int, 3> kPp{2, 4, 8};

/// Why vLLM cannot shard the model this way; empty when it can.
std::string shard_problem(const ModelConfig& m, int tp, int pp) {
  if (m.num_heads % tp != 0) return fmt::format("TP {} does not divide the {} attention heads", tp, m.num_heads);
  if (!m.mla && m.num_kv_heads % tp != 0 && tp % m.num_kv_heads != 0)
    return fmt::format("TP {} and the {} KV heads do not divide one another", tp, m.num_kv_heads);
  if (m.hybrid() && (m.linear_num_value_heads % tp != 0 || linear_key_heads(m, tp) % tp != 0))
    return fmt::format("TP {} does not divide the linear-attention heads ({} key, {} value)", tp,
                       m.linear_num_key_heads, m.linear_num_value_heads);
  if (pp > m.num_layers) return fmt::format("PP {} exceeds the {} layers", pp, m.num_layers);
  return {};
}

std::vector<Option> enumerate(const ModelConfig& m, const Weights& w, const Cards& c, const Settings& s,
                              const std::vector<KvCacheDtype>& kv_dtypes, int count, const BudgetModel& bm) {
  std::vector<Option> out;
  for (const auto& kv : kv_dtypes)
    for (int tp : kTp) {  // every TP is shown; those beyond the cards say so
      out.push_back(evaluate(m, w, c, s, tp, 1, kv, bm));
      if (tp > count && out.back().starts())
        out.back().problem = fmt::format("needs {} cards, {} available", tp, count);
    }
  if (std::none_of(out.begin(), out.end(), [](const Option& o) { return o.starts(); }))
    for (const auto& kv : kv_dtypes)
      for (int pp : kPp)
        for (int tp : kTp)
          if (tp * pp <= count) out.push_back(evaluate(m, w, c, s, tp, pp, kv, bm));
  return out;
}

/// The other KV dtype's row with the same TP and PP, or nullptr.
const Option* sibling(const Plan& p, const Option& o) {
  for (const auto& x : p.options)
    if (x.tp == o.tp && x.pp == o.pp && is_fp8(x.kv_cache_dtype) != is_fp8(o.kv_cache_dtype)) return &x;
  return nullptr;
}

/// What seed 004 says comes with the fp8 KV cache on DCU, and how to turn it off.
std::string fp8_caveat(const Cards& c) {
  std::string s =
      "the fp8 KV cache halves the bytes a token, nearly doubling the concurrency, with little effect on "
      "the output (seed 004: one of the most cost-effective optimizations)";
  if (c.dcu())
    s += "; DCU's FP8 encoding is not NVIDIA's: FP8-quantized weights from CUDA cannot be reused, but the KV cache is "
         "written by the card itself, so it is unaffected";
  return s +
         ". If a kernel misbehaves with it (errors, garbled output), serve with --kv-cache-dtype auto; "
         "`dcukit plan --kv-cache-dtype auto` gives that budget";
}

/// Why the chosen option's KV dtype, where plan chose it.
std::string kv_why(const Plan& p, const Option& o, bool fp8_rows) {
  const auto* other = sibling(p, o);
  const auto& cap = p.cards.fp8_kv_cache;
  if (is_fp8(o.kv_cache_dtype)) {
    std::string why =
        p.goal == Goal::most_concurrency
            ? fmt::format("--goal most-concurrency: {:.1f} full-length requests at once", o.budget.max_concurrency)
            : fmt::format("reaches the target of {} full-length requests, which auto does not: {:.1f}",
                          p.min_concurrency, o.budget.max_concurrency);
    if (other && other->budget.weights_fit)
      why += fmt::format(" against {:.1f} with auto at {}", other->budget.max_concurrency, label(o));
    return why + fmt::format(
                     " ({}). If a kernel misbehaves with it (errors, garbled output), serve with "
                     "--kv-cache-dtype auto and re-plan: the cache then holds half the tokens",
                     cap.source());
  }
  if (!fp8_rows) {
    if (cap.effective() == Support::no)
      return fmt::format("the model dtype; vLLM on {} has no fp8 KV cache ({})", p.cards.name, cap.source());
    return "the model dtype";
  }
  if (o.unverified || (other && other->unverified))
    return fmt::format("the model dtype; vLLM's fp8 KV cache is unverified on {}{}", p.cards.name,
                       cap.published.note.empty() ? "" : " (" + cap.published.note + ")");
  std::string why =
      fmt::format("the model dtype: the target of {} full-length requests is reached without fp8 ({:.1f})",
                  p.min_concurrency, o.budget.max_concurrency);
  if (other && other->starts())
    why += fmt::format(
        "; the fp8 KV cache would hold {:.1f} (seed 004 turns it on in production: pass --goal "
        "most-concurrency or --kv-cache-dtype fp8)",
        other->budget.max_concurrency);
  return why;
}

void recommend(Plan& p, bool kv_asked) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(p.options.size()); ++i) {
    const auto& o = p.options[static_cast<std::size_t>(i)];
    if (o.starts() && (!o.unverified || kv_asked)) order.push_back(i);  // an unverified fp8 row only where asked
  }
  if (order.empty()) return;
  auto at = [&](int i) -> const Option& { return p.options[static_cast<std::size_t>(i)]; };
  const bool fp8_first = p.goal == Goal::most_concurrency;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (at(a).gpus() != at(b).gpus()) return at(a).gpus() < at(b).gpus();
    if (at(a).pp != at(b).pp) return at(a).pp < at(b).pp;
    return is_fp8(at(a).kv_cache_dtype) == fp8_first && is_fp8(at(b).kv_cache_dtype) != fp8_first;
  });
  const auto target = static_cast<double>(p.min_concurrency);
  for (int i : order)
    if (at(i).budget.max_concurrency >= target) {
      p.recommended = i;
      const auto& o = at(i);
      p.reason =
          fmt::format("the fewest cards ({}) that hold at least {} full-length ({}-token) requests at once: {:.1f}",
                      label(o), p.min_concurrency, p.settings.max_model_len, o.budget.max_concurrency);
      if (is_fp8(o.kv_cache_dtype))
        p.reason += p.goal == Goal::most_concurrency ? "; with the fp8 KV cache, as --goal most-concurrency asks"
                                                     : "; needs the fp8 KV cache";
      if (o.gpus() < p.cards.count)
        p.reason += fmt::format("; more TP adds all-reduce traffic, so the other {} card{} can serve replicas",
                                p.cards.count - o.gpus(), p.cards.count - o.gpus() == 1 ? "" : "s");
      return;
    }
  int best = order.front();
  for (int i : order)
    if (at(i).budget.max_concurrency > at(best).budget.max_concurrency * 1.0001) best = i;
  p.recommended = best;
  p.reason =
      fmt::format("no option on {} card{} holds {} full-length requests at once; {}{} holds the most ({:.1f})",
                  p.cards.count, p.cards.count == 1 ? "" : "s", p.min_concurrency, label(at(best)),
                  is_fp8(at(best).kv_cache_dtype) ? " with the fp8 KV cache" : "", at(best).budget.max_concurrency);
  for (const auto& o : p.options)  // TP rows beyond the cards were budgeted too: name the first that would
    if (o.gpus() > p.cards.count && o.budget.one_request_fits && o.budget.max_concurrency >= target && !o.unverified) {
      p.reason += fmt::format("; --count {} ({}) would hold {:.1f}", o.gpus(), label(o), o.budget.max_concurrency);
      break;
    }
  p.reason += ". --min-concurrency sets the target";
}

/// The nearest inputs that start, for a plan where nothing does.
std::string nearest(const ModelConfig& m, const Weights& w, const Cards& c, const Settings& s,
                    const std::vector<Option>& tried, const std::vector<KvCacheDtype>& kv_dtypes,
                    const BudgetModel& bm) {
  std::vector<std::string> ways;
  const Option* longest = nullptr;
  for (const auto& o : tried)
    if (o.gpus() <= c.count && o.budget.weights_fit && o.budget.longest_fitting_len >= s.block_size &&
        (longest == nullptr || o.budget.longest_fitting_len > longest->budget.longest_fitting_len))
      longest = &o;
  if (longest)
    ways.push_back(fmt::format("--max-model-len {} on {} ({}{})", longest->budget.longest_fitting_len,
                               c.count == 1 ? std::string("this card") : fmt::format("these {} cards", c.count),
                               label(*longest), is_fp8(longest->kv_cache_dtype) ? ", fp8 KV cache" : ""));
  for (int u = static_cast<int>(std::lround(s.gpu_memory_utilization * 100)) + 1; u <= 95; ++u) {
    Settings more = s;
    more.gpu_memory_utilization = u / 100.0;
    auto options = enumerate(m, w, c, more, kv_dtypes, c.count, bm);
    auto it = std::find_if(options.begin(), options.end(),
                           [&](const Option& o) { return o.starts() && o.gpus() <= c.count; });
    if (it != options.end()) {
      ways.push_back(fmt::format("--gpu-memory-utilization {:.2f} ({}){}", more.gpu_memory_utilization, label(*it),
                                 c.dcu() && u > 90 ? ", above the 0.85-0.9 seed 004 advises on DCU" : ""));
      break;
    }
  }
  for (int count : {2, 4, 8, 16, 32}) {
    if (count <= c.count) continue;
    Cards more = c;
    more.count = count;
    auto options = enumerate(m, w, more, s, kv_dtypes, count, bm);
    auto it = std::find_if(options.begin(), options.end(), [](const Option& o) { return o.starts(); });
    if (it != options.end()) {
      const std::string where = c.detected && !c.key.empty() ? fmt::format("--gpu {} --count {}", c.key, count)
                                                             : fmt::format("--count {}", count);
      ways.push_back(fmt::format("{} ({}) at --max-model-len {}", where, label(*it), s.max_model_len));
      break;
    }
  }
  const bool fp8_tried = std::any_of(kv_dtypes.begin(), kv_dtypes.end(), [](KvCacheDtype k) { return is_fp8(k); });
  if (c.fp8_kv_cache.effective() == Support::yes && !fp8_tried) {
    auto options = enumerate(m, w, c, s, {KvCacheDtype::fp8}, c.count, bm);
    auto it = std::find_if(options.begin(), options.end(), [](const Option& o) { return o.starts(); });
    if (it != options.end()) ways.push_back(fmt::format("--kv-cache-dtype fp8 ({})", label(*it)));
  }
  if (ways.empty())
    return fmt::format(
        "none within 32 cards; the weights alone take {:.1f} GiB: a 4-bit (GPTQ/AWQ) checkpoint "
        "needs about a quarter of that",
        static_cast<double>(w.total_bytes) / kGiB);
  return fmt::format("{}", fmt::join(ways, "; or "));
}

}  // namespace

std::string label(const Option& o) {
  return o.pp > 1 ? fmt::format("TP {} × PP {}", o.tp, o.pp) : fmt::format("TP {}", o.tp);
}

BudgetModel generic_budget_model() {
  BudgetModel bm;
  bm.budget = [](const ModelConfig& m, const Weights& w, const Cards& c, const Settings& s, int tp, int pp) {
    return compute_budget(m, w, c, s, tp, pp);
  };
  return bm;
}

Option evaluate(const ModelConfig& m, const Weights& w, const Cards& c, const Settings& base, int tp, int pp,
                KvCacheDtype kv_cache_dtype, const BudgetModel& bm) {
  Option o;
  o.tp = tp;
  o.pp = pp;
  o.kv_cache_dtype = kv_cache_dtype;
  o.unverified = is_fp8(kv_cache_dtype) && c.fp8_kv_cache.effective() != Support::yes;
  Settings s = base;
  s.kv_cache_dtype = kv_cache_dtype;
  o.problem = shard_problem(m, tp, pp);
  if (!o.problem.empty()) return o;
  o.budget = bm.budget(m, w, c, s, tp, pp);
  const auto& b = o.budget;
  if (c.detected && c.free_bytes > 0 && static_cast<double>(c.free_bytes) < b.usable) {
    o.problem = fmt::format(
        "{:.2f} GiB free on a card is below {:.2f} × {:.2f} GiB; vLLM refuses to start. Lower "
        "--gpu-memory-utilization to {:.2f} or free the card",
        static_cast<double>(c.free_bytes) / kGiB, s.gpu_memory_utilization, static_cast<double>(c.total_bytes) / kGiB,
        static_cast<double>(c.free_bytes) / static_cast<double>(c.total_bytes) - 0.01);
  } else if (!b.weights_fit) {
    o.problem = fmt::format(
        "weights {:.2f} + activations {:.2f} + non-torch {:.2f} + graphs {:.2f} GiB exceed "
        "{:.2f} × {:.2f} GiB = {:.2f} GiB",
        b.weights / kGiB, b.activation / kGiB, b.non_torch / kGiB, b.graphs / kGiB, s.gpu_memory_utilization,
        static_cast<double>(c.total_bytes) / kGiB, b.usable / kGiB);
  } else if (!b.one_request_fits) {
    o.problem = fmt::format(
        "one {}-token request needs {:.2f} GiB of KV cache, {:.2f} GiB is left; vLLM refuses to "
        "start. The longest that fits is {}",
        s.max_model_len, b.kv.sequence_bytes(s.max_model_len, s.block_size) / kGiB, b.kv_budget / kGiB,
        b.longest_fitting_len);
  }
  return o;
}

Result<Plan> make_plan(const ModelConfig& m, const Weights& w, const Cards& c, const Asked& asked) {
  return make_plan(m, w, c, asked, generic_budget_model());
}

Result<Plan> make_plan(const ModelConfig& m, const Weights& w, const Cards& c, const Asked& asked,
                       const BudgetModel& bm) {
  if (c.count < 1 || c.count > kMaxCards)
    return Error{fmt::format("--count {}: pass 1 to {} cards", c.count, kMaxCards)};
  if (asked.min_concurrency < 1)
    return Error{fmt::format("--min-concurrency {}: pass 1 or more full-length requests", asked.min_concurrency)};
  Plan p;
  p.model = m;
  p.weights = w;
  p.cards = c;
  p.min_concurrency = asked.min_concurrency;
  p.goal = asked.goal;
  auto resolved = resolve_settings(m, c, asked);
  if (!resolved) return resolved.error();
  p.settings = resolved->settings;
  p.dtype_option = resolved->dtype_option;
  p.warnings = resolved->warnings;
  p.accounting = bm.vllm;
  if (bm.defaults)
    if (auto st = bm.defaults(asked, c, p.settings); !st) return st.error();
  std::vector<KvCacheDtype> kv_dtypes{p.settings.kv_cache_dtype};
  const bool fp8_rows = !asked.kv_cache_dtype && c.fp8_kv_cache.effective() != Support::no;
  if (fp8_rows) kv_dtypes.push_back(KvCacheDtype::fp8);
  if (fp8_rows || is_fp8(p.settings.kv_cache_dtype)) p.caveats.push_back(fp8_caveat(c));
  if (!p.settings.limit_mm_per_prompt.dummy_sizes.empty())
    p.caveats.push_back(fmt::format(
        "--limit-mm-per-prompt {} gives the dummy items' sizes, which plan does not follow: the activation takes the "
        "vision encoder's run over the processor's largest items, so the KV budget may come out below vLLM's",
        p.settings.limit_mm_per_prompt.dummy_sizes));
  if (m.quant == QuantMethod::fp8 && c.fp8.effective() == Support::no)
    p.warnings.push_back(fmt::format(
        "the checkpoint's weights are fp8 but {} has no FP8 compute ({}): vLLM needs a "
        "kernel that widens them on the fly (Marlin on NVIDIA); on DCU prefer a "
        "bf16/fp16 or int8/int4 checkpoint{}",
        c.name, c.fp8.source(), c.dcu() ? " (and FP8 weights quantized for CUDA do not carry over: seed 004)" : ""));
  p.options = enumerate(m, w, c, p.settings, kv_dtypes, c.count, bm);
  recommend(p, asked.kv_cache_dtype.has_value());
  if (const Option* o = p.chosen()) {
    p.settings.kv_cache_dtype = o->kv_cache_dtype;  // the script and the tables name the chosen KV dtype
    if (!asked.kv_cache_dtype) p.settings.why.kv_cache_dtype = kv_why(p, *o, fp8_rows);
    return p;
  }
  const Option* best = nullptr;  // the option that came closest, for the message
  for (const auto& o : p.options)
    if (o.gpus() <= c.count && o.budget.usable > 0 && (best == nullptr || o.budget.kv_budget > best->budget.kv_budget))
      best = &o;
  p.nearest = nearest(m, w, c, p.settings, p.options, kv_dtypes, bm);
  p.reason = fmt::format("{} at --max-model-len {} starts on none of the options on {} × {}{}", m.name,
                         p.settings.max_model_len, c.count, c.name,
                         best ? fmt::format(": with {}, {}", label(*best), best->problem) : std::string{});
  return p;
}

}  // namespace dcukit::plan
