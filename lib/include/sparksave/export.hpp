// SPARKSAVE_API marks the library's API: the declarations a shared build of the library
// (BUILD_SHARED_LIBS=ON, README "Packaging") exports. Everything else is compiled with hidden
// visibility and stays inside the library. The API is sparksave/save_file.hpp and what it needs,
// sparksave/error.hpp; a shared build installs only these headers.
//
// SPARKSAVE_SHARED: the library is shared (the sparksave::sparksave target and sparksave.pc set
// it for their users). SPARKSAVE_BUILDING: the library's own sources are being compiled.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(SPARKSAVE_SHARED) && defined(SPARKSAVE_BUILDING)
#define SPARKSAVE_API __declspec(dllexport)
#elif defined(SPARKSAVE_SHARED)
#define SPARKSAVE_API __declspec(dllimport)
#else
#define SPARKSAVE_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define SPARKSAVE_API __attribute__((visibility("default")))
#else
#define SPARKSAVE_API
#endif

// The library's names live in the inline namespace sparksave::SPARKSAVE_ABI (version.hpp),
// opened through this pair as fmt opens fmt::v10: `namespace sparksave::inline v0_1 {`, the C++20
// form, hides every function from Universal Ctags (Debian's 5.9), so tag-based editors and code
// browsers would see none. Only the library opens it: the tool and the tests have no ABI.
#define SPARKSAVE_BEGIN_NAMESPACE                                                                  \
    namespace sparksave {                                                                          \
    inline namespace SPARKSAVE_ABI {
#define SPARKSAVE_END_NAMESPACE                                                                    \
    }                                                                                              \
    }
