// Where the project and the drivers it starts keep files between runs: the
// binary cache of built programs (common/program_cache.hpp), the measured
// limits (common/roofline.hpp) and PoCL's compiled kernels (common/device.cpp).
#pragma once
#include <string>

namespace conv {

// The folder `sub` of the user's cache folder: $XDG_CACHE_HOME/sub, else
// $HOME/.cache/sub (an empty variable counts as unset). "" when neither
// variable is set: the caller then keeps no cache. Creates nothing.
std::string cache_dir(const std::string& sub);

}  // namespace conv
