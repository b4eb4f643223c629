#include "common/machinery/filter_specs.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/files.hpp"

namespace conv {


namespace {

Filter make(int width, std::vector<float> w, std::string name) {
  return Filter{width, std::move(w), std::move(name)};
}

// The 7x7 45-degree motion blur of the 2012 final-exam report (the final-exam report), with
// all seven rows: the report's listing gives only six of them to a 49-element
// array, so its last row silently became zeros (docs/step1-naive.md).
Filter motion45() {
  const float a = 0.0145f, b = 0.0376f, c = 0.1283f;
  return make(7,
              {0, 0, 0, 0, 0, a, 0,  //
               0, 0, 0, 0, b, c, a,  //
               0, 0, 0, b, c, b, 0,  //
               0, 0, b, c, b, 0, 0,  //
               0, b, c, b, 0, 0, 0,  //
               a, c, b, 0, 0, 0, 0,  //
               0, a, 0, 0, 0, 0, 0},
              "motion45");
}

int width_arg(const std::string& text, const std::string& spec) {
  return parse_positive_int(text, "--filter " + spec + " width", kMaxFilterWidth);
}

}  // namespace

Filter parse_filter_text(const std::string& text, const std::string& name) {
  std::vector<float> values;
  std::size_t i = 0, line = 1;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      std::size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != '#')
        ++i;
      std::string token = text.substr(start, i - start);
      errno = 0;
      char* end = nullptr;
      double v = std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size())
        throw Error(name + ": line " + std::to_string(line) + ": '" + token + "' is not a number");
      // Underflow: strtod's ERANGE with a result near 0 (1e-400), or a
      // number that is 0 only as a float (1e-50): too small, not infinite.
      if ((errno == ERANGE && std::fabs(v) < 1) || (v != 0 && static_cast<float>(v) == 0.0f))
        throw Error(name + ": line " + std::to_string(line) + ": '" + token +
                    "' is too small for a float (it would be 0)");
      if (!std::isfinite(v) || errno == ERANGE || std::fabs(v) > 3.4e38)
        throw Error(name + ": line " + std::to_string(line) + ": '" + token +
                    "' is not a finite float");
      values.push_back(static_cast<float>(v));
      if (values.size() > static_cast<std::size_t>(kMaxFilterWidth) * kMaxFilterWidth)
        throw Error(name + ": more than " + std::to_string(kMaxFilterWidth) + "x" +
                    std::to_string(kMaxFilterWidth) + " values");
    }
  }
  if (values.empty()) throw Error(name + ": holds no filter values");
  int width = static_cast<int>(std::lround(std::sqrt(static_cast<double>(values.size()))));
  if (static_cast<std::size_t>(width) * width != values.size())
    throw Error(name + ": " + std::to_string(values.size()) +
                " values do not form a square filter (need F*F values)");
  return make(width, std::move(values), "file:" + name);
}

Filter parse_filter_spec(const std::string& spec) {
  auto colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  auto no_arg = [&]() {
    if (colon != std::string::npos)
      throw UsageError("--filter " + kind + " takes no parameter (got '" + spec + "')");
  };

  if (kind == "file") {
    if (arg.empty()) throw UsageError("--filter file: needs a path, as in file:my.txt");
    Filter f = parse_filter_text(read_text_file(arg), arg);
    return f;
  }
  if (kind == "motion45") {
    no_arg();
    return motion45();
  }
  if (kind == "sobel-x" || kind == "sobel-y") {
    no_arg();
    std::vector<float> w = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    if (kind == "sobel-y") w = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
    return make(3, w, kind);
  }
  if (kind == "sharpen") {
    no_arg();
    return make(3, {0, -1, 0, -1, 5, -1, 0, -1, 0}, kind);
  }
  if (kind == "laplacian") {
    no_arg();
    return make(3, {0, 1, 0, 1, -4, 1, 0, 1, 0}, kind);
  }
  if (kind == "box") {
    int n = width_arg(arg, "box:N");
    return make(n, std::vector<float>(static_cast<std::size_t>(n) * n, 1.0f / (n * n)), spec);
  }
  if (kind == "gaussian") {
    auto c2 = arg.find(':');
    int n = width_arg(arg.substr(0, c2), "gaussian:N");
    // Default sigma as OpenCV's getGaussianKernel chooses it for width N.
    double sigma = 0.3 * ((n - 1) * 0.5 - 1) + 0.8;
    if (c2 != std::string::npos) {
      sigma = parse_number(arg.substr(c2 + 1), "--filter gaussian sigma");
      if (sigma <= 0) throw UsageError("--filter gaussian sigma must be positive");
    }
    std::vector<double> g(n);
    double total = 0;
    // Exponents relative to the central tap's, so the peak is exactly 1: a
    // tiny sigma gives a sharp peak, not 0/0 (NaN weights).
    const double d0 = n % 2 ? 0.0 : 0.5;
    for (int i = 0; i < n; ++i) {
      const double d = i - (n - 1) / 2.0, e = d * d - d0 * d0;
      g[i] = e == 0 ? 1.0 : std::exp(-e / (2 * sigma * sigma));
      total += g[i];
    }
    std::vector<float> w(static_cast<std::size_t>(n) * n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) w[static_cast<std::size_t>(r) * n + c] = static_cast<float>(g[r] * g[c] / (total * total));
    return make(n, w, spec);
  }
  if (kind == "random") {
    auto c2 = arg.find(':');
    int n = width_arg(arg.substr(0, c2), "random:N");
    std::uint32_t seed = 1;
    if (c2 != std::string::npos)
      seed = static_cast<std::uint32_t>(
          parse_positive_int(arg.substr(c2 + 1), "--filter random seed", 1 << 30));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> w(static_cast<std::size_t>(n) * n);
    for (auto& v : w) v = dist(rng);
    return make(n, w, spec);
  }
  throw UsageError("--filter: unknown filter '" + spec + "' (known: " + filter_spec_help() + ")");
}

std::string filter_spec_help() {
  return "motion45, box:N, gaussian:N[:sigma], sobel-x, sobel-y, sharpen, laplacian, "
         "random:N[:seed], file:PATH";
}

std::vector<std::string> expand_filters(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const auto& spec : specs) {
    auto dots = spec.find("..");
    auto colon = spec.find(':');
    if (dots == std::string::npos || colon == std::string::npos || dots < colon) {
      out.push_back(spec);
      continue;
    }
    const std::string kind = spec.substr(0, colon + 1);
    const std::string rest = spec.substr(dots + 2);
    const auto tail_at = rest.find(':');
    const std::string tail = tail_at == std::string::npos ? "" : rest.substr(tail_at);
    const int from = parse_positive_int(spec.substr(colon + 1, dots - colon - 1), "--filters range", kMaxFilterWidth);
    const int to = parse_positive_int(rest.substr(0, tail_at), "--filters range", kMaxFilterWidth);
    if (to < from) throw UsageError("--filters: empty range in '" + spec + "'");
    for (int f = from; f <= to; ++f) out.push_back(kind + std::to_string(f) + tail);
  }
  return out;
}

}  // namespace conv
