// Step 10's search space (docs/step10-fft-tiled.md, "Which tile" and
// "Candidates"), declared once: the tile, its layout (the lesson's local
// one and the three candidates) and the work-group; the documented
// defaults, one rule for every device; what rules a point out; and the
// step's side that comes from them (tuning.hpp in the lesson's folder
// declares it).
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "step10-fft-tiled/candidates/default_tile.hpp"
#include "step10-fft-tiled/tile.hpp"
#include "step10-fft-tiled/tuning.hpp"

namespace conv {

double tile_flops_per_output(int N, int F) {
  if (N < F) return std::numeric_limits<double>::infinity();
  const double points = static_cast<double>(N) * N, valid = N - F + 1;
  return (2 * 5 * points * std::log2(points) + 6 * points) / (2 * valid * valid);
}

DefaultTile default_tile(int F, std::uint64_t local_mem_bytes) {
  DefaultTile best;
  for (int N : kTileSizes) {
    const bool whole = tile_local_bytes(N) <= local_mem_bytes;
    const bool split = N >= 32 && tile_local_bytes(N / 2) <= local_mem_bytes;
    if (N < F || !(whole || split)) continue;
    if (best.tile == 0 || tile_flops_per_output(N, F) < tile_flops_per_output(best.tile, F)) best = {N, !whole};
  }
  return best;
}

namespace {

// The split kernel unrolls each work-item's butterflies of its last column
// pass, 32 complex values in registers apiece; it is built for at most
// this many a work-item (the defaults give it one).
constexpr long long kMostSplitButterflies = 8;

std::string kib(std::uint64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

// Why tile N cannot run in a candidate layout with `items` work-items:
// its sizes, its local memory.
std::string candidate_ruled_out(const std::string& layout, int N, long long items, std::uint64_t local_mem_bytes) {
  const std::string tile = "a " + std::to_string(N) + "-point tile";
  std::uint64_t bytes = 0;
  if (layout == "split") {
    if (N < 32) return "the split layout: " + tile + " is too small to split in four (it takes N >= 32)";
    const long long butterflies = static_cast<long long>(N / 2) * (N / 2) / 8;
    if ((butterflies + items - 1) / items > kMostSplitButterflies)
      return "the split layout: " + tile + " with " + std::to_string(items) + " work-items would leave each more than " +
             std::to_string(kMostSplitButterflies) + " butterflies to keep in registers (it takes " +
             std::to_string(butterflies / kMostSplitButterflies) + " work-items or more)";
    bytes = tile_local_bytes(N / 2);
  } else {
    if (N < 16 || N > 64)
      return "the registers layout: " + tile + " is not 16, 32 or 64 points (a line of them in one work-item's "
             "registers)";
    bytes = 8ull * static_cast<std::uint64_t>(N) * (N + 1);  // t[N][N + 1] complex floats
  }
  if (bytes > local_mem_bytes)
    return "the " + layout + " layout: " + tile + " takes " + kib(bytes) + " of local memory, over this device's " +
           kib(local_mem_bytes);
  return "";
}

}  // namespace

std::vector<StepOption> TiledFftStep::options() const {
  return tuned_options(tune_parameters(), "; auto: the tuned winner, else the default (docs/step10-fft-tiled.md)");
}

std::string TiledFftStep::tune_name() const { return CLCONV_STEP_NAME; }
std::string TiledFftStep::tune_filters() const { return "random:15,random:31,random:63"; }

// The tile as free text, so that the suites run 32 and 64 beside the
// defaults: 16 is narrower than some of their filters, and 128 and 256
// take long on a CPU. Largest first: where the values given need another
// tile than the defaults' (--layout registers), the largest that runs.
std::vector<TuneParameter> TiledFftStep::tune_parameters() const {
  const std::vector<std::string> tiles = {"256", "128", "64", "32", "16"};
  return {{"tile", "The transform's size N (tiles of N x N, N - F + 1 outputs a side): 16, 32, 64, 128 or 256",
           tiles, {"64", "128", "256"}, one_of(tiles), {"32", "64"}},
          {"layout",
           "local: the whole tile in local memory, one phase at a time: the lesson's kernel (convolve.cl); fused: "
           "the same with three stages a pass in registers and the neighbouring passes fused "
           "(candidates/fused.cl); split: four N/2 x N/2 sub-tiles through local memory in turn, N >= 32 "
           "(candidates/split.cl); registers: each line of the tile in one work-item's registers, N = 16 to 64 "
           "(candidates/registers.cl)",
           {"local", "fused", "split", "registers"}, {"local", "fused", "registers"}}};
}

// One dimension: the kernels loop over their butterflies (or lines), so
// any number of work-items works.
std::vector<std::string> TiledFftStep::tune_work_groups(const DeviceFacts&, const TuneProblem&) const {
  return {"32x1", "64x1", "128x1", "256x1", "512x1", "1024x1"};
}

// The documented defaults, one rule for every device
// (docs/step10-fft-tiled.md, "Which tile"): the tile with the fewest flops
// per output of those at least F wide that fit local memory (default_tile,
// above), whole, else split in four; 128 work-items, or one per
// butterfly of a split tile's last column pass ((N/2)^2 / 8: its registers
// hold 32 points a butterfly). A whole tile runs the fused candidate, not
// the lesson's kernel: the same transform, faster. On PoCL (an AMD EPYC,
// 2048x2048, the default tiles) it took 15.4, 25.3 and 29.1 ms at F = 7,
// 15 and 31 against the lesson's 47.3, 54.1 and 79.3
// (docs/results/step10-lesson-pocl.csv, docs/step10-fft-tiled.md,
// "Candidates").
TunePoint TiledFftStep::tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const {
  const DefaultTile d = default_tile(static_cast<int>(problem.size), facts.local_mem_bytes);
  const int N = d.tile ? d.tile : kLargestTile;  // none fits: tune_ruled_out says why
  long long items = d.split ? static_cast<long long>(N / 2) * (N / 2) / 8 : 128;
  if (facts.max_work_group > 0) items = std::min<long long>(items, static_cast<long long>(facts.max_work_group));
  return {{"tile", std::to_string(N)}, {"layout", d.split ? "split" : "fused"}, {"wg", std::to_string(items) + "x1"}};
}

std::string TiledFftStep::tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                                         const TunePoint& point) const {
  const int F = static_cast<int>(problem.size), N = std::stoi(point.at("tile"));
  const auto [wx, wy] = parse_size(point.at("wg"), "wg", 1 << 14);
  const long long items = static_cast<long long>(wx) * wy;
  if (N < F)
    return "a " + std::to_string(N) + "-point tile is narrower than the filter (" + std::to_string(F) +
           " wide): no output is out of the wrap's reach" +
           (F > kLargestTile ? "; no tile is that wide (step 9 transforms the whole image instead)" : "");
  if (facts.max_work_group > 0 && items > static_cast<long long>(facts.max_work_group))
    return "a work-group of " + std::to_string(items) + " work-items, over the device's " +
           std::to_string(facts.max_work_group);
  const std::string layout = point.at("layout");
  if (layout == "split" || layout == "registers") return candidate_ruled_out(layout, N, items, facts.local_mem_bytes);
  if (tile_local_bytes(N) > facts.local_mem_bytes)
    return "a " + std::to_string(N) + "-point tile takes " + kib(tile_local_bytes(N)) +
           " of local memory whole, over this device's " + kib(facts.local_mem_bytes) + " (the split layout takes " +
           kib(tile_local_bytes(N / 2)) + ")";
  return "";
}

// A --kernel file replaces convolve, the tile in local memory (the
// exercise); the candidate layouts build their own kernels.
bool TiledFftStep::builds_kernel_file(const RunOptions& options) const {
  const std::string layout = option(options, "layout");
  return layout == "auto" || layout == "local";
}

// The options not left at auto; a --kernel file stands for convolve.
static TunePoint given_by(const TiledFftStep& step, const RunOptions& options) {
  TunePoint given = given_values(step, step, options);
  if (!options.kernel_source.empty()) given["layout"] = "local";
  return given;
}

std::pair<int, int> TiledFftStep::default_work_group(const DeviceFacts& facts, const Filter& filter,
                                                     const RunOptions& options) const {
  // Values that cannot run: prepare() says why.
  const TunePoint given = given_by(*this, options);
  return parse_size(resolve_point(*this, facts, tune_problem(filter), given).point.at("wg"), "wg", 1 << 14);
}

TunePoint TiledFftStep::resolve(const DeviceFacts& facts, const RunOptions& options, const Filter& filter,
                                int items, std::string* origin) const {
  TunePoint given = given_by(*this, options);
  given["wg"] = std::to_string(items) + "x1";
  const Resolved r = resolve_point(*this, facts, tune_problem(filter), given);
  if (!r.why.empty()) throw UsageError(r.why);
  if (origin) *origin = r.origin;
  return r.point;
}

}  // namespace conv
