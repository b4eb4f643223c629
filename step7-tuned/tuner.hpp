// build/bin/step7-tuned --tune (tuner.cpp): the search over step 7's
// configurations on this device, one filter width at a time.
#pragma once

namespace conv {

int tune_main(int argc, char** argv);

}  // namespace conv
