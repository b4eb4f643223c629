// Whether this build runs under AddressSanitizer (the asan preset): ASan
// reserves terabytes of address space for its shadow memory, and catches a
// fault with its own handler, which reports it and aborts (SIGABRT).
#pragma once

namespace conv {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace conv
