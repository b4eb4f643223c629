#include "common/registry.hpp"

#include "common/errors.hpp"

namespace conv {

// Each step's launcher.cpp defines its factory.
std::unique_ptr<Step> make_step1_naive();
std::unique_ptr<Step> make_step2_constant();
std::unique_ptr<Step> make_step3_local();
std::unique_ptr<Step> make_step4_unroll();
std::unique_ptr<Step> make_step5_vector();
std::unique_ptr<Step> make_step6_multioutput();
std::unique_ptr<Step> make_step7_separable();
std::unique_ptr<Step> make_step8_fft();

const std::vector<StepFactory>& step_factories() {
  // Lesson order, as CLCONV_STEPS in CMakeLists.txt (which checks that
  // every step it builds is listed here).
  static const std::vector<StepFactory> factories = {
      make_step1_naive,
      make_step2_constant,
      make_step3_local,
      make_step4_unroll,
      make_step5_vector,
      make_step6_multioutput,
      make_step7_separable,
      make_step8_fft,
  };
  return factories;
}

std::vector<std::unique_ptr<Step>> all_steps() {
  std::vector<std::unique_ptr<Step>> steps;
  for (auto factory : step_factories()) steps.push_back(factory());
  return steps;
}

std::unique_ptr<Step> find_step(const std::string& name) {
  std::string known;
  for (auto factory : step_factories()) {
    auto step = factory();
    const std::string n = step->name();
    if (n == name || n.rfind("step" + name + "-", 0) == 0) return step;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw UsageError("no step named '" + name + "' (registered: " + known + ")");
}

}  // namespace conv
